"""The log stream at or above a severity, coloured by severity, with counts per severity."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from fayshell.views import format as fmt
from fayshell.views.feeds import Feed
from fayshell.views.launch import TopConfig
from fayshell.views.model import SEVERITIES, LogPage, Query, severity_rank
from fayshell.views.queries import logs as lq
from fayshell.views.ui.base import TopScreen
from fayshell.views.ui.table import Col

SEVERITY_STYLES: dict[str, str] = {
    "Emergency": "bold white on red",
    "Alert": "bold white on red",
    "Critical": "bold red",
    "Error": "red",
    "Warning": "yellow",
    "Notice": "cyan",
    "Info": "",
    "Debug": "dim",
}
SHORT: dict[str, str] = {
    "Emergency": "Emerg",
    "Alert": "Alert",
    "Critical": "Crit",
    "Error": "Err",
    "Warning": "Warn",
    "Notice": "Notice",
    "Info": "Info",
    "Debug": "Debug",
}
LOG_COLS: list[Col] = [
    Col("ts", "TIME (UTC)", lambda ns: fmt.clock(ns, millis=True)),
    Col("node", "NODE"),
    Col("severity", "SEVERITY"),
    Col("logger", "LOGGER"),
    Col("msg", "MESSAGE"),
]


class LogsScreen(TopScreen):
    """Newest records last; follows the stream unless ``f`` turns following off."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("plus", "severity(1)", "More", key_display="+"),
        Binding("minus", "severity(-1)", "Less", key_display="-"),
        Binding("f", "follow", "Follow"),
    ]
    VIEW = "logs"
    TABLE = "logs"
    TS = "ts"
    FILTER_ALIASES = lq.FILTER_ALIASES
    FILTER_HINT = "/ filter: storage.*  node:web01  logger:api.*  msg:timeout   (Enter applies)"
    DEFAULT_SORT = "ts"

    def __init__(self, feed: Feed, config: TopConfig) -> None:
        super().__init__(feed, config)
        self.severity = config.severity
        self.descending = False
        self.follow = True
        self.page = LogPage((), (), 0)

    def columns(self) -> Sequence[Col]:
        return LOG_COLS

    async def load(self, q: Query) -> list[Any]:
        self.page = await self.feed.query(lq.log_page, q, self.severity)
        return self.sort_rows(list(self.page.records))

    def row_style(self, row: Any) -> str:
        return SEVERITY_STYLES.get(row.severity, "")

    def show_rows(self) -> None:
        super().show_rows()
        if self.follow and self.table.row_count:
            last = self.table.row_count - 1 if not self.descending else 0
            self.table.move_cursor(row=last, animate=False)

    def header_extra(self) -> Text:
        parts: list[Text] = []
        threshold = severity_rank(self.severity)
        for sev, n in self.page.counts or tuple((s, 0) for s in SEVERITIES):
            style = SEVERITY_STYLES[sev] if severity_rank(sev) <= threshold else "dim"
            parts.append(Text(f"{SHORT[sev]} {n}", style=style or "default"))
        shown = Text(f"≥ {self.severity}{'' if self.follow else ' (paused scroll)'}", style="bold")
        return Text("  ").join([shown, *parts])

    def action_severity(self, step: int) -> None:
        rank = min(max(severity_rank(self.severity) + step, 0), len(SEVERITIES) - 1)
        self.severity = SEVERITIES[rank]
        self.show_header()
        self.requery()

    def action_follow(self) -> None:
        self.follow = not self.follow
        self.show_header()
        self.show_rows()
