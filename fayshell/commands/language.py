"""Language cmdlets: Invoke-Expression (a string run as fayshell code in the caller's scope) and
the Write-Error/-Warning/-Verbose/-Debug/-Information streams."""

from __future__ import annotations

from typing import Any

from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.errors import (
    ERROR_ACTIONS,
    ERROR_CATEGORIES,
    CommandError,
    ErrorAction,
    RuntimeFayError,
)
from fayshell.lang.ops import to_string


@cmdlet(
    "Invoke-Expression",
    aliases=("iex",),
    synopsis="Run a string as fayshell code, in the caller's scope; its output is the output.",
    params=[
        Param(
            "Command",
            "any",
            position=0,
            mandatory=True,
            pipeline="value",
            help="The code to run (a string).",
        )
    ],
    examples=[
        ("Invoke-Expression '1 + 2'", "Outputs 3."),
        ("$cmd = 'Get-Node'; iex $cmd", "Runs the command named in a variable."),
    ],
)
async def invoke_expression(ctx: Invocation, *, command: Any) -> list[Any]:
    interp = ctx.state.interpreter
    if interp is None:
        raise CommandError("Invoke-Expression", "no interpreter is running this shell")
    return list(await interp.evaluate_string(to_string(command)))


@cmdlet(
    "Write-Error",
    synopsis="Write an error: it stops the statement under -ErrorAction Stop (the default), "
    "else it is shown and the script goes on.",
    description="A non-terminating error, as in PowerShell: it is shown and the script goes on, "
    "unless -ErrorAction Stop is given or the script set $ErrorActionPreference "
    "(then try/catch catches it).",
    params=[
        Param(
            "Message",
            "any",
            position=0,
            pipeline="value",
            aliases=("Msg",),
            help="The error text (else the -Exception's message).",
        ),
        Param(
            "ErrorAction",
            str,
            aliases=("ea",),
            choices=ERROR_ACTIONS,
            help="Stop makes it a terminating error.",
        ),
        Param("Exception", "any", help="An exception ([ArgumentException]::new('x')): its type."),
        Param(
            "Category",
            str,
            choices=ERROR_CATEGORIES,
            help="PowerShell's ErrorCategory ($_.CategoryInfo.Category).",
        ),
        Param("ErrorId", str, help="$_.FullyQualifiedErrorId."),
        Param("TargetObject", "any", help="$_.TargetObject: what the error is about."),
        Param("RecommendedAction", str, help="Accepted (kept by PowerShell; not shown)."),
    ],
    examples=[
        ("Write-Error 'skipped'", "Shown; the script goes on."),
        ("Write-Error 'disk full' -ErrorAction Stop", "An error a try/catch can catch."),
        (
            "Write-Error 'bad row' -Category InvalidData -ErrorId BadRow -TargetObject $row",
            "An error a catch can tell apart by $_.CategoryInfo.Category or its id.",
        ),
    ],
)
def write_error(
    ctx: Invocation,
    *,
    message: Any = None,
    error_action: ErrorAction | None = None,
    exception: Any = None,
    category: str | None = None,
    error_id: str | None = None,
    target_object: Any = None,
    recommended_action: str | None = None,
) -> None:
    if message is None and exception is None:
        raise ctx.fail("give -Message (the error text) or -Exception")
    text = to_string(exception if message is None else message)
    kind = getattr(exception, "TypeName", "") or "Microsoft.PowerShell.Commands.WriteErrorException"
    target = "" if target_object is None else to_string(target_object)
    record = ErrorRecord(
        target,
        "",
        text,
        category=category or "NotSpecified",
        names_target=True,
        exception=kind,
        error_id=error_id or kind,  # PowerShell's id: the exception's type
    )
    interp = ctx.state.interpreter
    redirected = interp is not None and interp.error_override is not None
    chosen = getattr(interp, "preference_set", False) or ctx.state.error_action_scoped
    action = error_action or (ctx.error_action if redirected or chosen else "Continue")
    if action == "Stop":
        raise WrittenError(record)
    ctx.error_action = action
    ctx.write_error(record)


class WrittenError(RuntimeFayError):
    """An error raised by Write-Error under -ErrorAction Stop; its message is the text alone,
    its record's category, target, id and exception type are the caught ``$_``'s."""

    def __init__(self, record: ErrorRecord) -> None:
        super().__init__(record.message)
        self.command = "Write-Error"  # $_.CategoryInfo.Activity, as PowerShell's
        self.category = record.category
        self.target = record.target
        self.exception = record.exception
        self.error_id = record.error_id


@cmdlet(
    "Write-Warning",
    synopsis="Write a warning (shown as 'WARNING: text'; not output).",
    params=[Param("Message", "any", position=0, mandatory=True, pipeline="value")],
    examples=[("Write-Warning 'node02 is slow'", "Shown on the error stream.")],
)
def write_warning(ctx: Invocation, *, message: Any) -> None:
    ctx.warn(to_string(message))


@cmdlet(
    "Write-Verbose",
    synopsis="Write a note shown only with -Verbose or $VerbosePreference = 'Continue'.",
    params=[Param("Message", "any", position=0, mandatory=True, pipeline="value")],
    examples=[("Write-Verbose 'step 2' -Verbose", "Shown as 'VERBOSE: step 2'.")],
)
def write_verbose(ctx: Invocation, *, message: Any) -> None:
    if ctx.verbose or ctx.preference("VerbosePreference", "") == "Continue":
        ctx.show_verbose(to_string(message))


@cmdlet(
    "Write-Debug",
    synopsis="Write a note shown only with -Debug or $DebugPreference = 'Continue'.",
    params=[Param("Message", "any", position=0, mandatory=True, pipeline="value")],
    examples=[("Write-Debug 'x is 3'", "Silent unless $DebugPreference is Continue.")],
)
def write_debug(ctx: Invocation, *, message: Any) -> None:
    if ctx.debug or ctx.preference("DebugPreference", "") == "Continue":
        ctx.show_debug(to_string(message))


@cmdlet(
    "Write-Information",
    synopsis="Write an information message: shown with -InformationAction Continue or "
    "$InformationPreference = 'Continue' (not by default, as in PowerShell); kept by "
    "-InformationVariable.",
    params=[Param("MessageData", "any", position=0, mandatory=True, pipeline="value")],
    examples=[
        ("Write-Information 'done' -InformationAction Continue", "Shown on the host."),
        ("Write-Information 'step 1' -InformationVariable log", "Not shown; kept in $log."),
    ],
)
def write_information(ctx: Invocation, *, message_data: Any) -> None:
    ctx.inform(message_data)
