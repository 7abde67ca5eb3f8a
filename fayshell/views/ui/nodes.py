"""Which node is not like the others, live: Compare-Node's scores over the view's window."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fayshell.views.model import Query
from fayshell.views.queries import nodes as nq
from fayshell.views.ui.base import TopScreen
from fayshell.views.ui.table import Col

NODE_COLS: list[Col] = [
    Col("node", "NODE"),
    Col("score", "SCORE", lambda v: f"{v:.1f}", numeric=True),
    Col("compared", "FEATURES", str, numeric=True),
    Col("features", "WHAT DIFFERS MOST"),
]


class NodesScreen(TopScreen):
    """Nodes most different from the median profile first (syscall mix and latency, span
    latency per service, log severities); the header's rates are system calls per node."""

    VIEW = "nodes"
    TABLE = "syscalls"
    TS = "ts_entry"
    FILTER_HINT = "(the nodes view compares whole nodes: -Node limits them)"
    DEFAULT_SORT = "score"

    def columns(self) -> Sequence[Col]:
        return NODE_COLS

    async def load(self, q: Query) -> list[Any]:
        return self.sort_rows(await self.feed.query(nq.node_scores, q))

    def row_style(self, row: Any) -> str:
        return "bold red" if row.score >= 10 else ""
