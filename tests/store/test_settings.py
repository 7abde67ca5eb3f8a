"""LIVE_SETTINGS: a live view's imports evict DuckDB's memory to their bound (issue 14)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from fayshell.errors import SqlError
from fayshell.remote.cluster import Cluster
from fayshell.remote.inventory import Inventory
from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.settings import LIVE_SETTINGS
from fayshell.views.live import LivePump, LiveTarget
from tests.fixtures.ctfgen import GenSpec, write_trace

MIB = 1 << 20


def duckdb_bytes(db: Database) -> int:
    """What DuckDB's buffer manager holds (file blocks cached, appends not checkpointed …)."""
    return int(db.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()")[0][0] or 0)


def test_live_import_evicts_the_file_cache(tmp_path: Path) -> None:
    """Under a roomy limit (DuckDB's default is most of the machine's memory) a query that
    read the whole file leaves it cached; the next live import brings DuckDB back within the
    live bound, and the limit the shell had is restored after it."""
    db = Database.open(str(tmp_path / "live.duckdb"))
    try:
        db.execute("SET memory_limit = '1GB'")
        before = db.execute("SELECT current_setting('memory_limit')")[0][0]
        db.execute("CREATE TABLE filler AS SELECT range AS i, hash(range) AS h FROM range(8000000)")
        db.execute("CHECKPOINT")
        db.execute("SELECT sum(i), max(h) FROM filler")
        cap = 32 * MIB
        assert LIVE_SETTINGS.evict_to == "32MB"
        assert duckdb_bytes(db) > 1.5 * cap  # the whole file (64 MB) is cached
        write_trace(tmp_path / "t", GenSpec(events=20_000, cpus=2, keep_truth=False))
        res = import_trace(db, tmp_path / "t", node="n1", session="s", settings=LIVE_SETTINGS)
        assert not res.errors and res.events > 0
        assert duckdb_bytes(db) <= cap
        assert db.execute("SELECT current_setting('memory_limit')")[0][0] == before
    finally:
        db.close()


class QueryMidImport:
    """A progress task that, at the import's first report, runs ``sql`` on another cursor of
    the same database (as a view's refresh does while the pump imports) and keeps the answer
    or the error."""

    def __init__(self, db: Database, sql: str) -> None:
        self.cursor = db.con.cursor()
        self.sql = sql
        self.outcome: list[object] = []

    def advance(self, amount: float = 1.0) -> None:
        if not self.outcome:
            try:
                self.outcome.append(self.cursor.execute(self.sql).fetchall()[0][0])
            except duckdb.Error as exc:
                self.outcome.append(exc)

    def update(self, **_: object) -> None:
        self.advance()

    def close(self) -> None:
        self.cursor.close()


def test_a_query_during_a_live_import_is_not_held_to_the_live_bound(tmp_path: Path) -> None:
    """DuckDB's memory limit is the whole database's: percentiles over 6M values need ~48 MB,
    more than the live bound (it fails under a 32 MB limit). Run while a live import is in
    progress, the query answers; the import still ends within the bound."""
    sql = "SELECT quantile_cont(hash(range) / 1e19, 0.5) FROM range(6000000)"
    db = Database.open(str(tmp_path / "live.duckdb"))
    try:
        db.execute("SET memory_limit = '1GB'")
        write_trace(tmp_path / "t", GenSpec(events=20_000, cpus=2, keep_truth=False))
        probe = QueryMidImport(db, sql)
        res = import_trace(
            db, tmp_path / "t", node="n1", session="s", progress=probe, settings=LIVE_SETTINGS
        )
        probe.close()
        assert not res.errors and res.events > 0
        assert len(probe.outcome) == 1 and isinstance(probe.outcome[0], float), probe.outcome
        assert duckdb_bytes(db) <= 32 * MIB
        db.execute("SET memory_limit = '32MB'")
        with pytest.raises(SqlError, match="Out of Memory"):
            db.execute(sql)  # what the same query meets under the bound itself
    finally:
        db.close()


def test_live_pump_imports_with_live_settings(tmp_path: Path) -> None:
    db = Database.open(":memory:")
    try:
        pump = LivePump(Cluster(Inventory()), LiveTarget("s", (), tmp_path), db)
        assert pump.settings is LIVE_SETTINGS
    finally:
        db.close()
