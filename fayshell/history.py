"""The session history Get-History shows: one entry per input the shell ran (a REPL line,
a ``-c`` command, a script), with its status and times, recorded when it ends."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fayshell.lang.dates import DateTime, duration_of
from fayshell.lang.preferences import MAXIMUM_HISTORY_COUNT
from fayshell.lang.values import Duration
from fayshell.render import FixedTable

T = TypeVar("T")


@dataclass(frozen=True)
class HistoryInfo:
    """One history entry, with PowerShell's property names."""

    Id: int
    Duration: Duration
    CommandLine: str
    ExecutionStatus: str = field(repr=False, default="Completed")
    StartExecutionTime: DateTime | None = field(repr=False, default=None)
    EndExecutionTime: DateTime | None = field(repr=False, default=None)

    TYPE_NAME = "Microsoft.PowerShell.Commands.HistoryInfo"

    def __str__(self) -> str:
        return self.CommandLine

    #: PowerShell's table of history: Id 4 wide, Duration 12 (as short as it reads: s.fff,
    #: m:ss.fff, h:mm:ss.fff), CommandLine.
    TABLE_VIEW = FixedTable(("Id", "Duration", "CommandLine"), (4, 12, 0), (True, True, False))

    def view_cells(self) -> list[str]:
        return [str(self.Id), _took(self.Duration), self.CommandLine]


def _took(span: int) -> str:
    """A duration (ns) as PowerShell's history view writes it."""
    ms_total = int(span) // 1_000_000
    hours, rest = divmod(ms_total, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, ms = divmod(rest, 1000)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}.{ms:03d}"
    if minutes:
        return f"{minutes}:{seconds:02d}.{ms:03d}"
    return f"{seconds}.{ms:03d}"


@dataclass
class History:
    """The entries of one shell, oldest first; ids keep counting when old ones drop off."""

    entries: list[HistoryInfo] = field(default_factory=list)
    next_id: int = 1

    def add(
        self,
        command_line: str,
        status: str,
        start: DateTime,
        end: DateTime,
        keep: int = MAXIMUM_HISTORY_COUNT,
    ) -> HistoryInfo:
        """Record an entry; the oldest go once there are more than ``keep``."""
        took = duration_of(end.naive() - start.naive())
        entry = HistoryInfo(self.next_id, took, command_line, status, start, end)
        self.next_id += 1
        self.entries.append(entry)
        del self.entries[: -max(keep, 1)]
        return entry

    async def track(
        self,
        command_line: str,
        work: Awaitable[T],
        keep: Callable[[], int] = lambda: MAXIMUM_HISTORY_COUNT,
    ) -> T:
        """Await ``work`` (running ``command_line``) and record how it ended, keeping the
        newest ``keep()`` entries ($MaximumHistoryCount when it ended)."""
        start, status = DateTime.local_now(), "Failed"
        try:
            result: Any = await work
            status = "Completed"
            return result
        except BaseException as exc:
            if type(exc).__name__ in ("CancelledError", "KeyboardInterrupt"):
                status = "Stopped"
            raise
        finally:
            if command_line.strip():
                self.add(command_line.rstrip("\n"), status, start, DateTime.local_now(), keep())

    def get(self, ident: int) -> HistoryInfo | None:
        return next((e for e in self.entries if e.Id == ident), None)
