"""fayshell.lang.dates on its own: .NET formats, parsing, kinds, spans and static members."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from fayshell.errors import FayError
from fayshell.lang.dates import (
    NOT_HANDLED,
    DateError,
    DateTime,
    call_method,
    format_date,
    parse_date,
    parse_timespan,
    static_member,
    uformat,
)
from fayshell.lang.values import Duration

D = DateTime(2024, 3, 5, 14, 7, 9, 45_600)


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("yyyy-MM-dd", "2024-03-05"),
        ("%d", "5"),
        ("%M", "3"),
        ("MMMM", "March"),
        ("ddd, MMM d", "Tue, Mar 5"),
        ("hh:mm tt", "02:07 PM"),
        ("H:m:s", "14:7:9"),
        ("fff", "045"),
        ("FFFFFFF", "0456"),
        ("ss.FFF", "09.045"),
        ("yyyyy", "02024"),
        ("%y", "24"),
        ("t", "2:07 PM"),
        ("T", "2:07:09 PM"),
        ("g", "3/5/2024 2:07 PM"),
        ("M", "March 5"),
        ("Y", "March 2024"),
        ("r", "Tue, 05 Mar 2024 14:07:09 GMT"),
        ("s", "2024-03-05T14:07:09"),
        ("o", "2024-03-05T14:07:09.0456000"),
        ("'year' yyyy", "year 2024"),
        ('"at" HH\\h', "at 14h"),
    ],
)
def test_format_strings(fmt: str, expected: str) -> None:
    assert format_date(D, fmt) == expected


def test_kinds_decide_the_zone_suffix() -> None:
    utc = DateTime(2024, 3, 5, 14, 0, kind="Utc")
    assert format_date(utc, "o") == "2024-03-05T14:00:00.0000000Z"
    assert format_date(utc, "%K") == "Z" and format_date(D, "%K") == ""
    assert DateTime.of(datetime(2024, 3, 5, tzinfo=UTC)).Kind == "Utc"


def test_bad_format_strings() -> None:
    with pytest.raises(DateError, match="not a standard date format"):
        format_date(D, "x")
    with pytest.raises(DateError, match="unclosed quote"):
        format_date(D, "yyyy 'oops")


def test_uformat_leading_plus_and_unknown_specifier() -> None:
    assert uformat(D, "+%Y%m%d %q") == "20240305 q"


@pytest.mark.parametrize(
    "text",
    [
        "2024-03-05",
        "03/05/2024",
        "March 5, 2024",
        "5 March 2024",
        "Mar 5 2024",
        "2024/03/05",
        "Tuesday, March 5, 2024",
    ],
)
def test_parse_date_forms(text: str) -> None:
    assert parse_date(text).naive() == datetime(2024, 3, 5)


def test_parse_date_with_zone_is_local_and_time_only_is_today() -> None:
    parsed = parse_date("2024-03-05T10:00:00Z")
    assert parsed.Kind == "Local"
    assert parsed.to_utc().naive() == datetime(2024, 3, 5, 10)
    assert parse_date("10:30").naive().date() == datetime.now().date()
    with pytest.raises(DateError, match="cannot convert 'soon' to a date"):
        parse_date("soon")


def test_methods_and_arguments() -> None:
    assert call_method(D, "AddYears", [1]).Year == 2025
    assert call_method(DateTime(2024, 2, 29), "AddYears", [1]).Day == 28
    assert call_method(D, "CompareTo", [DateTime(2025, 1, 1)]) == -1
    assert call_method(D, "Equals", ["2024-03-05 14:07:09.0456"]) is True
    assert call_method(datetime(2024, 3, 5), "ToString", ["dddd"]) == "Tuesday"
    assert call_method(Duration(90_000_000_000), "Add", [Duration(30_000_000_000)]) == Duration(
        120_000_000_000
    )
    assert call_method("text", "AddDays", [1]) is NOT_HANDLED
    with pytest.raises(DateError, match="does not take 3 arguments"):
        call_method(D, "AddDays", [1, 2, 3])
    with pytest.raises(DateError, match="outside the range of dates"):
        call_method(DateTime(9999, 12, 31), "AddDays", [1])


def test_timespan_members_and_parsing() -> None:
    span = Duration(
        -(timedelta(days=1, hours=2, minutes=3, seconds=4.5) // timedelta(microseconds=1)) * 1000
    )
    assert (span.Days, span.Hours, span.Minutes, span.Seconds, span.Milliseconds) == (
        -1,
        -2,
        -3,
        -4,
        -500,
    )
    assert parse_timespan("-1.02:03:04.5") == span
    assert parse_timespan("01:30") == Duration(90 * 60 * 10**9)
    with pytest.raises(DateError, match="out of range"):
        parse_timespan("25:00:00")


def test_static_members() -> None:
    assert static_member("datetime", "DaysInMonth", [2024, 2]) == 29
    assert static_member("System.DateTime", "IsLeapYear", [2023]) is False
    assert str(static_member("datetime", "new", [2024, 1, 15]).DayOfWeek) == "Monday"
    assert static_member("datetime", "UnixEpoch").Kind == "Utc"
    assert static_member("timespan", "FromMinutes", [1.5]) == Duration(90 * 10**9)
    assert static_member("math", "Pi") is NOT_HANDLED
    with pytest.raises(DateError, match="DaysInMonth"):
        static_member("datetime", "DaysInMonth", [2024, 13])


async def test_timespan_cast_in_the_language(shell) -> None:
    assert await shell.run("([timespan]'01:30:00').TotalMinutes") == [90.0]


def test_seconds_become_the_nearest_nanosecond() -> None:
    # 16479.87 * 1e9 is 16479869999999.998 as a float: truncating it gave Get-Uptime a
    # TotalSeconds a hair under what /proc/uptime says (16479.869999999).
    assert Duration.from_seconds(16479.87).TotalSeconds == 16479.87
    assert Duration.from_seconds(-0.1) == -100_000_000


async def test_numbers_of_seconds_keep_their_value(shell) -> None:
    assert await shell.run("([duration]16479.87).TotalSeconds") == [16479.87]


@pytest.mark.parametrize(
    ("text", "fmt", "expected"),
    [
        ("2024-01-15", "yyyy-MM-dd", datetime(2024, 1, 15)),
        ("15/01/2024 08:05", "dd/MM/yyyy HH:mm", datetime(2024, 1, 15, 8, 5)),
        ("Jan 5, 24 3:07:09 PM", "MMM d, yy h:mm:ss tt", datetime(2024, 1, 5, 15, 7, 9)),
        ("20240115T1200", "yyyyMMdd'T'HHmm", datetime(2024, 1, 15, 12)),
    ],
)
def test_parse_exact(text: str, fmt: str, expected: datetime) -> None:
    assert static_member("datetime", "ParseExact", [text, fmt, None]).naive() == expected


def test_parse_exact_mismatch() -> None:
    with pytest.raises(DateError, match="does not match the date format"):
        static_member("datetime", "ParseExact", ["2024-01-15", "dd/MM/yyyy"])


async def test_day_of_week_is_a_name_and_a_number(shell) -> None:
    await shell.run("$d = Get-Date -Date '2024-01-15'")
    assert await shell.run('$d.DayOfWeek -eq "monday"; [int]$d.DayOfWeek; "$($d.DayOfWeek)"') == [
        True,
        1,
        "Monday",
    ]
    assert await shell.run("$d.DayOfWeek -eq 1; $d.AddDays(6).DayOfWeek -lt $d.DayOfWeek") == [
        True,
        True,
    ]


async def test_dates_show_long_but_read_invariant_in_strings(shell) -> None:
    await shell.run("$d = Get-Date -Date '2024-01-15 13:05'")
    assert await shell.text("$d") == "\nMonday, January 15, 2024 1:05:00 PM\n"
    assert await shell.run('"$d"; [string]$d; $d.ToString()') == [
        "01/15/2024 13:05:00",
        "01/15/2024 13:05:00",
        "1/15/2024 1:05:00 PM",
    ]
    assert format(DateTime(2024, 1, 15, 13, 5), "") == "1/15/2024 1:05:00 PM"


async def test_time_zones_convert_trace_times(shell) -> None:
    """[TimeZoneInfo] and [cultureinfo]::InvariantCulture did not exist (ParseExact's usual
    third argument failed)."""
    out = await shell.run(
        "$p = [TimeZoneInfo]::FindSystemTimeZoneById('Europe/Paris'); $p.DisplayName; "
        "$u = [datetime]::SpecifyKind([datetime]'2024-07-01 12:00', 'Utc'); $u.Kind; "
        "[TimeZoneInfo]::ConvertTime($u, $p).ToString('s'); "
        "[TimeZoneInfo]::ConvertTimeFromUtc([datetime]'2024-07-01 12:00', $p).ToString('s'); "
        "[TimeZoneInfo]::ConvertTimeBySystemTimeZoneId([datetime]'2024-01-01 12:00', "
        "'Europe/Paris', 'America/New_York').ToString('s'); "
        "[TimeZoneInfo]::ConvertTimeToUtc([datetime]'2024-07-01 14:00', $p).ToString('u'); "
        "$p.IsDaylightSavingTime([datetime]'2024-07-01'); $p.GetUtcOffset($u).TotalHours; "
        "[TimeZoneInfo]::Utc.Id; "
        "try { [TimeZoneInfo]::FindSystemTimeZoneById('Mars/Base') } "
        "catch [TimeZoneNotFoundException] { 'not found' }; "
        "[datetime]::ParseExact('2024-03-10 15:30', 'yyyy-MM-dd HH:mm', "
        "[Globalization.CultureInfo]::InvariantCulture).Minute; (Get-Culture).Name"
    )
    assert out == [
        "(UTC+01:00) Europe/Paris",
        "Utc",
        "2024-07-01T14:00:00",
        "2024-07-01T14:00:00",
        "2024-01-01T06:00:00",
        "2024-07-01 12:00:00Z",
        True,
        2.0,
        "UTC",
        "not found",
        30,
        "en-US",
    ]
    with pytest.raises(FayError, match="culture 'de-DE' is not available"):
        await shell.run("[cultureinfo]::GetCultureInfo('de-DE')")
