"""Dead entries of DuckDB's eviction queues under live-style imports, without the cluster.

    python bench/evict_repro.py [--imports 4000] [--every 500] [--purge-every 0]
    python bench/evict_repro.py --loader [--imports 800] [--max-dead 4096]

What a live view does to the database, in a loop on a file database: an import (memory limit
set to 32 MB, a few hundred rows appended to three tables in one transaction, the limit set
back), and every 8 imports a refresh query over the last rows. Printed every ``--every``
imports: the dead entries of the eviction queues (duckdb_eviction_queues()), the queues' size,
DuckDB's own memory and the process's RSS. Needs only duckdb and pyarrow, so it runs under any
venv (to compare DuckDB releases). ``--purge-every N`` purges the queues every N imports the
way fayshell.store.evict does (an unreachable memory limit, which DuckDB refuses after walking
every queue), to compare. ``--loader`` instead imports generated one-chunk kernel traces (300
events each) through fayshell's own loader with LIVE_SETTINGS, its queue bound set by
``--max-dead`` (0: never emptied).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pyarrow as pa

ROWS = 200
SCHEMA = """
CREATE TABLE events(node VARCHAR, chunk_id VARCHAR, ts BIGINT, name VARCHAR, cpu INTEGER);
CREATE TABLE payload(chunk_id VARCHAR, eid BIGINT, msg VARCHAR, level INTEGER);
CREATE TABLE logs(node VARCHAR, ts BIGINT, logger VARCHAR, level INTEGER, msg VARCHAR);
CREATE TABLE chunks(chunk_id VARCHAR, node VARCHAR, events BIGINT, loaded_at BIGINT);
"""


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def queues(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """(dead entries, approximate entries) over every eviction queue."""
    row = con.execute(
        "SELECT sum(dead_nodes), sum(approximate_size) FROM duckdb_eviction_queues()"
    ).fetchone()
    assert row is not None
    return int(row[0] or 0), int(row[1] or 0)


def duckdb_mib(con: duckdb.DuckDBPyConnection) -> float:
    row = con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()
    assert row is not None
    return float(row[0] or 0) / 2**20


def one_import(con: duckdb.DuckDBPyConnection, k: int, limit: str) -> None:
    """One node's chunk: rows appended to each table in one transaction under 32 MB, then
    the memory limit set back to ``limit``."""
    con.execute("SET memory_limit = '32MB'")
    node, chunk = f"node{k % 8:02d}", f"c{k}"
    ts = pa.array(range(k * ROWS, (k + 1) * ROWS), pa.int64())
    msg = pa.array([f"soak seq={i}" for i in range(k * ROWS, (k + 1) * ROWS)])
    level = pa.array([i % 4 * 10 for i in range(ROWS)], pa.int32())
    events = pa.table(
        {
            "node": [node] * ROWS,
            "chunk_id": [chunk] * ROWS,
            "ts": ts,
            "name": ["python:event"] * ROWS,
            "cpu": pa.array([i % 2 for i in range(ROWS)], pa.int32()),
        }
    )
    payload = pa.table({"chunk_id": [chunk] * ROWS, "eid": ts, "msg": msg, "level": level})
    logs = pa.table(
        {"node": [node] * ROWS, "ts": ts, "logger": ["soak.app"] * ROWS, "level": level, "msg": msg}
    )
    con.execute("BEGIN")
    for name, table in (("events", events), ("payload", payload), ("logs", logs)):
        con.register("_batch", table)
        con.execute(f"INSERT INTO {name} SELECT * FROM _batch")
        con.unregister("_batch")
    con.execute("INSERT INTO chunks VALUES (?, ?, ?, ?)", [chunk, node, ROWS, k])
    con.execute("COMMIT")
    con.execute(f"SET memory_limit = '{limit}'")


def refresh(con: duckdb.DuckDBPyConnection, k: int) -> None:
    """The view's query over its last window."""
    lo = max(0, (k - 480) * ROWS)
    con.execute(
        "SELECT node, level, count(*), max(ts) FROM logs WHERE ts >= ? GROUP BY ALL ORDER BY ALL",
        [lo],
    ).fetchall()


def purge(con: duckdb.DuckDBPyConnection, limit: str) -> None:
    """Walk every eviction queue to its end: ask for a 0-byte limit, which DuckDB refuses
    once it has evicted all it can (the limit stays as it was)."""
    try:
        con.execute("SET memory_limit = '0B'")
    except duckdb.OutOfMemoryException:
        return
    con.execute(f"SET memory_limit = '{limit}'")


def loader_main(imports: int, every: int, max_dead: int) -> None:
    """The same samples over fayshell's import_trace of ``imports`` small chunks."""
    from dataclasses import replace

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

    from fayshell.store.database import Database
    from fayshell.store.loader import import_trace
    from fayshell.store.settings import LIVE_SETTINGS
    from tests.fixtures.ctfgen import GenSpec, write_trace

    tmp = Path(tempfile.mkdtemp(prefix="fay-evict-"))
    spec = GenSpec(events=300 * imports, cpus=2, chunks=imports, keep_truth=False)
    dirs = write_trace(tmp / "t", spec).dirs
    settings = replace(LIVE_SETTINGS, max_dead_entries=max_dead)
    db = Database.open(str(tmp / "repro.duckdb"))
    print(f"duckdb {duckdb.__version__}, {imports} loader imports, max dead entries {max_dead}")
    start = time.monotonic()
    for k, chunk in enumerate(dirs, 1):
        import_trace(db, chunk, node=f"n{k % 8}", session="s", settings=settings)
        if k % 8 == 0:
            db.execute("SELECT node, count(*), max(ts) FROM events GROUP BY ALL")
        if k % every == 0:
            dead, size = queues(db.con)
            print(
                f"  imports={k:6d} dead_nodes={dead:8d} queued={size:8d} "
                f"duckdb={duckdb_mib(db.con):6.1f} MiB rss={rss_mib():6.1f} MiB "
                f"t={time.monotonic() - start:5.1f}s",
                flush=True,
            )
    db.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--imports", type=int, default=4000)
    ap.add_argument("--every", type=int, default=500)
    ap.add_argument("--purge-every", type=int, default=0)
    ap.add_argument("--loader", action="store_true", help="through fayshell's import_trace")
    ap.add_argument("--max-dead", type=int, default=4096, help="with --loader (0: off)")
    args = ap.parse_args(argv)
    if args.loader:
        loader_main(args.imports, args.every, args.max_dead)
        return 0
    path = Path(tempfile.mkdtemp(prefix="fay-evict-")) / "repro.duckdb"
    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    limit = "1GB"
    con.execute(f"SET memory_limit = '{limit}'")
    print(f"duckdb {duckdb.__version__}, {args.imports} imports, purge every {args.purge_every}")
    start = time.monotonic()
    for k in range(1, args.imports + 1):
        one_import(con, k, limit)
        if k % 8 == 0:
            refresh(con, k)
        if args.purge_every and k % args.purge_every == 0:
            purge(con, limit)
        if k % args.every == 0:
            dead, size = queues(con)
            print(
                f"  imports={k:6d} dead_nodes={dead:8d} queued={size:8d} "
                f"duckdb={duckdb_mib(con):6.1f} MiB rss={rss_mib():6.1f} MiB "
                f"t={time.monotonic() - start:5.1f}s",
                flush=True,
            )
    con.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
