"""A rollup feed's statements on the shell's database (its pulled nodes) hold the pool gate,
so a live import never shrinks DuckDB's pool under them (fayshell.store.poolgate, issue 14)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from fayshell.remote.agenthub import AgentHub
from fayshell.remote.cluster import Cluster
from fayshell.remote.inventory import Inventory
from fayshell.state import Options
from fayshell.store.database import Database
from fayshell.store.evict import shrink_pool
from fayshell.views.live import LivePump, LiveTarget
from fayshell.views.model import Query
from fayshell.views.queries import partials
from fayshell.views.rollfeed import RollupFeed, RollupTarget

NODE = "pulled01"


def pulled_feed(db: Database, tmp_path: Path) -> RollupFeed:
    target = RollupTarget("s", (), partials.KINDS["logs"], 10**9, {})
    feed = RollupFeed(AgentHub(Options()), target)
    feed.add_pulled([NODE], LivePump(Cluster(Inventory()), LiveTarget("s", (), tmp_path), db), db)
    return feed


def test_a_pulled_nodes_question_keeps_the_pool_as_it_is(tmp_path: Path) -> None:
    db = Database.open(str(tmp_path / "g.duckdb"))
    feed = pulled_feed(db, tmp_path)
    inside, leave = threading.Event(), threading.Event()

    def ask(cur: Any, q: Query) -> list[int]:
        n = int(cur.execute("SELECT count(*) FROM range(10)").fetchall()[0][0])
        inside.set()
        assert leave.wait(10)
        return [n]

    got: list[list[int]] = []
    t = threading.Thread(target=lambda: got.append(feed._ask_nodes([NODE], ask, Query(0))))
    try:
        t.start()
        assert inside.wait(10)
        assert not shrink_pool(db, "0B")  # a statement of the feed runs: nothing is done
        leave.set()
        t.join(10)
        assert got == [[10]] and shrink_pool(db, "0B")
    finally:
        leave.set()
        db.close()
