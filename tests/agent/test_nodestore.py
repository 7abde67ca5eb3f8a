"""The agent's node store on its own: query threads fitted to what it holds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fayshell.agent.nodestore import NodeStore
from fayshell.errors import SqlError


def threads(store: NodeStore) -> int:
    ((n,),) = store.db.con.execute("SELECT current_setting('threads')").fetchall()
    return int(n)


def test_a_small_store_queries_on_one_thread(tmp_path: Path, session_dir: Path) -> None:
    store = NodeStore.open(tmp_path / "store.duckdb")
    try:
        assert threads(store) == store.threads == 1  # empty
        done = store.import_session(session_dir, "incident", "node01", stopped=False)
        assert done.chunks_loaded == 3 and not done.errors
        assert threads(store) == 1  # 20k events: far below a thread's share of rows
    finally:
        store.close()


def test_a_bigger_store_gets_a_thread_per_share_of_rows(tmp_path: Path, session_dir: Path) -> None:
    store = NodeStore.open(tmp_path / "store.duckdb")
    store.rows_per_thread = 1000
    try:
        store.import_session(session_dir, "incident", "node01", stopped=False)
        ((rows,),) = store.db.con.execute(
            "SELECT sum(estimated_size) FROM duckdb_tables() "
            "WHERE database_name = current_database()"
        ).fetchall()
        want = max(1, min(os.cpu_count() or 1, rows // 1000))
        assert threads(store) == store.threads == want
        assert store.query("SELECT count(*) AS n FROM syscalls").column("n")[0].as_py() > 0
    finally:
        store.close()


def test_a_refused_statement_stays_refused_when_asked_again(tmp_path: Path) -> None:
    store = NodeStore.open(tmp_path / "store.duckdb")
    try:
        for _ in range(2):  # the second time from the kept relation, or checked again
            assert store.query("SELECT count(*) AS n FROM syscalls").column("n")[0].as_py() == 0
            with pytest.raises(SqlError, match="exactly one SELECT"):
                store.query("DROP TABLE syscalls")
        assert list(store.relations) == ["SELECT count(*) AS n FROM syscalls"]
    finally:
        store.close()


def test_a_kept_query_answers_from_what_an_import_added(tmp_path: Path, session_dir: Path) -> None:
    store = NodeStore.open(tmp_path / "store.duckdb")
    sql = "SELECT count(*) AS n, count(DISTINCT name) AS names FROM syscalls"
    try:
        assert store.query(sql).to_pylist() == [{"n": 0, "names": 0}]
        store.import_session(session_dir, "incident", "node01", stopped=False)
        after = store.query(sql).to_pylist()
        assert after[0]["n"] > 0 and after[0]["names"] > 1
        assert store.query(sql).to_pylist() == after  # read again: the same answer
    finally:
        store.close()
