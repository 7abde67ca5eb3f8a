"""What the views ask for and what they get back: plain dataclasses, no textual, no DuckDB."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from fayshell.lang.values import DURATION_UNITS
from fayshell.vocabulary import SEVERITIES

R = TypeVar("R")

NS = DURATION_UNITS["s"]


#: Window names, in the order the window key cycles through them.
WINDOWS: tuple[str, ...] = ("interval", "minute", "session")
WINDOW_LABELS = {"interval": "last interval", "minute": "last minute", "session": "whole session"}


def severity_rank(name: str) -> int:
    """0 for Emergency … 7 for Debug; unknown words rank as Debug."""
    low = name.lower()
    for i, word in enumerate(SEVERITIES):
        if word.lower() == low:
            return i
    return len(SEVERITIES) - 1


def sort_rows(rows: Sequence[R], column: str, descending: bool) -> list[R]:
    """Rows (dataclasses with a ``key``) sorted by a field, None last, ties by key ascending."""
    ordered = sorted(rows, key=lambda r: getattr(r, "key", ""))

    def value(r: R) -> Any:
        v = getattr(r, column, None)
        return (v is not None, v if v is not None else 0)

    return sorted(ordered, key=value, reverse=descending)


def canonical_severity(name: str) -> str:
    """``warning`` -> ``Warning``; raises ValueError for a word that is not a severity."""
    for word in SEVERITIES:
        if word.lower() == name.strip().lower():
            return word
    raise ValueError(f"unknown severity {name!r} (one of {', '.join(SEVERITIES)})")


@dataclass(frozen=True)
class Scope:
    """What the whole view is restricted to, fixed when it starts (-Session, -Node)."""

    session: str | None = None
    nodes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Filter:
    """The filter box, parsed: field -> globs (any of them matches); ``text`` is what was typed."""

    text: str = ""
    globs: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def get(self, name: str) -> tuple[str, ...]:
        for key, values in self.globs:
            if key == name:
                return values
        return ()


@dataclass(frozen=True)
class Query:
    """One request of a view: time range, grouping, filter, sort and the row limit."""

    now_ns: int
    interval_ns: int = NS
    window: str = "minute"
    grouping: str = ""
    filter: Filter = field(default_factory=Filter)
    scope: Scope = field(default_factory=Scope)
    sort: str = ""
    descending: bool = True
    limit: int = 500
    where_eq: tuple[tuple[str, str | int], ...] = ()
    #: Live: the instant up to which every answering node's data is in; rates are measured
    #: over the interval ending there, not at the wall clock (whose last interval is partial).
    rate_end_ns: int | None = None
    #: Offline: where the data (of the view's table, in scope) starts; ``now_ns`` is where it
    #: ends. Rates are then measured over the whole window's data time, not the last interval.
    data_start_ns: int | None = None

    @property
    def rate_hi_ns(self) -> int:
        """End of the interval rates are measured over."""
        return self.now_ns if self.rate_end_ns is None else min(self.rate_end_ns, self.now_ns)

    @property
    def rate_lo_ns(self) -> int:
        """Start (exclusive) of the interval rates are measured over: live the last interval,
        offline the window clipped to where the data starts."""
        if self.data_start_ns is None:
            return self.rate_hi_ns - self.interval_ns
        first = self.data_start_ns - 1  # rates count ts > rate_lo_ns: the first event is in
        lo = self.lo_ns
        return first if lo is None else max(lo, first)

    @property
    def rate_s(self) -> float:
        """Length of the rate interval in seconds (what counts are divided by)."""
        return max(self.rate_hi_ns - self.rate_lo_ns, 1) / NS

    @property
    def lo_ns(self) -> int | None:
        """Start of the window, or None for the whole session."""
        if self.window == "interval":
            return self.now_ns - self.interval_ns
        if self.window == "minute":
            return self.now_ns - 60 * NS
        return None

    @property
    def interval_s(self) -> float:
        return self.interval_ns / NS

    def but(self, **changes: object) -> Query:
        """A copy with some fields changed."""
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Header:
    """The header line: who reports, how fast, how late, what was lost."""

    nodes_reporting: int = 0
    nodes_total: int = 0
    events_per_s: float = 0.0
    newest_ns: int | None = None
    lag_ns: int | None = None
    discarded: int = 0
    lost_packets: int = 0


@dataclass(frozen=True)
class NodeRate:
    """Events per second of one node over the recent buckets, oldest first."""

    node: str
    rates: tuple[float, ...]
    last_rate: float
    last_seen_ns: int | None


@dataclass(frozen=True)
class SyscallStat:
    """One row of the syscalls view; the key fields not used by the grouping are None."""

    name: str | None
    node: str | None
    pid: int | None
    procname: str | None
    calls: int
    rate: float
    total_ns: int
    avg_ns: float
    p95_ns: float | None
    max_ns: int
    top: str | None
    approx: bool = False
    top_approx: bool = False

    @property
    def key(self) -> str:
        parts = (self.name, self.node, self.pid, self.procname)
        return "\x1f".join("" if p is None else str(p) for p in parts)


@dataclass(frozen=True)
class SpanStat:
    """One row of the spans view: a (service, span name) pair, optionally per node."""

    service: str | None
    name: str | None
    node: str | None
    count: int
    rate: float
    p50_ns: float | None
    p95_ns: float | None
    p99_ns: float | None
    max_ns: int
    errors: int

    @property
    def key(self) -> str:
        return "\x1f".join("" if p is None else p for p in (self.service, self.name, self.node))


@dataclass(frozen=True)
class TraceSummary:
    """One of the slowest traces through a chosen span."""

    trace_id: int
    span_dur_ns: int
    start_ns: int
    dur_ns: int
    spans: int
    services: tuple[str, ...]
    nodes: tuple[str, ...]
    error: bool


@dataclass(frozen=True)
class TraceSpan:
    """One bar of a waterfall: a span with its depth in the trace tree."""

    span_id: int
    parent_span_id: int | None
    depth: int
    service: str
    node: str
    name: str
    ip: str | None
    port: int | None
    start_ns: int
    dur_ns: int
    client_dur_ns: int | None
    server_dur_ns: int | None
    error: bool
    keyvals: tuple[tuple[str, str], ...] = ()
    annotations: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class LogRecord:
    """One log line of the logs view."""

    ts: int
    node: str
    severity: str
    logger: str
    msg: str
    procname: str | None
    pid: int | None
    func: str | None
    line: int | None
    dup: int = 0

    @property
    def key(self) -> str:
        return f"{self.ts}\x1f{self.node}\x1f{self.logger}\x1f{self.msg}\x1f{self.dup}"


@dataclass(frozen=True)
class LogPage:
    """The records shown and the per-severity counts in the same window."""

    records: tuple[LogRecord, ...]
    counts: tuple[tuple[str, int], ...]
    total: int
