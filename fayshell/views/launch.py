"""Starting a view: its settings and the coroutine that runs it until the user quits.

No textual at import time: the app module loads inside :func:`run_view`, so the shell's
startup stays light.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fayshell.views.model import NS, WINDOWS, Scope, canonical_severity
from fayshell.vocabulary import VIEWS

if TYPE_CHECKING:
    from fayshell.views.feeds import Feed


@dataclass(frozen=True)
class TopConfig:
    """What a view starts with; keys change window, grouping, sort and filter afterwards."""

    view: str
    scope: Scope = field(default_factory=Scope)
    interval_ns: int = NS
    severity: str = "Warning"
    #: None: the last minute when live, the data's whole time range offline.
    window: str | None = None
    title: str = ""

    def __post_init__(self) -> None:
        if self.view not in VIEWS:
            raise ValueError(f"unknown view {self.view!r} (one of {', '.join(VIEWS)})")
        if self.window is not None and self.window not in WINDOWS:
            raise ValueError(f"unknown window {self.window!r} (one of {', '.join(WINDOWS)})")
        if self.interval_ns < NS // 10:
            raise ValueError("the interval must be at least 100ms")
        object.__setattr__(self, "severity", canonical_severity(self.severity))


async def run_view(feed: Feed, config: TopConfig, *, headless: bool = False) -> int:
    """Run the view on the current event loop; returns when the user quits (0) or it fails."""
    from fayshell.views.ui.app import TopApp

    app = TopApp(feed, config)
    await app.run_async(headless=headless)
    return app.return_code or 0
