"""DuckDB's eviction queues stay short under a live view's imports (issue 14)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from fayshell.store.database import Database
from fayshell.store.evict import (
    dead_entries,
    empty_eviction_queues,
    keep_queues_short,
    shrink_pool,
)
from fayshell.store.loader import import_trace
from fayshell.store.settings import LIVE_SETTINGS
from fayshell.views.feeds import OfflineFeed
from tests.fixtures.ctfgen import GenSpec, write_trace

LIMIT = "SELECT current_setting('memory_limit')"


def small_commits(db: Database, rows: int) -> None:
    """One row per transaction: each unpins the table's buffers again, leaving dead entries."""
    db.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    for i in range(rows):
        db.execute("INSERT INTO t VALUES (?, ?)", [i, f"row {i}"])


def test_emptying_drops_every_dead_entry_and_keeps_limit_and_rows(tmp_path: Path) -> None:
    """On a file whose appended rows are not checkpointed yet: the queues empty, the limit
    shows as before (DuckDB refused the unreachable one), every row still reads back."""
    db = Database.open(str(tmp_path / "q.duckdb"))
    try:
        db.execute("SET memory_limit = '1GB'")
        before = db.execute(LIMIT)[0][0]
        small_commits(db, 400)
        assert dead_entries(db) >= 400
        empty_eviction_queues(db)
        assert dead_entries(db) == 0
        assert db.execute(LIMIT)[0][0] == before
        assert db.execute("SELECT count(*), sum(i), max(s) FROM t")[0] == (400, 79800, "row 99")
    finally:
        db.close()


def test_emptying_an_empty_pool_sets_the_limit_back(tmp_path: Path) -> None:
    """A pool holding nothing fits in 0 bytes, so DuckDB takes that limit: it is set back."""
    db = Database.open(":memory:")
    try:
        db.execute("SET memory_limit = '1GB'")
        before = db.execute(LIMIT)[0][0]
        assert db.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()")[0][0] == 0
        empty_eviction_queues(db)
        assert db.execute(LIMIT)[0][0] == before
        db.execute("CREATE TABLE t AS SELECT range AS i FROM range(100000)")  # room again
        assert db.execute("SELECT sum(i) FROM t")[0][0] == 4999950000
    finally:
        db.close()


def test_keep_queues_short_only_past_the_bound(tmp_path: Path) -> None:
    db = Database.open(str(tmp_path / "k.duckdb"))
    try:
        small_commits(db, 100)
        dead = dead_entries(db)
        assert dead >= 100
        assert not keep_queues_short(db, dead)
        assert dead_entries(db) == dead
        assert keep_queues_short(db, dead - 1)
        assert dead_entries(db) == 0
    finally:
        db.close()


def test_live_imports_keep_the_dead_entries_bounded(tmp_path: Path) -> None:
    """One small chunk per import, as a live view imports them: without emptying, the dead
    entries pass LIVE_SETTINGS' bound (~46 a chunk, never purged while the pool has room);
    with it they never end an import above the bound, and every event is stored."""
    chunks = 150
    bound = LIVE_SETTINGS.max_dead_entries
    info = write_trace(
        tmp_path / "t", GenSpec(events=300 * chunks, cpus=2, chunks=chunks, keep_truth=False)
    )
    assert len(info.dirs) == chunks
    db = Database.open(str(tmp_path / "live.duckdb"))
    try:
        before = db.execute(LIMIT)[0][0]
        created, last = 0, 0
        for k, chunk in enumerate(info.dirs):
            res = import_trace(db, chunk, node=f"n{k % 8}", session="s", settings=LIVE_SETTINGS)
            assert not res.errors
            now = dead_entries(db)
            assert now <= bound, f"{now} dead entries after import {k + 1}"
            created += now - last if now >= last else now
            last = now
        assert created > bound  # what these imports left would have passed the bound
        assert db.execute("SELECT count(*) FROM events")[0][0] == info.events
        assert db.execute(LIMIT)[0][0] == before
    finally:
        db.close()


def test_a_view_query_running_keeps_the_limit_where_it_is(tmp_path: Path) -> None:
    """While a view's refresh runs a statement on its own cursor, the pool is not shrunk
    (nothing is done, False); once it is over, it is."""
    db = Database.open(str(tmp_path / "v.duckdb"))
    feed = OfflineFeed(db)
    inside, leave = threading.Event(), threading.Event()

    def refresh(cur: Any) -> int:
        n = int(cur.execute("SELECT count(*) FROM range(1000)").fetchall()[0][0])
        inside.set()
        assert leave.wait(10)
        return n

    try:
        before = db.execute(LIMIT)[0][0]
        t = threading.Thread(target=feed._run, args=(refresh,))
        t.start()
        assert inside.wait(10)
        assert not shrink_pool(db, "0B") and not empty_eviction_queues(db)
        assert db.execute(LIMIT)[0][0] == before
        leave.set()
        t.join(10)
        assert shrink_pool(db, "0B") and db.execute(LIMIT)[0][0] == before
    finally:
        leave.set()
        feed.close()
        db.close()


def test_view_queries_never_meet_the_lowered_limit(tmp_path: Path) -> None:
    """A view's refreshes (their own cursor) run while the pool is emptied again and again.
    Ungated, DuckDB took the 0-byte limit for a moment whenever the pool was empty: about one
    query in ten failed ("failed to allocate data of size 32.0 KiB (0 bytes/0 bytes used)")
    and a limit could stay at 0, failing every statement after it."""
    db = Database.open(str(tmp_path / "r.duckdb"))
    db.execute("CREATE TABLE t (i INTEGER)")
    db.execute("CHECKPOINT")
    feed = OfflineFeed(db)
    stop = threading.Event()
    answers: list[Any] = []

    def refresh(cur: Any) -> list[Any]:
        return cur.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = 't'").fetchall()

    def refreshing() -> None:
        while not stop.is_set():
            try:
                answers.append(feed._run(refresh))
            except Exception as exc:  # what a refresh would show instead of the page
                answers.append(exc)
            stop.wait(0.001)  # a view refreshes on a timer, not back to back

    try:
        before = db.execute(LIMIT)[0][0]
        t = threading.Thread(target=refreshing)
        t.start()
        done = 0
        for _ in range(500):  # as after each of a live view's imports, between refreshes
            done += shrink_pool(db, "0B")
            stop.wait(0.001)
        stop.set()
        t.join(10)
        assert done > 0 and len(answers) > 20
        assert all(a == [(1,)] for a in answers), [a for a in answers if a != [(1,)]][:3]
        assert db.execute(LIMIT)[0][0] == before
    finally:
        stop.set()
        feed.close()
        db.close()
