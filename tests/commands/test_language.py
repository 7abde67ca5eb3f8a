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
    assert shell.host.verbose_lines == ["v"] and shell.host.debug_lines == ["d2"]


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


async def test_common_parameter_aliases(shell) -> None:
    """-ea, -ev, -vb, -wa, -wv, -infa, -iv, -db, -ob, -proga: about_CommonParameters' aliases."""
    out = await shell.run(
        "Get-Item /gone-alias -ea SilentlyContinue -ev e; $e.Count; "
        "try { Get-Item /gone-alias -EA Stop } catch { 'caught' }; "
        "1..2 | Write-Output -ob 5; "
        "Write-Progress 'bar' -proga SilentlyContinue"
    )
    assert out == [1, "caught", 1, 2]
    assert shell.host.errors == [] and shell.host.progress_tasks == []


async def test_warning_action_variable_and_preference(shell) -> None:
    out = await shell.run(
        "Write-Warning 'a' -WarningAction SilentlyContinue -WarningVariable w; $w; "
        "Write-Warning 'b' -wa Ignore -wv +w; $w.Count; "
        "try { Write-Warning 'c' -wa Stop } catch { $_.Exception.Message -match 'Stop: c$' }; "
        "$WarningPreference = 'SilentlyContinue'; Write-Warning 'quiet'; "
        "$WarningPreference = 'Continue'; Write-Warning 'loud'"
    )
    assert out == ["a", 1, True]  # Ignore: not even kept
    assert shell.host.warnings == ["loud"]


async def test_information_is_shown_only_when_asked(shell) -> None:
    """Write-Information goes to the information stream, not shown by default
    ($InformationPreference is SilentlyContinue, as in PowerShell); Write-Host's text is on
    that stream too, and always shown."""
    out = await shell.run(
        "Write-Information 'hidden' -InformationVariable iv; "
        "Write-Information 'shown' -InformationAction Continue; "
        "$InformationPreference = 'Continue'; Write-Information 'now'; "
        "Write-Host 'h' -iv hv; $iv; $hv"
    )
    assert out == ["hidden", "h"]
    assert shell.host.lines == ["shown", "now", "h"]


async def test_a_functions_common_parameters_set_its_preferences(shell) -> None:
    """``f -WarningAction X`` and the like set the preference variables in f's scope: what
    f runs follows them; its -XxxVariable parameters keep what the commands inside write."""
    await shell.run(
        "function f { [CmdletBinding()] param() "
        "Write-Warning 'w1'; Write-Error 'e1'; Write-Debug 'd1'; Write-Information 'i1'; "
        "Get-Item /gone-in-f; 'out1' }"
    )
    out = await shell.run(
        "f -WarningAction SilentlyContinue -ErrorAction SilentlyContinue -Debug "
        "-InformationAction Continue -OutVariable o -WarningVariable wv -ErrorVariable ev "
        "-InformationVariable iv | Out-Null; $o; $wv; $ev.Count; $iv"
    )
    assert out == ["out1", "w1", 2, "i1"]
    assert shell.host.warnings == [] and shell.host.errors == []
    assert shell.host.debug_lines == ["d1"] and shell.host.lines == ["i1"]
    assert await shell.run("f -ErrorAction SilentlyContinue -wa SilentlyContinue") == ["out1"]
    assert shell.host.debug_lines == ["d1"]  # no -Debug: Write-Debug stays silent


async def test_common_parameters_of_a_function_with_named_blocks(shell) -> None:
    out = await shell.run(
        "function h { [CmdletBinding()] param([Parameter(ValueFromPipeline)]$x) "
        "begin { Write-Verbose 'start' } process { $x * 2 } end { Write-Warning 'done' } }; "
        "1, 2 | h -Verbose -WarningAction SilentlyContinue -WarningVariable hw; $hw"
    )
    assert out == [2, 4, "done"]
    assert shell.host.verbose_lines == ["start"] and shell.host.warnings == []


async def test_get_error_shows_the_newest_error_in_detail(shell) -> None:
    assert await shell.run("Get-Error") == []  # no error yet: nothing
    text = await shell.run(
        "try { [IO.File]::ReadAllText('/nonexistent-x') } catch { }; Get-Error | Out-String"
    )
    lines = text[0].split("\n")
    assert lines[:8] == [
        "",
        "Exception             : ",
        "    Type           : System.Management.Automation.MethodInvocationException",
        '    Message        : Exception calling "ReadAllText" with "1" argument(s): "Could not '
        "find file '/nonexistent-x'.\"",
        "    InnerException : ",
        "        Type    : System.IO.FileNotFoundException",
        "        Message : Could not find file '/nonexistent-x'.",
        "CategoryInfo          : NotSpecified: (:) [], MethodInvocationException",
    ]
    assert "FullyQualifiedErrorId : FileNotFoundException" in lines
    assert "    ScriptLineNumber : 1" in lines and "    OffsetInLine     : 7" in lines
    out = await shell.run(
        "Get-Item /nonexistent-y -ErrorAction SilentlyContinue -ErrorVariable ev; "
        "($ev | Get-Error).TargetObject; (Get-Error -Newest 2).Count; "
        "(Get-Error).FullyQualifiedErrorId"
    )
    assert out == [
        "/nonexistent-y",
        2,
        "PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand",
    ]


async def test_modules_are_powershells_and_fayshells_and_others_are_not_found(shell) -> None:
    """Get-Module lists the modules fayshell's cmdlets come from (Get-Command's Source);
    importing or removing one is nothing to do; any other is PowerShell's not-found error."""
    out = await shell.run(
        "(Get-Module).Name -join ','; (Get-Module PSRead*).ExportedCommands.Keys -join ','; "
        "(Get-Module Microsoft.PowerShell.Utility).Version.ToString(); "
        "(Get-Command Get-ChildItem).Source; (Get-Command Where-Object).ModuleName; "
        "(Get-Command Show-Top).Source; (Get-Command -Module Microsoft.PowerShell.Archive).Name; "
        "Import-Module Microsoft.PowerShell.Management; Remove-Module PSReadLine; "
        "(Import-Module psreadline -PassThru).Name; "
        "try { Import-Module Pester -ErrorAction Stop } catch { $_.FullyQualifiedErrorId; "
        "$_.Exception.Message }; Import-Module Pester -ErrorAction SilentlyContinue; 'went on'"
    )
    assert out == [
        "fayshell,Microsoft.PowerShell.Archive,Microsoft.PowerShell.Host,"
        "Microsoft.PowerShell.Management,Microsoft.PowerShell.Security,"
        "Microsoft.PowerShell.Utility,PSReadLine",
        "Get-PSReadLineKeyHandler,Get-PSReadLineOption,Remove-PSReadLineKeyHandler,"
        "Set-PSReadLineKeyHandler,Set-PSReadLineOption",
        "7.0.0.0",
        "Microsoft.PowerShell.Management",
        "Microsoft.PowerShell.Core",
        "fayshell",
        "Compress-Archive",
        "Expand-Archive",
        "PSReadLine",
        "Modules_ModuleNotFound,Microsoft.PowerShell.Commands.ImportModuleCommand",
        "The specified module 'Pester' was not loaded because no valid module file was found in "
        "any module directory.",
        "went on",
    ]


async def test_get_module_shows_each_modules_commands_by_name(shell) -> None:
    text = await shell.run("Get-Module Microsoft.PowerShell.Archive | Out-String")
    lines = [line.rstrip() for line in text[0].splitlines() if line.strip()]
    assert lines[0].split() == ["ModuleType", "Version", "PreRelease", "Name", "ExportedCommands"]
    assert lines[2].split(None, 2) == [
        "Script",
        "1.2.5",
        "Microsoft.PowerShell.Archive {Compress-Archive, Expand-Archive}",
    ]


def test_every_powershell_module_named_has_a_cmdlet_fayshell_has() -> None:
    """The module table lists only modules fayshell takes cmdlets from."""
    from fayshell.commands import full_registry
    from fayshell.commands.psmodules import MODULES, module_of

    used = {module_of(spec.name) for spec in full_registry()}
    assert {m.name for m in MODULES} <= used


async def test_get_pscallstack_names_each_frame_and_where_it_is(shell, tmp_path) -> None:
    """Get-PSCallStack: the innermost first, each with its bound parameters and the line it
    is on now (a caller's line is where it called the frame inside it)."""
    script = tmp_path / "cs.fay"
    script.write_text(
        "function inner { param($x) Get-PSCallStack }\nfunction outer {\n    inner 5\n}\nouter\n"
    )
    frames = await shell.run(f"& '{script}'")
    assert [(f.Command, f.Arguments, f.Location) for f in frames] == [
        ("inner", "{x=5}", "cs.fay: line 1"),
        ("outer", "{}", "cs.fay: line 3"),
        ("cs.fay", "{}", "cs.fay: line 5"),
        ("<ScriptBlock>", "{}", "<No file>"),
    ]
    assert frames[1].ScriptName == str(script) and frames[1].ScriptLineNumber == 3
    after = await shell.run("function f { Get-PSCallStack }; (f).Count; (Get-PSCallStack).Count")
    assert after == [2, 1]  # the frames of the script above are gone
