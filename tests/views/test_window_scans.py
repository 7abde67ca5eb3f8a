"""A live view's refresh reads its window, not the whole session.

A store holding many row groups of logs, spans and syscalls (hours of a live session, in
time order as the live pump appends them); a view asks for the last minute. Every statement a
refresh runs is recorded (a forwarding cursor) and run again under EXPLAIN ANALYZE: each
scan of the big tables may read the row groups the window falls in, never all of them, so the
refresh's cost does not grow with the session.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from fayshell.store.database import Database
from fayshell.store.schema import ensure_schema
from fayshell.views.model import Query, Scope
from fayshell.views.queries import common
from fayshell.views.queries import logs as lq
from fayshell.views.queries import spans as spq
from fayshell.views.queries import syscalls as sq

NS = 1_000_000_000
T0 = 1_795_000_000 * NS
ROWS = 600_000  # five row groups of 122,880 rows per session
STEP = NS // 1000  # 1000 rows a second: each session spans 600 s
NOW = T0 + ROWS * STEP
BIG = ("logs", "spans", "syscalls")


class Recording:
    """A DuckDB cursor that notes every statement (with its parameters) it runs."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self.statements: list[tuple[str, list[Any]]] = []

    def execute(self, sql: str, params: Any = None) -> Any:
        self.statements.append((sql, list(params or [])))
        return self._con.execute(sql, params or [])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("window") / "big.duckdb"
    db = Database.open(str(path))
    ensure_schema(db)
    for session, start in (("before", T0 - ROWS * STEP), ("soak", T0)):  # an older session too
        _fill(db, session, start)
    db.execute(  # one chunk a second per node, as the live pump imports them
        f"INSERT INTO chunks (chunk_id, node, session, events, discarded, lost_packets, first_ts, "
        f"last_ts, chunk_no) SELECT 'c' || i, 'node0' || (i % 8), 'soak', 125, 0, 0, {T0} + (i // 8) * {NS}, "
        f"{T0} + (i // 8 + 1) * {NS} - 1, i FROM range({ROWS // 125}) t(i)"
    )
    db.execute("CHECKPOINT")
    db.close()
    return path


def _fill(db: Database, session: str, start: int) -> None:
    """ROWS rows of logs, spans and syscalls of ``session`` from ``start``, in time order."""
    ts = f"{start} + i * {STEP}"
    node = "'node0' || (i % 8)"
    db.execute(
        f"INSERT INTO logs (node, session, ts, domain, logger, level, severity, msg) "
        f"SELECT {node}, '{session}', {ts}, 'python', 'soak.app', 20, "
        f"['Debug', 'Info', 'Warning', 'Error'][i % 4 + 1], 'seq=' || i FROM range({ROWS}) t(i)"
    )
    db.execute(
        f"INSERT INTO spans (node, session, trace_id, span_id, service, name, ts_start, ts_end, "
        f"dur_ns, error) SELECT {node}, '{session}', i // 4, i, 'svc' || (i % 3), "
        f"'op' || (i % 5), {ts}, {ts} + 5000, 5000, i % 97 = 0 FROM range({ROWS}) t(i)"
    )
    db.execute(
        f"INSERT INTO syscalls SELECT {node}, '{session}', i % 2, 100 + i % 7, 100 + i % 7, "
        f"'app', ['read', 'write', 'openat'][i % 3 + 1], {ts}, {ts} + 900, 900, 0 "
        f"FROM range({ROWS}) t(i)"
    )


def scans(
    con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]
) -> list[tuple[str, int, int]]:
    """(table, row groups scanned, row groups it has) of every table scan of ``sql``."""
    plan = con.execute("EXPLAIN (ANALYZE, FORMAT json) " + sql, params).fetchall()[0][1]
    out: list[tuple[str, int, int]] = []

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for child in node:
                visit(child)
            return
        if not isinstance(node, dict):
            return
        extra = node.get("extra_info")
        table = extra.get("Table") if isinstance(extra, dict) else None
        if node.get("type") == "TABLE_SCAN" and table:
            out.append(
                (
                    str(table).rsplit(".", 1)[-1],
                    int(node["row_groups_scanned"]),
                    int(node["total_row_groups_to_scan"]),
                )
            )
        for value in node.values():
            visit(value)

    visit(json.loads(plan))
    return out


def refresh_scans(
    path: Path, refresh: Callable[[Any, Query], object], scope: Scope
) -> list[tuple[str, int, int, str]]:
    """Run one refresh on a recording cursor, then every statement it ran under EXPLAIN
    ANALYZE: the scans of the big tables, with the statement."""
    con = duckdb.connect(str(path))
    try:
        rec = Recording(con.cursor())
        q = Query(now_ns=NOW, interval_ns=NS, window="minute", scope=scope, limit=500)
        refresh(rec, q)
        assert rec.statements
        return [
            (table, done, total, sql)
            for sql, params in rec.statements
            if sql.lstrip().upper().startswith(("SELECT", "WITH"))
            for table, done, total in scans(con, sql, params)
            if table in BIG
        ]
    finally:
        con.close()


def _logs_refresh(con: Any, q: Query) -> None:
    common.existing_tables(con)
    page = lq.log_page(con, q, "Debug")
    assert page.records and page.records[-1].ts >= NOW - 8 * STEP  # the newest rows are shown
    header = common.header(con, q, "logs", "ts", live=True)
    assert header.newest_ns is not None and header.newest_ns >= NOW - 8 * STEP
    assert header.nodes_total == len(q.scope.nodes or range(8))
    common.node_rates(con, q, "logs", "ts")


def _spans_refresh(con: Any, q: Query) -> None:
    assert spq.span_stats(con, q)
    common.header(con, q, "spans", "ts_end", live=True)
    common.node_rates(con, q, "spans", "ts_end")


def _syscalls_refresh(con: Any, q: Query) -> None:
    assert sq.syscall_stats(con, q)
    common.header(con, q, "syscalls", "ts_exit", live=True)
    common.node_rates(con, q, "syscalls", "ts_exit")


@pytest.mark.parametrize("refresh", [_logs_refresh, _spans_refresh], ids=["logs", "spans"])
@pytest.mark.parametrize(
    "scope", [Scope("soak"), Scope("soak", ("node01", "node02"))], ids=["session", "nodes"]
)
def test_refresh_reads_the_window_row_groups_only(
    big_store: Path, refresh: Callable[[Any, Query], object], scope: Scope
) -> None:
    found = refresh_scans(big_store, refresh, scope)
    assert found, "the refresh read none of the view's table"
    for table, done, total, sql in found:
        assert total >= 10, (table, total)
        assert done <= 2, f"{table}: {done} of {total} row groups scanned by {sql}"


def test_syscalls_refresh_reads_new_rows_and_the_window_edges_only(big_store: Path) -> None:
    """The syscalls view folds rows into its rollup once; after the first refresh, the next
    reads the window's edges and the rows added since, not the whole table again."""
    con = duckdb.connect(str(big_store))
    try:
        cur = con.cursor()
        q = Query(now_ns=NOW, interval_ns=NS, window="minute", scope=Scope("soak"), limit=500)
        _syscalls_refresh(cur, q)  # builds the rollup: reads everything once
        rec = Recording(cur)
        _syscalls_refresh(rec, q)
        found = [
            (table, done, total, sql)
            for sql, params in rec.statements
            if sql.lstrip().upper().startswith(("SELECT", "WITH"))
            for table, done, total in scans(cur, sql, params)
            if table in BIG
        ]
    finally:
        con.close()
    assert found
    for table, done, total, sql in found:
        assert done <= 2, f"{table}: {done} of {total} row groups scanned by {sql}"
