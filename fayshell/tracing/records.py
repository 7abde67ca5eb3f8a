"""The typed records the trace cmdlets return, one per node (or per chunk)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TraceResult:
    """What one session command did on one node (create, enable, start, rotate...)."""

    node: str
    session: str
    action: str
    detail: str = ""


@dataclass(frozen=True)
class TraceSessionStatus:
    """One session on one node as `lttng --mi xml list` shows it (Get-TraceSession).

    ``diverged`` is True when this node's state, channels or events differ from the majority of
    the session's nodes, or the node lost the session (``state`` = ``missing``).
    """

    node: str
    session: str
    state: str
    mode: str
    output: str
    channels: str
    events: str
    chunks: int
    in_progress: int = 0
    diverged: bool = False


@dataclass(frozen=True)
class ReceivedChunk:
    """A chunk pulled from a node, verified and renamed into place (Receive-Trace)."""

    node: str
    session: str
    chunk_id: str
    kind: str
    files: int
    bytes: int
    path: str
    events: int | None = None  # loaded by -Import; None when not imported


@dataclass
class SessionMemo:
    """What the shell remembers of a session it created: its nodes and per-node output dirs."""

    name: str
    nodes: list[str]
    mode: str = "normal"
    outputs: dict[str, str] = field(default_factory=dict)
    destroyed: set[str] = field(default_factory=set)  # nodes Remove-TraceSession cleared
    #: The session's own rotation period (New-TraceSession -Rotate 1s), nanoseconds.
    rotate_timer_ns: int | None = None

    @property
    def removed(self) -> bool:
        """Destroyed on every node (its outputs stay, for Receive-Trace)."""
        return set(self.nodes) <= self.destroyed

    def __str__(self) -> str:
        return f"{self.name} ({self.mode}) on {len(self.nodes)} node(s)"
