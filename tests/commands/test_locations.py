"""Get-PSDrive: the drives fayshell has."""

from __future__ import annotations


async def test_get_ps_drive_lists_the_drives_there_are(shell) -> None:
    out = await shell.run(
        "(Get-PSDrive).Name -join ','; (Get-PSDrive /).Free -gt 0; "
        "Get-PSDrive -PSProvider Env* | ForEach-Object Name; "
        "Get-PSDrive Nope -ErrorAction SilentlyContinue; 'went on'"
    )
    assert out == ["/,Env,Function,Variable", True, "Env", "went on"]
