""".NET conventions PowerShell users type: composite format strings (``-f``), regex syntax,
``[math]::`` and other static members, type names. Pure functions over plain Python values."""

from __future__ import annotations

import copy
import datetime as dt
import functools
import math
import os
import posixpath
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from types import ModuleType
from typing import Any

from fayshell.lang import integers
from fayshell.records import all_properties


class DotNetError(Exception):
    """Bad format string, regex or static member; the evaluator adds the location."""


# ---- numbers as text --------------------------------------------------------------------------


def format_double(value: float, digits: int = 15) -> str:
    """A double the way PowerShell prints it: 15 significant digits (a Single's 7), no
    trailing zeros."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    text = f"{value:.{digits}g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        return f"{mantissa}E{sign}{exp.lstrip('+-').zfill(2)}"
    return text


def _round_half_up(value: float, digits: int) -> Decimal:
    """.NET rounds the exact binary value half away from zero (0.125 -> 0.13, 2.675 -> 2.67)."""
    from decimal import ROUND_HALF_UP, Decimal

    return Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def _grouped(value: float, digits: int) -> str:
    d = _round_half_up(value, digits)
    return f"{d:,.{digits}f}"


def _standard(value: Any, spec: str) -> str | None:
    """One standard numeric format (``N2``, ``D5``, ``X``, ``P1``, ``F``, ``E``, ``C``, ``G``)."""
    m = re.fullmatch(r"([NnDdXxPpFfEeCcGgRr])(\d{0,2})", spec)
    if not m:
        return None
    kind, digits_text = m.group(1), m.group(2)
    digits = int(digits_text) if digits_text else None
    up = kind.upper()
    if up in "DX":
        if isinstance(value, float) and not value.is_integer():
            raise DotNetError(f"format '{spec}' needs an integer, got {value}")
        n = int(value)
        if up == "D":
            body = str(abs(n)).zfill(digits or 0)
            return ("-" if n < 0 else "") + body
        bits = integers.kind_of(value).bits if isinstance(value, int) else 32  # -1L: 16 F's
        text = format(n & ((1 << bits) - 1), "X" if kind == "X" else "x")
        return text.zfill(digits or 0)
    x = float(value)
    if up == "N":
        return _grouped(x, 2 if digits is None else digits)
    if up == "F":
        return f"{_round_half_up(x, 2 if digits is None else digits):f}"
    if up == "P":
        return _grouped(x * 100, 2 if digits is None else digits) + "%"
    if up == "C":
        text = _grouped(abs(x), 2 if digits is None else digits)
        return ("-$" if x < 0 else "$") + text
    if up == "E":
        text = f"{x:.{6 if digits is None else digits}{kind}}"
        mantissa, exp = text.split(kind)
        return f"{mantissa}{kind}{exp[0]}{exp[1:].zfill(3)}"
    if up in "GR":
        if digits is None or up == "R":
            whole = isinstance(value, int) and not isinstance(value, bool)
            return str(value) if whole else format_double(x)
        text = format_double(x, max(digits, 1))  # G3 of 12345: 1.23E+04, as .NET writes it
        return text if kind == "G" else text.replace("E", "e")
    return None


def _custom_number(value: Any, spec: str) -> str:
    """Custom numeric formats: ``0.00``, ``#,##0.0``, ``000``, ``#.##``, ``0%``."""
    x = float(value)
    if "%" in spec:
        x *= 100
    body = spec.replace("%", "")
    int_part, _, frac_part = body.partition(".")
    min_frac = frac_part.count("0")
    max_frac = min_frac + frac_part.count("#")
    rounded = _round_half_up(x, max_frac)
    text = f"{abs(rounded):.{max_frac}f}"
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0").ljust(min_frac, "0") if max_frac > min_frac else frac
    whole = whole.zfill(int_part.count("0"))
    if whole == "0" and "0" not in int_part:
        whole = ""
    if "," in int_part:
        whole = f"{int(whole or 0):,}" if whole else ""
    out = whole + ("." + frac if frac else "")
    prefix = "-" if rounded < 0 else ""
    return prefix + (out or "0") + ("%" if "%" in spec else "")


DATE_TOKENS = (
    ("yyyy", "%Y"),
    ("yy", "%y"),
    ("MMMM", "%B"),
    ("MMM", "%b"),
    ("MM", "%m"),
    ("dddd", "%A"),
    ("ddd", "%a"),
    ("dd", "%d"),
    ("HH", "%H"),
    ("hh", "%I"),
    ("mm", "%M"),
    ("ss", "%S"),
    ("tt", "%p"),
    ("M", "%-m"),
    ("d", "%-d"),
    ("H", "%-H"),
    ("h", "%-I"),
    ("m", "%-M"),
    ("s", "%-S"),
)


def format_date(value: dt.datetime, spec: str) -> str:
    """.NET custom date format (``yyyy-MM-dd HH:mm:ss.fff``) via strftime."""
    standard = {
        "d": "%m/%d/%Y",
        "D": "%A, %B %d, %Y",
        "t": "%H:%M",
        "T": "%H:%M:%S",
        "s": "%Y-%m-%dT%H:%M:%S",
        "u": "%Y-%m-%d %H:%M:%SZ",
        "o": "%Y-%m-%dT%H:%M:%S.%f",
    }
    if spec in standard:
        return value.strftime(standard[spec])
    out: list[str] = []
    i = 0
    while i < len(spec):
        if spec[i] == "f":
            n = len(spec[i:]) - len(spec[i:].lstrip("f"))
            out.append(f"{value.microsecond:06d}"[:n].ljust(n, "0"))
            i += n
            continue
        for token, code in DATE_TOKENS:
            if spec.startswith(token, i):
                out.append(value.strftime(code))
                i += len(token)
                break
        else:
            out.append(spec[i] if spec[i] != "\\" else spec[i + 1 : i + 2])
            i += 2 if spec[i] == "\\" else 1
    return "".join(out)


def format_timespan(ns: int, spec: str) -> str:
    """.NET TimeSpan formats: ``c``, ``g``, ``G`` and custom ``hh\\:mm\\:ss``, ``d\\.hh``, ``fff``."""
    sign, ns = ("-" if ns < 0 else ""), abs(ns)
    ticks = ns // 100
    days, rest = divmod(ticks, 864_000_000_000)
    hours, rest = divmod(rest, 36_000_000_000)
    minutes, rest = divmod(rest, 600_000_000)
    seconds, frac = divmod(rest, 10_000_000)
    fraction = f"{frac:07d}"
    if spec in ("c", "t", "T"):
        return (
            (f"{sign}{days}." if days else sign)
            + f"{hours:02d}:{minutes:02d}:{seconds:02d}"
            + (f".{fraction}" if frac else "")
        )
    if spec == "g":
        return (
            (f"{sign}{days}:" if days else sign)
            + f"{hours}:{minutes:02d}:{seconds:02d}"
            + (f".{fraction.rstrip('0')}" if frac else "")
        )
    if spec == "G":
        return f"{sign}{days}:{hours:02d}:{minutes:02d}:{seconds:02d}.{fraction}"
    values = {"d": days, "h": hours, "m": minutes, "s": seconds}
    out: list[str] = []
    i = 0
    while i < len(spec):
        ch = spec[i]
        run = len(spec[i:]) - len(spec[i:].lstrip(ch)) if ch.isalpha() else 1
        if ch in values:
            out.append(str(values[ch]).zfill(run))
        elif ch in "fF":
            digits = fraction[:run]
            out.append(digits.rstrip("0") if ch == "F" else digits)
        elif ch == "\\":
            out.append(spec[i + 1 : i + 2])
            run = 2
        elif ch in "'\"":
            end = spec.find(ch, i + 1)
            end = len(spec) if end < 0 else end
            out.append(spec[i + 1 : end])
            run = end - i + 1
        else:
            out.append(ch)
        i += run
    return "".join(out)


def format_item(value: Any, spec: str, to_string: Callable[[Any], str]) -> str:
    """One ``{0:spec}`` item."""
    if isinstance(value, dt.datetime) and type(value).__format__ is not dt.datetime.__format__:
        return format(value, spec)  # the shell's DateTime: en-US, -f's culture ("{0:t}": 9:05 AM)
    if not spec:
        return to_string(value)
    if isinstance(value, dt.datetime):
        return format_date(value, spec)
    if getattr(type(value), "TYPE_NAME", None) == "System.TimeSpan":  # a duration or TimeSpan
        return format_timespan(int(value), spec)
    if isinstance(value, str) or value is None or isinstance(value, bool):
        return to_string(value)
    if isinstance(value, (int, float, Decimal)):
        standard = _standard(value, spec)
        return standard if standard is not None else _custom_number(value, spec)
    return to_string(value)


FORMAT_ITEM = re.compile(r"\{(\d+)\s*(?:,\s*(-?\d+))?\s*(?::([^}]*))?\}")


#: .NET's FormatException message for a format string it cannot read.
BAD_FORMAT = "Input string was not in a correct format."


def composite_format(fmt: str, args: list[Any], to_string: Callable[[Any], str]) -> str:
    """.NET ``String.Format``: ``{index[,alignment][:format]}`` with ``{{``/``}}`` escapes."""
    out: list[str] = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch in "{}" and fmt[i + 1 : i + 2] == ch:
            out.append(ch)
            i += 2
            continue
        if ch == "}":
            raise DotNetError(BAD_FORMAT)
        if ch != "{":
            out.append(ch)
            i += 1
            continue
        m = FORMAT_ITEM.match(fmt, i)
        if not m:
            raise DotNetError(BAD_FORMAT)
        index = int(m.group(1))
        if index >= len(args):
            raise DotNetError(
                "Index (zero based) must be greater than or equal to zero and less than the "
                "size of the argument list."
            )
        text = format_item(args[index], m.group(3) or "", to_string)
        width = int(m.group(2) or 0)
        out.append(text.rjust(width) if width >= 0 else text.ljust(-width))
        i = m.end()
    return "".join(out)


# ---- regular expressions ----------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def regex(pattern: str, case: bool = False, extra: int = 0) -> re.Pattern[str]:
    """A .NET regex compiled by Python's ``re``: ``(?<name>)``, ``\\k<name>``, ``\\z``, ``\\Z``."""
    text = re.sub(r"\(\?<([A-Za-z_]\w*)>", r"(?P<\1>", pattern)
    text = re.sub(r"\(\?'([A-Za-z_]\w*)'", r"(?P<\1>", text)
    text = re.sub(r"\\k<([A-Za-z_]\w*)>", r"(?P=\1)", text)
    text = re.sub(r"(?<!\\)((?:\\\\)*)\\Z", r"\1(?=\\n?\\Z)", text)
    text = re.sub(r"(?<!\\)((?:\\\\)*)\\z", r"\1\\Z", text)
    try:
        return re.compile(text, (0 if case else re.IGNORECASE) | extra)
    except re.error as exc:
        raise DotNetError(f"invalid regular expression {pattern!r}: {exc}") from None


def replacement(text: str) -> Callable[[re.Match[str]], str]:
    """A .NET replacement string (``$1``, ``${name}``, ``$0``, ``$&``, ``$$``) as a function."""
    parts = re.split(r"(\$\$|\$\{[A-Za-z_]\w*\}|\$\{\d+\}|\$\d+|\$&)", text)

    def expand(m: re.Match[str]) -> str:
        out: list[str] = []
        for part in parts:
            if part == "$$":
                out.append("$")
            elif part == "$&":
                out.append(m.group(0))
            elif part.startswith("${"):
                key = part[2:-1]
                out.append(_group(m, int(key) if key.isdigit() else key, part))
            elif len(part) > 1 and part[0] == "$" and part[1:].isdigit():
                out.append(_group(m, int(part[1:]), part))
            else:
                out.append(part)
        return "".join(out)

    return expand


def _group(m: re.Match[str], key: int | str, literal: str) -> str:
    try:
        return m.group(key) or ""
    except IndexError:
        return literal


def matches_table(m: re.Match[str]) -> dict[Any, Any]:
    """``$Matches`` after ``-match``: group 0, numbered and named groups that took part."""
    out: dict[Any, Any] = {}
    names = {index: name for name, index in m.re.groupindex.items()}
    for i in range(m.re.groups, -1, -1):
        if m.group(i) is not None:
            out[names.get(i, i)] = m.group(i)
    return out


# ---- static members ---------------------------------------------------------------------------


def _log(x: float, base: float) -> float:
    """.NET Math.Log: NaN below zero, -Infinity at zero."""
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    return math.log10(x) if base == 10 else math.log2(x) if base == 2 else math.log(x, base)


#: [MidpointRounding] modes and Decimal's rounding for each ([math]::Round's third argument).
ROUNDING = {
    "toeven": "ROUND_HALF_EVEN",
    "awayfromzero": "ROUND_HALF_UP",
    "tozero": "ROUND_DOWN",
    "tonegativeinfinity": "ROUND_FLOOR",
    "topositiveinfinity": "ROUND_CEILING",
}


def _round(x: Any, *rest: Any) -> Any:
    """[math]::Round(x[, digits][, mode]): to even by default, as .NET; a decimal stays one."""
    import decimal

    digits = next((int(r) for r in rest if not isinstance(r, str)), 0)
    mode = next((r.lower() for r in rest if isinstance(r, str)), "toeven")
    if mode not in ROUNDING:
        raise ValueError(f"{mode!r} is not a MidpointRounding ({', '.join(ROUNDING)})")
    most = 28 if isinstance(x, Decimal) else 15
    if not 0 <= digits <= most:
        raise ValueError(f"Rounding digits must be between 0 and {most}, inclusive.")
    if not isinstance(x, Decimal):
        return _round_double(float(x), digits, mode)
    step = Decimal(1).scaleb(-digits)
    return x.quantize(step, rounding=getattr(decimal, ROUNDING[mode]))


def _away_from_zero(value: float) -> float:
    """A whole number, a fraction of one half or more rounded away from zero (.NET's test of
    the fraction, not ``floor(x + 0.5)``, which 0.49999999999999994 would round up)."""
    fraction, whole = math.modf(value)
    return whole + math.copysign(1.0, fraction) if abs(fraction) >= 0.5 else whole


def _round_double(value: float, digits: int, mode: str) -> float:
    """Math.Round of a double as .NET computes it: scaled by 10**digits, rounded to a whole
    number, scaled back (so 1.005 to 2 places away from zero is 1, as 1.005 * 100 is
    100.49999999999999), for values under 1e16; larger ones are already whole."""
    if not math.isfinite(value) or abs(value) >= 1e16:
        return value
    power = 10.0**digits
    scaled = value * power
    whole = {
        "toeven": lambda v: float(round(v)),
        "awayfromzero": _away_from_zero,
        "tozero": lambda v: float(math.trunc(v)),
        "tonegativeinfinity": lambda v: float(math.floor(v)),
        "topositiveinfinity": lambda v: float(math.ceil(v)),
    }[mode](scaled)
    return whole / power


MATH: dict[str, Any] = {
    "pi": math.pi,
    "e": math.e,
    "round": _round,
    "floor": lambda x: float(math.floor(float(x))),
    "ceiling": lambda x: float(math.ceil(float(x))),
    "abs": abs,
    "max": max,
    "min": min,
    "pow": lambda a, b: float(a) ** float(b),
    "sqrt": lambda x: math.sqrt(x) if x >= 0 else math.nan,
    "log": lambda x, b=math.e: _log(float(x), float(b)),
    "log10": lambda x: _log(float(x), 10.0),
    "log2": lambda x: _log(float(x), 2.0),
    "exp": lambda x: math.exp(float(x)),
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "truncate": lambda x: float(math.trunc(float(x))),
    "sign": lambda x: (x > 0) - (x < 0),
    "atan": math.atan,
    "atan2": math.atan2,
    "asin": math.asin,
    "acos": math.acos,
}


def _extension(path: str) -> str:
    """The file name's last ``.suffix`` (".gz" of "a.tar.gz"; "" when none)."""
    name = posixpath.basename(path)
    dot = name.rfind(".")
    return name[dot:] if 0 <= dot < len(name) - 1 else ""


def _stem(path: str) -> str:
    """``path`` without its extension (and without a trailing dot)."""
    ext = _extension(path)
    return path[: len(path) - len(ext)] if ext else path.rstrip(".")


def _change_extension(path: str, ext: str | None = None) -> str:
    if ext is None:
        return _stem(path)
    return _stem(path) + (ext if ext.startswith(".") else "." + ext)


#: [System.IO.Path]'s methods scripts use, on Linux paths ('/' separates; the parent of the
#: root is $null, as .NET says).
PATH_METHODS: dict[str, Callable[..., Any]] = {
    "getfilename": posixpath.basename,
    "getdirectoryname": lambda p: None if p in ("/", "") else posixpath.dirname(p),
    "getextension": _extension,
    "getfilenamewithoutextension": lambda p: _stem(posixpath.basename(p)),
    "changeextension": _change_extension,
    "combine": posixpath.join,
    "ispathrooted": lambda p: p.startswith("/"),
    "getfullpath": os.path.abspath,
    "gettemppath": lambda: os.path.join(_tempfile().gettempdir(), ""),
    "gettempfilename": lambda: _temp_file(),
    "getrandomfilename": lambda: _random_file_name(),
}


def _tempfile() -> ModuleType:
    """The tempfile module (imported when a script first asks: not at every start)."""
    import tempfile

    return tempfile


def _temp_file() -> str:
    """[IO.Path]::GetTempFileName(): a new empty file's path in the temporary directory."""
    handle, name = _tempfile().mkstemp(suffix=".tmp")
    os.close(handle)
    return name


def _random_file_name() -> str:
    """[IO.Path]::GetRandomFileName(): eight and three random characters."""
    import secrets

    return f"{secrets.token_hex(4)[:8]}.{secrets.token_hex(2)[:3]}"


#: Static properties of types (integer types' MaxValue and MinValue: ops.int_limits).
LIMITS: dict[str, dict[str, Any]] = {
    "double": {
        "maxvalue": 1.7976931348623157e308,
        "minvalue": -1.7976931348623157e308,
        "epsilon": 5e-324,
        "nan": math.nan,
        "positiveinfinity": math.inf,
        "negativeinfinity": -math.inf,
    },
    "decimal": {"maxvalue": Decimal(2**96 - 1), "minvalue": -Decimal(2**96 - 1)},
    "string": {"empty": ""},
    "environment": {"newline": "\n"},
    "io.path": {"directoryseparatorchar": "/", "pathseparator": ":"},
}


def _user_name() -> str:
    import getpass

    return getpass.getuser()


def _machine_name() -> str:
    import socket

    return socket.gethostname().split(".")[0]


@dataclass(frozen=True)
class OperatingSystem:
    """``[Environment]::OSVersion`` as .NET has it on Linux: Unix and the kernel's version."""

    Platform: str
    ServicePack: str
    Version: Any  # fayshell.lang.versions.Version
    VersionString: str

    TYPE_NAME = "System.OperatingSystem"

    def __str__(self) -> str:
        return self.VersionString

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return self.VersionString


def _os_version() -> OperatingSystem:
    """The kernel release's leading numbers (``6.1.0-18-amd64`` -> 6.1.0) as the version."""
    from fayshell.lang.versions import Version

    m = re.match(r"\d+(\.\d+){1,3}", os.uname().release)
    version = Version.parse(m.group(0) if m else "0.0")
    return OperatingSystem("Unix", "", version, f"Unix {version}")


def _tick_count() -> int:
    """Milliseconds since the machine started (.NET's Environment.TickCount64)."""
    return int(time.clock_gettime(time.CLOCK_MONOTONIC) * 1000)


#: [Environment]'s properties that ask the machine (read when used).
ENVIRONMENT: dict[str, Callable[[], Any]] = {
    "machinename": _machine_name,
    "processorcount": lambda: os.cpu_count() or 1,
    "username": _user_name,
    "is64bitprocess": lambda: sys.maxsize > 2**32,
    "is64bitoperatingsystem": lambda: sys.maxsize > 2**32,
    "osversion": _os_version,
    "processid": os.getpid,
    "currentdirectory": os.getcwd,  # the process's, not the shell's location (as in .NET)
    "tickcount64": _tick_count,
    "tickcount": lambda: _tick_count() % 2**31,
}


#: Enum types whose values scripts pass by name ([ConsoleColor]::Red -> 'Red').
ENUMS = frozenset(
    {
        "io.fileattributes",
        "datetimekind",
        "stringcomparison",
        "midpointrounding",
    }
)


def short_type(name: str) -> str:
    """``System.Math`` -> ``math``; names compare lower-case without the System namespace."""
    low = name.lower().strip()
    return low[7:] if low.startswith("system.") else low


TYPE_NAMES: dict[type, str] = {
    bool: "Boolean",
    int: "Int32",
    float: "Double",
    str: "String",
    list: "Object[]",
    dict: "Hashtable",
    dt.datetime: "DateTime",
}


def type_name_of(value: Any) -> str:
    """The .NET type name PowerShell shows for a value (``GetType().Name``)."""
    if type(value).__name__ == "Char":
        return "Char"
    full = getattr(value, "FULL_NAME", None)  # a hashtable or an [ordered] one
    if isinstance(value, dict) and full is not None:  # Dictionary`2 of a generic's full name
        return str(full).split("[", 1)[0].rsplit(".", 1)[-1]
    if isinstance(value, dict):
        return "PSCustomObject"  # [pscustomobject]@{} and a table's rows
    element = getattr(value, "element", None)  # a typed array ([string[]])
    if isinstance(value, list) and element is not None:
        return f"{element}[]"
    own = getattr(type(value), "TYPE_NAME", None)  # a TimeSpan, a DayOfWeek ...
    if isinstance(own, property):  # one per object: a file's FileInfo or DirectoryInfo
        own = getattr(value, "TYPE_NAME", None)
    if isinstance(own, str):
        return own.rsplit(".", 1)[-1]
    for cls in type(value).__mro__:
        if cls in TYPE_NAMES:
            if cls is int and not -(2**31) <= value < 2**31:
                return "Int64"
            return TYPE_NAMES[cls]
    return type(value).__name__


#: The namespaces of the types whose GetType().FullName is not System.<Name>.
NAMESPACES = {
    "BigInteger": "System.Numerics.",
    "DirectoryInfo": "System.IO.",
    "FileInfo": "System.IO.",
    "Hashtable": "System.Collections.",
    "PSCustomObject": "System.Management.Automation.",
    "Regex": "System.Text.RegularExpressions.",
    "Stopwatch": "System.Diagnostics.",
    "StringBuilder": "System.Text.",
}


def full_type_name_of(value: Any) -> str:
    """``GetType().FullName`` of a value: System.String, System.Collections.Hashtable ..."""
    full = getattr(value, "FULL_NAME", None)
    if isinstance(value, dict) and full is not None:
        return str(full)
    own = getattr(type(value), "TYPE_NAME", None)  # a full name of its own
    if isinstance(own, str) and "." in own:
        return own
    name = type_name_of(value)
    return NAMESPACES.get(name, "System.") + name


@dataclass(frozen=True)
class PSPropertyInfo:
    """One property as ``$obj.PSObject.Properties`` lists it."""

    Name: str
    Value: Any
    MemberType: str = "NoteProperty"
    TypeNameOfValue: str = field(default="System.Object", repr=False)
    IsSettable: bool = field(default=True, repr=False)
    IsGettable: bool = field(default=True, repr=False)


class MemberList(list[PSPropertyInfo]):
    """``$obj.PSObject.Properties``: a list that a name also indexes (``['a']``, any case),
    as PowerShell's PSMemberInfoCollection."""

    def named(self, name: str) -> PSPropertyInfo | None:
        return next((m for m in self if m.Name.lower() == name.lower()), None)


class PSObjectView:
    """``$obj.PSObject``: the object's properties (names, values, types), the object itself
    and its type names, as scripts walk an object they did not build."""

    MEMBERS = ("BaseObject", "Properties", "TypeNames")

    def __init__(self, obj: Any) -> None:
        self.BaseObject = obj

    @property
    def Properties(self) -> MemberList:  # noqa: N802 - .NET property name
        obj = self.BaseObject
        kind = "NoteProperty" if isinstance(obj, dict) else "Property"
        return MemberList(
            PSPropertyInfo(
                name, value, kind, "System.Object" if value is None else full_type_name_of(value)
            )
            for name, value in all_properties(obj).items()
        )

    @property
    def TypeNames(self) -> list[str]:  # noqa: N802 - .NET property name
        own = full_type_name_of(self.BaseObject)
        return [own, "System.Object"] if own != "System.Object" else [own]

    def Copy(self) -> Any:  # noqa: N802 - .NET method name
        """A shallow copy of the object (``$o.PSObject.Copy()``): its own properties, the same
        values."""
        return copy.copy(self.BaseObject)

    def __str__(self) -> str:
        return str(self.BaseObject)


_AUTOMATION = "management.automation."
#: .NET's exception types scripts catch, each with its base type (names as ``short_type``
#: writes them): ``catch [IOException]`` takes a FileNotFoundException, as in .NET.
EXCEPTION_BASES: dict[str, str] = {
    "systemexception": "exception",
    "applicationexception": "exception",
    "argumentexception": "systemexception",
    "argumentnullexception": "argumentexception",
    "argumentoutofrangeexception": "argumentexception",
    "arithmeticexception": "systemexception",
    "dividebyzeroexception": "arithmeticexception",
    "overflowexception": "arithmeticexception",
    "formatexception": "systemexception",
    "indexoutofrangeexception": "systemexception",
    "invalidcastexception": "systemexception",
    "invalidoperationexception": "systemexception",
    "objectdisposedexception": "invalidoperationexception",
    "notsupportedexception": "systemexception",
    "notimplementedexception": "systemexception",
    "nullreferenceexception": "systemexception",
    "timeoutexception": "systemexception",
    "unauthorizedaccessexception": "systemexception",
    "operationcanceledexception": "systemexception",
    "collections.generic.keynotfoundexception": "systemexception",
    "io.ioexception": "systemexception",
    "io.filenotfoundexception": "io.ioexception",
    "io.directorynotfoundexception": "io.ioexception",
    "io.pathtoolongexception": "io.ioexception",
    "io.endofstreamexception": "io.ioexception",
    "net.http.httprequestexception": "exception",
    "net.sockets.socketexception": "exception",
    "management.automation.runtimeexception": "systemexception",
    **dict.fromkeys(
        (
            _AUTOMATION + name
            for name in (
                "commandnotfoundexception",
                "parameterbindingexception",
                "methodinvocationexception",
                "propertynotfoundexception",
                "actionpreferencestopexception",
                "parseexception",
                "pipelinestoppedexception",
                "sessionstateexception",
            )
        ),
        _AUTOMATION + "runtimeexception",
    ),
    _AUTOMATION + "itemnotfoundexception": _AUTOMATION + "sessionstateexception",
    _AUTOMATION + "psinvalidcastexception": "invalidcastexception",
}


def exception_is(type_name: str, wanted: str) -> bool:
    """Is an exception of .NET type ``type_name`` a ``wanted`` (itself or a type it derives
    from)? A name without its namespace ([ItemNotFoundException]) matches too."""
    want = short_type(wanted)
    low: str | None = short_type(type_name)
    while low is not None:
        if want in (low, low.rsplit(".", 1)[-1]):
            return True
        low = EXCEPTION_BASES.get(low, "exception" if low != "exception" else None)
    return False


@dataclass(frozen=True)
class CultureInfo:
    """A .NET culture (``Get-Culture``, ``[cultureinfo]::InvariantCulture``): fayshell
    formats and parses in en-US and the invariant culture only (about_Differences)."""

    LCID: int
    Name: str
    DisplayName: str

    TYPE_NAME = "System.Globalization.CultureInfo"

    def __str__(self) -> str:
        return self.Name


EN_US = CultureInfo(1033, "en-US", "English (United States)")
INVARIANT = CultureInfo(127, "", "Invariant Language (Invariant Country)")


def culture_named(name: Any) -> CultureInfo:
    """``[cultureinfo]::GetCultureInfo('en-US')``, ``[cultureinfo]'en-US'``: en-US or the
    invariant culture (''); another is refused rather than formatted in en-US without a word."""
    text = "" if name is None else str(name).strip()
    for culture in (EN_US, INVARIANT):
        if text.lower() in (culture.Name.lower(), culture.DisplayName.lower()):
            return culture
    raise DotNetError(
        f"culture '{text}' is not available: fayshell formats and parses in en-US "
        "and the invariant culture ('') only"
    )


#: ``[cultureinfo]::X`` properties.
CULTURES = {
    "invariantculture": INVARIANT,
    "currentculture": EN_US,
    "currentuiculture": EN_US,
    "installeduiculture": EN_US,
}
