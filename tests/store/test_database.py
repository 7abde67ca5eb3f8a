"""fayshell.store.database helpers on a real DuckDB file."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from fayshell.store.database import append_rows, insert_rows, registered, transaction


def test_insert_rows_binds_as_executemany_over_several_statements(tmp_path: Path) -> None:
    """More rows than one statement takes, with NULLs, maps, decimals and quotes: the same
    table executemany builds, row for row."""
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    cols = "id INTEGER, name VARCHAR, m MAP(VARCHAR, INTEGER), d DECIMAL(10, 2)"
    con.execute(f"CREATE TABLE a({cols}); CREATE TABLE b({cols})")
    rows = [(i, None if i % 7 == 0 else f"it's {i}", {"k": i}, Decimal(i) / 4) for i in range(1203)]
    insert_rows(con, "a", rows, per_statement=100)
    con.executemany("INSERT INTO b VALUES (?, ?, ?, ?)", rows[:150])
    got = con.execute("SELECT * FROM a ORDER BY id").fetchall()
    assert len(got) == 1203
    assert got[:150] == con.execute("SELECT * FROM b ORDER BY id").fetchall()
    assert got[-1] == (1202, "it's 1202", {"k": 1202}, Decimal("300.50"))


def test_insert_rows_of_nothing_runs_nothing(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    con.execute("CREATE TABLE a(id INTEGER)")
    insert_rows(con, "a", [])
    assert con.execute("SELECT count(*) FROM a").fetchall() == [(0,)]


def test_append_rows_matches_insert_rows(tmp_path: Path) -> None:
    """The Arrow path and the parameter path store the same rows: NULLs (a column of NULLs
    only too), quotes, non-ASCII text, more rows than one INSERT of insert_rows takes."""
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    cols = "name VARCHAR, domain VARCHAR, loglevel INTEGER, table_name VARCHAR"
    con.execute(f"CREATE TABLE a({cols}); CREATE TABLE b({cols}); CREATE TABLE c({cols})")
    rows = [(f"ev'{i}é", "ust", None if i % 3 else i, f"t_{i}") for i in range(1203)]
    append_rows(con, "a", rows)
    insert_rows(con, "b", rows)
    assert con.execute("SELECT * FROM a").fetchall() == con.execute("SELECT * FROM b").fetchall()
    append_rows(con, "c", [("x", "kernel", None, "t_x")])
    assert con.execute("SELECT * FROM c").fetchall() == [("x", "kernel", None, "t_x")]


def test_append_rows_of_nothing_and_failed_leave_nothing_registered(tmp_path: Path) -> None:
    """No rows: nothing runs. A failed insert (a duplicate key) raises DuckDB's error and
    leaves no Arrow table registered on the connection."""
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    con.execute("CREATE TABLE a(id INTEGER PRIMARY KEY, name VARCHAR)")
    append_rows(con, "a", [])
    append_rows(con, "a", [(1, "one")])
    with pytest.raises(duckdb.ConstraintException, match="Duplicate key"):
        append_rows(con, "a", [(2, "two"), (1, "again")])
    assert con.execute("SELECT * FROM a").fetchall() == [(1, "one")]
    views = "SELECT count(*) FROM duckdb_views() WHERE NOT internal"
    assert con.execute(views).fetchall() == [(0,)]


def test_registered_tables_are_scanned_in_the_block_only(tmp_path: Path) -> None:
    """Tables registered for a block are queryable by their names inside it and gone after
    it, also when the block raises."""
    import pyarrow as pa

    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    views = "SELECT count(*) FROM duckdb_views() WHERE NOT internal"
    with registered(con, fay_x=pa.table({"v": [1, 2]}), fay_y=pa.table({"v": [3]})):
        got = con.execute("SELECT sum(v) FROM (FROM fay_x UNION ALL FROM fay_y)").fetchall()
        assert got == [(6,)]
    assert con.execute(views).fetchall() == [(0,)]
    with pytest.raises(duckdb.CatalogException), registered(con, fay_x=pa.table({"v": [1]})):
        con.execute("SELECT * FROM fay_missing")
    assert con.execute(views).fetchall() == [(0,)]
    with registered(con):  # nothing to register: the block still runs
        assert con.execute("SELECT 1").fetchall() == [(1,)]


def test_transaction_commits_a_script_once_and_rolls_back_on_error(tmp_path: Path) -> None:
    """Every statement of the block lands together; an error inside takes all of it back and
    leaves the connection out of any transaction."""
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    with transaction(con):
        con.execute("CREATE TABLE a(id INTEGER); CREATE TABLE b(id INTEGER)")
    with pytest.raises(duckdb.CatalogException), transaction(con):
        con.execute("CREATE TABLE c(id INTEGER); CREATE TABLE a(id INTEGER)")
    tables = con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()
    assert tables == [("a",), ("b",)]
    with transaction(con):  # no transaction was left open
        con.execute("INSERT INTO a VALUES (1)")
    assert con.execute("SELECT * FROM a").fetchall() == [(1,)]
