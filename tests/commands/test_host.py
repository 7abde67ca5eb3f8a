"""Session cmdlets: history (recorded by the REPL, -c and scripts), Clear-Host, Start-Sleep."""

from __future__ import annotations

import asyncio
import io
import re

import pytest

from fayshell.cli import run_source
from fayshell.commands.host import CLEAR_SCREEN
from fayshell.console import ConsoleHost
from fayshell.errors import CommandError, ParameterError, RuntimeFayError
from fayshell.history import HistoryInfo
from fayshell.lang.dates import DateTime


async def test_history_records_inputs_with_status_and_times(shell) -> None:
    history = shell.state.history
    await history.track("$a = 1", shell.run("$a = 1"))
    with pytest.raises(CommandError):
        await history.track("Get-Content /no/such", shell.run("Get-Content /no/such"))
    entries = await shell.run("Get-History")
    assert [(e.Id, e.CommandLine, e.ExecutionStatus) for e in entries] == [
        (1, "$a = 1", "Completed"),
        (2, "Get-Content /no/such", "Failed"),
    ]
    first = entries[0]
    assert isinstance(first, HistoryInfo) and isinstance(first.StartExecutionTime, DateTime)
    assert first.StartExecutionTime <= first.EndExecutionTime
    assert await shell.run("(h -Count 1).CommandLine") == ["Get-Content /no/such"]
    assert await shell.run("(Get-History 1).CommandLine; (history).Count") == ["$a = 1", 2]


async def test_cancelled_input_is_recorded_as_stopped(shell) -> None:
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(shell.state.history.track("sleep 60", shell.run("sleep 60")), 2)
    assert [e.ExecutionStatus for e in shell.state.history.entries] == ["Stopped"]


async def test_command_line_and_script_runs_are_recorded(shell) -> None:
    console = ConsoleHost(out=io.StringIO(), err=io.StringIO(), color=False)
    assert await run_source(shell.state, console, "Write-Output 7", "<command>") == 0
    assert await run_source(shell.state, console, "Write-Output 8", "incident.fay") == 0
    assert [e.CommandLine for e in shell.state.history.entries] == [
        "Write-Output 7",
        "incident.fay",
    ]


async def test_invoke_history_runs_an_entry_again(shell) -> None:
    await shell.state.history.track("21 * 2", shell.run("21 * 2"))
    await shell.state.history.track("'x' + 'y'", shell.run("'x' + 'y'"))
    assert await shell.run("r") == ["xy"]
    assert await shell.run("r 1") == [42]
    assert await shell.run('Invoke-History "\'x"') == ["xy"]
    assert shell.host.lines[-1] == "'x' + 'y'"
    with pytest.raises(CommandError) as info:
        await shell.run("r 99")
    assert "no history entry matches 99" in info.value.one_line()
    await shell.run("Clear-History")
    assert await shell.run("Get-History") == []


async def test_saved_history_is_added_back_and_runs_again(shell, tmp_path) -> None:
    """Add-History: Get-History's records saved as CSV come back as new entries (new Ids,
    their command lines, status and times), and Invoke-History runs them."""
    saved = tmp_path / "h.csv"
    await shell.state.history.track("21 * 2", shell.run("21 * 2"))
    await shell.state.history.track("'x' + 'y'", shell.run("'x' + 'y'"))
    await shell.run(f"Get-History | Export-Csv '{saved}'; Clear-History")
    out = await shell.run(
        f"Import-Csv '{saved}' | Add-History -PassThru | ForEach-Object {{ $_.Id }}"
    )
    assert out == [3, 4]
    assert [e.CommandLine for e in shell.state.history.entries] == ["21 * 2", "'x' + 'y'"]
    assert await shell.run("r 3") == [42]
    with pytest.raises(CommandError, match="format that is not valid"):
        await shell.run("[pscustomobject]@{ CommandLine = 'x' } | Add-History")


async def test_history_shows_in_powershells_view(shell) -> None:
    """Get-History: Id 4 wide, Duration 12 as short as it reads (s.fff), CommandLine."""
    await shell.state.history.track("21 * 2", shell.run("21 * 2"))
    lines = (await shell.text("Get-History")).splitlines()
    assert lines[1:3] == ["  Id     Duration CommandLine", "  --     -------- -----------"]
    assert re.fullmatch(r"   1 {8}\d\.\d{3} 21 \* 2", lines[3]), lines[3]


async def test_clear_host_only_on_a_terminal(shell) -> None:
    await shell.run("cls")
    assert shell.host.lines == []
    shell.state.options.interactive = True
    await shell.run("clear")
    assert shell.host.lines == [CLEAR_SCREEN]


async def test_start_sleep_forms_and_errors(shell) -> None:
    assert (
        await shell.run(
            "Start-Sleep 0; Start-Sleep -Seconds 0.001; sleep -ms 1; "
            "Start-Sleep 1ms; Start-Sleep -Duration 1ms"
        )
        == []
    )
    with pytest.raises(ParameterError) as info:
        await shell.run("Start-Sleep -Seconds 1 -Milliseconds 5")
    assert "exactly one of" in info.value.one_line()
    with pytest.raises(ParameterError) as info:
        await shell.run("Start-Sleep -1")
    assert "cannot be negative" in info.value.one_line()
    with pytest.raises(ParameterError) as info:
        await shell.run("Start-Sleep soon")
    assert "cannot convert 'soon' to a number" in info.value.one_line()


async def test_start_sleep_is_interruptible(shell) -> None:
    """Cancelling (what Ctrl-C does in the REPL) ends a long sleep at once."""
    task = asyncio.ensure_future(shell.run("Start-Sleep -Seconds 600"))
    done, _ = await asyncio.wait([task], timeout=0.2)
    assert not done
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_write_progress_draws_one_bar_per_id_for_its_statement(shell) -> None:
    out = await shell.run(
        "1..4 | ForEach-Object { Write-Progress 'Pulling' \"node $_\" -PercentComplete ($_ * 25); $_ }"
    )
    assert out == [1, 2, 3, 4]  # not part of the output
    (bar,) = shell.host.progress_tasks
    assert (bar.description, bar.total, bar.completed) == ("Pulling: node 4", 100, 100)
    assert bar.closed  # its statement ended
    await shell.run(
        "Write-Progress a -Id 1 -CurrentOperation step; Write-Progress b -Id 2; "
        "Write-Progress -Id 1 -Completed"
    )
    one, two = shell.host.progress_tasks[1:]
    assert (one.description, one.total, two.description) == ("a: step", None, "b")
    assert one.closed and two.closed
    with pytest.raises(ParameterError) as info:
        await shell.run("Write-Progress x -PercentComplete 101")
    assert "must be from -1 to 100" in info.value.one_line()


async def test_host_says_it_is_the_console_host(shell) -> None:
    out = await shell.run(
        "$Host.Name; [string](Get-Host).Version; $Host.Version.Major; "
        "$Host.UI.RawUI.WindowSize.Width -gt 0; $PSVersionTable.Platform"
    )
    assert out == ["ConsoleHost", "7.4.0", 7, True, "Unix"]


async def test_host_ui_writes_to_the_console_in_order(shell) -> None:
    out = await shell.run(
        "'out'; $Host.UI.WriteLine('line'); $Host.UI.Write('part'); $Host.UI.WriteLine(); "
        "$Host.UI.WriteLine('Red', 'Black', 'red'); $Host.UI.WriteWarningLine('w'); "
        "$Host.UI.WriteErrorLine('e'); $Host.UI.WriteVerboseLine('v'); "
        "(Get-Host).UI.WriteLine('from Get-Host')"
    )
    assert out == ["out"]
    assert shell.host.lines == ["line", "part", "", "red", "from Get-Host"]
    assert (shell.host.warnings, shell.host.errors, shell.host.verbose_lines) == (
        ["w"],
        ["e"],
        ["v"],
    )
    with pytest.raises(RuntimeFayError, match='overload for "WriteLine"'):
        await shell.run("$Host.UI.WriteLine(1, 2)")


async def test_my_invocation_tells_where_a_function_was_called(shell) -> None:
    out = await shell.run(
        "function Get-Where { $m = $MyInvocation; $m.InvocationName; $m.ScriptLineNumber; "
        "$m.OffsetInLine; $m.Line; $m.PositionMessage }\n"
        "Set-Alias gw Get-Where\n"
        "  'x' | gw"
    )
    assert out == [
        "gw",
        3,
        9,
        "  'x' | gw",
        "At line:3 char:9\n+   'x' | gw\n+         ~~",
    ]


async def test_maximum_history_count_keeps_the_newest_inputs(shell) -> None:
    history = shell.state.history
    await shell.run("$MaximumHistoryCount = 2")
    for text in ("1", "2", "3"):
        await history.track(text, shell.run(text), shell.state.history_count)
    assert [e.CommandLine for e in history.entries] == ["2", "3"]


async def test_read_host_answers_with_the_line_typed(shell) -> None:
    shell.host.inputs = ["web02", "hunter2"]
    out = await shell.run(
        "$n = Read-Host 'Which node'; $s = Read-Host 'Token' -AsSecureString; $n; $s.Length; "
        "$null -eq (Read-Host 'More')"
    )
    assert out == ["web02", 7, True]
    assert shell.host.prompts == ["Which node", "Token", "More"]


async def test_transcript_records_what_the_host_shows(shell, tmp_path) -> None:
    path = tmp_path / "t.txt"
    out = await shell.run(
        f"Start-Transcript '{path}'; Write-Host 'restarting web02'; Write-Warning 'slow'; "
        "Stop-Transcript; Write-Host 'not recorded'"
    )
    assert out == [
        f"Transcript started, output file is {path}",
        f"Transcript stopped, output file is {path}",
    ]
    text = path.read_text()
    assert text.startswith("**********************\nPowerShell transcript start\nStart time: ")
    assert "restarting web02\nWARNING: slow\n" in text and "not recorded" not in text
    assert text.endswith("**********************\n") and "PowerShell transcript end" in text
    for bad, says in [
        ("Stop-Transcript", "The host is not currently transcribing."),
        (f"Start-Transcript '{path}' -NoClobber", "already exists"),
        (f"Start-Transcript '{tmp_path}/no/such/dir/t.txt'", "cannot write"),
    ]:
        with pytest.raises(CommandError) as info:
            await shell.run(bad)
        assert says in info.value.message
    await shell.run(f"Start-Transcript '{path}' -Append")
    with pytest.raises(CommandError):
        await shell.run(f"Start-Transcript '{tmp_path}/other.txt'")  # one at a time
    await shell.run("Stop-Transcript")
    assert path.read_text().count("PowerShell transcript start") == 2


async def test_execution_policy_is_unrestricted_and_set_changes_nothing(shell) -> None:
    out = await shell.run(
        "Get-ExecutionPolicy; (Get-ExecutionPolicy -List).ExecutionPolicy -join ','; "
        "Set-ExecutionPolicy Bypass -Scope Process -Force -Verbose; 'went on'"
    )
    assert out == [
        "Unrestricted",
        "Undefined,Undefined,Undefined,Undefined,Unrestricted",
        "went on",
    ]
    assert "execution policies do not apply on Linux" in shell.host.verbose_lines[-1]
