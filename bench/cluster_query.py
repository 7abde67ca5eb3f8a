"""Cluster query benchmark (issue 11): pull + import + SQL against the same question on the nodes.

A private test cluster of N nodes (default 8; needs root, see tests/fixtures/CLUSTER.md), each
with kernel-layout rotation archives from tests/fixtures/ctfgen in its session directory
(``--events`` per node, default 2M). The question, "top 10 syscalls by total time with p99,
cluster-wide", is answered twice in the same run:

  (a) ``Receive-Trace S -Import`` (SFTP pull of every chunk + decode + store at the shell) and
      the SQL on the shell's database;
  (b) ``sql -OnNode -Session S …``: the agents (already deployed and warm: the session imported
      by a first run) answer the node part, the shell merges.

For each: wall seconds, bytes received by the shell, and the shell's CPU seconds (this process,
all threads). Then the answers are compared (calls and totals exactly, p99 within 1%).

Issue 11's second figure, the same question over 64 nodes with small chunks answered warm:
``--nodes 64 --events 20000 --no-pull --repeat 5``. Each warm -OnNode run then also prints
where the time went: the query's phases at the shell (split, nodes, merge), and the CPU seconds
of the whole machine, of the shell, and of the agents (the rest is mostly sshd).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTION = (
    "SELECT name, count(*) AS calls, sum(dur_ns) AS total_ns, "
    "quantile_cont(dur_ns, 0.99) AS p99 FROM syscalls WHERE session = 'bench' "
    "GROUP BY name ORDER BY total_ns DESC LIMIT 10"
)


def populate(cluster: Any, events: int, chunks: int) -> dict[str, str]:
    """Kernel-layout archives in every node's session dir; {node: dir}."""
    from tests.fixtures.ctfgen import GenSpec, write_trace

    outputs = {}
    gen = Path(tempfile.mkdtemp(prefix="fay-bench-gen-"))
    for k, node in enumerate(cluster.nodes):
        out = node.home / "lttng-traces" / "bench"
        info = write_trace(
            gen / node.name,
            GenSpec(events=events, cpus=4, chunks=chunks, seed=100 + k, keep_truth=False),
        )
        for i, d in enumerate(info.dirs):
            dest = (
                out
                / "archives"
                / (f"20261124T04{i:02d}00+0000-20261124T04{i + 1:02d}00+0000-{i}")
                / "kernel"
            )
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(d), dest)
        subprocess.run(["chown", "-R", node.user, str(node.home / "lttng-traces")], check=True)
        outputs[node.name] = str(out)
    shutil.rmtree(gen, ignore_errors=True)
    return outputs


def measure(fn: Any) -> tuple[Any, float, float]:
    """(result, wall s, CPU s of this process)."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


async def pull_and_query(shell: Any, dest: Path) -> tuple[list[Any], int]:
    got = await shell.run(f"Receive-Trace bench -Destination '{dest}' -Import")
    rows = (await shell.raw(f"sql {QUESTION}"))[0].records()
    return rows, sum(getattr(r, "bytes", 0) for r in got)


def bytes_in(hub: Any) -> int:
    return sum(c.bytes_in for c in hub.clients.values())


def machine_cpu() -> float:
    """CPU seconds used by the whole machine so far (all CPUs, idle and iowait excluded)."""
    with open("/proc/stat") as fh:
        f = [int(x) for x in fh.readline().split()[1:]]
    return (sum(f[:8]) - f[3] - f[4]) / os.sysconf("SC_CLK_TCK")


def agents_cpu(hub: Any) -> float:
    """CPU seconds used so far by the hub's agent processes (their pids from Welcome)."""
    total = 0
    for c in hub.clients.values():
        with contextlib.suppress(OSError, AttributeError):
            with open(f"/proc/{c.welcome.pid}/stat") as fh:
                f = fh.read().rsplit(")", 1)[1].split()
            total += int(f[11]) + int(f[12])
    return total / os.sysconf("SC_CLK_TCK")


def warm_run(loop: Any, shell: Any, hub: Any, on_node: str) -> tuple[list[Any], dict[str, float]]:
    """One warm -OnNode query: its rows and what it cost."""
    m0, a0, b0 = machine_cpu(), agents_cpu(hub), bytes_in(hub)
    w0, c0 = time.perf_counter(), time.process_time()
    rel = loop.run_until_complete(shell.raw(on_node))[0]
    rows = rel.records()
    cost = {"wall": time.perf_counter() - w0, "shell_cpu": time.process_time() - c0}
    cost |= {"machine_cpu": machine_cpu() - m0, "agents_cpu": agents_cpu(hub) - a0}
    cost |= {"bytes": bytes_in(hub) - b0} | dict(rel.node_db().phases)
    return rows, cost


def print_runs(runs: list[dict[str, float]]) -> None:
    keys = [k for k in runs[0] if k != "bytes"]
    print("warm -OnNode runs (seconds): " + " ".join(f"{k:>11}" for k in keys))
    for r in runs:
        print(f"{'':28} " + " ".join(f"{r[k]:11.3f}" for k in keys))
    med = {k: statistics.median(r[k] for r in runs) for k in keys}
    print(f"{'median':28} " + " ".join(f"{med[k]:11.3f}" for k in keys))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--events", type=int, default=2_000_000)
    ap.add_argument("--chunks", type=int, default=4)
    ap.add_argument("--no-pull", action="store_true", help="skip (a): only the -OnNode query")
    ap.add_argument("--repeat", type=int, default=1, help="warm -OnNode runs (median shown)")
    args = ap.parse_args()

    from fayshell.commands.store import set_agent_hub
    from fayshell.remote.agentbundle import build
    from fayshell.remote.agenthub import AgentHub, HubSettings
    from fayshell.tracing.records import SessionMemo
    from tests.fixtures.cluster import start_cluster
    from tests.fixtures.traceshell import shell_on

    work = Path(tempfile.mkdtemp(prefix="fay-bench-"))
    bundle = build(work / "bundle")
    cluster = start_cluster(args.nodes)
    try:
        t0 = time.perf_counter()
        outputs = populate(cluster, args.events, args.chunks)
        print(
            f"{args.nodes} nodes x {args.events} events in {args.chunks} chunks "
            f"(generated in {time.perf_counter() - t0:.1f}s)"
        )
        shell = shell_on(cluster, work / "shell.duckdb")
        memo = SessionMemo("bench", [n.name for n in cluster.nodes], "normal", outputs)
        shell.state.trace_sessions["bench"] = memo
        hub = AgentHub(shell.state.options, HubSettings(bundle_root=bundle.root))
        set_agent_hub(shell.state, hub)
        loop = asyncio.new_event_loop()

        a_rows: list[Any] = []
        if not args.no_pull:
            (a_rows, a_bytes), a_wall, a_cpu = measure(
                lambda: loop.run_until_complete(pull_and_query(shell, work / "pulled"))
            )
        on_node = f"sql -OnNode -Session bench {QUESTION}"
        _, warm_wall, _ = measure(lambda: loop.run_until_complete(shell.raw(on_node))[0].records())
        runs = [warm_run(loop, shell, hub, on_node) for _ in range(max(args.repeat, 1))]
        b_rows = runs[-1][0]
        b_wall = statistics.median(c["wall"] for _, c in runs)
        b_cpu = statistics.median(c["shell_cpu"] for _, c in runs)
        b_bytes = int(runs[-1][1]["bytes"])

        print(f"deploy + first import on the nodes: {warm_wall:.1f}s")
        print_runs([c for _, c in runs])
        print(f"{'':28} {'wall s':>9} {'bytes received':>15} {'shell CPU s':>12}")
        if a_rows:
            print(f"{'(a) pull + import + SQL':28} {a_wall:9.2f} {a_bytes:15,d} {a_cpu:12.2f}")
        print(f"{'(b) -OnNode, agents warm':28} {b_wall:9.2f} {b_bytes:15,d} {b_cpu:12.2f}")
        if a_rows:
            print(
                f"{'ratio (a)/(b)':28} {a_wall / b_wall:9.1f} "
                f"{a_bytes / max(b_bytes, 1):15.0f} {a_cpu / max(b_cpu, 1e-9):12.1f}"
            )
            same = [(a["name"], a["calls"], a["total_ns"]) for a in a_rows] == [
                (b["name"], b["calls"], b["total_ns"]) for b in b_rows
            ]
            p99 = max(
                abs(a["p99"] - b["p99"]) / a["p99"] for a, b in zip(a_rows, b_rows, strict=True)
            )
            print(
                f"same top 10 (calls, totals exact): {same}; p99 max relative difference {p99:.4%}"
            )
        for r in b_rows[:3]:
            print(f"  {r['name']:10} {r['calls']:>10,d} {r['total_ns']:>16,d} {r['p99']:>12.0f}")
        hub.close()
        loop.run_until_complete(shell.state.aclose())
    finally:
        cluster.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
