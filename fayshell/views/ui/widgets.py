"""Small widgets shared by the views (the per-node events/s sparklines), and how a view starts
its background work."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.dom import DOMNode
from textual.widgets import Label, Sparkline
from textual.worker import Worker

from fayshell.views import format as fmt
from fayshell.views.model import NodeRate


def start_work(
    node: DOMNode, work: Callable[[], Coroutine[Any, Any, None]], group: str
) -> Worker[None]:
    """Run ``work`` as the only worker of ``group`` (a newer one cancels it). It is handed over
    uncalled: a worker cancelled before it starts then leaves no coroutine never awaited."""
    return node.run_worker(work, group=group, exclusive=True)


class NodeRateRow(Horizontal):
    """``web01 ▂▃▅▇█▅ 1.2k/s``: one node's recent events/s."""

    DEFAULT_CSS = """
    NodeRateRow { height: 1; }
    NodeRateRow > .node { width: 10; }
    NodeRateRow > Sparkline { width: 1fr; margin: 0 1 0 0; }
    NodeRateRow > .rate { width: 22; text-align: right; }
    """

    def __init__(
        self, rate: NodeRate, now_ns: int, silent_after_ns: int, down: str | None = None
    ) -> None:
        super().__init__()
        self.node = rate.node
        self._first = (rate, now_ns, silent_after_ns, down)

    def compose(self) -> ComposeResult:
        rate, now_ns, silent_after_ns, down = self._first
        yield Label(self.node, classes="node")
        yield Sparkline(list(rate.rates), summary_function=max)
        yield Label(rate_text(rate, now_ns, silent_after_ns, down), classes="rate")

    def show(
        self, rate: NodeRate, now_ns: int, silent_after_ns: int, down: str | None = None
    ) -> None:
        self.query_one(Sparkline).data = list(rate.rates)
        self.query_one(".rate", Label).update(rate_text(rate, now_ns, silent_after_ns, down))


def rate_text(rate: NodeRate, now_ns: int, silent_after_ns: int, down: str | None = None) -> Text:
    """Current events/s, how long the node has been silent, or that it does not answer."""
    if down is not None:
        return Text("not answering", style="bold white on red")
    if rate.last_seen_ns is None:
        return Text("no data", style="bold red")
    quiet = now_ns - rate.last_seen_ns
    if quiet > silent_after_ns:
        return Text(f"silent {fmt.ago(quiet)}", style="bold red")
    return Text(f"{fmt.rate(rate.last_rate)} ev/s")


class RatesPanel(VerticalScroll):
    """Events/s per node, one sparkline each; rebuilt when the set of nodes changes."""

    DEFAULT_CSS = """
    RatesPanel { height: auto; max-height: 5; border-top: solid $primary 40%;
                 border-title-color: $text-muted; }
    RatesPanel.-hidden { display: none; }
    """

    def show(
        self,
        rates: Sequence[NodeRate],
        now_ns: int,
        silent_after_ns: int,
        down: Mapping[str, str] | None = None,
    ) -> None:
        """One row per node with data, plus nodes that do not answer (``down``: node → why)."""
        down = down or {}
        have = {r.node for r in rates}
        rates = [*rates, *(NodeRate(n, (), 0.0, None) for n in sorted(down) if n not in have)]
        rows = list(self.query(NodeRateRow))
        if [r.node for r in rows] != [r.node for r in rates]:
            self.remove_children()
            self.mount_all(
                [NodeRateRow(r, now_ns, silent_after_ns, down.get(r.node)) for r in rates]
            )
            return
        for row, rate in zip(rows, rates, strict=True):
            row.show(rate, now_ns, silent_after_ns, down.get(rate.node))
