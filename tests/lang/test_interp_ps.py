"""PowerShell language features, run through the real interpreter (values, not text)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from fayshell.errors import ParameterError, RuntimeFayError
from fayshell.host import CaptureHost
from fayshell.lang.interp import ExitSignal, Interpreter
from fayshell.state import Options, ShellState


@pytest.mark.parametrize(
    "src, expected",
    [
        # -f with .NET composite formatting
        ('"{0:N2}" -f 3.14159', ["3.14"]),
        ('"{0:N0}" -f 1234567', ["1,234,567"]),
        ('"{0,5}|{1,-4}|" -f 1, "ab"', ["    1|ab  |"]),
        ('"{0:D5}" -f 42', ["00042"]),
        ('"{0:X}/{0:x4}" -f 255', ["FF/00ff"]),
        ('"{0:P1}" -f 0.1234', ["12.3%"]),
        ('"{0:F3}" -f 2.5', ["2.500"]),
        ('"{0,5:N1}" -f 3.14159', ["  3.1"]),
        ('"{0:0.00}" -f 0.125', ["0.13"]),
        ('"{0:E2}" -f 12345.678', ["1.23E+004"]),
        ('"{{literal}} {0}" -f 1', ["{literal} 1"]),
        # regex: .NET syntax, $Matches, substitutions
        (
            "'John Smith' -match '(?<first>\\w+) (?<last>\\w+)'; $Matches.last; $Matches[0]",
            [True, "Smith", "John Smith"],
        ),
        ("'hello world' -replace '(\\w+) (\\w+)', '$2 $1'", ["world hello"]),
        ("'a-b' -replace '(?<x>a)', '${x}X'", ["aX-b"]),
        ("'Hello' -creplace 'h', 'J'", ["Hello"]),
        ("'Hello' -ireplace 'h', 'J'", ["Jello"]),
        ("'abc' -match '\\Aabc\\z'", [True]),
        # -split with options, unary -split/-join
        ("'a,b,c,d' -split ',', 2", ["a", "b,c,d"]),
        ("'aXbxc' -csplit 'x'", ["aXb", "c"]),
        ("'aXbxc' -isplit 'x'", ["a", "b", "c"]),
        ("'a.b' -split '.', 0, 'SimpleMatch'", ["a", "b"]),
        ("-split ' a  b c '", ["a", "b", "c"]),
        ("-join ('a', 'b', 'c')", ["abc"]),
        # ranges, null and scalar members
        ("'A'..'C'", ["A", "B", "C"]),
        ("$null.Count; (5).Count; (5).Length; 'abc'.Length; @().Count", [0, 1, 1, 3, 0]),
        # conversions and type tests
        ("'42' -as [int]; ('abc' -as [int]) -eq $null", [42, True]),
        ("5 -is [int]; 'x' -isnot [string]; 1.5 -is [double]", [True, False, True]),
        ("[int]2.5; [int]3.5; [char]65; [string]$null -eq ''", [2, 4, "A", True]),
        ("[int[]]('1', '2')", [1, 2]),
        ("[bool]'false'; [bool]0", [True, False]),
        ("(1).GetType().Name; 'a'.GetType().FullName", ["Int32", "System.String"]),
        # null-coalescing, ternary, increments, compound assignment
        ("$a = $null; $a ?? 'def'; $a ??= 5; $a ??= 6; $a", ["def", 5]),
        ("$true ? 'y' : 'n'; (1 -gt 2) ? 'y' : 'n'", ["y", "n"]),
        ("$i = 5; $i++; $i; ++$i; $i--; $i; $j = $i++; $j; $i", [6, 6, 6, 7]),
        ("$i = 1; ($i++); ($i); (--$i)", [1, 2, 1]),
        ("$x = 10; $x += 5; $x -= 3; $x *= 2; $x /= 4; $x %= 4; $x", [2]),
        ("$s = 'a'; $s += 'b'; $s", ["ab"]),
        ("$arr = @(); $arr += 1; $arr += 2; $arr.Count", [2]),
        # [math] and static members
        (
            "[math]::Round(2.567, 2); [math]::Round(2.5); [math]::Floor(2.7); [math]::Abs(-3)",
            [2.57, 2.0, 2.0, 3],
        ),
        (
            "[math]::Max(3, 7); [math]::Min(3, 7); [math]::Pow(2, 10); [math]::Sqrt(16)",
            [7, 3, 1024.0, 4.0],
        ),
        (
            "[int]::MaxValue; [string]::IsNullOrEmpty(''); [string]::Join('-', (1, 2))",
            [2147483647, True, "1-2"],
        ),
        # string and array methods
        (
            "'  hi  '.Trim(); 'abc'.PadLeft(5); 'Hello'.Substring(1, 3); 'Hello'.IndexOf('l')",
            ["hi", "  abc", "ell", 2],
        ),
        ("'a,b'.Split(','); 'Hello'.StartsWith('He'); 'x'.ToUpper()", ["a", "b", True, "X"]),
        ("(1, 2, 3).Where({ $_ -gt 1 }); (1, 2).ForEach({ $_ * 10 })", [2, 3, 10, 20]),
        ("$h = @{a = 1}; $h.Add('b', 2); $h.Count; $h.ContainsKey('B')", [2, True]),
        # here-strings
        ('$n = 2\n$h = @"\nn is $n\n  "quoted"\n"@\n$h', ['n is 2\n  "quoted"']),
        ("$t = @'\nlit $x\n'@\n$t", ["lit $x"]),
        ("[ordered]@{ b = 1; a = 2 } | ForEach-Object { $_.Keys }", ["b", "a"]),
        ("$PSItem = 3; $_", [3]),
    ],
)
async def test_expressions(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        ("for ($i = 0; $i -lt 3; $i++) { $i }", [0, 1, 2]),
        ("for ($i = 0; ; $i++) { if ($i -ge 2) { break }; $i }", [0, 1]),
        ("for ($i = 0; $i -lt 4; $i++) { if ($i -eq 1) { continue }; $i }", [0, 2, 3]),
        ("$i = 0; do { $i++ } while ($i -lt 3); $i", [3]),
        ("$k = 0; do { $k++ } until ($k -ge 4); $k", [4]),
        ("$i = 10; do { 'once' } while ($i -lt 3)", ["once"]),
        ("switch (3) { 1 { 'one' } 3 { 'three' } default { 'other' } }", ["three"]),
        ("switch (9) { 1 { 'one' } default { 'other' } }", ["other"]),
        ("switch ('B') { 'b' { 'ci' } }; switch -CaseSensitive ('B') { 'b' { 'cs' } }", ["ci"]),
        ("switch -Wildcard ('abc', 'xyz') { 'a*' { 'A' } default { 'D' } }", ["A", "D"]),
        ("switch -Regex ('foo123') { '(\\d+)' { $Matches[1] } }", ["123"]),
        ("switch (1, 2, 3) { 2 { 'two'; break } default { $_ } }", [1, "two"]),
        ("switch (1, 2, 3) { 2 { continue } default { $_ } }", [1, 3]),
        ("switch (5) { { $_ -gt 3 } { 'big' } { $_ -gt 4 } { 'bigger' } }", ["big", "bigger"]),
        ("$r = switch (2) { 1 { 'a' } 2 { 'b' } }; $r", ["b"]),
        ("function f { foreach ($x in 1..5) { if ($x -eq 3) { return $x } } }; f", [3]),
    ],
)
async def test_control_flow(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        (
            "try { throw 'boom' } catch { \"caught: $_\"; $_.Exception.Message } finally { 'fin' }",
            ["caught: boom", "boom", "fin"],
        ),
        ("try { 'body' } finally { 'fin' }", ["body", "fin"]),
        (
            "$z = 0; try { 1 / $z } catch [System.DivideByZeroException] { 'dz' } catch { 'other' }",
            ["dz"],
        ),
        (
            "try { Get-Nope } catch [System.Management.Automation.CommandNotFoundException] { 'cnf' }",
            ["cnf"],
        ),
        (
            "try { [int]'abc' } catch [System.Management.Automation.RuntimeException] { 'rt' }",
            ["rt"],
        ),
        (
            "try { throw [System.ArgumentException]::new('bad') } "
            "catch [System.IO.IOException] { 'io' } "
            'catch [System.ArgumentException] { $_.Exception.GetType().Name; "$_" }',
            ["ArgumentException", "bad"],
        ),
        ("try { try { throw 'in' } finally { 'f1' } } catch { 'outer ' + $_ }", ["f1", "outer in"]),
        ("try { throw 'x' } catch { $PSItem.Exception.Message }", ["x"]),
        ("try { throw 'e1' } catch { }; $Error[0].Exception.Message", ["e1"]),
        (
            "function f { trap { 'trapped'; continue }; 'a'; throw 'x'; 'b' }; f",
            ["a", "trapped", "b"],
        ),
    ],
)
async def test_try_catch_trap(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_trap_break_rethrows(shell) -> None:
    with pytest.raises(RuntimeFayError, match="stop here"):
        await shell.run("function f { trap { break }; throw 'stop here' }; f")


async def test_uncaught_typed_catch_passes_error_on(shell) -> None:
    with pytest.raises(RuntimeFayError, match="plain"):
        await shell.run("try { throw 'plain' } catch [System.IO.IOException] { 'no' }")


@pytest.mark.parametrize(
    "src, expected",
    [
        ("$p = @{ Name = 'x' }; function g { param($Name) \"name=$Name\" }; g @p", ["name=x"]),
        ("$a = 1, 2; function g { param($x, $y) $x + $y }; g @a", [3]),
        ("$sb = { param($a) $a * 2 }; & $sb 21", [42]),
        ("& { $args[0] } 'first'", ["first"]),
        (". { $zz = 3 }; $zz", [3]),
        ("& { $yy = 3 }; $yy -eq $null", [True]),
        ("& 'Write-Output' 5", [5]),
        (
            "function h { begin { 'b' } process { \"p$_\" } end { 'e' } }; 1, 2 | h",
            ["b", "p1", "p2", "e"],
        ),
        ("filter dbl { $_ * 2 }; 1, 2, 3 | dbl", [2, 4, 6]),
        ("function s { $input | ForEach-Object { $_ + 1 } }; 1, 2 | s", [2, 3]),
        (
            'function m { [CmdletBinding()] param([Parameter(Mandatory)][string]$N) "hi $N" }; m -N bob',
            ["hi bob"],
        ),
        (
            "function v { param([Parameter(ValueFromPipeline)]$x) process { $x * 3 } }; 1, 2 | v",
            [3, 6],
        ),
        (
            "function sw { param([switch]$Loud, $w) if ($Loud) { $w.ToUpper() } else { $w } }; "
            "sw -Loud hi; sw hi",
            ["HI", "hi"],
        ),
        ("1..3 | & { process { $_ * 2 } }", [2, 4, 6]),
        ("Invoke-Expression '1 + 2'; $c = '$q = 7'; iex $c; $q", [3, 7]),
        (
            "function f { Set-Variable v 5 -Scope Global; Set-Variable w 6; $w }; f; $v; $w -eq $null",
            [6, 5, True],
        ),
        ("$global:g = 3; function k { $global:g = 4 }; k; $g", [4]),
        (
            "function k { $x = 'local'; Get-Variable x -ValueOnly -Scope 1 }; $x = 'outer'; k",
            ["outer"],
        ),
    ],
)
async def test_calls_splatting_and_scopes(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_mandatory_parameter_missing_is_an_error(shell) -> None:
    with pytest.raises(RuntimeFayError, match="mandatory"):
        await shell.run("function m { param([Parameter(Mandatory)]$N) $N }; m")


async def test_redirection_writes_files_and_silences_errors(shell, tmp_path) -> None:
    out = tmp_path / "out.txt"
    src = (
        f"'one' > '{out}'; 'two', 'three' >> '{out}'; Get-Nope 2>$null; "
        f"Write-Output 5 > $null; 'after'"
    )
    assert await shell.run(src) == ["after"]
    assert out.read_text().splitlines() == ["one", "two", "three"]


async def test_redirect_errors_into_output(shell) -> None:
    (err,) = await shell.run("Get-Nope 2>&1")
    assert str(err).startswith("The term 'Get-Nope' is not recognized")  # PowerShell's words
    assert "Get-Nope" in err.Exception.Message


async def test_redirection_takes_every_stream_a_block_writes(shell, tmp_path) -> None:
    """about_Redirection: 2 to 6 and * of a function's or block's commands (the errors of a
    block's second statement were lost, and 3 to 6 were shown whatever was redirected)."""
    await shell.run(
        "function w { 'out'; Write-Error 'err' -ErrorAction Continue; Write-Warning 'warn'; "
        "Write-Verbose 'verb' -Verbose; Write-Information 'info' -InformationAction Continue; "
        "Write-Host 'host' }"
    )
    kinds = await shell.run("w *>&1 | ForEach-Object { $_.GetType().Name }")
    assert kinds[0] == "String"
    assert sorted(kinds[1:]) == sorted(
        ["ErrorRecord", "WarningRecord", "VerboseRecord", "InformationRecord", "InformationRecord"]
    )
    assert shell.host.errors == shell.host.warnings == shell.host.lines == []
    assert await shell.run('$r = w 2>&1; $r.Count; "$($r[1])"') == [2, "err"]
    assert shell.host.warnings == ["warn"] and shell.host.lines == ["info", "host"]
    assert shell.host.errors == []
    shell.host.warnings.clear()
    shell.host.lines.clear()
    assert await shell.run("w 2>$null 3>$null 4>$null 6>$null") == ["out"]
    assert shell.host.warnings == shell.host.errors == shell.host.lines == []
    assert await shell.run("$x = Write-Host 'hi' 6>&1; \"[$x]\"; $x.MessageData") == ["[hi]", "hi"]
    log = tmp_path / "warn.txt"
    await shell.run(f"&{{ Write-Warning 'to file'; 'kept' }} 3> '{log}'")
    assert log.read_text().splitlines() == ["WARNING: to file"]  # as Out-File writes it
    text = await shell.text("&{ Write-Warning 'shown'; 'o' } 3>&1")
    assert text.splitlines() == ["o", "WARNING: shown"]


async def test_loop_enumerators_foreach_and_switch(shell) -> None:
    """about_Automatic_Variables: $foreach and $switch take the next item with MoveNext()."""
    out = await shell.run(
        "foreach ($a in '-n', 5, 'x') { if ($a -eq '-n') { [void]$foreach.MoveNext(); "
        '"n=$($foreach.Current)" } else { "arg $a" } }; $null -eq $foreach; '
        "switch ('-s', 7, 'y') { '-s' { [void]$switch.MoveNext(); \"s=$($switch.Current)\" } "
        'default { "d=$_" } }; '
        "foreach ($i in 1, 2) { foreach ($j in 3) { $foreach.Current }; $foreach.Current }"
    )
    assert out == ["n=5", "arg x", True, "s=7", "d=y", 3, 1, 3, 2]
    rows = "(sql SELECT 1 AS a UNION ALL SELECT 2 ORDER BY a)"
    assert await shell.run(f"foreach ($r in {rows}) {{ $foreach.Current.a }}") == [1, 2]
    with pytest.raises(RuntimeFayError, match="cannot skip ahead"):  # a query's rows stream
        await shell.run(f"foreach ($r in {rows}) {{ [void]$foreach.MoveNext() }}")


async def test_private_variables_are_not_seen_by_child_scopes(shell) -> None:
    out = await shell.run(
        '& { $private:p = 1; "own=[$p]"; & { "child=[$p]"; $p = 5; "set=[$p]" }; "still=[$p]" }'
    )
    assert out == ["own=[1]", "child=[]", "set=[5]", "still=[1]"]


async def test_intrinsic_members_and_automatic_variables(shell) -> None:
    out = await shell.run(
        "$o = [pscustomobject]@{ a = 1 }; $o.pstypenames; (1, 2, 3).psbase.Count; "
        "$PSCulture; $PSUICulture; $ShellId; [string]$InformationPreference; "
        "[string]$ProgressPreference"
    )
    assert out == [
        "System.Management.Automation.PSCustomObject",
        "System.Object",
        3,
        "en-US",
        "en-US",
        "Microsoft.PowerShell",
        "SilentlyContinue",
        "Continue",
    ]


async def test_pipeline_chains_follow_success(shell) -> None:
    assert await shell.run("1 && 'ok'; Get-Nope || 'fallback'") == [1, "ok", "fallback"]
    assert shell.host.errors and "Get-Nope" in shell.host.errors[0]
    with pytest.raises(RuntimeFayError):
        await shell.run("Get-Nope && 'never'")


async def test_dollar_question_mark(shell) -> None:
    assert await shell.run("'x' | Out-Null; $?") == [True]
    await shell.run("$ErrorActionPreference = 'SilentlyContinue'")
    assert await shell.run("Get-Variable nope*, nosuch; $?") == [False]


async def test_exit_raises_exit_signal_with_code(shell) -> None:
    with pytest.raises(ExitSignal) as info:
        await shell.run("'before'; function f { exit 3 }; f; 'never'")
    assert info.value.code == 3


async def test_dot_source_a_file(shell, tmp_path) -> None:
    lib = tmp_path / "lib.fay"
    lib.write_text("$fromlib = 41\nfunction inc($n) { $n + 1 }\n")
    assert await shell.run(f". '{lib}'; inc $fromlib") == [42]


async def test_count_of_relation_and_of_its_measure(shell) -> None:
    await shell.run("sql CREATE TABLE t AS SELECT range AS n FROM range(70)")
    assert await shell.run("(sql SELECT * FROM t).Count") == [70]
    assert await shell.run("(sql SELECT * FROM t | Measure-Object).Count") == [70]
    assert await shell.run("$m = sql SELECT * FROM t | Measure-Object; $m.Count") == [70]
    assert await shell.run("(sql SELECT n AS Count FROM t).Count") == [70]
    assert await shell.run("(1..5 | Measure-Object).Count") == [5]


async def test_a_query_held_in_a_variable_is_its_rows_as_a_value(shell) -> None:
    """``$x = <query>`` is $null for no row, the row for one, the rows for more, wherever a
    value is needed, as PowerShell's assignment of a pipeline's output is. An empty query was
    true in ``if``, not $null, and "$x" printed the query object; one row said Object[]."""
    await shell.run("sql CREATE TABLE q AS SELECT range AS n FROM range(3)")
    out = await shell.run(
        "$none = sql SELECT * FROM q WHERE n > 9; $one = sql SELECT * FROM q WHERE n = 1; "
        "$two = sql SELECT * FROM q WHERE n < 2; "
        "[bool]$none; [bool]$one; [bool]$two; $null -eq $none; $null -eq $one; "
        '"[$none]"; "[$one]"; "[$two]"; $one.GetType().Name; $two.GetType().Name; '
        "$one -is [array]; $two -is [array]; ($two -eq $null).Count; $two -contains $null; "
        "if (-not (sql SELECT * FROM q WHERE n > 9)) { 'empty' }"
    )
    assert out == [
        False,
        True,
        True,
        True,
        False,
        "[]",
        "[@{n=1}]",
        "[@{n=0} @{n=1}]",
        "PSCustomObject",
        "Object[]",
        False,
        True,
        0,
        False,
        "empty",
    ]
    with pytest.raises(RuntimeFayError) as err:
        await shell.run("$none.GetType()")
    assert "null-valued expression" in err.value.message


async def test_format_errors_are_clear(shell) -> None:
    """.NET's words, inside PowerShell's for the -f operator (FormatError) and a method's."""
    out = await shell.run(
        "try { '{1}' -f 0 } catch { $_.Exception.Message; $_.FullyQualifiedErrorId }; "
        "try { 'a}b' -f 0 } catch { $_.Exception.Message }; "
        "try { [string]::Format('{2}', 1) } catch { $_.Exception.Message }"
    )
    index = (
        "Index (zero based) must be greater than or equal to zero and less than the size of "
        "the argument list."
    )
    assert out == [
        f"Error formatting a string: {index}.",
        "FormatError",
        "Error formatting a string: Input string was not in a correct format..",
        f'Exception calling "Format" with "2" argument(s): "{index}"',
    ]


@pytest.mark.parametrize(
    "src, expected",
    [
        ("function f { $x = 2 }; $x = 1; f; $x", [1]),
        ("$x = 1; & { $x = 2 }; $x", [1]),
        ("$sum = 0; 1..3 | ForEach-Object { $sum += $_ }; $sum", [6]),
        ("function f { 'a'; throw 'x' }; try { f } catch { 'caught' }", ["a", "caught"]),
        ("foreach ($i in 1..3) { $i; break }", [1]),
        ("function f { 'a'; return 'b'; 'c' }; f", ["a", "b"]),
    ],
)
async def test_scopes_and_partial_output(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_output_before_an_uncaught_error_is_kept(shell) -> None:
    with pytest.raises(RuntimeFayError):
        await shell.run("function f { 'shown'; throw 'x' }; f")
    assert await shell.run("try { try { throw 'in' } finally { 'f1' } } catch { 'c' }") == [
        "f1",
        "c",
    ]


async def test_lastexitcode_from_invoke_command_on_one_node(shell) -> None:
    src = "Invoke-Command -Node localhost -Command 'exit 3' | Out-Null; $LASTEXITCODE"
    assert await shell.run(src) == [3]
    assert await shell.run(
        "Invoke-Command -Node localhost -Command 'false' | Out-Null || 'no'; "
        "Invoke-Command -Node localhost -Command 'true' | Out-Null && 'yes'"
    ) == ["no", "yes"]


async def test_hashtables_print_as_name_value_rows(shell) -> None:
    assert (
        await shell.text("@{ a = 1; bb = 'x' }")
        == "\nName" + " " * 27 + "Value\n----" + " " * 27
        + "-----\n"
        "a" + " " * 30 + "1\nbb" + " " * 29 + "x\n"
    )
    assert await shell.text("[pscustomobject]@{ a = 1; bb = 'x' }") == "\na bb\n- --\n1 x\n"
    assert await shell.text("1/3; [math]::PI") == "0.333333333333333\n3.14159265358979"


@pytest.mark.parametrize(
    "src, expected",
    [
        ("[array]::IndexOf(@(1, 2, 3), 2)", [1]),
        (
            ":outer foreach ($i in 1..3) { foreach ($j in 1..3) { if ($j -eq 2) { continue outer }; "
            '"$i$j" } }',
            ["11", "21", "31"],
        ),
        (
            ":outer foreach ($i in 1..3) { foreach ($j in 1..3) { if ($i -eq 2) { break outer }; "
            '"$i$j" } }',
            ["11", "12", "13"],
        ),
        (
            "foreach ($i in 1..2) { switch ($i) { 1 { 'one'; break } }; \"after$i\" }",
            ["one", "after1", "after2"],
        ),
        ("1 -band 3; 5 -bor 2; 6 -bxor 3; 1 -shl 3; 16 -shr 2", [1, 7, 5, 8, 4]),
        (
            "[char[]]'ab'; [int][char]'A'; 'abc'.ToCharArray() | ForEach-Object { [int]$_ }",
            ["a", "b", 65, 97, 98, 99],
        ),
        ("$s = 'hello'; $s[0]; $s[-1]; [int]$s[1]", ["h", "o", 101]),
        ("-7 % 3; 7 % -3; 7.5 % 2", [-1, 1, 1.5]),
        ("$a, $b = 1, 2; $b; $a", [2, 1]),
        ("$a, $b, $c = 1..5; $c", [3, 4, 5]),
    ],
)
async def test_more_operators_and_statements(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        ("1..5 | ForEach-Object { if ($_ -eq 3) { break }; $_ }; 'not reached'", [1, 2]),
        (
            'foreach ($i in 1..2) { 1..5 | ForEach-Object { if ($_ -eq 3) { continue }; "$i$_" } }',
            ["11", "12", "21", "22"],
        ),
        ("1..5 | ForEach-Object { if ($_ -eq 3) { return }; $_ }", [1, 2, 4, 5]),
        ("$h = @{a = 1}; $h += @{b = 2}; $h.Count; $h.GetType().Name", [2, "Hashtable"]),
        ("$l = [System.Collections.Generic.List[int]]::new(); $l.Add(3); $l.Add(4); $l.Count", [2]),
        (
            '@{b = 2; a = 1}.GetEnumerator() | Sort-Object Name | ForEach-Object { "$($_.Key)=$($_.Value)" }',
            ["a=1", "b=2"],
        ),
    ],
)
async def test_pipelines_with_control_flow_and_collections(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        ("'abc' -replace 'b', { $_.Value.ToUpper() }", ["aBc"]),
        ("'a1b22' -replace '\\d+', { [int]$_.Value * 2 }", ["a2b44"]),
        ("([regex]::Matches('a1b22', '\\d+')).Value", ["1", "22"]),
        ("[regex]::Match('k7', '(\\d)').Groups[1].Value; [regex]::Escape('a.b')", ["7", "a\\.b"]),
        (
            "$Error.Count; $IsLinux; $PSVersionTable.PSEdition; $HOME -ne $null",
            [0, True, "Core", True],
        ),
    ],
)
async def test_regex_objects_and_automatic_variables(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_psscriptroot_is_the_scripts_directory(shell, tmp_path) -> None:
    script = tmp_path / "where.fay"
    script.write_text("$PSScriptRoot\n")
    assert await shell.interp.run(script.read_text(), str(script)) == [str(tmp_path)]


async def test_typed_variables(shell) -> None:
    assert await shell.run(
        "[int]$x = '42'; $x + 1; [string[]]$s = 1, 2; $s; [int]$y = 3.6; $y"
    ) == [43, "1", "2", 4]


async def test_nested_arrays_print_flat_and_escapes(shell) -> None:
    assert await shell.text("@(1, @(2, 3))") == "1\n2\n3"
    assert await shell.text("1, $null, 2") == "1\n2"
    assert await shell.run(
        '"`u{263A}"; "a,,b".Split(",", [StringSplitOptions]::RemoveEmptyEntries)'
    ) == ["\u263a", "a", "b"]


@pytest.mark.parametrize(
    "src, expected",
    [
        ("function f { try { return 1 } finally { 'f' } }; f", [1, "f"]),
        ("try { try { throw 'orig' } catch { throw } } catch { \"outer: $_\" }", ["outer: orig"]),
        (
            'foreach ($i in 1..3) { try { if ($i -eq 2) { continue }; $i } finally { "f$i" } }',
            [1, "f1", "f2", 3, "f3"],
        ),
        (
            "try { try { 'a'; throw 'x' } catch { 'b'; throw 'y' } finally { 'c' } } catch { \"$_\" }",
            ["a", "b", "c", "y"],
        ),
    ],
)
async def test_finally_and_rethrow(shell, src, expected) -> None:
    assert await shell.run(src) == expected


class OrderHost(CaptureHost):
    """Records host text and output in one list, to check their order."""

    def __init__(self, log: list) -> None:
        super().__init__()
        self.log = log

    def write_host(self, text: str, color: str | None = None, newline: bool = True) -> None:
        self.log.append(("host", text))


@pytest.mark.parametrize(
    "src, expected",
    [
        (
            'foreach ($i in 1..2) { Write-Host "p$i"; $i * 2 }',
            [("host", "p1"), ("out", 2), ("host", "p2"), ("out", 4)],
        ),
        ("function f { 'a'; Write-Host 'b'; 'c' }; f", [("out", "a"), ("host", "b"), ("out", "c")]),
        (
            '1..2 | ForEach-Object { Write-Host "x$_"; $_ }',
            [("host", "x1"), ("out", 1), ("host", "x2"), ("out", 2)],
        ),
        (
            '$r = foreach ($i in 1..2) { Write-Host "h$i"; $i }; $r',
            [("host", "h1"), ("host", "h2"), ("out", 1), ("out", 2)],
        ),
        (
            '1..2 | ForEach-Object { Write-Host "x$_"; $_ } | Sort-Object -Descending',
            [("host", "x1"), ("host", "x2"), ("out", 2), ("out", 1)],
        ),
    ],
)
async def test_host_text_and_output_keep_their_order(tmp_path, src, expected) -> None:
    log: list = []
    state = ShellState(Options(database=str(tmp_path / "o.duckdb")), OrderHost(log))
    try:
        await Interpreter(state).run(
            src, on_output=lambda items: log.extend(("out", i) for i in items)
        )
    finally:
        await state.aclose()
    assert log == expected


async def test_math_edges_and_bad_calls_are_clear_errors(shell) -> None:
    assert (
        await shell.text("[math]::Sqrt(-1); [math]::Log(0); [math]::Log10(1000); [math]::Log(8, 2)")
        == "NaN\n-Infinity\n3\n3"
    )
    for src in ("[math]::Max(1)", "$h = @{}; $h.Add()", "'abc'.Substring()", "[string]::Join()"):
        with pytest.raises(RuntimeFayError, match='Cannot find an overload for ".*" and the'):
            await shell.run(src)


@pytest.mark.parametrize(
    "src",
    [
        "1 .. 99999999999",
        "'ab' * 99999999999",
        "1e308 * 10 -shr 1",
        "'x' -replace @()",
    ],
)
async def test_extreme_operands_are_one_line_errors(shell, src) -> None:
    with pytest.raises(RuntimeFayError):
        await shell.run(src)


async def test_shift_counts_wrap_like_dotnet(shell) -> None:
    assert await shell.run("1 -shl 65; 8 -shr -1; 'a b' -split ' ', 1e308") == [2, 0, "a", "b"]


async def test_wide_custom_objects_print_as_lists(shell) -> None:
    assert (
        await shell.text("[pscustomobject]@{a = 1; b = 2; c = 3; d = 4; e = 5}")
        == "\na : 1\nb : 2\nc : 3\nd : 4\ne : 5\n"
    )
    assert await shell.text("[pscustomobject]@{a = 1; b = 2}") == "\na b\n- -\n1 2\n"


async def test_pipeline_binding_by_property_name(shell) -> None:
    src = (
        "function Show-It { param([Parameter(ValueFromPipelineByPropertyName)]$Name, "
        '[Parameter(ValueFromPipelineByPropertyName)]$Size) process { "$Name=$Size" } }; '
        "[pscustomobject]@{Name = 'a'; Size = 1}, [pscustomobject]@{Name = 'b'; Size = 2} "
        "| Show-It"
    )
    assert await shell.run(src) == ["a=1", "b=2"]


async def test_dot_source_and_call_a_script_with_params(shell, tmp_path) -> None:
    lib = tmp_path / "add.fay"
    lib.write_text("param($a, $b = 10)\n$a + $b\n")
    assert await shell.run(f"& '{lib}' 1; & '{lib}' -a 1 -b 2") == [11, 3]


@pytest.mark.parametrize(
    "src, expected",
    [
        (
            '1..2 | ForEach-Object { $_; Write-Host "x$_" } | Sort-Object -Descending',
            [("host", "x1"), ("host", "x2"), ("out", 2), ("out", 1)],
        ),
        (
            '1..3 | Where-Object { Write-Host "w$_"; $_ -gt 1 }',
            [("host", "w1"), ("host", "w2"), ("out", 2), ("host", "w3"), ("out", 3)],
        ),
    ],
)
async def test_host_text_never_takes_a_cmdlets_input(tmp_path, src, expected) -> None:
    log: list = []
    state = ShellState(Options(database=str(tmp_path / "o.duckdb")), OrderHost(log))
    try:
        await Interpreter(state).run(
            src, on_output=lambda items: log.extend(("out", i) for i in items)
        )
    finally:
        await state.aclose()
    assert log == expected


async def test_exit_in_a_called_script_sets_lastexitcode(shell, tmp_path) -> None:
    child = tmp_path / "child.fay"
    child.write_text("'child'\nexit 4\n'never'\n")
    assert await shell.run(f"& '{child}'; $LASTEXITCODE; 'parent goes on'") == [
        "child",
        4,
        "parent goes on",
    ]


async def test_ofs_joins_arrays_in_strings(shell) -> None:
    assert await shell.run('$a = 1, 2, 3; "$a"; $OFS = "-"; "$a"; "$(1, 2)"') == [
        "1 2 3",
        "1-2-3",
        "1-2",
    ]


async def test_timespan_format_strings(shell) -> None:
    assert await shell.run(
        '$d = [timespan]3725.5; "{0:hh\\:mm\\:ss}" -f $d; "{0:c}" -f $d; '
        '"{0:g}" -f $d; "{0:d\\.hh\\:mm}" -f 90000s'
    ) == ["01:02:05", "01:02:05.5000000", "1:02:05.5", "1.01:00"]


async def test_deep_recursion_and_its_limit(shell) -> None:
    await shell.run("function deep($n) { if ($n -gt 0) { deep ($n - 1) } else { 'bottom' } }")
    assert await shell.run("deep 500") == ["bottom"]
    with pytest.raises(RuntimeFayError, match="call depth overflow"):
        await shell.run("function forever($n) { forever ($n + 1) }; forever 0")


async def test_date_statics_through_the_evaluator(shell) -> None:
    assert await shell.run(
        "[datetime]::new(2024, 3, 5).Year; [timespan]::FromMinutes(90).TotalHours;"
        " '{0:yyyy-MM-dd}' -f [datetime]'2024-03-05'"
    ) == [2024, 1.5, "2024-03-05"]


async def test_switch_file_and_redirection_follow_the_location(shell, tmp_path) -> None:
    (tmp_path / "in.txt").write_text("alpha\nbeta\n")
    src = (
        f"Set-Location '{tmp_path}'; switch -Wildcard -File in.txt {{ 'b*' {{ \"B:$_\" }} }}; "
        "'x' > out.txt"
    )
    assert await shell.run(src) == ["B:beta"]
    assert (tmp_path / "out.txt").read_text() == "x\n"


async def test_dot_source_relative_to_the_location(shell, tmp_path) -> None:
    (tmp_path / "lib.fay").write_text("$libvar = 'loaded'\n")
    assert await shell.run(f"Set-Location '{tmp_path}'; . ./lib.fay; $libvar") == ["loaded"]


@pytest.mark.parametrize(
    "src, expected",
    [
        ('([version]"2.13.1").Major', [2]),
        ('([version]"2.13").Build', [-1]),
        ('"$([version]"2.13.1")"', ["2.13.1"]),
        ('[version]"2.13.1" -ge "2.9"', [True]),
        ('[version]"1.10" -gt [version]"1.9"', [True]),
        ('[version]"1.2" -eq "1.2"', [True]),
        ('[version]"1.2" -eq "1.2.0"', [False]),
        ('[version]"1.2" -eq "not a version"', [False]),
        ('[version]"1.2" -is [version]', [True]),
        ('"1.2" -as [version] -is [System.Version]', [True]),
        ('$null -eq ("x" -as [version])', [True]),
        ("[version]1.5 -eq '1.5'", [True]),
        ("[version]::new(1, 2, 3).ToString(2)", ["1.2"]),
        ('[version]::Parse("4.5").Minor', [5]),
        ('([version]"1.2").GetType().FullName', ["System.Version"]),
        (
            '"1.10", "1.9", "1.2.3" | ForEach-Object { [version]$_ } | Sort-Object | % ToString',
            ["1.2.3", "1.9", "1.10"],
        ),
        ('([version[]]("1.9", "1.10") | Measure-Object -Maximum).Maximum.ToString()', ["1.10"]),
        ('[semver]"7.4.1-rc.1" -lt "7.4.1"', [True]),
        ("[semver]::new(7, 4).ToString()", ["7.4.0"]),
        ("$PSVersionTable.PSVersion.Major -ge 7", [True]),
        ('"$($PSVersionTable.PSVersion)"', ["7.4.0"]),
        ('$PSVersionTable.PSVersion -ge [version]"7.0"', [True]),
        ('$PSVersionTable.PSVersion -lt "7.10"', [True]),
        ("$PSVersionTable.PSVersion -is [semver]", [True]),
    ],
)
async def test_versions_cast_compare_and_sort(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, message",
    [
        ('[version]"7"', 'Cannot convert value "7" to type "System.Version"'),
        ('[version]"1.x"', "Input string was not in a correct format."),
        ('[semver]"v1"', '"System.Management.Automation.SemanticVersion"'),
        ('[version]"1.2" -gt "abc"', "cannot compare Version with string using -gt"),
        ("[version]::new(1)", '"new" with "1" argument(s)'),
    ],
)
async def test_bad_versions_are_one_line_errors(shell, src, message) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run(src)
    assert message in info.value.message and "\n" not in info.value.message


@pytest.mark.parametrize(
    "src, expected",
    [
        ('[System.IO.Path]::GetFileName("/var/log/a.tar.gz")', ["a.tar.gz"]),
        ('[IO.Path]::GetDirectoryName("/var/log/a.gz")', ["/var/log"]),
        ('$null -eq [IO.Path]::GetDirectoryName("/")', [True]),
        ('[IO.Path]::GetExtension("/x.d/a.tar.gz")', [".gz"]),
        ('[IO.Path]::GetExtension("/x.d/README")', [""]),
        ('[IO.Path]::GetFileNameWithoutExtension("/x/a.tar.gz")', ["a.tar"]),
        ('[IO.Path]::ChangeExtension("a.txt", "log")', ["a.log"]),
        ('[IO.Path]::ChangeExtension("a.txt", "")', ["a."]),
        ('[IO.Path]::ChangeExtension("a.txt", $null)', ["a"]),
        ('[IO.Path]::Combine("/a", "b", "c.txt")', ["/a/b/c.txt"]),
        ('[IO.Path]::Combine("/a", "/b")', ["/b"]),
        ('[IO.Path]::IsPathRooted("a/b")', [False]),
        ("[IO.Path]::DirectorySeparatorChar", ["/"]),
        ("$null -eq [IO.Path]::GetFileName($null)", [True]),
    ],
)
async def test_io_path_statics_on_linux_paths(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_io_path_with_too_few_arguments_is_a_one_line_error(shell) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("[IO.Path]::GetFileName()")
    assert info.value.message.endswith(
        'Cannot find an overload for "GetFileName" and the argument count: "0".'
    )


@pytest.mark.parametrize(
    "src, expected",
    [
        ("$a = @(3, 1, 2); [array]::Sort($a); $a -join ','", ["1,2,3"]),
        ("$a = 'b', 'C', 'a'; [array]::Sort($a); $a -join ','", ["a,b,C"]),
        ("$a = [version[]]('1.10', '1.9'); [array]::Sort($a); $a -join ','", ["1.9,1.10"]),
        (
            "$a = [datetime[]]('2024-03-05', '2023-12-01'); [array]::Sort($a); $a[0].Year",
            [2023],
        ),
    ],
)
async def test_array_sort_orders_in_place_as_sort_object_does(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        # DuckDB's DECIMAL columns arrive as [decimal] values: arithmetic stays decimal
        ("$x = @(sql SELECT 1.5 AS d)[0]; $x.d + 1", [Decimal("2.5")]),
        ("@(sql SELECT 2.25::DECIMAL(9,2) AS e)[0].e * 2", [Decimal("4.50")]),
        ("$x = @(sql SELECT 1.5 AS d)[0]; 2.5 * $x.d", [Decimal("3.75")]),  # either side
        ("(@(sql SELECT 1.5 AS d)[0].d).GetType().FullName", ["System.Decimal"]),
        ("0.1d + 0.2d -eq 0.3d", [True]),
        ("0.1 + 0.2 -eq 0.3", [False]),  # doubles, for contrast
        ("1d / 3", [Decimal("0.3333333333333333333333333333")]),
        # as many digits as .NET's 96-bit mantissa holds: 29 where they fit, else 28
        (
            "10d / 3; 20d / 3",
            [Decimal("3.3333333333333333333333333333"), Decimal("6.6666666666666666666666666667")],
        ),
        (
            "9d / 1.1d; 2d / 3 * 3",
            [Decimal("8.181818181818181818181818182"), Decimal("2.0000000000000000000000000001")],
        ),
        ("[decimal]::MaxValue / 3", [Decimal("26409387504754779197847983445")]),
        ("-7.5d % 2", [Decimal("-1.5")]),  # the dividend's sign
        ("\"$([decimal]'1.10' * 3)\"", ["3.30"]),  # text keeps its digits
        ("[decimal]0.1 -eq 0.1d", [True]),  # a double keeps 15 digits
        ("[int]2.5d, [int]3.5d", [2, 4]),  # to even
        ("2.5d -gt '2'", [True]),
        ("(1.50d).ToString('N3'), ('{0}' -f 1.50d)", ["1.500", "1.50"]),
        ("@{d = 1.50d} | ConvertTo-Json -Compress", ['{"d":1.5}']),
        ("5l + 1", [6]),
        ("1.5d -is [decimal]; 1.5 -is [decimal]; 1.5d -is [double]", [True, False, False]),
    ],
)
async def test_decimals_from_duckdb_and_literals(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_decimal_overflow_is_a_one_line_error(shell) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("79228162514264337593543950335d + 1")
    assert info.value.message.endswith("Value was either too large or too small for a Decimal.")


async def test_measure_of_a_decimal_column_in_sql_and_rowwise(shell) -> None:
    table = "sql SELECT * FROM (VALUES (1.5), (2.25), (NULL)) AS t(d)"
    stage = "Measure-Object d -Sum -Average -Maximum"
    for src in (f"{table} | {stage}", f"@({table}) | {stage}"):
        m = (await shell.run(src))[0]
        assert (m["Count"], m["Sum"], m["Average"], m["Maximum"]) == (2, 3.75, 1.875, 2.25), src


async def test_a_statement_naming_a_script_path_runs_it(shell, tmp_path) -> None:
    (tmp_path / "lib.fay").write_text("$libvar = 'set'\n")
    (tmp_path / "y.fay").write_text('param($n = 1)\n"got $n"\nexit 3\n')
    src = f"Set-Location '{tmp_path}'; ./lib.fay; \"[$libvar]\"; .\\y.fay 5; $LASTEXITCODE"
    assert await shell.run(src) == ["[]", "got 5", 3]  # a scope of its own, as & runs it
    assert await shell.run(f"{tmp_path}/y.fay -n 9") == ["got 9"]
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("/bin/ls")
    assert "fayshell runs scripts (.fay, .ps1)" in info.value.message


@pytest.mark.parametrize(
    "src, expected", [(".5 + 1", [1.5]), ("3 * .25", [0.75]), (".5s", ["500ms"]), ("6 / 2", [3])]
)
async def test_numbers_may_start_with_a_dot(shell, src, expected) -> None:
    assert [str(v) if type(v).__name__ == "Duration" else v for v in await shell.run(src)] == (
        expected
    )


@pytest.mark.parametrize(
    "src, expected",
    [
        # about_Parsing's argument-mode table ($a is 4)
        ("Write-Output a$a", ["a4"]),
        ("Write-Output $a+2", ["4+2"]),
        ('Write-Output a"$a"', ["a4"]),
        ("Write-Output a'$a'", ["a$a"]),
        ("Write-Output a$(2)", ["a2"]),
        ("Write-Output $a.Length-more", [1, "-more"]),  # member access ends the word
        # what scripts type every day
        ("$d = '/var/log'; Write-Output $d/syslog", ["/var/log/syslog"]),
        ("$n = 'web'; Write-Output $n-01,${n}02", ["web-01", "web02"]),
        ("Write-Output a`$a ^x$ 5 -5", ["a$a", "^x$", 5, -5]),
    ],
)
async def test_argument_mode_words_expand_as_strings(shell, src, expected) -> None:
    assert await shell.run(f"$a = 4; {src}") == expected


async def test_paths_built_from_variables_reach_the_cmdlet_whole(shell, tmp_path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "a.log").write_text("x")
    src = f"$root = '{tmp_path}'; Get-ChildItem $root/logs | % Name; Test-Path $root/logs/a.log"
    assert await shell.run(src) == ["a.log", True]


async def test_error_and_out_variables_keep_what_a_command_did(shell) -> None:
    out = await shell.run(
        "Get-Item /nope-1, / -ErrorAction SilentlyContinue -ErrorVariable ev -OutVariable ov; "
        "$ev.Count; $ev[0].Exception.Message; $ev[0].TargetObject; $ov.FullName; "
        "Get-Item /nope-2 -ErrorAction SilentlyContinue -ErrorVariable +ev; $ev.Count; "
        "Get-Item / -ErrorVariable ev | Out-Null; $ev.Count"
    )
    assert out[1:] == [
        1,
        "Cannot find path '/nope-1' because it does not exist.",
        "/nope-1",
        "/",
        2,  # +ev added to it
        0,  # a run without errors leaves it empty
    ]
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("Get-Item / -ErrorVariable $ev")
    assert "is not a variable name (no $)" in info.value.message


async def test_error_keeps_non_terminating_errors_newest_first(shell) -> None:
    out = await shell.run(
        "$Error.Clear(); Get-Item /e-1, /e-2 -ErrorAction SilentlyContinue; "
        'Get-Item /e-3 -ErrorAction Ignore; $Error.Count; "$($Error[0])"; $Error.GetType().Name'
    )
    assert out == [2, "Cannot find path '/e-2' because it does not exist.", "ArrayList"]


async def test_a_caught_stop_is_the_first_error_and_is_not_shown(shell) -> None:
    out = await shell.run(
        "$Error.Clear(); try { Get-Item /gone -ErrorAction Stop; 'not reached' } "
        "catch { $_.Exception.Message; $_.GetType().FullName }; $Error.Count"
    )
    assert out == [
        "Cannot find path '/gone' because it does not exist.",
        "System.Management.Automation.ErrorRecord",
        1,
    ]
    assert shell.host.errors == []  # PowerShell shows nothing of an error it caught
    (message,) = await shell.run("try { Get-Item /g1, /g2 } catch { $_.Exception.Message }")
    assert message.endswith("does not exist. (1 more failed)")  # the fan-out went on


async def test_stop_ends_a_function_or_loop_at_the_failing_statement(shell) -> None:
    src = "function f { Get-Item /f-1; 'after in f' }; try { f } catch { 'caught' }"
    assert await shell.run(src) == ["caught"]
    with pytest.raises(RuntimeFayError):
        await shell.run('foreach ($n in 1, 2) { Get-Item /l-$n; "next $n" }')
    assert shell.host.errors == ["Get-Item: Cannot find path '/l-1' because it does not exist."]
    assert await shell.run(
        'foreach ($n in 1, 2) { Get-Item /c-$n -ErrorAction Continue; "next $n" }'
    ) == ["next 1", "next 2"]


@pytest.mark.parametrize(
    "src, expected",
    [
        ("(1..3).Where({ $_ -ge 2 }, 'First')", [2]),
        ("(1..10).Where({ $_ % 2 }, 'Last', 2)", [7, 9]),
        ("(1..6).Where({ $_ -gt 3 }, 'SkipUntil')", [4, 5, 6]),
        ("(1..6).Where({ $_ -gt 3 }, 'Until', 2)", [1, 2]),
        ("(1..5).Where({ $_ -gt 1 }, 'Default', 2)", [2, 3]),
        ("$a, $b = (1..6).Where({ $_ % 2 }, 'Split', 2); \"$a|$b\"", ["1 3|2 4 5 6"]),
        ("('a', 'bb').ForEach('Length')", [1, 2]),
        ("('a,b', 'c').ForEach('Split', ',')", ["a", "b", "c"]),
        ("[timespan]'01:30:00' | % ToString", ["01:30:00"]),
        (
            "(New-TimeSpan -Seconds 90).ToString('g'), ([timespan]'1:2:3').ToString('hh\\:mm')",
            ["0:01:30", "01:02"],
        ),
    ],
)
async def test_array_where_modes_foreach_names_and_timespan_text(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_where_with_an_unknown_mode_is_a_one_line_error(shell) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("(1..3).Where({ $_ }, 'Sometimes')")
    assert "one of default, first, last, skipuntil, until, split" in info.value.message


@pytest.mark.parametrize(
    "src, expected",
    [
        ("$s = 'ab'; ${s}?.Length", [2]),
        ('$s = $null; ${s}?.Length; ${s}?.ToUpper(($x = 5)); "[$x]"', [None, "[]"]),  # no call
        ("$a = @(7); ${a}?[0]; $n = $null; ${n}?[0]", [7, None]),
        ("$t = $true; $t ? 1 : 2", [1]),  # the ternary still needs its spaces
        ("$x = $y = 5; $x + $y", [10]),
        ('$x = ($y = 2) + 1; "$x$y"', ["32"]),
    ],
)
async def test_null_conditional_access_and_chained_assignment(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_scripts_know_their_own_folder_and_invocation(shell, tmp_path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "a.fay").write_text(
        '"lib: $(Split-Path -Leaf $PSScriptRoot) $($MyInvocation.MyCommand.Name)"\n'
        'function helper { "$($MyInvocation.MyCommand.Name) <- '
        '$(Split-Path -Leaf $MyInvocation.ScriptName)" }\n'
    )
    (tmp_path / "main.fay").write_text(
        ". $PSScriptRoot/lib/a.fay\n"  # dot-sourced: its own root while it runs
        '"main: $(Split-Path -Leaf $PSScriptRoot) $($MyInvocation.MyCommand.Name)"\n'
        "helper\n"
        "& $PSScriptRoot/lib/a.fay\n"
    )
    assert await shell.run(f"& '{tmp_path}/main.fay'") == [
        "lib: lib a.fay",
        f"main: {tmp_path.name} main.fay",
        "helper <- main.fay",
        "lib: lib a.fay",
    ]


@pytest.mark.parametrize(
    "src, expected",
    [
        ("@($null).Count", [1]),
        ("$null | ForEach-Object { 'ran' }", ["ran"]),
        ("$x = $null; $x | Where-Object { $null -eq $_ } | % { 'kept' }", ["kept"]),
        ("$null -in @($null)", [True]),
        ("function f { $null }; @(f).Count", [1]),
        ("function f { }; @(f).Count", [0]),  # no output is not $null
        ("@([void]1).Count", [0]),
        ("$l = [System.Collections.Generic.List[int]]::new(); @($l.Add(1)).Count", [0]),  # void
        ("@() | ForEach-Object { 'never' }", []),
        ("1, $null, 2 | Measure-Object | % Count", [2]),  # $null is not counted
    ],
)
async def test_null_is_an_item_when_written_nothing_is_not(shell, src, expected) -> None:
    assert await shell.run(src) == expected


VALIDATED = (
    "function k { param([ValidateSet('a','b')]$Kind = 'a', [ValidateCount(1,2)][int[]]$L = 1, "
    "[ValidateLength(1,3)][string]$S = 'x', [ValidateScript({ $_ -gt 0 })][int]$P = 1, "
    "[ValidateRange(1,10)][int]$R = 1, [ValidateRange('Positive')][int]$Q = 1, "
    "[ValidatePattern('^web\\d+$')]$Node = 'web1', [ValidateNotNullOrEmpty()]$E = 'e', "
    "[Alias('nm')]$Name) \"$Kind $Name\" }; "
)


@pytest.mark.parametrize(
    "call, message",
    [
        ("k -Kind c", 'The argument "c" does not belong to the set "a,b"'),
        ("k -L 1,2,3", "requires at least 1 value(s) and no more than 2 value(s) - 3"),
        ("k -S abcd", "The character length of the 4 argument is too long."),
        ("k -P -1", 'validation script for the argument with value "-1" did not return'),
        ("k -R 11", "The 11 argument is greater than the maximum allowed range of 10."),
        ("k -R 0", "The 0 argument is less than the minimum allowed range of 1."),
        ("k -Q 0", 'The argument "0" cannot be validated because its value is not greater than'),
        ("k -Node db1", 'The argument "db1" does not match the "^web\\d+$" pattern.'),
        ("k -E ''", "The argument is null or empty."),
    ],
)
async def test_validation_attributes_reject_with_powershells_words(shell, call, message) -> None:
    with pytest.raises(ParameterError) as info:
        await shell.run(VALIDATED + call)
    assert "Cannot validate argument on parameter" in info.value.message
    assert message in info.value.message


async def test_pipeline_bound_values_are_validated_too(shell) -> None:
    src = (
        "function p { param([Parameter(ValueFromPipeline)][ValidateRange(1, 5)][int]$N) "
        "process { $N } }; "
    )
    assert await shell.run(src + "1, 5 | p") == [1, 5]
    with pytest.raises(ParameterError) as info:
        await shell.run(src + "3, 9 | p")
    assert info.value.message.startswith("p -N: Cannot validate argument on parameter 'N'.")


async def test_valid_values_and_aliases_pass(shell) -> None:
    assert await shell.run(VALIDATED + "k -Kind B -nm zed -R 10 -Node WEB7") == ["B zed"]
    src = "function Get-Two { [CmdletBinding()] [Alias('g2')] param() 'two' }; g2"
    assert await shell.run(src) == ["two"]


@pytest.mark.parametrize(
    "src, expected",
    [
        ("$d = @{'key with space' = 1}; $d.'key with space'; $d.\"key with space\"", [1, 1]),
        ("$o = [pscustomobject]@{a = 5}; $p = 'a'; $o.$p; $o.$p = 9; $o.a", [5, 9]),
        ("$h = @{k2 = 2}; $h.\"k$(1 + 1)\"; 'xyz'.$('Length')", [2, 3]),
        ("$o = [ordered]@{x = 1}; $o.Contains('x'); @{y = 1}.Contains('z')", [True, False]),
    ],
)
async def test_member_names_from_strings_and_variables(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        ("$n = 0; [int]::TryParse('12', [ref]$n); $n", [True, 12]),
        ("$n = 5; [int]::TryParse('x', [ref]$n); $n", [False, 0]),
        ("$d = $null; [datetime]::TryParse('2024-03-05', [ref]$d); $d.Day", [True, 5]),
        ("$b = $null; [bool]::TryParse('yes', [ref]$b); $b", [False, False]),
        ("function f([ref]$r) { $r.Value = 7 }; $y = 1; f ([ref]$y); $y", [7]),
        ("[math]::Round(2.5); [math]::Round(2.5, [MidpointRounding]::AwayFromZero)", [2.0, 3.0]),
        ("[math]::Round(2.345, 2, 'AwayFromZero'); [math]::Round(-2.5, 'ToZero')", [2.35, -2.0]),
        ("[math]::Round(2.345d, 2)", [Decimal("2.34")]),
        # .NET scales by 10**digits first: 1.005 * 100 is 100.49999999999999
        (
            "[math]::Round(1.005, 2, 'AwayFromZero'); [math]::Round(0.49999999999999994, 1)",
            [1.0, 0.5],
        ),
        ("[math]::Round(0.49999999999999994, 'AwayFromZero')", [0.0]),
        ("try { [math]::Round(1234.5, -2) } catch { 'digits' }", ["digits"]),
        ("[Environment]::ProcessorCount -ge 1; [Environment]::MachineName -ne ''", [True, True]),
        ("$env:FAY_T = 'v'; [Environment]::GetEnvironmentVariable('FAY_T')", ["v"]),
        (
            "$o = [Environment]::OSVersion; $o.Platform; $o.Version.Major -ge 2; "
            "\"$o\" -eq $o.VersionString; $o.VersionString -like 'Unix *'",
            ["Unix", True, True, True],
        ),
        ("[Environment]::TickCount64 -gt 0; [Environment]::CurrentDirectory -ne ''", [True, True]),
    ],
)
async def test_ref_tryparse_rounding_modes_and_environment(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_typed_variables_keep_their_type(shell) -> None:
    src = (
        "[string[]]$l = 1, 2; $l += 3; $l[2].GetType().Name; "
        "[int]$c = 5; $c = '7'; $c + 1; $c = 2.5; $c; $c++; $c; "
        "function f { $c = 'x'; $c }; f"  # a function's own $c is not the typed one
    )
    assert await shell.run(src) == ["String", 8, 2, 3, "x"]
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("[int]$d = 1; $d = 'abc'")
    assert 'Cannot convert value "abc" to type "System.Int32"' in info.value.message


@pytest.mark.parametrize(
    "src, name",
    [
        ("1/0", "System.DivideByZeroException"),
        ("[int]'x'", "System.Management.Automation.PSInvalidCastException"),
        ("Nope-Command", "System.Management.Automation.CommandNotFoundException"),
        ("Get-Item -Bogus 1", "System.Management.Automation.ParameterBindingException"),
        ("throw 'plain'", "System.Management.Automation.RuntimeException"),
    ],
)
async def test_caught_errors_name_their_dotnet_exception_type(shell, src, name) -> None:
    assert await shell.run(f"try {{ {src} }} catch {{ $_.Exception.GetType().FullName }}") == [name]


async def test_error_records_say_their_category(shell) -> None:
    out = await shell.run(
        "try { Get-Item /gone-c -ErrorAction Stop } catch { $_.CategoryInfo.Category }; "
        "try { Nope-Command } catch { $_.CategoryInfo.Category }; "
        "try { [int]'x' } catch { $_.CategoryInfo.Category; $_.CategoryInfo.Reason }; "
        "Get-Item /gone-d -ErrorAction SilentlyContinue -ErrorVariable ev; "
        "$ev[0].CategoryInfo.Category; $ev[0].CategoryInfo.Activity; "
        "try { Write-Error 'w' -ErrorAction Stop } catch { \"$($_.CategoryInfo)\" }"
    )
    assert out == [
        "ObjectNotFound",
        "ObjectNotFound",
        "InvalidArgument",
        "PSInvalidCastException",
        "ObjectNotFound",
        "Get-Item",
        "NotSpecified: (:) [Write-Error], WriteErrorException",
    ]


async def test_a_throw_statement_stops_the_operation_with_its_value_as_target(shell) -> None:
    """``throw`` records OperationStopped, as PowerShell's ``+ CategoryInfo`` line shows it:
    what was thrown is the target (an exception is none)."""
    out = await shell.run(
        "try { throw 'boom' } catch { \"$($_.CategoryInfo)\"; $_.TargetObject }; "
        'try { throw 42 } catch { "$($_.CategoryInfo)"; $_.TargetObject + 1 }; '
        "try { throw [IO.FileNotFoundException]::new('nf') } catch { \"$($_.CategoryInfo)\" }; "
        'try { throw } catch { "$($_.CategoryInfo)"; $null -eq $_.TargetObject }'
    )
    assert out == [
        "OperationStopped: (boom:String) [], RuntimeException",
        "boom",
        "OperationStopped: (42:Int32) [], RuntimeException",
        43,
        "OperationStopped: (:) [], FileNotFoundException",
        "OperationStopped: (:) [], RuntimeException",
        True,
    ]


@pytest.mark.parametrize(
    "src, expected",
    [
        ("'a*b' -like 'a`*b'; 'axb' -like 'a`*b'", [True, False]),
        ("'a?' -like 'a`?'; 'ab' -like 'a`?'", [True, False]),
        ("'x' -like '[xy]'; 'bz' -like '[a-c]z'; 'a[' -like 'a['", [True, True, True]),
    ],
)
async def test_wildcards_take_backtick_escapes(shell, src, expected) -> None:
    assert await shell.run(src) == expected


STRICT_ERRORS = {
    "variable": "' cannot be retrieved because it has not been set.",
    "property": "The property 'Month' cannot be found on this object. Verify that the property "
    "exists.",
    "method": "The function or command was called as if it were a method.",
    "index": "Index was outside the bounds of the array.",
}


@pytest.mark.parametrize(
    "version, src, off, broken",
    [
        ("1.0", "$nope -gt 5", [False], "variable"),
        ("1.0", "$global:nope2", [None], "variable"),
        ("2.0", '"[$nope]"', ["[]"], "variable"),
        ("2.0", "'text'.Month", [None], "property"),
        ("2.0", "([pscustomobject]@{a = 1}).Month", [None], "property"),
        ("2.0", "$null.Month", [None], "property"),
        ("2.0", "@(1, 'x').Month", [None], "property"),
        ("2.0", "function add($a, $b) { $a + $b }; add(3, 4)", [3, 4, None], "method"),
        ("Latest", "$a = @(1); $a[2]", [None], "index"),
        ("3", "$a = 'ab'; $a[-3]", [None], "index"),
    ],
)
async def test_strict_mode_turns_each_rule_on(shell, version, src, off, broken) -> None:
    assert await shell.run(src) == off
    await shell.run(f"Set-StrictMode -Version {version}")
    with pytest.raises(RuntimeFayError) as info:
        await shell.run(src)
    assert STRICT_ERRORS[broken] in info.value.message


@pytest.mark.parametrize(
    "version, src, expected",
    [
        ("1.0", '"[$nope]"; (Get-Date -Year 2020).Year', ["[]", 2020]),
        ("2.0", "$h = @{a = 1}; $null -eq $h.b; 'abc'.Length; $null.Count", [True, 3, 0]),
        ("2.0", "([pscustomobject]@{p = $null}).p -eq $null; @().Nothing", [True, None]),
        ("2.0", "function add($a, $b) { $a + $b }; add 3 4; (add (3, 4)).Count", [7, 3]),
        ("2.0", "$a = @(1); $a[5] -eq $null; $a[0..3]; 'abc'[1..9] -join ''", [True, 1, "bc"]),
        ("Latest", "$x = $null; ${x}?.Foo; ${x}?[0]; $x -eq $null", [None, None, True]),
    ],
)
async def test_strict_mode_allows_what_its_version_allows(shell, version, src, expected) -> None:
    await shell.run(f"Set-StrictMode -Version {version}")
    assert await shell.run(src) == expected


async def test_strict_mode_is_scoped_and_caught_as_powershell_names_it(shell) -> None:
    out = await shell.run(
        "Set-StrictMode -Version Latest; "
        "function loose { Set-StrictMode -Off; $unset1 }; loose; "
        "try { $unset2 } catch { $_.CategoryInfo.Category; $_.Exception.GetType().Name }; "
        "try { 'x'.Nope } catch [System.Management.Automation.PropertyNotFoundException] { 'P' }; "
        "try { @(1)[3] } catch [IndexOutOfRangeException] { $_.CategoryInfo.Category }; "
        "Set-StrictMode -Off; $unset3"
    )
    assert out == [None, "InvalidOperation", "RuntimeException", "P", "OperationStopped", None]
    for bad in ("Set-StrictMode -Version 4.0", "Set-StrictMode", "Set-StrictMode -Version 1 -Off"):
        with pytest.raises(RuntimeFayError):
            await shell.run(bad)


async def test_indexing_null_is_an_error_as_in_powershell(shell) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("$n = $null; $n[0]")
    assert "Cannot index into a null array." in info.value.message
    assert await shell.run("$n = $null; ${n}?[0]; 'after'") == [None, "after"]


async def test_parameters_not_given_hold_their_types_default(shell) -> None:
    src = (
        "function f { param([switch]$v, [int]$n, [string]$s, [double]$d, $o) "
        '"[$v]"; $v.IsPresent; $v -eq $false; $n; $s -eq ""; $d; $null -eq $o }; f; '
        "& { param([bool]$b) $b } ; f -v -n 3 | Select-Object -First 2"
    )
    assert await shell.run(src) == [
        "[False]",
        False,
        True,
        0,
        True,
        0.0,
        True,
        False,
        "[True]",
        True,
    ]


@pytest.mark.parametrize(
    "src, expected",
    [
        ("[regex]::Escape('a-b c.d]')", ["a-b\\ c\\.d]"]),
        (
            "$m = ([regex]'(?<n>\\d+)').Match('ab12'); $m.Groups['n'].Value; $m.groups[1].value",
            ["12", "12"],
        ),
        (
            "$r = [regex]'\\d'; 'a1' -match $r; \"$r\"; 'x1y' -split $r; $r.isMatch('x')",
            [True, "\\d", "x", "y", False],
        ),
        ("[regex]::IsMatch('ABC', 'b'); [regex]::IsMatch('ABC', 'b', 'IgnoreCase')", [False, True]),
        (
            "[regex]::Matches('a1b22', '\\d+').Value; [regex]::Replace('abc', 'B', 'X')",
            ["1", "22", "abc"],
        ),
        (
            "@{}.GetType().FullName; ([pscustomobject]@{a = 1}).GetType().FullName",
            ["System.Collections.Hashtable", "System.Management.Automation.PSCustomObject"],
        ),
        (
            "(sql SELECT 1 AS a)[0].GetType().Name; ([regex]'x').GetType().FullName",
            ["PSCustomObject", "System.Text.RegularExpressions.Regex"],
        ),
        (
            "$sw = [Diagnostics.Stopwatch]::StartNew(); $sw.IsRunning; $sw.stop(); $sw.IsRunning",
            [True, False],
        ),
        (
            "$sw = New-Object System.Diagnostics.Stopwatch; $sw.ElapsedTicks; $sw.Start(); Start-Sleep -Milliseconds 20; $sw.ElapsedMilliseconds -ge 20",
            [0, True],
        ),
    ],
)
async def test_regex_objects_stopwatch_and_type_names(shell, src, expected) -> None:
    assert await shell.run(src) == expected


async def test_functions_that_support_should_process(shell, tmp_path) -> None:
    f = tmp_path / "f.txt"
    f.write_text("x")
    await shell.run(
        "function Clear-Old { [CmdletBinding(SupportsShouldProcess = $true)] param($Path) "
        "  if ($PSCmdlet.ShouldProcess($Path, 'Clear')) { 'cleared' }; "
        f"  Remove-Item '{f}' }}; "
        "function Plain { [CmdletBinding()] param() 'p' }"
    )
    assert await shell.run("Clear-Old -Path x -WhatIf") == []
    assert shell.host.lines[-2:] == [
        'What if: Performing the operation "Clear" on target "x".',
        f'What if: Performing the operation "Remove File" on target "{f}".',  # inherited
    ]
    assert f.exists()
    shell.host.answer = False
    assert await shell.run("Clear-Old -Path x -Confirm:$false") == ["cleared"]
    assert not f.exists()
    out = await shell.run(
        "function Ask { [CmdletBinding(SupportsShouldProcess)] param() "
        "$PSCmdlet.ShouldProcess('described', 'question?', 'caption') }; Ask -WhatIf; Ask -Confirm"
    )
    assert out == [False, False] and shell.host.lines[-1] == "What if: described"
    with pytest.raises(ParameterError):
        await shell.run("Plain -WhatIf")  # only SupportsShouldProcess functions take it


@pytest.mark.parametrize(
    "src, expected",
    [
        ("@('a').Contains('A'); @('a').Contains('a'); 'a' -in @('A')", [False, True, True]),
        ("@('a', 'B').IndexOf('b'); @('a', 'B').IndexOf('B')", [-1, 1]),
        ("[string]::new('x', 3)", ["xxx"]),
    ],
)
async def test_array_methods_compare_as_dotnet_equals(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        ("$null -lt (Get-Date); $null -gt (Get-Date); (Get-Date) -ge $null", [True, False, True]),
        (
            "$null -lt [version]'1.0'; $null -le 0; $null -lt -1; $null -lt 'a'",
            [True, True, False, True],
        ),
    ],
)
async def test_null_orders_before_dates_and_as_zero_against_numbers(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        (
            "[DateTimeOffset]::FromUnixTimeSeconds(86400).UtcDateTime.ToString('o')",
            ["1970-01-02T00:00:00.0000000Z"],
        ),
        ("[DateTimeOffset]::FromUnixTimeMilliseconds(1500).UtcDateTime.Millisecond", [500]),
        ("[DateTimeOffset]::Now.ToUnixTimeSeconds() -gt 1.7e9", [True]),
        ("(Get-Date -UnixTimeSeconds 86400 -AsUTC).ToUnixTimeMilliseconds()", [86_400_000]),
        # a cast, ::new with an offset, Offset and DateTime (were "unknown type" or missing)
        ("([DateTimeOffset]'1970-01-02T00:00:00Z').ToUnixTimeSeconds()", [86_400]),
        ("'2024-01-01' -as [DateTimeOffset] -is [DateTimeOffset]", [True]),
        (
            "$o = [DateTimeOffset]::new([datetime]'2024-01-01 12:00', [timespan]'02:00'); "
            "$o.UtcDateTime.Hour; $o.Offset.TotalHours; $o.DateTime.Hour",
            [10, 0, 10],
        ),
        ("(Get-Date '2024-01-01').DayOfWeek.value__", [1]),
        (
            "[guid]::NewGuid().Guid.Length; [guid]::Parse('0F8FAD5B-D9CB-469F-A165-70867728950E').Guid",
            [36, "0f8fad5b-d9cb-469f-a165-70867728950e"],
        ),
        # a [guid] cast and -is (were "unknown type [guid]")
        (
            "$g = [guid]'0F8FAD5B-D9CB-469F-A165-70867728950E'; \"$g\"; $g -is [guid]; "
            "$g -eq [guid]'0f8fad5b-d9cb-469f-a165-70867728950e'; $null -eq ('x' -as [guid])",
            ["0f8fad5b-d9cb-469f-a165-70867728950e", True, True, True],
        ),
        ("[System.Net.Dns]::GetHostName().StartsWith([Environment]::MachineName)", [True]),
        (
            "[IO.Path]::GetTempPath().EndsWith('/'); [IO.Path]::GetRandomFileName() -match '^\\w{8}\\.\\w{3}$'",
            [True, True],
        ),
    ],
)
async def test_unix_times_guids_and_machine_names(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        ("1..3 | Where-Object { $seen = $_; $true } | Out-Null; $seen", [3]),
        ("'a1' | Where-Object { $_ -match '(\\d)' } | Out-Null; $Matches[1]", ["1"]),
        (
            "switch ('a1', 'b2') { { $_ -match '(\\d)' } { \"$_ has $($Matches[1])\" } }",
            ["a1 has 1", "b2 has 2"],
        ),
        ("function f { 1..2 | ? { $in_f = $_ } }; f; $null -eq $in_f", [True]),  # f's own scope
    ],
)
async def test_where_and_switch_conditions_run_in_the_callers_scope(shell, src, expected) -> None:
    assert await shell.run(src) == expected


@pytest.mark.parametrize(
    "src, says",
    [
        ("$x = $null; $x.Foo()", "You cannot call a method on a null-valued expression."),
        ("'abc'.NoSuch()", "[System.String] does not contain a method named 'NoSuch'."),
        (
            "'abc'.ToUpper(1, 2)",
            'Cannot find an overload for "ToUpper" and the argument count: "2".',
        ),
        ("$a = 1, 2; $a[5] = 1", "Index was outside the bounds of the array."),
        ("$x = $null; $x.a = 1", "The property 'a' cannot be found on this object."),
        ("$i = Get-Item /; $i.Name = 'x'", "'Name' is a ReadOnly property."),
        ("[int]2147483648", 'Error: "Value was either too large or too small for an Int32."'),
        ("[byte]256", "too large or too small for an unsigned byte"),
        ("[uint32]-1", "too large or too small for a UInt32"),
    ],
)
async def test_runtime_errors_say_what_powershell_says(shell, src, says) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run(src)
    assert says in info.value.message


async def test_settable_properties_and_in_range_casts(shell) -> None:
    out = await shell.run(
        "$Host.UI.RawUI.WindowTitle = 'incident 42'; $Host.UI.RawUI.WindowTitle; "
        "$a = 1, 2; $a[-1] = 9; $a; [long]2147483648; [int16]-32768; [byte]255"
    )
    assert out == ["incident 42", 1, 9, 2147483648, -32768, 255]


async def test_assigning_to_a_parenthesised_expressions_member(shell) -> None:
    out = await shell.run(
        "$o = [pscustomobject]@{p = @{q = 1}}; ($o).p.q = 7; $o.p.q; ($o.p).q += 1; $o.p.q; "
        "$a = @(1, 2); ($a)[1] = 5; $a; (1, 2, 3)[0]"
    )
    assert out == [7, 8, 1, 5, 1]


async def test_pipeline_variable_is_each_item_for_the_commands_after(shell) -> None:
    out = await shell.run(
        '1..3 | ForEach-Object { $_ * 10 } -PipelineVariable tens | ForEach-Object { "$tens/$_" }; '
        "'a', 'b' | Write-Output -pv w | Where-Object { $w -eq 'b' }; "
        'function tens { 1..2 | % { $_ * 10 } }; tens -PipelineVariable t | % { "$t!" }; '
        'function one($x) { $x }; one 5 -pv:q | % { "q=$q" }'
    )
    assert out == ["10/10", "20/20", "30/30", "b", "10!", "20!", "q=5"]


async def test_advanced_functions_have_pscmdlet(shell) -> None:
    out = await shell.run(
        "function g { [CmdletBinding()] param() "
        "  try { 1/0 } catch { $PSCmdlet.ThrowTerminatingError($_) } }; "
        "try { g } catch { $_.Exception.GetType().Name }; "
        "function h { [CmdletBinding()] param() $PSCmdlet.ParameterSetName; "
        "  $PSCmdlet.WriteWarning('careful') }; h; "
        "function plain { $null -eq $PSCmdlet }; plain"
    )
    assert out == ["DivideByZeroException", "__AllParameterSets", True]
    assert shell.host.warnings[-1] == "careful"


async def test_value_from_remaining_arguments_takes_what_no_parameter_takes(shell) -> None:
    out = await shell.run(
        "function f { param($a, [Parameter(ValueFromRemainingArguments)]$rest) "
        "\"$a|$($rest -join ',')|$($rest.Count)|$($args.Count)\" }; f 1 2 3; f 1; "
        "function g { param([Parameter(ValueFromRemainingArguments=$true)]$all, $b) $all }; "
        "g x y -b z"
    )
    assert out == ["1|2,3|2|0", "1||0|0", "x", "y"]


async def test_binary_literals(shell) -> None:
    """about_Numeric_Literals (PowerShell 7): 0b is binary, as 0x is hexadecimal."""
    assert await shell.run("0b101; 0B11 + 1; 0x1F -band 0b1010") == [5, 4, 10]


async def test_psobject_lists_an_objects_properties(shell) -> None:
    """``$obj.PSObject.Properties``: how scripts walk an object they did not build (it was
    $null, so such a loop silently did nothing)."""
    out = await shell.run(
        "$o = [pscustomobject]@{ a = 1; b = 'x' }; $o.PSObject.Properties.Name; "
        '$o.PSObject.Properties | ForEach-Object { "$($_.Name)=$($_.Value):$($_.MemberType)" }; '
        "$o.PSObject.TypeNames[0]; $o.psobject.BaseObject.b; "
        "@{ psobject = 'own key' }.psobject; "
        "$o.PSObject.Properties['B'].Value; $null -eq $o.PSObject.Properties['zz']"
    )
    assert out == [
        "a",
        "b",
        "a=1:NoteProperty",
        "b=x:NoteProperty",
        "System.Management.Automation.PSCustomObject",
        "x",
        "own key",
        "x",
        True,
    ]


async def test_a_program_name_says_where_programs_run(shell) -> None:
    """fayshell runs no program on the operator's machine: naming one ('sh' is on every
    Debian PATH) says how to run it on a node, instead of "unknown command" alone."""
    with pytest.raises(RuntimeFayError) as err:
        await shell.run("sh -c 'exit 1'")
    assert "'sh' is a program" in str(err.value)
    assert "Invoke-Command -Node localhost -Command 'sh ...'" in str(err.value)


async def test_ordered_dictionary_is_indexed_by_position_too(shell) -> None:
    """``[ordered]@{}`` is .NET's OrderedDictionary: an integer indexes by position (it
    was a key lookup, $null without a word), text by key; its type says so."""
    out = await shell.run(
        "$d = [ordered]@{ z = 1; a = 2 }; $d[0]; $d[-1]; $d['a']; $d[7]; "
        "$d.GetType().FullName; \"$d\"; @{ 0 = 'k' }[0]; @{}.GetType().Name"
    )
    assert out == [
        1,
        2,
        2,
        None,
        "System.Collections.Specialized.OrderedDictionary",
        "System.Collections.Specialized.OrderedDictionary",
        "k",  # a plain hashtable's integer is a key
        "Hashtable",
    ]


async def test_ordered_dictionary_insert_and_remove_at(shell) -> None:
    out = await shell.run(
        "$d = [ordered]@{ z = 1; a = 2 }; $d.Insert(0, 'first', 0); $d.Keys -join ','; "
        "$d.RemoveAt(1); $d.Keys -join ','; $d[0]"
    )
    assert out == ["first,z,a", "first,a", 0]
    with pytest.raises(RuntimeFayError, match='Exception calling "Insert".*already been added'):
        await shell.run("$d = [ordered]@{ a = 1 }; $d.Insert(0, 'A', 2)")
    with pytest.raises(RuntimeFayError, match="Parameter 'index'"):
        await shell.run("([ordered]@{}).RemoveAt(0)")


async def test_a_caught_command_errors_message_is_its_own(shell) -> None:
    """``$_.Exception.Message`` of a terminating cmdlet or parameter error is the error
    itself, as PowerShell's (the shown line names the command, as PowerShell's does): it
    began with "Get-Sq -Mode: " before."""
    out = await shell.run(
        "function Get-Sq { param([ValidateSet('a', 'b')][string]$Mode) $Mode }; "
        'try { Get-Sq -Mode c } catch { $_.Exception.Message; "$_" }; '
        "try { Get-Item -Nope } catch { $_.Exception.Message }"
    )
    assert out[0] == out[1]
    assert out[0].startswith("Cannot validate argument on parameter 'Mode'. The argument \"c\"")
    assert not out[2].startswith("Get-Item")
    with pytest.raises(ParameterError) as err:
        await shell.run("Get-Sq -Mode c")
    assert err.value.one_line().startswith("<test>:1:1: Get-Sq -Mode: Cannot validate")


async def test_piped_values_are_converted_to_the_parameter_type(shell) -> None:
    """A ValueFromPipeline(ByPropertyName) parameter converts each item to its declared type
    (the text '5' stayed text: '5' * 5 gave '55555') and is in $PSBoundParameters."""
    out = await shell.run(
        "function Get-Sq { param([Parameter(ValueFromPipeline)][int]$N) "
        "process { $N * $N } end { $PSBoundParameters['N'] } }; '5', '6' | Get-Sq; "
        "function Get-P { param([Parameter(ValueFromPipelineByPropertyName)][int]$Size) "
        "process { $Size + 1 } }; [pscustomobject]@{ Size = '41' } | Get-P; "
        "function Get-D { param([Parameter(ValueFromPipeline)][datetime]$D) process { $D.Year } }; "
        "'2020-01-01' | Get-D"
    )
    assert out == [25, 36, 6, 42, 2020]
    with pytest.raises(ParameterError) as err:
        await shell.run("'x' | Get-Sq")
    assert 'Cannot convert value "x" to type "System.Int32"' in err.value.message


async def test_typed_arrays_keep_their_element_type(shell) -> None:
    """``[string[]]`` makes a String[] (it said Object[]); a new array made from it (``+=``,
    a slice, a pipeline) is an Object[], as in PowerShell."""
    out = await shell.run(
        "[string[]]$b = 1, 2; $b.GetType().Name; $b[0].GetType().Name; "
        "([int[]]('1', '2')).GetType().FullName; ([char[]]'ab').GetType().Name; "
        "$b -is [string[]]; @(1) -is [string[]]; $b -is [array]; $b[0..1].GetType().Name; "
        "$b += 3; $b.GetType().Name; ([Color[]]@()).GetType().Name"
    )
    assert out[:-1] == [
        "String[]",
        "String",
        "System.Int32[]",
        "Char[]",
        True,
        False,
        True,
        "Object[]",
        "String[]",
    ]


async def test_size_literals_are_numbers(shell) -> None:
    """``1KB`` is 1024 as PowerShell's numeric multipliers are (it printed "1KB", and
    ``1KB + 1`` "1025B"); a parameter still knows a size was written (-Rotate 64MB)."""
    assert await shell.text("1KB; 1KB + 1; 1.5KB") == "1024\n1025\n1536"
    assert await shell.run('"limit=$(2MB)"; @{ a = 1KB } | ConvertTo-Json -Compress') == [
        "limit=2097152",
        '{"a":1024}',
    ]


async def test_objects_are_equal_to_themselves_only(shell) -> None:
    """-eq on a hashtable or an object is .NET's reference equality: two objects with the
    same properties were equal (True) where PowerShell says False."""
    out = await shell.run(
        "$a = [pscustomobject]@{ A = 1 }; $a -eq [pscustomobject]@{ A = 1 }; $a -eq $a; "
        "$a -ne $a; @{ a = 1 } -eq @{ a = 1 }; @($a, 1) -contains $a; "
        "@([pscustomobject]@{ A = 1 }) -contains $a; (@($a, $a, 1) -eq $a).Count"
    )
    assert out == [False, True, False, False, True, False, 2]


async def test_psobject_copy_is_a_shallow_copy(shell) -> None:
    out = await shell.run(
        "$p = [pscustomobject]@{ N = 1; L = @(1) }; $q = $p.PSObject.Copy(); $q.N = 9; "
        "$p.N; $q.N; $q -eq $p"
    )
    assert out == [1, 9, False]


async def test_timespans_read_and_show_as_dotnet_ones(shell) -> None:
    """A TimeSpan made the PowerShell way reads as .NET's text ("took $($sw.Elapsed)" said
    "took 89655ns"), shows its properties as a list, says TimeSpan, and is an object in JSON;
    fayshell's duration literal (2s) still reads as typed."""
    out = await shell.run(
        '$t = [timespan]\'01:02:03.5\'; "$t"; "$(New-TimeSpan -Minutes 90)"; '
        "\"$((Get-Date '2024-01-02') - (Get-Date '2024-01-01'))\"; \"$([timespan]::FromSeconds(5))\"; "
        '"$($t + $t)"; "$(2s)"; (Measure-Command { 1 }).GetType().Name; $t.GetType().FullName; '
        "($t | ConvertTo-Json -Compress | ConvertFrom-Json).TotalSeconds"
    )
    assert out == [
        "01:02:03.5000000",
        "01:30:00",
        "1.00:00:00",
        "00:00:05",
        "02:04:07",
        "2s",
        "TimeSpan",
        "System.TimeSpan",
        3723.5,
    ]
    assert await shell.text("[timespan]'01:02:03'") == (
        "\nDays              : 0\nHours             : 1\nMinutes           : 2\n"
        "Seconds           : 3\nMilliseconds      : 0\nTicks             : 37230000000\n"
        "TotalDays         : 0.0430902777777778\nTotalHours        : 1.03416666666667\n"
        "TotalMinutes      : 62.05\nTotalSeconds      : 3723\nTotalMilliseconds : 3723000\n"
    )


async def test_get_command_of_a_missing_name_is_a_non_terminating_error(shell) -> None:
    """``if (Get-Command x -ErrorAction SilentlyContinue)``: the test PowerShell scripts use
    to see whether a command exists (it stopped the script whatever -ErrorAction said)."""
    out = await shell.run(
        "[bool](Get-Command nosuchcmd -ErrorAction SilentlyContinue); "
        "(Get-Command Get-Date, nope -ErrorAction SilentlyContinue).Name; "
        "try { Get-Command nope -ErrorAction Stop } catch { $_.Exception.Message }"
    )
    assert out == [
        False,
        "Get-Date",
        "The term 'nope' is not recognized as a name of a cmdlet, function, script file, or "
        "executable program.",
    ]


async def test_using_scope_in_parallel_blocks(shell) -> None:
    """``$using:x`` in ForEach-Object -Parallel is the caller's $x (it was $null: 1 + $null)."""
    out = await shell.run(
        "$x = 5; 1..2 | ForEach-Object -Parallel { $_ + $using:x }; "
        "function f { $y = 2; 1..2 | % -Parallel { $_ * $using:y } }; f"
    )
    assert out == [6, 7, 2, 4]


async def test_array_list_range_methods(shell) -> None:
    out = await shell.run(
        "$al = New-Object System.Collections.ArrayList; [void]$al.Add(1); "
        "$al.AddRange(@(2, 3, 2)); $al.Count; $al.LastIndexOf(2); $al.GetRange(1, 2); "
        "$al.RemoveRange(0, 2); $al.InsertRange(1, @(7, 8)); $al"
    )
    assert out == [4, 3, 2, 3, 3, 7, 8, 2]
    with pytest.raises(RuntimeFayError) as err:
        await shell.run("$al.GetRange(3, 5)")
    assert "out of bounds" in err.value.message


async def test_regex_replace_takes_a_script_block_evaluator(shell) -> None:
    """[regex]::Replace and $rx.Replace with a script block as the MatchEvaluator (its text
    was put in place of each match)."""
    out = await shell.run(
        "[regex]::Replace('a1b2', '\\d', { param($m) [int]$m.Value * 2 }); "
        "[regex]::Replace('aXbx', 'x', { '-' }, 'IgnoreCase'); "
        "([regex]'\\d').Replace('a1b22', { $args[0].Value + '!' }); "
        "'a1b2' -replace '\\d', { [int]$_.Value + 1 }"
    )
    assert out == ["a2b4", "a-b-", "a1!b2!2!", "a2b3"]


async def test_a_missing_path_is_powershells_error(shell) -> None:
    """ "Cannot find path 'x' because it does not exist." as PowerShell words it (it was
    "x: cannot find the path because it does not exist"), with the path as TargetObject and
    in CategoryInfo."""
    out = await shell.run(
        "try { Get-Item /nonexist -ErrorAction Stop } catch { "
        '$_.Exception.Message; $_.TargetObject; "$($_.CategoryInfo)" }'
    )
    assert out == [
        "Cannot find path '/nonexist' because it does not exist.",
        "/nonexist",
        "ObjectNotFound: (/nonexist:String) [Get-Item], ItemNotFoundException",
    ]
    with pytest.raises(RuntimeFayError):
        await shell.run("Set-Location /nonexist")
    assert (
        shell.host.errors[-1]
        == "Set-Location: Cannot find path '/nonexist' because it does not exist."
    )


async def test_parameter_and_command_errors_in_powershells_words(shell) -> None:
    """$_.Exception.Message of an unknown or ambiguous parameter and of an unknown command
    (the line shown keeps fayshell's hint); setting a property an object lacks is an error
    (it added the property without a word)."""
    out = await shell.run(
        "try { Get-Date -Nope 1 } catch { $_.Exception.Message }; "
        "try { nosuchcommand } catch { $_.Exception.Message }; "
        "try { $o = [pscustomobject]@{ a = 1 }; $o.b = 2 } catch { $_.Exception.Message }; "
        "$o.A = 5; $o.a; $o.b; $h = @{}; $h.x = 1; $h.x"
    )
    assert out == [
        "A parameter cannot be found that matches parameter name 'Nope'.",
        "The term 'nosuchcommand' is not recognized as a name of a cmdlet, function, script "
        "file, or executable program.",
        "The property 'b' cannot be found on this object. Verify that the property exists and "
        "can be set.",
        5,
        None,
        1,
    ]


async def test_a_method_that_fails_says_so_as_powershell_does(shell) -> None:
    """A .NET method that threw: 'Exception calling "X" with "N" argument(s): "..."'; a call
    with an argument count the method has no overload for: PowerShell's overload error
    (Python's "list index out of range" came through before)."""
    out = await shell.run(
        "try { 'abc'.Substring(10) } catch { $_.Exception.Message }; "
        "try { 'abc'.Substring() } catch { $_.Exception.Message }; "
        "$l = [System.Collections.ArrayList]@(1, 2); "
        "try { $l.RemoveAt(5) } catch { $_.Exception.Message }; $l.RemoveAt(0); $l"
    )
    assert out == [
        'Exception calling "Substring" with "1" argument(s): "startIndex cannot be larger than '
        "length of string. (Parameter 'startIndex')\"",
        'Cannot find an overload for "Substring" and the argument count: "0".',
        'Exception calling "RemoveAt" with "1" argument(s): "Index was out of range. Must be '
        "non-negative and less than the size of the collection. (Parameter 'index')\"",
        2,
    ]


async def test_parse_errors_are_dotnets_not_pythons(shell) -> None:
    """[int]::Parse and [Convert]::ToInt32 of text that is no number: .NET's words (Python's
    "invalid literal for int() with base 10" came through)."""
    out = await shell.run(
        "try { [int]::Parse('x') } catch { $_.Exception.Message }; [int]::Parse(' 42 '); "
        "try { [convert]::ToInt32('zz', 16) } catch { $_.Exception.Message }; "
        "[convert]::ToInt32('ff', 16)"
    )
    assert out == [
        'Exception calling "Parse" with "1" argument(s): "The input string \'x\' was not in a '
        'correct format."',
        42,
        'Exception calling "ToInt32" with "2" argument(s): "Could not find any recognizable '
        'digits."',
        255,
    ]


async def test_an_unknown_property_of_a_query_is_an_error(shell) -> None:
    """A query's columns are known: a property that is none of them is an error naming them
    (about_Differences), not $null; the Group of a Group-Object done in DuckDB said nothing."""
    await shell.run("sql CREATE TABLE u AS SELECT range AS n, 'a' AS s FROM range(3)")
    assert await shell.run("$r = sql SELECT * FROM u WHERE n = 1; $r.s; $r.Count") == ["a", 1]
    for src in ("$r.nope", "(sql SELECT * FROM u | Group-Object s | Select-Object -First 1).Group"):
        with pytest.raises(RuntimeFayError) as err:
            await shell.run(src)
        assert "on the relation (its columns:" in err.value.message


async def test_integers_widen_past_int64_as_powershell_does(shell) -> None:
    """about_Numeric_Literals and .NET's widening: a literal past [long] is a [decimal] (past
    that a [double]); a sum past [long] a [double] (Python's unbounded ints came through), and
    one past [int] too (PowerShell's IntOps: ``512MB * 512MB`` is a Double)."""
    out = await shell.run(
        "(100000000000000000000).GetType().Name; (1000000000000000000000000000000).GetType().Name; "
        "[long]::MaxValue + 1; ([long]::MaxValue + 1).GetType().Name; "
        "([int]::MaxValue + 1).GetType().Name"
    )
    assert out == ["Decimal", "Double", 9.223372036854776e18, "Double", "Double"]


async def test_a_missing_mandatory_parameter_in_powershells_words(shell) -> None:
    out = await shell.run(
        "function o { param([Parameter(Mandatory)][string]$s) $s }; "
        "try { o } catch { $_.Exception.Message }; "
        "try { Get-Date | Select-String } catch { $_.Exception.Message }"
    )
    assert out == [
        "Cannot process command because of one or more missing mandatory parameters: s.",
        "Cannot process command because of one or more missing mandatory parameters: Pattern.",
    ]


async def test_array_list_is_its_own_type_and_add_gives_the_index(shell) -> None:
    """System.Collections.ArrayList (it was an Object[]): Add returns the new item's index,
    as .NET's does (scripts write [void]$list.Add(x)); its GetType and -is say ArrayList."""
    out = await shell.run(
        "$al = New-Object System.Collections.ArrayList; $al.Add('a'); $al.Add('b'); "
        "[void]$al.Add('c'); $al.GetType().FullName; $al -is [System.Collections.ArrayList]; "
        "$l = [System.Collections.ArrayList]@(1, 2); $l.Add(3); $l.GetType().Name; "
        "(New-Object System.Collections.ArrayList -ArgumentList @(, @(1, 2))).Count; "
        "(New-Object System.Collections.ArrayList -ArgumentList 5).Count"
    )
    assert out == [0, 1, "System.Collections.ArrayList", True, 2, "ArrayList", 2, 0]


@pytest.mark.parametrize(
    "kind, wanted, expected",
    [
        ("System.IO.FileNotFoundException", "System.IO.IOException", True),
        ("System.IO.FileNotFoundException", "Exception", True),
        ("System.IO.IOException", "System.IO.FileNotFoundException", False),
        ("System.ArgumentOutOfRangeException", "ArgumentException", True),
        ("System.Management.Automation.ItemNotFoundException", "ItemNotFoundException", True),
        (
            "System.Management.Automation.ItemNotFoundException",
            "System.Management.Automation.RuntimeException",
            True,
        ),
        ("System.DivideByZeroException", "ArithmeticException", True),
        ("System.FormatException", "System.ArgumentException", False),
        ("MyModule.CustomException", "System.Exception", True),
    ],
)
def test_exception_types_are_their_bases_too(kind: str, wanted: str, expected: bool) -> None:
    from fayshell.lang.dotnet import exception_is

    assert exception_is(kind, wanted) is expected


async def test_typed_catch_follows_dotnet_exception_types(shell, tmp_path) -> None:
    """catch [IOException] took a FileNotFoundException only by name; a missing item was a
    RuntimeException; [int]::Parse's FormatException could not be caught by its type."""
    out = await shell.run(
        "try { throw [System.IO.FileNotFoundException]::new('nf') } "
        "catch [System.IO.IOException] { 'io base' }; "
        "try { Get-Item /nope -ErrorAction Stop } "
        "catch [System.Management.Automation.ItemNotFoundException] "
        "{ $_.Exception.GetType().Name }; "
        "try { [int]::Parse('x') } catch [FormatException] "
        "{ $_.Exception.GetType().Name; $_.Exception.InnerException.GetType().Name }; "
        "try { throw [InvalidOperationException]'io' } catch [InvalidOperationException] "
        "{ $_.Exception.Message }; "
        "try { throw [Exception]::new('outer', [Exception]::new('inner')) } "
        "catch { $_.Exception.InnerException.Message }; "
        f"try {{ Set-Content '{tmp_path}/no/dir/f.txt' x -ErrorAction Stop }} "
        "catch [System.IO.DirectoryNotFoundException] { 'dir' }; "
        "try { [int]'abc' } catch [FormatException] { 'format' }"
    )
    assert out == [
        "io base",
        "ItemNotFoundException",
        "MethodInvocationException",
        "FormatException",
        "io",
        "inner",
        "dir",
        "format",
    ]
    with pytest.raises(RuntimeFayError, match="nf"):
        await shell.run(
            "try { throw [IO.IOException]::new('nf') } catch [IO.FileNotFoundException] { 1 }"
        )


async def test_write_error_category_id_target_and_exception(shell) -> None:
    out = await shell.run(
        "try { Write-Error 'bad row' -Category InvalidData -ErrorId BadRow -TargetObject 7 "
        "-ErrorAction Stop } catch { $_.CategoryInfo.Category; $_.FullyQualifiedErrorId; "
        "$_.TargetObject; $_.CategoryInfo.Activity; $_.CategoryInfo.Reason }; "
        "try { Write-Error -Exception ([ArgumentException]::new('arg')) -ErrorAction Stop } "
        "catch [ArgumentException] { $_.Exception.Message }"
    )
    assert out == [
        "InvalidData",
        "BadRow",
        "7",
        "Write-Error",
        "WriteErrorException",
        "arg",
    ]
    with pytest.raises(ParameterError, match="is not one of"):
        await shell.run("Write-Error 'x' -Category Nope")


async def test_an_errors_invocation_info_says_where(shell) -> None:
    out = await shell.run(
        "function thrower { throw 'in func' }\n"
        "try { thrower } catch { $_.InvocationInfo.MyCommand.Name; "
        "$_.InvocationInfo.ScriptLineNumber }\n"
        "try { Get-Item /nope -ErrorAction Stop } catch { $_.InvocationInfo.MyCommand.Name; "
        "$_.InvocationInfo.ScriptLineNumber; $_.InvocationInfo.OffsetInLine }"
    )
    assert out == ["thrower", 1, "Get-Item", 3, 7]


async def test_string_equals_and_char_case_methods(shell) -> None:
    out = await shell.run(
        "[string]::Equals('a', 'A'); [string]::Equals('a', 'A', 'OrdinalIgnoreCase'); "
        "[char]::ToUpper('q'); [char]::IsLetterOrDigit('_'); [char]::IsPunctuation('!')"
    )
    assert out == [False, True, "Q", False, True]


GET_THING = """
function Get-Thing {
    [CmdletBinding(DefaultParameterSetName = 'ByName')]
    param(
        [Parameter(Mandatory, ParameterSetName = 'ByName', Position = 0)][string]$Name,
        [Parameter(Mandatory, ParameterSetName = 'ById')][int]$Id,
        [string]$Common
    )
    "$($PSCmdlet.ParameterSetName) name=$Name id=$Id"
}
function NoDefault {
    [CmdletBinding()]
    param([Parameter(ParameterSetName = 'A')]$a, [Parameter(ParameterSetName = 'B')]$b)
    $PSCmdlet.ParameterSetName
}
"""


async def test_parameter_sets_resolve_as_powershells(shell) -> None:
    """about_Parameter_Sets: $PSCmdlet.ParameterSetName was always __AllParameterSets, and a
    set's mandatory parameter was mandatory in every set (Get-Thing -Id 5 failed)."""
    await shell.run(GET_THING)
    out = await shell.run(
        "Get-Thing foo; Get-Thing -Id 5 -Common c; NoDefault -a 1; NoDefault -b 2; "
        "function Plain { [CmdletBinding()] param($x) $PSCmdlet.ParameterSetName }; Plain"
    )
    assert out == ["ByName name=foo id=0", "ById name= id=5", "A", "B", "__AllParameterSets"]
    for call in ("Get-Thing -Name x -Id 1", "NoDefault"):
        with pytest.raises(ParameterError, match="Parameter set cannot be resolved"):
            await shell.run(call)
    with pytest.raises(ParameterError, match="-Name: missing mandatory parameter"):
        await shell.run("Get-Thing")


async def test_by_property_name_binds_aliases_and_resets_between_items(shell) -> None:
    out = await shell.run(
        "function P { param([Parameter(ValueFromPipelineByPropertyName)][string]$Name = 'dflt', "
        "[Parameter(ValueFromPipelineByPropertyName)][Alias('n')][int]$Num) "
        "process { \"$Name-$Num $($PSBoundParameters.Keys -join ',')\" } }; "
        "[pscustomobject]@{ Name = 'a'; n = 1 }, [pscustomobject]@{ Num = 2 } | P"
    )
    assert out == ["a-1 Name,Num", "dflt-2 Num"]


async def test_closures_and_calling_what_get_command_found(shell) -> None:
    out = await shell.run(
        "$x = 1; $c = { $x }.GetNewClosure(); $x = 2; & $c; "
        'function mk($n) { { "n=$n" }.GetNewClosure() }; $a = mk 1; $b = mk 2; & $a; & $b; '
        'function f($p) { "f $p" }; & (Get-Command f) 1; & (Get-Command gcm) f | % Name; '
        '$fn = ${function:f}; & $fn 2; "$function:f".Trim()'
    )
    assert out == [1, "n=1", "n=2", "f 1", "f", "f 2", '"f $p"']


async def test_simple_functions_take_unknown_names_into_args_and_pass_them_on(shell) -> None:
    """g -a 7 9 bound -a to $args by prefix (7 was lost); @args passes names on."""
    out = await shell.run(
        'function f { param($a, $b, [switch]$s) "a=$a b=$b s=$s" }; '
        "function g { $args.Count; f @args }; g -a 7 9; g -s 1; "
        'function k { param($n) "n=$n rest=$args" }; k -n 1 -zz 3'
    )
    assert out == [3, "a=7 b=9 s=False", 2, "a=1 b= s=True", "n=1 rest=-zz 3"]


async def test_advanced_functions_refuse_arguments_no_parameter_takes(shell) -> None:
    await shell.run('function k2 { [CmdletBinding()] param($n) "n=$n args=$($args.Count)" }')
    assert await shell.run("k2 -n 1") == ["n=1 args=0"]
    out = await shell.run(
        "try { k2 -n 1 -zz 3 } catch { $_.Exception.Message }; "
        "try { k2 1 2 } catch { $_.Exception.Message }"
    )
    assert out == [
        "A parameter cannot be found that matches parameter name 'zz'.",
        "A positional parameter cannot be found that accepts argument '2'.",
    ]


async def test_ps_default_parameter_values(shell) -> None:
    """about_Parameters_Default_Values: $PSDefaultParameterValues was not read."""
    out = await shell.run(
        "$PSDefaultParameterValues['Get-Command:TotalCount'] = 2; (Get-Command).Count; "
        "(Get-Command -TotalCount 3).Count; "
        "$PSDefaultParameterValues['*:ErrorAction'] = 'SilentlyContinue'; Get-Item /nope; 'on'; "
        "$PSDefaultParameterValues['Join-Str*:Separator'] = '+'; 1, 2 | Join-String; "
        "function f { param($Name) \"name=$Name\" }; $PSDefaultParameterValues['f:Name'] = 'd'; "
        "f; f -Name x; f y; $PSDefaultParameterValues['Disabled'] = $true; f"
    )
    assert out == [2, 3, "on", "1+2", "name=d", "name=x", "name=y", "name="]


async def test_execution_context_expands_strings_and_runs_scripts(shell) -> None:
    out = await shell.run(
        "$z = 9; $t = 'v=$z sum=$(1+2) \"q\"'; $ExecutionContext.InvokeCommand.ExpandString($t); "
        "function f { $z = 1; $ExecutionContext.InvokeCommand.ExpandString($t) }; f; "
        "$ExecutionContext.InvokeCommand.InvokeScript('2 * 3')"
    )
    assert out == ['v=9 sum=3 "q"', 'v=1 sum=3 "q"', 6]


async def test_execution_context_session_state(shell, tmp_path) -> None:
    """$ExecutionContext.SessionState (was $null): Path resolves against the shell's location
    whether or not the file exists; PSVariable works on the calling scope's variables."""
    out = await shell.run(
        f"Set-Location '{tmp_path}'; "
        "$ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath('out/x.txt'); "
        "$ExecutionContext.SessionState.Path.CurrentLocation.Path; "
        "$v = $ExecutionContext.SessionState.PSVariable; $v.GetValue('nope', 7); "
        "function f { $a = 1; $v.Set('a', 5); $a; $v.Get('a').Value; $v.Remove('a'); $null -eq $a }; f"
    )
    assert out == [str(tmp_path / "out" / "x.txt"), str(tmp_path), 7, 5, 5, True]
    with pytest.raises(RuntimeFayError, match='overload for "Remove" and the argument count: "0"'):
        await shell.run("$ExecutionContext.SessionState.PSVariable.Remove()")


async def test_action_preferences_by_number(shell) -> None:
    """-ea 0 (how scripts often write SilentlyContinue) was refused."""
    out = await shell.run(
        "Get-Item /nope -ea 0; 'went on'; $ErrorActionPreference = 2; Get-Item /nope2; 'after'; "
        "Write-Warning w -WarningAction 0; 'x'"
    )
    assert out == ["went on", "after", "x"]
    assert shell.host.warnings == []


async def test_hashtable_keys_keep_their_type(shell) -> None:
    """1 and '1' are two keys (about_Hash_Tables: keys are objects; strings compare without
    case), so numeric keys sort as numbers."""
    out = await shell.run(
        "$h = @{}; $h[1] = 'a'; $h['1'] = 'b'; $h['A'] = 'c'; $h['a'] = 'd'; $h.Count; $h[1]; "
        "$h['1']; $h.A; $h.ContainsKey(1); $h.ContainsKey('2'); "
        "$p = @{}; 9, 10, 2 | ForEach-Object { $p[$_] = 1 }; ($p.Keys | Sort-Object) -join ','; "
        "$l = @{1 = 'x'; b = 2}; $l[1]; ($l.Keys | ForEach-Object { $_.GetType().Name } | "
        "Sort-Object) -join ','; [pscustomobject]@{1 = 'x'} | ForEach-Object { "
        "$_.psobject.Properties.Name.GetType().Name }; $s = @{}; $s.Add(5, 'five'); $s[5]; "
        "$null -eq $s['5']"
    )
    assert out == [
        3,
        "a",
        "b",
        "d",
        True,
        False,
        "2,9,10",
        "x",
        "Int32,String",
        "String",
        "five",
        True,
    ]


async def test_an_increment_alone_in_a_block_writes_nothing(shell) -> None:
    """``$x++`` as a block's one statement (ForEach-Object, .Invoke(), a ScriptMethod) writes
    nothing, as a statement; ``($x++)`` writes the value it had."""
    out = await shell.run(
        "$c = 0; $b = { $script:c++ }; $b.Invoke(); 1..2 | ForEach-Object { $c++ }; $c; "
        "1..2 | ForEach-Object { ($_++) }"
    )
    assert out == [3, 1, 2]


async def test_explicit_positions_order_positional_arguments(shell) -> None:
    """[Parameter(Position = n)] places an argument by n, not by declaration order; once a
    parameter has a position, those without one are named only (the rest go to $args)."""
    out = await shell.run(
        "function Get-Pair { param([Parameter(Position = 1)]$Second, "
        '[Parameter(Position = 0)]$First) "$First-$Second" }; Get-Pair a b; '
        'function Get-One { param([Parameter(Position = 0)]$A, $B) "$A-$B-$($args.Count)" }; '
        "Get-One x y; Get-One x -B z"
    )
    assert out == ["a-b", "x--1", "x-z-0"]


async def test_positional_binding_off_and_pscmdlet_writers(shell) -> None:
    out = await shell.run(
        "function Get-Off { [CmdletBinding(PositionalBinding = $false)] "
        'param([Parameter(Position = 0)]$A, $B) "$A $B" }; Get-Off 1 -B 2; '
        "function Get-W { [CmdletBinding()] param() $PSCmdlet.WriteObject(@(1, 2)); "
        "$PSCmdlet.WriteObject(@(3, 4), $true); $PSCmdlet.WriteVerbose('said'); "
        "$PSCmdlet.MyInvocation.MyCommand.Name }; (Get-W -Verbose | Measure-Object).Count"
    )
    assert out == ["1 2", 4]  # @(1, 2) one object; 3 and 4 two; the name
    assert shell.host.verbose_lines == ["said"]
    with pytest.raises(RuntimeFayError) as info:
        await shell.run(
            "function Get-No { [CmdletBinding(PositionalBinding = $false)] param($A) }; Get-No 1"
        )
    assert info.value.error_id == "PositionalParameterNotFound,Get-No"


async def test_a_program_called_as_a_script_says_where_programs_run(shell, tmp_path) -> None:
    """`& /bin/echo hi` said "cannot read script /bin/echo: 'utf-8' codec can't decode byte
    0xe0 ..." and a `#!/bin/sh` file was parsed as a fayshell script."""
    (tmp_path / "s.sh").write_text("#!/bin/sh\necho hi\n")
    (tmp_path / "own.fay").write_text("#!/usr/bin/env fayshell\n'ran'\n")
    (tmp_path / "latin.fay").write_bytes(b"'caf\xe9'\n")
    for target in ("/bin/echo", str(tmp_path / "s.sh")):
        with pytest.raises(RuntimeFayError, match="is a program, and fayshell runs programs on"):
            await shell.run(f"& '{target}' hi")
    with pytest.raises(RuntimeFayError, match=r"latin.fay: not UTF-8 text \(byte offset 4\)"):
        await shell.run(f"& '{tmp_path / 'latin.fay'}'")
    assert await shell.run(f"& '{tmp_path / 'own.fay'}'") == ["ran"]


async def test_one_object_counts_one(shell) -> None:
    """about_Intrinsic_Members: `if ((Get-X).Count -gt 0)` on one result. An object of two
    properties counted 2, and a date, a TimeSpan or a record without Count gave $null."""
    out = await shell.run(
        "([pscustomobject]@{a=1;b=2}).Count; ([pscustomobject]@{a=1}).Length; "
        "(Get-Date).Count; (New-TimeSpan).Count; @{a=1;b=2}.Count; "
        "([pscustomobject]@{Count=7}).Count; $null.Count"
    )
    assert out == [1, 1, 1, 1, 2, 7, 0]


async def test_general_format_with_a_precision(shell) -> None:
    """'{0:G3}' -f 12345 was 12345 (an integer ignored the precision) and a double's G3 came
    out as Python's 1.23e+04."""
    out = await shell.run(
        "'{0:G3}' -f 12345; '{0:g3}' -f 12345.6; '{0:G2}' -f 0.000012345; '{0:G5}' -f 3.14159265; "
        "'{0:G}' -f 12345"
    )
    assert out == ["1.23E+04", "1.23e+04", "1.2E-05", "3.1416", "12345"]


async def test_index_of_any(shell) -> None:
    out = await shell.run(
        "'Hello'.IndexOfAny([char[]]'lo'); 'Hello'.LastIndexOfAny([char[]]'lo'); "
        "'Hello'.IndexOfAny([char[]]'xz'); 'Hello'.IndexOfAny([char[]]'l', 3)"
    )
    assert out == [2, 4, -1, 3]


async def test_string_split_replace_and_last_index_overloads(shell) -> None:
    """Split on a string[] split on each character of the joined text ('a--b-c' gave
    a||b|c); Replace with a StringComparison and LastIndexOf(value, start) had no overload."""
    out = await shell.run(
        "'a--b-c'.Split([string[]]@('--','-'), 'None') -join '|'; "
        "'a,b;c'.Split([char[]]',;') -join '|'; "
        "'Hello'.Replace('L', 'x', 'OrdinalIgnoreCase'); 'Hello'.Replace('L', 'x', 'Ordinal'); "
        "'hello'.LastIndexOf('l', 2)"
    )
    assert out == ["a|b|c", "a|b|c", "Hexxo", "Hello", 2]


async def test_unary_plus_and_minus_before_any_operand(shell) -> None:
    """about_Operators' unary - and + : before numbers, strings, variables and casts; in a
    command's argument ``+5`` stays text."""
    out = await shell.run(
        "+2; $x = +5; $x; -(+3); +'7'; 1 + +2; [int]+'8'; -'4'; +.5; 3 -+2; [int]-'3'; "
        "Write-Output +5"
    )
    assert out == [2, 5, -3, 7, 3, 8, -4, 0.5, 1, -3, "+5"]
    with pytest.raises(RuntimeFayError, match="cannot convert .abc. to a number"):
        await shell.run("+'abc'")
