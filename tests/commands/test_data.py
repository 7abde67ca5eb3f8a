"""JSON and CSV cmdlets, checked against what PowerShell 7 writes and reads."""

from __future__ import annotations

import csv
import json

import pytest

from fayshell.errors import CommandError, FayError


async def test_convert_to_json_object_and_array(shell) -> None:
    one = await shell.run("@{ a = 1; b = 'x' } | ConvertTo-Json -Compress")
    assert one == ['{"a":1,"b":"x"}']
    many = await shell.run("sql SELECT range AS i FROM range(3) | ConvertTo-Json")
    assert json.loads(many[0]) == [{"i": 0}, {"i": 1}, {"i": 2}]
    assert await shell.run("@() | ConvertTo-Json -AsArray") == ["[]"]
    assert await shell.run("1 | ConvertTo-Json -AsArray -Compress") == ["[1]"]


async def test_convert_to_json_layout_is_powershell_7s(shell) -> None:
    (text,) = await shell.run(
        "[ordered]@{name='web01'; tags=@('a','b'); up=$true; x=$null} | ConvertTo-Json"
    )
    assert text.splitlines() == [
        "{",
        '  "name": "web01",',
        '  "tags": [',
        '    "a",',
        '    "b"',
        "  ],",
        '  "up": true,',
        '  "x": null',
        "}",
    ]


async def test_convert_to_json_input_object_keeps_the_array(shell) -> None:
    assert await shell.run("ConvertTo-Json -InputObject @(1,2) -Compress") == ["[1,2]"]
    assert await shell.run("ConvertTo-Json -InputObject 'x'") == ['"x"']
    assert await shell.run("@(1) | ConvertTo-Json") == ["1"]


async def test_convert_to_json_depth_cuts_with_a_warning(shell) -> None:
    (deep,) = await shell.run("@{a=@{b=@{c=@{d=1}}}} | ConvertTo-Json -Compress")
    assert deep == '{"a":{"b":{"c":"System.Collections.Hashtable"}}}'  # its ToString()
    (obj,) = await shell.run(
        "[pscustomobject]@{a=[pscustomobject]@{b=1}} | ConvertTo-Json -Depth 0 -Compress"
    )
    assert obj == '{"a":"@{b=1}"}'
    assert shell.host.warnings[-1] == (  # PowerShell's words (it began with the command)
        "Resulting JSON is truncated as serialization has exceeded the set depth of 0."
    )
    (full,) = await shell.run("@{a=@{b=@{c=@{d=1}}}} | ConvertTo-Json -Compress -Depth 5")
    assert json.loads(full) == {"a": {"b": {"c": {"d": 1}}}}


async def test_convert_from_json_objects_arrays_and_round_trip(shell) -> None:
    out = await shell.run('\'{"name":"web01","cpu":{"n":4},"tags":[1,2]}\' | ConvertFrom-Json')
    assert out == [{"name": "web01", "cpu": {"n": 4}, "tags": [1, 2]}]
    assert await shell.run("('[1,2,3]' | ConvertFrom-Json).Count") == [3]
    assert await shell.run("'[1,2]' | ConvertFrom-Json -NoEnumerate | % { $_.Count }") == [2]
    assert await shell.run('(\'{"a":{"b":5}}\' | ConvertFrom-Json).a.b') == [5]
    assert await shell.run("('{\"a\":1}' | ConvertFrom-Json -AsHashtable)['a']") == [1]
    doc = '\'{"a":{"b":1}}\''
    out = await shell.run(
        f"$h = {doc} | ConvertFrom-Json -AsHashtable; $h.GetType().Name; $h.a.GetType().Name; "
        f"({doc} | ConvertFrom-Json).a.GetType().Name"
    )
    assert out == ["Hashtable", "Hashtable", "PSCustomObject"]
    back = await shell.run("[pscustomobject]@{a=1; b='x'} | ConvertTo-Json | ConvertFrom-Json")
    assert back == [{"a": 1, "b": "x"}]


async def test_convert_from_json_joins_pipeline_lines_and_reports_bad_json(shell) -> None:
    assert await shell.run("'{', '\"a\": 1', '}' | ConvertFrom-Json") == [{"a": 1}]
    with pytest.raises(FayError) as info:
        await shell.run("'{\"a\": }' | ConvertFrom-Json")
    assert "invalid JSON at line 1 column 7" in info.value.one_line()


async def test_convert_to_csv_quoting_modes(shell) -> None:
    obj = "[pscustomobject]@{ a = 'x,y'; b = 'say \"hi\"'; c = 'plain'; d = $null }"
    assert await shell.run(f"{obj} | ConvertTo-Csv") == [
        '"a","b","c","d"',
        '"x,y","say ""hi""","plain",',
    ]
    assert await shell.run(f"{obj} | ConvertTo-Csv -UseQuotes AsNeeded") == [
        "a,b,c,d",
        '"x,y","say ""hi""",plain,',
    ]
    assert await shell.run(f"{obj} | ConvertTo-Csv -UseQuotes Never -Delimiter ';'") == [
        "a;b;c;d",
        'x,y;say "hi";plain;',
    ]
    assert await shell.run(f"{obj} | ConvertTo-Csv -QuoteFields c -NoHeader") == [
        'x,y,say "hi","plain",'
    ]
    assert (await shell.run(f"{obj} | ConvertTo-Csv -IncludeTypeInformation"))[
        0
    ] == "#TYPE System.Management.Automation.PSCustomObject"
    assert await shell.run("'ab','c' | ConvertTo-Csv -NoTypeInformation") == [
        '"Length"',
        '"2"',
        '"1"',
    ]


async def test_csv_round_trip_and_header_delimiter(shell) -> None:
    out = await shell.run(
        "[pscustomobject]@{n='a'; v=1}, [pscustomobject]@{n='b,c'; v=2} | "
        "ConvertTo-Csv | ConvertFrom-Csv"
    )
    assert out == [{"n": "a", "v": "1"}, {"n": "b,c", "v": "2"}]
    out = await shell.run("'x;1', 'y;2' | ConvertFrom-Csv -Delimiter ';' -Header name,n")
    assert out == [{"name": "x", "n": "1"}, {"name": "y", "n": "2"}]
    short = await shell.run("'a,b,c', '1,2', '', '#x,y,z' | ConvertFrom-Csv")
    assert short == [{"a": "1", "b": "2", "c": None}, {"a": "#x", "b": "y", "c": "z"}]


async def test_export_and_import_csv(shell, tmp_path) -> None:
    path = tmp_path / "rows.csv"
    await shell.run(f"1..2 | ForEach-Object {{ @{{ n = $_ }} }} | Export-Csv '{path}'")
    assert path.read_text() == '"n"\n"1"\n"2"\n'
    await shell.run(f"@{{ n = 3 }} | Export-Csv '{path}' -Append")
    assert path.read_text() == '"n"\n"1"\n"2"\n"3"\n'
    assert await shell.run(f"Import-Csv '{path}' | % n") == ["1", "2", "3"]
    with pytest.raises(FayError) as info:
        await shell.run(f"1 | Export-Csv '{tmp_path / 'nope' / 'x.csv'}'")
    assert "does not exist" in info.value.one_line()
    with pytest.raises(FayError) as info:
        await shell.run(f"Import-Csv '{tmp_path / 'missing.csv'}'")
    assert "Cannot find path" in info.value.one_line()


async def test_export_csv_from_relation(shell, tmp_path) -> None:
    path = tmp_path / "out.csv"
    src = "sql SELECT range AS i, 'n' || range AS s FROM range(1000) | Where-Object { $_.i -lt 3 }"
    await shell.run(f"{src} | Export-Csv '{path}' -UseQuotes AsNeeded -Verbose")
    assert any(v.startswith("COPY (") for v in shell.host.verbose_lines)
    rows = list(csv.DictReader(path.open()))
    assert rows == [{"i": "0", "s": "n0"}, {"i": "1", "s": "n1"}, {"i": "2", "s": "n2"}]
    await shell.run(f"{src} | Export-Csv '{path}'")
    assert path.read_text().splitlines() == ['"i","s"', '"0","n0"', '"1","n1"', '"2","n2"']


async def test_convert_from_string_data(shell) -> None:
    out = await shell.run(
        '$h = "a = 1`n# a comment`n`nb=two words`npath = C:\\\\temp`nnl = x\\ny" | '
        "ConvertFrom-StringData; $h.a; $h.b; $h.path; $h.nl; $h.GetType().Name; "
        "(ConvertFrom-StringData 'k: v' -Delimiter ':').k"
    )
    assert out == ["1", "two words", "C:\\temp", "x\ny", "Hashtable", "v"]
    with pytest.raises(CommandError) as info:
        await shell.run('"a=1`nA=2" | ConvertFrom-StringData')
    assert "Data item 'A' in line 'A=2' is already defined." in info.value.message


async def test_convert_to_json_writes_dates_as_dotnet_round_trips(shell) -> None:
    """.NET's round trip form (Newtonsoft's default): a fraction without trailing zeros
    (Python's isoformat wrote 14:30:00.250000), Z for UTC, the offset for a local date."""
    out = await shell.run(
        "Get-Date '2024-03-05 14:30:00.25' | ConvertTo-Json; "
        "[datetime]::new(2024, 1, 1, 10, 0, 0).ToUniversalTime().ToUniversalTime() | "
        "ConvertTo-Json; (sql SELECT TIMESTAMP '2024-01-01 10:00:00.5' AS t).t | ConvertTo-Json"
    )
    assert out[0] == '"2024-03-05T14:30:00.25"'
    assert out[1].endswith(':00Z"')
    assert out[2] == '"2024-01-01T10:00:00.5"'


async def test_json_writes_enums_as_numbers_unless_asked_for_names(shell) -> None:
    """[DayOfWeek]::Monday was the text 'Monday' (so JSON wrote a string); -EnumsAsStrings
    was accepted and did nothing."""
    out = await shell.run(
        "enum Color { Red; Green }; "
        "$o = [pscustomobject]@{ c = [Color]::Green; d = [System.DayOfWeek]::Monday }; "
        "$o | ConvertTo-Json -Compress; $o | ConvertTo-Json -Compress -EnumsAsStrings; "
        "[int][DayOfWeek]::Friday; [DayOfWeek]::Friday -eq 'friday'"
    )
    assert out == ['{"c":1,"d":1}', '{"c":"Green","d":"Monday"}', 5, True]


async def test_csv_tee_and_select_string_honour_encoding(shell, tmp_path) -> None:
    """-Encoding was accepted and ignored by Export-Csv, Import-Csv, Tee-Object and
    Select-String: a file asked for in UTF-16 was written in UTF-8."""
    await shell.run(f"Set-Location '{tmp_path}'")
    out = await shell.run(
        "[pscustomobject]@{ a = 'é' } | Export-Csv u16.csv -Encoding Unicode; "
        "(Import-Csv u16.csv).a; (Import-Csv u16.csv -Encoding Unicode).a; "
        "'é' | Tee-Object -FilePath t.txt -Encoding Latin1 | Out-Null; "
        "Select-String -Path t.txt -Pattern 'é' -Encoding Latin1 | ForEach-Object Line"
    )
    assert out == ["é", "é", "é"]
    assert (tmp_path / "u16.csv").read_bytes() == '\ufeff"a"\n"é"\n'.encode("utf-16-le")
    assert (tmp_path / "t.txt").read_bytes() == "é\n".encode("latin-1")


async def test_test_json_says_whether_text_is_json(shell) -> None:
    out = await shell.run(
        "$ErrorActionPreference = 'Continue'; Test-Json '{\"a\": [1, 2]}'; Test-Json '{a:'; "
        "Test-Json 'NaN'; '[1,2,]' | Test-Json; '[1,2,]' | Test-Json -Options AllowTrailingCommas; "
        '"{ // note`n `"a`": `"x//y`" /* more */ }" | Test-Json -Options IgnoreComments'
    )
    assert out == [True, False, False, False, True, True]
    assert shell.host.errors == ["Test-Json: Cannot parse the JSON."] * 3


async def test_test_json_against_a_schema_names_each_place_it_fails(shell, tmp_path) -> None:
    schema = (
        '{"type": "object", "required": ["name"], '
        '"properties": {"age": {"type": "integer"}, "name": {"type": "string"}}}'
    )
    (tmp_path / "s.json").write_text(schema)
    out = await shell.run(
        "$ErrorActionPreference = 'Continue'; "
        f'Test-Json \'{{"name": "a", "age": 3}}\' -SchemaFile \'{tmp_path}/s.json\'; '
        f"Test-Json '{{\"age\": \"old\"}}' -Schema '{schema}'"
    )
    assert out == [True, False]
    assert shell.host.errors == [
        "Test-Json: The JSON is not valid with the schema: 'name' is a required property at ''",
        "Test-Json: The JSON is not valid with the schema: 'old' is not of type 'integer' at "
        "'/age'",
    ]
    with pytest.raises(FayError, match="Cannot parse the JSON schema"):
        await shell.run("Test-Json '{}' -Schema '{\"type\": 5}'")


async def test_convert_to_html_page_fragment_and_list(shell, tmp_path) -> None:
    page = await shell.run(
        "[pscustomobject]@{Name = 'a<b'; Id = 1; Tags = @(1, 2)}, [pscustomobject]@{Name = 'c'} | "
        "ConvertTo-Html -Title 'Slow & late' -PreContent '<h1>Spans</h1>' -PostContent 'end' "
        "-Meta @{refresh = 10} -Charset UTF-8 -CssUri site.css"
    )
    assert page == [
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"  '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">',
        '<html xmlns="http://www.w3.org/1999/xhtml">',
        "<head>",
        '<meta charset="UTF-8">',
        '<meta http-equiv="refresh" content="10">',
        "<title>Slow &amp; late</title>",
        '<link rel="stylesheet" type="text/css" href="site.css" />',
        "</head><body>",
        "<h1>Spans</h1>",
        "<table>",
        "<colgroup><col/><col/><col/></colgroup>",
        "<tr><th>Name</th><th>Id</th><th>Tags</th></tr>",
        "<tr><td>a&lt;b</td><td>1</td><td>System.Object[]</td></tr>",
        "<tr><td>c</td><td></td><td></td></tr>",  # the first object's columns
        "</table>",
        "end",
        "</body></html>",
    ]
    fragment = await shell.run(
        "sql SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, NULL ORDER BY a | "
        "ConvertTo-Html -Fragment -Property b, @{n = 'twice'; e = { $_.a * 2 }}"
    )
    assert fragment == [
        "<table>",
        "<colgroup><col/><col/></colgroup>",
        "<tr><th>b</th><th>twice</th></tr>",
        "<tr><td>x</td><td>2</td></tr>",
        "<tr><td></td><td>4</td></tr>",
        "</table>",
    ]
    listed = await shell.run(
        "[pscustomobject]@{a = 1}, [pscustomobject]@{a = 2} | ConvertTo-Html -As List -Fragment"
    )
    assert listed == [
        "<table>",
        "<tr><td>a:</td><td>1</td></tr>",
        "<tr><td><hr></td></tr>",
        "<tr><td>a:</td><td>2</td></tr>",
        "</table>",
    ]
    assert await shell.run("'a', 'bb' | ConvertTo-Html -Fragment") == [
        "<table>",
        "<colgroup><col/></colgroup>",
        "<tr><th>*</th></tr>",
        "<tr><td>1</td></tr>",
        "<tr><td>2</td></tr>",
        "</table>",
    ]
    out = tmp_path / "r.html"
    await shell.run(f"Get-Date | ConvertTo-Html -Transitional | Out-File '{out}'")
    assert "XHTML 1.0 Transitional" in out.read_text().splitlines()[0]


async def test_convert_to_json_escape_handling(shell) -> None:
    """-EscapeHandling (was "no such parameter"): EscapeNonAscii and EscapeHtml as Newtonsoft
    writes them; the text still reads back the same, a trailing backslash included."""
    out = await shell.run(
        "$o = [ordered]@{a='<x> & \"q\" ''s'; b='a\\'; c='café'}; "
        "$o | ConvertTo-Json -Compress -EscapeHandling EscapeHtml; "
        "$o | ConvertTo-Json -Compress -EscapeHandling EscapeNonAscii; "
        "($o | ConvertTo-Json -EscapeHandling EscapeHtml | ConvertFrom-Json).a"
    )
    assert out == [
        '{"a":"\\u003cx\\u003e \\u0026 \\u0022q\\u0022 \\u0027s","b":"a\\\\","c":"café"}',
        '{"a":"<x> & \\"q\\" \'s","b":"a\\\\","c":"caf\\u00e9"}',
        '<x> & "q" \'s',
    ]


async def test_a_data_file_is_read_without_running_it(shell, tmp_path) -> None:
    """Import-PowerShellDataFile: the hashtable of a .psd1 file (its values literals, arrays,
    hashtables); anything that would run code is refused, naming the file and where."""
    good = tmp_path / "incident.psd1"
    good.write_text(
        "# settings\n@{\n  Nodes = @('web1', 'web2')\n  Slow = 250ms\n  Limit = -5\n"
        '  Nested = @{ On = $true; None = $null; Text = "plain" }\n'
        "  All = @(\n    @{ Name = 'a' }\n    @{ Name = 'b' }\n  )\n}\n"
    )
    out = await shell.run(
        f"$c = Import-PowerShellDataFile '{good}'; $c.GetType().Name; $c.Nodes -join ','; "
        "$c.Slow; $c.Limit; $c.Nested.On; $null -eq $c.Nested.None; $c.All.Name -join ','"
    )
    assert out[0] == "Hashtable"
    assert out[1:] == ["web1,web2", 250_000_000, -5, True, True, "a,b"]
    marker = tmp_path / "ran"
    bad = tmp_path / "bad.psd1"
    bad.write_text(f"@{{\n  Home = $env:HOME\n  Made = (New-Item '{marker}')\n}}\n")
    with pytest.raises(CommandError, match=rf"{bad}:2:10: Cannot generate a PowerShell object"):
        await shell.run(f"Import-PowerShellDataFile '{bad}'")
    assert not marker.exists()
    bad.write_text("'just text'\n")
    with pytest.raises(CommandError, match="must hold one hashtable"):
        await shell.run(f"Import-PowerShellDataFile '{bad}'")


async def test_a_data_file_past_the_limits_needs_skip_limit_check(shell, tmp_path) -> None:
    big = tmp_path / "big.psd1"
    big.write_text("@{\n" + "".join(f"  k{i} = {i}\n" for i in range(501)) + "}\n")
    with pytest.raises(CommandError, match="more than 500 keys"):
        await shell.run(f"Import-PowerShellDataFile '{big}'")
    assert await shell.run(f"(Import-PowerShellDataFile '{big}' -SkipLimitCheck).Count") == [501]


async def test_every_property_goes_to_csv_and_select_star(shell, tmp_path) -> None:
    """A file's table shows six properties, but Select-Object *, Format-List * and CSV take
    every one (FullName, Extension ...), as PowerShell's; each row's values by the first
    object's column names, in any case."""
    f = tmp_path / "notes.txt"
    f.write_text("abc")
    out = await shell.run(
        f"(Get-Item '{f}' | ConvertTo-Csv)[0]; (Get-Item '{f}' | Select-Object *).FullName; "
        f"(Get-Item '{f}' | Format-List * | Out-String) -match 'Extension\\s+: \\.txt'; "
        "[pscustomobject]@{ a = 1; B = 2 }, [pscustomobject]@{ b = 3; A = 4 } | ConvertTo-Csv"
    )
    header = out[0].replace('"', "").split(",")
    assert header[:6] == ["UnixMode", "User", "Group", "LastWriteTime", "Size", "Name"]
    assert {"FullName", "Extension", "BaseName", "DirectoryName"} <= set(header)
    assert out[1:] == [str(f), True, '"a","B"', '"1","2"', '"4","3"']
    saved = tmp_path / "item.xml"
    back = await shell.run(f"Get-Item '{f}' | Export-Clixml '{saved}'; (Import-Clixml '{saved}')")
    assert (back[0]["FullName"], back[0]["Extension"]) == (str(f), ".txt")
