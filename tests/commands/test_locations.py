"""Get-PSDrive: the drives fayshell has."""

from __future__ import annotations

import re


async def test_get_ps_drive_lists_the_drives_there_are(shell) -> None:
    out = await shell.run(
        "(Get-PSDrive).Name -join ','; (Get-PSDrive /).Free -gt 0; "
        "Get-PSDrive -PSProvider Env* | ForEach-Object Name; "
        "Get-PSDrive Nope -ErrorAction SilentlyContinue; 'went on'"
    )
    assert out == ["/,Env,Function,Variable", True, "Env", "went on"]


async def test_drives_show_in_powershells_view(shell) -> None:
    """Get-PSDrive: Name 10, Used (GB) and Free (GB) with two decimals for the file system's
    drive, Provider 13, Root 35, CurrentLocation right-aligned under its label."""
    lines = (await shell.text("Get-PSDrive")).splitlines()
    assert lines[1].split() == [
        "Name",
        "Used",
        "(GB)",
        "Free",
        "(GB)",
        "Provider",
        "Root",
        "CurrentLocation",
    ]
    root = next(line for line in lines if line.startswith("/ "))
    assert re.fullmatch(r"/ {9} +\d+\.\d\d +\d+\.\d\d FileSystem {4}/ +\S*", root), root
    (here,) = await shell.run("(Get-PSDrive -Name /).CurrentLocation")
    end = lines[1].index("CurrentLocation") + len("CurrentLocation")
    if here:  # (at the root, the drive's location is '')
        assert root.endswith(" " + here)
        assert len(root) == end or len(here) >= len("CurrentLocation")
    env = next(line for line in lines if line.startswith("Env"))
    assert env.split() == ["Env", "Environment"]
