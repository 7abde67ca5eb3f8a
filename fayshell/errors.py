"""The one error hierarchy of fayshell.

Every error a user can cause derives from :class:`FayError`. Only the edges (REPL, script runner,
TUI) turn one into a red line, a message or an exit code; the core never prints.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, get_args

#: Where something failed on a node: TCP/SSH connect, authentication, host key check, running the
#: command, a connect/command timeout, an lttng command, a pulled chunk's verification, its
#: import, the inventory, decoding a trace.
Stage = Literal[
    "connect",
    "auth",
    "hostkey",
    "command",
    "timeout",
    "lttng",
    "verify",
    "import",
    "inventory",
    "decode",
    "agent",
]
STAGES: Final[tuple[Stage, ...]] = get_args(Stage)
CONNECT: Final = "connect"
AUTH: Final = "auth"
HOSTKEY: Final = "hostkey"
COMMAND: Final = "command"
TIMEOUT: Final = "timeout"
LTTNG: Final = "lttng"
VERIFY: Final = "verify"
AGENT: Final = "agent"

#: What a command does after a failed item (-ErrorAction, $ErrorActionPreference); Ignore is
#: SilentlyContinue that also keeps no record (PowerShell's ActionPreference).
ErrorAction = Literal["Stop", "Continue", "SilentlyContinue", "Ignore"]
ERROR_ACTIONS: Final[tuple[ErrorAction, ...]] = get_args(ErrorAction)
#: What -WarningAction, -InformationAction and -ProgressAction (and their preference variables)
#: may say; Inquire shows the item as Continue does (there is no one to ask in a script).
StreamAction = Literal["Continue", "SilentlyContinue", "Ignore", "Stop", "Inquire"]
STREAM_ACTIONS: Final[tuple[StreamAction, ...]] = get_args(StreamAction)
#: .NET's ActionPreference numbers, as scripts write them (``-ErrorAction 0``, ``-ea 0``).
ACTION_NUMBERS: Final = {
    "0": "SilentlyContinue",
    "1": "Stop",
    "2": "Continue",
    "3": "Inquire",
    "4": "Ignore",
}


def action_name(value: object) -> str:
    """An action preference's name: ``0`` is SilentlyContinue ... (other text unchanged)."""
    text = str(value).strip()
    return ACTION_NUMBERS.get(text, text)


class FayError(Exception):
    """Base of every error fayshell reports to a user as one clear line."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def one_line(self) -> str:
        """The error as a single line, suitable for a red line in the REPL or a script's stderr."""
        return self.message.replace("\n", " ")


@dataclass(frozen=True)
class SourceSpan:
    """Where something is in a script: file name, 1-based line and column, and the line's text."""

    file: str
    line: int
    col: int
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class ParseError(FayError):
    """The input is not valid fayshell syntax; carries the spot and what was expected."""

    def __init__(self, message: str, span: SourceSpan, expected: str = "") -> None:
        super().__init__(message)
        self.span = span
        self.expected = expected

    def one_line(self) -> str:
        exp = f" (expected {self.expected})" if self.expected else ""
        return f"{self.span}: {self.message}{exp}"

    def with_caret(self) -> str:
        """Location line, the offending source line and a caret under the column."""
        lines = [self.one_line()]
        if self.span.text:
            lines.append("    " + self.span.text)
            lines.append("    " + " " * (self.span.col - 1) + "^")
        return "\n".join(lines)


class UsageError(FayError):
    """A command-line option or argument is wrong (exit code 2, like a syntax error)."""


class IncompleteInput(ParseError):
    """The input ended inside a brace, parenthesis, string or after a trailing pipe.

    The REPL uses this to ask for a continuation line instead of reporting an error.
    """


#: PowerShell's ErrorCategory names ($_.CategoryInfo.Category; Write-Error -Category).
ERROR_CATEGORIES: Final = (
    "NotSpecified",
    "OpenError",
    "CloseError",
    "DeviceError",
    "DeadlockDetected",
    "InvalidArgument",
    "InvalidData",
    "InvalidOperation",
    "InvalidResult",
    "InvalidType",
    "MetadataError",
    "NotImplemented",
    "NotInstalled",
    "ObjectNotFound",
    "OperationStopped",
    "OperationTimeout",
    "SyntaxError",
    "ParserError",
    "PermissionDenied",
    "ResourceBusy",
    "ResourceExists",
    "ResourceUnavailable",
    "ReadError",
    "WriteError",
    "FromStdErr",
    "SecurityError",
    "ProtocolError",
    "ConnectionError",
    "AuthenticationError",
    "LimitsExceeded",
    "QuotaExceeded",
    "NotEnabled",
)


class RuntimeFayError(FayError):
    """An error while running a statement; the evaluator attaches where it happened.
    ``detail``: the error without the command (and parameter) it names, PowerShell's
    ``$_.Exception.Message``; the line a user sees names them first, as PowerShell's does."""

    span: SourceSpan | None = None
    #: The operator or .NET-convention error behind this one (a typed ``catch`` looks at it).
    cause: BaseException | None = None

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = message if detail is None else detail

    @property
    def partial_output(self) -> list[object]:
        """Output the failing block wrote before this error (shown first, or kept by a catch)."""
        if "_partial" not in self.__dict__:
            self._partial: list[object] = []
        return self._partial

    @partial_output.setter
    def partial_output(self, value: list[object]) -> None:
        self._partial = value

    def one_line(self) -> str:
        where = f"{self.span}: " if self.span is not None else ""
        return f"{where}{self.message}".replace("\n", " ")


class CommandNotFound(RuntimeFayError):
    """No cmdlet, alias or function has that name."""

    error_id = "CommandNotFoundException"


#: PowerShell's words for a name that is no command (``$_.Exception.Message``).
NOT_RECOGNIZED = (
    "The term '{}' is not recognized as a name of a cmdlet, function, script file, or "
    "executable program."
)


class ParameterError(RuntimeFayError):
    """A parameter is unknown, ambiguous, missing, or of the wrong type. ``error_id``:
    PowerShell's id for the kind of problem (NamedParameterNotFound, ...), "" for none."""

    def __init__(
        self,
        command: str,
        parameter: str | None,
        message: str,
        detail: str | None = None,
        error_id: str = "",
    ) -> None:
        where = f"{command}: " if parameter is None else f"{command} -{parameter}: "
        super().__init__(where + message, message if detail is None else detail)
        self.command = command
        self.parameter = parameter
        self.error_id = _qualified(error_id, command) if error_id else ""


def _qualified(error_id: str, command: str) -> str:
    from fayshell.errorids import qualified  # (not in the node agent's bundle)

    return qualified(error_id, command)


class CommandError(RuntimeFayError):
    """A cmdlet failed; names the command (and the node or file where that helps)."""

    def __init__(self, command: str, message: str) -> None:
        super().__init__(f"{command}: {message}", message)
        self.command = command


class ActionStopped(CommandError):
    """A command's error that -ErrorAction Stop made terminating inside a try block: the
    item's own message (PowerShell's ActionPreferenceStopException), and how many more
    failed when the command went on past it (a fan-out over nodes does)."""

    def __init__(
        self, command: str, message: str, category: str = "NotSpecified", target: str = ""
    ) -> None:
        RuntimeFayError.__init__(self, message)
        self.command = command
        self.category = category  # the first record's ($_.CategoryInfo.Category)
        self.target = target  # and its target ($_.TargetObject)
        self.exception = ""  # its .NET exception type ("": RuntimeException)
        self.error_id = ""  # its Write-Error -ErrorId

    @classmethod
    def of(cls, command: str, records: Sequence[object]) -> ActionStopped:
        more = f" ({len(records) - 1} more failed)" if len(records) > 1 else ""
        category = getattr(records[0], "category", "NotSpecified")
        made = cls(command, f"{records[0]}{more}", category, getattr(records[0], "target", ""))
        made.exception = getattr(records[0], "exception", "")  # its .NET type, if it has one
        from fayshell.errorids import of_record  # (not in the node agent's bundle)

        made.error_id = of_record(getattr(records[0], "error_id", ""), made.exception, command)
        return made


class UnknownProperty(RuntimeFayError):
    """A property a relation does not have: its columns are known, so a typo is an error.

    (Row-wise on plain records a missing property is $null, as in PowerShell.)
    """

    def __init__(self, name: str, columns: Sequence[str], span: SourceSpan | None = None) -> None:
        super().__init__(f"no property '{name}' on the relation{did_you_mean(name, columns)}")
        self.name = name
        self.span = span


def did_you_mean(name: str, choices: Sequence[str]) -> str:
    """``; did you mean X?`` for the closest choice, else the choices themselves."""
    lowered = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    if close:
        return f"; did you mean {lowered[close[0]]}?"
    shown = ", ".join(list(choices)[:12]) + (", ..." if len(choices) > 12 else "")
    return f" (its columns: {shown})" if choices else ""


class InternalError(RuntimeFayError):
    """A bug inside a cmdlet (a Python exception that no user input should cause).

    It is a FayError so that ``try/catch`` can catch it and the script stops with its place,
    but it reads "internal error" and the edge keeps its traceback in the crash log.
    """

    cause: BaseException  # always set: the Python exception behind the bug

    def __init__(self, command: str, cause: BaseException) -> None:
        super().__init__(f"internal error: {command}: {type(cause).__name__}: {cause}")
        self.command = command
        self.cause = cause


class SqlError(RuntimeFayError):
    """DuckDB rejected a query; carries DuckDB's own message, not a traceback."""


class Interrupted(FayError):
    """The user pressed Ctrl-C while a query ran; DuckDB stopped it and the database is intact."""

    def __init__(self) -> None:
        super().__init__("interrupted")


class RemoteError(FayError):
    """A remote operation failed on a node (connect, auth, hostkey, command, timeout)."""

    def __init__(self, node: str, stage: Stage, message: str) -> None:
        super().__init__(f"{node}: {stage}: {message}")
        self.node = node
        self.stage: Stage = stage


class InventoryError(FayError):
    """The inventory or ssh_config is wrong, or a node set cannot be resolved."""


class TraceFormatError(FayError):
    """A CTF trace is damaged or not understood; names the file and the byte offset."""

    def __init__(self, path: str, offset: int | None, message: str) -> None:
        where = path if offset is None else f"{path} @ byte {offset}"
        super().__init__(f"{where}: {message}")
        self.path = path
        self.offset = offset


class StoreError(FayError):
    """Loading into or querying the DuckDB store failed."""


def error_action(value: object) -> ErrorAction:
    """An -ErrorAction / $ErrorActionPreference value, spelled as declared (PowerShell compares
    it case-insensitively); anything else is a clear error."""
    text = action_name(value)
    for action in ERROR_ACTIONS:
        if action.lower() == text.lower():
            return action
    raise RuntimeFayError(f"ErrorAction {text!r} is not one of {', '.join(ERROR_ACTIONS)}")
