"""Bench: Export-Trace of 1M spans to each format — time and peak memory of the exporting process.

Each export runs in a fresh child process (``--child FORMAT``) that opens the DuckDB file, runs
fayshell.store.export.export and reports its wall time and peak RSS (ru_maxrss); the baseline
child only opens the file and counts the spans (the memory every child has before exporting).
The reference is DuckDB writing the same rows itself, unconverted: ``COPY spans TO … (FORMAT
json)`` (newline-delimited JSON of the raw rows), the ceiling for a JSON export built by DuckDB.

Data (generated with DuckDB's range(), cached): 1M spans in 333,334 three-span traces over 60 s,
8 nodes, 4 services, 4 annotations each (cs, sr, ss, cr) and 1–2 key/values, as Import-Trace
stores BlkKin spans.

    .venv/bin/python bench/export.py [--spans 1000000] [--db PATH] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

T0 = 1_700_000_000_000_000_000
FORMATS = ("parquet", "zipkin", "chrome")
SUFFIX = {"parquet": ".parquet", "zipkin": ".json", "chrome": ".json", "duckdb-json": ".json"}


def generate(path: Path, spans: int) -> None:
    con = duckdb.connect(str(path))
    step = 60_000_000_000 // spans
    con.execute(f"""
        CREATE OR REPLACE TABLE spans AS
        WITH r AS (SELECT i, i // 3 AS t, i % 3 AS depth, (hash(i) % 50000)::BIGINT AS jitter
                   FROM range({spans}) x(i)),
        s AS (SELECT *, {T0} + t * 3 * {step} + depth * 1000 AS ts0,
                     (40000 + jitter) * (3 - depth) AS dur FROM r)
        SELECT 'node' || lpad((t % 8)::VARCHAR, 2, '0') AS node, 'bench' AS session,
               (hash(t) >> 1)::BIGINT AS trace_id, (hash(i) >> 1)::BIGINT AS span_id,
               CASE WHEN depth = 0 THEN 0 ELSE (hash(i - 1) >> 1)::BIGINT END AS parent_span_id,
               ['client', 'vlmcd', 'mapperd', 'blockerd'][1 + depth] AS service,
               '10.0.0.' || (1 + depth) AS ip, (6800 + depth)::INTEGER AS port,
               ['volume_read', 'map_extent', 'block_io'][1 + depth] AS name,
               ts0 AS ts_start, ts0 + dur AS ts_end, dur AS dur_ns, dur AS client_dur_ns,
               dur - 2000 AS server_dur_ns,
               [{{'ts': ts0, 'value': 'cs'}}, {{'ts': ts0 + 1000, 'value': 'sr'}},
                {{'ts': ts0 + dur - 1000, 'value': 'ss'}}, {{'ts': ts0 + dur, 'value': 'cr'}}]
                 ::STRUCT(ts BIGINT, value VARCHAR)[] AS annotations,
               CASE WHEN depth = 2 THEN MAP {{'device': 'vda', 'bytes': '4096'}}
                    ELSE MAP {{'http.method': 'GET'}} END AS keyvals,
               false AS error, 1 AS chunk_no
        FROM s""")
    con.close()


def ensure(path: Path, spans: int) -> None:
    if path.exists():
        con = duckdb.connect(str(path), read_only=True)
        try:
            if con.execute("SELECT count(*) FROM spans").fetchone() == (spans,):
                return
        except duckdb.Error:
            pass
        finally:
            con.close()
        path.unlink()
    print(f"generating {spans:,} spans in {path} ...", file=sys.stderr)
    generate(path, spans)


def child(fmt: str, db_path: str, out: str) -> None:
    """One export in this process; prints {"seconds", "rss_mb", "bytes"} as JSON."""
    from fayshell.host import NullProgress
    from fayshell.store.database import Database
    from fayshell.store.export import ExportRequest, export

    db = Database.open(db_path)
    start = time.perf_counter()
    if fmt == "baseline":
        db.execute("SELECT count(*) FROM spans")
    elif fmt == "duckdb-json":
        db.execute(f"COPY spans TO '{out}' (FORMAT json)")
    else:
        export(
            ExportRequest(db.relation("SELECT * FROM spans"), fmt, Path(out)),  # type: ignore[arg-type]
            NullProgress(),
        )
    secs = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size = os.path.getsize(out) if os.path.exists(out) else 0
    print(json.dumps({"seconds": secs, "rss_mb": rss, "bytes": size}))


def run_child(fmt: str, db: Path, tmp: Path) -> dict[str, float]:
    out = tmp / f"out-{fmt}{SUFFIX.get(fmt, '')}"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run(
        [sys.executable, __file__, "--child", fmt, "--db", str(db), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{fmt}: {proc.stderr.strip()}")
    out.unlink(missing_ok=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spans", type=int, default=1_000_000)
    ap.add_argument(
        "--db", type=Path, default=Path(tempfile.gettempdir()) / "fay-bench-export.duckdb"
    )
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child")
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.child:
        child(args.child, str(args.db), args.out)
        return
    ensure(args.db, args.spans)
    with tempfile.TemporaryDirectory() as tmp:
        base = run_child("baseline", args.db, Path(tmp))
        print(f"{args.spans:,} spans; baseline child (open + count): {base['rss_mb']:.0f} MB RSS")
        print(
            f"{'format':12} {'median s':>9} {'spans/s':>10} {'peak RSS MB':>12} "
            f"{'file MB':>8} {'vs duckdb json':>15}"
        )
        ref = None
        for fmt in ("duckdb-json", *FORMATS):
            runs = [run_child(fmt, args.db, Path(tmp)) for _ in range(args.runs)]
            secs = statistics.median(r["seconds"] for r in runs)
            ref = ref or secs
            print(
                f"{fmt:12} {secs:9.2f} {args.spans / secs:10,.0f} "
                f"{max(r['rss_mb'] for r in runs):12.0f} {runs[0]['bytes'] / 1e6:8.1f} "
                f"{secs / ref:14.2f}x"
            )


if __name__ == "__main__":
    main()
