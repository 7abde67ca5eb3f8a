"""SVG snapshots pin the layout of each screen at 80x24 (and one wide screen).

The committed files live in tests/views/snapshots/; ``FAY_UPDATE_SNAPSHOTS=1 pytest
tests/views/test_snapshots.py`` rewrites them after a deliberate change (look at them first).
"""

from __future__ import annotations

import pytest

from fayshell.views.feeds import OfflineFeed
from tests.views.helpers import check_snapshot, make_app, press, settle


@pytest.mark.parametrize(
    ("view", "keys", "size"),
    [
        ("syscalls", (), (80, 24)),  # offline: the data's whole range, the default
        ("syscalls", ("g",), (120, 30)),
        ("spans", (), (80, 24)),
        ("logs", (), (80, 24)),
        ("syscalls", ("w", "w"), (80, 24)),  # the last minute of the data
    ],
)
async def test_main_screens(
    feed: OfflineFeed, view: str, keys: tuple[str, ...], size: tuple[int, int]
) -> None:
    app = make_app(feed, view)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, *keys)
        await check_snapshot(
            pilot, f"{view}{'-' + ''.join(keys) if keys else ''}-{size[0]}x{size[1]}"
        )


async def test_waterfall_screen(feed: OfflineFeed) -> None:
    app = make_app(feed, "spans", window="session")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "enter", "down")
        await check_snapshot(pilot, "waterfall-80x24")


async def test_breakdown_screen(feed: OfflineFeed) -> None:
    app = make_app(feed, "syscalls")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        await check_snapshot(pilot, "breakdown-80x24")
