"""Start-Job, Get-Job, Receive-Job, Wait-Job, Stop-Job and Remove-Job with real child
processes: output, arguments, $using:, streams, states, waiting and stopping."""

from __future__ import annotations

import asyncio
import time

import pytest

from fayshell.errors import FayError


async def test_output_arguments_using_and_streams_come_back(shell) -> None:
    out = await shell.run(
        '$x = 21; $j = Start-Job { param($a) "arg $a"; $using:x * 2; '
        "[pscustomobject]@{ n = 1; when = Get-Date '2024-01-02'; list = 1, 2 }; "
        "Write-Warning 'careful'; Write-Host 'hosted' } -ArgumentList 5; "
        "$r = Receive-Job $j -Wait; $r[0]; $r[1]; $r[2].n + 1; $r[2].when.GetType().Name; "
        "$r[2].list.Count; $j.State; $j.HasMoreData; @(Receive-Job $j).Count"
    )
    assert out == ["arg 5", 42, 2, "DateTime", 2, "Completed", False, 0]
    assert shell.host.warnings == ["careful"] and shell.host.lines == ["hosted"]


async def test_keep_gives_results_again(shell) -> None:
    out = await shell.run(
        "$j = Start-Job { 'a'; 'b' }; Wait-Job $j | Out-Null; $j.HasMoreData; "
        "(Receive-Job $j -Keep) -join ''; (Receive-Job $j) -join ''; @(Receive-Job $j).Count"
    )
    assert out == [True, "ab", "ab", 0]


async def test_a_throwing_job_fails_and_its_error_is_received(shell) -> None:
    out = await shell.run(
        "$j = Start-Job { 'before'; throw 'bad thing' }; Wait-Job $j -Timeout 60 | Out-Null; "
        "$j.State; try { Receive-Job $j } catch { 'caught: ' + $_.Exception.Message }"
    )
    assert out[:2] == ["Failed", "before"]
    assert len(out) == 3 and out[2].startswith("caught: ") and "bad thing" in out[2]


async def test_wait_times_out_stop_ends_it_and_remove_refuses_a_running_job(shell) -> None:
    start = time.monotonic()
    out = await shell.run(
        "$j = Start-Job { Start-Sleep 60 } -Name sleeper; @(Wait-Job $j -Timeout 1).Count; $j.State"
    )
    assert out == [0, "Running"]
    with pytest.raises(FayError, match="because the job is not finished"):
        await shell.run("Remove-Job -Name sleep*")
    out = await shell.run("Stop-Job -Name sleeper -PassThru | ForEach-Object State")
    assert out == ["Stopped"]
    assert time.monotonic() - start < 30  # not the job's 60 s
    assert await shell.run("Remove-Job -Id 1; @(Get-Job).Count") == [0]
    with pytest.raises(FayError, match="cannot find a job with the job ID 1"):
        await shell.run("Get-Job -Id 1")


async def test_any_returns_the_first_job_to_end(shell) -> None:
    out = await shell.run(
        "$slow = Start-Job { Start-Sleep 60 }; $quick = Start-Job { 'q' }; "
        "(Wait-Job $slow, $quick -Any).Id; Get-Job -State Running | ForEach-Object Id"
    )
    assert out == [2, 1]


async def test_a_using_variable_that_is_not_set_is_refused(shell) -> None:
    with pytest.raises(FayError, match=r"'\$using:nope' cannot be retrieved"):
        await shell.run("Start-Job { $using:nope }")


async def test_wait_gives_results_as_the_job_writes_them(shell) -> None:
    out = await shell.run(
        "$j = Start-Job { 'first'; Start-Sleep 4; 'second' }; $t = Get-Date; "
        "Receive-Job $j -Wait -Keep | ForEach-Object { @($_, ((Get-Date) - $t).TotalSeconds) }; "
        "(Receive-Job $j) -join ','"
    )
    first, first_at, second, second_at, again = out
    assert (first, second, again) == ("first", "second", "first,second")  # -Keep kept them
    # each statement's output is sent when it ends: 'first' came while the job slept
    assert first_at < 3 <= second_at


async def test_initialization_script_and_file_path(shell, tmp_path) -> None:
    (tmp_path / "job.fay").write_text('param($n) "file $n $(Get-Location)"\n')
    out = await shell.run(
        f"Set-Location '{tmp_path}'; "
        "Start-Job { Twice 4 } -InitializationScript { function Twice($x) { $x * 2 } } | "
        "Receive-Job -Wait -AutoRemoveJob; "
        "Start-Job -FilePath job.fay -ArgumentList 7 | Receive-Job -Wait -AutoRemoveJob; "
        "@(Get-Job).Count"
    )
    assert out == [8, f"file 7 {tmp_path}", 0]  # in the shell's current directory


async def test_an_interrupted_wait_loses_no_result(shell) -> None:
    (job,) = await shell.run("$j = Start-Job { 'first'; Start-Sleep 2; 'second' }; $j")
    waiting = asyncio.create_task(shell.run("Receive-Job $j -Wait"))
    deadline = time.monotonic() + 30
    while not job.take(keep=True):  # (peeks: -Keep's way leaves them not received)
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # the wait has taken 'first' meanwhile
    waiting.cancel()  # Ctrl-C before the statement could show it
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert await shell.run("Receive-Job $j -Wait") == ["first", "second"]


async def test_a_jobs_errors_name_the_place_in_the_script_that_started_it(shell) -> None:
    src = "$j = Start-Job {\n  'out'\n  Get-Item /nonexistent\n}\nReceive-Job $j -Wait -ErrorAction Continue"
    assert await shell.run(src, file="incident.fay") == ["out"]
    assert any("incident.fay:3:3: Get-Item" in e for e in shell.host.errors), shell.host.errors
