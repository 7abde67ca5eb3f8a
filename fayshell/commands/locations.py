"""The shell's current location: Set-Location (cd, with `cd -` and `cd +`), Get-Location,
Push-Location and Pop-Location. Relative paths in every command resolve against it
(``ShellState.resolve_path``); it never changes the process's working directory."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import Any

from fayshell.commands.files import expand, missing
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import (
    BY_VALUE_AND_PROPERTY,
    Param,
    Pipeline,
    cmdlet,
)
from fayshell.errors import CommandError
from fayshell.lang.ops import has_wildcard, to_string, wildcard_match
from fayshell.render import FixedTable
from fayshell.state import PathInfo, ShellState

PATH_PIPE: Pipeline = BY_VALUE_AND_PROPERTY


def change_location(ctx: Invocation, target: str) -> bool:
    """Move the shell to ``target`` (wildcards allowed when one directory matches)."""
    state = ctx.state
    found = expand(state, target) if has_wildcard(target) else [state.resolve_path(target)]
    dirs = [p for p in found if p.is_dir()]
    if len(dirs) != 1:
        where = state.resolve_path(target)
        if len(dirs) > 1:
            reason = f"matches {len(dirs)} directories"
        elif found and os.path.lexists(found[0]):
            reason = "is a file, not a directory"
        else:
            missing(ctx, where)
            return False
        ctx.write_error(ErrorRecord(str(where), "", reason))
        return False
    if str(dirs[0]) != state.location:
        state.location_back.append(state.location)
        state.location_forward.clear()
    state.set_location(str(dirs[0]))
    return True


def _step(ctx: Invocation, back: bool) -> None:
    state = ctx.state
    source, other = (
        (state.location_back, state.location_forward)
        if back
        else (state.location_forward, state.location_back)
    )
    if not source:
        raise CommandError(
            ctx.name,
            "there is no location history to go "
            + ("back to ('cd -')" if back else "forward to ('cd +')"),
        )
    other.append(state.location)
    state.set_location(source.pop())


def _location(state: ShellState) -> PathInfo:
    return PathInfo(state.location, ProviderPath=state.location)


@cmdlet(
    "Set-Location",
    aliases=("cd", "chdir", "sl"),
    synopsis="Change the shell's current directory ('cd -' goes back, 'cd ~' home).",
    params=[
        Param(
            "Path",
            "any",
            position=0,
            pipeline=PATH_PIPE,
            aliases=("FullName",),
            help="The directory; '-' the previous one, '+' the next one, none: home.",
        ),
        Param("LiteralPath", str, aliases=("PSPath", "LP")),
        Param("PassThru", bool, help="Output the new location."),
    ],
    description="Relative paths in every command (Import-Trace, Get-Content, ...) resolve "
    "against this location. It is the shell's own, like PowerShell's; commands run "
    "by DuckDB itself ('sql ... read_csv(...)') see it as their file search path.",
    examples=[
        ("cd /srv/traces", "Go to a directory."),
        ("cd -", "Back to where you were."),
        ("Set-Location ~ -PassThru", "Home, and show it."),
    ],
)
def set_location(
    ctx: Invocation, *, path: Any = None, literal_path: str | None = None, pass_thru: bool = False
) -> list[PathInfo]:
    text = literal_path if literal_path is not None else ("~" if path is None else to_string(path))
    if literal_path is None and text in ("-", "+"):
        _step(ctx, text == "-")
    elif not change_location(ctx, text):
        return []
    ctx.state.follow_location_in_database()
    return [_location(ctx.state)] if pass_thru else []


@cmdlet(
    "Get-Location",
    aliases=("gl", "pwd"),
    synopsis="The shell's current directory (or Push-Location's stack with -Stack).",
    params=[Param("Stack", bool, help="The locations Push-Location saved, newest first.")],
    examples=[("Get-Location", "Where the shell is."), ("(Get-Location).Path", "As a string.")],
)
def get_location(ctx: Invocation, *, stack: bool = False) -> list[PathInfo]:
    if stack:
        return [PathInfo(p, ProviderPath=p) for p in reversed(ctx.state.location_stack)]
    return [_location(ctx.state)]


@cmdlet(
    "Push-Location",
    aliases=("pushd",),
    synopsis="Save the current directory on a stack, then change to another one.",
    params=[
        Param("Path", "any", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("LiteralPath", str, aliases=("PSPath", "LP")),
        Param("PassThru", bool, help="Output the new location."),
    ],
    examples=[("pushd /tmp; Get-ChildItem; popd", "Look elsewhere and come back.")],
)
def push_location(
    ctx: Invocation, *, path: Any = None, literal_path: str | None = None, pass_thru: bool = False
) -> list[PathInfo]:
    here = ctx.state.location
    target = literal_path if literal_path is not None else None if path is None else to_string(path)
    if target is not None and not change_location(ctx, target):
        return []
    ctx.state.location_stack.append(here)
    ctx.state.follow_location_in_database()
    return [_location(ctx.state)] if pass_thru else []


@cmdlet(
    "Pop-Location",
    aliases=("popd",),
    synopsis="Go back to the directory the last Push-Location saved.",
    params=[Param("PassThru", bool, help="Output the new location.")],
    examples=[("popd", "Back to where pushd left.")],
)
def pop_location(ctx: Invocation, *, pass_thru: bool = False) -> list[PathInfo]:
    state = ctx.state
    if not state.location_stack:
        return []
    target = state.location_stack.pop()
    if not os.path.isdir(target):
        raise CommandError("Pop-Location", f"{target}: the saved directory no longer exists")
    state.location_back.append(state.location)
    state.set_location(target)
    state.follow_location_in_database()
    return [_location(state)] if pass_thru else []


#: PowerShell's view of drives (its "drive" table).
DRIVE_VIEW = FixedTable(
    ("Name", "Used (GB)", "Free (GB)", "Provider", "Root", "CurrentLocation"),
    (10, 13, 13, 13, 35, 0),
    (False, True, True, False, False, True),
)


@dataclass(frozen=True)
class DriveInfo:
    """One drive as Get-PSDrive lists it: the file system's root, and the Env:, Function:
    and Variable: drives (the only ones fayshell has); Used and Free in bytes."""

    Name: str
    Used: int | None
    Free: int | None
    Provider: str
    Root: str
    CurrentLocation: str = ""

    TYPE_NAME = "System.Management.Automation.PSDriveInfo"

    def __str__(self) -> str:
        return self.Name

    #: PowerShell's table of drives: Name 10, Used (GB) and Free (GB) 13 with two decimals
    #: (for a drive that has sizes), Provider 13, Root 35, CurrentLocation.
    TABLE_VIEW = DRIVE_VIEW

    def view_cells(self) -> list[str]:
        sized = bool(self.Used or self.Free)
        gb = 1024**3
        used = f"{(self.Used or 0) / gb:.2f}" if sized else ""
        free = f"{(self.Free or 0) / gb:.2f}" if sized else ""
        return [self.Name, used, free, self.Provider, self.Root, self.CurrentLocation]


@cmdlet(
    "Get-PSDrive",
    aliases=("gdr",),
    synopsis="The drives: / (the file system, with its used and free bytes), Env:, Function: "
    "and Variable:.",
    params=[
        Param("Name", "strings", position=0, help="Only these drives (wildcards)."),
        Param("PSProvider", "strings", help="Only these providers: FileSystem, Environment ..."),
    ],
    examples=[("(Get-PSDrive /).Free / 1GB", "Free space under / in GiB.")],
)
def get_ps_drive(
    ctx: Invocation, *, name: list[str] | None = None, psprovider: list[str] | None = None
) -> list[DriveInfo]:
    usage = shutil.disk_usage("/")
    here = ctx.state.location.lstrip("/")
    drives = [
        DriveInfo("/", usage.used, usage.free, "FileSystem", "/", here),
        DriveInfo("Env", None, None, "Environment", ""),
        DriveInfo("Function", None, None, "Function", ""),
        DriveInfo("Variable", None, None, "Variable", ""),
    ]
    found = [
        d
        for d in drives
        if (not name or any(wildcard_match(d.Name, n) for n in name))
        and (not psprovider or any(wildcard_match(d.Provider, p) for p in psprovider))
    ]
    for n in name or []:  # a name without wildcards that is no drive: PowerShell's error
        if not has_wildcard(n) and not any(d.Name.lower() == n.lower() for d in found):
            ctx.write_error(
                ErrorRecord(
                    n,
                    "",
                    f"Cannot find drive. A drive with the name '{n}' does not exist.",
                    category="ObjectNotFound",
                    names_target=True,
                    exception="System.Management.Automation.DriveNotFoundException",
                )
            )
    return found
