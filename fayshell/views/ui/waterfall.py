"""One trace as a waterfall across services and nodes, with the key/values of a span."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from fayshell.views import format as fmt
from fayshell.views.feeds import Feed
from fayshell.views.model import TraceSpan
from fayshell.views.queries import spans as spq
from fayshell.views.ui.table import Col, fill
from fayshell.views.ui.widgets import start_work

BAR_WIDTH = 32
SERVICE_COLORS = ("cyan", "magenta", "green", "yellow", "blue", "bright_red", "bright_cyan")


def bar(span: TraceSpan, start_ns: int, total_ns: int, width: int = BAR_WIDTH) -> str:
    """``   ████      ``: where the span sits within the trace, ``width`` cells wide."""
    total = max(total_ns, 1)
    left = min(width - 1, (span.start_ns - start_ns) * width // total)
    length = max(1, round(span.dur_ns * width / total))
    length = min(length, width - left)
    return " " * left + "█" * length + " " * (width - left - length)


def label(span: TraceSpan) -> str:
    """The span name indented by its depth in the trace tree."""
    return "  " * span.depth + ("└ " if span.depth else "") + span.name


class WaterfallScreen(Screen[None]):
    """Every span of one trace in tree order; the highlighted span's details underneath."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "app.pop_screen", "Back"),
    ]
    DEFAULT_CSS = """
    WaterfallScreen #details { height: auto; max-height: 8; padding: 0 1;
                               border-top: solid $primary 40%; }
    """

    def __init__(self, feed: Feed, trace_id: int, session: str | None = None) -> None:
        super().__init__()
        self.feed, self.trace_id, self.session = feed, trace_id, session
        self.spans: list[TraceSpan] = []

    def compose(self) -> ComposeResult:
        yield Static(
            Text.assemble(("trace ", "bold"), (fmt.span_id(self.trace_id), "bold cyan")),
            id="header",
        )
        yield DataTable(id="table", cursor_type="row")
        yield Static("", id="details")
        yield Footer()

    def on_mount(self) -> None:
        start_work(self, self._load, "waterfall")

    async def _load(self) -> None:
        self.spans = await self.feed.query(spq.trace_spans, self.trace_id, self.session)
        if not self.spans:
            self.query_one("#details", Static).update("no spans for this trace")
            return
        start = min(s.start_ns for s in self.spans)
        total = max(s.start_ns + s.dur_ns for s in self.spans) - start
        services = sorted({s.service for s in self.spans})
        colors = {svc: SERVICE_COLORS[i % len(SERVICE_COLORS)] for i, svc in enumerate(services)}
        self._show_header(start, total)
        name_width = max(len(label(s)) for s in self.spans)
        width = self.bar_width(name_width)
        cols = [
            Col("label", "SPAN", width=name_width),
            Col("service", "SERVICE"),
            Col("node", "NODE"),
            Col("offset", "+START", fmt.duration, numeric=True),
            Col("dur_ns", "DURATION", fmt.duration, numeric=True),
            Col("bar", "WATERFALL", width=width),
        ]
        rows = waterfall_rows(self.spans, start, total, width)
        table = self.query_one(DataTable)
        fill(
            table,
            cols,
            rows,
            key=lambda r: str(r.span.span_id),
            sort="",
            descending=False,
            style=lambda r: "bold red" if r.span.error else colors[r.span.service],
        )
        table.focus()
        self.show_details(self.spans[0])

    def bar_width(self, name_width: int) -> int:
        """What the screen leaves for the bars after the other columns (and their padding)."""
        services = max(len(s.service) for s in self.spans)
        nodes = max(len(s.node) for s in self.spans)
        used = name_width + max(services, 7) + max(nodes, 4) + 8 + 8 + 12 + 2
        return max(12, min(BAR_WIDTH * 3, self.size.width - used))

    def _show_header(self, start: int, total: int) -> None:
        nodes = sorted({s.node for s in self.spans})
        services = sorted({s.service for s in self.spans})
        text = Text.assemble(
            ("trace ", "bold"),
            (fmt.span_id(self.trace_id), "bold cyan"),
            f"  {fmt.clock(start, millis=True)} UTC  {fmt.duration(total)}  ",
            f"{len(self.spans)} spans  {len(services)} services  {len(nodes)} nodes",
        )
        self.query_one("#header", Static).update(text)

    @on(DataTable.RowHighlighted)
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        span = next((s for s in self.spans if str(s.span_id) == event.row_key.value), None)
        if span is not None:
            self.show_details(span)

    def show_details(self, span: TraceSpan) -> None:
        self.query_one("#details", Static).update(details_text(span))


def details_text(span: TraceSpan) -> Text:
    """Where the span ran, its client/server times, key/values and annotations."""
    where = f"{span.ip}:{span.port}" if span.ip else "-"
    lines = [
        Text.assemble(
            (f"{span.service} {span.name}", "bold"),
            f"  span {span.span_id}",
            f"  parent {span.parent_span_id or '-'}  node {span.node} {where}",
            f"  client {fmt.duration(span.client_dur_ns)} server {fmt.duration(span.server_dur_ns)}",
            ("  ERROR" if span.error else "", "bold red"),
        )
    ]
    if span.keyvals:
        lines.append(Text("  ".join(f"{k}={v}" for k, v in span.keyvals), style="green"))
    if span.annotations:
        lines.append(
            Text(
                "  ".join(f"{v}@{fmt.clock(ts, millis=True)}" for ts, v in span.annotations),
                style="dim",
            )
        )
    return Text("\n").join(lines)


@dataclass(frozen=True)
class WaterfallRow:
    """A span as a waterfall row: the attributes the columns read."""

    span: TraceSpan
    label: str
    service: str
    node: str
    offset: int
    dur_ns: int
    bar: str


def waterfall_rows(
    spans: list[TraceSpan], start: int, total: int, width: int = BAR_WIDTH
) -> list[WaterfallRow]:
    """Rows for spans already in tree order, offsets relative to the trace start."""
    return [
        WaterfallRow(
            s,
            label(s),
            s.service,
            s.node,
            s.start_ns - start,
            s.dur_ns,
            bar(s, start, total, width),
        )
        for s in spans
    ]
