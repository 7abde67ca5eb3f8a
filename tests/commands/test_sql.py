"""Invoke-Sql / sql and Connect-Database on real DuckDB files."""

from __future__ import annotations

import pytest

from fayshell.errors import SqlError, StoreError


async def test_sql_statements_and_queries_on_the_session_file(shell, tmp_path) -> None:
    await shell.run("sql CREATE TABLE t AS SELECT range AS i FROM range(5)")
    assert await shell.run("sql SELECT sum(i) AS s FROM t") == [{"s": 10}]
    assert (tmp_path / "shell.duckdb").exists()


async def test_bad_sql_is_duckdbs_message_in_one_line(shell) -> None:
    with pytest.raises(SqlError) as info:
        await shell.run("sql SELEC 1")
    line = info.value.one_line()
    assert "syntax error" in line and "\n" not in line and line.startswith("<test>:1:1: ")
    with pytest.raises(SqlError) as info:
        await shell.run("sql SELECT * FROM no_such_table")
    assert "no_such_table" in info.value.one_line()


async def test_sql_given_a_string_or_a_variable_runs_its_value(shell) -> None:
    await shell.run("sql CREATE TABLE t AS SELECT range AS i, 'n' || range AS s FROM range(5)")
    assert await shell.run('$i = 3; sql "SELECT s FROM t WHERE i = $i"') == [{"s": "n3"}]
    assert await shell.run("$q = 'SELECT count(*) AS n FROM t'; sql $q | % n") == [5]
    assert await shell.run("sql 'SELECT max(i) AS m FROM t' -Verbose | % m") == [4]


async def test_connect_database_switches_files(shell, tmp_path) -> None:
    other = tmp_path / "incident.duckdb"
    await shell.run(f"Connect-Database '{other}'")
    await shell.run("sql CREATE TABLE x AS SELECT 1 AS a")
    assert shell.state.database.path == str(other)
    assert await shell.run("sql SELECT a FROM x") == [{"a": 1}]


async def test_invoke_sql_with_database_parameter(shell, tmp_path) -> None:
    db = tmp_path / "other.duckdb"
    await shell.run(f"Invoke-Sql 'CREATE TABLE y AS SELECT 42 AS v' -Database '{db}'")
    assert await shell.run(f"Invoke-Sql 'SELECT v FROM y' -Database '{db}'") == [{"v": 42}]


async def test_unopenable_database_is_a_clear_error(shell, tmp_path) -> None:
    bad = tmp_path / "garbage.duckdb"
    bad.write_bytes(b"this is not a duckdb file" * 100)
    with pytest.raises(StoreError) as info:
        await shell.run(f"Connect-Database '{bad}'")
    assert str(bad) in info.value.one_line()
