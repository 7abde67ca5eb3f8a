"""Output cmdlets: JSON, CSV, files, formatting, Write-Host, Out-Null."""

from __future__ import annotations

import csv
import json

from fayshell.render import Formatted


async def test_convert_to_json_object_and_array(shell) -> None:
    one = await shell.run("@{ a = 1; b = 'x' } | ConvertTo-Json -Compress")
    assert json.loads(one[0]) == {"a": 1, "b": "x"}
    many = await shell.run("sql SELECT range AS i FROM range(3) | ConvertTo-Json")
    assert json.loads(many[0]) == [{"i": 0}, {"i": 1}, {"i": 2}]
    assert await shell.run("@() | ConvertTo-Json -AsArray") == ["[]"]


async def test_convert_to_csv_quotes_fields(shell) -> None:
    lines = await shell.run("@{ a = 'x,y'; b = 'say \"hi\"' } | ConvertTo-Csv")
    assert lines == ["a,b", '"x,y","say ""hi"""']


async def test_export_csv_from_relation_uses_duckdb_copy(shell, tmp_path) -> None:
    path = tmp_path / "out.csv"
    await shell.run(f"sql SELECT range AS i, 'n' || range AS s FROM range(1000) | "
                    f"Where-Object {{ $_.i -lt 3 }} | Export-Csv '{path}' -Verbose")
    assert any(v.startswith("COPY (") for v in shell.host.verbose_lines)
    rows = list(csv.DictReader(path.open()))
    assert rows == [{"i": "0", "s": "n0"}, {"i": "1", "s": "n1"}, {"i": "2", "s": "n2"}]


async def test_export_csv_rowwise_and_missing_directory(shell, tmp_path) -> None:
    path = tmp_path / "rows.csv"
    await shell.run(f"1..2 | ForEach-Object {{ @{{ n = $_ }} }} | Export-Csv '{path}'")
    assert path.read_text() == "n\n1\n2\n"
    bad = tmp_path / "nope" / "x.csv"
    try:
        await shell.run(f"1 | Export-Csv '{bad}'")
    except Exception as exc:  # noqa: BLE001 - asserting on the one-line message
        assert "does not exist" in str(exc)
    else:
        raise AssertionError("expected an error for a missing directory")


async def test_out_file_writes_rendered_table_and_appends(shell, tmp_path) -> None:
    path = tmp_path / "t.txt"
    await shell.run(f"@{{ node = 'web01'; n = 3 }} | Out-File '{path}'")
    await shell.run(f"'tail' | Out-File '{path}' -Append")
    assert path.read_text().splitlines() == ["node  n", "----- -", "web01 3", "tail"]


async def test_format_table_and_list_shape_output(shell) -> None:
    (table,) = await shell.run("@{a=1; b=2; c=3} | Format-Table c, a")
    assert isinstance(table, Formatted) and table.kind == "table"
    assert table.columns == ["c", "a"] and table.rows == [[3, 1]]
    (lst,) = await shell.run("@{a=1} | fl")
    assert lst.kind == "list" and lst.columns == ["a"]
    assert await shell.text("@{a=1; bb=2} | Format-List") == "a  : 1\nbb : 2"


async def test_write_host_goes_to_host_not_output(shell) -> None:
    out = await shell.run("Write-Host 'to the screen' -ForegroundColor red; 'output'")
    assert out == ["output"]
    assert shell.host.lines == ["to the screen"]


async def test_out_null_discards(shell) -> None:
    assert await shell.run("1..3 | Out-Null") == []


async def test_write_output_and_echo(shell) -> None:
    assert await shell.run("echo a b; Write-Output (1,2)") == ["a", "b", 1, 2]


async def test_plain_rendering_aligns_numbers_right(shell) -> None:
    text = await shell.text("@{n='a'; v=5}, @{n='bbb'; v=12345}")
    assert text.splitlines() == ["n       v", "--- -----", "a       5", "bbb 12345"]
