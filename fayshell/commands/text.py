"""Text cmdlets: Join-String, Select-String (with its MatchInfo results) and Format-Hex."""

from __future__ import annotations

import builtins
import os
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.commands.encodings import ENCODING_PARAM, codec_name, read_text
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.objects import value_text
from fayshell.commands.props import evaluate, parse_props
from fayshell.commands.registry import BY_VALUE, Param, cmdlet
from fayshell.errors import CommandError, ParameterError
from fayshell.lang.ops import to_number, to_string
from fayshell.lang.streams import aiter_items, collect

if TYPE_CHECKING:
    from fayshell.commands.hexdump import ByteCollection

FORMAT_ITEM = re.compile(r"\{\{|\}\}|\{(\d+)(?:,(-?\d+))?(?::([^}]*))?\}")
NAMED_GROUP = re.compile(r"\(\?<([A-Za-z_]\w*)>")


# ---- a small .NET composite format, for -FormatString ------------------------------------


def dotnet_format(fmt: str, *args: Any) -> str:
    """``'{0:N2}'``, ``'{0,-8}'``, ``'[{0}]'``: .NET composite formatting for one value list."""

    def item(m: re.Match[str]) -> str:
        if m.group(0) in ("{{", "}}"):
            return m.group(0)[0]
        index = int(m.group(1))
        if index >= len(args):
            raise ParameterError(
                "Join-String", "FormatString", f"{{{index}}} refers past the {len(args)} value(s)"
            )
        text = _format_one(args[index], m.group(3) or "")
        width = int(m.group(2) or 0)
        return text.rjust(width) if width > 0 else text.ljust(-width)

    return FORMAT_ITEM.sub(item, fmt)


def _format_one(value: Any, spec: str) -> str:
    if not spec:
        return to_string(value)
    kind, digits = spec[0].upper(), spec[1:]
    if kind not in "NFDXPE" or (digits and not digits.isdigit()):
        return to_string(value)
    n = to_number(value)
    places = int(digits) if digits else (0 if kind in "DX" else 2)
    if kind == "N":
        return f"{n:,.{places}f}"
    if kind == "F":
        return f"{n:.{places}f}"
    if kind == "D":
        return f"{int(n):0{places}d}"
    if kind == "X":
        text = f"{int(n):0{places}x}"
        return text.upper() if spec[0] == "X" else text
    if kind == "P":
        return f"{n * 100:,.{places}f} %"
    return f"{n:.{places if digits else 6}E}"


# ---- Join-String ---------------------------------------------------------------------------


@cmdlet(
    "Join-String",
    synopsis="Join the pipeline's objects (or one property of each) into one string.",
    params=[
        Param(
            "Property",
            "any",
            position=0,
            help="A property name or script block to join instead of the objects.",
        ),
        Param(
            "Separator",
            str,
            position=1,
            help="Put between the items (default: $OFS, or nothing when it is not set).",
        ),
        Param("OutputPrefix", str, default="", aliases=("op",), help="Put before the result."),
        Param("OutputSuffix", str, default="", aliases=("os",), help="Put after the result."),
        Param("SingleQuote", bool, help="Wrap each item in '...'."),
        Param("DoubleQuote", bool, help='Wrap each item in "...".'),
        Param("FormatString", str, help="Format each item, e.g. '{0:N2}' or '[{0}]'."),
        Param("UseCulture", bool, help="Accepted for compatibility."),
        Param("InputObject", "any", pipeline=BY_VALUE),
    ],
    examples=[
        ("1..3 | Join-String -Separator ', '", "'1, 2, 3'."),
        ("Get-Node | Join-String name -Separator ',' -SingleQuote", "'web01','web02' ..."),
        ("1.5, 2 | Join-String -FormatString '{0:N2}' -Separator ' '", "'1.50 2.00'."),
    ],
    stream=True,
)
async def join_string(
    ctx: Invocation,
    *,
    property: Any = None,
    separator: str | None = None,
    output_prefix: str = "",
    output_suffix: str = "",
    single_quote: bool = False,
    double_quote: bool = False,
    format_string: str | None = None,
    use_culture: bool = False,
    input_object: Any = None,
) -> list[str]:
    specs = parse_props("Join-String", [property] if property is not None else None)
    if separator is None:
        separator = to_string(ctx.state.globals.lookup("OFS")[1])
    parts = []
    async for item in aiter_items(ctx.input if ctx.input is not None else input_object):
        if item is None:
            continue
        value = await evaluate(item, specs[0]) if specs else item
        text = dotnet_format(format_string, value) if format_string else to_string(value)
        if single_quote:
            text = "'" + text + "'"
        elif double_quote:
            text = '"' + text + '"'
        parts.append(text)
    return [output_prefix + separator.join(parts) + output_suffix]


# ---- Select-String -------------------------------------------------------------------------


class RegexMatch:
    """One match, with the properties of .NET's Match (Value, Index, Length, Groups)."""

    MEMBERS = ("Value", "Index", "Length", "Groups", "Success")
    TYPE_NAME = "System.Text.RegularExpressions.Match"

    def __init__(self, m: re.Match[str] | None, value: str = "", index: int = 0) -> None:
        self.Value = m.group(0) if m else value
        self.Index = m.start() if m else index
        self.Length = len(self.Value)
        self.Success = True
        self.Groups = (
            [
                GroupValue(str(i), m.group(i) or "", m.start(i))
                for i in range((m.re.groups if m else 0) + 1)
            ]
            if m
            else [GroupValue("0", value, index)]
        )
        if m:
            for name, num in m.re.groupindex.items():
                self.Groups[num].Name = name

    def __str__(self) -> str:
        return self.Value

    __repr__ = __str__


class GroupValue:
    """One capture group: Name, Value, Index."""

    MEMBERS = ("Name", "Value", "Index", "Length", "Success")
    TYPE_NAME = "System.Text.RegularExpressions.Group"

    def __init__(self, name: str, value: str, index: int) -> None:
        self.Name, self.Value, self.Index = name, value, index
        self.Length, self.Success = len(value), index >= 0

    def __str__(self) -> str:
        return self.Value

    __repr__ = __str__


class MatchInfo:
    """A line Select-String found; shows as the line (with ``path:number:`` for files)."""

    MEMBERS = (
        "IgnoreCase",
        "LineNumber",
        "Line",
        "Filename",
        "Path",
        "Pattern",
        "Context",
        "Matches",
    )
    TYPE_NAME = "Microsoft.PowerShell.Commands.MatchInfo"

    def __init__(
        self,
        line: str,
        number: int,
        path: str,
        pattern: str,
        ignore_case: bool,
        matches: list[RegexMatch],
    ) -> None:
        self.Line, self.LineNumber, self.Path, self.Pattern = line, number, path, pattern
        self.IgnoreCase, self.Matches = ignore_case, matches
        self.Filename = Path(path).name if path != "InputStream" else "InputStream"
        self.Context: Context | None = None
        self.base = os.getcwd()  # the shell's location, set by Select-String

    def _prefix(self, number: int) -> str:
        """``path:n:`` for a file, the path relative to the current directory when under it."""
        if self.Path == "InputStream":
            return ""
        cwd = self.base
        shown = os.path.relpath(self.Path, cwd) if self.Path.startswith(cwd + os.sep) else self.Path
        return f"{shown}:{number}:"

    def __str__(self) -> str:
        if self.Context is None:
            return self._prefix(self.LineNumber) + self.Line
        pre, post = self.Context.PreContext, self.Context.PostContext
        first = self.LineNumber - len(pre)
        lines = [f"  {self._prefix(first + i)}{t}" for i, t in enumerate(pre)]
        lines.append(f"> {self._prefix(self.LineNumber)}{self.Line}")
        lines += [f"  {self._prefix(self.LineNumber + 1 + i)}{t}" for i, t in enumerate(post)]
        return "\n".join(lines)

    __repr__ = __str__


class Context:
    """The lines around a match (-Context)."""

    MEMBERS = ("PreContext", "PostContext")

    def __init__(self, pre: list[str], post: list[str]) -> None:
        self.PreContext, self.PostContext = pre, post

    def __str__(self) -> str:
        return ""


def dotnet_regex(pattern: str) -> str:
    """.NET regex syntax Python spells differently: named groups ``(?<name>…)``."""
    return NAMED_GROUP.sub(r"(?P<\1>", pattern)


def _compile(patterns: list[str], simple: bool, case: bool) -> list[re.Pattern[str]]:
    flags = 0 if case else re.IGNORECASE
    out = []
    for p in patterns:
        try:
            out.append(re.compile(re.escape(p) if simple else dotnet_regex(p), flags))
        except re.error as exc:
            raise ParameterError(
                "Select-String", "Pattern", f"invalid regular expression {p!r}: {exc}"
            ) from None
    return out


@cmdlet(
    "Select-String",
    aliases=("sls",),
    synopsis="Find lines matching a regular expression in strings or files (like grep).",
    description="Outputs MatchInfo objects (Line, LineNumber, Matches, Path, Filename, "
    "Pattern, Context) that show as the matching line, prefixed with "
    "path:number: for files. Non-string input is matched as its string form.",
    params=[
        Param(
            "Pattern",
            "strings",
            position=0,
            mandatory=True,
            help="Regular expressions (or text with -SimpleMatch); a line matching any is kept.",
        ),
        Param(
            "Path",
            "strings",
            position=1,
            aliases=("LiteralPath",),
            complete="files",
            help="Files to search (wildcards allowed).",
        ),
        ENCODING_PARAM,
        Param("SimpleMatch", bool, help="Match the pattern literally."),
        Param("CaseSensitive", bool),
        Param("NotMatch", bool, help="Keep the lines that do not match."),
        Param("AllMatches", bool, help="Record every match of the line in Matches."),
        Param("Context", "ints", help="Lines to keep before and after: 2 or 1,3."),
        Param("Quiet", bool, help="Only $true or $false: did anything match."),
        Param("Raw", bool, help="Output the matching lines as plain strings."),
        Param("List", bool, help="Only the first match of each input file."),
        Param("InputObject", "any", pipeline=BY_VALUE),
    ],
    examples=[
        ("Get-Content app.log | Select-String 'error|fail'", "Lines with error or fail."),
        (
            "Select-String -Path *.log -Pattern timeout -Context 1",
            "Matches in files, one line around each.",
        ),
        (
            "'a1b22' | Select-String '\\d+' -AllMatches | % { $_.Matches.Value }",
            "Every number: 1 and 22.",
        ),
    ],
    stream=True,
)
async def select_string(
    ctx: Invocation,
    *,
    pattern: list[str],
    path: list[str] | None = None,
    simple_match: bool = False,
    case_sensitive: bool = False,
    not_match: bool = False,
    all_matches: bool = False,
    context: list[int] | None = None,
    quiet: bool = False,
    raw: bool = False,
    list: bool = False,
    encoding: str | None = None,
    input_object: Any = None,
) -> Any:
    regexes = _compile(pattern, simple_match, case_sensitive)
    before, after = _context(context)
    sources = (
        _file_sources(ctx, path, encoding)
        if path
        else await _input_sources(
            ctx, ctx.input if ctx.input is not None else input_object, encoding
        )
    )
    found: builtins.list[MatchInfo] = []
    for name, lines in sources:
        for info in _scan(
            lines, name, regexes, pattern, not_match, all_matches, before, after, case_sensitive
        ):
            info.base = ctx.state.location
            found.append(info)
            if list:
                break
    if quiet:
        return [bool(found)]
    return [f.Line for f in found] if raw else found


def _context(context: list[int] | None) -> tuple[int, int]:
    if not context:
        return 0, 0
    if len(context) > 2 or any(c < 0 for c in context):
        raise ParameterError("Select-String", "Context", "give one or two counts >= 0")
    return context[0], context[-1]


async def _input_sources(
    ctx: Invocation, source: Any, encoding: str | None
) -> list[tuple[str, list[str]]]:
    """Piped input: files (Get-ChildItem's items, as PowerShell binds them to -Path: their
    lines are searched; folders have none), then the other items as lines of text."""
    items = await collect(source)
    files = [i.FullName for i in items if _is_file_item(i)]
    texts = [i if isinstance(i, str) else value_text(i) for i in items if not _is_item(i)]
    out = _file_sources(ctx, files, encoding, literal=True) if files else []
    return out + [("InputStream", texts)] if texts or not out else out


def _is_item(value: Any) -> bool:
    """A file or folder of Get-ChildItem or Get-Item."""
    return isinstance(getattr(value, "PSIsContainer", None), bool) and hasattr(value, "FullName")


def _is_file_item(value: Any) -> bool:
    return _is_item(value) and not value.PSIsContainer


def _file_sources(
    ctx: Invocation, paths: list[str], encoding: str | None, literal: bool = False
) -> list[tuple[str, list[str]]]:
    import glob

    out = []
    for pattern in paths:
        full = str(ctx.state.resolve_path(pattern))  # relative to the shell's location
        names = [full] if literal else sorted(glob.glob(full)) or [full]
        for name in names:
            try:
                text = read_text(Path(name), encoding)
                out.append((os.path.abspath(name), text.splitlines()))
            except OSError as exc:
                ctx.write_error(ErrorRecord(name, "read", exc.strerror or str(exc)))
    if not out and ctx.errors:
        raise CommandError("Select-String", f"cannot read {paths[0]!r}")
    return out


def _scan(
    lines: list[str],
    name: str,
    regexes: list[re.Pattern[str]],
    patterns: list[str],
    not_match: bool,
    all_matches: bool,
    before: int,
    after: int,
    case: bool,
) -> list[MatchInfo]:
    out = []
    for i, line in enumerate(lines):
        hit = next(((r, p) for r, p in zip(regexes, patterns, strict=True) if r.search(line)), None)
        if (hit is None) != not_match:
            continue
        matches: list[RegexMatch] = []
        if hit is not None:
            ms = list(hit[0].finditer(line)) if all_matches else [hit[0].search(line)]
            matches = [RegexMatch(m) for m in ms if m is not None]
        info = MatchInfo(line, i + 1, name, hit[1] if hit else patterns[0], not case, matches)
        if before or after:
            info.Context = Context(lines[max(0, i - before) : i], lines[i + 1 : i + 1 + after])
        out.append(info)
    return out


# ---- Format-Hex -----------------------------------------------------------------------------


@cmdlet(
    "Format-Hex",
    aliases=("fhx",),
    synopsis="Show a file's bytes, or a value's, as hexadecimal and text (16 bytes a line).",
    description="Outputs ByteCollection objects, one per line (Offset64, HexOffset, Bytes, "
    "HexBytes, Ascii, Label, Path), shown under the label of what they are from. With "
    "-Offset the lines give the offset in the file: look at the bytes where a decoder error "
    "says a trace is damaged. Adjacent numbers of one type are laid out together (.NET's "
    "little-endian layout); strings in -Encoding (UTF-8 by default).",
    params=[
        Param("Path", "strings", position=0, complete="files", help="Files (wildcards allowed)."),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP"), help="Files, as written."),
        Param("InputObject", "any", pipeline=BY_VALUE, help="Strings, numbers or files."),
        ENCODING_PARAM,
        Param("Count", int, help="Bytes to show (all by default)."),
        Param("Offset", int, help="Bytes to skip first."),
        Param("Raw", bool, help="Accepted; does nothing (as in PowerShell 7)."),
    ],
    examples=[
        ("Format-Hex trace/metadata -Count 64", "The first 64 bytes of a file."),
        (
            "Format-Hex trace/channel0_0 -Offset 4096 -Count 32",
            "The 32 bytes at offset 4096, where an error said a packet is damaged.",
        ),
        ("'Hello World' | Format-Hex", "A string's UTF-8 bytes."),
    ],
    stream=True,
)
async def format_hex(
    ctx: Invocation,
    *,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    input_object: Any = None,
    encoding: str | None = None,
    count: int | None = None,
    offset: int | None = None,
    raw: bool = False,
) -> AsyncIterator[ByteCollection]:
    from fayshell.commands.files import targets

    window = _window(offset, count)
    if path is not None or literal_path is not None:
        for found in targets(ctx, path, literal_path):  # a missing one is reported there
            if found.is_dir():
                ctx.write_error(ErrorRecord(str(found), "", "is a directory, not a file"))
                continue
            for line in _file_lines(ctx, found, window):
                yield line
        return
    source = ctx.input if ctx.input is not None else [input_object]
    async for line in _value_lines(ctx, source, encoding, window):
        yield line


def _window(offset: int | None, count: int | None) -> tuple[int, int | None]:
    """-Offset and -Count as the bytes to skip and to show (None: all)."""
    for name, value in (("Offset", offset), ("Count", count)):
        if value is not None and value < 0:
            raise ParameterError("Format-Hex", name, f"must be 0 or more, not {value}")
    return offset or 0, count


def _file_lines(ctx: Invocation, path: Path, window: tuple[int, int | None]) -> Iterator[Any]:
    """A file's lines in the window, read a block at a time (Format-Hex of a whole trace file
    piped to Select-Object -First reads only its first block)."""
    from fayshell.commands.files import os_failure
    from fayshell.commands.hexdump import lines

    at, left = window
    full = os.path.abspath(path)
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below, after the lines it gives
    except OSError as exc:
        os_failure(ctx, path, exc)
        return
    with f:
        f.seek(at)
        while left is None or left > 0:
            data = f.read(HEX_BLOCK if left is None else min(HEX_BLOCK, left))
            if not data:
                return
            yield from lines(data, at, full, full)
            at += len(data)
            left = None if left is None else left - len(data)


#: Bytes Format-Hex reads from a file at a time (whole lines of 16).
HEX_BLOCK = 1 << 16


async def _value_lines(
    ctx: Invocation, source: Any, encoding: str | None, window: tuple[int, int | None]
) -> AsyncIterator[Any]:
    """The lines of piped values: a string's encoded bytes, a file's bytes, and each run of
    adjacent numbers (or booleans) of one type laid out together."""
    from fayshell.commands.hexdump import value_kind

    run: list[Any] = []
    async for item in aiter_items(source):
        kind = value_kind(item) if isinstance(item, (bool, int, float)) else ""
        if run and kind != value_kind(run[0]):
            for line in _number_lines(run, window):
                yield line
            run = []
        if kind:
            run.append(item)
        elif _is_file_item(item):
            for line in _file_lines(ctx, Path(item.FullName), window):
                yield line
        elif item is not None:
            for line in _string_lines(to_string(item), encoding, window):
                yield line
    for line in _number_lines(run, window):
        yield line


def _labelled(data: bytes, kind: str, window: tuple[int, int | None]) -> list[Any]:
    """The lines of a value's bytes, labelled with its type (and a hash of its bytes, where
    PowerShell shows the object's hash code)."""
    import zlib

    from fayshell.commands.hexdump import lines

    start, count = window
    shown = data[start:] if count is None else data[start : start + count]
    return list(lines(shown, start, f"{kind} (System.{kind}) <{zlib.crc32(data):08X}>"))


def _number_lines(run: list[Any], window: tuple[int, int | None]) -> list[Any]:
    from fayshell.commands.hexdump import value_bytes, value_kind

    if not run:
        return []
    kind = value_kind(run[0])
    return _labelled(value_bytes(run, kind), kind, window)


def _string_lines(text: str, encoding: str | None, window: tuple[int, int | None]) -> list[Any]:
    data = text.encode(codec_name(encoding), errors="replace")
    return _labelled(data, "String", window)
