"""What a cmdlet receives when it runs: the shell state, its pipeline input and common settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from fayshell.errors import CommandError, ErrorAction, Stage
from fayshell.host import ProgressTask

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

    def __str__(self) -> str:
        where = f"{self.target}: " if self.target else ""
        stage = f"{self.stage}: " if self.stage else ""
        return f"{where}{stage}{self.message}"


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
            record = ErrorRecord(record.target, record.stage, record.message, self.name)
        self.errors.append(record)
        if self.error_action not in ("SilentlyContinue", "Ignore"):
            self.state.host.error(f"{self.name}: {record}")

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask:
        return self.state.host.progress(description, total, unit)

    def fail(self, message: str) -> CommandError:
        """A terminating error for this command, to be raised by the caller."""
        return CommandError(self.name, message)
