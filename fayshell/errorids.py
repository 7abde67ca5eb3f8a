"""``$_.FullyQualifiedErrorId``: PowerShell's id for an error. When a command reported the error,
the id is followed by the command's .NET type (for a cmdlet) or its name (for a function):
``PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand``,
``ParameterArgumentValidationError,Test-Thing``. Scripts test it in catch blocks, and Pester tests
it with ``Should -Throw -ErrorId``. For a fayshell error that PowerShell has no id for, the id is
the error's message, as PowerShell's is for ``throw 'text'``."""

from __future__ import annotations

from typing import Final

#: Each .NET exception type that gets one id in PowerShell, whichever command raised it.
BY_EXCEPTION: Final = {
    "System.Management.Automation.ItemNotFoundException": "PathNotFound",
    "System.Management.Automation.CommandNotFoundException": "CommandNotFoundException",
    "System.DivideByZeroException": "RuntimeException",
}
#: The ids of errors the language raises, where PowerShell gives them ids (written once here).
INVOKE_METHOD_ON_NULL: Final = "InvokeMethodOnNull"
METHOD_NOT_FOUND: Final = "MethodNotFound"
NULL_ARRAY: Final = "NullArray"
NOT_DEFINED_OPERATION: Final = "NotADefinedOperationForType"
CAST_TO_INTEGER: Final = "InvalidCastFromStringToInteger"
CAST_ICONVERTIBLE: Final = "InvalidCastIConvertible"
NAMED_PARAMETER_NOT_FOUND: Final = "NamedParameterNotFound"
MISSING_MANDATORY: Final = "MissingMandatoryParameter"
POSITIONAL_NOT_FOUND: Final = "PositionalParameterNotFound"
VALIDATION_FAILED: Final = "ParameterArgumentValidationError"
#: An argument that does not convert to its parameter's type: a cmdlet's, a function's.
CANNOT_CONVERT_ARGUMENT: Final = "CannotConvertArgumentNoMessage"
ARGUMENT_TRANSFORMATION: Final = "ParameterArgumentTransformationError"
#: PowerShell's ErrorCategory of the errors with these ids (the rest: by exception type).
CATEGORIES: Final = {
    **dict.fromkeys((INVOKE_METHOD_ON_NULL, NULL_ARRAY, METHOD_NOT_FOUND), "InvalidOperation"),
    **dict.fromkeys(
        (
            CAST_TO_INTEGER,
            CAST_ICONVERTIBLE,
            NAMED_PARAMETER_NOT_FOUND,
            MISSING_MANDATORY,
            POSITIONAL_NOT_FOUND,
            CANNOT_CONVERT_ARGUMENT,
        ),
        "InvalidArgument",
    ),
    **dict.fromkeys((VALIDATION_FAILED, ARGUMENT_TRANSFORMATION), "InvalidData"),
}
#: The command families that hold fayshell's own cmdlets. Their types are in fayshell's own
#: namespace, not in PowerShell's.
OWN_FAMILIES: Final = frozenset({"analysis", "nodes", "recorder", "sql", "store", "trace", "views"})
OWN_NAMESPACE: Final = "FayShell.Commands"
POWERSHELL_NAMESPACE: Final = "Microsoft.PowerShell.Commands"


def command_type(command: str) -> str:
    """The .NET type of a cmdlet (``Get-Item``: ``Microsoft.PowerShell.Commands.GetItemCommand``),
    a function's own name, or "" when no command is named."""
    if not command:
        return ""
    from fayshell.commands._index import FAMILY_OF

    family = FAMILY_OF.get(command.lower())
    if family is None or "-" not in command:
        return command  # a function (or a script)
    namespace = OWN_NAMESPACE if family in OWN_FAMILIES else POWERSHELL_NAMESPACE
    name = "".join(part[:1].upper() + part[1:] for part in command.split("-"))
    return f"{namespace}.{name}Command"


def category_of(error_id: str) -> str | None:
    """The ErrorCategory PowerShell gives errors of ``error_id`` (``Id,Command`` or ``Id``),
    when it is one for which the category goes with the id."""
    return CATEGORIES.get(error_id.split(",", 1)[0])


def qualified(error_id: str, command: str = "") -> str:
    """``error_id``, followed by the type or name of the ``command`` that reported it."""
    where = command_type(command)
    return f"{error_id},{where}" if where else error_id


def of_record(error_id: str, exception: str, command: str) -> str:
    """The id of an error that a command reported: the id it was given (Write-Error
    -ErrorId), else its exception type's id followed by the command. Returns "" when
    PowerShell has no id for it."""
    if error_id:
        return error_id
    known = BY_EXCEPTION.get(exception, "")
    return qualified(known, command) if known else ""
