"""Where/Select/Sort/Group/Measure/ForEach: on relations (compiled to SQL) and row-wise,
with the same results either way."""

from __future__ import annotations

import os
import statistics
from datetime import date, datetime

import pytest

from fayshell.errors import FayError, ParameterError
from fayshell.lang.streams import is_relation

TABLE = (
    "sql SELECT * FROM (VALUES (1, 'read', 120, 'web01'), (2, 'Write', 5000, 'web02'), "
    "(3, 'openat', 80, 'web01'), (4, 'read', 40, 'web03'), (5, 'close', NULL, 'web02'), "
    "(6, 'READ', 7000, 'web01')) AS t(id, name, dur_ns, node)"
)
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
    "Select-Object node -Unique",  # the first of equal rows, in input order
    "Sort-Object dur_ns | Select-Object name -Unique -First 3",
    "Sort-Object dur_ns -Descending",
    "Sort-Object node, @{e='id'; Descending=$true}",
    "Sort-Object name, id",
    "Group-Object node | Select-Object Name, Count",
    "Group-Object node, name | Select-Object Name, Count",
    "Measure-Object dur_ns -Sum -Average -Minimum -Maximum -Percentile 50,90",
    "Measure-Object",
    # PowerShell parameters added later; the SQL ones are listed in PUSHED below.
    "Sort-Object name, id -CaseSensitive",
    "Sort-Object name, id -CaseSensitive -Descending",
    "Sort-Object dur_ns -Top 2 -Descending",
    "Sort-Object id -Bottom 2",
    "Sort-Object @{Expression='node'; Descending=$true}, @{e={ $_.id }; Ascending=$true}",
    "Sort-Object node -Unique | Select-Object node",
    "Sort-Object node -Unique -Bottom 2 | Select-Object node",
    "Group-Object name | Select-Object Name, Count",
    "Group-Object name -CaseSensitive | Select-Object Name, Count",
    "Group-Object node -NoElement | Select-Object Name, Count",
    "Group-Object { $_.dur_ns -gt 100 } | Select-Object Name, Count",
    "Group-Object { $_.id % 2 }, node | Select-Object Name, Count",
    "Measure-Object dur_ns -AllStats",
    "Measure-Object dur_ns, id -StandardDeviation -Maximum",
    "Where-Object name -CEQ 'read'",
    "Where-Object name -CLike 'R*'",
    "Where-Object dur_ns -Is [long]",
    "Where-Object name -IsNot [string]",
    "Where-Object -Property node -Value web01 -EQ",
    "Select-Object -Skip 1 -SkipLast 1",
    "Select-Object -Index 1,3,-1",
    "Select-Object -Last 2 -Skip 1",
    "Select-Object id, @{l='Name'; e='name'}, @{n='ms'; expression={ $_.dur_ns / 1e6 }}",
    "Select-Object * -ExcludeProperty dur_ns, node",
]
#: Stages that must run in DuckDB when the input is a relation.
PUSHED = [
    s
    for s in STAGES
    if not any(
        w in s for w in ("StartsWith", "-Last", "-SkipLast", "-Index", "Measure-Object", "-Is")
    )
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


@pytest.mark.parametrize("stage", PUSHED)
async def test_translatable_stages_stay_relations(shell, stage) -> None:
    out = await shell.raw(f"{TABLE} | {stage}")
    assert len(out) == 1 and is_relation(out[0]), f"{stage} fell back to row-wise"


async def test_untranslatable_block_falls_back_and_says_so(shell) -> None:
    out = await shell.raw(f"{TABLE} | Where-Object {{ $_.name.StartsWith('r') }} -Verbose")
    assert not any(is_relation(o) for o in out)
    assert [r["id"] for r in out] == [1, 4]
    assert any("row-wise evaluation: MethodCall" in v for v in shell.host.verbose_lines)


async def test_issue_example_runs_as_one_duckdb_query(shell) -> None:
    src = (
        "sql SELECT range AS i, range % 7 AS k FROM range(10000000) | "
        "Where-Object { $_.k -eq 3 } | Group-Object k | Select-Object Name, Count -Verbose"
    )
    raw = await shell.raw(src)
    assert len(raw) == 1 and is_relation(raw[0])
    sql = shell.sql_shown()[-1]
    assert "range(10000000)" in sql and 'WHERE ("k" = 3)' in sql and "GROUP BY" in sql
    assert raw[0].records() == [{"Name": "3", "Count": 1428571}]


async def test_where_uses_variables_from_the_session(shell) -> None:
    out = await shell.run(
        f"$limit = 100; $names = 'read','close'; {TABLE} | "
        "Where-Object { $_.dur_ns -gt $limit -and $_.name -in $names } -Verbose"
    )
    assert [r["id"] for r in out] == [1, 6]
    assert '("dur_ns" > 100)' in shell.sql_shown()[0]


async def test_select_expand_property_gives_values(shell) -> None:
    assert await shell.run(
        f"{TABLE} | Where-Object {{ $_.node -eq 'web01' }} | Select-Object -ExpandProperty id"
    ) == [1, 3, 6]


async def test_group_rowwise_carries_members(shell) -> None:
    groups = await shell.run("'a','b','a' | Group-Object { $_ }")
    assert [(g.Name, g.Count, g.Group) for g in groups] == [("a", 2, ["a", "a"]), ("b", 1, ["b"])]


async def test_measure_rowwise_percentiles_match_duckdb(shell) -> None:
    py = await shell.run(
        "1..1000 | ForEach-Object { @{ v = $_ * $_ % 997 } } | "
        "Measure-Object v -Percentile 50,95,99 -Average"
    )
    duck = await shell.run(
        "sql SELECT (range * range) % 997 AS v FROM range(1, 1001) | "
        "Measure-Object v -Percentile 50,95,99 -Average"
    )
    assert normalize(py) == normalize(duck)


async def test_foreach_member_name_and_begin_end(shell) -> None:
    assert await shell.run("@{n=1},@{n=2} | ForEach-Object n") == [1, 2]
    assert await shell.run("1..3 | % -Begin { 'start' } -Process { $_ } -End { 'end' }") == [
        "start",
        1,
        2,
        3,
        "end",
    ]


async def test_sort_mixed_and_null_values_rowwise(shell) -> None:
    assert await shell.run("3, $null, 'b', 1, 'A' | Sort-Object") == [None, 1, 3, "A", "b"]


async def test_select_first_stops_early_on_long_input(shell) -> None:
    out = await shell.run("1..200000 | ForEach-Object { $_ } | Select-Object -First 3")
    assert out == [1, 2, 3]


async def test_measure_runs_in_duckdb_and_returns_a_record(shell) -> None:
    out = await shell.raw(f"{TABLE} | Measure-Object dur_ns -Sum -StandardDeviation -Verbose")
    assert out == [
        {
            "Count": 5,
            "Average": None,
            "Sum": 12240,
            "Maximum": None,
            "Minimum": None,
            "StandardDeviation": pytest.approx(statistics.stdev([120, 5000, 80, 40, 7000])),
            "Property": "dur_ns",
        }
    ]
    assert "stddev_samp" in shell.sql_shown()[-1]
    assert await shell.run(f"({TABLE} | Measure-Object).Count") == [6]


async def test_measure_plain_values_text_and_strings(shell) -> None:
    (m,) = await shell.run("1,2,3,4 | Measure-Object -Sum -Average -Maximum -Minimum")
    assert m == {
        "Count": 4,
        "Average": 2.5,
        "Sum": 10,
        "Maximum": 4,
        "Minimum": 1,
        "StandardDeviation": None,
        "Property": None,
    }
    assert await shell.run(
        "(2,4,4,4,5,5,7,9 | Measure-Object -StandardDeviation).StandardDeviation"
    ) == [pytest.approx(2.138089935)]
    assert await shell.run("('b','c','a' | Measure-Object -Maximum).Maximum") == ["c"]
    (t,) = await shell.run("'one two', 'three  four five' | Measure-Object -Line -Word -Character")
    assert t == {"Lines": 2, "Words": 5, "Characters": 23, "Property": None}
    (w,) = await shell.run("'a b' | Measure-Object -Character -IgnoreWhiteSpace")
    assert w == {"Lines": None, "Words": None, "Characters": 2, "Property": None}


async def test_group_plain_values_sorted_by_key_first_spelling(shell) -> None:
    groups = await shell.run("'b', 'a', 'B', 10, 2 | Group-Object")
    assert [(g.Count, g.Name, g.Group) for g in groups] == [
        (1, "2", [2]),
        (1, "10", [10]),
        (1, "a", ["a"]),
        (2, "b", ["b", "B"]),
    ]
    text = await shell.text("'b','a','b' | Group-Object -NoElement")
    assert text.splitlines() == ["", "Count Name", "----- ----", "    1 a", "    2 b"]
    text = await shell.text("'b','a','b' | Group-Object")
    assert text.splitlines()[1].split() == ["Count", "Name", "Group"]
    assert [g.Name for g in await shell.run("'a','A' | Group-Object -CaseSensitive")] == ["a", "A"]
    assert await shell.run("(@{a=1;b='x'}, @{a=1;b='y'} | Group-Object a, b)[1].Name") == ["1, y"]
    assert await shell.run("(@{a=1;b='x'}, @{a=1;b='y'} | Group-Object a).Values") == [1]


async def test_group_as_hashtable(shell) -> None:
    (table,) = await shell.run("'a', 'bb', 'cc' | Group-Object Length -AsHashTable")
    assert table == {1: ["a"], 2: ["bb", "cc"]}
    (table,) = await shell.run("'a', 'bb' | Group-Object Length -AsHashTable -AsString")
    assert table == {"1": ["a"], "2": ["bb"]}
    (table,) = await shell.run(f"{TABLE} | Group-Object node -AsHashTable")
    assert sorted(table) == ["web01", "web02", "web03"] and len(table["web01"]) == 3
    # a hashtable (it was a [pscustomobject]): its type, and keys read without regard to case
    out = await shell.run(
        "$g = 'a', 'A', 'b' | Group-Object -AsHashTable; $g.GetType().Name; $g.A.Count"
    )
    assert out == ["Hashtable", 2]


async def test_sort_top_bottom_unique_case(shell) -> None:
    assert await shell.run("1..10 | Sort-Object -Bottom 3") == [8, 9, 10]
    assert await shell.run("5,3,9,1 | Sort-Object -Top 2 -Descending") == [9, 5]
    assert await shell.run("'b','A','a','B' | Sort-Object -CaseSensitive") == ["a", "A", "b", "B"]
    assert await shell.run("'b','a','B','a' | Sort-Object -Unique") == ["a", "b"]
    assert await shell.run("'b','a','B' | Sort-Object -Unique -CaseSensitive") == ["a", "b", "B"]
    assert await shell.run("@{n=2;k=1},@{n=1;k=1},@{n=0;k=0} | Sort-Object k -Stable | % n") == [
        0,
        2,
        1,
    ]


async def test_select_positions_and_calculated_properties(shell) -> None:
    assert await shell.run("1..10 | Select-Object -Skip 2 -SkipLast 2") == list(range(3, 9))
    assert await shell.run("1..10 | Select-Object -Last 3 -Skip 1") == [7, 8, 9]
    assert await shell.run("'a','b','c' | Select-Object -Index 0,2") == ["a", "c"]
    out = await shell.run(
        "@{a=1; b=2} | Select-Object a, @{n='twice'; e={ $_.b * 2 }}, @{label='L'; expression='a'}"
    )
    assert out == [{"a": 1, "twice": 4, "L": 1}]
    assert await shell.run("1,1,2,'a','A' | Select-Object -Unique") == [1, 2, "a", "A"]
    assert await shell.run("'abc' | Select-Object Length") == [{"Length": 3}]


async def test_foreach_scopes_blocks_and_members(shell) -> None:
    assert await shell.run(
        "1..5 | ForEach-Object -Begin { $sum = 0 } -Process { $sum += $_ } -End { $sum }"
    ) == [15]
    assert await shell.run("1..3 | % { $last = $_ }; $last") == [3]
    assert await shell.run("1..2 | ForEach-Object { 'b' } { \"p$_\" } { 'e' }") == [
        "b",
        "p1",
        "p2",
        "e",
    ]
    assert await shell.run("1..2 | ForEach-Object { 'b' } { \"p$_\" }") == ["b", "p1", "p2"]
    assert await shell.run("'a','b' | ForEach-Object ToUpper") == ["A", "B"]
    assert await shell.run("'a,b' | ForEach-Object -MemberName Split -ArgumentList ','") == [
        "a",
        "b",
    ]
    assert await shell.run("'a','bb' | ForEach-Object Length") == [1, 2]
    # a value's methods are called, the words after the name are their arguments
    assert await shell.run("3.5, [version]'1.2' | ForEach-Object ToString") == ["3.5", "1.2"]
    assert await shell.run("[datetime]'2024-03-05' | % AddDays 1 | % Day") == [6]
    assert await shell.run("'a,b' | ForEach-Object Split ','") == ["a", "b"]
    assert await shell.run("'a b' | ForEach-Object Split") == ["a", "b"]  # Split() itself
    assert await shell.run("1..3 | ForEach-Object { if ($_ -eq 2) { return }; $_ }") == [1, 3]


async def test_parallel_runs_sequentially_and_says_so(shell) -> None:
    assert await shell.run(
        "1..3 | ForEach-Object -Parallel { $_ * 10 } -ThrottleLimit 4 -Verbose"
    ) == [10, 20, 30]
    assert "-Parallel runs sequentially in fayshell" in shell.host.verbose_lines
    assert await shell.run("1..4 | Where-Object -Parallel { $_ % 2 }") == [1, 3]


async def test_where_property_alone_and_not(shell) -> None:
    assert await shell.run("@{a=1;b=0},@{a=2;b=1} | Where-Object b | % a") == [2]
    assert await shell.run("@{a=1;b=0},@{a=2;b=1} | Where-Object -Not b | % a") == [1]
    rel = await shell.raw(
        "sql SELECT * FROM (VALUES (1, true), (2, false)) t(i, ok) | Where-Object ok"
    )
    assert is_relation(rel[0]) and rel[0].records() == [{"i": 1, "ok": True}]


async def test_measure_unknown_property_is_an_error_not_a_zero(shell) -> None:
    with pytest.raises(FayError) as info:
        await shell.run(f"{TABLE} | Measure-Object durr_ns -Sum")
    assert "no property 'durr_ns' on the relation; did you mean dur_ns?" in info.value.one_line()
    with pytest.raises(FayError) as info:
        await shell.run("@{a=1} | Measure-Object b")
    assert "'b' cannot be found in the input for any objects" in info.value.one_line()


async def test_expand_property_skips_null_and_adds_selected_properties(shell) -> None:
    in_sql = await shell.run(f"{TABLE} | Select-Object -ExpandProperty dur_ns")
    rowwise = await shell.run(f"{ROWS} | Select-Object -ExpandProperty dur_ns")
    assert in_sql == rowwise == [120, 5000, 80, 40, 7000]
    out = await shell.run(
        "[pscustomobject]@{n='x'; items=@(@{v=1},@{v=2})} | "
        "Select-Object -ExpandProperty items -Property n"
    )
    assert out == [{"v": 1, "n": "x"}, {"v": 2, "n": "x"}]
    assert shell.host.warnings == []


async def test_expand_property_of_numbers_says_the_properties_were_not_added(shell) -> None:
    out = await shell.run(
        "[pscustomobject]@{n='x'; items=@(1, 2)} | Select-Object -ExpandProperty items -Property n"
    )
    assert out == [1, 2]
    (warning,) = shell.host.warnings  # once, not once per value
    assert warning.startswith("Select-Object: -Property n not added to the expanded int values")


#: NULLs in a string, a number and a boolean column: where SQL's three-valued logic and
#: PowerShell's $null part ways ($null orders as 0 or "", a test is never unknown).
NULLS = (
    "sql SELECT * FROM (VALUES (1, 'apple', 3, NULL::VARCHAR, true, 4), "
    "(2, 'Banana', 10, 'x', NULL, 1), (3, NULL, NULL, 'y', false, NULL), "
    "(4, 'APPLE', -7, '', true, NULL)) AS t(id, name, n, tag, flag, m)"
)
#: Filters and the ids PowerShell keeps (the same whether the rows come from SQL or not).
NULL_FILTERS = [
    ("$_.n -lt 5", [1, 3, 4]),
    ("$_.n -ge 0", [1, 2, 3]),
    ("$_.n -le -8", []),
    ("5 -gt $_.n", [1, 3, 4]),
    ("-not ($_.n -eq 3)", [2, 3, 4]),
    ("-not ($_.n -gt 5)", [1, 3, 4]),
    ("$_.name -lt 'b'", [1, 3, 4]),
    ("-not ($_.name -eq 'apple')", [2, 3]),
    ("-not $_.flag", [2, 3]),
    ("$_.flag -xor $true", [2, 3]),
    ("-not ($_.flag -and $_.n -gt 0)", [2, 3, 4]),
    ("$_.flag -or $_.n -gt 5", [1, 2, 4]),
    ("$_.name -notin 'apple','x'", [2, 3]),
    ("$_.name -in 'apple', $null", [1, 3, 4]),
    ("'x','y' -notcontains $_.tag", [1, 4]),
    ("-not ($_.tag -in 'x','y')", [1, 4]),
    ("($_.name + 'z') -eq 'z'", [3]),
    ("$_.n -lt $_.m", [1, 4]),
    ("$_.n -eq $_.m", [3]),
    ("-not ($_.n -le $_.m)", [2]),
    ("($_.n -gt 5) -eq $false", [1, 3, 4]),
    ("$_.flag -eq $false", [3]),
]


@pytest.mark.parametrize(("test", "ids"), NULL_FILTERS)
async def test_null_columns_filter_as_powershell_in_sql_and_rowwise(shell, test, ids) -> None:
    stage = f"Where-Object {{ {test} }} | ForEach-Object id"
    rel = await shell.raw(f"{NULLS} | Where-Object {{ {test} }}")
    assert len(rel) == 1 and is_relation(rel[0]), f"{test} fell back to row-wise"
    assert await shell.run(f"{NULLS} | {stage}") == ids, "in SQL"
    assert await shell.run(f"@({NULLS}) | {stage}") == ids, "row-wise"


@pytest.mark.parametrize(
    "stage",
    [
        "Select-Object id, @{n='big'; e={ $_.n -gt 5 }}, @{n='off'; e={ -not $_.flag }}",
        "Sort-Object { $_.n -gt 5 }, id | Select-Object id",
        "Group-Object { $_.n -lt 0 } | Select-Object Name, Count",
    ],
)
async def test_tests_on_null_columns_are_false_not_null_as_values(shell, stage) -> None:
    in_sql = await shell.run(f"{NULLS} | {stage}")
    assert normalize(in_sql) == normalize(await shell.run(f"@({NULLS}) | {stage}"))
    assert None not in [v for r in in_sql for k, v in dict(r).items() if k != "id"]


async def test_case_sensitive_ordering_is_cultures_in_sql_and_rowwise(shell) -> None:
    """'a' -clt 'B' as .NET's culture orders text: letters first, then lowercase first."""
    rows = "sql SELECT * FROM (VALUES (1, 'a'), (2, 'B'), (3, 'A'), (4, 'b')) AS t(id, s)"
    for test, ids in [
        ("$_.s -clt 'b'", [1, 3]),
        ("$_.s -cge 'B'", [2]),
        ("$_.s -cgt 'a'", [2, 3, 4]),
    ]:
        stage = f"Where-Object {{ {test} }} | ForEach-Object id"
        assert await shell.run(f"{rows} | {stage}") == ids, test
        assert await shell.run(f"@({rows}) | {stage}") == ids, test
    out = await shell.run(
        "[string]::Compare('a', 'B'); [string]::Compare('a', 'A'); "
        "[string]::Compare('a', 'A', $true); 'b'.CompareTo('B')"
    )
    assert out == [-1, -1, 0, -1]


#: Three times whose text order ("12/1/2023" after "3/5/2024") is not their time order.
WHEN = (
    "sql SELECT * FROM (VALUES (1, TIMESTAMP '2023-12-01 10:00:00'), "
    "(2, TIMESTAMP '2024-03-05 09:00:00'), (3, TIMESTAMP '2023-02-01 23:00:00')) AS t(id, ts)"
)


@pytest.mark.parametrize("typ", ["TIMESTAMP", "TIMESTAMPTZ"])
async def test_dates_sort_and_measure_by_time_in_sql_and_rowwise(shell, typ) -> None:
    table = WHEN.replace("TIMESTAMP '", f"{typ} '")
    for stage, want in [
        ("Sort-Object ts | % id", [3, 1, 2]),
        ("Sort-Object ts -Descending | % id", [2, 1, 3]),
        ("Sort-Object ts -Top 1 | % id", [3]),
        ("Where-Object { $_.ts -gt [datetime]'2024-01-01' } | % id", [2]),
        ("Where-Object ts -lt '2023-06-01' | % id", [3]),
    ]:
        assert await shell.run(f"{table} | {stage}") == want, stage
        assert await shell.run(f"@({table}) | {stage}") == want, f"row-wise {stage}"
    in_sql = await shell.run(f"{table} | Measure-Object ts -Maximum -Minimum")
    rowwise = await shell.run(f"@({table}) | Measure-Object ts -Maximum -Minimum")
    for m in (in_sql[0], rowwise[0]):
        assert (m["Maximum"].year, m["Maximum"].month) == (2024, 3)
        assert (m["Minimum"].year, m["Minimum"].month) == (2023, 2)


async def test_files_sort_by_last_write_time_not_its_text(shell, tmp_path) -> None:
    for name, when in (("a", "2023-12-01"), ("b", "2024-03-05"), ("c", "2023-02-01")):
        (tmp_path / name).write_text(name)
        stamp = datetime.fromisoformat(when).timestamp()
        os.utime(tmp_path / name, (stamp, stamp))
    files = f"Get-ChildItem '{tmp_path}' -File"
    assert await shell.run(f"{files} | Sort-Object LastWriteTime | % Name") == ["c", "a", "b"]
    newest = f"({files} | Sort-Object LastWriteTime -Descending | Select-Object -First 1).Name"
    assert await shell.run(newest) == ["b"]
    (m,) = await shell.run(f"{files} | Measure-Object LastWriteTime -Maximum -Minimum")
    assert (m["Maximum"].date(), m["Minimum"].date()) == (date(2024, 3, 5), date(2023, 2, 1))
    assert await shell.run(f"{files} | % {{ $_.LastWriteTime }} | Sort-Object | % Month") == [
        2,
        12,
        3,
    ]


async def test_wildcard_backtick_escapes_in_sql_and_rowwise(shell) -> None:
    table = "sql SELECT * FROM (VALUES (1, 'a*b'), (2, 'axb'), (3, 'a?'), (4, 'ab')) t(id, s)"
    for test, ids in (("s -like 'a`*b'", [1]), ("s -like 'a`?'", [3]), ("s -like 'a?'", [3, 4])):
        stage = f"Where-Object {test} | ForEach-Object id"
        assert await shell.run(f"{table} | {stage}") == ids, f"{test} in SQL"
        assert await shell.run(f"@({table}) | {stage}") == ids, f"{test} row-wise"


async def test_measure_object_measures_decimals_as_doubles_in_sql_and_rowwise(shell) -> None:
    rows = "sql SELECT v::DECIMAL(3, 1) AS v FROM (VALUES (1.5), (10.0), (-1.0)) t(v)"
    stage = (
        "Measure-Object v -Sum -Maximum -Minimum -Average | "
        '% { "$($_.Sum) $($_.Maximum) $($_.Minimum) $($_.Average) $($_.Maximum.GetType().Name)" }'
    )
    expected = ["10.5 10 -1 3.5 Double"]
    assert await shell.run(f"{rows} | {stage}") == expected, "in SQL"
    assert await shell.run(f"@({rows}) | {stage}") == expected, "row-wise"


async def test_a_null_in_a_boolean_column_is_its_own_group(shell) -> None:
    stage = 'Group-Object flag | ForEach-Object { "$($_.Name):$($_.Count)" }'
    expected = [":1", "False:1", "True:2"]  # the NULL group first, named ""
    assert await shell.run(f"{NULLS} | {stage}") == expected, "in SQL"
    assert await shell.run(f"@({NULLS}) | {stage}") == expected, "row-wise"


async def test_calculated_property_keys_by_prefix_and_per_command(shell) -> None:
    """about_Calculated_Properties: @{ e = 'ms'; desc = $true } sorted ascending (the key
    was ignored); a key the command does not take was ignored too."""
    out = await shell.run(
        "$r = [pscustomobject]@{ n = 'a'; ms = 1 }, [pscustomobject]@{ n = 'a'; ms = 2 }; "
        "($r | Sort-Object n, @{ e = 'ms'; desc = $true }).ms; "
        "($r | Sort-Object @{ Expression = 'ms'; asc = $false } | Select-Object -First 1).ms"
    )
    assert out == [2, 1, 2]
    with pytest.raises(ParameterError, match="the w key is not valid"):
        await shell.run("1 | Select-Object @{ n = 'a'; e = { 1 }; w = 3 }")
    text = await shell.text("1 | Format-Table @{ l = 'x'; e = { $_ }; w = 5; a = 'Right' }")
    assert text.splitlines()[1:4] == ["    x", "    -", "    1"]


async def test_foreach_object_first_in_its_pipeline_runs_once(shell) -> None:
    out = await shell.run(
        "% { \"once [$_]\" }; ForEach-Object -Begin { 'b' } -Process { 'p' } -End { 'e' }; "
        "@() | % { 'never' }; $null | % { 'null once' }"
    )
    assert out == ["once []", "b", "p", "e", "null once"]


async def test_a_comparison_switch_beside_a_script_block_is_named_as_declared(shell) -> None:
    """-In reached the error as the Python name in_."""
    with pytest.raises(ParameterError, match="Where-Object -In: cannot be used with a script"):
        await shell.run("1..5 | Where-Object { $_ } -In 2, 3")


async def test_measure_objects_sum_is_a_double_in_sql_and_rowwise(shell) -> None:
    """GenericMeasureInfo.Sum is a Double in PowerShell, whatever numbers are summed."""
    stage = "Measure-Object x -Sum | % { $_.Sum.GetType().Name + ' ' + $_.Sum }"
    rows = "sql SELECT x FROM (VALUES (1), (2), (39)) t(x)"
    assert await shell.run(f"{rows} | {stage}") == ["Double 42"], "in SQL"
    assert await shell.run(f"@({rows}) | {stage}") == ["Double 42"], "row-wise"
    assert await shell.run("(@() | Measure-Object -Sum).Sum.GetType().Name") == ["Double"]
