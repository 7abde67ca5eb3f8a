"""The records a fan-out produces: one per node, as each node finishes.

Every per-node operation ends in exactly one of :class:`CommandResult` (the command ran; any
exit status), :class:`NodeOutcome` (a custom per-node coroutine returned a value) or
:class:`NodeError` (the node failed at some :data:`STAGES` stage). A failed node never holds up
the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fayshell.errors import AUTH, COMMAND, CONNECT, HOSTKEY, STAGES, TIMEOUT, Stage

__all__ = [
    "AUTH",
    "COMMAND",
    "CONNECT",
    "HOSTKEY",
    "STAGES",
    "TIMEOUT",
    "CommandResult",
    "GatheredResult",
    "NodeError",
    "NodeOutcome",
    "OutputLine",
    "Stage",
]


@dataclass(frozen=True)
class CommandResult:
    """A command that ran to completion on one node (``exit_status`` may be non-zero).

    ``exit_status`` is -1 when the command was ended by a signal (``signal`` names it).
    """

    node: str
    exit_status: int
    stdout: str
    stderr: str
    duration_ms: float
    signal: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_status == 0


@dataclass(frozen=True)
class NodeError:
    """A node that failed: where (``stage``, one of :data:`STAGES`) and a one-line message."""

    node: str
    stage: Stage
    message: str

    def __str__(self) -> str:
        return f"{self.node}: {self.stage}: {self.message}"


@dataclass(frozen=True)
class NodeOutcome:
    """The value a per-node coroutine returned (see :meth:`Cluster.map`)."""

    node: str
    value: Any
    duration_ms: float = 0.0


@dataclass(frozen=True)
class OutputLine:
    """One line of output as it arrived (``Invoke-Command -Stream``); ``stream`` is stdout/stderr."""

    node: str
    stream: str
    line: str

    def __str__(self) -> str:
        return f"{self.node}: {self.line}"


@dataclass(frozen=True)
class GatheredResult:
    """Nodes whose results were identical, folded into one node set (``clush -b`` style)."""

    nodes: str
    count: int
    exit_status: int
    stdout: str
    stderr: str
