"""The live header counts the nodes that answered the last pull, also when their chunks held
no events (an idle cluster is not a down cluster)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from fayshell.store.database import Database
from fayshell.views.feeds import LiveFeed, NodeHealth
from tests.fixtures.store_data import NOW, create_schema
from tests.views.helpers import make_app, settle, text_of

NODES = tuple(f"node{i:02d}" for i in range(1, 9))


@dataclass
class IdlePull:
    """Stands in for rotate → pull → import on idle nodes: all answer, no event arrives."""

    down: tuple[str, ...] = ()
    calls: int = 0

    async def __call__(self) -> tuple[NodeHealth, ...]:
        self.calls += 1
        return tuple(
            NodeHealth(n, n not in self.down, "timeout" if n in self.down else "") for n in NODES
        )


def empty_store(path: Path) -> Database:
    con = duckdb.connect(str(path))
    create_schema(con)
    con.close()
    return Database.open(str(path))


async def test_nodes_answering_with_empty_chunks_count(tmp_path: Path) -> None:
    db = empty_store(tmp_path / "idle.duckdb")
    pump = IdlePull(down=("node08",))
    feed = LiveFeed(db, pump=pump, clock=lambda: NOW)
    app = make_app(feed, "syscalls")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        header = text_of(app, "#header")
        assert pump.calls == 1
        assert "[live]" in header and "window: last minute" in header
        assert "nodes 7/8" in header
        assert "not answering: node08" in header
        pump.down = ()
        app.screen.tick()
        await settle(pilot)
        assert "nodes 8/8" in text_of(app, "#header")
    feed.close()
    db.close()
