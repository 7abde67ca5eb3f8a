"""Live views on the real cluster: a Show-Top invocation on a test shell, screens that wait."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from fayshell.commands.invocation import Invocation
from fayshell.commands.views import TopRun, open_feed, prepare
from fayshell.views.feeds import Feed, LiveFeed
from tests.fixtures.cluster import ClusterNode, LocalCluster, _user_pids, agent_pids
from tests.fixtures.shell import Shell
from tests.views.helpers import settle


def show_top_ctx(sh: Shell) -> Invocation:
    """The invocation Show-Top gets in this shell (its state, its cluster, its database)."""
    spec = sh.state.registry.resolve("Show-Top")
    assert spec is not None
    return Invocation(state=sh.state, spec=spec)


async def live_feed(
    sh: Shell,
    view: str,
    session: str,
    interval: str = "500ms",
    severity: str | None = None,
    source: str = "Pull",
) -> tuple[TopRun, Feed]:
    """What Show-Top VIEW -Session SESSION -Source SOURCE would run on (must be live here;
    these tests follow the pull-and-import path unless they ask for another source)."""
    ctx = show_top_ctx(sh)
    run = prepare(ctx, view, session, None, interval, None, severity, source)
    feed = await open_feed(ctx, run, None)
    assert feed.live, (sh.host.warnings, "Show-Top did not go live")
    if source == "Pull":
        assert isinstance(feed, LiveFeed)
    return run, feed


async def tick(pilot: Pilot[Any]) -> None:
    """One refresh now (rotate → pull → import → query), waited for."""
    pilot.app.screen.tick()
    await settle(pilot)


async def tick_until(
    pilot: Pilot[Any], done: Callable[[], bool], timeout: float = 30, what: str = ""
) -> None:
    """Refresh until ``done()`` holds on the screen, at most ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, f"timed out waiting for {what or done}"
        await tick(pilot)
        await asyncio.sleep(0.1)


@dataclass
class LoopLag:
    """The worst delay of a 20 ms timer on the event loop while something else runs."""

    worst_s: float = 0.0

    async def watch(self, work: Awaitable[Any]) -> Any:
        stop = asyncio.Event()

        async def sample() -> None:
            while not stop.is_set():
                t0 = time.perf_counter()
                await asyncio.sleep(0.02)
                self.worst_s = max(self.worst_s, time.perf_counter() - t0 - 0.02)

        sampler = asyncio.ensure_future(sample())
        try:
            return await work
        finally:
            stop.set()
            await sampler


def archive_name(index: int, now: datetime | None = None) -> str:
    """A rotation chunk's directory name as LTTng 2.13 writes it under ``archives/``."""
    now = now or datetime.now(UTC)
    stamp = now.strftime("%Y%m%dT%H%M%S+0000")
    return f"{stamp}-{stamp}-{index}"


def place_archive(node: ClusterNode, output: str, trace: Path, index: int) -> Path:
    """Put a trace into the node's session output as a finished rotation chunk would be:
    staged outside the session directory, owned by the node user, then renamed into
    ``archives/`` in one step (as LTTng does when a rotation completes)."""
    stage = node.home / f".stage-{index}"
    shutil.rmtree(stage, ignore_errors=True)
    shutil.copytree(trace, stage / "kernel")
    archives = Path(output) / "archives"
    archives.mkdir(exist_ok=True)
    for path in [archives, stage, *stage.rglob("*")]:
        os.chown(path, node.uid, node.uid)
    final = archives / archive_name(index)
    os.rename(stage, final)
    return final


def stop_node(node: ClusterNode) -> list[int]:
    """Freeze a node's SSH sessions (every process of its user but lttng's): it stops
    answering without closing its connections. Returns the pids for :func:`resume_node`."""
    pids = [pid for pid, comm in _user_pids(node.uid) if not comm.startswith("lttng")]
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    return pids


def resume_node(pids: list[int]) -> None:
    """Let the frozen processes run again."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


def until_no_agents(lc: LocalCluster, nodes: tuple[str, ...], timeout: float = 15) -> None:
    """Wait (bounded) for agents whose channel was closed while their node was frozen to
    see the end of their input and exit."""
    end = time.monotonic() + timeout
    while any(agent_pids(lc, n) for n in nodes) and time.monotonic() < end:
        time.sleep(0.1)
    for node in nodes:
        assert agent_pids(lc, node) == [], f"an agent process is left on {node}"


async def started_session(sh: Shell, session: str, enable: str, nodes: tuple[str, ...]) -> None:
    """A tracing session on ``nodes`` with ``enable`` (Enable-Tracepoint's arguments), started."""
    await sh.run(f"New-TraceSession {session} -Node {','.join(nodes)}")
    await sh.run(f"Enable-Tracepoint -Session {session} {enable}")
    await sh.run(f"Start-Trace {session}")


async def removed_session(
    sh: Shell, session: str, lc: LocalCluster | None = None, nodes: tuple[str, ...] = ()
) -> None:
    """Once a view over ``session`` is closed: no agent left on ``nodes`` (when ``lc`` is given),
    then the session removed."""
    for node in nodes:
        assert lc is not None
        assert agent_pids(lc, node) == [], f"closing the view left an agent on {node}"
    await sh.run(f"Remove-TraceSession {session} -Force")
