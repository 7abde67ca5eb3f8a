"""Live Show-Top on node rollups against pull+import, in one run: shell CPU, bytes, latency.

    .venv/bin/python bench/live_rollups.py [--nodes 8] [--seconds 60] [--interval-ms 5]

Starts a real test cluster (tests/fixtures/cluster.py; needs root). Each mode gets its own
session rotating every second on every node, recording the BlkKin C program's zipkin spans, and
its own run of the program on every node (a request every ``--interval-ms``, three spans each),
so neither mode starts with the other's backlog. The spans view (not the syscalls view: the
kernel tracer cannot load on these machines, so no real syscall events can be emitted live) runs
exactly as ``Show-Top spans -Session S -Interval 1s -Source Agent`` and ``… -Source Pull`` would
(same feed, its own 1 s timer, headless at 200x50), one mode after the other in the same run:

* **shell CPU**: the shell process's CPU seconds (every thread: the view, DuckDB, SSH, the agent
  hub) per minute of steady state, measured after a warm-up (the first refresh of each mode
  also takes in the backlog of the session so far, which is not steady state);
* **bytes received per refresh**: rollups, the agent frames read from all nodes; pull, the bytes
  of the chunks pulled (their size on disk), divided by the refreshes in the window;
* **marker → on screen**: while the load runs, a marker request on node01 makes one span
  ``--slow-ms`` long (longer for each marker, so each is told apart by the MAX column); the bench
  notes when a row's MAX first reaches it. The marker's emission is taken as the wall clock just
  before its program is started plus its slow time: an upper bound of the latency (the SSH
  start of the program counts against it).

The agents' own CPU (on the nodes, which here share this machine's two cores) is printed too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SESSION = "rollbench"
TARGET_S = 3.0
WARMUP_REFRESHES = 4
MARKER_BASE_MS = 300
MARKER_STEP_MS = 150


@dataclass
class ModeResult:
    """What one mode measured."""

    mode: str
    cpu_s: float = 0.0
    wall_s: float = 0.0
    refreshes: int = 0
    bytes_in: int = 0
    latencies_s: list[float] = field(default_factory=list)
    agent_cpu_s: float = 0.0
    spans_shown: int = 0
    query_cpu_s: float | None = None

    @property
    def cpu_per_min(self) -> float:
        return 60.0 * self.cpu_s / max(self.wall_s, 1e-9)

    @property
    def bytes_per_refresh(self) -> float:
        return self.bytes_in / max(self.refreshes, 1)


def agent_cpu(lc: Any) -> float:
    """CPU seconds used so far by the agent processes of every node."""
    import os
    import subprocess

    total = 0
    for node in lc.nodes:
        out = subprocess.run(
            ["ps", "-u", node.user, "-o", "pid=,args="], capture_output=True, text=True
        ).stdout
        for line in out.splitlines():
            if "agent.py" in line:
                pid = line.split()[0]
                try:
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                except FileNotFoundError:
                    continue
                total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def pulled_bytes(sh: Any, session: str) -> int:
    """Bytes of the chunks the pull mode imported (its own cursor: the pump imports on the
    database's connection meanwhile)."""
    db = sh.state.database
    db.wait_pending()
    with db.lock:
        cur = db.con.cursor()
    try:
        if not cur.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = 'chunks'").fetchall():
            return 0
        sql = "SELECT coalesce(sum(bytes), 0) FROM chunks WHERE session = ?"
        return int(cur.execute(sql, [session]).fetchall()[0][0])
    finally:
        cur.close()


async def run_mode(
    sh: Any, lc: Any, mode: str, args: argparse.Namespace, first_marker: int, blkkin: Path
) -> ModeResult:
    """One mode on its own session and load: the view (``mode``: Agent or Pull) for
    ``args.seconds`` of steady state with markers."""
    from tests.fixtures.traceshell import run_on

    session = f"{SESSION}{mode.lower()}"
    await sh.run(f"New-TraceSession {session} -Node '{lc.nodeset}' -Rotate 1s")
    await sh.run(f"Enable-Tracepoint -Session {session} -Domain user -Name 'zipkin:*'")
    await sh.run(f"Start-Trace {session}")
    total_s = int(args.seconds + 45)
    requests = int(total_s * 1000 / args.interval_ms)
    loads = []
    for i, node in enumerate(lc.nodes):
        argv = ["timeout", str(total_s), str(blkkin), "--requests", str(requests)]
        argv += ["--interval-ms", str(args.interval_ms), "--slow-every", "0", "--seed", str(i + 1)]
        loads.append(asyncio.ensure_future(_quiet(run_on(sh, node.name, argv, total_s + 30))))
    try:
        return await view_mode(sh, lc, mode, session, args, first_marker, blkkin)
    finally:
        await asyncio.gather(*loads, return_exceptions=True)
        await sh.run(f"Remove-TraceSession {session} -Force")


async def view_mode(
    sh: Any,
    lc: Any,
    mode: str,
    session: str,
    args: argparse.Namespace,
    first_marker: int,
    blkkin: Path,
) -> ModeResult:
    seconds, markers = args.seconds, args.markers
    from fayshell.views.launch import TopConfig
    from fayshell.views.live import close_feed
    from fayshell.views.rollfeed import RollupFeed
    from fayshell.views.ui.app import TopApp
    from tests.views.live_helpers import live_feed

    res = ModeResult(mode)
    run, feed = await live_feed(sh, "spans", session, interval="1s", source=mode)
    assert (mode == "Agent") == isinstance(feed, RollupFeed), type(feed)
    config = TopConfig("spans", run.config.scope, run.config.interval_ns, window="minute")
    app = TopApp(feed, config, show_timings=False)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            while feed.version < WARMUP_REFRESHES or not app.screen.rows:
                await pilot.pause(0.05)
            v0, cpu0, t0 = feed.version, time.process_time(), time.monotonic()
            q0 = getattr(feed, "query_cpu_s", None)
            b0 = _bytes(feed, sh, session)
            a0 = agent_cpu(lc)
            gap = seconds / (markers + 1)
            for k in range(first_marker, first_marker + markers):
                await _sleep_watching(pilot, gap)
                res.latencies_s.append(await _marker(pilot, app, sh, blkkin, k))
            while time.monotonic() - t0 < seconds:
                await pilot.pause(0.05)
            res.cpu_s = time.process_time() - cpu0
            res.wall_s = time.monotonic() - t0
            res.refreshes = feed.version - v0
            res.bytes_in = _bytes(feed, sh, session) - b0
            res.agent_cpu_s = agent_cpu(lc) - a0
            res.spans_shown = sum(r.count for r in app.screen.rows)
            if q0 is not None:
                res.query_cpu_s = feed.query_cpu_s - q0
            await pilot.press("q")
    finally:
        await close_feed(feed)
    return res


def _bytes(feed: Any, sh: Any, session: str) -> int:
    nodes = getattr(feed, "nodes", None)
    if isinstance(nodes, dict) and nodes and hasattr(next(iter(nodes.values())), "bytes_in"):
        return sum(sum(t.bytes_in) for t in nodes.values())
    return pulled_bytes(sh, session)


async def _sleep_watching(pilot: Any, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        await pilot.pause(0.05)


async def _marker(pilot: Any, app: Any, sh: Any, blkkin: Path, k: int) -> float:
    """Emit marker ``k`` on node01; seconds from its emission to its MAX on screen (inf when
    not shown within a minute)."""
    from tests.fixtures.traceshell import run_on

    slow_ms = MARKER_BASE_MS + MARKER_STEP_MS * k
    argv = [str(blkkin), "--requests", "1", "--slow-every", "1", "--slow-ms", str(slow_ms)]
    argv += ["--seed", str(1000 + k)]
    start = time.time_ns()
    job = asyncio.ensure_future(run_on(sh, "node01", argv))
    emitted = start + slow_ms * 1_000_000
    seen = None
    while seen is None and time.time_ns() - start < 60e9:
        await pilot.pause(0.02)
        if any(r.max_ns >= slow_ms * 1_000_000 for r in app.screen.rows):
            seen = time.time_ns()
    await job
    if seen is None:
        print(f"  marker {k} ({slow_ms} ms span): not on screen within 60s", flush=True)
        return float("inf")
    latency = (seen - emitted) / 1e9
    print(f"  marker {k} ({slow_ms} ms span): on screen after {latency:.2f}s", flush=True)
    return latency


async def bench(lc: Any, args: argparse.Namespace) -> list[ModeResult]:
    from fayshell.commands.store import set_agent_hub
    from fayshell.remote.agentbundle import build
    from fayshell.remote.agenthub import AgentHub, HubSettings
    from tests.fixtures.traceshell import shell_on
    from tests.fixtures.workloads.build import build_blkkin

    work = Path(tempfile.mkdtemp(prefix="fay-rollbench-"))
    blkkin = build_blkkin()
    bundle = build(work / "bundle")
    sh = shell_on(lc, work / "shell.duckdb")
    set_agent_hub(sh.state, AgentHub(sh.state.options, HubSettings(bundle_root=bundle.root)))
    try:
        results = []
        for n, mode in enumerate(("Agent", "Pull")):
            print(
                f"{mode}: {args.seconds:.0f}s of steady state, {args.markers} markers", flush=True
            )
            results.append(await run_mode(sh, lc, mode, args, n * args.markers, blkkin))
        return results
    finally:
        await sh.state.aclose()
        from fayshell.commands.store import _close_hub

        _close_hub(id(sh.state))


async def _quiet(coro: Any) -> None:
    # the load ends by `timeout` (exit status 124) or by the cluster stopping
    with contextlib.suppress(AssertionError):
        await coro


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60.0, help="steady state per mode")
    ap.add_argument("--markers", type=int, default=4, help="markers per mode")
    ap.add_argument("--interval-ms", type=int, default=5, help="load: ms between requests")
    args = ap.parse_args(argv)
    from tests.fixtures.cluster import start_cluster

    lc = start_cluster(args.nodes)
    try:
        print(
            f"{args.nodes} nodes emitting BlkKin spans (a request every {args.interval_ms} ms "
            "per node, 3 spans each), rotation 1s, view interval 1s"
        )
        results = asyncio.run(bench(lc, args))
    finally:
        lc.close()
    print(json.dumps([{**vars(r), "cpu_per_min": r.cpu_per_min} for r in results], default=str))
    print(
        f"{'source':8} {'shell CPU s/min':>16} {'bytes/refresh':>14} {'refreshes':>9} "
        f"{'agents CPU s/min':>17} {'marker→screen median (max)':>28}"
    )
    for r in results:
        med = statistics.median(r.latencies_s)
        print(
            f"{r.mode:8} {r.cpu_per_min:16.1f} {r.bytes_per_refresh:14,.0f} {r.refreshes:9d} "
            f"{60 * r.agent_cpu_s / max(r.wall_s, 1e-9):17.1f} "
            f"{med:20.2f}s ({max(r.latencies_s):.2f}s)"
        )
    roll, pull = results
    if roll.query_cpu_s is not None:
        share = 60 * roll.query_cpu_s / max(roll.wall_s, 1e-9)
        print(f"rollups: the view's queries over the partials took {share:.1f} CPU s/min of it")
    verdicts = ", ".join(
        f"{r.mode} {'met' if statistics.median(r.latencies_s) <= TARGET_S else 'MISSED'}"
        for r in results
    )
    print(
        f"rollups vs pull: shell CPU {pull.cpu_per_min / max(roll.cpu_per_min, 1e-9):.1f}x less, "
        f"bytes {pull.bytes_per_refresh / max(roll.bytes_per_refresh, 1):.0f}x fewer; "
        f"marker → screen median ≤ {TARGET_S:.0f}s: {verdicts}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
