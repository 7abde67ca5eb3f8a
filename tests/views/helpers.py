"""Driving a view with textual's pilot and reading what it shows."""

from __future__ import annotations

import os
import tempfile
from contextlib import suppress
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from textual.worker import WorkerCancelled, WorkerState

from fayshell.views.feeds import Feed
from fayshell.views.launch import TopConfig
from fayshell.views.ui.app import TopApp

SNAPSHOTS = Path(__file__).parent / "snapshots"


def make_app(feed: Feed, view: str, periodic: bool = False, **config: Any) -> TopApp:
    """An app with query timings hidden, so screens are deterministic, and no timer."""
    return TopApp(feed, TopConfig(view, **config), show_timings=False, periodic=periodic)


async def settle(pilot: Pilot[Any]) -> None:
    """Let pending messages and every worker (the queries) finish, including ones they start."""
    for _ in range(50):
        await pilot.pause()
        busy = [
            w for w in pilot.app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ]
        if not busy:
            break
        with suppress(WorkerCancelled):  # a newer query replaced it: loop for that one
            await pilot.app.workers.wait_for_complete(busy)
    await pilot.pause()


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press keys in order (a newer query replaces an older one), then settle once."""
    await pilot.press(*keys)
    await settle(pilot)


def rows(app: TopApp, selector: str = "#table") -> list[list[str]]:
    """The cells of a table on the current screen, as plain text."""
    table = app.screen.query_one(selector, DataTable)
    return [
        [str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)
    ]


def column(app: TopApp, index: int, selector: str = "#table") -> list[str]:
    return [r[index] for r in rows(app, selector)]


def text_of(app: TopApp, selector: str) -> str:
    """The plain text of a Static on the current screen."""
    widget = app.screen.query_one(selector, Static)
    return str(getattr(widget.render(), "plain", widget.render()))


async def check_snapshot(pilot: Pilot[Any], name: str) -> None:
    """Compare the screen's SVG with the committed one; FAY_UPDATE_SNAPSHOTS=1 rewrites it.

    Waits until tables have measured their columns (they do it when idle) before the shot.
    """
    await settle(pilot)
    for _ in range(3):
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.05)
    svg = pilot.app.export_screenshot(title=name)
    path = SNAPSHOTS / f"{name}.svg"
    if os.environ.get("FAY_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        return
    assert path.exists(), f"no snapshot {path.name}; run with FAY_UPDATE_SNAPSHOTS=1"
    expected = path.read_text(encoding="utf-8")
    if svg != expected:
        actual = Path(tempfile.gettempdir()) / f"{name}.actual.svg"
        actual.write_text(svg, encoding="utf-8")
        raise AssertionError(f"{name}: screen differs from {path.name}; see {actual}")
