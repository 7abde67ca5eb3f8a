"""Language semantics, run through the real interpreter."""

from __future__ import annotations

import pytest

from fayshell.errors import CommandNotFound, ParameterError, RuntimeFayError
from fayshell.lang.values import Duration, Size


@pytest.mark.parametrize(
    "src, expected",
    [
        ("1 + 2 * 3", [7]),
        ("(1 + 2) * 3", [9]),
        ("10 / 4", [2.5]),
        ("10 / 2", [5]),
        ("7 % 3", [1]),
        ("'a' + 1", ["a1"]),
        ("'ab' * 3", ["ababab"]),
        ("1,2 + 3", [1, 2, 3]),
        ("1..4", [1, 2, 3, 4]),
        ("3..1", [3, 2, 1]),
        ("$true -and $false", [False]),
        ("$true -or $false", [True]),
        ("-not $null", [True]),
        ("!(1 -eq 1)", [False]),
        ("'ABC' -eq 'abc'", [True]),
        ("'ABC' -ceq 'abc'", [False]),
        ("'10' -eq 10", [True]),
        ("10 -eq '10'", [True]),
        ("2 -gt '10'", [False]),
        ("'read' -like 're*'", [True]),
        ("'read' -notlike 'w*'", [True]),
        ("'openat' -match '^open'", [True]),
        ("'x' -notmatch 'y'", [True]),
        ("3 -in 1,2,3", [True]),
        ("3 -notin 1,2", [True]),
        ("1,2,3 -contains 2", [True]),
        ("1,2,3,2 -eq 2", [2, 2]),
        ("1,5,9 -gt 4", [5, 9]),
        ("$null -eq $null", [True]),
        ("'a,b,c' -split ','", ["a", "b", "c"]),
        ("(1,2,3) -join '-'", ["1-2-3"]),
        ("'hello' -replace 'l','L'", ["heLLo"]),
        ("'{0}-{1}' -f 'a', 2", ["a-2"]),
        ("[int]'42' + 1", [43]),
        ("[string]5 + 5", ["55"]),
        ("5 -is [int]", [True]),
        ("'abc'.ToUpper()", ["ABC"]),
        ("'abc'.Length", [3]),
        ("(1,2,3).Count", [3]),
        ("@(1,2,3)[1]", [2]),
        ("@(1,2,3)[-1]", [3]),
        ("0x1F", [31]),
        ("1.5e3", [1500.0]),
        ("-5 + 2", [-3]),
    ],
)
async def test_expressions(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_units_are_durations_and_sizes(shell) -> None:
    d, s, total = await shell.run("500ms; 4KB; 2s + 500ms")
    assert isinstance(d, Duration) and int(d) == 500_000_000 and str(d) == "500ms"
    assert isinstance(s, Size) and int(s) == 4096 and str(s) == "4096"  # PowerShell's 4KB
    assert isinstance(total, Duration) and str(total) == "2500ms"
    assert await shell.run("1h -eq 60m; 16MB -eq 16 * 1MB; 1GB / 1MB") == [True, True, 1024]


async def test_strings_interpolate_variables_and_subexpressions(shell) -> None:
    out = await shell.run("$n = 'web'; $i = 3; \"$n-$i: $($i * 2) `$n ${n}\"; 'no $n'")
    assert out == ["web-3: 6 $n web", "no $n"]


async def test_arrays_hashtables_members_and_indexing(shell) -> None:
    out = await shell.run(
        "$h = @{ name = 'a'; n = 2 }\n"
        "$h.name; $h.N; $h['name']; $h.Count\n"
        "$h.extra = 5; $h.extra\n"
        "$rows = @{ x = 1 }, @{ x = 2 }\n"
        "$rows.x; $rows[1].x; @().Count; @(7).Count"
    )
    assert out == ["a", 2, "a", 2, 5, 1, 2, 2, 0, 1]


async def test_assignment_operators(shell) -> None:
    assert await shell.run("$a = 1; $a += 4; $a *= 2; $a -= 1; $a") == [9]
    assert await shell.run("$l = @(); $l += 1; $l += 2; $l") == [1, 2]


async def test_if_elseif_else(shell) -> None:
    src = (
        "foreach ($v in 1,5,9) { if ($v -lt 3) { 'low' } elseif ($v -lt 7) { 'mid' } "
        "else { 'high' } }"
    )
    assert await shell.run(src) == ["low", "mid", "high"]


async def test_foreach_while_break_continue(shell) -> None:
    src = (
        "$out = foreach ($i in 1..10) { if ($i -eq 3) { continue }; if ($i -gt 5) { break }; $i }\n"
        "$out\n$k = 0; while ($k -lt 3) { $k += 1 }; $k"
    )
    assert await shell.run(src) == [1, 2, 4, 5, 3]


async def test_functions_with_params_defaults_and_return(shell) -> None:
    src = (
        "function Scale { param($value, [int]$factor = 10) return $value * $factor; 'never' }\n"
        "Scale 3; Scale -value 2 -factor 5; Scale -fac 2 4\n"
        "function Twice { $args[0] * 2 }; Twice 21"
    )
    assert await shell.run(src) == [30, 10, 8, 42]


async def test_function_receives_pipeline_input(shell) -> None:
    assert await shell.run(
        "function Total { ($input | Measure-Object -Sum).Sum }; 1..4 | Total"
    ) == [10]


async def test_script_block_scope_updates_outer_variable(shell) -> None:
    assert await shell.run("$sum = 0; 1..4 | ForEach-Object { $sum += $_ }; $sum") == [10]


async def test_psitem_is_dollar_underscore(shell) -> None:
    assert await shell.run("1..3 | ForEach-Object { $PSItem * 2 }") == [2, 4, 6]


async def test_script_block_invoke_with_params(shell) -> None:
    assert await shell.run("$b = { param($x) $x + 1 }; $b.Invoke(41)") == [42]


async def test_env_variables(shell, monkeypatch) -> None:
    monkeypatch.setenv("FAY_TEST_VAR", "hello")
    assert await shell.run("$env:FAY_TEST_VAR") == ["hello"]


async def test_throw_is_a_runtime_error_with_location(shell) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("1\nthrow 'disk on fire'")
    assert info.value.one_line() == "<test>:2:1: disk on fire"


async def test_unknown_command_suggests_close_name(shell) -> None:
    with pytest.raises(CommandNotFound) as info:
        await shell.run("Where-Objcet { $_ }")
    assert "did you mean Where-Object?" in info.value.one_line()


@pytest.mark.parametrize(
    "src, message",
    [
        ("Sort-Object -Foo", "Sort-Object -Foo: no such parameter"),
        ("Sort-Object -Desc -Descendin", "Sort-Object -Descending: given more than once"),
        (
            "Select-Object -Ex x",
            "ambiguous parameter; it could be -ExpandProperty, -ExcludeProperty",
        ),
        (
            "Select-Object -First abc",
            "Select-Object -First: Cannot bind parameter 'First'. Cannot convert value \"abc\" "
            'to type "System.Int32". Error: "Input string was not in a correct format."',
        ),
        ("Start-Sleep 5MB", "Start-Sleep -Duration: expects duration"),
        ("Select-Object -First", "Select-Object -First: missing an argument of type int"),
        ("Where-Object", "Where-Object: missing mandatory parameter -FilterScript"),
        ("Get-Help a b c", "unexpected positional argument 'b'"),
        ("Measure-Object -Percentile 120", "120 is not within 0..100"),
    ],
)
async def test_parameter_errors_name_command_and_parameter(shell, src, message) -> None:
    with pytest.raises(ParameterError) as info:
        await shell.run("1 | " + src if src.startswith(("Sort", "Select", "Measure")) else src)
    assert message in info.value.one_line()


async def test_unambiguous_prefix_and_colon_syntax(shell) -> None:
    assert await shell.run("5,3,9 | Sort-Object -Desc") == [9, 5, 3]
    assert await shell.run("5,3,9 | Sort-Object -Descending:$false") == [3, 5, 9]
    assert await shell.run("1..10 | Select-Object -F 2 -Skip 3") == [4, 5]


async def test_pipeline_binding_by_property_name(shell) -> None:
    src = "@{ Name = 'limit'; Value = 7 } | Set-Variable; $limit"
    assert await shell.run(src) == [7]


async def test_pipeline_binding_by_value(shell) -> None:
    assert await shell.run("'x', 'y' | Write-Output") == ["x", "y"]


async def test_expression_only_first_in_pipeline(shell) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("1 | 2")
    assert "only allowed as the first element" in info.value.one_line()


async def test_cannot_overwrite_constants(shell) -> None:
    with pytest.raises(RuntimeFayError):
        await shell.run("$true = 5")


async def test_division_by_zero_is_a_clear_error(shell) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("1 / 0")
    assert info.value.one_line() == "<test>:1:3: Attempted to divide by zero."


def test_has_property_distinguishes_missing_from_none() -> None:
    from fayshell.records import has_property

    assert has_property({"Name": None}, "name")
    assert not has_property({"Name": 1}, "Value")
    assert not has_property(object(), "Value")


async def test_arguments_convert_as_powershell_binds_them(shell) -> None:
    """[int] and [double] parameters take what a cast would (2.5 is 2, '0x10' 16, $null 0);
    what does not convert is PowerShell's error, with its id."""
    out = await shell.run(
        "function v { param([int]$x, [double]$d) $x; $d }; v 2.5 '1e3'; v '0x10' $null; "
        "1..5 | Select-Object -First 2.5"
    )
    assert out == [2, 1000.0, 16, 0.0, 1, 2]
    with pytest.raises(ParameterError) as info:
        await shell.run("function w { param([double]$d) $d }; w abc")
    assert info.value.message.startswith(
        "w -d: Cannot process argument transformation on parameter 'd'. Cannot convert value "
        '"abc" to type "System.Double".'
    )
    assert info.value.error_id == "ParameterArgumentTransformationError,w"
    with pytest.raises(ParameterError) as info:
        await shell.run("Get-Process -Id abc")
    assert info.value.error_id.startswith("CannotConvertArgumentNoMessage,Microsoft.PowerShell")
