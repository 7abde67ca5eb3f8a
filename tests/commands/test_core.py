"""Where/Select/Sort/Group/Measure/ForEach: on relations (compiled to SQL) and row-wise,
with the same results either way."""

from __future__ import annotations

import pytest

from fayshell.lang.streams import is_relation

TABLE = ("sql SELECT * FROM (VALUES (1, 'read', 120, 'web01'), (2, 'Write', 5000, 'web02'), "
         "(3, 'openat', 80, 'web01'), (4, 'read', 40, 'web03'), (5, 'close', NULL, 'web02'), "
         "(6, 'READ', 7000, 'web01')) AS t(id, name, dur_ns, node)")
# The same rows as a Python array: '@(...)' materializes the relation into records.
ROWS = f"@({TABLE})"

STAGES = [
    "Where-Object { $_.dur_ns -gt 100 }",
    "Where-Object { $_.name -eq 'read' }",
    "Where-Object { $_.name -ceq 'read' }",
    "Where-Object { $_.name -like 'RE*' -and $_.dur_ns -lt 1000 }",
    "Where-Object { $_.name -match '^(open|close)' }",
    "Where-Object { $_.node -in 'web02','web03' }",
    "Where-Object { $_.dur_ns -eq $null }",
    "Where-Object { $_.dur_ns -ne $null -and -not ($_.id -ge 5) }",
    "Where-Object { ($_.dur_ns / 10) -ge 8 }",
    "Where-Object name -eq 'Write'",
    "Where-Object id -In 2,4",
    "Where-Object { $_.name.StartsWith('r') }",
    "Select-Object id, name -First 2",
    "Select-Object -Skip 4",
    "Select-Object id, @{n='us'; e={ $_.dur_ns / 1000 }}",
    "Select-Object n* -Last 2",
    "Select-Object node -Unique | Sort-Object node",
    "Sort-Object dur_ns -Descending",
    "Sort-Object node, @{e='id'; Descending=$true}",
    "Sort-Object name, id",
    "Group-Object node | Select-Object Name, Count",
    "Group-Object node, name | Select-Object Name, Count",
    "Measure-Object dur_ns -Sum -Average -Minimum -Maximum -Percentile 50,90",
    "Measure-Object",
]


def normalize(rows: list) -> list:
    """Records as comparable dicts; floats rounded (SQL vs Python float paths)."""
    out = []
    for r in rows:
        d = dict(r) if isinstance(r, dict) else {k: getattr(r, k) for k in ("Name", "Count")}
        out.append({k: round(v, 6) if isinstance(v, float) else v for k, v in d.items()})
    return out


@pytest.mark.parametrize("stage", STAGES)
async def test_relation_and_rowwise_agree(shell, stage) -> None:
    in_sql = await shell.run(f"{TABLE} | {stage}")
    rowwise = await shell.run(f"{ROWS} | {stage}")
    assert normalize(in_sql) == normalize(rowwise)


@pytest.mark.parametrize("stage", [s for s in STAGES if "StartsWith" not in s
                                   and "-Last" not in s])
async def test_translatable_stages_stay_relations(shell, stage) -> None:
    out = await shell.raw(f"{TABLE} | {stage}")
    assert len(out) == 1 and is_relation(out[0]), f"{stage} fell back to row-wise"


async def test_untranslatable_block_falls_back_and_says_so(shell) -> None:
    out = await shell.raw(f"{TABLE} | Where-Object {{ $_.name.StartsWith('r') }} -Verbose")
    assert not any(is_relation(o) for o in out)
    assert [r["id"] for r in out] == [1, 4]
    assert any("row-wise evaluation: MethodCall" in v for v in shell.host.verbose_lines)


async def test_issue_example_runs_as_one_duckdb_query(shell) -> None:
    src = ("sql SELECT range AS i, range % 7 AS k FROM range(10000000) | "
           "Where-Object { $_.k -eq 3 } | Group-Object k | Select-Object Name, Count -Verbose")
    raw = await shell.raw(src)
    assert len(raw) == 1 and is_relation(raw[0])
    sql = shell.sql_shown()[-1]
    assert "range(10000000)" in sql and 'WHERE ("k" = 3)' in sql and "GROUP BY" in sql
    assert raw[0].records() == [{"Name": "3", "Count": 1428571}]


async def test_where_uses_variables_from_the_session(shell) -> None:
    out = await shell.run(f"$limit = 100; $names = 'read','close'; {TABLE} | "
                          "Where-Object { $_.dur_ns -gt $limit -and $_.name -in $names } -Verbose")
    assert [r["id"] for r in out] == [1, 6]
    assert '("dur_ns" > 100)' in shell.sql_shown()[0]


async def test_select_expand_property_gives_values(shell) -> None:
    assert await shell.run(f"{TABLE} | Where-Object {{ $_.node -eq 'web01' }} | "
                           "Select-Object -ExpandProperty id") == [1, 3, 6]


async def test_group_rowwise_carries_members(shell) -> None:
    groups = await shell.run("'a','b','a' | Group-Object { $_ }")
    assert [(g.Name, g.Count, g.Group) for g in groups] == [("a", 2, ["a", "a"]), ("b", 1, ["b"])]


async def test_measure_rowwise_percentiles_match_duckdb(shell) -> None:
    py = await shell.run("1..1000 | ForEach-Object { @{ v = $_ * $_ % 997 } } | "
                         "Measure-Object v -Percentile 50,95,99 -Average")
    duck = await shell.run("sql SELECT (range * range) % 997 AS v FROM range(1, 1001) | "
                           "Measure-Object v -Percentile 50,95,99 -Average")
    assert normalize(py) == normalize(duck)


async def test_foreach_member_name_and_begin_end(shell) -> None:
    assert await shell.run("@{n=1},@{n=2} | ForEach-Object n") == [1, 2]
    assert await shell.run("1..3 | % -Begin { 'start' } -Process { $_ } -End { 'end' }") == \
        ["start", 1, 2, 3, "end"]


async def test_sort_mixed_and_null_values_rowwise(shell) -> None:
    assert await shell.run("3, $null, 'b', 1, 'A' | Sort-Object") == [None, 1, 3, "A", "b"]


async def test_select_first_stops_early_on_long_input(shell) -> None:
    out = await shell.run("1..200000 | ForEach-Object { $_ } | Select-Object -First 3")
    assert out == [1, 2, 3]
