"""The frame every top view shares: header, node sparklines, filter box, table, status line.

A subclass says which table it reads, its columns per grouping, how to load rows through the
feed and what selecting a row opens. The base class owns the refresh cycle: every interval
(unless paused) the feed refreshes, then the queries run in worker threads via the feed, and
only their results touch the widgets, so keys stay responsive while DuckDB works.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from fayshell.views import format as fmt
from fayshell.views.feeds import Feed
from fayshell.views.filters import parse_filter
from fayshell.views.launch import TopConfig
from fayshell.views.model import (
    NS,
    WINDOW_LABELS,
    WINDOWS,
    Filter,
    Header,
    NodeRate,
    Query,
    sort_rows,
)
from fayshell.views.queries import common
from fayshell.views.ui.table import Col, current_key, fill
from fayshell.views.ui.widgets import RatesPanel, start_work


class TopScreen(Screen[None]):
    """Base of the syscalls, spans and logs screens."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pause", "Pause"),
        Binding("w", "window", "Window"),
        Binding("g", "group", "Group"),
        Binding("slash", "filter", "Filter"),
        Binding("less_than_sign", "sort(-1)", "Sort", key_display="<>"),
        Binding("greater_than_sign", "sort(1)", "Sort right", show=False),
        Binding("r", "reverse", "Rev"),
        Binding("e", "rates", "Rates", show=False),
        Binding("escape", "unfilter", "Clear", show=False),
    ]

    VIEW = ""
    TABLE = ""
    TS = ""
    GROUPINGS: ClassVar[dict[str, str]] = {}
    FILTER_ALIASES: ClassVar[dict[str, tuple[str, ...]]] = {}
    FILTER_HINT = ""
    DEFAULT_SORT = ""

    def __init__(self, feed: Feed, config: TopConfig) -> None:
        super().__init__()
        self.feed = feed
        self.config = config
        self.window = config.window or ("minute" if feed.live else "session")
        #: Offline: first and last timestamp of this view's table in scope (None: no data).
        self.data_range: tuple[int, int] | None = None
        self._range_version: int | None = None
        self.grouping = next(iter(self.GROUPINGS), "")
        self.sort = self.DEFAULT_SORT
        self.descending = True
        self.filter = Filter()
        self.paused = False
        self.frozen_now: int | None = None
        self.rows: list[Any] = []
        self.header_data = Header()
        self.rates: list[NodeRate] = []
        self.last_query: Query | None = None
        self.query_ms = 0.0
        self.error = ""
        self.filter_error = ""
        self._feed_busy = False
        self._query_busy = False
        self._tick_missed = False
        self._query_seq = 0
        self._version_shown: int | None = None
        self.queries_done = 0

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        yield RatesPanel(id="rates")
        yield Input(placeholder=self.FILTER_HINT, id="filter", compact=True)
        yield DataTable(id="table", cursor_type="row", zebra_stripes=True)
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.table.focus()
        if getattr(self.app, "periodic", True):
            self.set_interval(self.config.interval_ns / NS, self.tick)
        self.show_header()
        self.tick()

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one("#table", DataTable)

    # -- what a view supplies -------------------------------------------------------------

    def columns(self) -> Sequence[Col]:
        raise NotImplementedError

    async def load(self, q: Query) -> list[Any]:
        """Rows for ``q``, fetched through ``self.feed.query`` (never on the event loop)."""
        raise NotImplementedError

    def drill(self, row: Any) -> None:
        """Open what selecting ``row`` shows; nothing by default."""

    def sort_rows(self, rows: list[Any]) -> list[Any]:
        return sort_rows(rows, self.sort, self.descending)

    def row_style(self, row: Any) -> str:
        return ""

    def header_extra(self) -> Text | None:
        return None

    # -- refresh cycle --------------------------------------------------------------------

    def current_query(self) -> Query:
        """Live, windows end at the feed's now; offline, where this view's own data ends
        (whatever else the database holds) and rates are over the data's time."""
        start = None if self.feed.live or self.data_range is None else self.data_range[0]
        if self.paused and self.frozen_now and self.last_query is not None:
            now, complete = self.frozen_now, self.last_query.rate_end_ns
        elif start is not None and self.data_range is not None:
            now, complete = self.data_range[1], None
        else:
            now, complete = self.feed.now_ns(), self.feed.complete_ns()
        return Query(
            now_ns=now,
            interval_ns=self.config.interval_ns,
            window=self.window,
            grouping=self.grouping,
            filter=self.filter,
            scope=self.config.scope,
            sort=self.sort,
            descending=self.descending,
            rate_end_ns=complete,
            data_start_ns=start,
        )

    def tick(self) -> None:
        """Timer: refresh the feed, then the rows; skipped while paused. A tick that comes
        while the last one is still working runs as soon as it is done (a slow refresh
        then paces the view, instead of every other tick being lost)."""
        if self.paused or not self.is_active:
            return
        if self._feed_busy or self._query_busy:
            self._tick_missed = True
            return
        self._tick_missed = False
        self._feed_busy = True
        start_work(self, self._refresh_feed, "feed")

    async def _refresh_feed(self) -> None:
        try:
            await self.feed.refresh()
            if not self.feed.live and self.feed.version != self._range_version:
                self.data_range = await self.feed.query(
                    common.table_range, self.TABLE, self.config.scope
                )
                self._range_version = self.feed.version
        finally:
            self._feed_busy = False
        if self._gone():
            return
        unchanged = (
            self.feed.version == self._version_shown and self.current_query() == self.last_query
        )
        if unchanged:
            self.show_status()
            self._catch_up()
        elif not self.paused:
            self.requery()

    def _catch_up(self) -> None:
        """Run the tick that came while busy, now that the work is done."""
        if self._tick_missed and getattr(self.app, "periodic", True):
            self._tick_missed = False
            self.call_later(self.tick)

    def requery(self) -> None:
        """Run the queries again now; a newer request cancels one still running."""
        self._query_busy = True
        self._query_seq += 1
        work = partial(self._requery, self.current_query(), self.feed.version, self._query_seq)
        start_work(self, work, "query")

    async def _requery(self, q: Query, version: int, seq: int) -> None:
        self.show_status("querying…")
        started = time.perf_counter()
        try:
            if self.TABLE not in await self.feed.query(common.existing_tables):
                self.error = f"no {self.TABLE} table in this database yet"
                self.show_status()
                return
            rows = await self.load(q)
            header = await self.feed.query(common.header, q, self.TABLE, self.TS)
            rates = await self.feed.query(common.node_rates, q, self.TABLE, self.TS)
        except Exception as exc:  # a failed query is shown, the view stays up
            self.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
            self.show_status()
            return
        finally:
            if seq == self._query_seq:  # not when a newer query replaced this one
                self._query_busy = False
                self._catch_up()
        if self._gone():
            return
        self.error = ""
        self._version_shown = version
        self.queries_done += 1
        self.query_ms = (time.perf_counter() - started) * 1000
        self.last_query, self.rows, self.header_data, self.rates = q, rows, header, rates
        self.show_rows()
        self.show_header()
        panel = self.query_one(RatesPanel)
        panel.border_title = f"events/s per node, {fmt.duration(common.bucket_ns(q))} buckets"
        panel.show(rates, q.now_ns, common.reporting_window_ns(q), self.down_nodes())
        self.show_status()

    # -- drawing --------------------------------------------------------------------------

    def _gone(self) -> bool:
        """Whether the view was taken down while a worker awaited (q, or the app quitting):
        its widgets are gone and there is nothing left to draw."""
        return not self.query("#status")

    def show_rows(self) -> None:
        fill(
            self.table,
            self.columns(),
            self.rows,
            key=lambda r: r.key,
            sort=self.sort,
            descending=self.descending,
            style=self.row_style,
        )

    def show_header(self) -> None:
        self.query_one("#header", Static).update(self.header_text())

    def header_text(self) -> Text:
        h, q = self.header_data, self.last_query
        mode = "PAUSED" if self.paused else "live" if self.feed.live else "offline"
        scope = self.config.scope
        title = Text.assemble(
            ("fayshell top ", "bold"),
            (self.VIEW, "bold cyan"),
            f"  {scope.session or 'all sessions'}",
            f"  now {fmt.stamp(q.now_ns) if q else '-'}  ",
            (f"[{mode}]", "bold reverse yellow" if self.paused else "bold green"),
        )
        reporting, total = self.node_counts()
        stats = Text.assemble(
            f"nodes {reporting}/{total}  ",
            f"{fmt.rate(h.events_per_s)} ev/s  ",
            self.lag_text(),
            "  discarded ",
            (str(h.discarded), "bold red" if h.discarded else ""),
            f" ({h.lost_packets} pkt lost)" if h.lost_packets else "",
        )
        down = self.down_nodes()
        if down:
            stats.append(f"  not answering: {', '.join(sorted(down))}", style="bold red")
        lines = [title, stats, self.settings_text()]
        alerts = getattr(self.feed, "alerts", None)
        lines += [Text(a, style="bold reverse red") for a in (alerts() if alerts else [])]
        extra = self.header_extra()
        if extra is not None:
            lines.append(extra)
        return Text("\n").join(lines)

    def node_counts(self) -> tuple[int, int]:
        """Nodes reporting / in scope; live, a node that answered the last pull reports even
        when its chunks held no events (an idle node is not a down node)."""
        h = self.header_data
        polled = self.feed.status.nodes if self.feed.live else ()
        answered = sum(1 for n in polled if n.ok)
        return max(h.nodes_reporting, answered), max(h.nodes_total, len(polled))

    def lag_text(self) -> Text:
        """Live: how far the data is behind the clock. Offline there is no clock to be behind:
        where the view's data starts and how long it lasts ("now" in the title is its end)."""
        if not self.feed.live:
            if self.data_range is None:
                return Text("no data")
            first, last = self.data_range
            start = fmt.clock(first, millis=last - first < 60 * NS)
            return Text(f"data from {start} ({fmt.duration(last - first)})")
        lag = self.header_data.lag_ns
        style = "bold red" if (lag or 0) > 5 * self.config.interval_ns else ""
        return Text.assemble("lag ", (fmt.ago(lag), style))

    def down_nodes(self) -> dict[str, str]:
        """Nodes the live feed could not reach on its last refresh, with the reason."""
        return {n.node: n.message for n in self.feed.status.failing}

    def settings_text(self) -> Text:
        order = "▼" if self.descending else "▲"
        label = next((c.label for c in self.columns() if c.attr == self.sort), self.sort)
        parts = [
            f"window: {WINDOW_LABELS[self.window]}",
            f"every {fmt.duration(self.config.interval_ns)}",
        ]
        if self.GROUPINGS:
            parts.append(self.GROUPINGS[self.grouping])
        parts.append(f"sort: {label} {order}")
        if self.filter.text:
            parts.append(f"filter: {self.filter.text}")
        return Text("  ".join(parts), style="dim")

    def show_status(self, busy: str = "") -> None:
        if self._gone():
            return
        status = self.feed.status
        parts: list[Text] = []
        if busy:
            parts.append(Text(busy, style="italic"))
        if status.state not in ("idle", "querying"):
            parts.append(Text(f"{status.state}…", style="italic"))
        for error in (self.filter_error, self.error):
            if error:
                parts.append(Text(error, style="bold red"))
        if status.message and not self.error:
            parts.append(Text(status.message, style="yellow"))
        if not busy:
            parts.append(Text(f"{len(self.rows)} row{'' if len(self.rows) == 1 else 's'}"))
            if getattr(self.app, "show_timings", True):
                parts.append(Text(f"query {self.query_ms:.0f} ms"))
        self.query_one("#status", Static).update(Text("  ·  ").join(parts))

    # -- keys -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No group key in views without groupings."""
        return bool(self.GROUPINGS) or action != "group"

    def action_pause(self) -> None:
        self.paused = not self.paused
        self.frozen_now = self.last_query.now_ns if self.paused and self.last_query else None
        self.show_header()
        if not self.paused:
            self.tick()

    def action_window(self) -> None:
        self.window = WINDOWS[(WINDOWS.index(self.window) + 1) % len(WINDOWS)]
        self.show_header()
        self.requery()

    def action_group(self) -> None:
        if not self.GROUPINGS:
            return
        names = list(self.GROUPINGS)
        self.grouping = names[(names.index(self.grouping) + 1) % len(names)]
        if self.sort not in {c.attr for c in self.columns()}:
            self.sort = self.DEFAULT_SORT
        self.rows = []
        self.show_rows()
        self.show_header()
        self.requery()

    def action_sort(self, step: int) -> None:
        attrs = [c.attr for c in self.columns()]
        pos = attrs.index(self.sort) if self.sort in attrs else 0
        self.set_sort(attrs[(pos + step) % len(attrs)])

    def set_sort(self, attr: str, descending: bool | None = None) -> None:
        """Sort by a column now (on the rows at hand) and in the next queries."""
        if descending is None:
            numeric = next((c.numeric for c in self.columns() if c.attr == attr), True)
            descending = numeric
        self.sort, self.descending = attr, descending
        self.rows = self.sort_rows(self.rows)
        self.show_rows()
        self.show_header()
        self.requery()

    def action_reverse(self) -> None:
        self.set_sort(self.sort, not self.descending)

    def action_rates(self) -> None:
        self.query_one(RatesPanel).toggle_class("-hidden")

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_unfilter(self) -> None:
        box = self.query_one("#filter", Input)
        if box.has_focus:
            box.value = self.filter.text
            self.filter_error = ""
            self.show_status()
            self.table.focus()

    @on(Input.Submitted, "#filter")
    def apply_filter(self, event: Input.Submitted) -> None:
        try:
            self.filter = parse_filter(event.value, self.FILTER_ALIASES)
        except ValueError as exc:
            self.filter_error = str(exc)
            self.show_status()
            return
        self.filter_error = ""
        self.table.focus()
        self.show_header()
        self.requery()

    @on(DataTable.HeaderSelected, "#table")
    def header_clicked(self, event: DataTable.HeaderSelected) -> None:
        attr = str(event.column_key.value)
        if attr == self.sort:
            self.set_sort(attr, not self.descending)
        else:
            self.set_sort(attr)

    @on(DataTable.RowSelected, "#table")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        key = event.row_key.value
        row = next((r for r in self.rows if r.key == key), None)
        if row is not None:
            self.drill(row)

    def selected_row(self) -> Any | None:
        key = current_key(self.table)
        return next((r for r in self.rows if r.key == key), None)
