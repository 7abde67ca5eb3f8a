"""How values look in tables and lists: timestamps as UTC datetimes with nanoseconds, trace and
span ids as 16 hex digits, numbers never cut (text columns give way first)."""

from __future__ import annotations

import datetime as dt

import pytest

from fayshell.lang.dates import DateTime
from fayshell.lang.values import Hashtable, MatchGroup, MatchInfo, PSCustomObject
from fayshell.lang.versions import Version
from fayshell.render import (
    fit_widths,
    format_cell,
    is_time_column,
    plain_list,
    plain_table,
    render_lines,
)

NS = 1457113583123456789  # 2016-03-04 17:46:23.123456789 UTC


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ts", True),
        ("ts_entry", True),
        ("TS_START", True),
        ("first_ts", True),
        ("last_ts", True),
        ("ts_ns", False),
        ("dur_ns", False),
        ("dur_ms", False),
        ("tsc", False),
        ("ports", False),
    ],
)
def test_time_columns_by_name(name: str, expected: bool) -> None:
    assert is_time_column(name) is expected


def test_epoch_nanoseconds_show_as_utc_datetime_with_nanoseconds() -> None:
    assert format_cell("ts", NS) == "2016-03-04 17:46:23.123456789"
    assert format_cell("ts_exit", NS + 1) == "2016-03-04 17:46:23.123456790"
    assert format_cell("ts_entry", 1457113583_000000005) == "2016-03-04 17:46:23.000000005"
    # what is not epoch nanoseconds stays a number: relative times, other columns, durations
    assert format_cell("ts", 1234) == "1234"
    assert format_cell("dur_ns", NS) == str(NS)
    assert format_cell("ts", True) == "True"


def test_ids_as_sixteen_hex_digits_like_zipkin() -> None:
    assert format_cell("trace_id", 42) == "000000000000002a"
    assert format_cell("span_id", -1) == "ffffffffffffffff"  # BIGINT storage of a 64-bit id
    assert format_cell("parent_span_id", 0x1234ABCD5678EF01) == "1234abcd5678ef01"
    assert format_cell("parent_span_id", None) == ""
    assert format_cell("count", 42) == "42"


def test_datetime_values_keep_their_precision() -> None:
    when = dt.datetime(2016, 3, 4, 17, 46, 23, 123456)
    assert format_cell("loaded_at", when) == "2016-03-04 17:46:23.123456"


def test_value_types_in_a_cell_read_as_their_tostring_and_records_as_hashtables() -> None:
    assert format_cell("v", Version(2, 13, 1)) == "2.13.1"
    assert format_cell("m", MatchInfo("b", 1, 1, [MatchGroup("b")])) == "b"
    assert format_cell("r", PSCustomObject(a=1, b="x")) == "@{a=1; b=x}"


def test_plain_table_and_list_use_the_display_forms() -> None:
    table = plain_table(["ts", "trace_id", "name"], [[NS, 7, "read"]])
    assert table.splitlines()[2] == "2016-03-04 17:46:23.123456789 0000000000000007 read"
    assert plain_list(["ts"], [[NS]]) == "ts : 2016-03-04 17:46:23.123456789"


def test_a_list_value_of_several_lines_goes_on_under_its_first() -> None:
    assert plain_list(["Line", "B"], [["l1\nl2", 1]]) == "Line : l1\n       l2\nB    : 1"


def test_fit_widths_cuts_text_columns_first() -> None:
    # two numbers (rigid) and two text columns in 40 characters of cells
    widths = fit_widths([10, 30, 12, 20], [True, False, True, False], 40)
    assert widths[0] == 10 and widths[2] == 12
    assert sum(widths) <= 40 and widths[1] == widths[3] == 9
    # wide enough: nothing changes
    assert fit_widths([10, 30, 12, 20], [True, False, True, False], 80) == [10, 30, 12, 20]
    # numbers alone wider than the room: they stay whole, text shrinks to its floor
    assert fit_widths([30, 30, 30], [True, False, True], 40) == [30, 4, 30]


# ---- PowerShell's default output (Out-Default): shapes and framing -------------------------


def ps(**props: object) -> PSCustomObject:
    return PSCustomObject(props)


def test_table_is_framed_by_blank_lines_with_dashes_as_long_as_each_header() -> None:
    lines = render_lines(
        [ps(Name="alpha", Count=12345, Note=None), ps(Name="b", Count=7, Note="x")]
    )
    assert lines == ["", "Name  Count Note", "----  ----- ----", "alpha 12345", "b         7 x", ""]


def test_five_or_more_properties_show_as_a_list_with_blank_lines_between_records() -> None:
    wide = ps(a=1, bb=2, c=3, d=4, e=None)
    assert render_lines([wide, wide]) == [
        "",
        "a  : 1",
        "bb : 2",
        "c  : 3",
        "d  : 4",
        "e  : ",
        "",
        "a  : 1",
        "bb : 2",
        "c  : 3",
        "d  : 4",
        "e  : ",
        "",
    ]


def test_later_custom_objects_join_the_first_ones_table_with_its_columns() -> None:
    lines = render_lines([ps(a=1, b=2), ps(c=3), ps(a=5, b=None, c=9)])
    assert lines == ["", "a b", "- -", "1 2", "", "5", ""]


def test_hashtable_view_has_a_thirty_wide_name_column_and_left_aligned_values() -> None:
    lines = render_lines([Hashtable({"a": 1, "k" * 40: [1, 2]})])
    assert lines == [
        "",
        "Name" + " " * 27 + "Value",
        "----" + " " * 27 + "-----",
        "a" + " " * 30 + "1",
        "k" * 29 + "… {1, 2}",
        "",
    ]


async def test_a_hashtables_entries_show_in_its_view(shell) -> None:
    """$h.GetEnumerator()'s DictionaryEntry items (sorted, say) show as the hashtable does;
    Format-Table keeps their values left-aligned, as PowerShell's view."""
    text = await shell.text("@{ b = 2; a = 1 }.GetEnumerator() | Sort-Object Name")
    assert text.splitlines()[1:4] == [
        "Name" + " " * 27 + "Value",
        "----" + " " * 27 + "-----",
        "a" + " " * 30 + "1",
    ]
    table = await shell.text("@{ a = 1 } | Format-Table -AutoSize")
    assert table.splitlines()[1:4] == ["Name Value", "---- -----", "a    1"]


def test_scalars_print_one_per_line_between_framed_blocks() -> None:
    assert render_lines([1, True, ps(a=1), "s"]) == ["1", "True", "", "a", "-", "1", "", "s"]
    assert render_lines([2 / 3, 1e20]) == ["0.666666666666667", "1E+20"]


def test_cells_show_shell_dates_short_enum_names_as_text_and_doubles_in_full() -> None:
    when = DateTime(2024, 1, 15, 13, 5, 0)
    lines = render_lines([ps(When=when, Day=when.DayOfWeek, Ratio=2 / 3)])
    assert lines[1:4] == [
        "When                 Day                Ratio",
        "----                 ---                -----",
        "1/15/2024 1:05:00 PM Monday 0.666666666666667",
    ]
    # a date on its own: PowerShell's DateTime view, a block with a blank line around it
    assert render_lines([when, when]) == [
        "",
        "Monday, January 15, 2024 1:05:00 PM",
        "Monday, January 15, 2024 1:05:00 PM",
        "",
    ]


async def test_measure_object_shows_as_a_list_and_get_member_under_its_type_name(shell) -> None:
    text = await shell.text("1, 2, 3 | Measure-Object -Sum")
    assert text.splitlines() == [
        "",
        "Count             : 3",
        "Average           : ",
        "Sum               : 6",
        "Maximum           : ",
        "Minimum           : ",
        "StandardDeviation : ",
        "Property          : ",
    ]
    text = await shell.text("'x', 1 | Get-Member -MemberType Method -Name ToString")
    assert text.splitlines() == [
        "",
        "   TypeName: System.String",
        "",
        "Name     MemberType Definition",
        "----     ---------- ----------",
        "ToString Method     string ToString()",
        "",
        "   TypeName: System.Int32",
        "",
        "Name     MemberType Definition",
        "----     ---------- ----------",
        "ToString Method     string ToString()",
    ]
