"""Completion benchmark: how long one Tab takes (median of N calls of fayshell.completion.complete)
for the cursor positions the REPL meets, over a table of M rows. The relation cases ask DuckDB
for the columns of the upstream query without running it, so their time must not grow with M.
A Tab should answer well inside a keystroke (~50 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from fayshell.completion import complete
from fayshell.host import CaptureHost
from fayshell.lang.interp import Interpreter
from fayshell.state import Options, ShellState

LINES = {
    "command name": "1 | Sort-O",
    "parameter": "Get-ChildItem -Fi",
    "sql tail": "sql SELECT * FROM calls WHERE du",
    "columns after sql |": "sql SELECT * FROM calls | Sort-Object dur",
    "$_. in a block": "sql SELECT * FROM calls | Where-Object { $_.dur_ns -gt 5 -and $_.na",
    "store cmdlet |": "Get-Syscall | Sort-Object -Property du",
    "files": "Get-Content ./",
}


async def prepare(db: Path, rows: int) -> ShellState:
    state = ShellState(Options(database=str(db)), CaptureHost())
    interp = Interpreter(state)
    await interp.run(
        f"sql CREATE TABLE calls AS SELECT range AS dur_ns, 'read' AS name, "
        f"range / 1e6 AS dur_ms FROM range({rows})"
    )
    return state


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--runs", type=int, default=50)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        state = asyncio.run(prepare(Path(tmp) / "bench.duckdb", opts.rows))
        print(f"rows: {opts.rows:,}   runs per line: {opts.runs}")
        for label, line in LINES.items():
            times = []
            for _ in range(opts.runs):
                start = time.perf_counter()
                found = complete(state, line)
                times.append(time.perf_counter() - start)
            shown = ", ".join(c.text for c in found[:3])
            print(f"{label:22} {statistics.median(times) * 1000:7.2f} ms   ({shown})")
        state.database.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
