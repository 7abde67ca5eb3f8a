"""Startup benchmark: ``fayshell -c 'Write-Output 1'`` against bare ``python3 -c pass``.

Both run with the same interpreter (the project's venv), fresh processes, median of N runs.
Target: ratio <= 8 (about the cost of importing asyncio and little more).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

TARGET = 8.0


def median_seconds(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=21)
    opts = ap.parse_args()
    fayshell = shutil.which("fayshell") or sys.exit("fayshell is not installed in this venv")
    bare = median_seconds([sys.executable, "-c", "pass"], opts.runs)
    asyncio_only = median_seconds([sys.executable, "-c", "import asyncio"], opts.runs)
    fay = median_seconds([fayshell, "--no-profile", "-c", "Write-Output 1"], opts.runs)
    ratio = fay / bare
    print(f"python3 -c pass            {bare * 1000:8.1f} ms")
    print(
        f"python3 -c 'import asyncio' {asyncio_only * 1000:7.1f} ms  ({asyncio_only / bare:.1f}x)"
    )
    print(f"fayshell -c 'Write-Output 1' {fay * 1000:6.1f} ms  ({ratio:.1f}x bare python)")
    print(f"ratio {ratio:.2f} (target <= {TARGET}): {'OK' if ratio <= TARGET else 'OVER TARGET'}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
