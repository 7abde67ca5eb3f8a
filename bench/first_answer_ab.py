"""Compare checkouts on the time to first answer (bench/first_answer.py's query and traces).

    .venv/bin/python bench/first_answer_ab.py OLD_CHECKOUT NEW_CHECKOUT [--pairs 60]

Each checkout must be built (``setup.py build_ext --inplace`` and ``compileall``, as
scripts/bootstrap.sh does). Each round runs every checkout once, in alternating order, each a
fresh ``fayshell -c "Import-Trace DIR | Out-Null; sql Q"`` stopped (killed) as soon as the first
row of the answer is printed: the import's write after the answer is not waited for, so a round
takes about twice the answer time.

Why this exists: on this two-core VM one checkout's answer varies from run to run by a third
(1.09 to 1.57 s over 20 runs of the same checkout), so differences under 0.1 s need tens of
pairs. Decisions made on 16 pairs flipped sign on a rerun (parallel span grouping: +0.04 s,
then -0.08 s, then +0.01 s over 60 pairs). Paired differences (each checkout against the first,
same round) cancel the machine's slow and fast spells; their median, mean and the count of
faster pairs are printed, with the CPU seconds the process had used at the answer.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from first_answer import QUERIES, cpu_now, is_rule  # noqa: E402
from ingest import ensure_kernel, ensure_ust  # noqa: E402

Sample = tuple[float, float]  # wall seconds to the first row, CPU seconds then


def answer_once(checkout: Path, trace: Path, query: str, db: Path) -> Sample:
    """One fresh shell of ``checkout`` importing ``trace`` into a new ``db``, until the first
    row of its answer; then it is killed."""
    for f in (db, Path(f"{db}.wal")):
        f.unlink(missing_ok=True)
    line = f"Import-Trace '{trace}' | Out-Null; sql {query}"
    cmd = [sys.executable, "-m", "fayshell", "--no-color", "--db", str(db), "-c", line]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=checkout, env=env
    )
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        for raw in proc.stdout:
            lines.append(raw.decode().rstrip("\n"))
            if len(lines) >= 2 and is_rule(lines[-2]):
                return time.perf_counter() - start, cpu_now(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    raise SystemExit(f"{checkout}: no answer printed:\n" + "\n".join(lines[:5]))


def rounds(
    checkouts: list[Path], trace: Path, query: str, db: Path, pairs: int
) -> list[list[Sample]]:
    """``pairs`` rounds; each checkout's samples in round order."""
    got: list[list[Sample]] = [[] for _ in checkouts]
    for r in range(pairs):
        order = list(range(len(checkouts)))
        for k in order if r % 2 == 0 else order[::-1]:
            got[k].append(answer_once(checkouts[k], trace, query, db))
        print(f"\rround {r + 1}/{pairs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return got


def report(checkouts: list[Path], got: list[list[Sample]]) -> None:
    for path, samples in zip(checkouts, got, strict=True):
        wall = [w for w, _ in samples]
        print(
            f"{path}: answer median {statistics.median(wall):.3f} s, mean "
            f"{statistics.mean(wall):.3f} s, {min(wall):.3f} to {max(wall):.3f} s; CPU at the "
            f"answer {statistics.median(c for _, c in samples):.3f} s"
        )
    for path, samples in zip(checkouts[1:], got[1:], strict=True):
        d = [b[0] - a[0] for a, b in zip(got[0], samples, strict=True)]
        dc = [b[1] - a[1] for a, b in zip(got[0], samples, strict=True)]
        print(
            f"{path} - {checkouts[0]}: paired difference median {statistics.median(d):+.3f} s, "
            f"mean {statistics.mean(d):+.3f} s (standard error {_stderr(d):.3f} s), faster in "
            f"{sum(x < 0 for x in d)} of {len(d)} pairs; CPU {statistics.median(dc):+.3f} s"
        )


def _stderr(xs: list[float]) -> float:
    return statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", nargs="+", type=Path, help="the first is the baseline")
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--kind", choices=["ust-blkkin", "kernel"], default="ust-blkkin")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/fayshell-bench"))
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    trace = (
        ensure_ust(args.cache, 180_000)
        if args.kind == "ust-blkkin"
        else ensure_kernel(args.cache, 10_000_000)
    )
    checkouts = [c.resolve() for c in args.checkouts]
    got = rounds(checkouts, trace, QUERIES[args.kind], args.cache / "ab.duckdb", args.pairs)
    report(checkouts, got)


if __name__ == "__main__":
    main()
