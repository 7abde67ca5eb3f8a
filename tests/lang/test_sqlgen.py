"""Script blocks over a relation: a property the relation does not have is an error naming it,
where it is, and the nearest real column; plain records keep PowerShell's $null."""

from __future__ import annotations

import pytest

from fayshell.errors import UnknownProperty

TABLE = "sql SELECT * FROM (VALUES (1, 'read', 120), (2, 'write', 5000)) AS t(tid, name, dur_ns)"


@pytest.mark.parametrize(
    ("stage", "wrong", "near"),
    [
        ("Where-Object { $_.durr_ns -gt 1 }", "durr_ns", "dur_ns"),
        ("Where-Object { $_.name -eq 'read' -and $_.tidd -eq 1 }", "tidd", "tid"),
        ("Where-Object durr_ns -gt 1", "durr_ns", "dur_ns"),
        ("Sort-Object durr_ns", "durr_ns", "dur_ns"),
        ("Sort-Object { $_.nam }", "nam", "name"),
        ("Select-Object name, durr_ns", "durr_ns", "dur_ns"),
        ("Select-Object @{n='us'; e={ $_.dur_n / 1000 }}", "dur_n", "dur_ns"),
        ("Group-Object nme", "nme", "name"),
        ("Measure-Object durr_ns -Sum", "durr_ns", "dur_ns"),
    ],
)
async def test_unknown_column_is_an_error(shell, stage, wrong, near) -> None:
    source = f"{TABLE} | {stage}"
    with pytest.raises(UnknownProperty) as info:
        await shell.run(source)
    line = info.value.one_line()
    assert f"no property '{wrong}'" in line
    assert line.endswith(f"did you mean {near}?")
    # in a script block the member itself ($_.<name>, at its dot), else the command
    member = f"$_.{wrong}"
    col = source.index(member) + 3 if member in source else source.index(stage) + 1
    assert line.startswith(f"<test>:1:{col}: ")


async def test_no_close_column_lists_the_columns(shell) -> None:
    with pytest.raises(UnknownProperty, match=r"its columns: tid, name, dur_ns"):
        await shell.run(f"{TABLE} | Where-Object {{ $_.zzzzzz -gt 1 }}")


async def test_untranslatable_block_still_checks_columns(shell) -> None:
    """A block that would fall back to row-wise evaluation is checked first (no empty answer)."""
    with pytest.raises(UnknownProperty, match="did you mean name"):
        await shell.run(f"{TABLE} | Where-Object {{ $_.nme.StartsWith('r') }}")


async def test_nested_block_dollar_under_is_not_the_row(shell) -> None:
    out = await shell.run(
        f"{TABLE} | Where-Object {{ $_.name -eq 'read' }} | "
        "ForEach-Object { @(1) | ForEach-Object { $_ } }"
    )
    assert out == [1]


async def test_plain_records_keep_null_for_missing_property(shell) -> None:
    out = await shell.run(
        "@{a=1}, @{a=2} | Where-Object { $_.b -eq $null } | ForEach-Object { $_.a }"
    )
    assert out == [1, 2]


async def test_real_columns_still_translate(shell) -> None:
    out = await shell.run(f"{TABLE} | Where-Object {{ $_.DUR_NS -gt 200 }} -Verbose")
    assert [r["name"] for r in out] == ["write"]
    assert any("WHERE" in s for s in shell.sql_shown())
