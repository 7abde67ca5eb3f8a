"""The console on a terminal (rich): tables at narrow widths never cut a number; text
columns are truncated with an ellipsis instead. Real store: a generated kernel trace."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from fayshell.console import ConsoleHost
from fayshell.lang.interp import Interpreter
from fayshell.lang.values import PSCustomObject
from fayshell.render import format_cell
from fayshell.state import Options, ShellState
from tests.fixtures.ctfgen import GenSpec, write_trace

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("console")
    write_trace(root / "trace" / "web01", GenSpec(events=3000, cpus=2, chunks=2, seed=5))
    db = root / "c.duckdb"
    from fayshell.cli import main

    assert main(["--db", str(db), "-c", f"Import-Trace '{root / 'trace'}' | Out-Null"]) == 0
    return db


async def show(db: Path, source: str, width: int) -> tuple[str, list[dict]]:
    out = io.StringIO()
    host = ConsoleHost(out=out, err=io.StringIO(), color=True, width=width)
    state = ShellState(Options(database=str(db)), host)
    interp = Interpreter(state)
    await interp.run(source, "<t>", on_output=host.show)
    host.end_output()
    records = [r for item in await interp.run(source, "<t>") for r in item.records()]
    await state.aclose()
    return ANSI.sub("", out.getvalue()), records


@pytest.mark.parametrize("width", [60, 100, 400])
async def test_trace_chunk_table_never_splits_numbers(store: Path, width: int) -> None:
    text, records = await show(store, "Get-TraceChunk", width)
    lines = text.splitlines()
    assert lines[0] == lines[-1] == ""  # a blank line before and after the table
    lines = lines[1:-1]
    assert len(lines) == 2 + len(records)  # header, rule, one line per chunk: nothing wrapped
    for line, rec in zip(lines[2:], records, strict=True):
        for col in ("bytes", "events", "first_ts", "last_ts", "chunk_no"):
            assert format_cell(col, rec[col]) in line, (col, line)
    if width < 300:
        assert "…" in lines[2]  # the text columns gave way
    else:
        assert "…" not in text and rec["path"] in lines[-1]


async def test_wide_enough_table_fits_the_terminal(store: Path) -> None:
    text, _ = await show(store, "Get-Event | Select-Object -First 3 cpu, ts, name", 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text


async def plain(source: str) -> str:
    """What a script prints to a file: one Out-Default over all its statements."""
    out = io.StringIO()
    host = ConsoleHost(out=out, err=io.StringIO(), color=False)
    state = ShellState(Options(database=":memory:"), host)
    await Interpreter(state).run(source, "<t>", on_output=host.show)
    host.end_output()
    await state.aclose()
    return out.getvalue()


async def test_records_of_later_statements_join_the_open_table() -> None:
    src = "[pscustomobject]@{a=1; b='x'}\n[pscustomobject]@{a=333; b='y'}\n"
    assert await plain(src) == "\n  a b\n  - -\n  1 x\n333 y\n\n"
    # a scalar closes the table: the next records start a new one
    assert (
        await plain(src.replace("\n[", "\n'mid'\n["))
        == "\na b\n- -\n1 x\n\nmid\n\n  a b\n  - -\n333 y\n\n"
    )
    assert (
        await plain("@{x=1}; @{y=2}")
        == "\nName"
        + " " * 27
        + "Value\n----"
        + " " * 27
        + "-----\nx"
        + " " * 30
        + "1\ny"
        + " " * 30
        + "2\n\n"
    )


async def test_terminal_output_frames_tables_and_prints_lists_as_plain_text() -> None:
    out = io.StringIO()
    host = ConsoleHost(out=out, err=io.StringIO(), color=True, width=80)
    host.show([PSCustomObject(a=1, b=2, c=3, d=4, e=5)])
    host.show(["s", PSCustomObject(a=1)])
    assert ANSI.sub("", out.getvalue()) == "\na : 1\nb : 2\nc : 3\nd : 4\ne : 5\n\ns\n"
    host.end_output()
    lines = ANSI.sub("", out.getvalue()).splitlines()[8:]
    assert lines[0] == lines[-1] == "" and lines[1].strip() == "a" and lines[3].strip() == "1"
