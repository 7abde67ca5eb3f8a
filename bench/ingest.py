"""Ingest benchmark (issue 5): fayshell's CTF decoder and Import-Trace against babeltrace2.

On the same files, in the same run, it prints:
  1. decoding alone (CTF files -> Arrow in memory, compiled decoder, streams in parallel):
     events/s and the ratio to ``babeltrace2 DIR -c sink.utils.counter`` (goal >= 10x);
  2. end to end: a fresh ``fayshell -c "Import-Trace DIR -Database F"`` until committed
     (derived tables included) against that babeltrace2 run (must be >= 2x, goal 5x);
  3. peak RSS of the import process (<= 1 GiB for a 2 GB trace);
  4. "top syscalls by total time" over >= 10M syscalls rows (<= 100 ms);
  5. DuckDB's own share: the seconds a fresh DuckDB file takes to store the imported tables
     from Arrow in memory (``CREATE TABLE AS`` + checkpoint, nothing else), and the ratio to
     babeltrace2 an import could reach if decoding, spans and Python took no time at all.

Inputs (cached under --cache): a BlkKin UST trace recorded here with a private lttng-sessiond
(the tests' harness; >= 3M events) and a kernel-layout trace from tests/fixtures/ctfgen
(>= 10M events). The UST trace is measured twice: as the program emits it, and with the
vpid/vtid/procname context of the reference trace in ../shared/decoder-notes.md (``ust-ctx``).
``--ust DIR`` / ``--kernel DIR`` use existing traces instead.
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
FAYSHELL = [sys.executable, "-m", "fayshell", "--no-profile"]


@dataclass
class Row:
    """One measured input."""

    name: str
    events: int
    size: int
    bt2_s: float
    decode_s: float
    inproc_s: float
    e2e_s: float
    rss_mb: float
    store_s: float


#: Runs a command as its child and writes "<wall seconds> <peak RSS KiB>" of that child to a
#: file. Peak RSS from wait4 counts what the child had when it was forked (Linux keeps the high
#: water mark across exec): forked from this bench process (hundreds of MiB, GiB after the big
#: traces) it reported the bench's size, not the command's. Forked from this small launcher it
#: is the command's own peak (the launcher's few MiB are far below any import's peak).
LAUNCHER = """
import os, sys, time
report, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as f:
    f.write(f"{time.perf_counter() - start} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB, of the command's process alone) and stdout of a fresh
    process (started by :data:`LAUNCHER`, a small process, never forked from this one)."""
    import tempfile

    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as report:
        proc = subprocess.run(
            [sys.executable, "-I", "-S", "-c", LAUNCHER, report.name, *cmd],
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
        )
        if proc.returncode:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed: {err.read().decode()[-400:]}")
        wall, maxrss_kib = report.read().split()
    return float(wall), int(maxrss_kib) / 1024, proc.stdout.decode()


def bt2_counter(path: Path, runs: int) -> float:
    """Median wall time of babeltrace2's counting sink (fresh process)."""
    return statistics.median(
        run_timed(["babeltrace2", str(path), "-c", "sink.utils.counter"])[0] for _ in range(runs)
    )


DECODE_SNIPPET = """
import sys, time
t0 = time.perf_counter()
import pyarrow
from fayshell.ctf.trace import find_traces, open_trace
from fayshell.ctf.decode import stream_readers
from fayshell.ctf.parallel import parallel_batches
t1 = time.perf_counter()
n = 0
for d in find_traces(sys.argv[1]):
    for _r, b in parallel_batches(stream_readers(open_trace(d), prefer_c=True)):
        n += b.common.num_rows
t2 = time.perf_counter()
print(n, t2 - t0, t2 - t1)
"""


def decode_only(path: Path, runs: int) -> tuple[int, float, float]:
    """Events, and median seconds to decode into Arrow: in a fresh process (interpreter and
    imports included), and the decoding alone once imported."""
    walls, inner, n = [], [], 0
    for _ in range(runs):
        wall, _, out = run_timed(
            [sys.executable, "-c", DECODE_SNIPPET, str(path)],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        n_s, _t, t_in = out.split()
        n = int(n_s)
        walls.append(wall)
        inner.append(float(t_in))
    return n, statistics.median(walls), statistics.median(inner)


def import_e2e(path: Path, db: Path, runs: int) -> tuple[float, float]:
    """Median wall time and max RSS of a fresh Import-Trace into a new database file."""
    walls, rss = [], 0.0
    for _ in range(runs):
        for f in (db, Path(str(db) + ".wal")):
            f.unlink(missing_ok=True)
        wall, r, _ = run_timed(
            [*FAYSHELL, "-c", f"Import-Trace '{path}' -Database '{db}'"],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        walls.append(wall)
        rss = max(rss, r)
    return statistics.median(walls), rss


def trace_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def measure(name: str, path: Path, cache: Path, runs: int) -> Row:
    print(f"== {name}: {path} ({trace_size(path) / 2**20:.0f} MiB)", flush=True)
    bt2 = bt2_counter(path, runs)
    events, dec, inproc = decode_only(path, runs)
    e2e, rss = import_e2e(path, cache / f"{name}.duckdb", runs)
    store = duckdb_store_time(cache / f"{name}.duckdb", cache / f"{name}-store.duckdb")
    return Row(name, events, trace_size(path), bt2, dec, inproc, e2e, rss, store)


def duckdb_store_time(imported: Path, scratch: Path) -> float:
    """Seconds for DuckDB alone to store what the import stored: each table of ``imported``
    read into Arrow first (untimed), then ``CREATE TABLE AS`` into a fresh file and checkpoint."""
    import duckdb

    src = duckdb.connect(str(imported), read_only=True)
    src.execute("SET enable_progress_bar = false")
    tables = [
        t
        for (t,) in src.execute(
            "SELECT table_name FROM duckdb_tables() WHERE NOT temporary AND estimated_size > 0"
        ).fetchall()
    ]
    total = 0.0
    for f in (scratch, Path(str(scratch) + ".wal")):
        f.unlink(missing_ok=True)
    dst = duckdb.connect(str(scratch))
    dst.execute("SET enable_progress_bar = false")
    dst.execute("SET preserve_insertion_order = false")
    for t in tables:
        data = src.sql(f'SELECT * FROM "{t}"').to_arrow_table()
        dst.register("data", data)
        start = time.perf_counter()
        dst.execute(f'CREATE TABLE "{t}" AS SELECT * FROM data')
        dst.execute("CHECKPOINT")
        total += time.perf_counter() - start
        dst.unregister("data")
    src.close()
    dst.close()
    scratch.unlink(missing_ok=True)
    return total


def ensure_kernel(cache: Path, events: int) -> Path:
    """A generated kernel-layout trace of ``events`` events (made once, then cached)."""
    out = cache / f"kernel-{events}"
    if not (out / "metadata").is_file():
        from tests.fixtures.ctfgen import GenSpec, write_trace

        print(f"generating {events} kernel-layout events into {out}", flush=True)
        write_trace(out, GenSpec(events=events, cpus=8, packet_size=256 * 1024, keep_truth=False))
    return out


#: The stream context of the reference trace in ../shared/decoder-notes.md (and what
#: Add-TraceContext adds in an incident): the issue's babeltrace2 figures come from such a trace.
UST_CONTEXT = ("vpid", "vtid", "procname")


def ensure_ust(cache: Path, requests: int, context: tuple[str, ...] = ()) -> Path:
    """A BlkKin trace recorded by a private lttng-sessiond (made once, then cached), with
    the given per-event context fields."""
    out = cache / f"ust-blkkin-{requests}{'-ctx' if context else ''}"
    if any(out.rglob("metadata")):
        return out
    from fayshell.lttng import AddContext, CreateSession, EnableChannel, EnableEvent, Start, Stop
    from tests.fixtures.workloads.build import build_blkkin
    from tests.lttng.harness import PrivateSessiond

    print(f"recording {requests} BlkKin requests with LTTng into {out}", flush=True)
    binary = build_blkkin()
    d = PrivateSessiond()
    try:
        d.start()
        name = "bench-blkkin"
        target = d.output_dir(name)
        d.ok(CreateSession(name, output=str(target)).argv())
        d.ok(EnableChannel(name, "big", "user", subbuf_size=8 << 20, num_subbuf=8).argv())
        d.ok(EnableEvent(name, "user", ("zipkin:*",), channel="big").argv())
        if context:
            d.ok(AddContext(name, context, channel="big").argv())
        d.ok(Start(name).argv())
        d.workload([str(binary), "--requests", str(requests), "--slow-every", "0"], timeout=1800)
        d.ok(Stop(name).argv())
        shutil.copytree(target, out)
    finally:
        d.stop()
    return out


def big_imports(cache: Path, gib: float) -> None:
    """Peak RSS (and time) of one fresh Import-Trace of a ``gib`` GiB kernel-layout trace
    and of a BlkKin trace of about that size (recorded with context)."""
    events = int(gib * 2**30 / 22.3)  # ctfgen writes ~22.3 bytes per event
    requests = int(gib * 2**30 / 1520)  # ~1520 bytes per request with context
    for name, path in (
        ("kernel", ensure_kernel(cache, events)),
        ("ust-ctx", ensure_ust(cache, requests, UST_CONTEXT)),
    ):
        size = trace_size(path)
        bt2 = bt2_counter(path, 1)
        e2e, rss = import_e2e(path, cache / "big.duckdb", 1)
        (cache / "big.duckdb").unlink(missing_ok=True)
        print(
            f"big {name} trace, {size / 2**30:.2f} GiB: babeltrace2 {bt2:.1f} s, "
            f"Import-Trace {e2e:.1f} s ({bt2 / e2e:.2f}x), peak RSS {rss:.0f} MiB "
            f"(target <= 1024 MiB)",
            flush=True,
        )


def top_syscalls(db_path: Path, rows: int = 10_000_000, runs: int = 5) -> tuple[int, float]:
    """Rows in a syscalls copy grown to >= ``rows``, and the median top-10 query time (s)."""
    import duckdb

    copy = db_path.with_name("syscalls-10M.duckdb")
    copy.unlink(missing_ok=True)
    con = duckdb.connect(str(copy))
    con.execute(f"ATTACH '{db_path}' AS src (READ_ONLY)")
    con.execute("CREATE TABLE syscalls AS SELECT * FROM src.syscalls")
    con.execute("DETACH src")
    n = con.execute("SELECT count(*) FROM syscalls").fetchone()[0]  # type: ignore[index]
    if n == 0:
        return 0, float("nan")
    while n < rows:
        con.execute("INSERT INTO syscalls SELECT * FROM syscalls")
        n *= 2
    con.close()
    con = duckdb.connect(str(copy), read_only=True)
    q = (
        "SELECT name, sum(dur_ns) AS total, count(*) AS calls FROM syscalls "
        "GROUP BY name ORDER BY total DESC LIMIT 10"
    )
    con.execute(q).fetchall()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        con.execute(q).fetchall()
        times.append(time.perf_counter() - t)
    con.close()
    copy.unlink(missing_ok=True)
    return n, statistics.median(times)


def report(rows: list[Row]) -> None:
    print()
    print(
        f"{'trace':<12}{'events':>10}{'MiB':>5}{'bt2 s':>7}{'bt2 ev/s':>9}{'dec s':>7}"
        f"{'dec x':>7}{'in-proc s':>10}{'in-proc x':>10}{'import s':>9}{'e2e x':>7}"
        f"{'RSS MiB':>8}{'duck s':>7}{'ceil x':>7}"
    )
    for r in rows:
        print(
            f"{r.name:<12}{r.events:>10}{r.size / 2**20:>5.0f}{r.bt2_s:>7.2f}"
            f"{r.events / r.bt2_s / 1e6:>8.2f}M{r.decode_s:>7.2f}{r.bt2_s / r.decode_s:>7.2f}"
            f"{r.inproc_s:>10.2f}{r.bt2_s / r.inproc_s:>10.2f}"
            f"{r.e2e_s:>9.2f}{r.bt2_s / r.e2e_s:>7.2f}{r.rss_mb:>8.0f}"
            f"{r.store_s:>7.2f}{r.bt2_s / r.store_s:>7.2f}"
        )
    print(
        "x = babeltrace2 counter time / ours. dec: fresh process decoding to Arrow; in-proc: "
        "the same decoding once imported; e2e: fresh Import-Trace until committed;\n"
        "duck s: DuckDB alone storing the imported tables from Arrow (ceil x: bt2 / duck s, "
        "the best e2e ratio possible with this store).\n"
        "Goals: decode >= 10x; end to end >= 2x (goal 5x); RSS <= 1 GiB for a 2 GB trace."
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/fayshell-bench"))
    ap.add_argument("--kernel", type=Path, help="an existing kernel-layout trace")
    ap.add_argument("--kernel-events", type=int, default=10_000_000)
    ap.add_argument("--ust", type=Path, help="an existing UST (BlkKin) trace")
    ap.add_argument("--ust-requests", type=int, default=180_000)
    ap.add_argument("--skip-ust", action="store_true")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument(
        "--big-gib",
        type=float,
        default=0.0,
        help="also import traces of this size once (the RSS check: 2)",
    )
    a = ap.parse_args()
    if shutil.which("babeltrace2") is None:
        print("babeltrace2 is not installed: nothing to compare with", file=sys.stderr)
        return 2
    a.cache.mkdir(parents=True, exist_ok=True)
    rows = []
    if not a.skip_ust:
        rows.append(
            measure("ust-blkkin", a.ust or ensure_ust(a.cache, a.ust_requests), a.cache, a.runs)
        )
        if a.ust is None:
            rows.append(
                measure(
                    "ust-ctx", ensure_ust(a.cache, a.ust_requests, UST_CONTEXT), a.cache, a.runs
                )
            )
    kernel = a.kernel or ensure_kernel(a.cache, a.kernel_events)
    rows.append(measure("kernel", kernel, a.cache, a.runs))
    report(rows)
    n, secs = top_syscalls(a.cache / "kernel.duckdb")
    print(
        f"top syscalls by total time over {n} syscalls rows: {secs * 1000:.1f} ms "
        f"(target <= 100 ms)"
    )
    if a.big_gib:
        big_imports(a.cache, a.big_gib)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
