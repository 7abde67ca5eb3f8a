"""Dates and time spans: Get-Date and New-TimeSpan (values from fayshell.lang.dates)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import BY_PROPERTY, BY_VALUE_AND_PROPERTY, Param, cmdlet
from fayshell.errors import CommandError, ParameterError
from fayshell.lang.dates import (
    DateError,
    DateTime,
    TimeZoneInfo,
    call_method,
    duration_of,
    find_zone,
    format_date,
    local_zone,
    to_datetime,
)
from fayshell.lang.dates import (
    uformat as unix_format,
)
from fayshell.lang.values import Duration, NetException, TimeSpan

#: Get-Date's component parameters, in the order PowerShell applies them, with their ranges.
PARTS: tuple[tuple[str, int, int], ...] = (
    ("Year", 1, 9999),
    ("Month", 1, 12),
    ("Day", 1, 31),
    ("Hour", 0, 23),
    ("Minute", 0, 59),
    ("Second", 0, 59),
    ("Millisecond", 0, 999),
)
#: -Format names PowerShell expands itself (ISO 8601 basic forms, for file names).
FILE_FORMATS: dict[str, tuple[str, bool]] = {
    "filedate": ("yyyyMMdd", False),
    "filedateuniversal": ("yyyyMMddZ", True),
    "filedatetime": ("yyyyMMddTHHmmssffff", False),
    "filedatetimeuniversal": ("yyyyMMddTHHmmssffffZ", True),
}
UNIX_RANGE = (-62135596800, 253402300799)


def _date_param(command: str, name: str, value: Any) -> DateTime:
    try:
        return to_datetime(value)
    except DateError as exc:
        raise ParameterError(command, name, str(exc)) from None


def _check_range(name: str, value: int, low: int, high: int) -> None:
    if value < low:
        raise ParameterError(
            "Get-Date", name, f"{value} is less than the minimum allowed range of {low}"
        )
    if value > high:
        raise ParameterError(
            "Get-Date", name, f"{value} is greater than the maximum allowed range of {high}"
        )


def _with_parts(dt: DateTime, parts: dict[str, int | None]) -> DateTime:
    """Apply -Year .. -Millisecond the way Get-Date does: by adding the difference."""
    for name, low, high in PARTS:
        value = parts.get(name)
        if value is None:
            continue
        _check_range(name, value, low, high)
        if name == "Millisecond":
            dt = DateTime(
                dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, value * 1000, kind=dt.Kind
            )
        else:
            current = getattr(dt, name)
            method = {"Year": "AddYears", "Month": "AddMonths"}.get(name, f"Add{name}s")
            dt = _add(dt, method, value - current)
    return dt


def _add(dt: DateTime, method: str, amount: int) -> DateTime:
    result = call_method(dt, method, [amount])
    assert isinstance(result, DateTime)
    return result


def _start_date(date: Any, unix_time_seconds: int | None) -> DateTime:
    if date is not None and unix_time_seconds is not None:
        raise ParameterError("Get-Date", "UnixTimeSeconds", "cannot be used together with -Date")
    if unix_time_seconds is not None:
        _check_range("UnixTimeSeconds", unix_time_seconds, *UNIX_RANGE)
        return DateTime.of(datetime.fromtimestamp(unix_time_seconds), "Local")
    return DateTime.local_now() if date is None else _date_param("Get-Date", "Date", date)


@cmdlet(
    "Get-Date",
    synopsis="The current date and time, or a date you give, as a DateTime or a formatted string.",
    params=[
        Param(
            "Date",
            "any",
            position=0,
            pipeline=BY_VALUE_AND_PROPERTY,
            aliases=("LastWriteTime",),
            exact=(datetime,),
            help="The date to use instead of now: a DateTime or a string like '2024-03-05'.",
        ),
        Param(
            "UnixTimeSeconds",
            int,
            aliases=("UnixTime",),
            help="Seconds since 1970-01-01 00:00:00 UTC (shown as local time).",
        ),
        Param("Year", int),
        Param("Month", int),
        Param("Day", int),
        Param("Hour", int),
        Param("Minute", int),
        Param("Second", int),
        Param("Millisecond", int),
        Param(
            "Format",
            str,
            help="A .NET format string: 'yyyy-MM-dd HH:mm:ss', 'o', 's', "
            "'u', or FileDate, FileDateTime, ...Universal.",
        ),
        Param("UFormat", str, help="A Unix format string: '%Y-%m-%d %H:%M:%S', '%s', '%V'."),
        Param("AsUTC", bool, help="Convert to UTC before formatting."),
        Param(
            "DisplayHint",
            str,
            choices=("Date", "Time", "DateTime"),
            help="Show only the date or the time part (the value is the same).",
        ),
    ],
    description="Without -Format/-UFormat the output is a DateTime with Year, Month, Day, "
    "DayOfWeek, DayOfYear, Hour, Minute, Second, Millisecond, Ticks and Kind, and "
    "methods AddDays(), AddHours(), ToString(fmt), ToUniversalTime()... Subtracting "
    "two dates gives a duration (TotalSeconds, TotalHours, Days, ...).",
    examples=[
        ("Get-Date -Format 'yyyy-MM-dd HH:mm:ss'", "Now as a sortable string."),
        ("Get-Date -UFormat '%Y-%m-%d'", "The same with Unix specifiers."),
        ("(Get-Date -Year 2024 -Month 3 -Day 5).DayOfWeek", "The weekday of a date."),
        ("((Get-Date) - (Get-Date '2024-01-01')).TotalDays", "Days since New Year 2024."),
        ("Get-Date -UnixTimeSeconds 0 -AsUTC -Format o", "The Unix epoch, round-trip."),
    ],
)
def get_date(
    ctx: Invocation,
    *,
    date: Any = None,
    unix_time_seconds: int | None = None,
    year: int | None = None,
    month: int | None = None,
    day: int | None = None,
    hour: int | None = None,
    minute: int | None = None,
    second: int | None = None,
    millisecond: int | None = None,
    format: str | None = None,
    uformat: str | None = None,
    as_utc: bool = False,
    display_hint: str | None = None,
) -> Any:
    if format is not None and uformat is not None:
        raise ParameterError("Get-Date", "UFormat", "cannot be used together with -Format")
    dt = _start_date(date, unix_time_seconds)
    dt = _with_parts(
        dt,
        {
            "Year": year,
            "Month": month,
            "Day": day,
            "Hour": hour,
            "Minute": minute,
            "Second": second,
            "Millisecond": millisecond,
        },
    )
    if as_utc:
        dt = dt.to_utc()
    try:
        if uformat is not None:
            return unix_format(dt, uformat)
        if format is not None:
            return _format(dt, format)
    except DateError as exc:
        raise ParameterError("Get-Date", "UFormat" if uformat else "Format", str(exc)) from None
    return _with_hint(dt, display_hint)


def _with_hint(dt: DateTime, hint: str | None) -> DateTime:
    """-DisplayHint Date or Time: the value shows only that part (a copy carries the hint)."""
    if hint in (None, "DateTime"):
        return dt
    shown = DateTime.of(dt)
    shown.DISPLAY = "D" if hint == "Date" else "T"
    return shown


def _format(dt: DateTime, fmt: str) -> str:
    special = FILE_FORMATS.get(fmt.lower())
    if special is not None:
        fmt, universal = special
        dt = dt.to_utc() if universal else dt
    return format_date(dt, fmt)


def _span_part(name: str, value: Any) -> Duration:
    units = {
        "Days": 86_400e9,
        "Hours": 3_600e9,
        "Minutes": 60e9,
        "Seconds": 1e9,
        "Milliseconds": 1e6,
    }
    return Duration(round(float(value) * units[name]))


@cmdlet(
    "New-TimeSpan",
    synopsis="A duration: between two dates, or from days, hours, minutes and seconds.",
    params=[
        Param(
            "Start",
            "any",
            position=0,
            aliases=("LastWriteTime",),
            pipeline=BY_PROPERTY,
            help="The start date (default now).",
        ),
        Param("End", "any", position=1, help="The end date (default now)."),
        Param("Days", float),
        Param("Hours", float),
        Param("Minutes", float),
        Param("Seconds", float),
        Param("Milliseconds", float),
    ],
    description='A TimeSpan as .NET\'s: "$t" reads 01:30:00, the shell lists its Days, '
    "Hours, Minutes, Seconds, Milliseconds, Ticks and Total* properties; it is also a "
    "duration where a cmdlet takes one (-Duration, -Rotate).",
    examples=[
        ("New-TimeSpan -Hours 1 -Minutes 30", "A 90-minute duration."),
        ("(New-TimeSpan -Start '2024-01-01' -End '2024-03-01').Days", "60 days."),
    ],
)
def new_time_span(
    ctx: Invocation,
    *,
    start: Any = None,
    end: Any = None,
    days: float | None = None,
    hours: float | None = None,
    minutes: float | None = None,
    seconds: float | None = None,
    milliseconds: float | None = None,
) -> TimeSpan:
    parts = {
        "Days": days,
        "Hours": hours,
        "Minutes": minutes,
        "Seconds": seconds,
        "Milliseconds": milliseconds,
    }
    given = {k: v for k, v in parts.items() if v is not None}
    if given:
        if start is not None or end is not None:
            raise ParameterError(
                "New-TimeSpan", next(iter(given)), "cannot be used together with -Start or -End"
            )
        return TimeSpan(sum(int(_span_part(k, v)) for k, v in given.items()))
    begin = DateTime.local_now() if start is None else _date_param("New-TimeSpan", "Start", start)
    finish = DateTime.local_now() if end is None else _date_param("New-TimeSpan", "End", end)
    return duration_of(finish.naive() - begin.naive())


@cmdlet(
    "Get-Uptime",
    synopsis="How long this machine has been up (a TimeSpan), or since when (-Since).",
    params=[Param("Since", bool, help="The date and time it started, instead.")],
    examples=[
        ("Get-Uptime", "Days, hours, minutes ... since the machine started."),
        ("(Get-Uptime).TotalHours", "The same in hours."),
        ("Get-Uptime -Since", "When it started."),
    ],
)
def get_uptime(ctx: Invocation, *, since: bool = False) -> TimeSpan | DateTime:
    up = uptime()
    if not since:
        return up
    from datetime import timedelta

    return DateTime.local_now() - timedelta(microseconds=int(up) // 1000)


def uptime() -> TimeSpan:
    """The time since the machine started, from /proc/uptime (Linux's clock for it)."""
    from pathlib import Path

    try:
        seconds = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError) as exc:
        raise CommandError("Get-Uptime", f"cannot read /proc/uptime: {exc}") from None
    return TimeSpan.from_seconds(seconds)


@cmdlet(
    "Get-TimeZone",
    synopsis="This machine's time zone, or the zones named (-Id, wildcards allowed) or all of "
    "them (-ListAvailable).",
    params=[
        Param("Name", "strings", position=0, help="Zone names or patterns ('Europe/*')."),
        Param("Id", "strings", help="Zone ids (IANA names, as Linux has them)."),
        Param("ListAvailable", bool, help="Every zone this machine knows."),
    ],
    examples=[
        ("Get-TimeZone", "The local zone: Id, DisplayName, BaseUtcOffset ..."),
        ("Get-TimeZone -Id Europe/Paris", "A zone by its id, for ConvertTime."),
        ("Get-TimeZone -ListAvailable | Where-Object Id -like 'America/*'", "Zones by name."),
    ],
)
def get_time_zone(
    ctx: Invocation,
    *,
    name: list[str] | None = None,
    id: list[str] | None = None,
    list_available: bool = False,
) -> list[TimeZoneInfo]:
    import zoneinfo

    from fayshell.lang.ops import has_wildcard, wildcard_match

    if list_available:
        return [TimeZoneInfo(z) for z in sorted(zoneinfo.available_timezones())]
    wanted = (name or []) + (id or [])
    if not wanted:
        return [local_zone()]
    out: list[TimeZoneInfo] = []
    for want in wanted:
        if has_wildcard(want):
            zones = sorted(zoneinfo.available_timezones())
            out += [TimeZoneInfo(z) for z in zones if wildcard_match(z, want)]
            continue
        try:
            out.append(find_zone(want))
        except NetException as exc:
            ctx.write_error(
                ErrorRecord(
                    want,
                    "",
                    str(exc),
                    category="ObjectNotFound",
                    names_target=True,
                    exception=exc.type_name,
                )
            )
    return out
