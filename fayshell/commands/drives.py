"""The drives of PowerShell's Environment, Variable and Function providers, as the item
cmdlets see them (``Get-ChildItem env:``, ``Get-Item variable:x``, ``Test-Path function:f``,
``Get-Content env:PATH``, ``Remove-Item variable:x``, ``New-Item env:X -Value v``). An item
is a name and its value; ``$env:NAME``, ``$x`` and ``${function:f}`` are the same items."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fayshell.lang.ops import has_wildcard, wildcard_match

if TYPE_CHECKING:
    from fayshell.state import Scope, ShellState

#: ``env:``, ``Env:NAME``, ``variable:/x``, ``function:f`` (wildcards allowed in the name).
DRIVE_PATH = re.compile(r"(?i)^(?P<drive>env|variable|function):[\\/]?(?P<name>.*)$")


@dataclass(frozen=True)
class DriveItem:
    """One item of a drive (a DictionaryEntry for env:, a variable, a function): Name and
    Value, Key the same as Name."""

    Name: str
    Value: Any
    drive: str = field(default="env", repr=False, compare=False)

    @property
    def Key(self) -> str:  # noqa: N802 - .NET property name
        return self.Name

    def __str__(self) -> str:
        return str(self.Value)


@dataclass(frozen=True)
class DrivePath:
    """A path on one of these drives: the drive (lower case) and the name or pattern after it
    ('' is the drive itself)."""

    drive: str
    name: str

    def __str__(self) -> str:
        return f"{self.drive}:{self.name}"


def split_drives(paths: list[str] | None) -> tuple[list[DrivePath], list[str]]:
    """The drive paths among ``paths``, and the other (file system) paths."""
    drives, rest = [], []
    for path in paths or []:
        m = DRIVE_PATH.match(path)
        if m is None:
            rest.append(path)
        else:
            drives.append(DrivePath(m.group("drive").lower(), m.group("name")))
    return drives, rest


def _contents(state: ShellState | None, drive: str) -> dict[str, Any]:
    if drive == "env":
        return dict(os.environ)
    if state is None:
        return {}
    if drive == "variable":
        return dict(state.scope_now.items())
    return {f.node.name: f for key, f in state.functions.items() if key == f.node.name.lower()}


def entries(
    where: DrivePath, state: ShellState | None = None, literal: bool = False
) -> list[DriveItem]:
    """The items ``where`` names (a wildcard, unless ``literal``; '' is every item), by name.
    An exact environment variable name is case-sensitive, as on Linux; other names and
    wildcards match in any case, as PowerShell's do."""
    held = _contents(state, where.drive)
    name = where.name
    if not name:
        chosen = list(held)
    elif literal or not has_wildcard(name):
        exact = name in held if where.drive == "env" else None
        chosen = [
            n for n in held if (n == name if exact is not None else n.lower() == name.lower())
        ]
    else:
        chosen = [n for n in held if wildcard_match(n, name)]
    return [DriveItem(n, held[n], where.drive) for n in sorted(chosen, key=str.lower)]


def remove(state: ShellState, item: DriveItem) -> None:
    """Remove an item: the variable, or the function, from where it is seen."""
    removers: dict[str, Callable[[], Any]] = {
        "env": lambda: os.environ.pop(item.Name, None),
        "variable": lambda: _remove_variable(state, item.Name),
        "function": lambda: state.functions.pop(item.Name.lower(), None),
    }
    removers[item.drive]()


def _remove_variable(state: ShellState, name: str) -> None:
    scope: Scope | None = state.scope_now
    while scope is not None and not scope.remove(name):
        scope = scope.parent
