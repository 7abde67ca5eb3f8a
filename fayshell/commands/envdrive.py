"""The ``env:`` drive: the process environment as PowerShell's Environment provider shows it to
the item cmdlets (``Get-ChildItem env:``, ``Get-Item env:HOME``, ``Test-Path env:TOKEN``,
``Get-Content env:PATH``, ``Remove-Item env:X``, ``New-Item env:X -Value v``); ``$env:NAME`` is
the same variable."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from fayshell.lang.ops import has_wildcard, wildcard_match

#: ``env:``, ``env:NAME``, ``Env:/NAME`` (wildcards allowed in NAME).
ENV_PATH = re.compile(r"(?i)^env:[\\/]?(?P<name>.*)$")


@dataclass(frozen=True)
class EnvEntry:
    """One environment variable, as the drive lists it (a DictionaryEntry: Name and Value,
    Key the same as Name)."""

    Name: str
    Value: str

    @property
    def Key(self) -> str:  # noqa: N802 - .NET property name
        return self.Name

    def __str__(self) -> str:
        return self.Value


def split_env(paths: list[str] | None) -> tuple[list[str], list[str]]:
    """The variable names (or patterns; '' is every variable) the ``env:`` paths among
    ``paths`` name, and the other paths."""
    names, rest = [], []
    for path in paths or []:
        m = ENV_PATH.match(path)
        if m is None:
            rest.append(path)
        else:
            names.append(m.group("name"))
    return names, rest


def entries(name: str, literal: bool = False) -> list[EnvEntry]:
    """The variables ``name`` matches (a wildcard, unless ``literal``; '' matches every one),
    by name. An exact name is case-sensitive, as the environment is on Linux; a wildcard
    matches in any case, as PowerShell's wildcards do."""
    if not name:
        chosen = list(os.environ)
    elif literal or not has_wildcard(name):
        chosen = [name] if name in os.environ else []
    else:
        chosen = [n for n in os.environ if wildcard_match(n, name)]
    return [EnvEntry(n, os.environ[n]) for n in sorted(chosen, key=str.lower)]
