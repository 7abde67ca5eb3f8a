"""Tab completion reads the cmdlet declarations, variables and the database schema."""

from __future__ import annotations

from fayshell.completion import complete


def texts(state, line: str) -> list[str]:
    return [c.text for c in complete(state, line)]


async def test_cmdlets_and_aliases_at_start_and_after_pipe(shell) -> None:
    assert "Where-Object" in texts(shell.state, "Wher")
    assert texts(shell.state, "1 | Sort-O") == ["Sort-Object"]
    assert "select" in texts(shell.state, "x | sel")


async def test_parameters_of_the_current_cmdlet(shell) -> None:
    assert texts(shell.state, "Select-Object -Ex") == ["-ExpandProperty", "-ExcludeProperty"]
    assert "-Verbose" in texts(shell.state, "Where-Object -V")


async def test_parameter_value_choices_and_variables(shell) -> None:
    assert texts(shell.state, "Get-Help Where-Object -ErrorAction S") == \
        ["Stop", "SilentlyContinue"]
    await shell.run("$webNodes = 1")
    assert texts(shell.state, "$webN") == ["$webNodes"]
    assert "Measure-Object" in texts(shell.state, "Get-Help Meas")


async def test_tables_and_columns_after_sql(shell) -> None:
    await shell.run("sql CREATE TABLE syscalls_demo (node VARCHAR, dur_ns BIGINT)")
    assert texts(shell.state, "sql SELECT * FROM sysc") == ["syscalls_demo"]
    assert texts(shell.state, "sql SELECT dur") == ["dur_ns"]


async def test_completion_candidate_replaces_the_word(shell) -> None:
    (cand,) = complete(shell.state, "1 | Measure-Obj")
    assert (cand.text, cand.start, cand.meta) == ("Measure-Object", len("Measure-Obj"), "command")
