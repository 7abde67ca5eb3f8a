"""Language cmdlets: Invoke-Expression and the Write-* streams, through the interpreter."""

from __future__ import annotations

import pytest

from fayshell.errors import RuntimeFayError


async def test_invoke_expression_runs_in_the_callers_scope(shell) -> None:
    assert await shell.run("Invoke-Expression '1 + 2'; '$q = 4' | iex; $q") == [3, 4]
    assert await shell.run("function f { iex '$loc = 5'; $loc }; f; $loc -eq $null") == [5, True]


async def test_invoke_expression_reports_bad_code_with_its_place(shell) -> None:
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("Invoke-Expression 'Get-Nope'")
    assert "<Invoke-Expression>:1:1" in info.value.one_line()


async def test_write_error_is_catchable_and_continue_shows_it(shell) -> None:
    assert await shell.run(
        "try { Write-Error 'disk full' -ErrorAction Stop } catch { \"caught $_\" }"
    ) == ["caught disk full"]
    assert await shell.run("Write-Error 'skipped'; $?; 'went on'") == [False, "went on"]
    assert shell.host.errors == ["Write-Error: skipped"]
    assert await shell.run("try { Write-Error 'not caught' } catch { 'no' }; 'after'") == ["after"]
    assert await shell.run(
        "$ErrorActionPreference = 'Stop'; try { Write-Error 'now caught' } catch { \"$_\" }"
    ) == ["now caught"]
    (err,) = await shell.run("Write-Error 'to output' -ErrorAction Continue 2>&1")
    assert str(err) == "to output"


async def test_write_warning_verbose_debug(shell) -> None:
    assert (
        await shell.run(
            "Write-Warning 'w'; Write-Verbose 'hidden'; Write-Verbose 'v' -Verbose;"
            " Write-Debug 'd'; $DebugPreference = 'Continue'; Write-Debug 'd2'"
        )
        == []
    )
    assert shell.host.warnings == ["w"]
    assert shell.host.verbose_lines == ["v", "DEBUG: d2"]


async def test_scriptblock_create_and_bound_parameters(shell) -> None:
    assert await shell.run("$sb = [scriptblock]::Create('param($n) $n * 2'); & $sb 4") == [8]
    assert await shell.run("function f { param($a, $b) $PSBoundParameters.Keys }; f -b 1") == ["b"]


async def test_script_level_trap(shell) -> None:
    assert await shell.run("trap { \"T: $_\"; continue }\nthrow 'top'\n'next'") == [
        "T: top",
        "next",
    ]


async def test_verbose_switch_on_a_function_enables_write_verbose(shell) -> None:
    await shell.run("function f { [CmdletBinding()] param() Write-Verbose 'inside'; 'out' }")
    assert await shell.run("f; f -Verbose") == ["out", "out"]
    assert shell.host.verbose_lines == ["inside"]
