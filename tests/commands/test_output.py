"""Output cmdlets: files, strings, formatting, Write-Host, Out-Null."""

from __future__ import annotations

import io

import pytest

from fayshell.cli import run_source
from fayshell.console import ConsoleHost
from fayshell.errors import ParameterError
from fayshell.render import Formatted
from fayshell.state import Options, ShellState


async def test_out_file_writes_rendered_table_and_appends(shell, tmp_path) -> None:
    path = tmp_path / "t.txt"
    await shell.run(f"[pscustomobject]@{{ node = 'web01'; n = 3 }} | Out-File '{path}'")
    await shell.run(f"'tail' | Out-File '{path}' -Append")
    assert path.read_text().splitlines() == ["", "node  n", "----  -", "web01 3", "", "tail"]


async def test_format_table_and_list_shape_output(shell) -> None:
    (table,) = await shell.run("[pscustomobject]@{a=1; b=2; c=3} | Format-Table c, a")
    assert isinstance(table, Formatted) and table.kind == "table"
    assert table.columns == ["c", "a"] and table.rows == [[3, 1]]
    (lst,) = await shell.run("[pscustomobject]@{a=1} | fl")
    assert lst.kind == "list" and lst.columns == ["a"]
    text = await shell.text("[pscustomobject]@{a=1; bb=2} | Format-List")
    assert text == "\na  : 1\nbb : 2\n"


async def test_format_cmdlets_show_a_hashtables_entries(shell) -> None:
    """As PowerShell's formatter enumerates a dictionary: one Name/Value entry per key."""
    assert await shell.text("@{a=1; bb=2} | Format-List") == (
        "\nName  : a\nValue : 1\n\nName  : bb\nValue : 2\n"
    )
    (table,) = await shell.run("@{a=1; b=2} | Format-Table Name")
    assert table.columns == ["Name"] and table.rows == [["a"], ["b"]]


async def test_write_host_goes_to_host_not_output(shell) -> None:
    out = await shell.run("Write-Host 'to the screen' -ForegroundColor red; 'output'")
    assert out == ["output"]
    assert shell.host.lines == ["to the screen"]


async def test_write_host_separator(shell) -> None:
    """-Separator (was "no such parameter"), also between an array's items."""
    await shell.run(
        "Write-Host a b -Separator ','; Write-Host @(1, 2) -Separator '-'; Write-Host a b"
    )
    assert shell.host.lines == ["a,b", "1-2", "a b"]


async def test_out_null_discards(shell) -> None:
    assert await shell.run("1..3 | Out-Null") == []


async def test_write_output_and_echo(shell) -> None:
    assert await shell.run("echo a b; Write-Output (1,2)") == ["a", "b", 1, 2]
    assert await shell.run("Write-Output (1,2) -NoEnumerate") == [[1, 2]]
    assert await shell.run("(Write-Output 1, 2, 3 -NoEnumerate).Count") == [3]


async def test_plain_rendering_aligns_numbers_right(shell) -> None:
    text = await shell.text("[pscustomobject]@{n='a'; v=5}, [pscustomobject]@{n='bbb'; v=12345}")
    assert text.splitlines() == ["", "n       v", "-       -", "a       5", "bbb 12345"]


async def test_out_string_one_string_with_newline_or_lines(shell) -> None:
    assert await shell.run("'a','b' | Out-String") == ["a\nb\n"]
    assert await shell.run("'a','b' | Out-String -NoNewline") == ["a\nb"]
    lines = await shell.run("[pscustomobject]@{node='web01'; n=3} | Out-String -Stream")
    assert lines == ["", "node  n", "----  -", "web01 3", ""]
    assert await shell.run("'abcdef' | Out-String -Stream -Width 3") == ["abc"]
    assert await shell.run("@() | Out-String -Stream") == []


async def test_format_table_wrap_hide_headers_and_autosize(shell) -> None:
    lines = await shell.run(
        "[pscustomobject]@{a=1;b='x'},[pscustomobject]@{a=22;b='y'} | Format-Table -HideTableHeaders"
    )
    assert lines == [" 1 x", "22 y"]
    lines = await shell.run("[pscustomobject]@{a=1; b=('x' * 70)} | Format-Table -Wrap")
    assert lines == ["a b", "- " + "-" * 60, "1 " + "x" * 60, "  " + "x" * 10]
    (table,) = await shell.run("[pscustomobject]@{a=1; b=2} | Format-Table -Property b -AutoSize")
    assert table.columns == ["b"] and table.rows == [[2]]
    assert await shell.text("[pscustomobject]@{a=1; b=2} | Format-List -Property b") == "\nb : 2\n"


async def test_format_table_and_list_group_by(shell) -> None:
    """-GroupBy (was "no such parameter"): a block for each run of one value, under
    "   Name: value", as PowerShell 7 lays it out."""
    src = (
        "$d = [pscustomobject]@{ n = 'a'; g = 1; v = 10 }, "
        "[pscustomobject]@{ n = 'b'; g = 1; v = 200 }, [pscustomobject]@{ n = 'c'; g = 2; v = 3 }"
    )
    await shell.run(src)
    assert await shell.text("$d | Format-Table n, v -GroupBy g") == (
        "\n   g: 1\n\nn   v\n-   -\na  10\nb 200\n\n   g: 2\n\nn v\n- -\nc 3\n"
    )
    assert await shell.text("$d | Format-List n -GroupBy @{ n = 'G'; e = { $_.g * 10 } }") == (
        "\n   G: 10\n\nn : a\n\nn : b\n\n   G: 20\n\nn : c\n"
    )
    assert await shell.run("$d | Format-Table n -GroupBy g -HideTableHeaders") == [
        "",
        "   g: 1",
        "",
        "a",
        "b",
        "",
        "   g: 2",
        "",
        "c",
        "",
    ]


async def test_format_table_calculated_width_and_alignment(shell) -> None:
    """A calculated column's Width and Alignment (they were ignored): a longer value is cut
    with an ellipsis; Left, Right and Center; anything else is a one-line error."""
    src = (
        "[pscustomobject]@{ n = 'a'; v = 10 }, [pscustomobject]@{ n = 'bbbbbbbbbbbb'; v = 200 } "
        "| Format-Table @{ n = 'Name'; e = { $_.n }; Width = 8 }, "
        "@{ l = 'V'; e = { $_.v }; Alignment = 'Left' }, @{ n = 'C'; e = { 'x' }; Align = 'Center'; Width = 5 }"
    )
    assert await shell.text(src) == (
        "\nName     V     C\n----     -     -\na        10    x\nbbbbbbb… 200   x\n"
    )
    with pytest.raises(ParameterError):
        await shell.run("1 | Format-Table @{ e = { 1 }; Alignment = 'Middle' }")


async def test_out_host_shows_now_and_outputs_nothing(shell) -> None:
    assert await shell.run("'a', 'b' | Out-Host; 'after'") == ["after"]
    assert shell.host.lines == ["a\nb"]
    assert await shell.run("Out-Host -InputObject 3 -Paging") == []
    assert shell.host.lines[-1] == "3"


async def test_format_wide_lays_values_out_in_columns(shell) -> None:
    lines = await shell.run("1..5 | Format-Wide")
    assert lines == ["", "1" + " " * 38 + "2", "3" + " " * 38 + "4", "5", ""]
    lines = await shell.run("'a','bb','ccc' | Format-Wide -Column 3")
    assert lines[1].split() == ["a", "bb", "ccc"] and lines[1].index("bb") == 26
    lines = await shell.run(
        "[pscustomobject]@{Name='web01'; n=1}, [pscustomobject]@{Name='web02'; n=2} | fw"
    )
    assert lines[1].split() == ["web01", "web02"]
    assert (await shell.run("[pscustomobject]@{Name='x'; n=7} | Format-Wide n"))[1] == "7"
    wide = await shell.run("1..30 | Format-Wide -AutoSize")  # 26 of 3 characters fit in 79
    assert [len(line.split()) for line in wide] == [0, 26, 4, 0]


async def test_format_string_of_a_calculated_property(shell) -> None:
    (table,) = await shell.run(
        "[pscustomobject]@{n='a'; v=1.23456} | "
        "Format-Table n, @{Label='Val'; Expression={ $_.v }; FormatString='N2'}"
    )
    assert table.columns == ["n", "Val"] and table.rows == [["a", "1.23"]]
    text = await shell.text(
        "[pscustomobject]@{d=[datetime]'2024-03-05 14:30'} | "
        "Format-List @{n='when'; e='d'; FormatString='yyyy-MM-dd HH:mm'}"
    )
    assert text == "\nwhen : 2024-03-05 14:30\n"


async def test_objects_of_dotnet_types_show_their_properties_not_python_text(shell) -> None:
    """A Stopwatch (and $Host.UI.RawUI) printed as Python's <... object at 0x...>."""
    text = await shell.text("[Diagnostics.Stopwatch]::new()")
    assert text.split()[:4] == ["IsRunning", "Elapsed", "ElapsedMilliseconds", "ElapsedTicks"]
    assert "object at" not in text
    raw = await shell.text("$Host.UI.RawUI")
    assert "WindowTitle     : fayshell" in raw.splitlines()
    out = await shell.run(
        '$sw = [Diagnostics.Stopwatch]::new(); "$sw"; ($sw | ConvertTo-Json -Compress) -match '
        '\'^\\{"IsRunning":false,"Elapsed":\\{"Ticks":0,\'; "$($Host.UI.RawUI.WindowSize)" -match '
        "'^\\d+,\\d+$'; \"$(Get-Host)\""
    )
    assert out == [
        "System.Diagnostics.Stopwatch",
        True,
        True,
        "@{Name=ConsoleHost; Version=7.4.0; CurrentCulture=en-US; CurrentUICulture=en-US}",
    ]


async def test_a_hashtable_in_a_cell_lists_its_entries(shell) -> None:
    """PowerShell 7 shows a dictionary property as {[k, 1]}; it read as @{k=1}."""
    text = await shell.text("[pscustomobject]@{ h = [ordered]@{ k = 1; j = 'x' }; e = @{} }")
    assert text.splitlines()[3] == "{[k, 1], [j, x]} {}"


async def test_out_default_joins_the_statements_output_on_the_console(tmp_path) -> None:
    """Out-Default shows its input as statements' output is shown: in a real console, records
    of one shape piped to it join the table the statement before left open."""
    out = io.StringIO()
    console = ConsoleHost(out=out, err=io.StringIO(), color=False)
    state = ShellState(Options(database=str(tmp_path / "t.duckdb")), console)
    try:
        src = "[pscustomobject]@{a=1}; [pscustomobject]@{a=2} | Out-Default; $x = 'b' | Out-Default"
        assert await run_source(state, console, src, "<command>") == 0
    finally:
        await state.aclose()
    assert out.getvalue() == "\na\n-\n1\n2\n\nb\n"
