"""Get-Process, Stop-Process and Wait-Process against real processes: this test's own and sleeps
it starts."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from fayshell.errors import CommandError, FayError


async def test_get_process_reads_proc(shell) -> None:
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        (me,) = await shell.run(f"Get-Process -Id {os.getpid()}")
        assert me.Id == os.getpid() and me.ProcessName.startswith("python")
        assert me.WS > 0 and me.PM > 0 and me.VM >= me.WS and me.CPU > 0 and me.Threads >= 1
        assert 0 <= time.time() - me.StartTime.timestamp() < 24 * 3600
        found = await shell.run("Get-Process sle*")
        assert sleeper.pid in [p.Id for p in found]
        (s,) = [p for p in found if p.Id == sleeper.pid]
        exe = os.path.realpath(shutil.which("sleep") or "sleep")
        assert (s.Name, s.Path, s.CommandLine) == ("sleep", exe, "sleep 30")
        ranked = await shell.run(
            "Get-Process | Sort-Object WS -Descending | Select-Object -First 2"
        )
        assert ranked[0].WS >= ranked[1].WS
    finally:
        sleeper.kill()
        sleeper.wait()
    with pytest.raises(CommandError):
        await shell.run(f"Get-Process -Id {sleeper.pid}")  # it ended
    assert (
        f"Cannot find a process with the process identifier {sleeper.pid}."
        in (shell.host.errors[-1])
    )
    caught = await shell.run(
        f"try {{ Get-Process -Id {sleeper.pid} -ErrorAction Stop }} "
        "catch { $_.FullyQualifiedErrorId; $_.CategoryInfo.Category }"
    )
    assert caught == [
        "NoProcessFoundForGivenId,Microsoft.PowerShell.Commands.GetProcessCommand",
        "ObjectNotFound",
    ]


async def test_stop_process_kills_what_it_is_given(shell) -> None:
    sleepers = [subprocess.Popen(["sleep", "30"]) for _ in range(2)]
    try:
        first, second = (s.pid for s in sleepers)
        assert await shell.run(f"Stop-Process -Id {first} -WhatIf") == []
        assert shell.host.lines[-1] == (
            f'What if: Performing the operation "Stop-Process" on target "sleep ({first})".'
        )
        assert sleepers[0].poll() is None  # -WhatIf stopped nothing
        stopped = await shell.run(f"Stop-Process {first} -PassThru")
        assert [p.Id for p in stopped] == [first]
        assert sleepers[0].wait(5) == -9  # SIGKILL, as .NET's Process.Kill
        await shell.run(f"Get-Process -Id {second} | Stop-Process")
        assert sleepers[1].wait(5) == -9
    finally:
        for s in sleepers:
            s.kill()
            s.wait()
    caught = await shell.run(
        "try { Stop-Process -Id 999999999 -ErrorAction Stop } "
        "catch { $_.FullyQualifiedErrorId; $_.Exception.Message }"
    )
    assert caught == [
        "NoProcessFoundForGivenId,Microsoft.PowerShell.Commands.StopProcessCommand",
        "Cannot find a process with the process identifier 999999999.",
    ]


async def test_wait_process_waits_for_the_end_or_times_out(shell) -> None:
    short = subprocess.Popen(["sleep", "0.5"])
    try:
        started = time.monotonic()
        await shell.run(f"Wait-Process -Id {short.pid} -Timeout 20")
        assert 0.3 < time.monotonic() - started < 10  # until it ended (a zombie counts as ended)
    finally:
        short.wait()
    caught = await shell.run(
        f"try {{ Wait-Process -Id {os.getpid()} -Timeout 0 -ErrorAction Stop }} "
        "catch { $_.FullyQualifiedErrorId }"
    )
    assert caught == ["ProcessNotTerminated,Microsoft.PowerShell.Commands.WaitProcessCommand"]
    with pytest.raises(FayError, match="give -Id, -Name or processes"):
        await shell.run("Wait-Process")


async def test_processes_show_in_powershells_view(shell) -> None:
    """PowerShell's table of processes: NPM(K), PM(M), WS(M), CPU(s) with two decimals, Id,
    SI (its session id), ProcessName, in the view's fixed widths; a number too long for its
    column keeps its last digits."""
    import os
    import re

    text = await shell.text("Get-Process -Id $PID")
    lines = text.splitlines()
    assert lines[1:3] == [
        " NPM(K)    PM(M)      WS(M)     CPU(s)      Id  SI ProcessName",
        " ------    -----      -----     ------      --  -- -----------",
    ]
    row = lines[3]
    cells = [row[:7], row[8:16], row[17:27], row[28:38], row[39:46], row[47:50], row[51:]]
    assert cells[0] == "      0"
    assert all(re.fullmatch(r" *[\d,]+\.\d\d", c) for c in cells[1:4]), cells
    assert cells[4] == str(os.getpid()).rjust(7)
    session = str(os.getsid(0))
    assert cells[5] == (session.rjust(3) if len(session) <= 3 else "…" + session[-2:])
    stat = open(f"/proc/{os.getpid()}/stat").read()  # noqa: SIM115 - one read
    assert cells[6] == stat[stat.index("(") + 1 : stat.rindex(")")]
