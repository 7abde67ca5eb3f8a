"""What a cmdlet receives when it runs: the shell state, its pipeline input and common settings."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from fayshell.errors import CommandError, ErrorAction, Stage
from fayshell.host import ProgressTask
from fayshell.lang.values import ErrorCategoryInfo, ErrorRecordValue, ExceptionValue

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

    def __str__(self) -> str:
        where = f"{self.target}: " if self.target else ""
        stage = f"{self.stage}: " if self.stage else ""
        return f"{where}{stage}{self.message}"


def record_value(record: ErrorRecord) -> ErrorRecordValue:
    """A non-terminating error as PowerShell's ErrorRecord (in $Error, -ErrorVariable)."""
    error_id = f"{record.command},{record.stage}" if record.stage else record.command
    info = ErrorCategoryInfo(record.category, record.command, "RuntimeException", record.target)
    return ErrorRecordValue(ExceptionValue(str(record)), record.target or None, "", error_id, info)


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
    error_action: ErrorAction = "Stop"
    errors: list[ErrorRecord] = field(default_factory=list)
    #: The -ErrorVariable list, when one was named: each error is added to it as it happens.
    error_sink: list[Any] | None = None
    #: Inside a try block: errors under Stop are the try's to catch, not shown here.
    caught: bool = False

    @property
    def name(self) -> str:
        return self.spec.name

    def write_verbose(self, message: str) -> None:
        """A note shown only with -Verbose (e.g. the SQL a pipeline compiled to)."""
        if self.verbose:
            self.state.host.verbose(message)

    def write_warning(self, message: str) -> None:
        self.state.host.warning(f"{self.name}: {message}")

    def write_error(self, record: ErrorRecord) -> None:
        """Report a non-terminating error; the command goes on with the other items."""
        if not record.command:
            record = dataclasses.replace(record, command=self.name)
        self.errors.append(record)
        stopped = self.caught and self.error_action == "Stop"  # the catch shows and keeps it
        if self.error_action not in ("SilentlyContinue", "Ignore") and not stopped:
            self.state.host.error(f"{self.name}: {record}")
        value = record_value(record)
        if self.error_sink is not None:
            self.error_sink.append(value)
        if self.error_action != "Ignore" and not stopped:  # $Error keeps what is not shown
            self.state.remember_error(value)

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask:
        return self.state.host.progress(description, total, unit)

    def fail(self, message: str) -> CommandError:
        """A terminating error for this command, to be raised by the caller."""
        return CommandError(self.name, message)
