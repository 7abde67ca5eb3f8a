"""fayshell.errorids on its own: the command part of an id, and which errors get an id."""

from __future__ import annotations

from fayshell import errorids


def test_a_cmdlets_type_a_functions_name_or_nothing() -> None:
    assert errorids.command_type("Get-ChildItem") == (
        "Microsoft.PowerShell.Commands.GetChildItemCommand"
    )
    assert errorids.command_type("get-item") == "Microsoft.PowerShell.Commands.GetItemCommand"
    assert errorids.command_type("Start-Trace") == "FayShell.Commands.StartTraceCommand"
    assert errorids.command_type("Test-Thing") == "Test-Thing"  # no such cmdlet: a function
    assert errorids.command_type("gci") == "gci"  # an alias is no command of its own
    assert errorids.command_type("") == ""


def test_qualified_and_record_ids() -> None:
    assert errorids.qualified("MissingMandatoryParameter", "Get-Item") == (
        "MissingMandatoryParameter,Microsoft.PowerShell.Commands.GetItemCommand"
    )
    assert errorids.qualified("ParameterArgumentValidationError", "f") == (
        "ParameterArgumentValidationError,f"
    )
    assert errorids.qualified("InvokeMethodOnNull") == "InvokeMethodOnNull"
    missing = "System.Management.Automation.ItemNotFoundException"
    assert errorids.of_record("", missing, "Get-Content") == (
        "PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand"
    )
    assert errorids.of_record("MyId", missing, "Get-Content") == "MyId"  # given: kept
    assert errorids.of_record("", "System.Management.Automation.RuntimeException", "x") == ""
