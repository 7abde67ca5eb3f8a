"""Fixed cost of importing small chunks: one ``import_trace`` call per chunk into one database.

    .venv/bin/python bench/small_chunks.py [--chunks DIR] [-n 60] [--profile OUT.prof]

The chunks are real ones, as a live view pulls them: one node of a test cluster
(tests/fixtures/cluster.py; needs root) runs the soak's python-agent program
(tests/fixtures/soak.py) at ``--rate`` records a second under a session rotating every second
(``New-TraceSession -Rotate 1s``); the session is stopped and ``Receive-Trace`` pulls the
chunks without importing them into ``--chunks DIR`` (kept: later runs reuse them). With
``--source ctfgen`` the chunks are small kernel chunks from tests/fixtures/ctfgen.py instead
(no cluster needed).

Each chunk is imported with its own ``import_trace(db, chunk, node=, session=)`` call, in
order, into one fresh DuckDB file, exactly as the live pump does. Printed: ms per chunk
(median, p90) wall and CPU (this process's CPU time, all threads), and SQL statements per
chunk (every execute/executemany/sql on the connection, counted by a forwarding wrapper).
``--profile OUT.prof`` runs the same loop under cProfile and prints the top functions;
``--statements`` prints the statements by total time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SESSION = "small"
DEFAULT_DIR = Path(tempfile.gettempdir()) / "fay-small-chunks"


class CountingConnection:
    """A DuckDB connection that counts the statements sent through it."""

    def __init__(self, con: Any) -> None:
        self._con = con
        self.statements = 0
        self.seconds: dict[str, list[float]] = {}  # statement head -> [calls, seconds]

    def _timed(self, fn: Any, sql: str, *args: Any, **kw: Any) -> Any:
        self.statements += 1
        t0 = time.perf_counter()
        try:
            return fn(sql, *args, **kw)
        finally:
            tally = self.seconds.setdefault(" ".join(str(sql).split())[:70], [0, 0.0])
            tally[0] += 1
            tally[1] += time.perf_counter() - t0

    def execute(self, sql: str, *args: Any, **kw: Any) -> Any:
        return self._timed(self._con.execute, sql, *args, **kw)

    def executemany(self, sql: str, *args: Any, **kw: Any) -> Any:
        return self._timed(self._con.executemany, sql, *args, **kw)

    def sql(self, sql: str, *args: Any, **kw: Any) -> Any:
        return self._timed(self._con.sql, sql, *args, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def chunk_dirs(root: Path) -> list[tuple[str, str, Path]]:
    """(session, node, chunk dir) of every chunk under ``root`` (<session>/<node>/<chunk>/),
    in name order (the order they were recorded)."""
    from fayshell.ctf.trace import find_traces
    from fayshell.store.loader import layout_names

    out = []
    for tdir in find_traces(root):
        session, node = layout_names(tdir, root)
        out.append((session or SESSION, node or "node01", tdir))
    return out


def generate_cluster(dest: Path, seconds: float, rate: float) -> None:
    """Trace the soak program on a 1-node cluster with 1 s rotation; pull without import."""
    from tests.fixtures.cluster import start_cluster

    lc = start_cluster(1)
    try:
        asyncio.run(_record(lc, dest, seconds, rate))
    finally:
        lc.close()


async def _record(lc: Any, dest: Path, seconds: float, rate: float) -> None:
    from tests.fixtures.soak import emitter_script
    from tests.fixtures.traceshell import SYSTEM_PYTHON, run_on, shell_on

    sh = shell_on(lc, Path(tempfile.mkdtemp(prefix="fay-small-db-")) / "rec.duckdb")
    try:
        await sh.run(f"New-TraceSession {SESSION} -Node '{lc.nodeset}' -Rotate 1s")
        await sh.run(f"Enable-Tracepoint -Session {SESSION} -Domain python -Name 'soak.*'")
        await sh.run(f"Start-Trace {SESSION}")
        done = await run_on(
            sh,
            lc.nodeset,
            [SYSTEM_PYTHON, str(emitter_script()), str(rate), str(seconds)],
            timeout=seconds + 120,
        )
        await sh.run(f"Stop-Trace {SESSION}")
        await sh.run(f"Remove-TraceSession {SESSION} -Force")
        await sh.run(f"Receive-Trace {SESSION} -Destination '{dest}'")
        print(f"emitted {sum(v['total'] for v in done.values())} records", flush=True)
    finally:
        await sh.state.aclose()


def generate_ctfgen(dest: Path, count: int, events: int) -> None:
    """``count`` small kernel chunks of ``events`` events each (one trace split in time)."""
    from tests.fixtures.ctfgen import GenSpec, write_trace

    write_trace(
        dest / SESSION / "node01",
        GenSpec(events=events * count, cpus=2, chunks=count, packet_size=4096, keep_truth=False),
    )


def import_each(
    chunks: list[tuple[str, str, Path]],
    db_path: Path,
    statements: bool = False,
) -> tuple[list[float], list[float], list[int], int]:
    """Import every chunk with its own call; per-chunk wall ms, CPU ms, statements; events."""
    from fayshell.store.database import Database
    from fayshell.store.loader import import_trace

    db = Database.open(str(db_path))
    counter = CountingConnection(db._con)
    db._con = counter  # type: ignore[assignment]
    walls, cpus, stmts, events = [], [], [], 0
    try:
        for session, node, tdir in chunks:
            before, w0, c0 = counter.statements, time.perf_counter(), time.process_time()
            res = import_trace(db, tdir, node=node, session=session)
            walls.append((time.perf_counter() - w0) * 1e3)
            cpus.append((time.process_time() - c0) * 1e3)
            stmts.append(counter.statements - before)
            if res.errors:
                raise SystemExit(f"{tdir}: {res.errors[0].one_line()}")
            events += res.events
    finally:
        db._con = counter._con
        db.close()
    if statements:
        print("statements by total time (calls, ms):")
        for head, (calls, secs) in sorted(counter.seconds.items(), key=lambda kv: -kv[1][1])[:25]:
            print(f"  {calls:5d} {secs * 1e3:8.1f}  {head}")
    return walls, cpus, stmts, events


def p90(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=10, method="inclusive")[-1] if len(xs) > 1 else xs[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--chunks",
        type=Path,
        default=DEFAULT_DIR,
        help=f"chunk directory (made when empty; default {DEFAULT_DIR})",
    )
    ap.add_argument("--source", choices=("cluster", "ctfgen"), default="cluster")
    ap.add_argument("--seconds", type=float, default=40, help="cluster recording length")
    ap.add_argument("--rate", type=float, default=50, help="records a second (cluster)")
    ap.add_argument("-n", type=int, default=0, help="chunks to import (0: all)")
    ap.add_argument("--skip", type=int, default=3, help="first chunks not counted (warm-up)")
    ap.add_argument("--profile", type=Path, help="cProfile the import loop into this file")
    ap.add_argument("--statements", action="store_true", help="print time per SQL statement")
    args = ap.parse_args(argv)
    if not args.chunks.is_dir() or not any(args.chunks.rglob("metadata")):
        args.chunks.mkdir(parents=True, exist_ok=True)
        if args.source == "cluster":
            generate_cluster(args.chunks, args.seconds, args.rate)
        else:
            generate_ctfgen(args.chunks, args.n or 60, int(args.rate))
    chunks = chunk_dirs(args.chunks)
    chunks = chunks[: args.n] if args.n else chunks
    db_path = Path(tempfile.mkdtemp(prefix="fay-small-bench-")) / "bench.duckdb"
    prof = cProfile.Profile() if args.profile else None
    if prof is not None:
        prof.enable()
    walls, cpus, stmts, events = import_each(chunks, db_path, args.statements)
    if prof is not None:
        prof.disable()
        prof.dump_stats(str(args.profile))
        pstats.Stats(str(args.profile)).sort_stats("cumulative").print_stats(30)
    k = min(args.skip, len(walls) - 1)
    walls, cpus, stmts = walls[k:], cpus[k:], stmts[k:]
    print(
        f"{len(chunks)} chunks ({events} events, {events / len(chunks):.0f}/chunk) from "
        f"{args.chunks}; first {k} not counted"
    )
    print(f"wall ms/chunk: median {statistics.median(walls):.1f}, p90 {p90(walls):.1f}")
    print(f"CPU  ms/chunk: median {statistics.median(cpus):.1f}, p90 {p90(cpus):.1f}")
    print(f"SQL statements/chunk: median {statistics.median(stmts):.0f}, max {max(stmts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
