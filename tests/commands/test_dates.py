"""Get-Date, New-TimeSpan and DateTime values: properties, methods, .NET format strings,
-UFormat and date arithmetic, checked against what PowerShell documents."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import datetime

import pytest

from fayshell.errors import ParameterError, RuntimeFayError
from fayshell.lang.dates import DateTime
from fayshell.lang.values import Duration


@pytest.fixture
def zone() -> Iterator[None]:
    """Local time is UTC-5 (no DST) for the test, whatever the machine says."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "EST+5"
    time.tzset()
    yield
    if saved is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = saved
    time.tzset()


async def one(shell, source: str):
    (value,) = await shell.run(source)
    return value


async def test_format_strings_custom_and_standard(shell, zone) -> None:
    d = "Get-Date -Year 2024 -Month 3 -Day 5 -Hour 14 -Minute 7 -Second 9 -Millisecond 45"
    assert await one(shell, f"{d} -Format 'yyyy-MM-dd HH:mm:ss'") == "2024-03-05 14:07:09"
    assert (
        await one(shell, f"{d} -Format 'dddd d MMM yy h:m:s tt fff'")
        == "Tuesday 5 Mar 24 2:7:9 PM 045"
    )
    assert await one(shell, f"{d} -Format o") == "2024-03-05T14:07:09.0450000-05:00"
    assert await one(shell, f"{d} -Format s") == "2024-03-05T14:07:09"
    assert await one(shell, f"{d} -Format u") == "2024-03-05 14:07:09Z"
    assert await one(shell, f"{d} -Format d") == "3/5/2024"
    assert await one(shell, f"{d} -Format D") == "Tuesday, March 5, 2024"
    assert await one(shell, f"{d} -Format \"yyyy'W'ww\"") == "2024Www"
    assert await one(shell, f"{d} -Format FileDate") == "20240305"
    assert await one(shell, f"{d} -AsUTC -Format o") == "2024-03-05T19:07:09.0450000Z"


async def test_uformat_specifiers(shell, zone) -> None:
    d = "Get-Date -Date '2024-03-05 14:07:09'"
    assert await one(shell, f"{d} -UFormat '%Y-%m-%d %H:%M:%S'") == "2024-03-05 14:07:09"
    assert (
        await one(shell, f"{d} -UFormat '%A %a %B %b %j %u %w %V %G %C %y'")
        == "Tuesday Tue March Mar 065 2 2 10 2024 20 24"
    )
    assert await one(shell, f"{d} -UFormat '%s'") == "1709665629"  # local 14:07 is 19:07 UTC
    assert await one(shell, f"{d} -UFormat '%e|%k|%l|%p|%Z|%%'") == " 5|14| 2|PM|-05|%"
    assert await one(shell, "Get-Date -Date '2021-01-01' -UFormat '%V %G %g %U'") == "53 2020 20 00"


async def test_date_values_properties_and_methods(shell, zone) -> None:
    await shell.run("$d = Get-Date -Date '2024-02-28 23:30:00'")
    assert await shell.run("$d.Year, $d.Month, $d.Day, $d.Hour, $d.Minute, $d.Second") == [
        2024,
        2,
        28,
        23,
        30,
        0,
    ]
    out = await shell.run("$d.DayOfWeek, $d.DayOfYear, $d.Kind")
    assert [str(v) for v in out] == ["Wednesday", "59", "Unspecified"]
    # .NET: new DateTime(2024, 1, 1).Ticks == 638396640000000000; then 58 days and 23.5 hours
    assert await one(shell, "$d.Ticks") == 638396640000000000 + (58 * 24 + 23.5) * 36_000_000_000
    assert await one(shell, "$d.AddDays(1).ToString('yyyy-MM-dd')") == "2024-02-29"
    assert await one(shell, "$d.AddHours(1).AddMinutes(30).ToString('s')") == "2024-02-29T01:00:00"
    assert await one(shell, "$d.AddSeconds(-30).Second") == 30
    assert await one(shell, "$d.AddMonths(12).ToString('d')") == "2/28/2025"
    assert await one(shell, "([datetime]'2024-01-31').AddMonths(1).Day") == 29
    assert await one(shell, "$d.ToUniversalTime().ToString('o')") == "2024-02-29T04:30:00.0000000Z"
    assert await one(shell, "$d.Date.ToString('s')") == "2024-02-28T00:00:00"
    assert await one(shell, '"$d"') == "02/28/2024 23:30:00"  # invariant, as PowerShell
    assert await one(shell, "$d.ToString()") == "2/28/2024 11:30:00 PM"
    assert await one(shell, "$d -is [datetime]") is True
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("$d.AddCenturies(1)")
    assert "does not contain a method named 'AddCenturies'" in info.value.one_line()


async def test_subtraction_gives_a_duration_with_timespan_members(shell) -> None:
    await shell.run(
        "$span = (Get-Date -Date '2024-03-05 12:00') - (Get-Date -Date '2024-03-01 10:30:15')"
    )
    span = await one(shell, "$span")
    assert isinstance(span, Duration)
    assert await shell.run("$span.Days, $span.Hours, $span.Minutes, $span.Seconds") == [
        4,
        1,
        29,
        45,
    ]
    assert await one(shell, "$span.TotalHours") == pytest.approx(97.4958333)
    assert await one(shell, "$span.TotalSeconds") == 350985.0
    assert await one(shell, "((Get-Date -Date '2024-03-05') + 90m).ToString('HH:mm')") == "01:30"
    assert await one(shell, "((Get-Date -Date '2024-03-05') - 1h).Day") == 4
    assert await one(shell, "[datetime]'2024-03-05' -lt [datetime]'2024-03-06'") is True
    assert await one(shell, "[datetime]'2024-03-05' -eq '2024-03-05'") is True
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("(Get-Date) * 2")
    assert "cannot apply '*' to a date" in info.value.one_line()


async def test_now_unix_time_and_component_parameters(shell, zone) -> None:
    before = datetime.now()
    now = await one(shell, "Get-Date")
    assert isinstance(now, DateTime) and now.Kind == "Local"
    assert before <= now <= datetime.now()
    assert (
        await one(shell, "Get-Date -UnixTimeSeconds 0 -AsUTC -Format o")
        == "1970-01-01T00:00:00.0000000Z"
    )
    assert await one(shell, "(Get-Date -UnixTimeSeconds 86400).Hour") == 19  # UTC-5
    assert (
        await one(shell, "(Get-Date -Date '2024-03-05 10:11:12' -Hour 1).ToString('s')")
        == "2024-03-05T01:11:12"
    )
    assert await one(shell, "'2024-12-25' | Get-Date -Format 'dddd'") == "Wednesday"


async def test_bad_dates_and_formats_are_one_line_errors(shell) -> None:
    cases = {
        "Get-Date -Month 13": "Get-Date -Month: 13 is greater than the maximum allowed range of 12",
        "Get-Date -Date 'not a date'": "cannot convert 'not a date' to a date",
        "Get-Date -Format q": "'q' is not a standard date format",
        "Get-Date -Format x -UFormat %Y": "-UFormat: cannot be used together with -Format",
        "[datetime]'31/31/2024'": "cannot convert '31/31/2024' to a date",
    }
    for source, message in cases.items():
        with pytest.raises((ParameterError, RuntimeFayError)) as info:
            await shell.run(source)
        assert message in info.value.one_line(), source


async def test_new_timespan(shell) -> None:
    assert await one(shell, "New-TimeSpan -Hours 1 -Minutes 30") == Duration(90 * 60 * 10**9)
    assert await one(shell, "(New-TimeSpan -Start '2024-01-01' -End '2024-03-01').Days") == 60
    assert await one(shell, "(New-TimeSpan -Seconds 90).TotalMinutes") == 1.5


async def test_get_member_names_the_type_and_properties(shell) -> None:
    members = await shell.run("Get-Date | Get-Member -MemberType Property")
    assert {m.TypeName for m in members} == {"System.DateTime"}
    assert {"DayOfWeek", "Ticks", "Year"} <= {m.Name for m in members}


async def test_display_hint_shows_one_part(shell) -> None:
    d = "Get-Date -Date '2024-01-15 13:05'"
    assert await shell.text(f"{d} -DisplayHint Date") == "\nMonday, January 15, 2024\n"
    assert await shell.text(f"{d} -DisplayHint Time") == "\n1:05:00 PM\n"
    assert await shell.text(d) == "\nMonday, January 15, 2024 1:05:00 PM\n"


async def test_convert_from_json_reads_iso_date_times_as_dates(shell, zone) -> None:
    doc = (
        '\'{"z": "2024-03-05T10:00:00Z", "off": ["2024-03-05T10:00:00.1234567+02:00"], '
        '"plain": "2024-03-05T10:00:00", "day": "2024-03-05", "text": "at 2024-03-05T10:00:00"}\''
    )
    (o,) = await shell.run(f"{doc} | ConvertFrom-Json")
    assert isinstance(o["z"], DateTime) and (o["z"].Kind, o["z"].hour) == ("Utc", 10)
    (off,) = o["off"]
    assert (off.Kind, off.hour, off.microsecond) == ("Local", 3, 123456)  # 08:00Z in UTC-5
    assert (o["plain"].Kind, o["plain"].hour) == ("Unspecified", 10)
    assert o["day"] == "2024-03-05" and o["text"] == "at 2024-03-05T10:00:00"
    newer = f"({doc} | ConvertFrom-Json).z -gt (Get-Date -Year 2024 -Month 1 -Day 1)"
    assert await shell.run(newer) == [True]
    assert await shell.run(
        "Get-Date -Year 2024 -Month 3 -Day 5 | ConvertTo-Json | ConvertFrom-Json | % Month"
    ) == [3]


async def test_format_operator_writes_dates_in_the_en_us_culture(shell) -> None:
    src = (
        "$d = [datetime]'2024-03-10 09:05'; '{0:t}' -f $d; '{0:d}' -f $d; '{0}' -f $d; "
        "'{0:g}' -f $d; [string]::Format('{0:D}', $d); \"$d\""
    )
    assert await shell.run(src) == [
        "9:05 AM",
        "3/10/2024",
        "3/10/2024 9:05:00 AM",
        "3/10/2024 9:05 AM",
        "Sunday, March 10, 2024",
        "03/10/2024 09:05:00",  # inside a string: the invariant culture, as in PowerShell
    ]


async def test_a_date_piped_to_get_date_is_the_date_itself(shell, tmp_path) -> None:
    """A DateTime binds -Date as it is (not its own Date property, midnight); another object
    binds by its Date or LastWriteTime property; text converts."""
    f = tmp_path / "f.txt"
    f.write_text("x")
    out = await shell.run(
        "[datetime]'2020-03-04 05:06:07' | Get-Date -Format 'HH:mm:ss'; "
        "[pscustomobject]@{ Date = '2021-01-01 10:00' } | Get-Date -Format 'HH:mm'; "
        "'2020-03-04 05:06:07' | Get-Date -Format 'ss'; "
        f"(Get-Item '{f}' | Get-Date) -eq (Get-Item '{f}').LastWriteTime"
    )
    assert out == ["05:06:07", "10:00", "07", True]


async def test_uptime_is_the_time_since_the_machine_started(shell) -> None:
    seconds = float(open("/proc/uptime").read().split()[0])  # noqa: SIM115 - one read
    out = await shell.run(
        "$u = Get-Uptime; $u.GetType().Name; $u.TotalSeconds; "
        "((Get-Date) - (Get-Uptime -Since)).TotalSeconds"
    )
    assert out[0] == "TimeSpan"
    assert seconds <= out[1] < seconds + 30
    assert abs(out[2] - out[1]) < 30


async def test_time_zones_local_by_id_pattern_and_all(shell) -> None:
    out = await shell.run(
        "(Get-TimeZone -Id 'Europe/Paris').BaseUtcOffset.TotalHours; "
        "(Get-TimeZone 'Asia/Tok*').Id; (Get-TimeZone -ListAvailable).Count -gt 100; "
        "(Get-TimeZone).Id -eq [TimeZoneInfo]::Local.Id"
    )
    assert out == [1, "Asia/Tokyo", True, True]
    out = await shell.run("try { Get-TimeZone -Id Mars/Base } catch { $_.Exception.Message }")
    assert out == ["The time zone ID 'Mars/Base' was not found on the local computer."]
