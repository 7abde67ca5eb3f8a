"""fayshell.store.database helpers on a real DuckDB file."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import duckdb

from fayshell.store.database import insert_rows


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
