"""Language cmdlets: Invoke-Expression (a string run as fayshell code in the caller's scope),
the Write-Error/-Warning/-Verbose/-Debug/-Information streams, Get-Error, Get-PSCallStack, and the module
cmdlets of a shell without modules."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fayshell import __version__, errorids
from fayshell.commands import psmodules
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.errors import (
    ERROR_ACTIONS,
    ERROR_CATEGORIES,
    CommandError,
    ErrorAction,
    RuntimeFayError,
    SourceSpan,
)
from fayshell.lang.ops import to_string, wildcard_match
from fayshell.lang.values import KeyedTable
from fayshell.lang.versions import to_version


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


@dataclass
class CallStackFrame:
    """One frame of Get-PSCallStack: the function or script running and where in it."""

    Command: str
    Arguments: str
    Location: str
    FunctionName: str = field(repr=False)
    ScriptName: str | None = field(repr=False)
    ScriptLineNumber: int = field(repr=False)
    Position: str = field(repr=False)
    TYPE_NAME = "System.Management.Automation.CallStackFrame"


def _frame(command: str, function: str, at: SourceSpan | None, bound: Any = None) -> CallStackFrame:
    """A frame running at ``at`` (None: not in a script's line), with the parameters
    ``bound`` ($PSBoundParameters) shown as PowerShell shows them: ``{Name=x, Count=2}``."""
    in_file = at is not None and not at.file.startswith("<")
    pairs = bound.items() if isinstance(bound, Mapping) else []
    return CallStackFrame(
        command,
        "{" + ", ".join(f"{k}={to_string(v)}" for k, v in pairs) + "}",
        f"{os.path.basename(at.file)}: line {at.line}"
        if at is not None and in_file
        else "<No file>",
        function,
        at.file if at is not None and in_file else None,
        at.line if at is not None else 0,
        at.text.strip() if at is not None else "",
    )


@cmdlet(
    "Get-PSCallStack",
    aliases=("gcs",),
    synopsis="The functions and scripts running, the innermost first, each with where it is "
    "now (script: line), down to the shell's own <ScriptBlock>.",
    examples=[
        ("function f { Get-PSCallStack }; f", "f, then <ScriptBlock>."),
        ("trap { Get-PSCallStack | Format-Table Command, Location }", "Where an error came from."),
    ],
)
def get_pscallstack(ctx: Invocation) -> list[CallStackFrame]:
    interp = ctx.state.interpreter
    calls = list(interp.calls) if interp is not None else []
    here = ctx.at
    frames = []
    for call in reversed(calls):  # each is where the one inside it was called, or here
        own = call.scope.local("PSBoundParameters") if call.scope is not None else None
        frames.append(_frame(call.command, call.function, here, own and own[1]))
        here = call.site
    return [*frames, _frame("<ScriptBlock>", "<ScriptBlock>", here)]


@cmdlet(
    "Get-Error",
    synopsis="Show the newest error in detail: its exception (and inner ones), category, id and "
    "where it happened (-Newest n: the n newest; or the errors piped in).",
    params=[
        Param("Newest", int, help="How many of the newest errors ($Error[0] first)."),
        Param("InputObject", "any", pipeline="value", help="Errors (from -ErrorVariable)."),
    ],
    examples=[
        ("Get-Error", "The last error, in detail."),
        ("Get-Error -Newest 3", "The three newest."),
        ("Import-Trace ./pulled -ErrorVariable bad; $bad | Get-Error", "Each import error."),
    ],
    stream=True,
)
async def get_error(
    ctx: Invocation, *, newest: int | None = None, input_object: Any = None
) -> list[DetailedError]:
    from fayshell.lang.streams import collect

    if newest is not None and newest < 1:
        raise CommandError("Get-Error", f"-Newest must be 1 or more, not {newest}")
    if ctx.input is not None or input_object is not None:
        source = ctx.input if ctx.input is not None else input_object
        records = [r for r in await collect(source) if hasattr(r, "FullyQualifiedErrorId")]
    else:
        found, errors = ctx.state.globals.lookup("Error")
        records = list(errors[: newest or 1]) if found and isinstance(errors, list) else []
    return [DetailedError(r) for r in records]


class DetailedError:
    """An error as Get-Error shows it (PowerShell's detailed ErrorRecord view): its properties,
    and those of its exception and where it happened, each nested under its name."""

    MEMBERS = (
        "Exception",
        "TargetObject",
        "CategoryInfo",
        "FullyQualifiedErrorId",
        "InvocationInfo",
        "ScriptStackTrace",
    )
    TYPE_NAME = "System.Management.Automation.ErrorRecord"

    def __init__(self, record: Any) -> None:
        self.Exception: Any = getattr(record, "Exception", None)
        self.TargetObject: Any = getattr(record, "TargetObject", None)
        self.CategoryInfo: Any = getattr(record, "CategoryInfo", None)
        self.FullyQualifiedErrorId: str = getattr(record, "FullyQualifiedErrorId", "")
        self.InvocationInfo: Any = getattr(record, "InvocationInfo", None)
        self.ScriptStackTrace: str = getattr(record, "ScriptStackTrace", "")

    def __str__(self) -> str:
        return str(getattr(self.Exception, "Message", "") or self.FullyQualifiedErrorId)

    @staticmethod
    def block_lines(run: list[DetailedError]) -> list[str]:
        lines: list[str] = []
        for error in run:
            lines += ["", *_detail(error, _same(*error.MEMBERS), 0)]
        return [*lines, ""]


def _detail(value: Any, fields: tuple[tuple[str, str], ...], depth: int) -> list[str]:
    """``Label : value`` lines of the fields (label, attribute) that have a value; an exception
    or an invocation's place nested under its label, four spaces further in."""
    shown = [(label, getattr(value, attr, None)) for label, attr in fields]
    shown = [(label, v) for label, v in shown if v is not None and v != ""]
    width = max((len(label) for label, _ in shown), default=0)
    pad = " " * (4 * depth)
    lines: list[str] = []
    for label, v in shown:
        nested = _NESTED.get(type(v).__name__)
        if nested is not None:
            lines += [f"{pad}{label.ljust(width)} : ", *_detail(v, nested, depth + 1)]
            continue
        text = _shown(v).split("\n")
        lines.append(f"{pad}{label.ljust(width)} : {text[0]}")
        lines += [f"{pad}{' ' * width}   {more}" for more in text[1:]]
    return lines


def _shown(value: Any) -> str:
    """A field's text: a command by its name."""
    if isinstance(value, dict) and "Name" in value:
        value = value["Name"]
    elif hasattr(value, "CommandType"):
        value = getattr(value, "Name", value)
    return to_string(value)


def _same(*names: str) -> tuple[tuple[str, str], ...]:
    return tuple((n, n) for n in names)


#: The fields shown of the values nested in Get-Error's view, by their Python type's name.
_NESTED: dict[str, tuple[tuple[str, str], ...]] = {
    "ExceptionValue": (("Type", "TypeName"), *_same("Message", "InnerException")),
    "ErrorInvocationInfo": _same(
        "MyCommand", "ScriptName", "ScriptLineNumber", "OffsetInLine", "Line", "PositionMessage"
    ),
}


@dataclass(frozen=True)
class ModuleInfo:
    """A module as Get-Module lists it (PowerShell's PSModuleInfo): ExportedCommands are the
    cmdlets fayshell has of it."""

    TYPE_NAME = "System.Management.Automation.PSModuleInfo"

    ModuleType: str
    Version: Any
    PreRelease: str
    Name: str
    ExportedCommands: dict[str, Any]
    Description: str = field(default="", repr=False)
    Path: str = field(default="", repr=False)


def modules(ctx: Invocation) -> list[ModuleInfo]:
    """The modules fayshell's cmdlets come from, by name: PowerShell's (the snap-in
    Microsoft.PowerShell.Core is not a module Get-Module lists) and fayshell's own."""
    by_module: dict[str, dict[str, Any]] = {}
    for spec in ctx.state.registry:
        by_module.setdefault(psmodules.module_of(spec.name), {})[spec.name] = spec.name
    facts = {m.name: m for m in psmodules.MODULES}
    out = []
    for name, commands in by_module.items():
        known = facts.get(name)
        if name == "Microsoft.PowerShell.Core":
            continue
        version = known.version if known is not None else __version__
        kind = known.module_type if known is not None else "Binary"
        said = "PowerShell's module" if known is not None else "fayshell's cluster tracing"
        exported = KeyedTable(sorted(commands.items(), key=lambda kv: kv[0].lower()))
        out.append(ModuleInfo(kind, to_version(version), "", name, exported, said))
    return sorted(out, key=lambda m: m.Name.lower())


@cmdlet(
    "Get-Module",
    aliases=("gmo",),
    synopsis="The modules fayshell's cmdlets come from: PowerShell's (Microsoft.PowerShell."
    "Management, ...Utility, PSReadLine ...) and fayshell's own, all loaded from the start.",
    params=[
        Param("Name", "strings", position=0, help="Module names or patterns."),
        Param("ListAvailable", bool, help="The modules that could be loaded: the same ones."),
        Param("All", bool, help="Accepted."),
    ],
    examples=[
        ("Get-Module", "Each module, its version and its commands."),
        ("(Get-Module PSReadLine).ExportedCommands.Keys", "The PSReadLine cmdlets fayshell has."),
    ],
)
def get_module(
    ctx: Invocation,
    *,
    name: list[str] | None = None,
    list_available: bool = False,
    all: bool = False,
) -> list[ModuleInfo]:
    found = modules(ctx)
    if name:
        found = [m for m in found if any(wildcard_match(m.Name, n) for n in name)]
    return found


@cmdlet(
    "Import-Module",
    aliases=("ipmo",),
    synopsis="Nothing to do for the modules fayshell has (Get-Module lists them: they are "
    "loaded from the start); any other is PowerShell's 'module not found' error, as fayshell "
    "loads no module files.",
    params=[
        Param("Name", "strings", position=0, mandatory=True, pipeline="value"),
        Param("Force", bool, help="Accepted."),
        Param("PassThru", bool, help="The module's PSModuleInfo."),
    ],
    examples=[
        ("Import-Module Microsoft.PowerShell.Utility", "Nothing: it is loaded."),
        ("Import-Module Foo -ErrorAction SilentlyContinue", "Nothing, and no error."),
    ],
)
def import_module(
    ctx: Invocation, *, name: list[str], force: bool = False, pass_thru: bool = False
) -> list[ModuleInfo]:
    out = []
    for module in name:
        known = _loaded(ctx, module)
        if known is not None or module.lower() == "microsoft.powershell.core":
            out += [known] if known is not None and pass_thru else []
            continue
        _module_error(
            ctx,
            module,
            f"The specified module '{module}' was not loaded because no valid module file was "
            "found in any module directory.",
            "Modules_ModuleNotFound",
            "System.IO.FileNotFoundException",
        )
    return out


def _loaded(ctx: Invocation, name: str) -> ModuleInfo | None:
    return next((m for m in modules(ctx) if m.Name.lower() == name.lower()), None)


@cmdlet(
    "Remove-Module",
    aliases=("rmo",),
    synopsis="Nothing for the modules fayshell has (their commands stay: PowerShell would load "
    "them again at their next use); PowerShell's error for any other name.",
    params=[Param("Name", "strings", position=0, mandatory=True, pipeline="value")],
    examples=[("Remove-Module Foo -ErrorAction SilentlyContinue", "Nothing, and no error.")],
)
def remove_module(ctx: Invocation, *, name: list[str]) -> None:
    for module in name:
        if _loaded(ctx, module) is not None:
            continue
        _module_error(
            ctx,
            module,
            "No modules were removed. Verify that the specification of modules to remove is "
            "correct and those modules exist in the runspace.",
            "Modules_NoModulesRemoved",
        )


def _module_error(
    ctx: Invocation, module: str, message: str, error_id: str, exception: str = ""
) -> None:
    """PowerShell's error for a module it cannot find or remove (each name goes on)."""
    ctx.write_error(
        ErrorRecord(
            module,
            "",
            message,
            category="ResourceUnavailable",
            names_target=True,
            exception=exception,
            error_id=errorids.qualified(error_id, ctx.name),
        )
    )
