"""Dates the .NET way: a DateTime value with PowerShell's properties and methods, .NET custom and
standard format strings (en-US culture), ``Get-Date -UFormat`` and parsing of date strings.

A DateTime keeps naive wall-clock time plus a ``Kind`` (Local, Utc or Unspecified), as .NET
does: comparisons and subtraction ignore the kind; ``ToUniversalTime`` and ``ToLocalTime`` use
it. Subtracting two dates gives a :class:`~fayshell.lang.values.Duration` (fayshell's TimeSpan).
The interpreter reaches this module through :func:`call_method`, :func:`date_arithmetic` and
:func:`to_datetime`.
"""

from __future__ import annotations

import calendar
import dataclasses
import os
import re
import time
import zoneinfo
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any, Literal

from fayshell.lang.dotnet import format_timespan
from fayshell.lang.enums import DAY_OF_WEEK, EnumValue
from fayshell.lang.ops import OperatorError
from fayshell.lang.values import Duration, NetException, TimeSpan

Kind = Literal["Local", "Utc", "Unspecified"]
DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
EPOCH = datetime(1970, 1, 1)
TICKS_EPOCH = datetime(1, 1, 1)
NS_PER_TICK = 100
#: Standard format strings of the en-US culture, as custom patterns.
STANDARD: dict[str, str] = {
    "d": "M/d/yyyy",
    "D": "dddd, MMMM d, yyyy",
    "f": "dddd, MMMM d, yyyy h:mm tt",
    "F": "dddd, MMMM d, yyyy h:mm:ss tt",
    "g": "M/d/yyyy h:mm tt",
    "G": "M/d/yyyy h:mm:ss tt",
    "m": "MMMM d",
    "M": "MMMM d",
    "o": "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
    "O": "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
    "r": "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'",
    "R": "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'",
    "s": "yyyy'-'MM'-'dd'T'HH':'mm':'ss",
    "t": "h:mm tt",
    "T": "h:mm:ss tt",
    "u": "yyyy'-'MM'-'dd HH':'mm':'ss'Z'",
    "U": "dddd, MMMM d, yyyy h:mm:ss tt",
    "y": "MMMM yyyy",
    "Y": "MMMM yyyy",
}
#: How PowerShell turns a DateTime into a string ("$d", [string]$d): the invariant culture.
INVARIANT = "MM/dd/yyyy HH:mm:ss"
NOT_HANDLED: Any = object()


class DateError(OperatorError):
    """A date that cannot be parsed, built or formatted; the evaluator adds the place."""


def _in_dst(dt: Any) -> bool:
    """DateTime.IsDaylightSavingTime(): a local (or unspecified) time inside this machine's
    daylight saving period; a UTC time never is, as in .NET. (A fixed-offset astimezone()
    has no DST of its own, so the local zone's rules are asked through time.localtime.)"""
    if getattr(dt, "Kind", "") == "Utc":
        return False
    return time.localtime(dt.naive().timestamp()).tm_isdst > 0


class DateTime(datetime):
    """A point in time as .NET and PowerShell show it (naive wall-clock time and a Kind)."""

    _kind: Kind
    #: The standard format the shell shows a date with (a table cell uses FileTime's "G").
    DISPLAY = "F"
    #: What Get-Member shows: the .NET type name and the properties.
    TYPE_NAME = "System.DateTime"
    MEMBERS = (
        "Date",
        "Day",
        "DayOfWeek",
        "DayOfYear",
        "Hour",
        "Kind",
        "Microsecond",
        "Millisecond",
        "Minute",
        "Month",
        "Second",
        "Ticks",
        "TimeOfDay",
        "Year",
    )

    def __new__(cls, *args: Any, kind: Kind = "Unspecified", **kwargs: Any) -> DateTime:
        self = super().__new__(cls, *args, **kwargs)
        self._kind = kind
        return self

    @classmethod
    def of(cls, value: datetime, kind: Kind | None = None) -> DateTime:
        """A DateTime from any datetime; an aware one becomes Utc (offset 0) or Local."""
        if value.tzinfo is not None:
            if value.utcoffset() == timedelta(0):
                value, kind = value.replace(tzinfo=None), "Utc"
            else:
                value, kind = value.astimezone().replace(tzinfo=None), "Local"
        if kind is None:
            kind = value._kind if isinstance(value, DateTime) else "Unspecified"
        return cls(
            value.year,
            value.month,
            value.day,
            value.hour,
            value.minute,
            value.second,
            value.microsecond,
            kind=kind,
        )

    @classmethod
    def local_now(cls) -> DateTime:
        return cls.of(datetime.now(), "Local")

    @classmethod
    def from_ticks(cls, ticks: int, kind: Kind = "Unspecified") -> DateTime:
        return cls.of(TICKS_EPOCH + timedelta(microseconds=ticks // 10), kind)

    Year = property(lambda self: self.year)
    Month = property(lambda self: self.month)
    Day = property(lambda self: self.day)
    Hour = property(lambda self: self.hour)
    Minute = property(lambda self: self.minute)
    Second = property(lambda self: self.second)
    Millisecond = property(lambda self: self.microsecond // 1000)
    Microsecond = property(lambda self: self.microsecond % 1000)
    DayOfWeek = property(lambda self: EnumValue(DAY_OF_WEEK, self.isoweekday() % 7))
    DayOfYear = property(lambda self: self.timetuple().tm_yday)
    Kind = property(lambda self: self._kind)
    # a [DateTimeOffset]'s views of itself
    UtcDateTime = property(lambda self: self.to_utc())
    LocalDateTime = property(lambda self: self.to_local())
    Offset = property(
        lambda self: duration_of(self.local_offset() if self._kind != "Utc" else timedelta(0))
    )
    Date = property(lambda self: DateTime(self.year, self.month, self.day, kind=self._kind))
    TimeOfDay = property(lambda self: duration_of(self - datetime(self.year, self.month, self.day)))

    @property
    def Ticks(self) -> int:  # noqa: N802 - the .NET name
        delta = self.naive() - TICKS_EPOCH
        return (delta.days * 86_400 + delta.seconds) * 10_000_000 + delta.microseconds * 10

    def naive(self) -> datetime:
        return datetime(
            self.year, self.month, self.day, self.hour, self.minute, self.second, self.microsecond
        )

    def shifted(self, delta: timedelta) -> DateTime:
        try:
            return DateTime.of(self.naive() + delta, self._kind)
        except OverflowError:
            raise DateError("the result is outside the range of dates (years 1 to 9999)") from None

    def to_utc(self) -> DateTime:
        if self._kind == "Utc":
            return self
        return DateTime.of(self.naive().astimezone(UTC).replace(tzinfo=None), "Utc")

    def to_local(self) -> DateTime:
        if self._kind == "Local":
            return self
        aware = self.naive().replace(tzinfo=UTC)
        return DateTime.of(aware.astimezone().replace(tzinfo=None), "Local")

    def local_offset(self) -> timedelta:
        """The local time zone's offset at this moment (what 'zzz' shows, whatever the kind)."""
        when = self.to_local() if self._kind == "Utc" else self
        offset = when.naive().astimezone().utcoffset()
        return offset if offset is not None else timedelta(0)

    def format(self, fmt: str | None = None) -> str:
        return format_date(self, fmt or "G")

    def __format__(self, spec: str) -> str:
        return format_date(self, spec or "G")  # "{0}" -f $d: the culture's general form

    def __str__(self) -> str:
        """How the shell shows a date: PowerShell's default view, 'F' (long date and time)."""
        return format_date(self, self.DISPLAY)

    __repr__ = __str__

    def __reduce__(self) -> Any:
        return (_rebuild, (self.Ticks, self._kind))


# a [DateTimeOffset]'s wall-clock date, kind Unspecified (set here, by name: inside the class,
# and to mypy, the name would stand for the property)
_WALL_CLOCK = property(lambda self: DateTime.of(self.naive(), "Unspecified"))
setattr(DateTime, "DateTime", _WALL_CLOCK)  # noqa: B010


class FileTime(DateTime):
    """A file's time (Get-ChildItem's LastWriteTime): shown short, as a table cell would."""

    DISPLAY = "G"


def invariant_text(value: datetime) -> str:
    """A date as text in a string ("$d", [string]$d, -join): MM/dd/yyyy HH:mm:ss."""
    return format_date(value, INVARIANT)


def _rebuild(ticks: int, kind: Kind) -> DateTime:
    return DateTime.from_ticks(ticks, kind)


def duration_of(delta: timedelta) -> TimeSpan:
    return TimeSpan(
        (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000
    )


def _timedelta(value: Any) -> timedelta:
    if isinstance(value, Duration):
        return timedelta(microseconds=int(value) // 1_000)
    raise DateError(f"a duration (TimeSpan) is needed, not {type(value).__name__}")


# ---- formatting -------------------------------------------------------------------------------


def _fraction(dt: DateTime, n: int, trim: bool) -> str:
    digits = f"{dt.microsecond:06d}0"[:n]
    return digits.rstrip("0") if trim else digits


def _offset(dt: DateTime, n: int) -> str:
    total = int(dt.local_offset().total_seconds()) // 60
    sign = "-" if total < 0 else "+"
    hours, minutes = divmod(abs(total), 60)
    if n == 1:
        return f"{sign}{hours}"
    return f"{sign}{hours:02d}" + (f":{minutes:02d}" if n >= 3 else "")


def _kind_suffix(dt: DateTime) -> str:
    if dt.Kind == "Utc":
        return "Z"
    return _offset(dt, 3) if dt.Kind == "Local" else ""


def _hour12(dt: DateTime) -> int:
    return dt.hour % 12 or 12


def _name(names: tuple[str, ...], index: int, n: int) -> str:
    return names[index][:3] if n == 3 else names[index]


def _number(value: int, n: int) -> str:
    return f"{value:0{min(n, 2)}d}"


FIELDS: dict[str, Callable[[DateTime, int], str]] = {
    "d": lambda dt, n: _number(dt.day, n) if n <= 2 else _name(DAYS, dt.isoweekday() % 7, n),
    "f": lambda dt, n: _fraction(dt, n, False),
    "F": lambda dt, n: _fraction(dt, n, True),
    "g": lambda dt, n: "A.D.",
    "h": lambda dt, n: _number(_hour12(dt), n),
    "H": lambda dt, n: _number(dt.hour, n),
    "K": lambda dt, n: _kind_suffix(dt),
    "m": lambda dt, n: _number(dt.minute, n),
    "M": lambda dt, n: _number(dt.month, n) if n <= 2 else _name(MONTHS, dt.month - 1, n),
    "s": lambda dt, n: _number(dt.second, n),
    "t": lambda dt, n: ("AM" if dt.hour < 12 else "PM")[: 1 if n == 1 else 2],
    "y": lambda dt, n: (
        (str(dt.year % 100) if n == 1 else f"{dt.year % 100:02d}") if n <= 2 else f"{dt.year:0{n}d}"
    ),
    "z": lambda dt, n: _offset(dt, n),
}
MAX_RUN = {"f": 7, "F": 7}


def format_date(value: datetime, fmt: str) -> str:
    """``value.ToString(fmt)`` with .NET standard (one letter) or custom format strings."""
    dt = value if isinstance(value, DateTime) else DateTime.of(value)
    if len(fmt) == 1:
        if fmt not in STANDARD:
            raise DateError(
                f"{fmt!r} is not a standard date format (d D f F g G m o r s t T u U y)"
            )
        if fmt == "U":
            dt = dt.to_utc()
        fmt = STANDARD[fmt]
    return _custom(dt, fmt)


def _custom(dt: DateTime, fmt: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch in "'\"":
            end = fmt.find(ch, i + 1)
            if end < 0:
                raise DateError(f"unclosed quote in date format {fmt!r}")
            out.append(fmt[i + 1 : end])
            i = end + 1
        elif ch == "\\":
            out.append(fmt[i + 1 : i + 2])
            i += 2
        elif ch == "%":
            i += 1
        elif ch in FIELDS:
            n = len(re.match(re.escape(ch) + "+", fmt[i:]).group(0))  # type: ignore[union-attr]
            if n > MAX_RUN.get(ch, 99):
                raise DateError(f"too many {ch!r} in date format {fmt!r} (at most 7)")
            text = FIELDS[ch](dt, n)
            if ch == "F" and not text and out and out[-1].endswith("."):
                out[-1] = out[-1][:-1]
            out.append(text)
            i += n
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _unix_seconds(dt: DateTime) -> str:
    seconds = _unix(dt) / 1e6
    return str(int(seconds + (0.5 if seconds >= 0 else -0.5)))


def _week_u(dt: DateTime) -> str:
    start = (datetime(dt.year, 1, 1).isoweekday() % 7 + 6) % 7
    return f"{(start + dt.DayOfYear - dt.isoweekday() % 7) // 7:02d}"


UFORMAT: dict[str, Callable[[DateTime], str]] = {
    "A": lambda d: _custom(d, "dddd"),
    "a": lambda d: _custom(d, "ddd"),
    "B": lambda d: _custom(d, "MMMM"),
    "b": lambda d: _custom(d, "MMM"),
    "h": lambda d: _custom(d, "MMM"),
    "C": lambda d: str(d.year // 100),
    "c": lambda d: _custom(d, "ddd dd MMM yyyy HH:mm:ss"),
    "D": lambda d: _custom(d, "MM/dd/yy"),
    "d": lambda d: _custom(d, "dd"),
    "e": lambda d: f"{d.day:2d}",
    "F": lambda d: _custom(d, "yyyy-MM-dd"),
    "G": lambda d: f"{d.isocalendar()[0]:04d}",
    "g": lambda d: f"{d.isocalendar()[0] % 100:02d}",
    "H": lambda d: _custom(d, "HH"),
    "I": lambda d: _custom(d, "hh"),
    "j": lambda d: f"{d.DayOfYear:03d}",
    "k": lambda d: f"{d.hour:2d}",
    "l": lambda d: f"{_hour12(d):2d}",
    "M": lambda d: _custom(d, "mm"),
    "m": lambda d: _custom(d, "MM"),
    "n": lambda d: "\n",
    "p": lambda d: _custom(d, "tt"),
    "R": lambda d: _custom(d, "HH:mm"),
    "r": lambda d: _custom(d, "hh:mm:ss tt"),
    "S": lambda d: _custom(d, "ss"),
    "s": _unix_seconds,
    "T": lambda d: _custom(d, "HH:mm:ss"),
    "t": lambda d: "\t",
    "U": _week_u,
    "u": lambda d: str(d.isoweekday()),
    "V": lambda d: f"{d.isocalendar()[1]:02d}",
    "W": lambda d: str(d.DayOfYear // 7),
    "w": lambda d: str(d.isoweekday() % 7),
    "X": lambda d: _custom(d, "HH:mm:ss"),
    "x": lambda d: _custom(d, "MM/dd/yy"),
    "Y": lambda d: _custom(d, "yyyy"),
    "y": lambda d: _custom(d, "yy"),
    "Z": lambda d: _offset(d, 2),
}


def uformat(value: datetime, fmt: str) -> str:
    """``Get-Date -UFormat``: strftime-like ``%`` specifiers, as PowerShell implements them."""
    dt = value if isinstance(value, DateTime) else DateTime.of(value)
    out: list[str] = []
    i = 1 if fmt.startswith("+") else 0
    while i < len(fmt):
        if fmt[i] == "%" and i + 1 < len(fmt):
            spec = fmt[i + 1]
            out.append(UFORMAT[spec](dt) if spec in UFORMAT else spec)
            i += 2
        else:
            out.append(fmt[i])
            i += 1
    return "".join(out)


# ---- parsing ----------------------------------------------------------------------------------

PATTERNS = (
    "%m/%d/%Y",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y %I:%M %p",
    "%m/%d/%Y %I:%M:%S %p",
    "%Y/%m/%d",
    "%Y/%m/%d %H:%M:%S",
    "%Y-%m-%d %I:%M %p",
    "%Y-%m-%d %I:%M:%S %p",
    "%B %d, %Y",
    "%B %d %Y",
    "%b %d, %Y",
    "%b %d %Y",
    "%d %B %Y",
    "%d %b %Y",
    "%A, %B %d, %Y",
    "%A, %B %d, %Y %I:%M:%S %p",
    "%A, %B %d, %Y %I:%M %p",
    "%B %d, %Y %I:%M:%S %p",
    "%B %d, %Y %H:%M:%S",
    "%a, %d %b %Y %H:%M:%S GMT",
)
TIME_ONLY = ("%H:%M", "%H:%M:%S", "%I:%M %p", "%I:%M:%S %p")


def parse_date(text: str) -> DateTime:
    """A date string the way PowerShell's [datetime] conversion reads it (invariant culture).

    ISO 8601 with a zone (``Z``, ``+02:00``) becomes local time of kind Local; a time alone
    is on today's date. Raises DateError naming the text otherwise.
    """
    s = " ".join(text.strip().split())
    try:
        parsed = datetime.fromisoformat(s)
    except ValueError:
        pass
    else:
        if parsed.tzinfo is not None:  # .NET reads a zoned time as local time
            return DateTime.of(parsed.astimezone().replace(tzinfo=None), "Local")
        return DateTime.of(parsed)
    for pattern in PATTERNS:
        try:
            return DateTime.of(datetime.strptime(s, pattern))
        except ValueError:
            continue
    for pattern in TIME_ONLY:
        try:
            t = datetime.strptime(s, pattern)
        except ValueError:
            continue
        return DateTime.of(datetime.combine(date.today(), t.time()))
    raise DateError(
        f"cannot convert {text!r} to a date (e.g. '2024-03-05 14:30:00', "
        "'03/05/2024', 'March 5, 2024')"
    )


def to_datetime(value: Any) -> DateTime:
    """``[datetime]$value``: a date, a date string, or a number of .NET ticks."""
    if isinstance(value, DateTime):
        return value
    if isinstance(value, datetime):
        return DateTime.of(value)
    if isinstance(value, date):
        return DateTime(value.year, value.month, value.day)
    if isinstance(value, str):
        return parse_date(value)
    if isinstance(value, int) and not isinstance(value, (bool, Duration)):
        return DateTime.from_ticks(value)
    raise DateError(f"cannot convert {type(value).__name__} to a date")


# ---- arithmetic and methods -------------------------------------------------------------------


def date_arithmetic(op: str, left: Any, right: Any) -> Any:
    """``date - date`` is a Duration; ``date + duration`` and ``date - duration`` are dates."""
    if not isinstance(left, datetime):
        raise DateError(f"cannot apply '{op}' to {type(left).__name__} and a date")
    dt = DateTime.of(left)
    if op == "-" and isinstance(right, datetime):
        return duration_of(dt.naive() - DateTime.of(right).naive())
    if op in "+-" and isinstance(right, Duration):
        delta = _timedelta(right)
        return dt.shifted(delta if op == "+" else -delta)
    raise DateError(
        f"cannot apply '{op}' to a date and {type(right).__name__} "
        "(add or subtract a duration such as 2h, or subtract a date)"
    )


def _add_months(dt: DateTime, months: Any) -> DateTime:
    total = dt.year * 12 + dt.month - 1 + int(months)
    year, month = divmod(total, 12)
    if not 1 <= year <= 9999:
        raise DateError("the result is outside the range of dates (years 1 to 9999)")
    last = calendar.monthrange(year, month + 1)[1]
    return DateTime(
        year,
        month + 1,
        min(dt.day, last),
        dt.hour,
        dt.minute,
        dt.second,
        dt.microsecond,
        kind=dt.Kind,
    )


def wall_clock(value: Any) -> datetime:
    """What .NET compares two dates by: their wall-clock time, whatever their Kind (an aware
    datetime, from DuckDB's TIMESTAMPTZ, becomes a Utc or Local DateTime first; a text or
    ticks are read as ``[datetime]`` reads them)."""
    return to_datetime(value).naive()


def _compare(dt: DateTime, other: Any) -> int:
    a, b = wall_clock(dt), wall_clock(other)
    return (a > b) - (a < b)


def _units(unit_us: float) -> Callable[[DateTime, Any], DateTime]:
    return lambda dt, n: dt.shifted(timedelta(microseconds=round(float(n) * unit_us)))


DATE_METHODS: dict[str, Callable[..., Any]] = {
    "adddays": _units(86_400e6),
    "addhours": _units(3_600e6),
    "addminutes": _units(60e6),
    "addseconds": _units(1e6),
    "addmilliseconds": _units(1e3),
    "addmicroseconds": _units(1),
    "addticks": _units(0.1),
    "addmonths": _add_months,
    "addyears": lambda dt, n: _add_months(dt, int(n) * 12),
    "add": lambda dt, d: dt.shifted(_timedelta(d)),
    "subtract": lambda dt, x: date_arithmetic("-", dt, x),
    "tostring": lambda dt, fmt=None, *_: dt.format(None if fmt is None else str(fmt)),
    "touniversaltime": DateTime.to_utc,
    "tolocaltime": DateTime.to_local,
    "toshortdatestring": lambda dt: format_date(dt, "d"),
    "tolongdatestring": lambda dt: format_date(dt, "D"),
    "toshorttimestring": lambda dt: format_date(dt, "t"),
    "tolongtimestring": lambda dt: format_date(dt, "T"),
    "compareto": _compare,
    "equals": lambda dt, other: _compare(dt, other) == 0,
    "isdaylightsavingtime": lambda dt: _in_dst(dt),
    # a [DateTimeOffset]'s (fayshell's are dates; see _unix)
    "tounixtimeseconds": lambda dt: _unix(dt) // 1_000_000,
    "tounixtimemilliseconds": lambda dt: _unix(dt) // 1_000,
}


def _unix(dt: DateTime) -> int:
    """Microseconds since the Unix epoch (a date of kind Unspecified is taken as local time,
    as .NET's conversion to a DateTimeOffset takes it)."""
    delta = dt.to_utc().naive() - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _offset_date(value: Any, offset: Any = None) -> DateTime:
    """``[DateTimeOffset]::new(date[, offset])``: the date, or the UTC moment of a wall-clock
    time at that offset from UTC."""
    date = to_datetime(value)
    if offset is None:
        return date
    return DateTime.of(date.naive() - _timedelta(offset), "Utc")


def _from_unix(unit_us: int) -> Callable[[Any], DateTime]:
    return lambda n: DateTime.of(EPOCH + timedelta(microseconds=int(n) * unit_us), "Utc")


DURATION_METHODS: dict[str, Callable[..., Any]] = {
    "add": lambda d, other: type(d)(int(d) + int(other)),
    "subtract": lambda d, other: type(d)(int(d) - int(other)),
    "negate": lambda d: type(d)(-int(d)),
    "duration": lambda d: type(d)(abs(int(d))),
    # .NET's TimeSpan text ("01:30:00"; a format such as 'hh\:mm' or 'g'), where "$d" and
    # tables show a duration literal as it was typed (90m); a TimeSpan reads as .NET's
    "tostring": lambda d, spec="c": format_timespan(int(d), str(spec)),
}


def call_method(obj: Any, name: str, args: list[Any]) -> Any:
    """A .NET method of a date or duration, or NOT_HANDLED for other values and names."""
    target: Any = obj
    if isinstance(obj, datetime):
        table, target = DATE_METHODS, DateTime.of(obj)
    elif isinstance(obj, Duration):
        table = DURATION_METHODS
    else:
        return NOT_HANDLED
    method = table.get(name.lower())
    if method is None:
        return NOT_HANDLED
    try:
        return method(target, *args)
    except TypeError:
        raise DateError(
            f"{type(obj).__name__}.{name}() does not take "
            f"{len(args)} argument{'s' if len(args) != 1 else ''}"
        ) from None


# ---- time spans and static members ------------------------------------------------------------

TIMESPAN = re.compile(r"^\s*(-)?(?:(\d+)\.)?(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,7}))?)?\s*$")


def parse_timespan(text: str) -> TimeSpan:
    """``[timespan]'1.02:03:04.5'``: .NET's constant format ``[-][d.]hh:mm[:ss[.fffffff]]``."""
    m = TIMESPAN.match(text)
    if not m:
        raise DateError(f"cannot convert {text!r} to a duration (e.g. '01:30:00' or '1.02:03:04')")
    sign, days, hours, minutes, seconds, fraction = m.groups()
    if int(hours) > 23 or int(minutes) > 59 or int(seconds or 0) > 59:
        raise DateError(f"cannot convert {text!r} to a duration (a field is out of range)")
    ticks = (
        ((int(days or 0) * 24 + int(hours)) * 60 + int(minutes)) * 60 + int(seconds or 0)
    ) * 10_000_000 + int((fraction or "0").ljust(7, "0"))
    return TimeSpan(-ticks * 100 if sign else ticks * 100)


EXACT_FIELDS: dict[str, str] = {
    "yyyy": r"(?P<year>\d{4})",
    "yy": r"(?P<yy>\d{2})",
    "MMMM": r"(?P<monthname>[A-Za-z]+)",
    "MMM": r"(?P<mon>[A-Za-z]{3})",
    "MM": r"(?P<month>\d{2})",
    "M": r"(?P<month>\d{1,2})",
    "dddd": r"[A-Za-z]+",
    "ddd": r"[A-Za-z]{3}",
    "dd": r"(?P<day>\d{2})",
    "d": r"(?P<day>\d{1,2})",
    "HH": r"(?P<hour>\d{2})",
    "H": r"(?P<hour>\d{1,2})",
    "hh": r"(?P<hour12>\d{2})",
    "h": r"(?P<hour12>\d{1,2})",
    "mm": r"(?P<minute>\d{2})",
    "m": r"(?P<minute>\d{1,2})",
    "ss": r"(?P<second>\d{2})",
    "s": r"(?P<second>\d{1,2})",
    "tt": r"(?P<ampm>[AaPp][Mm])",
    "fff": r"(?P<ms>\d{3})",
    "ffffff": r"(?P<us>\d{6})",
}


def _exact_pattern(fmt: str) -> re.Pattern[str]:
    fmt = STANDARD.get(fmt, fmt) if len(fmt) == 1 else fmt
    out, i = [], 0
    while i < len(fmt):
        if fmt[i] in "'\"":
            end = fmt.find(fmt[i], i + 1)
            end = len(fmt) if end < 0 else end
            out.append(re.escape(fmt[i + 1 : end]))
            i = end + 1
            continue
        field = next(
            (f for f in sorted(EXACT_FIELDS, key=len, reverse=True) if fmt.startswith(f, i)), None
        )
        out.append(EXACT_FIELDS[field] if field else re.escape(fmt[i]))
        i += len(field) if field else 1
    return re.compile("".join(out) + "$", re.IGNORECASE)


def parse_exact(text: str, fmt: str, *_: Any) -> DateTime:
    """``[datetime]::ParseExact(text, format, $null)`` for the usual custom formats."""
    m = _exact_pattern(str(fmt)).match(str(text).strip())
    if m is None:
        raise DateError(f"{text!r} does not match the date format {fmt!r}")
    g = {k: v for k, v in m.groupdict().items() if v is not None}
    month = int(g.get("month", 0)) or _month_number(g.get("monthname") or g.get("mon") or "1")
    hour = int(g.get("hour", 0))
    if "hour12" in g:
        hour = int(g["hour12"]) % 12 + (12 if g.get("ampm", "").upper() == "PM" else 0)
    micro = int(g.get("us", 0)) or int(g.get("ms", 0)) * 1000
    year = int(g["year"]) if "year" in g else 2000 + int(g.get("yy", 0))
    return DateTime(
        year,
        month,
        int(g.get("day", 1)),
        hour,
        int(g.get("minute", 0)),
        int(g.get("second", 0)),
        micro,
    )


def _month_number(name: str) -> int:
    for i, month in enumerate(MONTHS, 1):
        if month.lower().startswith(name.lower()) and len(name) >= 3 or name == str(i):
            return i
    raise DateError(f"{name!r} is not a month name")


def _from(unit_ns: float) -> Callable[[Any], TimeSpan]:
    return lambda n: TimeSpan(round(float(n) * unit_ns))


def _days_in_month(year: Any, month: Any) -> int:
    return calendar.monthrange(int(year), int(month))[1]


class Stopwatch:
    """``[System.Diagnostics.Stopwatch]``: time measured on the monotonic clock while it runs
    (its ticks are nanoseconds, as .NET's are on Linux)."""

    MEMBERS = ("IsRunning", "Elapsed", "ElapsedMilliseconds", "ElapsedTicks")

    def __init__(self) -> None:
        self._total = 0
        self._since: int | None = None

    @classmethod
    def StartNew(cls) -> Stopwatch:  # noqa: N802 - .NET method name
        made = cls()
        made.Start()
        return made

    def Start(self) -> None:  # noqa: N802 - .NET method name
        if self._since is None:
            self._since = time.monotonic_ns()

    def Stop(self) -> None:  # noqa: N802 - .NET method name
        if self._since is not None:
            self._total += time.monotonic_ns() - self._since
            self._since = None

    def Reset(self) -> None:  # noqa: N802 - .NET method name
        self._total, self._since = 0, None

    def Restart(self) -> None:  # noqa: N802 - .NET method name
        self._total, self._since = 0, time.monotonic_ns()

    @property
    def IsRunning(self) -> bool:  # noqa: N802 - .NET property name
        return self._since is not None

    @property
    def ElapsedTicks(self) -> int:  # noqa: N802 - .NET property name
        running = time.monotonic_ns() - self._since if self._since is not None else 0
        return self._total + running

    @property
    def Elapsed(self) -> TimeSpan:  # noqa: N802 - .NET property name
        return TimeSpan(self.ElapsedTicks)

    @property
    def ElapsedMilliseconds(self) -> int:  # noqa: N802 - .NET property name
        return self.ElapsedTicks // 1_000_000


#: ``[datetime]::Name`` and ``[timespan]::Name``: properties (no arguments) and methods.
STATICS: dict[str, dict[str, Callable[..., Any]]] = {
    "datetime": {
        "specifykind": lambda value, kind: DateTime.of(to_datetime(value), _kind(kind)),
        "now": DateTime.local_now,
        "today": lambda: DateTime.local_now().Date,
        "utcnow": lambda: DateTime.local_now().to_utc(),
        "unixepoch": lambda: DateTime(1970, 1, 1, kind="Utc"),
        "minvalue": lambda: DateTime(1, 1, 1),
        "maxvalue": lambda: DateTime.from_ticks(3155378975999999999),
        "parse": lambda text, *_: parse_date(str(text)),
        "parseexact": parse_exact,
        "new": lambda *parts: DateTime(*(int(p) for p in parts)),
        "daysinmonth": _days_in_month,
        "isleapyear": lambda y: calendar.isleap(int(y)),
    },
    "timespan": {
        "zero": lambda: TimeSpan(0),
        "parse": lambda text: parse_timespan(str(text)),
        "fromdays": _from(86_400e9),
        "fromhours": _from(3_600e9),
        "fromminutes": _from(60e9),
        "fromseconds": _from(1e9),
        "frommilliseconds": _from(1e6),
        "fromticks": _from(100),
        "new": lambda *parts: (
            parse_timespan(":".join(str(int(p)) for p in parts))
            if len(parts) == 3
            else TimeSpan(int(parts[0]) * 100)
        ),
    },
    # [DateTimeOffset]: fayshell's are dates (Local or Utc) that also answer ToUnixTimeSeconds
    "datetimeoffset": {
        "now": DateTime.local_now,
        "utcnow": lambda: DateTime.local_now().to_utc(),
        "unixepoch": lambda: DateTime(1970, 1, 1, kind="Utc"),
        "fromunixtimeseconds": _from_unix(1_000_000),
        "fromunixtimemilliseconds": _from_unix(1_000),
        "new": lambda value, *offset: _offset_date(value, *offset),
        "parse": lambda text, *_: parse_date(str(text)),
    },
    "stopwatch": {
        "startnew": Stopwatch.StartNew,
        "new": Stopwatch,
        "frequency": lambda: 1_000_000_000,
        "ishighresolution": lambda: True,
    },
}


def _kind(value: Any) -> Kind:
    """A DateTimeKind argument: Utc, Local or Unspecified (any case)."""
    for kind in ("Utc", "Local", "Unspecified"):
        if str(value).lower() == kind.lower():
            return kind
    raise ValueError(f"'{value}' is not a DateTimeKind (Utc, Local, Unspecified)")


def _local_zone_id() -> str:
    """The machine's time zone name: $TZ, else what /etc/localtime links to, else UTC."""
    named = os.environ.get("TZ", "").lstrip(":")
    if not named:
        link = os.path.realpath("/etc/localtime")
        named = link.split("zoneinfo/", 1)[1] if "zoneinfo/" in link else "UTC"
    return named


@dataclasses.dataclass(frozen=True)
class TimeZoneInfo:
    """``[TimeZoneInfo]::Local``, ``::Utc``, ``::FindSystemTimeZoneById('Europe/Paris')``:
    an IANA time zone, for converting trace times (UTC) to a place's wall clock."""

    Id: str
    TYPE_NAME = "System.TimeZoneInfo"

    @property
    def zone(self) -> tzinfo:
        try:
            return zoneinfo.ZoneInfo(self.Id)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return UTC

    @property
    def StandardName(self) -> str:  # noqa: N802 - .NET property name
        return datetime(2001, 1, 1, tzinfo=self.zone).tzname() or self.Id

    @property
    def DisplayName(self) -> str:  # noqa: N802 - .NET property name
        offset = int(self.BaseUtcOffset) // 60_000_000_000
        sign = "+" if offset >= 0 else "-"
        return f"(UTC{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}) {self.Id}"

    @property
    def BaseUtcOffset(self) -> TimeSpan:  # noqa: N802 - .NET property name
        return _span(datetime(2001, 1, 1, tzinfo=self.zone).utcoffset() or timedelta(0))

    def GetUtcOffset(self, when: Any) -> TimeSpan:  # noqa: N802 - .NET method name
        return _span(self._aware(when).utcoffset() or timedelta(0))

    def IsDaylightSavingTime(self, when: Any) -> bool:  # noqa: N802 - .NET method name
        return bool(self._aware(when).dst())

    def _aware(self, when: Any) -> datetime:
        return _instant(to_datetime(when)).astimezone(self.zone)

    def __str__(self) -> str:
        return self.DisplayName


def _span(delta: timedelta) -> TimeSpan:
    return TimeSpan(delta // timedelta(microseconds=1) * 1000)


def _instant(when: datetime) -> datetime:
    """An aware instant: a Utc date as UTC, a Local or Unspecified one as this machine's."""
    if when.tzinfo is not None:
        return when
    naive = when.naive() if isinstance(when, DateTime) else when
    return naive.replace(tzinfo=UTC) if getattr(when, "Kind", "") == "Utc" else naive.astimezone()


def local_zone() -> TimeZoneInfo:
    """This machine's time zone ([TimeZoneInfo]::Local, Get-TimeZone)."""
    return TimeZoneInfo(_local_zone_id())


def _zone(value: Any) -> TimeZoneInfo:
    if isinstance(value, TimeZoneInfo):
        return value
    return find_zone(str(value))


def find_zone(zone_id: str) -> TimeZoneInfo:
    """``FindSystemTimeZoneById``: .NET's TimeZoneNotFoundException for an unknown id."""
    if zone_id.upper() == "UTC" or zone_id in zoneinfo.available_timezones():
        return TimeZoneInfo("UTC" if zone_id.upper() == "UTC" else zone_id)
    raise NetException(
        f"The time zone ID '{zone_id}' was not found on the local computer.",
        "System.TimeZoneNotFoundException",
    )


def convert_time(when: Any, to: Any, source: Any = None) -> DateTime:
    """``ConvertTime(date, zone)`` and the By-id forms: the wall clock in ``to`` (a date of
    unspecified kind; Utc or Local when ``to`` is one of those)."""
    moment = to_datetime(when)
    if source is not None:  # the date is a wall clock in ``source``
        naive = moment.naive() if isinstance(moment, DateTime) else moment
        aware = naive.replace(tzinfo=_zone(source).zone)
    else:
        aware = _instant(moment)
    target = _zone(to)
    kind: Kind = (
        "Utc" if target.Id == "UTC" else "Local" if target.Id == _local_zone_id() else "Unspecified"
    )
    return DateTime.of(aware.astimezone(target.zone).replace(tzinfo=None), kind)


STATICS["timezoneinfo"] = {
    "local": local_zone,
    "utc": lambda: TimeZoneInfo("UTC"),
    "findsystemtimezonebyid": lambda zone_id: find_zone("" if zone_id is None else str(zone_id)),
    "getsystemtimezones": lambda: [TimeZoneInfo(z) for z in sorted(zoneinfo.available_timezones())],
    "converttime": convert_time,
    "converttimebysystemtimezoneid": lambda when, *ids: convert_time(when, ids[-1], *ids[:-1]),
    "converttimefromutc": lambda when, to: convert_time(DateTime.of(to_datetime(when), "Utc"), to),
    "converttimetoutc": lambda when, *source: convert_time(when, "UTC", *source),
}

TYPE_ALIASES = {
    "system.timezoneinfo": "timezoneinfo",
    "system.datetime": "datetime",
    "system.timespan": "timespan",
    "duration": "timespan",
    "system.diagnostics.stopwatch": "stopwatch",
    "system.datetimeoffset": "datetimeoffset",
    "diagnostics.stopwatch": "stopwatch",
}


def static_member(type_name: str, name: str, args: list[Any] | None = None) -> Any:
    """``[datetime]::Now``, ``[datetime]::Parse(s)``, ``[timespan]::FromMinutes(5)``...:
    the value, or NOT_HANDLED for other types and names (``args`` None for a property)."""
    key = type_name.lower().strip("[]")
    table = STATICS.get(TYPE_ALIASES.get(key, key))
    member = table.get(name.lower()) if table else None
    if member is None:
        return NOT_HANDLED
    try:
        return member(*(args or []))
    except NetException:
        raise  # .NET's own exception: the call's error names the method
    except (TypeError, ValueError) as exc:
        raise DateError(f"[{type_name}]::{name}: {exc}") from None
