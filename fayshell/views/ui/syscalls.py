"""Top system calls across the cluster, and the per-node / per-process breakdown of one row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static

from fayshell.views import format as fmt
from fayshell.views.feeds import Feed
from fayshell.views.model import WINDOW_LABELS, Query, SyscallStat
from fayshell.views.queries import syscalls as sq
from fayshell.views.ui.base import TopScreen
from fayshell.views.ui.table import Col, fill
from fayshell.views.ui.widgets import start_work

KEY_COLS: dict[str, Col] = {
    "name": Col("name", "SYSCALL"),
    "node": Col("node", "NODE"),
    "pid": Col("pid", "PID", str, numeric=True),
    "procname": Col("procname", "PROCESS"),
}


def metric_cols(approx: bool) -> list[Col]:
    """The numeric columns; ``≈`` marks the ones computed on a sample."""
    mark = "≈" if approx else ""
    return [
        Col("calls", "CALLS", fmt.count, numeric=True),
        Col("rate", "CALLS/S", fmt.rate, numeric=True),
        Col("total_ns", "TOTAL", fmt.duration, numeric=True),
        Col("avg_ns", "AVG", fmt.duration, numeric=True),
        Col("p95_ns", "P95" + mark, fmt.duration, numeric=True),
        Col("max_ns", "MAX", fmt.duration, numeric=True),
    ]


def syscall_cols(grouping: str, approx: bool = False, top_approx: bool = False) -> list[Col]:
    """Key columns of the grouping, the metrics, and the "top" column (≈: from a sample)."""
    g = sq.GROUPINGS[grouping]
    top = Col("top", g.top_label.upper() + ("≈" if top_approx else ""))
    return [KEY_COLS[k] for k in (*g.keys, *g.carried)] + metric_cols(approx) + [top]


class SyscallsScreen(TopScreen):
    """One row per syscall (or syscall × node, or process): calls, rate, time, top process."""

    VIEW = "syscalls"
    TABLE = "syscalls"
    TS = "ts_entry"
    GROUPINGS: ClassVar[dict[str, str]] = {k: g.label for k, g in sq.GROUPINGS.items()}
    FILTER_ALIASES = sq.FILTER_ALIASES
    FILTER_HINT = "/ filter: read  sys:open*  node:web0*  proc:nginx  pid:42   (Enter applies)"
    DEFAULT_SORT = "total_ns"

    def columns(self) -> Sequence[Col]:
        approx = any(r.approx for r in self.rows)
        top_approx = any(r.top_approx for r in self.rows)
        return syscall_cols(self.grouping, approx, top_approx)

    async def load(self, q: Query) -> list[Any]:
        return await self.feed.query(sq.syscall_stats, q)

    def drill(self, row: Any) -> None:
        if self.last_query is not None:
            self.app.push_screen(BreakdownScreen(self.feed, self.last_query, row, self.grouping))


def breakdown_of(
    row: SyscallStat, grouping: str
) -> tuple[tuple[tuple[str, str | int], ...], list[str], str]:
    """Exact-match conditions for the row, the groupings to break it down by, and a title."""
    keys = sq.GROUPINGS[grouping].keys
    eq = tuple((k, getattr(row, k)) for k in keys)
    if grouping == "process":
        return eq, ["syscall"], f"process {row.procname} (pid {row.pid}) on {row.node}"
    if grouping == "syscall_node":
        return eq, ["process"], f"syscall {row.name} on {row.node}"
    return eq, ["syscall_node", "process"], f"syscall {row.name}"


class BreakdownScreen(Screen[None]):
    """The selected row split per node and per process (or per syscall for a process)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "app.pop_screen", "Back"),
    ]
    DEFAULT_CSS = """
    BreakdownScreen DataTable { height: 1fr; }
    BreakdownScreen .title { background: $primary 30%; width: 1fr; }
    """

    def __init__(self, feed: Feed, q: Query, row: SyscallStat, grouping: str) -> None:
        super().__init__()
        self.feed = feed
        eq, self.groupings, self.title_text = breakdown_of(row, grouping)
        self.q = q.but(where_eq=eq, limit=200)
        self.results: dict[str, list[SyscallStat]] = {}

    def compose(self) -> ComposeResult:
        window = WINDOW_LABELS[self.q.window]
        yield Static(
            Text.assemble(
                ("breakdown of ", "bold"),
                (self.title_text, "bold cyan"),
                f"  {window} to {fmt.stamp(self.q.now_ns)}",
            ),
            id="header",
        )
        for g in self.groupings:
            yield Label(f" by {sq.GROUPINGS[g].label.removeprefix('per ')}", classes="title")
            yield DataTable(id=f"by-{g}", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        start_work(self, self._load, "breakdown")

    async def _load(self) -> None:
        for g in self.groupings:
            q = self.q.but(grouping=g, sort="total_ns", descending=True)
            rows = await self.feed.query(sq.syscall_stats, q)
            self.results[g] = rows
            fill(
                self.query_one(f"#by-{g}", DataTable),
                syscall_cols(g),
                rows,
                key=lambda r: r.key,
                sort="total_ns",
                descending=True,
            )
        self.query_one(DataTable).focus()
