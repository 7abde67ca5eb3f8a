"""The syscalls view over a real x86-64 kernel trace (../shared/traces/kernel-many-threads).

Loaded with the store's own importer; the hottest syscalls by total time on screen must be
exactly what plain SQL over ``syscalls`` says.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fayshell.store.database import Database
from fayshell.views.feeds import OfflineFeed
from fayshell.views.format import count, duration, rate
from tests.views.helpers import make_app, rows, settle, text_of

TRACE = Path(__file__).resolve().parents[3] / "shared" / "traces" / "kernel-many-threads"


@pytest.fixture(scope="module")
def kernel_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    if not (TRACE / "metadata").exists():
        pytest.skip(f"no trace at {TRACE}")
    loader = pytest.importorskip("fayshell.store.loader")
    db = Database.open(str(tmp_path_factory.mktemp("kernel") / "kmt.duckdb"))
    result = loader.import_trace(db, TRACE, node="kmt", session="many")
    assert not result.errors
    yield db
    db.close()


async def test_hottest_syscalls_match_sql(kernel_db: Database) -> None:
    expected = kernel_db.execute(
        "SELECT name, count(*), sum(dur_ns), max(dur_ns) FROM syscalls "
        "GROUP BY name ORDER BY sum(dur_ns) DESC, name LIMIT 8"
    )
    assert len(expected) == 8
    feed = OfflineFeed(kernel_db)
    app = make_app(feed, "syscalls", window="session")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = [(r[0], r[1], r[3], r[6]) for r in rows(app)[:8]]
        assert shown == [
            (name, count(n), duration(total), duration(mx)) for name, n, total, mx in expected
        ]
        assert app.screen.rows[0].total_ns == expected[0][2]
    feed.close()


async def test_real_trace_offline_rates_over_its_own_time(kernel_db: Database) -> None:
    """CALLS/S is the calls over the trace's own duration (0.43 s), and a later trace in the
    same database (another node's chunk years on) does not move the view off this data."""
    first, last = kernel_db.execute("SELECT min(ts_entry), max(ts_exit) FROM syscalls")[0]
    later = last + 5 * 365 * 86400 * 10**9
    kernel_db.execute(
        "INSERT INTO chunks (chunk_id, node, session, path, bytes, events, "
        "discarded, lost_packets, first_ts, last_ts) VALUES "
        "('later', 'other', 'other', '/x', 1, 1, 0, 0, ?, ?)",
        [later, later],
    )
    expected = kernel_db.execute(
        "SELECT name, count(*) FROM syscalls GROUP BY name ORDER BY sum(dur_ns) DESC LIMIT 5"
    )
    feed = OfflineFeed(kernel_db)
    app = make_app(feed, "syscalls")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = [(r[0], r[2]) for r in rows(app)[:5]]
        span_s = (last - first + 1) / 1e9
        assert shown == [(name, rate(n / span_s)) for name, n in expected]
        assert f"({duration(last - first)})" in text_of(app, "#header")
    feed.close()
    kernel_db.execute("DELETE FROM chunks WHERE chunk_id = 'later'")
