"""``[version]`` and ``[semver]``: .NET's System.Version and PowerShell's SemanticVersion.

A Version has two to four numbers, ``Major.Minor[.Build[.Revision]]``; a part that was not given
is -1 and orders before 0, so ``1.2 < 1.2.0 < 1.2.0.0``, as .NET compares them. A
SemanticVersion is ``Major.Minor.Patch`` with an optional pre-release label (``-rc.1``: before
the release) and build label (``+abc``: ignored when comparing), ordered as semver.org 2.0
orders them. ``$PSVersionTable.PSVersion`` is a SemanticVersion, so a script's
``$PSVersionTable.PSVersion.Major -ge 7`` reads a number.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from fayshell.lang.values import TypeInfo

INT32_MAX = 2**31 - 1


class VersionError(ValueError):
    """A text or number that is not a version; the message is PowerShell's cast error."""


def _cannot(value: Any, type_name: str, why: str) -> VersionError:
    return VersionError(f'Cannot convert value "{value}" to type "{type_name}". Error: "{why}"')


def _number(part: str, text: str, type_name: str) -> int:
    """One part of a version text: digits that fit an Int32."""
    if not (part.isascii() and part.isdigit()):
        raise _cannot(text, type_name, "Input string was not in a correct format.")
    n = int(part)
    if n > INT32_MAX:
        raise _cannot(text, type_name, "Value was either too large or too small for an Int32.")
    return n


def _parts(numbers: tuple[Any, ...], type_name: str) -> tuple[int, ...]:
    """The numbers a constructor was given, checked: whole and not negative."""
    out = tuple(int(n) for n in numbers)
    if any(n < 0 for n in out):
        raise VersionError(f"{type_name}'s parts must be greater than or equal to zero: {out}")
    return out


class _ByKey:
    """Equal, hashed and ordered by ``key()``, against versions of the same kind only."""

    def key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __lt__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bool(self.key() < other.key())


@functools.total_ordering
@dataclass(frozen=True, eq=False)
class Version(_ByKey):
    """``[version]"2.13.1"``: shown as PowerShell shows it, a Major Minor Build Revision row."""

    Major: int
    Minor: int
    Build: int = -1
    Revision: int = -1

    TYPE_NAME: ClassVar[str] = "System.Version"

    @classmethod
    def parse(cls, text: str) -> Version:
        parts = text.strip().split(".")
        if not 2 <= len(parts) <= 4:
            raise _cannot(text, cls.TYPE_NAME, "Version string portion was too short or too long.")
        return cls(*(_number(p.strip(), text, cls.TYPE_NAME) for p in parts))

    @classmethod
    def new(cls, *args: Any) -> Version:
        """``[version]::new(...)``: a text, or two to four numbers."""
        if len(args) == 1 and isinstance(args[0], str):
            return cls.parse(args[0])
        if not 2 <= len(args) <= 4:
            raise VersionError(f"[version]::new takes a text or 2 to 4 numbers, not {len(args)}")
        return cls(*_parts(args, "Version"))

    @property
    def MajorRevision(self) -> int:  # noqa: N802 (.NET's name)
        return self.Revision >> 16

    @property
    def MinorRevision(self) -> int:  # noqa: N802 (.NET's name)
        low = self.Revision & 0xFFFF
        return low - 0x10000 if low >= 0x8000 else low

    def key(self) -> tuple[int, int, int, int]:
        return (self.Major, self.Minor, self.Build, self.Revision)

    def __str__(self) -> str:
        return ".".join(str(n) for n in self.key() if n >= 0)

    def ToString(self, fields: Any = None) -> str:  # noqa: N802 (.NET's name)
        """The version's text, or its first ``fields`` parts (at most the parts it has)."""
        given = [str(n) for n in self.key() if n >= 0]
        if fields is None:
            return ".".join(given)
        n = int(fields)
        if not 0 <= n <= len(given):
            raise VersionError(f"ToString({n}): the version has {len(given)} parts")
        return ".".join(given[:n])

    def GetType(self) -> TypeInfo:  # noqa: N802 (.NET's name)
        return TypeInfo("Version", self.TYPE_NAME)


#: A semantic version's text: 1 to 3 numbers, then -pre.release and +build labels.
_SEMVER = re.compile(
    r"(\d+)(?:\.(\d+)(?:\.(\d+))?)?"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
)


@functools.total_ordering
@dataclass(frozen=True, eq=False)
class SemanticVersion(_ByKey):
    """``[semver]"7.4.1-rc.1"`` and ``$PSVersionTable.PSVersion``."""

    Major: int
    Minor: int = 0
    Patch: int = 0
    PreReleaseLabel: str | None = None
    BuildLabel: str | None = None

    TYPE_NAME: ClassVar[str] = "System.Management.Automation.SemanticVersion"

    @classmethod
    def parse(cls, text: str) -> SemanticVersion:
        m = _SEMVER.fullmatch(text.strip())
        if m is None:
            raise _cannot(text, cls.TYPE_NAME, "The version is not a semantic version.")
        major, minor, patch = (_number(g or "0", text, cls.TYPE_NAME) for g in m.groups()[:3])
        return cls(major, minor, patch, m.group(4), m.group(5))

    @classmethod
    def new(cls, *args: Any) -> SemanticVersion:
        """``[semver]::new(...)``: a text, a [version], or 1 to 3 numbers and 2 labels."""
        if len(args) == 1 and isinstance(args[0], str):
            return cls.parse(args[0])
        if len(args) == 1 and isinstance(args[0], Version):
            return cls.of(args[0])
        if not 1 <= len(args) <= 5:
            raise VersionError(f"[semver]::new takes 1 to 5 arguments, not {len(args)}")
        major, minor, patch = (*_parts(args[:3], "SemanticVersion"), 0, 0)[:3]
        pre, build = (*(None if a is None else str(a) for a in args[3:5]), None, None)[:2]
        return cls(major, minor, patch, pre, build)

    @classmethod
    def of(cls, v: Version) -> SemanticVersion:
        """A [version] as a semantic one (its Build is the Patch; Revision is dropped)."""
        return cls(v.Major, v.Minor, max(v.Build, 0))

    def key(self) -> tuple[int, int, int, tuple[Any, ...]]:
        """What orders versions: the numbers, then the pre-release (none: the release, last),
        its dot-separated parts compared as numbers when they are digits, else as text."""
        if self.PreReleaseLabel is None:
            pre: tuple[Any, ...] = (1,)
        else:
            parts = self.PreReleaseLabel.split(".")
            pre = (0, *((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts))
        return (self.Major, self.Minor, self.Patch, pre)

    def __str__(self) -> str:
        pre = f"-{self.PreReleaseLabel}" if self.PreReleaseLabel else ""
        build = f"+{self.BuildLabel}" if self.BuildLabel else ""
        return f"{self.Major}.{self.Minor}.{self.Patch}{pre}{build}"

    def ToString(self) -> str:  # noqa: N802 (.NET's name)
        return str(self)

    def GetType(self) -> TypeInfo:  # noqa: N802 (.NET's name)
        return TypeInfo("SemanticVersion", self.TYPE_NAME)


def to_version(value: Any) -> Version:
    """``[version]$value``: a version, a semantic one (Major.Minor.Patch), or its text."""
    if isinstance(value, Version):
        return value
    if isinstance(value, SemanticVersion):
        return Version(value.Major, value.Minor, value.Patch)
    if value is None or isinstance(value, (bool, list, dict)):
        raise _cannot(value, Version.TYPE_NAME, "Version string portion was too short or too long.")
    return Version.parse(value if isinstance(value, str) else _text(value))


def to_semver(value: Any) -> SemanticVersion:
    """``[semver]$value``: a semantic version, a [version], or its text."""
    if isinstance(value, SemanticVersion):
        return value
    if isinstance(value, Version):
        return SemanticVersion.of(value)
    if value is None or isinstance(value, (bool, list, dict)):
        raise _cannot(value, SemanticVersion.TYPE_NAME, "The version is not a semantic version.")
    return SemanticVersion.parse(value if isinstance(value, str) else _text(value))


def _text(value: Any) -> str:
    """A number as the text a cast reads (``[version]1.5`` is 1.5)."""
    from fayshell.lang.ops import to_string

    return to_string(value)
