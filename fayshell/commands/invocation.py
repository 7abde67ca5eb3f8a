"""What a cmdlet receives when it runs: the shell state, its pipeline input and common settings."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from fayshell import errorids
from fayshell.errors import (
    STREAM_ACTIONS,
    CommandError,
    ErrorAction,
    SourceSpan,
    Stage,
    StreamAction,
    action_name,
)
from fayshell.host import Host, NullProgress, ProgressTask
from fayshell.lang.ops import to_string
from fayshell.lang.values import (
    DebugRecord,
    ErrorCategoryInfo,
    ErrorRecordValue,
    ExceptionValue,
    InformationRecord,
    VerboseRecord,
    WarningRecord,
)

if TYPE_CHECKING:
    from fayshell.commands.registry import Cmdlet
    from fayshell.state import ShellState


#: Where an item failed: a node's stage, reading a file, or nothing more to say ("").
RecordStage = Stage | Literal["read", ""]


@dataclass(frozen=True)
class ErrorRecord:
    """A non-terminating error: one node, file or item failed while the others went on."""

    target: str
    stage: RecordStage
    message: str
    command: str = ""
    #: PowerShell's ErrorCategory name ($_.CategoryInfo.Category): ObjectNotFound, ...
    category: str = "NotSpecified"
    #: The message names the target itself (PowerShell's words): the line does not repeat it.
    names_target: bool = False
    #: The .NET exception type behind it, as ``$_.Exception.GetType()`` and ``catch [T]`` see
    #: it ("": a RuntimeException).
    exception: str = ""
    #: ``$_.FullyQualifiedErrorId``'s first part (Write-Error -ErrorId), else the command's.
    error_id: str = ""

    def __str__(self) -> str:
        where = f"{self.target}: " if self.target and not self.names_target else ""
        stage = f"{self.stage}: " if self.stage else ""
        return f"{where}{stage}{self.message}"


@dataclass(frozen=True)
class ShouldProcess:
    """-WhatIf and -Confirm of one call, and what they do to a change it is about to make."""

    host: Host
    what_if: bool = False
    confirm: bool = False
    #: Where a change that goes ahead is told under -Verbose ("Performing the operation ..."),
    #: as PowerShell's ShouldProcess; None: not told.
    verbose: Callable[[str], None] | None = None

    def ask(self, target: str, action: str) -> bool:
        """May the change go ahead? Under -WhatIf it is only described ("What if: ..."); under
        -Confirm the user is asked; otherwise yes."""
        operation = f'Performing the operation "{action}" on target "{target}".'
        return self.ask_described(operation, operation)

    def ask_described(self, description: str, question: str) -> bool:
        if self.what_if:
            self.host.write_host(f"What if: {description}")
            return False
        go = self.host.confirm(question) if self.confirm else True
        if go and self.verbose is not None:
            self.verbose(description)
        return go


class ScriptCmdlet:
    """``$PSCmdlet`` of an advanced function (``[CmdletBinding()]``); ShouldProcess honours
    -WhatIf and -Confirm when it is declared SupportsShouldProcess."""

    def __init__(
        self,
        name: str,
        asks: ShouldProcess,
        throw: Callable[[Any], NoReturn],
        parameter_set: str = "__AllParameterSets",
        variable: Callable[[str], Any] = lambda name: None,
    ) -> None:
        self.name = name
        self.asks = asks
        self.throw = throw
        self.ParameterSetName = parameter_set  # the set the call's arguments resolved to
        self.variable = variable  # a variable as the function's scope sees it

    @property
    def MyInvocation(self) -> Any:  # noqa: N802 - .NET property name
        return self.variable("MyInvocation")

    def WriteObject(self, value: Any, enumerate: Any = False) -> Any:  # noqa: N802
        """Output ``value``: a method call's value is what its statement writes (an array
        as one object unless ``enumerate``)."""
        return value if enumerate or not isinstance(value, list) else [value]

    def WriteVerbose(self, message: Any) -> None:  # noqa: N802 - .NET method name
        if action_name(self.variable("VerbosePreference")).lower() == "continue":
            self.asks.host.verbose(to_string(message))

    def WriteDebug(self, message: Any) -> None:  # noqa: N802 - .NET method name
        if action_name(self.variable("DebugPreference")).lower() == "continue":
            self.asks.host.debug(to_string(message))

    def ThrowTerminatingError(self, record: Any) -> NoReturn:  # noqa: N802 - .NET name
        """Stop the function with ``record`` (an ErrorRecord, as ``throw`` would)."""
        self.throw(record)

    def WriteError(self, record: Any) -> None:  # noqa: N802 - .NET method name
        self.asks.host.error(f"{self.name}: {record}")

    def WriteWarning(self, message: Any) -> None:  # noqa: N802 - .NET method name
        self.asks.host.warning(str(message))

    def ShouldProcess(  # noqa: N802 - .NET method name
        self, target: Any, action: Any = None, caption: Any = None
    ) -> bool:
        """(target), (target, action), or (description, question, caption) as .NET has them."""
        if caption is not None:
            return self.asks.ask_described(str(target), str(action))
        return self.asks.ask(str(target), self.name if action is None else str(action))

    def ShouldContinue(self, query: Any, caption: Any = None, *rest: Any) -> bool:  # noqa: N802
        return self.asks.host.confirm(str(query))


def stopped_by(preference: str, text: str) -> str:
    """PowerShell's ActionPreferenceStopException message: a warning or an information
    message under Stop ends the command."""
    return (
        f'The running command stopped because the preference variable "{preference}" or '
        f"common parameter is set to Stop: {text}"
    )


def record_value(record: ErrorRecord) -> ErrorRecordValue:
    """A non-terminating error as PowerShell's ErrorRecord (in $Error, -ErrorVariable)."""
    kind = record.exception or "System.Management.Automation.RuntimeException"
    error_id = errorids.of_record(record.error_id, kind, record.command)
    if not error_id:  # fayshell's own: the command, and the stage on a node that failed
        error_id = f"{record.command},{record.stage}" if record.stage else record.command
    reason = kind.rsplit(".", 1)[-1]
    info = ErrorCategoryInfo(record.category, record.command, reason, record.target)
    exception = ExceptionValue(str(record), kind)
    return ErrorRecordValue(exception, record.target or None, "", error_id, info)


@dataclass
class Collected:
    """What a call's -ErrorVariable, -WarningVariable and -InformationVariable keep: a
    function's also what the commands inside it write."""

    errors: list[Any] = field(default_factory=list)
    warnings: list[Any] = field(default_factory=list)
    information: list[Any] = field(default_factory=list)


#: The streams a redirection can take besides output (about_Redirection): 2 error,
#: 3 warning, 4 verbose, 5 debug, 6 information; ``*`` names them all (and output).
STREAMS: tuple[str, ...] = ("2", "3", "4", "5", "6")


@dataclass
class Capture:
    """A redirection in force while commands run (``2>&1``, ``3>$null``, ``*>file``): what
    they write on the streams it takes is kept here, as (stream, record) in the order
    written, instead of shown."""

    streams: frozenset[str]
    records: list[tuple[str, Any]] = field(default_factory=list)

    def of(self, stream: str) -> list[Any]:
        """The records of ``stream`` ("*": of every stream it took)."""
        return [r for s, r in self.records if stream in ("*", s)]


@dataclass
class Invocation:
    """One call of a cmdlet.

    ``input`` is None when the cmdlet starts a pipeline, otherwise the upstream output: an
    iterable of records (possibly an async iterator) or a Relation.
    """

    state: ShellState
    spec: Cmdlet
    input: Any = None
    verbose: bool = False
    #: -Debug: its Write-Debug notes are shown.
    debug: bool = False
    error_action: ErrorAction = "Stop"
    #: -WarningAction, -InformationAction and -ProgressAction as given (None: the preference
    #: variable the caller sees decides).
    warning_action: StreamAction | None = None
    information_action: StreamAction | None = None
    progress_action: StreamAction | None = None
    errors: list[ErrorRecord] = field(default_factory=list)
    #: Where its errors, warnings and information go as they happen besides the screen: its
    #: own -XxxVariable's, then those of the functions it runs in.
    collected: list[Collected] = field(default_factory=list)
    #: Inside a try block: errors under Stop are the try's to catch, not shown here.
    caught: bool = False
    #: -WhatIf (or $WhatIfPreference) and -Confirm of a command that changes something.
    what_if: bool = False
    confirm: bool = False
    #: The redirections it runs under, the innermost first (see :meth:`captured`).
    captures: list[Capture] = field(default_factory=list)
    #: Where in a script it was called (None: not by a script's line).
    at: SourceSpan | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def captured(self, stream: str, record: Any) -> bool:
        """Did a redirection take ``record``, written on ``stream`` ("2" to "6")? Else it is
        shown."""
        for capture in self.captures:
            if stream in capture.streams:
                capture.records.append((stream, record))
                return True
        return False

    def write_verbose(self, message: str) -> None:
        """A note shown only with -Verbose (e.g. the SQL a pipeline compiled to)."""
        if self.verbose:
            self.show_verbose(message)

    def show_verbose(self, message: str) -> None:
        if not self.captured("4", VerboseRecord(message)):
            self.state.host.verbose(message)

    def show_debug(self, message: str) -> None:
        if not self.captured("5", DebugRecord(message)):
            self.state.host.debug(message)

    def write_warning(self, message: str) -> None:
        """A warning of this command (its name first)."""
        self.warn(f"{self.name}: {message}")

    def warn(self, text: str) -> None:
        """A warning as -WarningAction (else $WarningPreference) says: shown under Continue
        and Inquire, kept in -WarningVariable unless Ignore, a terminating error under Stop."""
        action = self.warning_action or self.preference("WarningPreference", "Continue")
        if action != "Ignore":
            for c in self.collected:
                c.warnings.append(text)
        if action == "Stop":
            raise CommandError(self.name, stopped_by("WarningPreference", text))
        if action in ("Continue", "Inquire") and not self.captured("3", WarningRecord(text)):
            self.state.host.warning(text)

    def inform(self, message: Any, shown: bool = False) -> None:
        """An information message (Write-Information; Write-Host's, ``shown``, always are):
        kept in -InformationVariable, shown as -InformationAction (else
        $InformationPreference, SilentlyContinue by default) says."""
        action = self.information_action or self.preference(
            "InformationPreference", "SilentlyContinue"
        )
        if action != "Ignore":
            for c in self.collected:
                c.information.append(message)
        if action == "Stop" and not shown:
            raise CommandError(self.name, stopped_by("InformationPreference", to_string(message)))
        if action not in ("Continue", "Inquire") or shown:
            return
        if not self.captured("6", InformationRecord(message)):
            self.state.host.write_host(to_string(message))

    def write_host(self, text: str, color: str | None = None, newline: bool = True) -> None:
        """A Write-Host line: shown unless a redirection (6>&1, *>$null) takes it, and on the
        information stream too (-InformationVariable)."""
        if not self.captured("6", InformationRecord(text)):
            self.state.host.write_host(text, color, newline)
        self.inform(text, shown=True)

    def preference(self, name: str, default: str) -> str:
        """A preference variable as the calling scope sees it (a function's -WarningAction sets
        it in the function), spelled as PowerShell's actions are; ``default`` when unset."""
        found, value = self.state.scope_now.lookup(name)
        text = action_name(value).lower() if found and value is not None else ""
        return next((a for a in STREAM_ACTIONS if a.lower() == text), default)

    def write_error(self, record: ErrorRecord) -> None:
        """Report a non-terminating error; the command goes on with the other items."""
        if not record.command:
            record = dataclasses.replace(record, command=self.name)
        self.errors.append(record)
        stopped = self.caught and self.error_action == "Stop"  # the catch shows and keeps it
        value = record_value(record)
        taken = not stopped and self.error_action != "Ignore" and self.captured("2", value)
        if self.error_action not in ("SilentlyContinue", "Ignore") and not (stopped or taken):
            self.state.host.error(f"{self.name}: {record}")
        for c in self.collected:
            c.errors.append(value)
        if self.error_action != "Ignore" and not stopped:  # $Error keeps what is not shown
            self.state.remember_error(value)

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask:
        """A progress bar, unless -ProgressAction (else $ProgressPreference) is
        SilentlyContinue or Ignore."""
        action = self.progress_action or self.preference("ProgressPreference", "Continue")
        if action in ("SilentlyContinue", "Ignore"):
            return NullProgress()
        return self.state.host.progress(description, total, unit)

    def should_process(self, target: str, action: str) -> bool:
        """May this command change ``target`` (``action``: PowerShell's words, "Remove File")?
        Every change a should_process cmdlet makes asks first."""
        asks = ShouldProcess(self.state.host, self.what_if, self.confirm, self.write_verbose)
        return asks.ask(target, action)

    def fail(self, message: str) -> CommandError:
        """A terminating error for this command, to be raised by the caller."""
        return CommandError(self.name, message)
