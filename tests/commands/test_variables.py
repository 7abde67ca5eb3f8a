"""Variable cmdlets: New-, Set-, Get-, Clear-Variable and their -Scope."""

from __future__ import annotations

import pytest

from fayshell.errors import RuntimeFayError


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
