"""Get-Process against real processes: this test's own and a sleep it starts."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from fayshell.errors import CommandError


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
