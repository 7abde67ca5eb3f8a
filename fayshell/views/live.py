"""The live feed's pump: per node, rotate → pull → import in the background.

Each node runs its own cycle (``lttng rotate``, then :func:`fayshell.tracing.receive.receive_node`
with the store loader as importer) as a task that outlives one refresh: a call to the pump
starts a cycle on every node that has none running, waits at most ``wait_s`` for them (not for
nodes already shown as not answering), and reports per-node health. A node that hangs keeps its
task (bounded by ``node_timeout_s``) and is shown as not answering once it has been silent
``stall_s``; the other nodes keep cycling. Imports run one at a time in a worker thread, so the
event loop (and the view) never waits on decoding.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.lttng.chunks import ArchiveWatch
from fayshell.memory import give_back
from fayshell.views.feeds import NodeHealth

if TYPE_CHECKING:
    from fayshell.remote.cluster import Cluster
    from fayshell.remote.inventory import NodeSpec
    from fayshell.remote.transport import Transport
    from fayshell.store.database import Database
    from fayshell.store.settings import LoadSettings
    from fayshell.tracing.receive import NodeReceipt
    from fayshell.views.feeds import Feed


@dataclass(frozen=True)
class LiveTarget:
    """What the pump follows: a session on some nodes, and where pulled chunks are kept."""

    session: str
    specs: tuple[NodeSpec, ...]
    dest: Path
    remembered: dict[str, str] = field(default_factory=dict)


@dataclass
class NodeTally:
    """One node's running totals and its cycle in flight."""

    node: str
    health: NodeHealth
    task: asyncio.Task[NodeHealth] | None = None
    started: float = 0.0
    started_ns: int = 0
    #: Wall clock at the start of the last good cycle: its rotation archived everything before.
    complete_ns: int | None = None
    chunks: int = 0
    events: int = 0
    cycles: int = 0
    #: Chunks handed to the importer (None until the first cycle reads what is on disk).
    imported: set[str] | None = None
    archives: ArchiveWatch = field(default_factory=ArchiveWatch)
    #: Cycles failed in a row, and when the next may start (monotonic; backoff).
    failures: int = 0
    retry_at: float = 0.0


@dataclass
class PumpTimes:
    """How long one pump call waits, when a busy node counts as silent, and its hard limit."""

    wait_s: float = 1.0
    stall_s: float = 5.0
    node_timeout_s: float = 30.0
    backoff_max_s: float = 15.0

    def backoff_s(self, failures: int) -> float:
        """How long a node that failed ``failures`` cycles in a row rests before the next:
        0.5 s doubling each time, at most ``backoff_max_s`` (a node that is down is not
        reconnected to every refresh)."""
        return 0.0 if failures <= 0 else min(self.backoff_max_s, 0.5 * 2.0 ** (failures - 1))

    @classmethod
    def for_interval(cls, interval_s: float) -> PumpTimes:
        """Wait most of one interval (so the next tick is not skipped); a node is silent
        after three intervals (at least 5 s)."""
        return cls(
            wait_s=0.8 * interval_s,
            stall_s=max(3 * interval_s, 5.0),
            node_timeout_s=max(30.0, 10 * interval_s),
        )


class LivePump:
    """``await pump()`` → per-node health; see the module docstring."""

    def __init__(
        self,
        cluster: Cluster,
        target: LiveTarget,
        db: Database,
        times: PumpTimes | None = None,
        *,
        rotate: bool = True,
        timer_ns: int = 0,
        settings: LoadSettings | None = None,
    ) -> None:
        from fayshell.store.settings import LIVE_SETTINGS

        self.cluster = cluster
        self.target = target
        self.db = db
        self.times = times or PumpTimes()
        self.rotate = rotate
        #: The session's own rotation period when the pump does not rotate (0: none known).
        self.timer_ns = timer_ns
        #: How chunks are imported (LIVE_SETTINGS: DuckDB's memory held small, see there).
        self.settings = settings or LIVE_SETTINGS
        self.nodes = {
            s.name: NodeTally(s.name, NodeHealth(s.name, True, "starting")) for s in target.specs
        }
        self.import_errors: list[str] = []
        self._import_lock = asyncio.Lock()
        self._importing: asyncio.Future[Any] | None = None
        self._closed = False

    # -- one refresh ---------------------------------------------------------------------------

    async def __call__(self) -> tuple[NodeHealth, ...]:
        """Start a cycle on idle nodes, wait up to ``wait_s``, report every node's health."""
        if self._closed:
            raise RuntimeError("the live pump is closed")
        now = time.monotonic()
        for spec in self.target.specs:
            tally = self.nodes[spec.name]
            if tally.task is None and now >= tally.retry_at:
                tally.started, tally.started_ns = time.monotonic(), time.time_ns()
                tally.task = asyncio.ensure_future(self._cycle(spec))
        # a node already shown as not answering does not hold the others' refresh
        running = [t.task for t in self.nodes.values() if t.task is not None and t.health.ok]
        if running:
            await asyncio.wait(running, timeout=self.times.wait_s)
        give_back()  # what the imports freed goes back to the system, not kept for the next
        return tuple(self._health(t) for t in self.nodes.values())

    def _health(self, tally: NodeTally) -> NodeHealth:
        task = tally.task
        if task is not None and task.done():
            tally.task = None
            tally.cycles += 1
            tally.health = task.result()
            tally.failures = 0 if tally.health.ok else tally.failures + 1
            tally.retry_at = time.monotonic() + self.times.backoff_s(tally.failures)
            if tally.health.ok and (self.rotate or self.timer_ns):
                # rotating ourselves archived everything before the cycle's start; a timer
                # rotation archives everything older than one period
                tally.complete_ns = tally.started_ns - (0 if self.rotate else self.timer_ns)
        elif task is not None:
            busy = time.monotonic() - tally.started
            if busy > self.times.stall_s:
                tally.health = NodeHealth(tally.node, False, f"no answer for {busy:.0f}s")
        return tally.health

    def complete_ns(self) -> int | None:
        """Every answering node's data is in up to this instant (wall clock): the oldest start
        of their last good cycles. None until one has completed."""
        done = [
            t.complete_ns for t in self.nodes.values() if t.health.ok and t.complete_ns is not None
        ]
        return min(done) if done else None

    async def _cycle(self, spec: NodeSpec) -> NodeHealth:
        """rotate → pull → import on one node; never raises (failure is the node's health)."""
        from fayshell.remote.results import NodeError

        timeout = self.times.node_timeout_s
        try:
            async for rec in self.cluster.map(
                [spec], self._node_work, timeout=timeout, connect_timeout=timeout
            ):
                if isinstance(rec, NodeError):
                    return NodeHealth(spec.name, False, f"{rec.stage}: {rec.message}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the node's problem, never the view's
            return NodeHealth(spec.name, False, f"{type(exc).__name__}: {exc}")
        return NodeHealth(spec.name, True)

    async def _node_work(self, t: Transport) -> NodeReceipt:
        from fayshell.tracing.receive import ByteProgress, receive_node
        from fayshell.tracing.records import ReceivedChunk

        tally = self.nodes[t.node]
        if self.rotate:
            await rotate_quietly(t, self.target.session)

        def emit(rec: Any) -> None:
            if isinstance(rec, ReceivedChunk):
                tally.chunks += 1
                tally.events += rec.events or 0

        if tally.imported is None:
            node_dir = self.target.dest / self.target.session / t.node
            async with self._import_lock:  # no import has the connection meanwhile
                tally.imported = await asyncio.to_thread(imported_here, self.db, node_dir)
        return await receive_node(
            t,
            self.target.session,
            self.target.dest,
            self.target.remembered.get(t.node, ""),
            ByteProgress(None),
            emit,
            self._import,
            tally.imported,
            tally.archives,
        )

    async def _import(self, path: Path, node: str, session: str) -> int:
        """Load one pulled chunk in a worker thread, one chunk at a time."""
        from fayshell.store.loader import import_trace

        async with self._import_lock:
            work = asyncio.ensure_future(
                asyncio.to_thread(
                    import_trace, self.db, path, node=node, session=session, settings=self.settings
                )
            )
            self._importing = work
            res = await asyncio.shield(work)  # a cancelled cycle lets the load finish
        self.import_errors += [f"{node}: {e.one_line()}" for e in res.errors]
        if not res.errors:
            await asyncio.to_thread(remove_chunk, path)
        return int(res.events)

    # -- shutdown ------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Cancel the cycles in flight (the session keeps tracing) and let an import finish."""
        self._closed = True
        tasks = [t.task for t in self.nodes.values() if t.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._importing is not None:
            await asyncio.gather(self._importing, return_exceptions=True)


async def rotate_quietly(t: Transport, session: str) -> None:
    """``lttng rotate``; LTTng refusing (a rotation already pending, a stopped session) is not
    a node failure: the pull that follows still takes what is archived."""
    from fayshell.errors import RemoteError
    from fayshell.lttng import Rotate
    from fayshell.tracing.lttngrun import LTTNG, ROTATE_TIMEOUT, run_request

    try:
        await run_request(t, Rotate(session), ROTATE_TIMEOUT)
    except RemoteError as exc:
        if exc.stage != LTTNG:
            raise


async def sessions_on(
    cluster: Cluster, session: str, specs: list[NodeSpec], timeout: float = 10.0
) -> list[NodeSpec]:
    """The nodes that may hold ``session``: those whose LTTng lists it, and those that did not
    answer (they may come back); a node that answers without the session is left out."""
    from fayshell.remote.results import NodeError
    from fayshell.tracing.sessions import session_info

    async def has(t: Transport) -> bool:
        return await session_info(t, session) is not None

    keep: set[str] = set()
    async for rec in cluster.map(specs, has, timeout=timeout, connect_timeout=timeout):
        if isinstance(rec, NodeError) or rec.value:
            keep.add(rec.node)
    return [s for s in specs if s.name in keep]


def remove_chunk(path: Path) -> None:
    """Delete an imported chunk's directory: the database's ``chunks`` rows now mark it as
    received (see :func:`imported_here`), so ``X.chunks/`` holds only chunks not imported yet."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def imported_here(db: Database, node_dir: Path) -> set[str]:
    """The chunks pulled into ``node_dir`` and imported: those a ``chunks`` row of ``db`` has
    below it (its ``path``), except a directory still holding files (its import failed: it is
    imported again). Empty directories, the marks kept by earlier versions, are removed."""
    prefix = f"{node_dir}{os.sep}"
    query = "SELECT DISTINCT path FROM chunks WHERE starts_with(path, ?)"
    rows = db.execute(query, [prefix]) if "chunks" in db.tables() else []
    names = {path[len(prefix) :].split(os.sep, 1)[0] for (path,) in rows}
    return names - _pulled_dirs(node_dir)


def _pulled_dirs(node_dir: Path) -> set[str]:
    """Names of the chunk directories in ``node_dir`` that hold files; empty ones go."""
    from fayshell.tracing.receive import received_here

    if not node_dir.is_dir():
        return set()
    names = received_here(node_dir)
    for name in names:
        with contextlib.suppress(OSError):  # not empty
            (node_dir / name).rmdir()
    return {name for name in names if (node_dir / name).is_dir()}


def chunk_home(db_path: str) -> Path:
    """Where a live view keeps pulled chunks until they are imported: next to the database
    (``X.duckdb`` → ``X.chunks``, absolute: the ``chunks`` rows name them by this path)."""
    import tempfile

    if db_path == ":memory:":
        return Path(tempfile.gettempdir()) / "fayshell-live-chunks"
    path = Path(db_path).expanduser().resolve()
    return path.with_name(path.stem + ".chunks")


async def close_feed(feed: Feed) -> None:
    """Close a feed, and first its live pump when it has one (or whatever the feed itself
    runs: a rollup feed's agents)."""
    aclose = getattr(feed, "aclose", None)
    pump = getattr(feed, "pump", None)
    if callable(aclose):
        await aclose()
    elif isinstance(pump, LivePump):
        await pump.aclose()
    feed.close()
