"""Soak: a live Show-Top logs view over 8 nodes, rotation every second, for 30 minutes.

    .venv/bin/python bench/soak.py [--nodes 8] [--minutes 30] [--rate 200]

Starts a real test cluster (tests/fixtures/cluster.py; needs root). Every node logs ``--rate``
numbered records a second through LTTng's Python agent for the whole run while the view runs
live (tests/fixtures/soak.py). Printed: per node, events emitted against stored + discarded
(must be equal, nothing stored twice); the shell's RSS slope after warm-up (MiB/min); refresh
p50/p99 in the first and last quarter; database bytes per event at mid-run and at the end; the
pulled chunks left in the chunk directory once imported (must be 0). Each sample line also
shows DuckDB's own memory (duckdb_memory()) and the dead entries of its eviction queues (their
bookkeeping stays on the C heap, outside duckdb_memory()). Exit status 1 when a promise is broken.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def report(result: object) -> list[str]:
    """The figures, one line each, and the broken promises last."""
    from tests.fixtures.soak import SoakResult

    assert isinstance(result, SoakResult)
    lines = [
        f"{node}: emitted {sent}, stored {result.stored.get(node, 0)}, "
        f"discarded {result.discarded.get(node, 0)}, "
        f"duplicates {result.duplicates.get(node, 0)}"
        for node, sent in sorted(result.emitted.items())
    ]
    first, last = result.refresh_quantiles("start"), result.refresh_quantiles("end")
    rss = [s.rss_mib for s in result.samples]
    lines += [
        f"RSS: start {rss[0]:.0f} MiB, end {rss[-1]:.0f} MiB, max {max(rss):.0f} MiB; "
        f"slope after warm-up {result.rss_slope_mib_per_min():+.2f} MiB/min",
        f"refresh: start p50 {first[0]:.0f} ms p99 {first[1]:.0f} ms; "
        f"end p50 {last[0]:.0f} ms p99 {last[1]:.0f} ms ({len(result.refresh_ms)} refreshes)",
        f"shell CPU: start {result.cpu_per_s('start'):.2f} s/s, end {result.cpu_per_s('end'):.2f} s/s; "
        f"load average {min(s.load for s in result.samples):.1f}-"
        f"{max(s.load for s in result.samples):.1f} (2 cores)",
        f"database: {result.bytes_per_event('middle'):.1f} bytes/event at mid-run, "
        f"{result.bytes_per_event('end'):.1f} at the end",
        f"pulled chunks left in the chunk directory: {result.chunks_left}",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--rate", type=float, default=200.0, help="records per second per node")
    ap.add_argument("--every", type=float, default=10.0, help="seconds between samples")
    args = ap.parse_args(argv)
    from fayshell.cli import prepare_process

    prepare_process()  # the allocator settings the shell runs with: the soak measures them
    from tests.fixtures.cluster import start_cluster
    from tests.fixtures.soak import run_soak

    def say(s: object) -> None:
        print(
            f"  t={s.t_s:7.0f}s rss={s.rss_mib:6.1f} MiB refresh={s.refresh_ms:6.1f} ms "  # type: ignore[attr-defined]
            f"events={s.events} db={s.db_bytes >> 20} MiB chunks_left={s.chunks_left} "  # type: ignore[attr-defined]
            f"duckdb={s.duckdb_mib:.0f} MiB lag={s.lag_s:.1f}s "  # type: ignore[attr-defined]
            f"cpu={s.cpu_s:.0f}s load={s.load:.1f} "  # type: ignore[attr-defined]
            f"dead_nodes={s.dead_nodes}{heap(s.heap)}",  # type: ignore[attr-defined]
            flush=True,
        )

    def heap(h: object) -> str:
        if h is None:
            return ""
        return (
            f" malloc={h.malloc_used_mib:.0f}+{h.malloc_free_mib:.0f}free MiB "  # type: ignore[attr-defined]
            f"arrow={h.arrow_used_mib:.0f} MiB threads={h.threads} "  # type: ignore[attr-defined]
            f"anon={h.anon_mib:.0f} file={h.file_mib:.0f} MiB py_blocks={h.py_blocks}"  # type: ignore[attr-defined]
        )

    lc = start_cluster(args.nodes)
    db = Path(tempfile.mkdtemp(prefix="fay-soak-")) / "soak.duckdb"
    try:
        print(
            f"{args.nodes} nodes, rotation 1s, {args.rate:g} records/s per node, "
            f"{args.minutes:g} min"
        )
        result = asyncio.run(run_soak(lc, db, args.minutes * 60, args.rate, args.every, say))
    finally:
        lc.close()
    for line in report(result):
        print(line)
    problems = result.problems()
    for p in problems:
        print(f"BROKEN: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
