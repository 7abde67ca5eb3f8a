"""Fan-out of ``true`` to N real nodes: fayshell (cold and warm pool) vs parallel-ssh and clush.

    .venv/bin/python bench/fanout.py                 # 32 nodes
    .venv/bin/python bench/fanout.py --nodes 32,64,128 --repeat 5

Starts a real test cluster (tests/fixtures/cluster.py: one sshd + user per node; needs root),
then for each node count measures the median of ``--repeat`` runs of:

* fayshell cold: a fresh :class:`Cluster` (no connections) running ``true`` on every node;
* fayshell warm: the same call again in the same shell (connections pooled);
* ``parallel-ssh -p N`` and ``clush -f 64`` with the same ssh_config.

Targets (issue 3): cold >= 2x and warm >= 20x faster than the faster of parallel-ssh and clush.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


async def _fay_cold(lc: Any, repeat: int) -> list[float]:
    from fayshell.remote.cluster import Cluster

    times = []
    for _ in range(repeat):
        cluster = Cluster.from_options(lc.options())
        start = time.perf_counter()
        results = await cluster.run_all("@all", ["true"])
        times.append(time.perf_counter() - start)
        await cluster.aclose()
        _check(results, len(lc.nodes))
    return times


async def _fay_warm(lc: Any, repeat: int) -> list[float]:
    from fayshell.remote.cluster import Cluster

    cluster = Cluster.from_options(lc.options())
    try:
        _check(await cluster.run_all("@all", ["true"]), len(lc.nodes))
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            results = await cluster.run_all("@all", ["true"])
            times.append(time.perf_counter() - start)
            _check(results, len(lc.nodes))
        return times
    finally:
        await cluster.aclose()


def _check(results: list[Any], count: int) -> None:
    ok = sum(getattr(r, "exit_status", None) == 0 for r in results)
    if ok != count:
        bad = [r for r in results if getattr(r, "exit_status", None) != 0][:3]
        raise SystemExit(f"fayshell: only {ok}/{count} nodes ran `true`: {bad}")


def _external(argv: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return times


def bench(count: int, repeat: int) -> dict[str, float]:
    from tests.fixtures.cluster import start_cluster

    lc = start_cluster(count, sessiond=False)
    try:
        hosts = lc.root / "hosts"
        hosts.write_text("\n".join(lc.names) + "\n")
        cfg = str(lc.ssh_config)
        medians = {
            "fayshell cold": statistics.median(asyncio.run(_fay_cold(lc, repeat))),
            "fayshell warm": statistics.median(asyncio.run(_fay_warm(lc, repeat))),
            f"parallel-ssh -p {count}": statistics.median(
                _external(
                    ["parallel-ssh", "-p", str(count), "-x", f"-F {cfg}", "-h", str(hosts), "true"],
                    repeat,
                )
            ),
            "clush -f 64": statistics.median(
                _external(
                    ["clush", "-f", "64", "-o", f"-F {cfg}", "-w", lc.nodeset, "true"], repeat
                )
            ),
        }
    finally:
        lc.close()
    return medians


def report(count: int, medians: dict[str, float]) -> None:
    best_name, best = min(
        ((k, v) for k, v in medians.items() if "fayshell" not in k), key=lambda kv: kv[1]
    )
    cold, warm = medians["fayshell cold"], medians["fayshell warm"]
    print(f"\n{count} nodes, `true`, median seconds:")
    for name, value in medians.items():
        print(f"  {name:<22} {value:8.3f}")
    print(f"  cold speed-up vs {best_name}: {best / cold:6.1f}x  (target >= 2x)")
    print(f"  warm speed-up vs {best_name}: {best / warm:6.1f}x  (target >= 20x)")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", default="32", help="comma-separated node counts (32,64,128)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    for count in (int(n) for n in args.nodes.split(",")):
        report(count, bench(count, args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
