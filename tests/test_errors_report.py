"""The one place errors become output: user mistakes one line, bugs 'internal error' with the
traceback kept in a log under XDG state (its path told once per process), the same for a bug in
a plain cmdlet and in one that streams (an async generator)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fayshell.cli import run_source
from fayshell.commands.registry import Param, cmdlet
from fayshell.console import ConsoleHost
from fayshell.errors_report import CrashLog, ExitCode
from fayshell.state import Options, ShellState


@cmdlet("Test-PlainBug", synopsis="A cmdlet with a bug, returning a list.")
def plain_bug(ctx: Any) -> list[int]:
    table: dict[str, int] = {}
    return [table["plain-missing"]]


@cmdlet("Test-StreamBug", synopsis="A cmdlet with a bug after its first record.")
async def stream_bug(ctx: Any) -> AsyncIterator[int]:
    yield 1
    table: dict[str, int] = {}
    yield table["stream-missing"]


@cmdlet(
    "Test-MissingFile",
    synopsis="Streams, then opens a file the user named.",
    params=[Param("Path", str, position=0)],
)
async def missing_file(ctx: Any, *, path: str) -> AsyncIterator[str]:
    yield "first"
    yield Path(path).read_text()


def new_state(tmp_path: Path) -> tuple[ShellState, ConsoleHost, io.StringIO]:
    err = io.StringIO()
    host = ConsoleHost(out=io.StringIO(), err=err, color=False)
    state = ShellState(Options(database=str(tmp_path / "e.duckdb")), host)
    for func in (plain_bug, stream_bug, missing_file):
        state.registry.add(func.__cmdlet__)  # type: ignore[attr-defined]
    return state, host, err


async def run(state: ShellState, host: ConsoleHost, source: str, log: CrashLog) -> int:
    return await run_source(state, host, source, "<t>", log)


async def test_bug_in_plain_and_streaming_cmdlet_read_the_same(tmp_path: Path) -> None:
    state, host, err = new_state(tmp_path)
    log = CrashLog(tmp_path / "state" / "fayshell" / "internal-errors.log")
    codes = [
        await run(state, host, "Test-PlainBug", log),
        await run(state, host, "Test-StreamBug | ForEach-Object { $_ }", log),
    ]
    await state.aclose()
    lines = err.getvalue().splitlines()
    assert codes == [ExitCode.FAILED, ExitCode.FAILED]
    assert lines[0] == (
        f"<t>:1:1: internal error: Test-PlainBug: KeyError: 'plain-missing' "
        f"(traceback in {log.path}; please attach it to a bug report)"
    )
    assert lines[1] == "<t>:1:1: internal error: Test-StreamBug: KeyError: 'stream-missing'"
    assert len(lines) == 2
    text = log.path.read_text()
    assert "in plain_bug" in text and "in stream_bug" in text
    assert text.count("Traceback (most recent call last)") == 2


async def test_oserror_in_a_stream_is_the_users_one_line(tmp_path: Path) -> None:
    state, host, err = new_state(tmp_path)
    log = CrashLog(tmp_path / "log")
    code = await run(state, host, f"Test-MissingFile {tmp_path}/nope.txt", log)
    await state.aclose()
    assert code == ExitCode.FAILED
    assert err.getvalue().startswith("<t>:1:1: Test-MissingFile: [Errno 2] No such file")
    assert not log.path.exists()


async def test_internal_error_can_be_caught_and_the_shell_goes_on(tmp_path: Path) -> None:
    state, host, err = new_state(tmp_path)
    log = CrashLog(tmp_path / "log")
    code = await run(state, host, "Test-PlainBug -ErrorAction Stop; 'unreached'", log)
    code2 = await run(state, host, "'next'", log)
    await state.aclose()
    assert (code, code2) == (ExitCode.FAILED, ExitCode.OK)
    assert "unreached" not in host.out.getvalue()  # type: ignore[attr-defined]
    assert host.out.getvalue().strip() == "next"  # type: ignore[attr-defined]


def test_unwritable_log_is_said_on_the_same_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    note = CrashLog(blocker / "sub" / "x.log").record(KeyError("k"))
    assert note.startswith(f" (the traceback could not be written to {blocker}/sub/x.log")


def test_log_lives_under_xdg_state_home(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from fayshell.errors_report import CrashLog; print(CrashLog().path)",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == str(tmp_path / "fayshell" / "internal-errors.log")
