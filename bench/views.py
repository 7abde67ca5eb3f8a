"""Bench: one refresh of the syscalls view over 10M syscall rows; target <= 100 ms of queries.

A refresh is what the view runs each interval: the feed's "now", the syscall rows, the header
and the per-node rates, through the same OfflineFeed (worker threads, private cursor). Reported:
the cold first refresh (which builds the per-bucket rollup), refreshes over unchanged data for
every window and grouping, and live refreshes that each follow an append of one more second
of rows (on a scratch copy of the cached file).

Data (generated with DuckDB's range()): 10M syscalls over 60 s from 16 nodes, 64 processes
with 8 names, 40 syscall names with a skewed mix, log-spread durations; plus one chunk row per
node per second, as the loader writes them. The file is cached between runs.

    .venv/bin/python bench/views.py [--rows 10000000] [--db PATH] [--runs 7]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import time
from pathlib import Path

import duckdb

from fayshell.store.database import Database
from fayshell.views.feeds import Feed, LiveFeed, OfflineFeed
from fayshell.views.model import Query
from fayshell.views.queries import common, syscalls

TARGET_MS = 100.0
T0 = 1_700_000_000_000_000_000
NAMES = (
    "read",
    "write",
    "openat",
    "close",
    "futex",
    "epoll_wait",
    "mmap",
    "munmap",
    "recvfrom",
    "sendto",
    "ioctl",
    "fstat",
    "lseek",
    "poll",
    "select",
    "accept4",
    "connect",
    "clock_nanosleep",
    "nanosleep",
    "getpid",
    "brk",
    "rt_sigaction",
    "rt_sigprocmask",
    "pread64",
    "pwrite64",
    "writev",
    "readv",
    "fcntl",
    "getdents64",
    "newfstatat",
    "statx",
    "madvise",
    "mprotect",
    "sched_yield",
    "socket",
    "bind",
    "listen",
    "sendmsg",
    "recvmsg",
    "exit_group",
)
PROCS = (
    "nginx",
    "postgres",
    "python3",
    "java",
    "redis-server",
    "sshd",
    "systemd",
    "lttng-sessiond",
)


def generate(path: Path, rows: int) -> None:
    """Create the syscalls and chunks tables (60 s of data, rows spread evenly)."""
    con = duckdb.connect(str(path))
    step = 60_000_000_000 // rows
    names = "[" + ",".join(f"'{n}'" for n in NAMES) + "]"
    procs = "[" + ",".join(f"'{p}'" for p in PROCS) + "]"
    con.execute(f"""
        CREATE OR REPLACE TABLE syscalls AS
        WITH r AS (SELECT i, (hash(i) % 1000000) / 1e6 AS u, (hash(i + 99991) % 1000000) / 1e6 AS v,
                          (hash(i * 7) % 64)::INTEGER AS p FROM range({rows}) t(i))
        SELECT 'node' || lpad((i % 16)::VARCHAR, 2, '0') AS node, 'bench' AS session,
               (i % 8)::INTEGER AS cpu, (1000 + p * 10 + i % 4)::BIGINT AS tid,
               (1000 + p)::BIGINT AS pid, {procs}[1 + p % 8] AS procname,
               {names}[1 + floor(40 * u * u * u)::INTEGER] AS name,
               {T0} + i * {step} AS ts_entry,
               {T0} + i * {step} + floor(500 * exp(9 * v))::BIGINT AS ts_exit,
               floor(500 * exp(9 * v))::BIGINT AS dur_ns, 0::BIGINT AS ret
        FROM r""")
    con.execute(f"""
        CREATE OR REPLACE TABLE chunks AS
        SELECT node || '-' || s AS chunk_id, node, 'bench' AS session, '' AS path,
               count(*) * 40 AS bytes, count(*) * 2 AS events, 0::BIGINT AS discarded,
               0::BIGINT AS lost_packets, min(ts_entry) AS first_ts, max(ts_exit) AS last_ts,
               now()::TIMESTAMP AS loaded_at
        FROM (SELECT node, ts_entry, ts_exit, (ts_entry - {T0}) // 1000000000 AS s FROM syscalls)
        GROUP BY node, s""")
    con.close()


def ensure(path: Path, rows: int) -> None:
    if path.exists():
        con = duckdb.connect(str(path), read_only=True)
        try:
            have = con.execute("SELECT count(*) FROM syscalls").fetchone()
        except duckdb.Error:
            have = None
        con.close()
        if have == (rows,):
            return
        path.unlink()
    started = time.perf_counter()
    generate(path, rows)
    print(f"generated {rows:,} syscall rows in {time.perf_counter() - started:.1f} s -> {path}")


async def refresh_ms(feed: Feed, window: str, grouping: str) -> float:
    """Wall time of one refresh's queries, as the view runs them."""
    started = time.perf_counter()
    await feed.refresh()
    q = Query(now_ns=feed.now_ns(), window=window, grouping=grouping, sort="total_ns")
    await feed.query(syscalls.syscall_stats, q)
    await feed.query(common.header, q, "syscalls", "ts_entry")
    await feed.query(common.node_rates, q, "syscalls", "ts_entry")
    return (time.perf_counter() - started) * 1000


def line(label: str, times: list[float]) -> float:
    med = statistics.median(times)
    print(f"{label:<34} {med:>10.1f} {min(times):>8.1f} {med / TARGET_MS:>6.2f}x")
    return med


async def steady(feed: OfflineFeed, runs: int) -> float:
    """Refreshes over unchanged data, every window and grouping."""
    worst = 0.0
    for window in ("interval", "minute", "session"):
        for grouping in ("syscall", "syscall_node", "process"):
            await refresh_ms(feed, window, grouping)  # warm the cache
            times = [await refresh_ms(feed, window, grouping) for _ in range(runs)]
            worst = max(worst, line(f"{window} / {grouping}", times))
    return worst


def append_second(db: Database, rows: int) -> None:
    """One more second of syscalls (rows/60 of them) after the newest, as an import adds."""
    per_s = rows // 60
    step = 1_000_000_000 // per_s
    db.execute(f"""
        INSERT INTO syscalls
        SELECT 'node' || lpad((i % 16)::VARCHAR, 2, '0'), 'bench', (i % 8)::INTEGER,
               1000 + i % 640, 1000 + i % 64, 'python3', 'read', t0 + i * {step},
               t0 + i * {step} + 900, 900, 0
        FROM (SELECT max(ts_entry) + 1 AS t0 FROM syscalls), range({per_s}) r(i)""")


async def live(db: Database, rows: int, steps: int) -> float:
    """Each step imports one more second of rows (untimed: that is the store's work), then
    times the view's refresh through a LiveFeed whose clock is the newest row."""
    worst = 0.0
    newest = [0]
    feed = LiveFeed(db, clock=lambda: newest[0])
    for grouping in ("syscall", "process"):
        newest[0] = int(db.execute("SELECT max(ts_exit) FROM syscalls")[0][0])
        await refresh_ms(feed, "minute", grouping)  # the feed's first refresh builds its rollup
        times = []
        for _ in range(steps):
            append_second(db, rows)
            newest[0] = int(db.execute("SELECT max(ts_exit) FROM syscalls")[0][0])
            times.append(await refresh_ms(feed, "minute", grouping))
        worst = max(worst, line(f"live minute / {grouping}", times))
    feed.close()
    return worst


async def run(path: Path, runs: int, rows: int) -> None:
    db = Database.open(str(path))
    feed = OfflineFeed(db)
    print(f"{'refresh (window / grouping)':<34} {'median ms':>10} {'min ms':>8} {'ratio':>7}")
    cold = await refresh_ms(feed, "minute", "syscall")
    print(f"{'cold: first refresh, builds rollup':<34} {cold:>10.1f}")
    worst = await steady(feed, runs)
    worst_live = await live(db, rows, max(3, runs // 2))
    q = Query(now_ns=feed.now_ns(), window="session")
    approx = (await feed.query(syscalls.syscall_stats, q))[0].approx
    print(
        f"worst steady median {worst:.1f} ms = {worst / TARGET_MS:.2f} x the "
        f"{TARGET_MS:.0f} ms target; worst live median {worst_live:.1f} ms = "
        f"{worst_live / TARGET_MS:.2f} x; p95 sampled on whole session: {approx}"
    )
    feed.close()
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--db", default="/tmp/fayshell-bench-views.duckdb")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    path = Path(args.db)
    ensure(path, args.rows)
    work = path.with_suffix(".work.duckdb")  # the live part appends: keep the template pristine
    shutil.copy(path, work)
    try:
        asyncio.run(run(work, args.runs, args.rows))
    finally:
        work.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
