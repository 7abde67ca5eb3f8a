"""The file system: paths (Join-Path, Split-Path, Test-Path, Resolve-Path), file contents
(Get-Content, Set-Content, Add-Content, Out-File), items (New-Item, Remove-Item, Copy-Item,
Move-Item, Get-Item, Get-ChildItem, New-TemporaryFile); locations.py holds Set-Location & co.

Relative paths resolve against the shell's location (``ShellState.location``), not the process's
working directory, so `cd` in one shell never moves another. ``-Path`` takes PowerShell
wildcards (``*``, ``?``, ``[a-z]``); ``-LiteralPath`` does not. A path that fails is reported as
one line naming it, and the command goes on with the other paths (``-ErrorAction``).
"""

from __future__ import annotations

import dataclasses
import glob
import itertools
import os
import shutil
import stat
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from fayshell import errorids
from fayshell.commands import drives
from fayshell.commands.accounts import group_name, user_name
from fayshell.commands.drives import DriveItem, DrivePath
from fayshell.commands.encodings import ENCODING_PARAM, codec_name, read_text, write_text
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import (
    BY_PROPERTY,
    BY_VALUE,
    BY_VALUE_AND_PROPERTY,
    Param,
    Pipeline,
    cmdlet,
)
from fayshell.errors import CommandError, ParameterError
from fayshell.lang.dates import DateTime, FileTime, format_date, to_datetime, wall_clock
from fayshell.lang.integers import Byte, Int64
from fayshell.lang.ops import has_wildcard, to_string, wildcard_match
from fayshell.lang.streams import collect
from fayshell.lang.values import ScriptBlock, TypedArray
from fayshell.records import all_property_names, attribute_named, get_property, property_names
from fayshell.render import FixedTable
from fayshell.state import PathInfo, ShellState

PATH_PIPE: Pipeline = BY_VALUE_AND_PROPERTY


class Refused(Exception):
    """An item operation PowerShell refuses without -Force or -Recurse; the text says why."""


# ---- records ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileItem:
    """A file or directory as Get-ChildItem and Get-Item show it: PowerShell's view on Unix
    (UnixMode, User, Group, LastWriteTime, Size, Name under "Directory: <parent>")."""

    UnixMode: str
    User: str
    Group: str
    LastWriteTime: DateTime
    Size: int
    Name: str
    Mode: str = field(repr=False, default="")
    Length: int | None = field(repr=False, default=None)
    LinkTarget: str | None = field(repr=False, default=None)
    FullName: str = field(repr=False, default="")
    Extension: str = field(repr=False, default="")
    BaseName: str = field(repr=False, default="")
    DirectoryName: str = field(repr=False, default="")
    PSIsContainer: bool = field(repr=False, default=False)
    CreationTime: DateTime | None = field(repr=False, default=None)
    LastAccessTime: DateTime | None = field(repr=False, default=None)
    Exists: bool = field(repr=False, default=True)
    PSPath: str = field(repr=False, default="")

    #: What Format-List shows of a file, as PowerShell's list view of files.
    LIST_VIEW: ClassVar[tuple[str, ...]] = (
        "Name",
        "Length",
        "CreationTime",
        "LastWriteTime",
        "LastAccessTime",
        "Mode",
        "LinkType",
        "Target",
    )

    def __str__(self) -> str:
        return self.FullName

    @property
    def LinkType(self) -> str | None:  # noqa: N802 - .NET property name
        return "SymbolicLink" if self.LinkTarget else None

    @property
    def Target(self) -> str | None:  # noqa: N802 - .NET property name
        return self.LinkTarget

    @classmethod
    def block_lines(cls, run: list[FileItem]) -> list[str]:
        """PowerShell's table of files on Unix (its childrenWithUnixStat view): a
        "Directory: <parent>" line over each directory's items, fixed-width columns."""
        lines: list[str] = []
        for parent, items in itertools.groupby(run, key=lambda item: item.DirectoryName):
            lines += ["", f"    Directory: {parent}", "", *UNIX_VIEW.header()]
            lines += [UNIX_VIEW.row(item.unix_cells()) for item in items]
        return [*lines, ""]

    def unix_cells(self) -> list[str]:
        """The cells of this item's row in the Unix view."""
        when = f"{format_date(self.LastWriteTime, 'd')} {format_date(self.LastWriteTime, 'HH:mm')}"
        name = f"{self.Name} -> {self.LinkTarget}" if self.LinkTarget else self.Name
        return [self.UnixMode, self.User, self.Group, when, str(self.Size), name]

    @property
    def TYPE_NAME(self) -> str:  # noqa: N802 - .NET's, as GetType() names it
        return "System.IO.DirectoryInfo" if self.PSIsContainer else "System.IO.FileInfo"

    @property
    def Directory(self) -> FileItem | None:  # noqa: N802 - .NET property name
        """A file's folder (FileInfo.Directory); $null for a folder, as .NET has none."""
        return None if self.PSIsContainer else file_item(Path(self.DirectoryName))

    @property
    def Parent(self) -> FileItem | None:  # noqa: N802 - .NET property name
        """A folder's parent (DirectoryInfo.Parent); $null at the root and for a file."""
        parent = Path(self.FullName).parent
        if not self.PSIsContainer or str(parent) == self.FullName:
            return None
        return file_item(parent)

    def ps_set(self, name: str, value: Any) -> bool:
        """``$item.LastWriteTime = $date`` (and LastAccessTime) sets the file's time, as
        PowerShell's FileInfo does; False for other properties (read-only)."""
        if name not in ("LastWriteTime", "LastAccessTime"):
            return False
        when = to_datetime(value)
        stamp = (
            when.naive().replace(tzinfo=UTC) if when.Kind == "Utc" else when.naive()
        ).timestamp()
        st = os.stat(self.FullName)
        times = (st.st_atime, stamp) if name == "LastWriteTime" else (stamp, st.st_mtime)
        os.utime(self.FullName, times)
        object.__setattr__(self, name, _local(stamp))
        return True

    def ps_is(self, type_name: str) -> bool | None:
        """``-is [System.IO.FileInfo]`` and its kin (short names, as dotnet.short_type)."""
        kinds = {"io.fileinfo": not self.PSIsContainer, "io.directoryinfo": self.PSIsContainer}
        return kinds.get(type_name, True if type_name == "io.filesysteminfo" else None)


#: PowerShell's view of files on Unix: UnixMode, User, Group, LastWriteTime (as long as
#: '12/31/9999 23:59'), Size, Name.
UNIX_VIEW = FixedTable(
    ("UnixMode", "User", "Group", "LastWriteTime", "Size", "Name"),
    (10, 10, 10, 16, 12, 0),
    (False, True, False, True, True, False),
)


def file_item(path: Path) -> FileItem:
    """The record for an existing path (symbolic links described, not followed)."""
    st = path.lstat()
    link = stat.S_ISLNK(st.st_mode)
    is_dir = stat.S_ISDIR(st.st_mode) or (link and path.is_dir())
    mode = "l----" if link else ("d----" if is_dir else "-----")
    name = path.name or str(path)
    suffix = "" if is_dir and not path.suffix else path.suffix
    return FileItem(
        UnixMode=stat.filemode(st.st_mode),
        User=user_name(st.st_uid) or str(st.st_uid),
        Group=group_name(st.st_gid) or str(st.st_gid),
        Size=Int64(st.st_size),
        Mode=mode,
        LastWriteTime=_local(st.st_mtime),
        Length=None if is_dir else Int64(st.st_size),  # .NET's FileInfo.Length is a long
        LinkTarget=os.readlink(path) if link else None,
        Name=name,
        FullName=str(path),
        Extension=suffix,
        BaseName=name[: len(name) - len(suffix)] if suffix else name,
        DirectoryName=str(path.parent),
        PSIsContainer=is_dir,
        CreationTime=_local(st.st_ctime),
        LastAccessTime=_local(st.st_atime),
        PSPath=str(path),
    )


def _local(timestamp: float) -> DateTime:
    return FileTime.of(datetime.fromtimestamp(timestamp), "Local")


# ---- shared helpers ---------------------------------------------------------------------------


def expand(state: ShellState, path: str, literal: bool = False) -> list[Path]:
    """The existing paths ``path`` names: itself, or its wildcard matches (sorted)."""
    full = state.resolve_path(path)
    if literal or not has_wildcard(path):
        return [full] if os.path.lexists(full) else []
    return [Path(p) for p in sorted(glob.glob(str(full)))]


def missing(ctx: Invocation, path: Path | str) -> None:
    ctx.write_error(
        ErrorRecord(
            str(path),
            "",
            not_found(path),
            category="ObjectNotFound",
            names_target=True,
            exception="System.Management.Automation.ItemNotFoundException",
        )
    )


def not_found(path: Path | str) -> str:
    """PowerShell's words for a path that does not exist."""
    return f"Cannot find path '{path}' because it does not exist."


def os_failure(ctx: Invocation, path: Path | str, exc: OSError) -> None:
    where = exc.filename or path
    if isinstance(exc, FileNotFoundError):  # a directory on the way is missing (.NET's words)
        message = f"Could not find a part of the path '{where}'."
        kind = "System.IO.DirectoryNotFoundException"
    elif isinstance(exc, PermissionError):
        message, kind = (
            f"Access to the path '{where}' is denied.",
            "System.UnauthorizedAccessException",
        )
    else:
        message = (exc.strerror or type(exc).__name__).lower()
        kind, where = "System.IO.IOException", ""
    named = where == str(path)
    ctx.write_error(ErrorRecord(str(path), "", message, names_target=named, exception=kind))


def targets(
    ctx: Invocation, path: list[str] | None, literal_path: list[str] | None
) -> Iterator[Path]:
    """Every existing path named by -Path (wildcards) or -LiteralPath; missing ones reported."""
    for text, literal in [(p, False) for p in path or []] + [(p, True) for p in literal_path or []]:
        found = expand(ctx.state, text, literal)
        if not found:
            missing(ctx, ctx.state.resolve_path(text))
        yield from found


def split_lines(text: str) -> list[str]:
    """Lines the way Get-Content reads them: \\n, \\r\\n or \\r; no empty last line."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


# ---- paths ------------------------------------------------------------------------------------


def _join(base: str, child: str) -> str:
    base, child = base.replace("\\", "/"), child.replace("\\", "/")
    if not child:
        return base if base.endswith("/") else base + "/"
    if not base:
        return child
    return base.rstrip("/") + "/" + child.lstrip("/")


@cmdlet(
    "Join-Path",
    synopsis="Join a path and child paths into one path (the path need not exist).",
    params=[
        Param(
            "Path",
            "strings",
            position=0,
            mandatory=True,
            pipeline=PATH_PIPE,
            aliases=("PSPath",),
            help="One or more parent paths; one result each.",
        ),
        Param("ChildPath", str, position=1, help="The path to add to each parent."),
        Param(
            "AdditionalChildPath",
            "strings",
            position=2,
            rest=True,
            help="More path parts, joined in order.",
        ),
        Param("Resolve", bool, help="Return the resolved full path(s); an error if missing."),
    ],
    examples=[
        ("Join-Path /var/log app.log", "/var/log/app.log"),
        ("Join-Path -Path a,b -ChildPath c", "a/c and b/c."),
        ("Join-Path traces node01 kernel", "traces/node01/kernel."),
    ],
)
def join_path(
    ctx: Invocation,
    *,
    path: list[str],
    child_path: str | None = None,
    additional_child_path: list[str] | None = None,
    resolve: bool = False,
) -> list[Any]:
    out: list[Any] = []
    for base in path:
        joined = base
        for child in [child_path or "", *(additional_child_path or [])]:
            joined = _join(joined, child) if child or child_path is not None else joined
        if resolve:
            found = expand(ctx.state, joined)
            if not found:
                missing(ctx, ctx.state.resolve_path(joined))
            out.extend(str(p) for p in found)
        else:
            out.append(joined)
    return out


def _qualifier(path: str) -> tuple[str, str]:
    """``Env:HOME`` -> (``Env:``, ``HOME``); a path without a drive -> ("", path)."""
    head, sep, rest = path.partition(":")
    if sep and head and "/" not in head and "\\" not in head:
        return head + ":", rest
    return "", path


def _parent(path: str) -> str:
    trimmed = path.rstrip("/") or path
    if trimmed == "/":
        return ""
    head, sep, _ = trimmed.rpartition("/")
    if not sep:
        return ""
    return head or "/"


def _leaf(path: str) -> str:
    return (path.rstrip("/") or path).rpartition("/")[2]


@cmdlet(
    "Split-Path",
    synopsis="A part of a path: its parent (default), leaf, base name, extension or drive.",
    params=[
        Param(
            "Path", "strings", position=0, mandatory=True, pipeline=PATH_PIPE, aliases=("PSPath",)
        ),
        Param("Parent", bool, help="The parent container (the default)."),
        Param("Leaf", bool, help="The last element."),
        Param("LeafBase", bool, help="The last element without its extension."),
        Param("Extension", bool, help="The extension of the last element, with its dot."),
        Param("Qualifier", bool, help="The drive, e.g. 'Env:'."),
        Param("NoQualifier", bool, help="The path without its drive."),
        Param("IsAbsolute", bool, help="True when the path is absolute."),
        Param("Resolve", bool, help="Resolve wildcards and relative paths first."),
    ],
    examples=[
        ("Split-Path /var/log/app.log", "/var/log"),
        ("Split-Path /var/log/app.log -Leaf", "app.log"),
        ("Split-Path app.tar.gz -LeafBase", "app.tar"),
        ("Split-Path app.tar.gz -Extension", ".gz"),
    ],
)
def split_path(
    ctx: Invocation,
    *,
    path: list[str],
    parent: bool = False,
    leaf: bool = False,
    leaf_base: bool = False,
    extension: bool = False,
    qualifier: bool = False,
    no_qualifier: bool = False,
    is_absolute: bool = False,
    resolve: bool = False,
) -> list[Any]:
    chosen = [
        n
        for n, on in (
            ("Leaf", leaf),
            ("LeafBase", leaf_base),
            ("Extension", extension),
            ("Qualifier", qualifier),
            ("NoQualifier", no_qualifier),
            ("IsAbsolute", is_absolute),
            ("Parent", parent),
        )
        if on
    ]
    if len(chosen) > 1:
        raise ParameterError("Split-Path", chosen[1], f"cannot be used together with -{chosen[0]}")
    mode = chosen[0] if chosen else "Parent"
    items = [str(p) for p in targets(ctx, path, None)] if resolve else path
    return [_split_one(p.replace("\\", "/"), mode) for p in items]


def _split_one(path: str, mode: str) -> Any:
    drive, rest = _qualifier(path)
    if mode == "Qualifier":
        if not drive:
            raise CommandError(
                "Split-Path", f"the path {path!r} has no qualifier (a drive such as 'Env:')"
            )
        return drive
    if mode == "NoQualifier":
        return rest
    if mode == "IsAbsolute":
        return rest.startswith(("/", "~")) or bool(drive)
    name = _leaf(rest)
    dot = name.rfind(".")
    if mode == "Leaf":
        return name
    if mode == "LeafBase":
        return name[:dot] if dot > 0 else name
    if mode == "Extension":
        return name[dot:] if dot > 0 else ""
    return drive + _parent(rest) if drive and _parent(rest) else _parent(rest)


@cmdlet(
    "Test-Path",
    synopsis="True when the path exists (wildcards: when anything matches).",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
        Param(
            "PathType",
            str,
            choices=("Any", "Container", "Leaf"),
            help="Container: a directory; Leaf: anything else (a file).",
        ),
        Param("IsValid", bool, help="Only check that the path is well formed."),
        Param("NewerThan", "any", help="Only a file written after this time counts."),
        Param("OlderThan", "any", help="Only a file written before this time counts."),
    ],
    examples=[
        ("Test-Path ~/.ssh/config", "Is there an SSH config?"),
        ("Test-Path incident.duckdb -NewerThan (Get-Date).AddHours(-1)", "Written lately?"),
        ("Test-Path traces -PathType Container", "Is traces a directory?"),
        ("Test-Path *.duckdb", "Is there any database here?"),
    ],
)
def test_path(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    path_type: str = "Any",
    is_valid: bool = False,
    newer_than: Any = None,
    older_than: Any = None,
) -> list[bool]:
    if path is None and literal_path is None:
        raise ParameterError(
            "Test-Path",
            "Path",
            "missing mandatory parameter -Path",
            error_id=errorids.MISSING_MANDATORY,
        )
    items = [(p, False) for p in path or []] + [(p, True) for p in literal_path or []]
    when = _written_between(newer_than, older_than)
    return [
        _test_one(ctx.state, text, literal, path_type, is_valid, when) for text, literal in items
    ]


def _written_between(newer: Any, older: Any) -> Callable[[Path], bool]:
    """-NewerThan and -OlderThan as a test of a path's last write time (local wall clock)."""
    lo = None if newer is None else wall_clock(newer)
    hi = None if older is None else wall_clock(older)

    def test(path: Path) -> bool:
        written = datetime.fromtimestamp(path.stat().st_mtime)
        return (lo is None or written > lo) and (hi is None or written < hi)

    return test


def _test_one(
    state: ShellState,
    text: str,
    literal: bool,
    path_type: str,
    valid: bool,
    when: Callable[[Path], bool],
) -> bool:
    if not text.strip():
        return False
    if valid:
        return "\0" not in text
    on_drive, _ = drives.split_drives([text])
    if on_drive:  # an item is a leaf; env:, variable: and function: are containers
        there = bool(drives.entries(on_drive[0], state, literal))
        return there if path_type != "Container" else not on_drive[0].name
    found = [p for p in expand(state, text, literal) if when(p)]
    if path_type == "Container":
        return any(p.is_dir() for p in found)
    if path_type == "Leaf":
        return any(not p.is_dir() for p in found)
    return bool(found)


@cmdlet(
    "Resolve-Path",
    synopsis="The full path(s) a path names, wildcards expanded; an error when nothing exists.",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
        Param("Relative", bool, help="Relative to the current location, as ./name."),
    ],
    examples=[
        ("Resolve-Path ~/traces/*", "Every entry of ~/traces, as full paths."),
        ("Resolve-Path ../data -Relative", "The path relative to here."),
    ],
)
def resolve_path(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    relative: bool = False,
) -> list[Any]:
    out: list[Any] = []
    for found in _named(ctx, path, literal_path):
        if relative:
            rel = os.path.relpath(found, ctx.state.location)
            out.append(rel if rel.startswith("..") else "./" + rel if rel != "." else ".")
        else:
            out.append(PathInfo(str(found), ProviderPath=str(found)))
    return out


@cmdlet(
    "Convert-Path",
    aliases=("cvpa",),
    synopsis="The file system path(s) a path names, as text: wildcards expanded, relative "
    "paths made full; an error when nothing exists.",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
    ],
    examples=[
        ("Convert-Path .", "The current directory's full path."),
        ("Convert-Path ~/traces/*", "The full path of each entry of ~/traces."),
    ],
)
def convert_path(
    ctx: Invocation, *, path: list[str] | None = None, literal_path: list[str] | None = None
) -> list[str]:
    return [str(found) for found in _named(ctx, path, literal_path)]


def _named(
    ctx: Invocation, path: list[str] | None, literal_path: list[str] | None
) -> Iterator[Path]:
    """What Resolve-Path and Convert-Path resolve: the paths given, else the location."""
    return targets(ctx, path or ([] if literal_path else ["."]), literal_path)


# ---- contents ---------------------------------------------------------------------------------


@cmdlet(
    "Get-Content",
    aliases=("gc", "cat", "type"),
    synopsis="The lines of a file (strings), or its whole text with -Raw.",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
        Param("TotalCount", int, aliases=("Head", "First"), help="Only the first N lines."),
        Param("Tail", int, aliases=("Last",), help="Only the last N lines."),
        Param("Raw", bool, help="The whole file as one string, newlines kept."),
        Param(
            "ReadCount",
            int,
            help="Lines sent on at a time, as one array (0: a file's lines in one array).",
        ),
        Param(
            "Delimiter",
            str,
            help="Split at this string instead of at newlines (each piece keeps its delimiter).",
        ),
        ENCODING_PARAM,
        Param(
            "AsByteStream",
            bool,
            help="The file's bytes (numbers 0 to 255; with -Raw one array of them).",
        ),
        Param(
            "Wait",
            bool,
            help="After the lines there are, go on with each line written to the file until "
            "Ctrl-C (as tail -f).",
        ),
    ],
    examples=[
        ("Get-Content notes.txt", "Every line."),
        ("Get-Content app.log -Tail 20", "The last 20 lines."),
        ("Get-Content app.log -Tail 0 -Wait | Select-String error", "Errors as they are logged."),
        ("Get-Content nodes.txt -TotalCount 1", "The first line."),
        ("(Get-Content config.json -Raw) | ConvertFrom-Json", "A whole file as one string."),
        ("Get-Content big.log -ReadCount 1000 | % { $_.Count }", "Lines 1000 at a time."),
    ],
)
def get_content(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    total_count: int | None = None,
    tail: int | None = None,
    raw: bool = False,
    read_count: int | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    as_byte_stream: bool = False,
    wait: bool = False,
) -> Any:
    if path is None and literal_path is None:
        raise ParameterError(
            "Get-Content",
            "Path",
            "missing mandatory parameter -Path",
            error_id=errorids.MISSING_MANDATORY,
        )
    on_drive, path = drives.split_drives(path)
    out: list[Any] = [e.Value for e in drive_items(ctx, on_drive, listing=False)]
    followed: list[Following] = []
    for found in targets(ctx, path, literal_path):
        if found.is_dir():
            ctx.write_error(
                ErrorRecord(str(found), "", "is a directory, not a file (Get-ChildItem lists it)")
            )
            continue
        try:
            size = found.stat().st_size if wait else 0  # where -Wait goes on from
            if as_byte_stream:
                out.extend(_bytes(found.read_bytes(), raw, total_count, tail, read_count))
                continue
            text = read_text(found, encoding)
        except OSError as exc:
            os_failure(ctx, found, exc)
            continue
        out.extend(read_at_a_time(_pieces(text, raw, delimiter, total_count, tail), read_count))
        followed.append(Following(found, size, encoding))
    return _follow(out, followed) if wait and followed else out


@dataclass
class Following:
    """A file Get-Content -Wait goes on reading: where it has read to, and a line begun but
    not yet ended."""

    path: Path
    at: int
    encoding: str | None
    partial: str = ""

    def new_lines(self) -> list[str]:
        """The lines written since the last look (a file that shrank is read again from its
        start, as after a log rotation that truncates it)."""
        size = self.path.stat().st_size
        if size < self.at:
            self.at, self.partial = 0, ""
        if size == self.at:
            return []
        with open(self.path, "rb") as f:
            f.seek(self.at)
            data = f.read(size - self.at)
        self.at += len(data)
        text = data.decode(codec_name(self.encoding), errors="replace")
        *lines, self.partial = (self.partial + text).split("\n")
        return [line.removesuffix("\r") for line in lines]


#: How often Get-Content -Wait looks at its files, in seconds (PowerShell: every second).
FOLLOW_EVERY = 0.25


async def _follow(first: list[Any], files: list[Following]) -> AsyncIterator[Any]:
    """The lines there were, then each new one as it is written, until the pipeline stops
    (Ctrl-C, or a Select-Object -First that has what it wanted)."""
    import asyncio

    for line in first:
        yield line
    while True:
        await asyncio.sleep(FOLLOW_EVERY)
        for f in files:
            try:
                lines = f.new_lines()
            except OSError:
                continue  # removed (rotated away) meanwhile: looked at again next time
            for line in lines:
                yield line


def _bytes(
    data: bytes, raw: bool, head: int | None, tail: int | None, count: int | None
) -> list[Any]:
    """Get-Content -AsByteStream: the bytes (-TotalCount and -Tail count bytes), one by one,
    -ReadCount at a time, or with -Raw as one byte array."""
    if head is not None and head >= 0:
        data = data[:head]
    if tail is not None and tail >= 0:
        data = data[len(data) - tail :] if tail else b""
    if raw:
        return [TypedArray(map(Byte, data), "Byte")]
    return read_at_a_time(list(map(Byte, data)), count)


def read_at_a_time(lines: list[Any], count: int | None) -> list[Any]:
    """A file's lines as -ReadCount sends them: one by one (1, the default), in arrays of
    ``count``, or all in one array (0 or less)."""
    if count is None or count == 1 or not lines:
        return list(lines)
    if count <= 0:
        return [lines]
    return [lines[i : i + count] for i in range(0, len(lines), count)]


def _pieces(
    text: str, raw: bool, delimiter: str | None, head: int | None, tail: int | None
) -> list[str]:
    if raw:
        return [text] if text else []
    if delimiter:
        parts = [p + delimiter for p in text.split(delimiter)]
        parts[-1] = parts[-1][: -len(delimiter)]
        lines = [p for p in parts if p]
    else:
        lines = split_lines(text)
    if head is not None and head >= 0:
        lines = lines[:head]
    if tail is not None and tail >= 0:
        lines = lines[len(lines) - tail :] if tail else []
    return lines


CONTENT_PARAMS = [
    Param("Path", "strings", position=0, aliases=("FullName",)),
    Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
    Param(
        "Value", "any", position=1, pipeline=BY_VALUE, help="What to write; arrays one per line."
    ),
    Param("NoNewline", bool, help="No newline after each value (values run together)."),
    Param("PassThru", bool, help="Also output what was written."),
    ENCODING_PARAM,
    Param("AsByteStream", bool, help="Write the values as bytes (numbers 0 to 255)."),
]


async def _write_content(
    ctx: Invocation,
    path: list[str] | None,
    literal: list[str] | None,
    value: Any,
    no_newline: bool,
    encoding: str | None,
    append: bool,
    as_bytes: bool = False,
) -> list[str]:
    if path is None and literal is None:
        raise ParameterError(
            ctx.name,
            "Path",
            "missing mandatory parameter -Path",
            error_id=errorids.MISSING_MANDATORY,
        )
    items = (
        await collect(ctx.input)
        if value is None and ctx.input is not None
        else ([] if value is None else value if isinstance(value, list) else [value])
    )
    texts = [to_string(v) for v in items]
    body: str | bytes = "".join(texts) if no_newline else "".join(t + "\n" for t in texts)
    if as_bytes:
        body = _as_bytes(ctx, items)
    for text, is_literal in [(p, False) for p in path or []] + [(p, True) for p in literal or []]:
        found = (
            expand(ctx.state, text, is_literal)
            if has_wildcard(text) and not is_literal
            else [ctx.state.resolve_path(text)]
        )
        action = "Add Content" if append else "Set Content"
        for target in found:
            if not ctx.should_process(f"Path: {target}", action):
                continue
            try:
                if isinstance(body, bytes):
                    with open(target, "ab" if append else "wb") as f:
                        f.write(body)
                else:
                    write_text(target, body, encoding, append)
            except OSError as exc:
                os_failure(ctx, target, exc)
    return texts


def _as_bytes(ctx: Invocation, items: list[Any]) -> bytes:
    """-AsByteStream: the values (arrays of them too) as bytes; one past 0..255 is .NET's
    conversion error."""
    flat = [v for item in items for v in (item if isinstance(item, list) else [item])]
    for v in flat:
        if not isinstance(v, int) or not 0 <= v <= 255:
            raise ctx.fail(
                f'Cannot convert value "{to_string(v)}" to type "System.Byte". Error: "Value '
                'was either too large or too small for an unsigned byte."'
            )
    return bytes(flat)


@cmdlet(
    "Set-Content",
    aliases=("sc",),
    synopsis="Write values to a file, replacing what it held (one value per line).",
    params=CONTENT_PARAMS,
    examples=[
        ("Set-Content nodes.txt -Value web01, web02", "Two lines."),
        ("'hello' | Set-Content greeting.txt", "From the pipeline."),
        ("Set-Content flag -Value 1 -NoNewline", "No trailing newline."),
    ],
    stream=True,
    should_process=True,
)
async def set_content(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    value: Any = None,
    no_newline: bool = False,
    pass_thru: bool = False,
    encoding: str | None = None,
    as_byte_stream: bool = False,
) -> list[str]:
    texts = await _write_content(
        ctx, path, literal_path, value, no_newline, encoding, False, as_byte_stream
    )
    return texts if pass_thru else []


@cmdlet(
    "Add-Content",
    aliases=("ac",),
    synopsis="Append values to a file (one value per line), creating it when missing.",
    params=CONTENT_PARAMS,
    examples=[
        (
            'Add-Content incident.log -Value "$(Get-Date -Format s) restarted web02"',
            "Append a timestamped line.",
        )
    ],
    stream=True,
    should_process=True,
)
async def add_content(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    value: Any = None,
    no_newline: bool = False,
    pass_thru: bool = False,
    encoding: str | None = None,
    as_byte_stream: bool = False,
) -> list[str]:
    texts = await _write_content(
        ctx, path, literal_path, value, no_newline, encoding, True, as_byte_stream
    )
    return texts if pass_thru else []


@cmdlet(
    "Clear-Content",
    aliases=("clc",),
    synopsis="Empty files, keeping the files themselves.",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
    ],
    examples=[("Clear-Content incident.log", "Start the log over.")],
    should_process=True,
)
def clear_content(
    ctx: Invocation, *, path: list[str] | None = None, literal_path: list[str] | None = None
) -> None:
    if not path and not literal_path:
        raise ctx.fail("give the -Path of the files to empty")
    for found in targets(ctx, path, literal_path):
        if found.is_dir():
            ctx.write_error(ErrorRecord(str(found), "", "is a directory, not a file"))
            continue
        if not ctx.should_process(f"Item: {found}", "Clear Content"):
            continue
        try:
            os.truncate(found, 0)
        except OSError as exc:
            os_failure(ctx, found, exc)


@cmdlet(
    "Out-File",
    synopsis="Write the output, as it would be shown, to a file.",
    params=[
        Param("FilePath", str, position=0, mandatory=True, aliases=("Path",), complete="files"),
        Param("Append", bool, help="Add to the end of the file."),
        Param("NoNewline", bool, help="No newline at the end; values run together."),
        Param("NoClobber", bool, help="Refuse to overwrite an existing file."),
        ENCODING_PARAM,
        Param("InputObject", "any", pipeline=BY_VALUE, help="What to write."),
    ],
    examples=[
        ("Get-Node | Out-File nodes.txt", "The node table as text."),
        ("Get-Date -Format s | Out-File -Append runs.log", "Append one line."),
    ],
    stream=True,
)
async def out_file(
    ctx: Invocation,
    *,
    file_path: str,
    append: bool = False,
    no_newline: bool = False,
    no_clobber: bool = False,
    encoding: str | None = None,
    input_object: Any = None,
) -> None:
    from fayshell.render import format_value, render_plain

    items = (
        await collect(ctx.input)
        if ctx.input is not None
        else ([] if input_object is None else [input_object])
    )
    if no_newline:
        text = "".join(format_value(v) for v in items)
    else:
        text = render_plain(items)
        text += "\n" if text else ""
    target = ctx.state.resolve_path(file_path)
    if no_clobber and not append and target.exists():
        raise CommandError("Out-File", f"{target}: the file exists and -NoClobber was given")
    try:
        write_text(target, text, encoding, append)
    except OSError as exc:
        raise CommandError("Out-File", f"{target}: {(exc.strerror or '').lower()}") from None


# ---- items ------------------------------------------------------------------------------------


@cmdlet(
    "New-Item",
    aliases=("ni",),
    synopsis="Create a file or a directory.",
    params=[
        Param("Path", "strings", position=0, help="Where to create it (default here)."),
        Param("Name", str, help="The name of the new item, inside -Path."),
        Param(
            "ItemType",
            str,
            choices=("File", "Directory"),
            aliases=("Type",),
            help="File (default) or Directory.",
        ),
        Param("Value", "any", pipeline=BY_VALUE, help="The new file's text."),
        Param(
            "Force",
            bool,
            help="Overwrite a file, or return an existing directory; "
            "missing parent directories are created.",
        ),
    ],
    examples=[
        ("New-Item -ItemType Directory traces/node01", "A directory (and its parents)."),
        ("New-Item notes.txt -Value 'first line'", "A file with text in it."),
    ],
    should_process=True,
)
def new_item(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    name: str | None = None,
    item_type: str = "File",
    value: Any = None,
    force: bool = False,
) -> list[FileItem | DriveItem]:
    if not path and not name:
        raise ParameterError(
            "New-Item",
            "Path",
            "missing mandatory parameter -Path or -Name",
            error_id=errorids.MISSING_MANDATORY,
        )
    on_drive, path = drives.split_drives(path)
    out: list[FileItem | DriveItem] = [
        made
        for where in on_drive
        if (made := _new_drive_item(ctx, where, name, value, force)) is not None
    ]
    for text in path or ([] if on_drive else ["."]):
        target = ctx.state.resolve_path(os.path.join(text, name) if name else text)
        if not ctx.should_process(f"Destination: {target}", f"Create {item_type}"):
            continue
        try:
            if item_type == "Directory":
                _new_directory(target, force)
            else:
                _new_file(target, value, force)
        except Refused as exc:
            ctx.write_error(ErrorRecord(str(target), "", str(exc)))
            continue
        except OSError as exc:
            os_failure(ctx, target, exc)
            continue
        out.append(file_item(target))
    return out


def _new_drive_item(
    ctx: Invocation, where: DrivePath, leaf: str | None, value: Any, force: bool
) -> DriveItem | None:
    """``New-Item env:NAME -Value v`` (or ``variable:NAME``): a new environment variable or
    shell variable (-Force replaces one)."""
    name = where.name + (leaf or "")
    if where.drive == "function":
        ctx.write_error(ErrorRecord(f"function:{name}", "", "define functions with 'function'"))
        return None
    if not name or "=" in name or "\0" in name:
        ctx.write_error(ErrorRecord(f"{where.drive}:{name}", "", "not a variable name"))
        return None
    exists = drives.entries(DrivePath(where.drive, name), ctx.state, literal=True)
    if exists and not force:
        ctx.write_error(
            ErrorRecord(f"{where.drive}:{name}", "", "the variable already exists (-Force)")
        )
        return None
    shown = "" if value is None else to_string(value)
    if not ctx.should_process(f"Item: {name} Value: {shown}", "New Item"):
        return None
    if where.drive == "env":
        os.environ[name] = shown
        return DriveItem(name, shown)
    ctx.state.scope_now.set(name, value)
    return DriveItem(name, value, "variable")


def _new_directory(target: Path, force: bool) -> None:
    if target.exists() and not force:
        raise Refused("an item with this name already exists (-Force returns it)")
    if target.exists() and not target.is_dir():
        raise Refused("a file with this name already exists")
    target.mkdir(parents=True, exist_ok=True)


def _new_file(target: Path, value: Any, force: bool) -> None:
    if target.exists() and not force:
        raise Refused("the file already exists (-Force overwrites it)")
    if target.is_dir():
        raise Refused("a directory with this name already exists")
    if force:
        target.parent.mkdir(parents=True, exist_ok=True)
    elif not target.parent.is_dir():
        raise Refused(f"the directory {str(target.parent)!r} does not exist (-Force creates it)")
    target.write_text("" if value is None else to_string(value), encoding="utf-8")


@cmdlet(
    "New-TemporaryFile",
    synopsis="Create an empty temporary file and return it.",
    description="The file is made in the system's temporary directory ($env:TMPDIR or /tmp) "
    "and is not deleted automatically.",
    examples=[
        ("$t = New-TemporaryFile; 'x' | Set-Content $t; Remove-Item $t", "Use a scratch file.")
    ],
)
def new_temporary_file(ctx: Invocation) -> FileItem:
    import tempfile

    handle, name = tempfile.mkstemp(suffix=".tmp")
    os.close(handle)
    return file_item(Path(name))


@cmdlet(
    "Remove-Item",
    aliases=("rm", "del", "erase", "rd", "rmdir", "ri"),
    synopsis="Delete files and directories (a directory with contents needs -Recurse).",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
        Param("Recurse", bool, help="Delete directories with everything in them."),
        Param(
            "Force",
            bool,
            help="Accepted for compatibility (hidden and read-only files are deleted anyway).",
        ),
    ],
    examples=[
        ("Remove-Item old.duckdb", "Delete a file."),
        ("Remove-Item traces -Recurse", "Delete a directory tree."),
        ("Remove-Item *.tmp", "Delete every match."),
    ],
    should_process=True,
)
def remove_item(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    recurse: bool = False,
    force: bool = False,
) -> None:
    if path is None and literal_path is None:
        raise ParameterError(
            "Remove-Item",
            "Path",
            "missing mandatory parameter -Path",
            error_id=errorids.MISSING_MANDATORY,
        )
    on_drive, path = drives.split_drives(path)
    for entry in drive_items(ctx, on_drive, listing=False):
        if ctx.should_process(f"Item: {entry.Name}", "Remove Item"):
            drives.remove(ctx.state, entry)
    for found in targets(ctx, path, literal_path):
        if not ctx.should_process(str(found), f"Remove {_kind(found)}"):
            continue
        try:
            _remove(found, recurse)
        except OSError as exc:
            os_failure(ctx, found, exc)
        except Refused as exc:
            ctx.write_error(ErrorRecord(str(found), "", str(exc)))


def _kind(path: Path) -> str:
    """PowerShell's word for an item in -WhatIf's sentences."""
    return "Directory" if path.is_dir() and not path.is_symlink() else "File"


def _remove(target: Path, recurse: bool) -> None:
    if target.is_dir() and not target.is_symlink():
        if any(target.iterdir()) and not recurse:
            raise Refused("the directory is not empty; add -Recurse to delete it with its contents")
        shutil.rmtree(target)
    else:
        target.unlink()


def _destination(ctx: Invocation, source: Path, destination: str) -> Path:
    dest = ctx.state.resolve_path(destination)
    return dest / source.name if dest.is_dir() else dest


@cmdlet(
    "Copy-Item",
    aliases=("cp", "copy", "cpi"),
    synopsis="Copy files, or directories with -Recurse.",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("Destination", str, position=1, mandatory=True, pipeline=BY_PROPERTY),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
        Param("Recurse", bool, help="Copy directories with their contents."),
        Param("Force", bool, help="Overwrite read-only files."),
        Param("PassThru", bool, help="Output the copies."),
    ],
    examples=[
        ("Copy-Item incident.duckdb backup.duckdb", "Copy a file."),
        ("Copy-Item traces /srv/keep -Recurse", "Copy a directory tree into /srv/keep."),
    ],
    should_process=True,
)
def copy_item(
    ctx: Invocation,
    *,
    destination: str,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    recurse: bool = False,
    force: bool = False,
    pass_thru: bool = False,
) -> list[FileItem]:
    out = []
    for found in targets(ctx, path, literal_path):
        dest = _destination(ctx, found, destination)
        if not ctx.should_process(f"Item: {found} Destination: {dest}", f"Copy {_kind(found)}"):
            continue
        try:
            if found.is_dir():
                if recurse:
                    shutil.copytree(found, dest, symlinks=True, dirs_exist_ok=True)
                else:
                    dest.mkdir(exist_ok=True)
            else:
                shutil.copy2(found, dest)
        except OSError as exc:
            os_failure(ctx, found, exc)
            continue
        if pass_thru:
            out.append(file_item(dest))
    return out


@cmdlet(
    "Move-Item",
    aliases=("mv", "move", "mi"),
    synopsis="Move or rename files and directories.",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("Destination", str, position=1, mandatory=True, pipeline=BY_PROPERTY),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
        Param("Force", bool, help="Replace an existing file at the destination."),
        Param("PassThru", bool, help="Output the moved items."),
    ],
    examples=[
        ("Move-Item run.duckdb incident-42.duckdb", "Rename a file."),
        ("Move-Item *.log archive", "Move every log into the archive directory."),
    ],
    should_process=True,
)
def move_item(
    ctx: Invocation,
    *,
    destination: str,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    force: bool = False,
    pass_thru: bool = False,
) -> list[FileItem]:
    out = []
    for found in targets(ctx, path, literal_path):
        dest = _destination(ctx, found, destination)
        if os.path.lexists(dest) and not force:
            ctx.write_error(
                ErrorRecord(str(found), "", f"{dest} already exists (-Force replaces it)")
            )
            continue
        if not ctx.should_process(f"Item: {found} Destination: {dest}", f"Move {_kind(found)}"):
            continue
        try:
            shutil.move(found, dest)
        except OSError as exc:
            os_failure(ctx, found, exc)
            continue
        if pass_thru:
            out.append(file_item(dest))
    return out


@cmdlet(
    "Rename-Item",
    aliases=("ren", "rni"),
    synopsis="Give a file or directory a new name in the same directory.",
    description="-NewName is a name, not a path: moving elsewhere is Move-Item's. An existing "
    "item of that name is never replaced.",
    params=[
        Param("Path", str, position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("NewName", str, position=1, mandatory=True, pipeline=BY_PROPERTY),
        Param("LiteralPath", str, aliases=("PSPath", "LP")),
        Param("Force", bool, help="Accepted for compatibility (nothing is hidden or read-only)."),
        Param("PassThru", bool, help="Output the renamed item."),
    ],
    examples=[("Rename-Item run.duckdb incident-42.duckdb", "Rename a file in place.")],
    should_process=True,
)
def rename_item(
    ctx: Invocation,
    *,
    new_name: str,
    path: str | None = None,
    literal_path: str | None = None,
    force: bool = False,
    pass_thru: bool = False,
) -> list[FileItem]:
    if path is None and literal_path is None:
        raise ctx.fail("give the -Path of the item to rename")
    found = list(targets(ctx, _listed(path), _listed(literal_path)))
    if len(found) > 1:
        raise ctx.fail(f"{path} names {len(found)} items; rename them one at a time")
    if not found:
        return []  # reported by targets()
    dest = _renamed(found[0], new_name)
    if dest is None:
        raise ctx.fail(
            f"cannot rename to {new_name!r}: -NewName is a name in the same directory "
            "(Move-Item moves elsewhere)"
        )
    if os.path.lexists(dest):
        raise ctx.fail(f"{dest} already exists")
    if not ctx.should_process(f"Item: {found[0]} Destination: {dest}", f"Rename {_kind(found[0])}"):
        return []
    try:
        found[0].rename(dest)
    except OSError as exc:
        raise ctx.fail(f"{found[0]}: {(exc.strerror or type(exc).__name__).lower()}") from None
    return [file_item(dest)] if pass_thru else []


def _listed(value: str | None) -> list[str] | None:
    return None if value is None else [value]


def _renamed(source: Path, new_name: str) -> Path | None:
    """``source`` named ``new_name`` (a name, or a path into the same directory); None when
    it names another directory or no name at all."""
    named = Path(new_name)
    if named.name in ("", ".", ".."):
        return None
    if named.parent != Path(".") and named.parent.resolve() != source.parent.resolve():
        return None
    return source.with_name(named.name)


@dataclass(frozen=True)
class FileHash:
    """Get-FileHash's answer: the algorithm, the digest in upper-case hex, the file."""

    Algorithm: str
    Hash: str
    Path: str


HASHES = {"SHA1": "sha1", "SHA256": "sha256", "SHA384": "sha384", "SHA512": "sha512", "MD5": "md5"}


@cmdlet(
    "Get-FileHash",
    synopsis="The digest of each file's contents (SHA256 unless -Algorithm says otherwise).",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
        Param("Algorithm", str, choices=tuple(HASHES), help="SHA1, SHA256, SHA384, SHA512, MD5."),
    ],
    examples=[
        ("Get-FileHash traces/*.duckdb", "SHA256 of each database file."),
        ("(Get-FileHash a.bin -Algorithm MD5).Hash", "The MD5 digest as text."),
    ],
)
def get_file_hash(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    algorithm: str = "SHA256",
) -> list[FileHash]:
    import hashlib

    if not path and not literal_path:
        raise ctx.fail("give the -Path of the files to hash")
    out = []
    for found in targets(ctx, path, literal_path):
        if found.is_dir():
            continue  # PowerShell hashes the files a wildcard names, not directories
        try:
            with open(found, "rb") as f:
                digest = hashlib.file_digest(f, HASHES[algorithm.upper()])
        except OSError as exc:
            os_failure(ctx, found, exc)
            continue
        out.append(FileHash(algorithm.upper(), digest.hexdigest().upper(), str(found)))
    return out


@cmdlet(
    "Get-Item",
    aliases=("gi",),
    synopsis="The file or directory at a path (not its contents).",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
    ],
    examples=[("(Get-Item incident.duckdb).Length", "The size of a file in bytes.")],
)
def get_item(
    ctx: Invocation, *, path: list[str] | None = None, literal_path: list[str] | None = None
) -> list[FileItem | DriveItem]:
    return _items(ctx, "Get-Item", path, literal_path)  # -Path is mandatory, as PowerShell's


@cmdlet(
    "Get-ItemProperty",
    aliases=("gp",),
    synopsis="An item's properties (a file's Length, LastWriteTime ...), all of them or the "
    "ones -Name names, as one object per item.",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("Name", "strings", position=1, aliases=("PSProperty",), help="The properties."),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
    ],
    examples=[
        ("Get-ItemProperty ./trace.log -Name Length, LastWriteTime", "Two of its properties."),
    ],
)
def get_item_property(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    name: list[str] | None = None,
    literal_path: list[str] | None = None,
) -> list[Any]:
    from fayshell.lang.values import PSCustomObject

    out: list[Any] = []
    for item in _items(ctx, "Get-ItemProperty", path, literal_path):
        names = all_property_names(item) if not name else [_property_of(ctx, item, n) for n in name]
        out.append(PSCustomObject({n: get_property(item, n) for n in names}))
    return out


@cmdlet(
    "Get-ItemPropertyValue",
    aliases=("gpv",),
    synopsis="The values of an item's properties (a file's Length ...), each as it is.",
    params=[
        Param("Path", "strings", position=0, pipeline=PATH_PIPE, aliases=("FullName",)),
        Param("Name", "strings", position=1, mandatory=True, help="The properties."),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
    ],
    examples=[("Get-ItemPropertyValue ./trace.log -Name Length", "Its size in bytes.")],
)
def get_item_property_value(
    ctx: Invocation,
    *,
    name: list[str],
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
) -> list[Any]:
    items = _items(ctx, "Get-ItemPropertyValue", path, literal_path)
    return [get_property(item, _property_of(ctx, item, n)) for item in items for n in name]


def _items(
    ctx: Invocation, command: str, path: list[str] | None, literal_path: list[str] | None
) -> list[Any]:
    """The file system items (and drive items) a Path or LiteralPath names."""
    if not path and not literal_path:
        raise ParameterError(
            command,
            "Path",
            "missing mandatory parameter -Path",
            error_id=errorids.MISSING_MANDATORY,
        )
    on_drive, files = drives.split_drives(path)
    return drive_items(ctx, on_drive, listing=False) + [
        file_item(p) for p in targets(ctx, files or [], literal_path)
    ]


def _property_of(ctx: Invocation, item: Any, name: str) -> str:
    """``name`` as the item's property is spelled; PowerShell's error when it has none."""
    for known in property_names(item):
        if known.lower() == name.lower():
            return known
    other = attribute_named(item, name)  # one not shown by default (a file's Extension)
    if other is not None:
        return other
    raise CommandError(
        ctx.name,
        f"Property {name} does not exist at path {getattr(item, 'FullName', item)}.",
    )


@cmdlet(
    "Set-Item",
    aliases=("si",),
    synopsis="Set an item of the env:, variable: or function: drive (made if it is not there).",
    params=[
        Param("Path", "strings", position=0, mandatory=True, pipeline=PATH_PIPE),
        Param("Value", "any", position=1, help="The new value (a script block for function:)."),
        Param("PassThru", bool, help="Output the item."),
    ],
    examples=[
        ("Set-Item env:TZ UTC", "The same as $env:TZ = 'UTC'."),
        ("Set-Item function:top5 { Get-Syscall | Select-Object -First 5 }", "A function."),
    ],
    should_process=True,
)
def set_item(
    ctx: Invocation, *, path: list[str], value: Any = None, pass_thru: bool = False
) -> list[DriveItem]:
    on_drive, files = drives.split_drives(path)
    if files:
        raise ctx.fail(f"cannot set '{files[0]}': files have contents (Set-Content), not a value")
    out = []
    for where in on_drive:
        if not where.name or has_wildcard(where.name):
            raise ctx.fail(f"give one item to set, not '{where}'")
        if not ctx.should_process(f"Item: {where.name} Value: {to_string(value)}", "Set Item"):
            continue
        out.append(_set_drive_item(ctx, where, value))
    return out if pass_thru else []


def _set_drive_item(ctx: Invocation, where: DrivePath, value: Any) -> DriveItem:
    if where.drive == "env":
        os.environ[where.name] = "" if value is None else to_string(value)
    elif where.drive == "variable":
        ctx.state.scope_now.set(where.name, value)
    elif isinstance(value, ScriptBlock) and ctx.state.interpreter is not None:
        ctx.state.interpreter.define_function(where.name, value)
    else:
        raise ctx.fail(f"function:{where.name}: the value must be a script block {{ ... }}")
    return drives.entries(where, ctx.state, literal=True)[0]


def drive_items(ctx: Invocation, paths: list[DrivePath], listing: bool) -> list[DriveItem]:
    """The items ``paths`` name on the env:, variable: and function: drives; a name without a
    wildcard that is not there is PowerShell's "cannot find path" error (a listing of a
    drive is every item)."""
    out: list[DriveItem] = []
    for where in paths:
        found = drives.entries(where, ctx.state)
        if not found and (where.name or not listing) and not has_wildcard(where.name):
            missing(ctx, str(where))
        out += found
    return out


# ---- Get-ChildItem ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Listing:
    """What Get-ChildItem keeps: the filters, applied to names."""

    filter: str | None
    include: list[str]
    exclude: list[str]
    files: bool
    directories: bool
    force: bool

    def shows(self, entry: Path) -> bool:
        name = entry.name
        if not self.force and name.startswith("."):
            return False
        if self.filter and not wildcard_match(name, self.filter):
            return False
        if self.include and not any(wildcard_match(name, p) for p in self.include):
            return False
        if any(wildcard_match(name, p) for p in self.exclude):
            return False
        is_dir = entry.is_dir()
        return not (self.files and is_dir) and not (self.directories and not is_dir)


def _children(directory: Path, force: bool) -> list[Path]:
    """Directories first, then files, each by name, as PowerShell lists them."""
    try:
        entries = list(directory.iterdir())
    except OSError:
        return []
    entries = [e for e in entries if force or not e.name.startswith(".")]
    return sorted(entries, key=lambda e: (not e.is_dir(), e.name))


def _walk(directory: Path, listing: Listing, depth: int | None) -> Iterator[Path]:
    children = _children(directory, listing.force)
    yield from (c for c in children if listing.shows(c))
    if depth is not None and depth <= 0:
        return
    for child in children:
        if child.is_dir() and not child.is_symlink():
            yield from _walk(child, listing, None if depth is None else depth - 1)


@cmdlet(
    "Get-ChildItem",
    aliases=("ls", "dir", "gci"),
    synopsis="The files and directories in a directory (or its whole tree with -Recurse).",
    params=[
        Param(
            "Path",
            "strings",
            position=0,
            pipeline=PATH_PIPE,
            aliases=("FullName",),
            help="Directories or files to list, wildcards allowed (default here).",
        ),
        Param("Filter", str, position=1, help="A wildcard the names must match."),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP")),
        Param("Include", "strings", help="Only names matching one of these wildcards."),
        Param("Exclude", "strings", help="Leave out names matching these wildcards."),
        Param("Recurse", bool, aliases=("s",), help="Everything below, too."),
        Param("Depth", int, help="How many levels below to go (implies -Recurse)."),
        Param("File", bool, help="Only files."),
        Param("Directory", bool, aliases=("ad",), help="Only directories."),
        Param("Force", bool, help="Include hidden (dot) files."),
        Param("Name", bool, help="Only the names (relative paths with -Recurse)."),
    ],
    description="Records with Mode, LastWriteTime, Length and Name shown, and FullName, "
    "Extension, BaseName, DirectoryName, PSIsContainer, UnixMode one property away.",
    examples=[
        ("Get-ChildItem", "What is here."),
        ("ls traces -Recurse -Filter *.idx", "Every index file below traces."),
        (
            "Get-ChildItem -File | Sort-Object Length -Descending | Select-Object -First 5",
            "The five biggest files here.",
        ),
        ("dir -Directory -Name", "Only the names of the directories."),
        ("Get-ChildItem env:LC_*", "Environment variables (the env: drive), by name."),
    ],
)
def get_child_item(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    filter: str | None = None,
    literal_path: list[str] | None = None,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    recurse: bool = False,
    depth: int | None = None,
    file: bool = False,
    directory: bool = False,
    force: bool = False,
    name: bool = False,
) -> list[Any]:
    on_drive, path = drives.split_drives(path)
    out: list[Any] = [e.Name if name else e for e in drive_items(ctx, on_drive, listing=True)]
    listing = Listing(filter, include or [], exclude or [], file, directory, force)
    walk_depth = depth if depth is not None else (None if recurse else 0)
    paths = path or ([] if literal_path or on_drive else ["."])
    if walk_depth != 0 and paths and not literal_path:
        paths, listing = _recursive_leaf_pattern(paths, listing)
    for root in targets(ctx, paths, literal_path):
        if not root.is_dir():
            if listing.shows(root) or root.name.startswith("."):
                out.append(root.name if name else file_item(root))
            continue
        for entry in _walk(root, listing, walk_depth):
            out.append(str(entry.relative_to(root)) if name else file_item(entry))
    return out


def _recursive_leaf_pattern(paths: list[str], listing: Listing) -> tuple[list[str], Listing]:
    """With -Recurse, ``*.log`` means "every .log below here", as in PowerShell: a wildcard in
    the last element becomes a name filter on the walk from its parent."""
    parents, patterns = [], []
    for text in paths:
        parent, _, leaf = text.replace("\\", "/").rpartition("/")
        if not has_wildcard(leaf) or has_wildcard(parent):
            return paths, listing
        parents.append(parent or ".")
        patterns.append(leaf)
    return parents, dataclasses.replace(listing, include=listing.include + patterns)
