"""Variable cmdlets: New-, Set-, Get-, Clear-Variable and their -Scope."""

from __future__ import annotations

import pytest

from fayshell.errors import CommandError, RuntimeFayError


async def test_new_and_clear_variable(shell) -> None:
    assert await shell.run("New-Variable nv1 5; $nv1; Clear-Variable nv1; $nv1 -eq $null") == [
        5,
        True,
    ]
    with pytest.raises(RuntimeFayError, match="already exists"):
        await shell.run("New-Variable nv2 1; New-Variable nv2 2")
    assert await shell.run("function f { New-Variable g1 7 -Scope Global }; f; $g1") == [7]


async def test_scope_parameter(shell) -> None:
    assert await shell.run(
        "function f { Set-Variable v 5 -Scope Global; Set-Variable w 6; $w }; f; $v; $w -eq $null"
    ) == [6, 5, True]
    assert await shell.run(
        "function k { $x = 'local'; Get-Variable x -ValueOnly -Scope 1 }; $x = 'outer'; k"
    ) == ["outer"]
    with pytest.raises(RuntimeFayError, match="unknown scope"):
        await shell.run("Set-Variable z 1 -Scope Nowhere")


async def test_a_scope_prefix_in_the_name_picks_the_scope(shell) -> None:
    out = await shell.run(
        "Set-Variable global:y b; $global:y; $n = 'script:q'; "
        "function g($p = (Set-Variable $n 'v')) { }; g; $q; "
        'function h { Set-Variable local:w 1; "w=$w" }; h; "outside=[$w]"; '
        "function k { New-Variable global:made 5 }; k; $made"
    )
    assert out == ["b", "v", "w=1", "outside=[]", 5]


async def test_read_only_and_constant_variables(shell) -> None:
    """New-Variable/Set-Variable -Option (was "no such parameter"): a ReadOnly variable is
    changed or removed only with -Force, a Constant one never; a function's own assignment
    makes a local, as in PowerShell."""
    out = await shell.run(
        "New-Variable c 1 -Option ReadOnly; try { $c = 2 } catch { $_.FullyQualifiedErrorId }; "
        "Set-Variable c 3 -Force; $c; "
        "New-Variable k 1 -Option Constant; try { $k++ } catch { $_.Exception.Message }; "
        "function h { $c = 9; $c }; h; $c"
    )
    assert out == [
        "VariableNotWritable",
        3,
        "Cannot overwrite variable k because it is read-only or constant.",
        9,
        3,
    ]
    with pytest.raises(RuntimeFayError, match="Cannot remove variable k because it is constant"):
        await shell.run("Remove-Variable k -Force")
    with pytest.raises(RuntimeFayError, match="try the operation again specifying the Force"):
        await shell.run("Remove-Variable c")
    assert await shell.run("Remove-Variable c -Force; $null -eq $c") == [True]
    assert await shell.run("function f { $x = 1; Remove-Variable x; $null -eq $x }; f") == [True]


async def test_set_psdebug_traces_statements_assignments_and_calls(shell, tmp_path) -> None:
    """Set-PSDebug -Trace 1: each statement as it runs, its line with '>>>>' where it
    starts; -Trace 2 adds assignments and function calls; -Off stops it."""
    script = tmp_path / "t.fay"
    script.write_text(
        "$x = 2\nfunction f($n) {\n    $n * $x\n}\nf 21\n"
        "Set-PSDebug -Trace 2; foreach ($i in 1..2) { $i }; f 1\nSet-PSDebug -Off\n'quiet'\n"
    )
    out = await shell.run(f"Set-PSDebug -Trace 1; & '{script}'")
    assert out == [42, 1, 2, 2, "quiet"]
    trace = shell.host.debug_lines
    assert trace[:4] == [
        f"   1+ Set-PSDebug -Trace 1;  >>>> & '{script}'",
        "   1+  >>>> $x = 2",
        "   2+  >>>> function f($n) {",
        "   5+  >>>> f 21",
    ]
    assert trace[4] == "   3+      >>>> $n * $x"
    assert "    ! SET $i = '1'." in trace and "    ! SET $i = '2'." in trace
    assert "    ! CALL function 'f'." in trace
    assert trace[-1] == "   7+  >>>> Set-PSDebug -Off"


async def test_set_psdebug_strict_and_what_it_refuses(shell) -> None:
    with pytest.raises(RuntimeFayError, match=r"The variable '\$NewVar' cannot be retrieved"):
        await shell.run("Set-PSDebug -Strict; $NewVar")
    assert await shell.run("Set-PSDebug -Off; $null -eq $NewVar") == [True]
    with pytest.raises(CommandError, match="no stepping debugger"):
        await shell.run("Set-PSDebug -Step")
    with pytest.raises(CommandError, match="the trace level is 0"):
        await shell.run("Set-PSDebug -Trace 3")


async def test_variables_show_in_powershells_view(shell) -> None:
    text = await shell.text("$x = 1, 2; Get-Variable x")
    assert text.splitlines()[1:4] == [
        "Name" + " " * 27 + "Value",
        "----" + " " * 27 + "-----",
        "x" + " " * 30 + "{1, 2}",
    ]
