"""The cluster-wide flight recorder: one node's trigger fires, every node keeps its last seconds.

LTTng's trigger on the firing node snapshots that node's session by itself (in the session
daemon, no round trip). The shell watches every node's snapshot output: one small loop per node
lists the directory over the node's open SFTP channel every ``poll_s``, so a node that does not
answer never delays the others. A new ``snapshot-*`` directory (the name LTTng gives a
trigger's snapshot; snapshots fayshell asks for carry their own names) is a firing: at once
``lttng snapshot record --name=<set>`` goes to every other node, and the firing becomes a
:class:`Firing` record naming the firing node, the trigger's event rule, the firing time and the
snapshot set, with the nodes that missed it and why. A trigger seen on another node while a set is
being taken (the same symptom everywhere) joins that set instead of starting a new one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from fayshell.errors import RemoteError
from fayshell.lttng import SnapshotRecord
from fayshell.lttng.triggers import TriggerSpec
from fayshell.remote.quoting import quote_argv

if TYPE_CHECKING:
    from fayshell.remote.cluster import Cluster
    from fayshell.remote.inventory import NodeSpec
    from fayshell.remote.transport import Transport

#: LTTng names a trigger's snapshot ``snapshot-<n>-<date>-<time>-<k>``.
TRIGGER_SNAPSHOT = "snapshot-"


@dataclass(frozen=True)
class Firing:
    """One firing of a flight-recorder trigger and the snapshot set it produced."""

    session: str
    trigger: str
    node: str
    event: str
    time: datetime
    snapshot_set: str
    snapshots: dict[str, str]
    missed: dict[str, str]
    latency_ms: float
    time_ns: int = 0

    @property
    def nodes(self) -> int:
        return len(self.snapshots)


def banner(watch: TriggerWatch) -> str:
    """The newest firing of ``watch`` as one line for a dashboard header."""
    f = watch.firings[-1]
    missed = f", missed {', '.join(f.missed)}" if f.missed else ""
    more = f" (firing {len(watch.firings)})" if len(watch.firings) > 1 else ""
    return (
        f"FIRED {f.node} {f.event} at {f.time:%H:%M:%S.%f} UTC{more}: snapshot set "
        f"{f.snapshot_set} on {f.nodes} node{'s' if f.nodes != 1 else ''}{missed}"
    )


@dataclass
class WatchSettings:
    """How often each node is looked at, and how long a node may take to snapshot."""

    poll_s: float = 0.1
    snapshot_timeout_s: float = 5.0
    list_timeout_s: float = 5.0
    #: Max firings before the triggers are removed (0: no limit).
    max_firings: int = 1


@dataclass
class _Taking:
    """A snapshot set being taken (later trigger snapshots on other nodes join it)."""

    label: str
    joined: dict[str, str] = field(default_factory=dict)


class TriggerWatch:
    """Watches the snapshot output of ``specs`` for firings of ``spec``; see module docstring."""

    def __init__(
        self,
        cluster: Cluster,
        spec: TriggerSpec,
        specs: list[NodeSpec],
        outputs: dict[str, str],
        settings: WatchSettings | None = None,
        on_done: Callable[[TriggerWatch], object] | None = None,
    ) -> None:
        self.cluster = cluster
        self.spec = spec
        self.specs = specs
        self.outputs = outputs
        self.settings = settings or WatchSettings()
        self.firings: list[Firing] = []
        self.unreported: asyncio.Queue[Firing] = asyncio.Queue()
        self.errors: dict[str, str] = {}
        self._known: dict[str, set[str]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._taking: _Taking | None = None
        self._lock = asyncio.Lock()
        self._on_done = on_done
        self.done = asyncio.Event()

    @property
    def event(self) -> str:
        sev = f" {self.spec.severity}{'' if self.spec.exact else '+'}" if self.spec.severity else ""
        return f"{self.spec.domain}:{self.spec.pattern}{sev}"

    async def start(self) -> None:
        """Note what every node already has, then watch each node in its own loop."""
        async for rec in self.cluster.map(
            self.specs, self._listing, timeout=self.settings.list_timeout_s
        ):
            value = getattr(rec, "value", None)
            if value is not None:  # a node not answering now is baselined when it answers
                self._known[rec.node] = set(value)
        self._tasks = [asyncio.ensure_future(self._watch(s)) for s in self.specs]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        self.done.set()

    async def _listing(self, t: Transport) -> list[str]:
        """The snapshot output's entries; none yet before LTTng's first snapshot makes it."""
        files = await t.files()
        path = self.outputs[t.node]
        try:
            return await files.listdir(path)
        except RemoteError:
            if await files.exists(path):
                raise
            return []

    async def _watch(self, spec: NodeSpec) -> None:
        """One node's loop: list, spot new trigger snapshots, rest, again."""
        from fayshell.remote.results import NodeError

        while True:
            async for rec in self.cluster.map(
                [spec], self._listing, timeout=self.settings.list_timeout_s
            ):
                if isinstance(rec, NodeError):
                    self.errors[spec.name] = f"{rec.stage}: {rec.message}"
                else:
                    self.errors.pop(spec.name, None)
                    await self._seen(spec.name, rec.value)
            await asyncio.sleep(self.settings.poll_s)

    async def _seen(self, node: str, listing: list[str]) -> None:
        if node not in self._known:  # first answer: what is there already is no firing
            self._known[node] = set(listing)
            return
        known = self._known[node]
        fresh = sorted(n for n in listing if n not in known)
        known.update(fresh)
        for name in fresh:
            if name.startswith(TRIGGER_SNAPSHOT):
                await self._fired(node, name)

    async def _fired(self, node: str, dirname: str) -> None:
        """A trigger snapshot on ``node``: join the set being taken, or take a new set."""
        seen_ns = time.time_ns()
        if self._taking is not None:
            self._taking.joined[node] = self._path(node, dirname)
            return
        if self._exhausted():
            return
        async with self._lock:
            k = len(self.firings) + 1
            self._taking = _Taking(f"{self.spec.base_name}-f{k}")
            try:
                firing = await self._take_set(node, dirname, seen_ns)
            finally:
                self._taking = None
        self.firings.append(firing)
        self.unreported.put_nowait(firing)
        if self._exhausted():
            asyncio.ensure_future(self._finish())

    async def _take_set(self, node: str, dirname: str, seen_ns: int) -> Firing:
        from fayshell.remote.results import NodeError

        assert self._taking is not None
        label = self._taking.label
        others = [s for s in self.specs if s.name != node]
        fired_at = asyncio.ensure_future(self._mtime_ns(node, dirname))
        taken = {node: self._path(node, dirname)}
        missed: dict[str, str] = {}
        async for rec in self.cluster.map(
            others, self._snapshot, timeout=self.settings.snapshot_timeout_s
        ):
            if isinstance(rec, NodeError):
                missed[rec.node] = f"{rec.stage}: {rec.message}"
            else:
                taken[rec.node] = rec.value
        done_ns = time.time_ns()
        t_ns = await fired_at or seen_ns
        for other, path in self._taking.joined.items():
            taken.setdefault(other, path)
            missed.pop(other, None)
        return Firing(
            self.spec.session,
            self.spec.base_name,
            node,
            self.event,
            datetime.fromtimestamp(t_ns / 1e9, UTC),
            label,
            dict(sorted(taken.items())),
            dict(sorted(missed.items())),
            (done_ns - t_ns) / 1e6,
            t_ns,
        )

    async def _snapshot(self, t: Transport) -> str:
        """``lttng snapshot record --name=<set>`` on one node; the directory it wrote."""
        from fayshell.tracing.lttngrun import run_request

        assert self._taking is not None
        label = self._taking.label
        await run_request(
            t, SnapshotRecord(self.spec.session, label), self.settings.snapshot_timeout_s
        )
        mine = [n for n in await self._listing(t) if n.startswith(label + "-")]
        self._known.setdefault(t.node, set()).update(mine)
        return self._path(t.node, max(mine)) if mine else self.outputs[t.node]

    async def _mtime_ns(self, node: str, dirname: str) -> int:
        """When the trigger's snapshot was written (ns; 0 when the node cannot say)."""
        argv = ["find", self._path(node, dirname), "-maxdepth", "0", "-printf", "%T@"]

        async def stat(t: Transport) -> int:
            res = await t.run(quote_argv(argv), timeout=self.settings.list_timeout_s)
            whole, _, frac = res.stdout.strip().partition(".")
            return int(whole) * 10**9 + int((frac + "000000000")[:9]) if whole.isdigit() else 0

        async for rec in self.cluster.map(
            [s for s in self.specs if s.name == node], stat, timeout=self.settings.list_timeout_s
        ):
            return int(getattr(rec, "value", 0) or 0)
        return 0

    def _path(self, node: str, dirname: str) -> str:
        return f"{self.outputs[node].rstrip('/')}/{dirname}"

    def _exhausted(self) -> bool:
        limit = self.settings.max_firings
        return bool(limit) and len(self.firings) >= limit

    async def _finish(self) -> None:
        if self._on_done is not None:
            result = self._on_done(self)
            if asyncio.iscoroutine(result):
                await result
        await self.stop()

    async def next_firing(self, timeout: float | None) -> Firing | None:
        """The oldest firing not yet returned, waiting up to ``timeout`` seconds for one."""
        try:
            return await asyncio.wait_for(self.unreported.get(), timeout)
        except TimeoutError:
            return None
