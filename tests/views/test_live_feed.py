"""Feeds: a live feed whose pump writes real rows into DuckDB, as the import step will."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from fayshell.store.database import Database
from fayshell.views.feeds import LiveFeed, NodeHealth, OfflineFeed
from tests.fixtures.store_data import NOW, NS, SESSION
from tests.views.helpers import column, make_app, settle, text_of


@dataclass
class Importer:
    """Stands in for rotate → pull → import: each call adds one Error log at the clock."""

    db: Database
    now: int = NOW
    calls: int = 0
    down: tuple[str, ...] = ()
    fail: bool = False
    health: tuple[NodeHealth, ...] = field(default=())

    def clock(self) -> int:
        return self.now

    async def __call__(self) -> tuple[NodeHealth, ...]:
        if self.fail:
            raise ConnectionError("web01: connection lost")
        self.calls += 1
        self.now += NS
        await asyncio.to_thread(
            self.db.execute,
            "INSERT INTO logs VALUES ('web01', ?, ?, 'ust', 'storage.disk', 3, 'Error', ?, "
            "'f', 1, 't', 1, 'app')",
            [SESSION, self.now, f"live error {self.calls}"],
        )
        return tuple(
            NodeHealth(n, n not in self.down, "timeout" if n in self.down else "")
            for n in ("web01", "web02", "web03")
        )


def count_errors(db: Database) -> int:
    return int(db.execute("SELECT count(*) FROM logs WHERE severity = 'Error'")[0][0])


async def test_each_refresh_imports_and_counts_grow(db: Database) -> None:
    pump = Importer(db, down=("web03",))
    feed = LiveFeed(db, pump=pump, clock=pump.clock)
    app = make_app(feed, "logs", window="session", severity="Error")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert pump.calls == 1
        assert f"Err {count_errors(db)}" in text_of(app, "#header")
        for _ in range(2):
            app.screen.tick()
            await settle(pilot)
        assert pump.calls == 3
        assert count_errors(db) == 7
        assert "Err 7" in text_of(app, "#header")
        assert column(app, 4)[-1] == "live error 3"
        assert "[live]" in text_of(app, "#header")
        assert "not answering: web03" in text_of(app, "#status")
    feed.close()


async def test_a_failing_pump_keeps_the_view(db: Database) -> None:
    pump = Importer(db)
    feed = LiveFeed(db, pump=pump, clock=pump.clock)
    app = make_app(feed, "logs", window="session", severity="Error")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        before = column(app, 4)
        pump.fail = True
        app.screen.tick()
        await settle(pilot)
        assert column(app, 4) == before
        status = text_of(app, "#status")
        assert "error…" in status and "connection lost" in status
    feed.close()


async def test_the_timer_refreshes_by_itself(db: Database) -> None:
    pump = Importer(db)
    feed = LiveFeed(db, pump=pump, clock=pump.clock)
    app = make_app(
        feed, "logs", periodic=True, window="session", severity="Error", interval_ns=NS // 10
    )
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(300):  # up to 15 s on a loaded machine; normally well under 1 s
            await pilot.pause(0.05)
            if pump.calls >= 3 and "live error 3" in column(app, 4):
                break
        assert pump.calls >= 3
        assert "live error 3" in column(app, 4)
    feed.close()


async def test_offline_now_follows_the_data(db: Database) -> None:
    feed = OfflineFeed(db)
    await feed.refresh()
    assert feed.now_ns() == NOW
    db.execute(
        "INSERT INTO logs (node, session, ts, severity, msg) VALUES "
        "('web02', 'incident', ?, 'Info', 'late')",
        [NOW + 5 * NS],
    )
    await feed.refresh()
    assert feed.now_ns() == NOW + 5 * NS
    assert feed.status.state == "idle"
    feed.close()


async def test_an_empty_database_says_so(tmp_path: object) -> None:
    empty = Database.open(":memory:")
    feed = OfflineFeed(empty)
    status = await feed.refresh()
    assert status.message == "no trace data in this database"
    feed.close()
    empty.close()
