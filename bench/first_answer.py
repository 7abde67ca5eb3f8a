"""Time to first answer (issue 14): a fresh ``fayshell --db F -c "Import-Trace DIR; sql Q"``
until the answer to Q is printed, against ``babeltrace2 DIR -c sink.utils.counter`` on the same
trace in the same run (goal: >= 2x faster than babeltrace2 reads it, 4x stretch).

Q is the top 10 system calls by total time on the kernel-layout trace (and on a real kernel
trace, ../shared/traces/kernel-many-threads, whose 1,181 event classes weigh on a small trace)
and the top 10 span names by total time on the BlkKin trace. The clock stops when the first row of the answer is
on fayshell's stdout; the process's whole run (the import finished, the file closed) is
reported beside it, and so is the fixed cost every answer pays: a fresh shell answering
``sql SELECT 42`` on a new database (interpreter, imports, database file), with the whole answer
time 2x would need. Traces come from bench/ingest.py's generators (cached under --cache).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ingest import ensure_kernel, ensure_ust, trace_size  # noqa: E402

QUERIES = {
    "kernel": "SELECT name, count(*) AS calls, sum(dur_ns) AS total_ns FROM syscalls "
    "GROUP BY ALL ORDER BY 3 DESC LIMIT 10",
    "ust-blkkin": "SELECT name, count(*) AS spans, sum(dur_ns) AS total_ns FROM spans "
    "GROUP BY ALL ORDER BY 3 DESC LIMIT 10",
}


#: What a fresh shell does with no trace at all: its fixed cost on the way to any answer.
STARTUP = "sql SELECT 42 AS answer"


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and user + system CPU seconds of one run of ``cmd`` (the machine may be
    loaded: CPU time says what wall time cannot)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(cmd)} failed: {err[-400:]}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def cpu_now(pid: int) -> float:
    """User + system CPU seconds a running process (its threads included) has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def is_rule(line: str) -> bool:
    """A table's header rule: dashes and spaces only (Format-Table prints a blank line first)."""
    return "-" in line and set(line) <= {"-", " "}


@dataclass
class Run:
    answer: float  # wall seconds until the answer's first row was printed
    total: float  # wall seconds until the process exited (import written, file closed)
    lines: list[str]
    cpu_answer: float  # CPU seconds of the process when the first row was printed
    cpu: float  # CPU seconds of the whole process


def first_answer(trace: Path, query: str, db: Path) -> Run:
    """One fresh fayshell process importing ``trace`` into a new ``db``, then answering."""
    return answer_of(f"Import-Trace '{trace}' | Out-Null; sql {query}", db)


def answer_of(line: str, db: Path) -> Run:
    """One fresh fayshell process running ``line`` on a new ``db``, until its table's first row."""
    for f in (db, Path(f"{db}.wal")):
        f.unlink(missing_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "fayshell",
        "--no-color",
        "--no-profile",
        "--db",
        str(db),
        "-c",
        line,
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    # from ROOT: `-m` puts the working directory ahead of PYTHONPATH, so a bench run from
    # another checkout would measure that checkout's code
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert proc.stdout is not None
    lines: list[str] = []
    answered = None
    cpu_answer = 0.0
    for raw in proc.stdout:
        line = raw.decode().rstrip("\n")
        lines.append(line)
        if answered is None and len(lines) >= 2 and is_rule(lines[-2]):
            answered = time.perf_counter() - start  # header, rule, then the first row
            cpu_answer = cpu_now(proc.pid)
    err = proc.stderr.read().decode() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed: {err[-400:]}")
    total = time.perf_counter() - start
    if answered is None:
        raise SystemExit(f"no answer printed by {' '.join(cmd)}:\n" + "\n".join(lines[:5]))
    return Run(answered, total, lines, cpu_answer, usage.ru_utime + usage.ru_stime)


def measure(kind: str, trace: Path, cache: Path, runs: int, name: str = "") -> None:
    """One trace's figures; ``kind`` picks the query, ``name`` labels the lines. Each run is
    babeltrace2 then fayshell, back to back, so that a machine slowing down or speeding up
    during the runs weighs on both: the ratio is the median of each pair's."""
    name = name or kind
    print(f"== {name}: {trace} ({trace_size(trace) / 2**20:.0f} MiB)", flush=True)
    bt2: list[tuple[float, float]] = []
    got: list[Run] = []
    fixed: list[float] = []
    for _ in range(runs):
        bt2.append(timed(["babeltrace2", str(trace), "-c", "sink.utils.counter"]))
        got.append(first_answer(trace, QUERIES[kind], cache / f"first-{kind}.duckdb"))
        fixed.append(answer_of(STARTUP, cache / "first-startup.duckdb").answer)
    ratios = [b / g.answer for (b, _), g in zip(bt2, got, strict=True)]
    ratio = statistics.median(ratios)
    bt2_wall = statistics.median(b for b, _ in bt2)
    cpu_ratio = statistics.median(c / g.cpu_answer for (_, c), g in zip(bt2, got, strict=True))
    print("\n".join(got[-1].lines[:5]))
    print(
        f"{name}: babeltrace2 counter {bt2_wall:.2f} s; first "
        f"answer {statistics.median(g.answer for g in got):.2f} s ({ratio:.2f}x, median of "
        f"{runs} pairs, {min(ratios):.2f}x to {max(ratios):.2f}x; goal >= 2x); whole import "
        f"and exit {statistics.median(g.total for g in got):.2f} s",
        flush=True,
    )
    print(
        f"{name}: CPU seconds: babeltrace2 {statistics.median(c for _, c in bt2):.2f}; fayshell "
        f"at the first answer {statistics.median(g.cpu_answer for g in got):.2f} "
        f"({cpu_ratio:.2f}x), whole run {statistics.median(g.cpu for g in got):.2f}",
        flush=True,
    )
    print(
        f"{name}: fixed cost: a fresh shell answers `{STARTUP}` on a new database in "
        f"{statistics.median(fixed):.2f} s (interpreter, imports, database file); 2x would need "
        f"the whole answer in {bt2_wall / 2:.2f} s",
        flush=True,
    )
    cpu_answer = statistics.median(g.cpu_answer for g in got)
    best = best_case(statistics.median(fixed), cpu_answer, os.cpu_count() or 1)
    print(
        f"{name}: best case for this much CPU on {os.cpu_count()} cores: the fixed cost on one "
        f"core, the rest of the {cpu_answer:.2f} CPU seconds on every core, {best:.2f} s "
        f"({bt2_wall / best:.2f}x): the most that better overlap alone could give",
        flush=True,
    )


def best_case(fixed: float, cpu: float, cores: int) -> float:
    """The soonest an answer that uses ``cpu`` CPU seconds could come on ``cores`` cores when
    its first ``fixed`` seconds run on one core (a fresh shell's start: the interpreter, its
    imports, the database file) and the rest keeps every core busy."""
    return fixed + max(cpu - fixed, 0.0) / cores


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/fayshell-bench"))
    ap.add_argument("--kernel", type=Path, help="an existing kernel-layout trace")
    ap.add_argument("--kernel-events", type=int, default=10_000_000)
    ap.add_argument("--ust", type=Path, help="an existing UST (BlkKin) trace")
    ap.add_argument("--ust-requests", type=int, default=180_000)
    ap.add_argument("--skip-ust", action="store_true")
    ap.add_argument("--skip-kernel", action="store_true")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument(
        "--real-kernel",
        type=Path,
        default=ROOT.parent / "shared" / "traces" / "kernel-many-threads",
        help="a real LTTng kernel trace (its metadata declares every system call: hundreds of "
        "classes); measured too when it exists",
    )
    a = ap.parse_args()
    for name in ("cache", "kernel", "ust", "real_kernel"):  # the shells run from ROOT
        if getattr(a, name) is not None:
            setattr(a, name, getattr(a, name).resolve())
    if shutil.which("babeltrace2") is None:
        print("babeltrace2 is not installed: nothing to compare with", file=sys.stderr)
        return 2
    a.cache.mkdir(parents=True, exist_ok=True)
    if not a.skip_kernel:
        measure("kernel", a.kernel or ensure_kernel(a.cache, a.kernel_events), a.cache, a.runs)
    if not a.skip_kernel and a.real_kernel.is_dir():
        measure("kernel", a.real_kernel, a.cache, a.runs, "real kernel")
    if not a.skip_ust:
        measure("ust-blkkin", a.ust or ensure_ust(a.cache, a.ust_requests), a.cache, a.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
