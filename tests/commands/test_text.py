"""Join-String, Select-String and Format-Hex."""

from __future__ import annotations

import pytest

from fayshell.commands.text import dotnet_format
from fayshell.errors import FayError


async def test_join_string_parameters(shell) -> None:
    assert await shell.run("1..3 | Join-String") == ["123"]
    assert await shell.run("1..3 | Join-String -Separator ', '") == ["1, 2, 3"]
    assert await shell.run("'a','b' | Join-String -SingleQuote -Separator ','") == ["'a','b'"]
    assert await shell.run("'a','b' | Join-String -DoubleQuote -Separator ','") == ['"a","b"']
    assert await shell.run(
        "1..2 | Join-String -OutputPrefix '[' -OutputSuffix ']' -Separator ';'"
    ) == ["[1;2]"]
    assert await shell.run("@{n='x'},@{n='y'} | Join-String n -Separator '|'") == ["x|y"]
    assert await shell.run("@{n=1},@{n=2} | Join-String { $_.n * 10 } ','") == ["10,20"]
    assert await shell.run("1.5, 2 | Join-String -FormatString '{0:N2}' -Separator ' '") == [
        "1.50 2.00"
    ]
    assert await shell.run("@() | Join-String -OutputPrefix '<' -OutputSuffix '>'") == ["<>"]
    assert await shell.run("$OFS = '+'; 1, $null, 2 | Join-String") == ["1+2"]


def test_dotnet_format_items() -> None:
    assert dotnet_format("[{0,5}|{0,-5}]", 42) == "[   42|42   ]"
    assert (
        dotnet_format("{0:N1} {0:F3} {1:D4} {1:X} {1:x2} {2:P1}", 1234.56, 10, 0.125)
        == "1,234.6 1234.560 0010 A 0a 12.5 %"
    )
    assert dotnet_format("{{{0}}}", "x") == "{x}"


async def test_select_string_lines_and_matchinfo(shell) -> None:
    text = await shell.text("'apple','banana','cherry' | Select-String 'an'")
    assert text == "banana"
    (info,) = await shell.run("'apple','Banana' | Select-String 'AN'")
    assert (info.Line, info.LineNumber, info.Path, info.Filename, info.Pattern) == (
        "Banana",
        2,
        "InputStream",
        "InputStream",
        "AN",
    )
    assert [str(m) for m in info.Matches] == ["an"]
    assert await shell.run("('a1b22c333' | Select-String '\\d+' -AllMatches).Matches.Value") == [
        "1",
        "22",
        "333",
    ]
    assert await shell.run(
        "('k=v' | Select-String '(?<key>\\w)=(?<val>\\w)').Matches[0].Groups[2].Value"
    ) == ["v"]


async def test_select_string_switches(shell) -> None:
    lines = "'Error: a', 'error: b', 'ok', 'a.b'"
    assert await shell.run(f"{lines} | Select-String Error -CaseSensitive | % Line") == ["Error: a"]
    assert await shell.run(f"{lines} | Select-String error -NotMatch | % Line") == ["ok", "a.b"]
    assert await shell.run(f"{lines} | Select-String '.' -SimpleMatch | % Line") == ["a.b"]
    assert await shell.run(f"{lines} | Select-String 'ok','a\\.b' -Raw") == ["ok", "a.b"]
    assert await shell.run(f"{lines} | Select-String nothing -Quiet") == [False]
    assert await shell.run(f"{lines} | Select-String '.' -List | % Line") == ["Error: a"]
    with pytest.raises(FayError) as info:
        await shell.run("'x' | Select-String '('")
    assert "invalid regular expression" in info.value.one_line()


async def test_select_string_files_and_context(shell, tmp_path) -> None:
    log = tmp_path / "app.log"
    log.write_text("start\nwarn disk\nfail net\nstop\n")
    (hit,) = await shell.run(f"Select-String -Path '{log}' -Pattern fail")
    assert (hit.Filename, hit.LineNumber, str(hit)) == ("app.log", 3, f"{log}:3:fail net")
    (ctx,) = await shell.run(f"Select-String fail '{log}' -Context 1,1")
    assert ctx.Context.PreContext == ["warn disk"] and ctx.Context.PostContext == ["stop"]
    assert str(ctx).splitlines() == [
        f"  {log}:2:warn disk",
        f"> {log}:3:fail net",
        f"  {log}:4:stop",
    ]
    hits = await shell.run(f"Select-String -Path '{tmp_path}/*.log' -Pattern 'a'")
    assert [h.LineNumber for h in hits] == [1, 2, 3]
    with pytest.raises(FayError):
        await shell.run(f"Select-String x -Path '{tmp_path}/none.txt'")


async def test_select_string_searches_the_files_piped_to_it(shell, tmp_path) -> None:
    """Get-ChildItem's files bind to -Path, as in PowerShell: their lines are searched (not
    their names); folders are passed over, text items are lines."""
    (tmp_path / "a.log").write_text("ok\nfail a\n")
    (tmp_path / "[b].log").write_text("fail b\n")  # a name glob would read as a pattern
    (tmp_path / "dir.log").mkdir()
    hits = await shell.run(f"Get-ChildItem '{tmp_path}' | Select-String fail")
    assert [(h.Filename, h.LineNumber, h.Line) for h in hits] == [
        ("[b].log", 1, "fail b"),
        ("a.log", 2, "fail a"),
    ]
    assert await shell.run("'fail c', 'ok' | Select-String fail -Raw") == ["fail c"]


async def test_select_string_shows_paths_relative_to_the_current_directory(
    shell, tmp_path, monkeypatch
) -> None:
    (tmp_path / "app.log").write_text("ok\nfail net\n")
    await shell.run(f"cd '{tmp_path}'")  # the shell's location, not the process's directory
    (hit,) = await shell.run("Select-String fail app.log")
    assert (str(hit), hit.Path) == ("app.log:2:fail net", str(tmp_path / "app.log"))


async def test_format_hex_shows_a_files_bytes_at_their_offsets(shell, tmp_path) -> None:
    f = tmp_path / "channel0_0"
    f.write_bytes(bytes(4096) + (0xC1FC1FC1).to_bytes(4, "little") + b"packet\x00\x01rest")
    lines = await shell.run(f"Format-Hex '{f}' -Offset 4096 -Count 20")
    assert [(x.HexOffset, x.HexBytes, x.Ascii) for x in lines] == [
        ("0000000000001000", "C1 1F FC C1 70 61 63 6B 65 74 00 01 72 65 73 74", "Á.üÁpacket..rest"),
    ]
    assert lines[0].Label == lines[0].Path == str(f) and lines[0].Offset64 == 4096
    text = await shell.run(f"Format-Hex -LiteralPath '{f}' -Offset 4090 -Count 18 | Out-String")
    assert text == [
        f"\n   Label: {f}\n\n"
        "          Offset Bytes                                           Ascii\n"
        "                 00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F\n"
        "          ------ ----------------------------------------------- -----\n"
        "0000000000000FFA 00 00 00 00 00 00 C1 1F FC C1 70 61 63 6B 65 74 ......Á.üÁpacket\n"
        "000000000000100A 00 01                                           ..\n\n"
    ]
    assert len(await shell.run(f"Get-Item '{f}' | Format-Hex")) == 257  # 4114 bytes


async def test_format_hex_lays_out_values_as_dotnet_does(shell) -> None:
    out = await shell.run(
        "'Hello world!', 1, 1138, 'foo', 0xdeadbeef, 1gb, 860, $true, $false, 1.5 | Format-Hex | "
        "ForEach-Object { $_.Label.Split(' ')[0] + ': ' + $_.HexBytes }"
    )
    assert out == [
        "String: 48 65 6C 6C 6F 20 77 6F 72 6C 64 21",
        "Int32: 01 00 00 00 72 04 00 00",  # adjacent numbers of one type: one block
        "String: 66 6F 6F",
        "Int32: EF BE AD DE 00 00 00 40 5C 03 00 00",
        "Boolean: 01 00 00 00 00 00 00 00",
        "Double: 00 00 00 00 00 00 F8 3F",
    ]
    assert await shell.run("'é' | Format-Hex -Encoding Unicode | % HexBytes") == ["E9 00"]
    assert await shell.run("'é' | fhx | % HexBytes") == ["C3 A9"]


async def test_format_hex_errors(shell, tmp_path) -> None:
    caught = await shell.run(
        f"try {{ Format-Hex '{tmp_path}/missing' -ErrorAction Stop }} "
        "catch { $_.Exception.Message; $_.FullyQualifiedErrorId }"
    )
    assert caught == [
        f"Cannot find path '{tmp_path}/missing' because it does not exist.",
        "PathNotFound,Microsoft.PowerShell.Commands.FormatHexCommand",
    ]
    with pytest.raises(FayError, match="1 failure"):
        await shell.run(f"Format-Hex '{tmp_path}'")
    assert shell.host.errors[-1] == f"Format-Hex: {tmp_path}: is a directory, not a file"
    with pytest.raises(FayError, match="-Offset: must be 0 or more, not -1"):
        await shell.run("'a' | Format-Hex -Offset -1")
