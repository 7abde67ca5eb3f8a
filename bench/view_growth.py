"""Does a live view's refresh grow with the session? Its queries timed as the store grows.

    .venv/bin/python bench/view_growth.py [--minutes 8] [--nodes 8] [--every 30] [--explain]

Replays the soak's data without a cluster or a clock: the real python-agent chunks of
bench/small_chunks.py (``--chunks``; recorded on a 1-node test cluster the first time) are
imported one ``import_trace`` call per chunk and node, exactly as the live pump does, over
``--minutes`` of simulated time (each copy's metadata gets the node's hostname and a clock
offset moved on by the simulated time, both written over the same bytes, so every copy is a
new chunk with new timestamps). Every ``--every`` simulated seconds the refresh of the logs
view is run the way the screen runs it (existing tables, the page and per-severity counts,
the header, the per-node rates) on a cursor of its own, with ``now`` at the simulated clock
and the window of the last minute; each part is timed (best of 3, nothing else running).

Printed per step: events stored, each part's ms, import ms per chunk (median over the step),
the process RSS and DuckDB's own memory. With ``--explain`` the plans (EXPLAIN ANALYZE) of the
logs page and counts are printed at the end. A view whose window is bounded must show flat
query times while events grow.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SESSION = "soak"
NS = 1_000_000_000
OFFSET_RE = re.compile(rb"offset = (\d+);")


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def copy_chunk(src: Path, dest: Path, node: str, shift_ns: int) -> Path:
    """``src`` copied to ``dest`` with ``node`` as hostname and the clock moved by
    ``shift_ns`` (same byte lengths: the metadata packets stay valid)."""
    shutil.copytree(src, dest)
    for meta in dest.rglob("metadata"):
        data = meta.read_bytes()
        data = data.replace(b'hostname = "node01"', f'hostname = "{node}"'.encode())

        def moved(m: re.Match[bytes]) -> bytes:
            new = str(int(m.group(1)) + shift_ns).encode()
            assert len(new) == len(m.group(1))
            return b"offset = " + new + b";"

        meta.write_bytes(OFFSET_RE.sub(moved, data))
    return dest


def best_ms(fn: Callable[[], Any], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return min(times)


def refresh_parts(cur: Any, now_ns: int) -> dict[str, float]:
    """The logs view's refresh, part by part, as the screen runs it."""
    from fayshell.views.model import Query, Scope
    from fayshell.views.queries import common
    from fayshell.views.queries import logs as lq

    q = Query(now_ns=now_ns, interval_ns=NS, window="minute", scope=Scope(SESSION))
    return {
        "tables": best_ms(lambda: common.existing_tables(cur)),
        "page": best_ms(lambda: lq.log_page(cur, q, "Debug")),
        "header": best_ms(lambda: common.header(cur, q, "logs", "ts", live=True)),
        "rates": best_ms(lambda: common.node_rates(cur, q, "logs", "ts")),
    }


def explain(cur: Any, now_ns: int) -> None:
    from fayshell.views.filters import query_where
    from fayshell.views.model import Query, Scope
    from fayshell.views.queries import logs as lq

    q = Query(now_ns=now_ns, interval_ns=NS, window="minute", scope=Scope(SESSION))
    w = query_where(q, "ts", lq.FIELDS)
    for sql in (
        f"SELECT severity, count(*) FROM logs WHERE {w.sql()} GROUP BY severity",
        f"SELECT ts, node, severity, logger, msg FROM logs WHERE {w.sql()} "
        "ORDER BY ts DESC, node, logger, msg LIMIT 1000",
    ):
        print(sql)
        for row in cur.execute("EXPLAIN ANALYZE " + sql, w.params).fetchall():
            print(row[1])


def main(argv: list[str] | None = None) -> int:
    from bench.small_chunks import DEFAULT_DIR, chunk_dirs, generate_cluster

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chunks", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--minutes", type=float, default=8.0, help="simulated session length")
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--every", type=float, default=30.0, help="simulated seconds between looks")
    ap.add_argument("--explain", action="store_true")
    args = ap.parse_args(argv)
    if not args.chunks.is_dir() or not any(args.chunks.rglob("metadata")):
        args.chunks.mkdir(parents=True, exist_ok=True)
        generate_cluster(args.chunks, 40, 50)
    from fayshell.store.database import Database
    from fayshell.store.loader import import_trace

    chunks = [d for _, _, d in chunk_dirs(args.chunks)]
    if len(chunks) > 2:  # the first and last chunk of a recording are partial seconds
        chunks = chunks[1:-1]
    work = Path(tempfile.mkdtemp(prefix="fay-growth-"))
    db = Database.open(str(work / "growth.duckdb"))
    cur = None
    base_ns: int | None = None
    import_ms: list[float] = []
    next_look = args.every
    print(
        f"{'sim s':>6} {'events':>9} {'tables':>7} {'page':>7} {'header':>7} {'rates':>7} "
        f"{'import':>7} {'rss MiB':>8} {'duckdb MiB':>10}"
    )
    try:
        for sec in range(int(args.minutes * 60)):
            src = chunks[sec % len(chunks)]
            shift = (sec // len(chunks)) * len(chunks) * NS
            for n in range(1, args.nodes + 1):
                node = f"node{n:02d}"
                copy = copy_chunk(
                    src, work / "c" / SESSION / node / f"{src.name}-{sec}", node, shift
                )
                t0 = time.perf_counter()
                res = import_trace(db, copy, node=node, session=SESSION)
                import_ms.append((time.perf_counter() - t0) * 1e3)
                if res.errors:
                    raise SystemExit(res.errors[0].one_line())
                shutil.rmtree(copy)
            if sec + 1 < next_look:
                continue
            next_look += args.every
            with db.lock:
                if cur is None:
                    cur = db.con.cursor()
                newest = cur.execute("SELECT max(ts), count(*) FROM logs").fetchone()
                assert newest is not None
                base_ns = base_ns or newest[0]
                parts = refresh_parts(cur, newest[0] + NS // 2)
                mem = dict(
                    cur.execute("SELECT tag, memory_usage_bytes FROM duckdb_memory()").fetchall()
                )
            wal = work / "growth.duckdb.wal"
            print(
                f"{sec + 1:6d} {newest[1]:9d} {parts['tables']:7.1f} {parts['page']:7.1f} "
                f"{parts['header']:7.1f} {parts['rates']:7.1f} "
                f"{statistics.median(import_ms):7.1f} {rss_mib():8.1f} "
                f"{sum(mem.values()) / 2**20:10.1f} "
                f"(tables {mem.get('BASE_TABLE', 0) / 2**20:.1f}, "
                f"in-memory {mem.get('IN_MEMORY_TABLE', 0) / 2**20:.1f}, "
                f"WAL {(wal.stat().st_size if wal.exists() else 0) / 2**20:.1f})",
                flush=True,
            )
            import_ms = []
        if args.explain and cur is not None:
            row = cur.execute("SELECT max(ts) FROM logs").fetchone()
            assert row is not None
            explain(cur, row[0] + NS // 2)
    finally:
        if cur is not None:
            cur.close()
        db.close()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
