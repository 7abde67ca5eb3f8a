"""The registry is the one source of truth: help, command lists, aliases, examples."""

from __future__ import annotations

import pytest

from fayshell.commands import load_registry
from fayshell.errors import CommandError, CommandNotFound, FayError, ParseError
from fayshell.lang.parser import parse

REGISTRY = load_registry()


@pytest.mark.parametrize("spec", list(REGISTRY), ids=lambda s: s.name)
def test_every_cmdlet_is_documented_and_its_examples_parse(spec) -> None:
    assert "-" in spec.name and spec.synopsis.strip()
    assert spec.examples, f"{spec.name} has no example"
    for example in spec.examples:
        try:
            parse(example.code, f"{spec.name} example")
        except ParseError as exc:
            pytest.fail(exc.one_line())
    names = [p.name.lower() for p in spec.params]
    assert len(names) == len(set(names)), f"{spec.name} declares a parameter twice"


async def test_get_help_reads_the_declaration(shell) -> None:
    (text,) = await shell.run("Get-Help Select-Object")
    spec = REGISTRY.resolve("Select-Object")
    assert spec is not None
    assert spec.synopsis in text and spec.syntax() in text
    assert all(e.code in text for e in spec.examples)
    (full,) = await shell.run("Get-Help select -Full")
    assert "-ExpandProperty  (type string; optional)" in full
    (param,) = await shell.run("Get-Help Where-Object -Parameter FilterScript")
    assert "position 0; aliases -Property" in param
    (common,) = await shell.run("Get-Help Remove-Item -Parameter confirm")
    assert "-Confirm  (type switch" in common and "$ConfirmPreference" in common
    with pytest.raises(CommandError, match="Get-Item has no parameter -Confirm"):
        await shell.run("Get-Help Get-Item -Parameter Confirm")  # it changes nothing


async def test_get_help_examples_and_topics(shell) -> None:
    (ex,) = await shell.run("Get-Help sql -Examples")
    assert ex.startswith("EXAMPLES") and "range(10000000)" in ex
    (lang,) = await shell.run("Get-Help about_Language")
    assert "Operators" in lang
    with pytest.raises(CommandError) as info:
        await shell.run("Get-Help Sort-Objet")
    assert "did you mean Sort-Object?" in info.value.one_line()


async def test_get_command_filters(shell) -> None:
    names = [c.Name for c in await shell.run("Get-Command *-Object")]
    assert names == [
        "Compare-Object",
        "ForEach-Object",
        "Group-Object",
        "Measure-Object",
        "New-Object",
        "Select-Object",
        "Sort-Object",
        "Tee-Object",
        "Where-Object",
    ]
    verbs = {c.Name.split("-")[0] for c in await shell.run("Get-Command -Verb ConvertTo")}
    assert verbs == {"ConvertTo"}
    await shell.run("function Get-Thing { param($Name, [switch]$Loud) 1 }")
    assert [c.CommandType for c in await shell.run("Get-Command Get-Thing")] == ["Function"]
    assert await shell.run("(Get-Command Get-Thing).Parameters.Keys") == ["Name", "Loud"]
    (alias,) = await shell.run("Get-Command gci")
    assert (alias.CommandType, alias.Name, alias.Definition) == ("Alias", "gci", "Get-ChildItem")
    assert await shell.run("(Get-Command Get-ChildItem).CommandType") == ["Cmdlet"]
    assert "Path" in await shell.run("(Get-Command Get-ChildItem).Parameters.Keys")


async def test_get_command_by_type_count_and_syntax(shell) -> None:
    await shell.run(
        "function Get-Thing { param([string]$Name = 'd', [Parameter(Mandatory)][int]$N, "
        "[switch]$Loud) 1 }"
    )
    assert [c.Name for c in await shell.run("Get-Command -CommandType Function")] == ["Get-Thing"]
    aliases = await shell.run("Get-Command -Type Alias")
    assert {c.CommandType for c in aliases} == {"Alias"} and "gci" in {c.Name for c in aliases}
    kinds = {c.CommandType for c in await shell.run("Get-Command -CommandType All")}
    assert kinds == {"Alias", "Cmdlet", "Function"}
    assert await shell.run("Get-Command -CommandType Application") == []
    assert len(await shell.run("Get-Command -TotalCount 3")) == 3
    assert await shell.run("Get-Command Get-Thing, gcm, Get-Alias -Syntax") == [
        "gcm (alias) -> Get-Command",
        "Get-Alias [[-Name] <strings>] [-Definition <strings>]",
        "Get-Thing [[-Name] <string>] [-N] <int> [-Loud]",
    ]
    with pytest.raises(FayError, match="is not one of Alias, All"):
        await shell.run("Get-Command -CommandType Nope")


async def test_get_alias_lists_expected_aliases(shell) -> None:
    aliases = {a.Name: a.Definition for a in await shell.run("Get-Alias")}
    expected = {
        "where": "Where-Object",
        "?": "Where-Object",
        "select": "Select-Object",
        "sort": "Sort-Object",
        "group": "Group-Object",
        "measure": "Measure-Object",
        "%": "ForEach-Object",
        "ft": "Format-Table",
        "fl": "Format-List",
        "echo": "Write-Output",
        "sql": "Invoke-Sql",
    }
    assert expected.items() <= aliases.items()


async def test_user_aliases_come_before_functions_and_cmdlets(shell) -> None:
    out = await shell.run(
        "Set-Alias when Get-Date; (when -Year 2020).Year; "
        "function hello { 'hi' }; New-Alias hh hello; hh; "
        "Set-Alias gci Get-Date; (gci -Year 2001).Year; Remove-Alias gci; "
        "(Get-Alias -Definition Get-ChildItem).Name; (Get-Command when).CommandType"
    )
    assert out == [2020, "hi", 2001, "dir", "gci", "ls", "Alias"]
    assert {a.Name: a.Definition for a in await shell.run("Get-Alias h*")}["hh"] == "hello"
    for bad, says in [
        ("New-Alias hh x", "an alias with the name 'hh' already exists"),
        ("New-Alias gci x", "an alias with the name 'gci' already exists"),
        ("Get-Alias nope", "an alias with the name 'nope' does not exist"),
        ("Remove-Alias nope", "No alias named 'nope' exists"),
    ]:
        with pytest.raises(CommandError) as info:
            await shell.run(bad)
        assert says in info.value.message
    await shell.run("Remove-Alias hh")
    with pytest.raises(CommandNotFound):
        await shell.run("hh")


async def test_variables_cmdlets(shell) -> None:
    await shell.run("Set-Variable limit 50; $web01 = 1; $web02 = 2")
    assert await shell.run("$limit") == [50]
    assert [v.Name for v in await shell.run("Get-Variable web*")] == ["web01", "web02"]
    await shell.run("Remove-Variable limit")
    assert await shell.run("$limit -eq $null") == [True]
    out = await shell.run(
        "$h = 1; (Get-Variable h).Value = 2; $h; $v = Get-Variable h; $v.Value++; $h"
    )
    assert out == [2, 3]  # a variable's Value sets the variable, as in PowerShell


async def test_about_differences_lists_each_deliberate_difference(shell) -> None:
    (text,) = await shell.run("Get-Help about_Differences")
    for topic in (
        "Durations are values",
        "sql takes the rest of the line",
        "Relations and pushdown",
        "Severity words",
        "ClusterShell",
        "location",
        "invariant culture",
    ):
        assert topic in text
    (overview,) = await shell.run("Get-Help")
    assert "about_Differences" in overview


FUNCTION_WITH_HELP = """
<#
.SYNOPSIS
    Restart tracing on a node.
.DESCRIPTION
    Stops the session and starts it again.
.PARAMETER Node
    The node to restart.
.EXAMPLE
    Restart-Tracing -Node web01
#>
function Restart-Tracing {
    param([Parameter(Mandatory)][string]$Node, [switch]$Force)
    "restart $Node"
}
"""


async def test_get_help_of_a_function_reads_its_comment_based_help(shell) -> None:
    """Get-Help of a function was 'no command named'."""
    await shell.run(FUNCTION_WITH_HELP)
    (text,) = await shell.run("Get-Help Restart-Tracing")
    assert text.splitlines()[:8] == [
        "NAME",
        "    Restart-Tracing",
        "",
        "SYNOPSIS",
        "    Restart tracing on a node.",
        "",
        "SYNTAX",
        "    Restart-Tracing [-Node] <string> [-Force]",
    ]
    assert "Restart-Tracing -Node web01" in text and "PARAMETERS" not in text
    (full,) = await shell.run("Get-Help Restart-Tracing -Full")
    assert "    -Node <string>  (mandatory)\n        The node to restart." in full
    out = await shell.run(
        "(Get-Help Restart-Tracing).Synopsis; (Get-Help Restart-Tracing).Category; "
        "(Get-Help Get-Span).Name; (Get-Help Get-Span).Synopsis -ne ''"
    )
    assert out == ["Restart tracing on a node.", "Function", "Get-Span", True]
    await shell.run("function Quiet { param($x) }")
    (quiet,) = await shell.run("Get-Help Quiet")
    assert "SYNOPSIS\n    Quiet [[-x] <Object>]" in quiet  # no help: its syntax, as PowerShell


async def test_get_help_lists_the_topics_a_wildcard_matches(shell) -> None:
    await shell.run(FUNCTION_WITH_HELP)
    found = await shell.run("Get-Help *-Tracing")
    assert [(e.Name, e.Category, e.Synopsis) for e in found] == [
        ("Restart-Tracing", "Function", "Restart tracing on a node.")
    ]
    topics = await shell.run("Get-Help about_* | ForEach-Object Name")
    assert topics == ["about_Language", "about_Tables", "about_Differences"]
    assert "Get-Span" in await shell.run("Get-Help Get-Sp* | ForEach-Object Name")


async def test_a_powershell_about_topic_points_at_its_page(shell) -> None:
    """Get-Help about_Operators (a PowerShell user's first question) said only that there was
    no such topic; now where to read it, beside fayshell's own topics."""
    with pytest.raises(FayError) as err:
        await shell.run("Get-Help about_Operators")
    assert "fayshell's topics: about_Language" in err.value.message
    assert err.value.message.endswith(
        "/powershell/module/microsoft.powershell.core/about/about_operators"
    )


async def test_get_verb_lists_approved_verbs_by_group(shell) -> None:
    out = await shell.run(
        "Get-Verb un* | ForEach-Object { $_.Verb + ' ' + $_.AliasPrefix + ' ' + $_.Group }; "
        "(Get-Verb -Group Security, Other).Verb -join ','; (Get-Verb).Count"
    )
    assert out == [
        "Undo un Common",
        "Unlock uk Common",
        "Unpublish ub Data",
        "Uninstall us Lifecycle",
        "Unregister ur Lifecycle",
        "Unblock ul Security",
        "Unprotect up Security",
        "Use,Block,Grant,Protect,Revoke,Unblock,Unprotect",
        100,
    ]


async def test_only_powershells_historic_exceptions_use_unapproved_verbs(shell) -> None:
    """Get-Verb's own example: of Utility's cmdlets only Sort-Object and Tee-Object; every
    fayshell cmdlet's verb is approved."""
    out = await shell.run(
        "(Get-Command -Module Microsoft.PowerShell.Utility | "
        "Where-Object Verb -NotIn (Get-Verb).Verb).Name -join ','; "
        "@(Get-Command -Module fayshell | Where-Object Verb -NotIn (Get-Verb).Verb).Count"
    )
    assert out == ["Sort-Object,Tee-Object", 0]


async def test_commands_and_aliases_show_in_powershells_view(shell) -> None:
    """Get-Command and Get-Alias: CommandType 15 wide, Name 50 (an alias as 'gci ->
    Get-ChildItem'), Version 10, Source."""
    text = await shell.text("Get-Command Get-ChildItem, gci")
    assert text.splitlines()[1:5] == [
        "CommandType     Name" + " " * 47 + "Version    Source",
        "-----------     ----" + " " * 47 + "-------    ------",
        "Alias           gci -> Get-ChildItem",
        "Cmdlet          Get-ChildItem" + " " * 38 + "7.0.0.0    Microsoft.PowerShell.Management",
    ]
    alias = await shell.text("Get-Alias gci")
    assert alias.splitlines()[3] == "Alias           gci -> Get-ChildItem"
    assert await shell.run("(Get-Command gci).DisplayName; (Get-Alias gci).Definition") == [
        "gci -> Get-ChildItem",
        "Get-ChildItem",
    ]
