"""Span latencies per (service, span name), and the slowest traces through a chosen one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from fayshell.views import format as fmt
from fayshell.views.feeds import Feed
from fayshell.views.model import WINDOW_LABELS, Query, SpanStat, TraceSummary
from fayshell.views.queries import spans as spq
from fayshell.views.ui.base import TopScreen
from fayshell.views.ui.table import Col, fill
from fayshell.views.ui.widgets import start_work

KEY_COLS: dict[str, Col] = {
    "service": Col("service", "SERVICE"),
    "name": Col("name", "SPAN"),
    "node": Col("node", "NODE"),
}
METRIC_COLS: list[Col] = [
    Col("count", "COUNT", fmt.count, numeric=True),
    Col("rate", "RATE/S", fmt.rate, numeric=True),
    Col("p50_ns", "P50", fmt.duration, numeric=True),
    Col("p95_ns", "P95", fmt.duration, numeric=True),
    Col("p99_ns", "P99", fmt.duration, numeric=True),
    Col("max_ns", "MAX", fmt.duration, numeric=True),
    Col("errors", "ERR", fmt.count, numeric=True),
]
TRACE_COLS: list[Col] = [
    Col("trace_id", "TRACE", fmt.span_id),
    Col("span_dur_ns", "SPAN", fmt.duration, numeric=True),
    Col("dur_ns", "TRACE DUR", fmt.duration, numeric=True),
    Col("start_ns", "START (UTC)", lambda ns: fmt.clock(ns, millis=True)),
    Col("spans", "SPANS", str, numeric=True),
    Col("services", "SERVICES", ",".join),
    Col("nodes", "NODES", ",".join),
    Col("error", "ERR", lambda e: "yes" if e else ""),
]


def approx_col(col: Col) -> Col:
    """A percentile column marked ``≈`` (the others unchanged)."""
    if col.attr not in ("p50_ns", "p95_ns", "p99_ns"):
        return col
    return replace(col, label=col.label + "≈")


class SpansScreen(TopScreen):
    """One row per (service, span name): count, rate, p50/p95/p99/max, errors."""

    VIEW = "spans"
    TABLE = "spans"
    TS = "ts_start"
    GROUPINGS: ClassVar[dict[str, str]] = {k: g.label for k, g in spq.GROUPINGS.items()}
    FILTER_ALIASES = spq.FILTER_ALIASES
    FILTER_HINT = "/ filter: get*  service:api  span:db.*  node:web01   (Enter applies)"
    DEFAULT_SORT = "p95_ns"

    def columns(self) -> Sequence[Col]:
        keys = [KEY_COLS[k] for k in spq.GROUPINGS[self.grouping].keys]
        if getattr(self.feed, "approx_percentiles", False):  # from merged node histograms
            return keys + [approx_col(c) for c in METRIC_COLS]
        return keys + METRIC_COLS

    async def load(self, q: Query) -> list[Any]:
        return await self.feed.query(spq.span_stats, q)

    def row_style(self, row: Any) -> str:
        return "red" if row.errors else ""

    def drill(self, row: Any) -> None:
        if self.last_query is not None:
            self.app.push_screen(TracesScreen(self.feed, self.last_query, row))


class TracesScreen(Screen[None]):
    """The slowest traces containing the chosen span; Enter opens a trace's waterfall."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "app.pop_screen", "Back"),
    ]

    def __init__(self, feed: Feed, q: Query, row: SpanStat) -> None:
        super().__init__()
        self.feed, self.q, self.row = feed, q, row
        self.traces: list[TraceSummary] = []

    def compose(self) -> ComposeResult:
        what = " / ".join(p for p in (self.row.service, self.row.name, self.row.node) if p)
        yield Static(
            Text.assemble(
                ("slowest traces through ", "bold"),
                (what, "bold cyan"),
                f"  {WINDOW_LABELS[self.q.window]}",
            ),
            id="header",
        )
        yield DataTable(id="table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        start_work(self, self._load, "traces")

    async def _load(self) -> None:
        r = self.row
        self.traces = await self.feed.query(spq.slowest_traces, self.q, r.service, r.name, r.node)
        table = self.query_one(DataTable)
        fill(
            table,
            TRACE_COLS,
            self.traces,
            key=lambda t: str(t.trace_id),
            sort="span_dur_ns",
            descending=True,
            style=lambda t: "red" if t.error else "",
        )
        self.query_one("#status", Static).update(f"{len(self.traces)} traces  ·  Enter: waterfall")
        table.focus()

    @on(DataTable.RowSelected)
    def open_trace(self, event: DataTable.RowSelected) -> None:
        from fayshell.views.ui.waterfall import WaterfallScreen

        trace_id = int(str(event.row_key.value))
        self.app.push_screen(WaterfallScreen(self.feed, trace_id, self.q.scope.session))
