"""Feeds: where a view's data comes from and what "now" is.

A view never touches DuckDB itself. It asks its feed to ``refresh()`` (live: rotate, pull and
import new trace chunks; offline: just look at the data again) and to ``query(fn, ...)``, which
runs ``fn(cursor, ...)`` in a worker thread on the feed's own DuckDB cursor, one at a time.
"Now" is a property of the feed: the newest timestamp in the data for a post-mortem, the wall
clock when live. The cursor also holds the views' rollups (TEMP tables, see
:mod:`fayshell.views.queries.rollup`), so a feed lives as long as its view.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from fayshell.store.cursors import KeptCursor
from fayshell.views.queries.common import data_version

if TYPE_CHECKING:
    from fayshell.store.database import Database

T = TypeVar("T")


@dataclass(frozen=True)
class NodeHealth:
    """Whether one node answered the last pull, and why not."""

    node: str
    ok: bool
    message: str = ""


@dataclass
class FeedStatus:
    """What the feed is doing, for the status line: ``idle``, ``pulling``, ``error`` …"""

    state: str = "idle"
    message: str = ""
    refreshed_ns: int | None = None
    nodes: tuple[NodeHealth, ...] = ()

    @property
    def failing(self) -> tuple[NodeHealth, ...]:
        return tuple(n for n in self.nodes if not n.ok)


class Feed(Protocol):
    """What a view needs from its data source."""

    live: bool
    status: FeedStatus
    #: Changes whenever the data may have changed; a view re-queries only then (or when the
    #: user changes what is asked).
    version: int
    #: Banners to show above the view (e.g. a flight-recorder firing), or None.
    alerts: Callable[[], list[str]] | None

    def now_ns(self) -> int:
        """The reference instant windows end at."""
        ...

    def complete_ns(self) -> int | None:
        """Live: the instant up to which every answering node's data is in (rates end
        there); None when all data is in (offline) or it is not known yet."""
        ...

    async def refresh(self) -> FeedStatus:
        """Bring the data up to date (may take long; never blocks the event loop)."""
        ...

    async def query(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(cursor, *args)`` in a worker thread and return its result."""
        ...

    def close(self) -> None:
        """Release the cursor; the database itself belongs to the caller."""
        ...


@dataclass
class DatabaseFeed:
    """Common part: a cursor of its own on the database, used by one query at a time."""

    db: Database
    status: FeedStatus = field(default_factory=FeedStatus)
    live: bool = False
    version: int = 0
    #: Banners to show above the view (e.g. a flight-recorder firing); none by default.
    alerts: Callable[[], list[str]] | None = None
    _cursor: KeptCursor = field(init=False)

    def __post_init__(self) -> None:
        self._cursor = KeptCursor(self.db)

    def _run(self, fn: Callable[..., T], *args: Any) -> T:
        with self._cursor.use() as cur:
            return fn(cur, *args)

    async def query(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(self._run, fn, *args)

    def complete_ns(self) -> int | None:
        return None

    def close(self) -> None:
        self._cursor.close()


@dataclass
class OfflineFeed(DatabaseFeed):
    """A post-mortem over an existing database: refreshing only re-reads the newest timestamp."""

    _now: int | None = None

    def now_ns(self) -> int:
        return self._now if self._now is not None else time.time_ns()

    async def refresh(self) -> FeedStatus:
        self.status = FeedStatus("querying", "reading the database")
        newest, rows = await self.query(data_version)
        self._now = newest if newest is not None else self._now
        self.version = hash((newest, rows))
        message = "" if newest is not None else "no trace data in this database"
        self.status = FeedStatus("idle", message, refreshed_ns=time.time_ns())
        return self.status


#: One step of the live loop (rotate, pull, import), reporting per-node health.
Pump = Callable[[], Awaitable[tuple[NodeHealth, ...]]]


@dataclass
class LiveFeed(DatabaseFeed):
    """A running session: each refresh runs ``pump`` (rotate → pull → import), now = wall clock.

    The pump is the remote layer's job; the feed only reports progress and failures, and a
    failing pump leaves the view showing the data it already has.
    """

    pump: Pump | None = None
    live: bool = True
    clock: Callable[[], int] = time.time_ns

    def now_ns(self) -> int:
        return self.clock()

    def complete_ns(self) -> int | None:
        """What the pump says is complete (``pump.complete_ns()``), if it says."""
        horizon = getattr(self.pump, "complete_ns", None)
        return horizon() if callable(horizon) else None

    async def refresh(self) -> FeedStatus:
        self.version += 1  # the clock moved: every refresh is new data
        if self.pump is None:
            self.status = FeedStatus("idle", refreshed_ns=self.clock())
            return self.status
        self.status = FeedStatus("pulling", "rotate → pull → import", nodes=self.status.nodes)
        try:
            nodes = await self.pump()
        except Exception as exc:  # the view stays up with the data it has
            self.status = FeedStatus(
                "error",
                f"{type(exc).__name__}: {exc}",
                refreshed_ns=self.clock(),
                nodes=self.status.nodes,
            )
            return self.status
        down = [n.node for n in nodes if not n.ok]
        message = f"not answering: {', '.join(down)}" if down else ""
        self.status = FeedStatus("idle", message, refreshed_ns=self.clock(), nodes=nodes)
        return self.status
