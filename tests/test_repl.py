"""Drive the real REPL in-process through prompt-toolkit's pipe input."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from pathlib import Path

import pytest
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from fayshell.console import ConsoleHost
from fayshell.repl import Repl
from fayshell.state import Options, ShellState


def make_repl(pipe, tmp_path, own_history: bool = False) -> tuple[Repl, io.StringIO, io.StringIO]:
    """A REPL on ``pipe``; ``own_history``: the history file PSReadLine's options say (the
    test's own XDG_STATE_HOME), else a history in memory."""
    out, err = io.StringIO(), io.StringIO()
    host = ConsoleHost(out=out, err=err, color=False, interactive=False)
    state = ShellState(Options(database=str(tmp_path / "t.duckdb")), host)
    history = None if own_history else InMemoryHistory()
    repl = Repl(state, host, input=pipe, output=DummyOutput(), history=history)
    return repl, out, err


async def run_keys(
    tmp_path, *chunks: str, delay: float = 0.05, own_history: bool = False
) -> tuple[int, str, str]:
    with create_pipe_input() as pipe:
        repl, out, err = make_repl(pipe, tmp_path, own_history)
        task = asyncio.ensure_future(repl.run())
        for chunk in chunks:
            await asyncio.sleep(delay)
            pipe.send_text(chunk)
        code = await asyncio.wait_for(task, 20)
        await repl.state.aclose()
        return code, out.getvalue(), err.getvalue()


async def test_typed_lines_run_and_ctrl_d_exits(tmp_path) -> None:
    code, out, err = await run_keys(tmp_path, "$x = 20 + 1\r", "$x * 2\r", "\x04")
    assert code == 0
    assert out.strip().splitlines()[-1] == "42"
    assert err == ""


async def test_parse_error_does_not_end_the_session(tmp_path) -> None:
    code, out, err = await run_keys(tmp_path, "1 +* 2\r", "'still here'\r", "\x04")
    assert code == 0
    assert "<repl>:1:4: unexpected '*'" in err
    assert "^" in err
    assert "still here" in out


async def test_open_brace_continues_on_next_line(tmp_path) -> None:
    code, out, _ = await run_keys(tmp_path, "foreach ($i in 1..3) {\r", "$i * 10\r", "}\r", "\x04")
    assert code == 0
    assert out.split() == ["10", "20", "30"]


async def test_trailing_pipe_continues(tmp_path) -> None:
    code, out, _ = await run_keys(tmp_path, "1..5 |\r", "Where-Object { $_ -gt 3 }\r", "\x04")
    assert out.split() == ["4", "5"]


async def test_tab_completes_cmdlet_and_parameter(tmp_path) -> None:
    code, out, err = await run_keys(
        tmp_path,
        "Measure-Comm",
        "\t",
        " { 1 } | Select-Object -ExpandP",
        "\t",
        " TotalSeconds | ForEach-Object { $_ -ge 0 }\r",
        "\x04",
        delay=0.3,
    )
    assert err == ""
    assert out.strip() == "True"


async def test_unknown_command_suggests(tmp_path) -> None:
    _, _, err = await run_keys(tmp_path, "Sort-Objekt\r", "\x04")
    assert "unknown command 'Sort-Objekt'; did you mean Sort-Object?" in err


async def test_ctrl_c_cancels_running_command_and_returns_to_prompt(tmp_path) -> None:
    with create_pipe_input() as pipe:
        repl, out, err = make_repl(pipe, tmp_path)
        task = asyncio.ensure_future(repl.run())
        await asyncio.sleep(0.1)
        pipe.send_text("Start-Sleep 30s\r")
        for _ in range(100):
            await asyncio.sleep(0.05)
            if repl.running is not None:
                break
        assert repl.running is not None, "the command never started"
        start = asyncio.get_running_loop().time()
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100):
            await asyncio.sleep(0.02)
            if repl.running is None:
                break
        elapsed = asyncio.get_running_loop().time() - start
        pipe.send_text("'after'\r")
        await asyncio.sleep(0.2)
        pipe.send_text("\x04")
        assert await asyncio.wait_for(task, 10) == 0
        await repl.state.aclose()
    assert elapsed < 2
    assert "interrupted" in err.getvalue()
    assert "after" in out.getvalue()


@pytest.mark.parametrize(
    "text, expected",
    [("{", True), ("'abc", True), ("1 |", True), ("1 +* 2", False), ("Get-Node", False)],
)
def test_needs_more(tmp_path, text: str, expected: bool) -> None:
    with create_pipe_input() as pipe:
        repl, _, _ = make_repl(pipe, tmp_path)
        assert repl.needs_more(text) is expected


async def test_tab_completes_columns_of_the_relation_flowing_in(tmp_path) -> None:
    code, out, err = await run_keys(
        tmp_path,
        "sql SELECT 42 AS dur_ns, 1 AS node | Select-Object -ExpandProperty dur_",
        "\t",
        "\r",
        "\x04",
        delay=0.3,
    )
    assert err == ""
    assert out.strip() == "42"


async def test_repl_lines_are_recorded_in_the_history(tmp_path) -> None:
    code, out, err = await run_keys(
        tmp_path,
        "6 * 7\r",
        "Get-Nope\r",
        'Get-History | ForEach-Object { "$($_.Id) $($_.ExecutionStatus) $($_.CommandLine)" }\r',
        "\x04",
    )
    assert out.strip().splitlines()[-2:] == ["1 Completed 6 * 7", "2 Failed Get-Nope"]


async def test_first_and_last_tokens_of_the_last_line(tmp_path) -> None:
    """$^ and $$ (about_Automatic_Variables): the first and last token of the line typed
    before, whether it ran or failed."""
    code, out, err = await run_keys(
        tmp_path,
        "Write-Output 'a b' | Out-Null\r",
        '"[$^] [$($$)]"\r',
        "Get-Nope -X 1; 5\r",
        '"[$^] [$($$)]"\r',
        "\x04",
    )
    assert code == 0, err
    assert out.split("\n")[:2] == ["[Write-Output] [Out-Null]", "[Get-Nope] [5]"]


async def test_ctrl_c_interrupts_a_running_duckdb_query(tmp_path) -> None:
    """SIGINT while DuckDB runs a query: DuckDB stops (interrupt()), the REPL says so, goes on,
    and the database still answers."""
    import threading

    started = threading.Event()

    def kill_when_started() -> None:
        if started.wait(60):
            os.kill(os.getpid(), signal.SIGINT)

    with create_pipe_input() as pipe:
        repl, out, err = make_repl(pipe, tmp_path)
        # a UDF the query calls: tells this test the query is running inside DuckDB
        repl.state.database.con.create_function(
            "started", lambda x: started.set() or x, ["BIGINT"], "BIGINT"
        )
        killer = threading.Thread(target=kill_when_started, daemon=True)
        killer.start()
        task = asyncio.ensure_future(repl.run())
        pipe.send_text(
            "sql SELECT count(*) FROM range(100000000) a, range(100000) b "
            "WHERE started(a.range * b.range) % 7 = 3\r"
        )
        for _ in range(1200):  # the cross join runs for hours unless interrupted
            await asyncio.sleep(0.05)
            if "interrupted" in err.getvalue():
                break
        pipe.send_text("sql SELECT 6 * 7 AS answer\r")
        for _ in range(200):
            await asyncio.sleep(0.05)
            if "42" in out.getvalue():
                break
        pipe.send_text("\x04")
        assert await asyncio.wait_for(task, 20) == 0
        await repl.state.aclose()
        killer.join(5)
    assert started.is_set()
    assert err.getvalue() == "interrupted\n"
    assert out.getvalue().split()[-1] == "42"


def _pty_err() -> tuple[object, list[bytes], object]:
    """A terminal for stderr (a pty) and a thread draining what is written to it."""
    import pty
    import threading

    master, slave = pty.openpty()
    err = os.fdopen(slave, "w", buffering=1, encoding="utf-8")
    seen: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            seen.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    return err, seen, (master, reader)


@pytest.mark.parametrize("delay_s", [0.0, 3600.0])
async def test_import_trace_shows_a_byte_progress_bar_on_a_terminal(tmp_path, delay_s) -> None:
    """On a terminal, Import-Trace shows a rich bar in bytes once it has run ``delay_s``
    (1 s by default); with an hour's delay the same import shows none."""
    from tests.fixtures.ctfgen import GenSpec, write_trace

    info = write_trace(tmp_path / "trace" / "web01", GenSpec(events=20000, cpus=2, seed=3))
    err, seen, (master, reader) = _pty_err()
    out = io.StringIO()
    host = ConsoleHost(out=out, err=err, color=True, progress_delay_s=delay_s)
    state = ShellState(Options(database=str(tmp_path / "p.duckdb")), host)
    with create_pipe_input() as pipe:
        repl = Repl(state, host, input=pipe, output=DummyOutput(), history=InMemoryHistory())
        task = asyncio.ensure_future(repl.run())
        pipe.send_text(f"Import-Trace '{tmp_path / 'trace'}' | ForEach-Object {{ $_.Events }}\r")
        for _ in range(400):
            await asyncio.sleep(0.05)
            if str(info.events) in out.getvalue():
                break
        pipe.send_text("\x04")
        assert await asyncio.wait_for(task, 20) == 0
        await state.aclose()
    err.close()
    reader.join(5)
    os.close(master)
    shown = b"".join(seen).decode("utf-8", "replace")
    assert out.getvalue().split()[-1] == str(info.events)
    if delay_s == 0:
        assert "Import-Trace" in shown
        assert "kB" in shown or "MB" in shown  # bytes, not a bare count
    else:
        assert shown == ""


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path) -> None:
    host = ConsoleHost(out=io.StringIO(), err=io.StringIO(), color=True, progress_delay_s=0)
    task = host.progress("Import-Trace x", 100.0, "B")
    task.advance(50)
    task.close()
    assert host.err.getvalue() == ""  # type: ignore[attr-defined]


async def test_a_bug_is_an_internal_error_told_once_and_the_session_goes_on(tmp_path) -> None:
    """Two bugs in one session: both read 'internal error', the log path is told once, both
    tracebacks are in the log, and the prompt keeps working."""
    from fayshell.errors_report import CrashLog
    from tests.test_errors_report import plain_bug, stream_bug

    with create_pipe_input() as pipe:
        repl, out, err = make_repl(pipe, tmp_path)
        repl.crash_log = CrashLog(tmp_path / "state" / "internal-errors.log")
        for func in (plain_bug, stream_bug):
            repl.state.registry.add(func.__cmdlet__)
        task = asyncio.ensure_future(repl.run())
        steps = [
            ("Test-PlainBug", lambda: err.getvalue().count("internal error") == 1),
            ("Test-StreamBug | % { $_ }", lambda: err.getvalue().count("internal error") == 2),
            ("'still here'", lambda: "still here" in out.getvalue()),
        ]
        for line, done in steps:
            pipe.send_text(line + "\r")
            for _ in range(200):  # until the REPL has answered this line
                await asyncio.sleep(0.05)
                if done():
                    break
        pipe.send_text("\x04")
        assert await asyncio.wait_for(task, 20) == 0
        await repl.state.aclose()
    lines = err.getvalue().splitlines()
    assert [line.split(": ")[1] for line in lines] == ["internal error", "internal error"]
    assert sum("traceback in" in line for line in lines) == 1
    assert "still here" in out.getvalue()
    assert repl.crash_log.path.read_text().count("Traceback (most recent call last)") == 2


async def test_exit_leaves_the_repl_with_its_code(tmp_path) -> None:
    code, out, _ = await run_keys(tmp_path, "'bye'\r", "exit 5\r")
    assert code == 5
    assert out.strip() == "bye"


async def test_here_string_continues_until_its_closing_line(tmp_path) -> None:
    code, out, _ = await run_keys(tmp_path, '$h = @"\r', "a $(1+1)\r", '"@\r', "$h\r", "\x04")
    assert code == 0
    assert out.strip() == "a 2"


async def test_an_imports_write_starts_while_the_prompt_waits(tmp_path) -> None:
    """Import-Trace holds its background write for the next statement; typed alone on a line,
    the write starts as soon as the prompt is shown again."""
    from tests.fixtures.ctfgen import GenSpec, write_trace

    write_trace(tmp_path / "trace" / "web01", GenSpec(events=5000, cpus=2, seed=4))
    with create_pipe_input() as pipe:
        repl, _, err = make_repl(pipe, tmp_path)
        task = asyncio.ensure_future(repl.run())
        pipe.send_text(f"Import-Trace '{tmp_path / 'trace'}' | Out-Null\r")
        for _ in range(400):  # until the line has run (the prompt is waiting again)
            await asyncio.sleep(0.05)
            if repl.state.statements and repl.running is None:
                break
        db = repl.state.database
        assert db.held_write is None and err.getvalue() == ""
        repl.state.wait_for_writes()
        assert db.execute("SELECT count(*) FROM main.chunks")[0][0] == 1
        pipe.send_text("\x04")
        assert await asyncio.wait_for(task, 20) == 0
        await repl.state.aclose()


def test_text_written_while_a_bar_is_shown_goes_above_it() -> None:
    """Output, Write-Host text and errors written while a progress bar is on the terminal take
    the bar down first and draw it again after (beside a live bar they ran into each other)."""
    err, _seen, (master, reader) = _pty_err()

    class Out(io.StringIO):
        live_while_written: list[bool] = []

        def write(self, text: str) -> int:
            self.live_while_written.append(any(b.progress.live.is_started for b in host.bars))
            return super().write(text)

        def isatty(self) -> bool:
            return True

    out = Out()
    host = ConsoleHost(out=out, err=err, color=True, progress_delay_s=0, width=80)
    task = host.progress("Copy-Item x", 10.0)
    task.advance(3)
    assert [b.progress.live.is_started for b in host.bars] == [True]
    host.show(["line1"])
    host.write_host("note")
    assert "line1" in out.getvalue() and "note" in out.getvalue()
    assert out.live_while_written and not any(out.live_while_written)
    assert [b.progress.live.is_started for b in host.bars] == [True]  # drawn again
    task.close()
    assert host.bars == []
    err.close()
    reader.join(5)
    os.close(master)


async def test_the_users_prompt_function_makes_the_prompt(tmp_path) -> None:
    """about_Prompts: a function named prompt gives the prompt's text; when it fails, 'PS> '
    (its error kept in $Error, not shown); without one, fayshell's own."""
    out, err = io.StringIO(), io.StringIO()
    host = ConsoleHost(out=out, err=err, color=False)
    state = ShellState(Options(database=str(tmp_path / "p.duckdb")), host)
    with create_pipe_input() as pipe:
        repl = Repl(state, host, input=pipe, output=DummyOutput(), history=InMemoryHistory())
        assert await repl.prompt_text() == "PS fay> "
        await repl.execute('function prompt { "[$(1 + 1)] $(Split-Path (Get-Location) -Leaf)> " }')
        assert await repl.prompt_text() == f"[2] {Path.cwd().name}> "
        await repl.execute("function prompt { throw 'broken prompt' }")
        assert await repl.prompt_text() == "PS> "
        await repl.execute("function prompt { }")
        assert await repl.prompt_text() == "PS> "
        await repl.execute('$e = "$($Error[0])"; Remove-Item Function:prompt')
        assert await repl.prompt_text() == "PS fay> "
        assert await state.interpreter.run("$e") == ["broken prompt"]
    await state.aclose()
    assert err.getvalue() == ""


UP = "\x1b[A"


async def test_vi_edit_mode_takes_vi_keys(tmp_path) -> None:
    """Set-PSReadLineOption -EditMode Vi: Escape, 0 (start of line), x (delete a character)
    edit '12+3' into '2+3'; back in Windows mode, Get-PSReadLineOption says so."""
    code, out, err = await run_keys(
        tmp_path,
        "Set-PSReadLineOption -EditMode Vi\r",
        "12+3",
        "\x1b",
        "0",
        "x",
        "\r",
        "Set-PSReadLineOption -EditMode Windows\r",
        "(Get-PSReadLineOption).EditMode\r",
        "\x04",
        delay=0.3,
    )
    assert err == ""
    assert out.split() == ["5", "Windows"]


async def test_key_handlers_bind_the_editors_functions(tmp_path) -> None:
    """Ctrl+k bound to BeginningOfLine (it was KillLine); UpArrow to HistorySearchBackward,
    which recalls the input that starts like the text typed, skipping the others."""
    code, out, err = await run_keys(
        tmp_path,
        "Set-PSReadLineKeyHandler -Chord Ctrl+k -Function BeginningOfLine\r",
        "Set-PSReadLineKeyHandler -Key UpArrow -Function HistorySearchBackward\r",
        "'x'",
        "\x0b",
        "'y' + ",
        "\r",
        "'apple'\r",
        "'banana'\r",
        "'a",
        UP,
        "\r",
        "\x04",
        delay=0.3,
    )
    assert err == ""
    assert out.split() == ["yx", "apple", "banana", "apple"]


async def test_history_file_follows_the_save_style_and_the_handler(tmp_path) -> None:
    """-AddToHistoryHandler keeps inputs that mention a secret out of the history file;
    -HistorySaveStyle SaveNothing writes no more; the file is -HistorySavePath."""
    path = tmp_path / "hist.txt"
    code, out, err = await run_keys(
        tmp_path,
        f"Set-PSReadLineOption -HistorySavePath '{path}'\r",
        "Set-PSReadLineOption -AddToHistoryHandler { param($line) $line -notmatch 'secret' }\r",
        "'secret 42' | Out-Null\r",
        "'kept'\r",
        "Set-PSReadLineOption -HistorySaveStyle SaveNothing\r",
        "'not written'\r",
        "\x04",
        delay=0.3,
        own_history=True,
    )
    assert err == ""
    text = path.read_text()
    assert "+'kept'" in text
    assert "AddToHistoryHandler" in text and "SaveNothing" in text
    assert "secret 42" not in text
    assert "not written" not in text


async def test_save_at_exit_writes_the_history_when_the_shell_ends(tmp_path) -> None:
    path = tmp_path / "hist.txt"
    with create_pipe_input() as pipe:
        repl, out, err = make_repl(pipe, tmp_path, own_history=True)
        repl.state.readline.options.change("HistorySavePath", str(path))
        repl.state.readline.options.change("HistorySaveStyle", "SaveAtExit")
        task = asyncio.ensure_future(repl.run())
        for chunk in ("'one'\r", "'two'\r"):
            await asyncio.sleep(0.3)
            pipe.send_text(chunk)
        await asyncio.sleep(0.3)
        assert not path.exists() or "'one'" not in path.read_text()
        pipe.send_text("\x04")
        assert await asyncio.wait_for(task, 20) == 0
        await repl.state.aclose()
    assert [line for line in path.read_text().splitlines() if line.startswith("+")] == [
        "+'one'",
        "+'two'",
    ]
