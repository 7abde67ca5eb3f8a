"""Pipeline benchmark: the issue's example runs inside DuckDB, versus the same pipeline forced
row-wise ($FayPushdown = $false), same rows, same process kind (fresh `fayshell -c` each).

    sql SELECT range AS i, range % 7 AS k FROM range(N) | Where-Object { $_.k -eq 3 } |
        Group-Object k | Select-Object Name, Count
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

PIPELINE = (
    "sql SELECT range AS i, range % 7 AS k FROM range({n}) | Where-Object {{ $_.k -eq 3 }} "
    "| Group-Object k | Select-Object Name, Count"
)


def run(fayshell: str, src: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(
        [fayshell, "--db", ":memory:", "-c", src], capture_output=True, text=True, check=True
    )
    return time.perf_counter() - start, proc.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3, help="runs of the DuckDB path (median)")
    opts = ap.parse_args()
    fayshell = shutil.which("fayshell") or sys.exit("fayshell is not installed in this venv")
    src = PIPELINE.format(n=opts.rows)
    sql_runs = [run(fayshell, src) for _ in range(opts.runs)]
    sql_time = statistics.median(t for t, _ in sql_runs)
    row_time, row_out = run(fayshell, "$FayPushdown = $false; " + src)
    expected = opts.rows // 7 + (1 if opts.rows % 7 > 3 else 0)
    same = sql_runs[0][1] == row_out and str(expected) in row_out
    print(f"rows: {opts.rows:,}   result identical on both paths: {same} (Count {expected:,})")
    print(f"in DuckDB (one query)   {sql_time:8.2f} s  (median of {opts.runs}, process included)")
    print(f"row-wise (forced)       {row_time:8.2f} s  ({opts.rows / row_time:,.0f} rows/s)")
    print(f"ratio row-wise / DuckDB {row_time / sql_time:8.1f}x")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
