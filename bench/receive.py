"""Pulling the same trace chunks from N real nodes: Receive-Trace vs scp, rsync and pssh's slurp.

    .venv/bin/python bench/receive.py                  # 8 nodes, ~4 MB of chunks per node
    .venv/bin/python bench/receive.py --requests 20000 --repeat 5

Starts a real test cluster (tests/fixtures/cluster.py; needs root), records a rotating session
(1 s) on every node while the BlkKin workload runs, stops it and archives the last chunk, then
pulls every node's ``archives/`` directory into a fresh local directory with each tool, timing the
median of ``--repeat`` runs:

* ``Receive-Trace`` cold: a new shell (SSH handshakes included, like the external tools);
* ``Receive-Trace`` warm: the same shell again (connections pooled), into a new directory;
* ``scp -r`` node by node; ``rsync -a`` over ssh, all nodes in parallel;
* ``parallel-slurp -r`` (parallel-ssh's pslurp), when installed.

Every pull is checked: the same files with the same sizes as on the node. Target (issue 4):
Receive-Trace at least as fast as the best of the others (ratio >= 1.0).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SESSION = "bench"


def _tree(root: Path) -> dict[str, int]:
    """Relative file path -> size under ``root`` (what a correct pull must reproduce)."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            out[str(p.relative_to(root))] = p.stat().st_size
    return out


async def _record(lc: Any, requests: int) -> dict[str, Path]:
    """Trace the workload on every node; return each node's archives directory."""
    from tests.fixtures.traceshell import run_on, shell_on
    from tests.fixtures.workloads.build import build_blkkin

    binary = build_blkkin()
    with tempfile.TemporaryDirectory() as tmp:
        sh = shell_on(lc, Path(tmp) / "db.duckdb")
        try:
            await sh.run(f"New-TraceSession {SESSION} -Rotate 1s")
            await sh.run(f"Enable-Tracepoint -Session {SESSION} -Domain user -Name 'zipkin:*'")
            await sh.run(f"Start-Trace {SESSION}")
            await run_on(sh, "@all", [str(binary), "--requests", str(requests)], timeout=600)
            await sh.run(f"Stop-Trace {SESSION}")
            await sh.run(f"Remove-TraceSession {SESSION} -Force")  # archives the last chunk
            memo = sh.state.globals.lookup("FayTraceSessions")[1][SESSION]
            return {n: Path(memo.outputs[n]) / "archives" for n in memo.nodes}
        finally:
            await sh.state.aclose()


def _fresh(base: Path, name: str) -> Path:
    d = base / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    return d


def _check(label: str, want: dict[str, dict[str, int]], got: dict[str, dict[str, int]]) -> None:
    for node, files in want.items():
        if got.get(node) != files:
            raise SystemExit(
                f"{label}: {node} pulled {len(got.get(node, {}))} files, "
                f"not the {len(files)} on the node (or sizes differ)"
            )


async def _fay(
    lc: Any, dest: Path, archives: dict[str, Path], want: dict[str, dict[str, int]]
) -> tuple[float, float]:
    """One Receive-Trace cold (new shell) and one warm (same shell again, new directory)."""
    from fayshell.tracing.records import SessionMemo
    from tests.fixtures.traceshell import shell_on

    sh = shell_on(lc, dest / "db.duckdb")
    # The session was destroyed: the shell finds the outputs the way it remembers them.
    sh.state.globals.set_local(
        "FayTraceSessions",
        {
            SESSION: SessionMemo(
                SESSION, list(want), outputs={n: str(p.parent) for n, p in archives.items()}
            )
        },
    )
    times = []
    try:
        for _ in ("cold", "warm"):
            out = _fresh(dest, "fay")
            start = time.perf_counter()
            await sh.run(f"Receive-Trace {SESSION} -Destination '{out}'")
            times.append(time.perf_counter() - start)
            got = {
                n: {
                    f"{c.name}/{k}": v
                    for c in (out / SESSION / n).iterdir()
                    for k, v in _tree(c).items()
                }
                for n in want
            }
            _check("Receive-Trace", want, got)
    finally:
        await sh.state.aclose()
    return times[0], times[1]


def _timed(
    run: Callable[[Path], None], dest: Path, name: str, want: dict[str, dict[str, int]]
) -> float:
    out = _fresh(dest, name)
    start = time.perf_counter()
    run(out)
    took = time.perf_counter() - start
    # pslurp names its per-host directories HOST:PORT ("node01:None" without a port).
    _check(
        name,
        want,
        {
            n: _tree(next(d for d in (out / n, out / f"{n}:None") if d.exists()) / "archives")
            for n in want
        },
    )
    return took


def _sh(argv: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"{p.args!r}: exit {p.returncode}: {err.decode()[-400:]}")


def bench(count: int, requests: int, repeat: int) -> dict[str, float]:
    from tests.fixtures.cluster import start_cluster

    lc = start_cluster(count)
    dest = Path(tempfile.mkdtemp(prefix="fay-bench-receive-"))
    try:
        archives = asyncio.run(_record(lc, requests))
        want = {n: _tree(p) for n, p in archives.items()}
        total = sum(sum(f.values()) for f in want.values())
        files = sum(len(f) for f in want.values())
        print(f"\n{count} nodes: {files} files, {total / 1e6:.1f} MB of chunks to pull")
        cfg = str(lc.ssh_config)

        def scp(out: Path) -> None:
            for n, p in archives.items():
                (out / n).mkdir()
                _wait([_sh(["scp", "-q", "-r", "-F", cfg, f"{n}:{p}", str(out / n)])])

        def rsync(out: Path) -> None:
            _wait(
                [
                    _sh(["rsync", "-a", "-e", f"ssh -F {cfg}", f"{n}:{p}", str(out / n) + "/"])
                    for n, p in archives.items()
                ]
            )

        hosts = lc.root / "hosts"
        hosts.write_text("\n".join(archives) + "\n")
        homes = {n: lc.node(n).home for n in archives}
        rel = {str(p.relative_to(homes[n])) for n, p in archives.items()}
        remote = rel.pop() if len(rel) == 1 else f"lttng-traces/{SESSION}-*/archives"

        def slurp(out: Path) -> None:
            # One pslurp for all nodes: the path relative to each node's home (where scp starts).
            _wait(
                [
                    _sh(
                        [
                            "parallel-slurp",
                            "-r",
                            "-p",
                            str(count),
                            "-x",
                            f"-F {cfg}",
                            "-h",
                            str(hosts),
                            "-L",
                            str(out),
                            remote,
                            "archives",
                        ]
                    )
                ]
            )

        tools: dict[str, Callable[[Path], None]] = {
            "scp -r, node by node": scp,
            f"rsync -a, {count} in parallel": rsync,
        }
        if shutil.which("parallel-slurp"):
            tools[f"parallel-slurp -r, {count} at once"] = slurp
        else:
            print("  (parallel-slurp not installed: skipped)")
        runs: dict[str, list[float]] = {"Receive-Trace cold": [], "Receive-Trace warm": []}
        for _ in range(repeat):  # interleaved rounds: a load change hits every tool alike
            cold, warm = asyncio.run(_fay(lc, dest, archives, want))
            runs["Receive-Trace cold"].append(cold)
            runs["Receive-Trace warm"].append(warm)
            for name, tool in tools.items():
                runs.setdefault(name, []).append(_timed(tool, dest, name.split()[0], want))
        medians = {name: statistics.median(times) for name, times in runs.items()}
        medians["_bytes"] = total
        return medians
    finally:
        shutil.rmtree(dest, ignore_errors=True)
        lc.close()


def report(medians: dict[str, float]) -> None:
    total = medians.pop("_bytes")
    others = {k: v for k, v in medians.items() if not k.startswith("Receive-Trace")}
    best_name, best = min(others.items(), key=lambda kv: kv[1])
    print("median seconds (MB/s), rounds interleaved:")
    for name, value in medians.items():
        print(f"  {name:<30} {value:8.3f}  ({total / value / 1e6:7.1f} MB/s)")
    for kind in ("cold", "warm"):
        ratio = best / medians[f"Receive-Trace {kind}"]
        print(f"  Receive-Trace {kind} vs {best_name}: {ratio:5.2f}x  (target >= 1.0)")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--requests", type=int, default=5000, help="BlkKin requests per node")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    report(bench(args.nodes, args.requests, args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
