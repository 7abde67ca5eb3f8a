"""Preference variables (about_Preference_Variables): the table alone, then in a real shell:
defaults and types, assignments checked as PowerShell checks them, and what each one changes
($ConfirmPreference with ConfirmImpact, $FormatEnumerationLimit, $MaximumHistoryCount)."""

from __future__ import annotations

import pytest

from fayshell.errors import ParseError, RuntimeFayError
from fayshell.history import History
from fayshell.lang.dates import DateTime
from fayshell.lang.enums import ACTION_PREFERENCE, CONFIRM_IMPACT, engine_enums
from fayshell.lang.preferences import BY_NAME, PREFERENCES, check, confirm_due
from tests.fixtures.shell import Shell


def test_every_preference_has_one_default_of_its_type() -> None:
    assert len(BY_NAME) == len(PREFERENCES)
    for pref in PREFERENCES:
        value = pref.initial()
        if pref.type_name is not None and pref.type_name.startswith("System."):
            assert str(value.GetType()) == pref.type_name
    assert str(BY_NAME["confirmpreference"].initial()) == "High"
    assert BY_NAME["maximumhistorycount"].initial() == 4096


def test_engine_enums_number_as_dotnet_does() -> None:
    assert [int(ACTION_PREFERENCE.convert(n)) for n in ("SilentlyContinue", "Stop", "Break")] == [
        0,
        1,
        6,
    ]
    assert CONFIRM_IMPACT.FullName == "System.Management.Automation.ConfirmImpact"
    enums = engine_enums()
    assert enums["actionpreference"] is enums["management.automation.actionpreference"]


def test_confirm_due_compares_impact_with_the_preference() -> None:
    assert confirm_due("High", "High") and not confirm_due("Medium", "High")
    assert confirm_due("Medium", "medium") and confirm_due("Low", 1)
    assert not confirm_due("High", "None")  # None: never asked
    assert not confirm_due("High", "Bogus")


def test_check_names_the_variable_and_value() -> None:
    assert check("MaximumHistoryCount", 10) is None
    assert check("maximumhistorycount", 0) == (
        "The variable cannot be validated because the value 0 is not a valid value for the "
        "MaximumHistoryCount variable."
    )
    assert check("FormatEnumerationLimit", -5) is None


def test_history_keeps_the_newest_entries() -> None:
    history = History()
    now = DateTime.local_now()
    for i in range(5):
        history.add(f"cmd{i}", "Completed", now, now, keep=3)
    assert [e.CommandLine for e in history.entries] == ["cmd2", "cmd3", "cmd4"]
    assert history.entries[-1].Id == 5  # ids go on counting


async def test_defaults_and_types_in_a_shell(shell: Shell) -> None:
    out = await shell.run(
        "$ConfirmPreference; $FormatEnumerationLimit; $MaximumHistoryCount; $ErrorView; "
        "$OutputEncoding.WebName; $PSNativeCommandArgumentPassing; $WhatIfPreference; "
        "$ErrorActionPreference.GetType().FullName; [int]$VerbosePreference; "
        "$LogEngineHealthEvent; $LogCommandHealthEvent; Test-Path Variable:OFS"
    )
    assert [str(v) for v in out] == [
        "High",
        "4",
        "4096",
        "ConciseView",
        "utf-8",
        "Standard",
        "False",
        "System.Management.Automation.ActionPreference",
        "0",
        "True",
        "False",
        "False",
    ]
    out = await shell.run("$ErrorActionPreference -eq 'stop'; $ConfirmPreference -gt 'Medium'")
    assert out == [True, True]  # compared as the enum: Medium is 2, High 3


async def test_assignments_are_converted_or_refused(shell: Shell) -> None:
    assert await shell.run("$VerbosePreference = 2; [string]$VerbosePreference") == ["Continue"]
    with pytest.raises(RuntimeFayError, match='to type "System.Management.Automation.Confirm'):
        await shell.run("$ConfirmPreference = 'Sometimes'")
    with pytest.raises(RuntimeFayError, match="not a valid value for the MaximumHistoryCount"):
        await shell.run("$MaximumHistoryCount = 0")
    with pytest.raises(RuntimeFayError, match='"System.Int32"'):
        await shell.run("$FormatEnumerationLimit = 'many'")
    assert await shell.run("[string]$ConfirmPreference; $MaximumHistoryCount") == ["High", 4096]
    assert shell.state.history_count() == 4096
    await shell.run("$MaximumHistoryCount = 7")
    assert shell.state.history_count() == 7


async def test_common_parameters_set_typed_preferences_in_a_function(shell: Shell) -> None:
    out = await shell.run(
        "function f { [CmdletBinding()] param() $ErrorActionPreference.GetType().Name; "
        "Write-Error 'soft'; 'went on' }; f -ErrorAction SilentlyContinue"
    )
    assert out == ["ActionPreference", "went on"]  # SilentlyContinue is 0: still honoured


FUNCTION = (
    "function Remove-Thing {{ [CmdletBinding(SupportsShouldProcess, ConfirmImpact = '{}')] "
    'param($Name) if ($PSCmdlet.ShouldProcess($Name)) {{ "removed $Name" }} }}; '
)


@pytest.mark.parametrize(
    ("impact", "preference", "args", "asked"),
    [
        ("High", "High", "", True),  # at the preference: confirmed first
        ("Medium", "High", "", False),  # below it: goes ahead
        ("Medium", "Medium", "", True),
        ("High", "None", "", False),  # None: never confirmed unasked
        ("High", "High", " -Confirm:$false", False),  # -Confirm:$false: goes ahead
        ("Low", "High", " -Confirm", True),  # -Confirm: confirmed whatever the impact
    ],
)
async def test_confirm_impact_against_confirm_preference(
    shell: Shell, impact: str, preference: str, args: str, asked: bool
) -> None:
    shell.host.answer = False  # every question is answered No
    out = await shell.run(
        FUNCTION.format(impact) + f"$ConfirmPreference = '{preference}'; Remove-Thing a{args}"
    )
    assert out == ([] if asked else ["removed a"])


async def test_confirm_holds_for_the_commands_a_function_calls(shell: Shell, tmp_path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("x")
    shell.host.answer = False
    out = await shell.run(
        "function Clear-It { [CmdletBinding(SupportsShouldProcess)] param($p) "
        "$ConfirmPreference; Remove-Item $p }; "
        f"Clear-It '{target}' -Confirm; Test-Path '{target}'"
    )
    assert [str(v) for v in out] == ["Low", "True"]  # asked, answered No: still there
    await shell.run(f"$ConfirmPreference = 'Medium'; Remove-Item '{target}' -Confirm:$false")
    assert not target.exists()


async def test_a_cmdlet_confirms_under_a_low_enough_preference(shell: Shell, tmp_path) -> None:
    target = tmp_path / "g.txt"
    target.write_text("x")
    shell.host.answer = False
    await shell.run(f"$ConfirmPreference = 'Medium'; Remove-Item '{target}'")
    assert target.exists()  # Remove-Item is Medium: asked, and the answer was No
    shell.host.answer = True
    await shell.run(f"Remove-Item '{target}'")
    assert not target.exists()


async def test_an_unknown_confirm_impact_is_a_parse_error(shell: Shell) -> None:
    with pytest.raises(ParseError, match="ConfirmImpact 'Often' is not one of None, Low"):
        await shell.run("function f { [CmdletBinding(ConfirmImpact = 'Often')] param() 1 }")


async def test_format_enumeration_limit_shapes_cells(shell: Shell) -> None:
    make = "[pscustomobject]@{ n = 1..6; k = 'x' }"
    assert "{1, 2, 3, 4…}" in await shell.text(f"{make} | Out-String")
    assert "{1, 2…}" in await shell.text(f"$FormatEnumerationLimit = 2; {make} | Out-String")
    text = await shell.text(f"$FormatEnumerationLimit = -1; {make} | Format-List | Out-String")
    assert "n : {1, 2, 3, 4, 5, 6}" in text
    assert "{…}" in await shell.text(f"$FormatEnumerationLimit = 0; {make} | Out-String")
