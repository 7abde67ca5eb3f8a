"""Cursors of their own (fayshell.store.cursors): made under the database's lock, used inside
its pool gate, and only once a chunk written in the background is on disk."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import duckdb
import pytest

from fayshell.store.cursors import KeptCursor, one_cursor
from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.settings import LoadSettings
from tests.fixtures.ctfgen import GenInfo, GenSpec, write_trace

Using = Callable[[Database], AbstractContextManager[duckdb.DuckDBPyConnection]]
USES: dict[str, Using] = {
    "kept": lambda db: KeptCursor(db).use(),
    "one": one_cursor,
}


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    d = Database.open(str(tmp_path / "c.duckdb"))
    d.execute("CREATE TABLE t AS SELECT range AS x FROM range(10)")
    yield d
    d.close()


@pytest.mark.parametrize("use", USES.values(), ids=USES.keys())
def test_the_gate_is_held_while_the_cursor_is_used(db: Database, use: Using) -> None:
    with use(db) as cur:
        assert cur.execute("SELECT sum(x) FROM t").fetchall() == [(45,)]
        with db.pool_gate.alone() as got:
            assert not got  # the limit is not lowered under a statement
    with db.pool_gate.alone() as got:
        assert got


def test_a_kept_cursor_is_made_once_and_again_after_close(db: Database) -> None:
    kept = KeptCursor(db)
    with kept.use() as first:
        pass
    with kept.use() as again:
        assert again is first
    kept.close()
    with pytest.raises(duckdb.ConnectionException):
        first.execute("SELECT 1")
    with kept.use() as new:
        assert new.execute("SELECT count(*) FROM t").fetchall() == [(10,)]


def test_one_cursor_is_closed_after_use(db: Database) -> None:
    with one_cursor(db) as cur:
        cur.execute("SELECT 1").fetchall()
    with pytest.raises(duckdb.ConnectionException):
        cur.execute("SELECT 1")


def test_streamed_rows_take_the_gate_per_batch_not_between(db: Database) -> None:
    rows = db.relation("SELECT x FROM t ORDER BY x").iter_records(batch=3)
    assert next(rows) == {"x": 0}
    with db.pool_gate.alone() as got:
        assert got  # a consumer working on a batch holds nothing
        fetched: list[dict[str, object]] = []
        t = threading.Thread(target=lambda: fetched.extend(rows))
        t.start()
        t.join(0.3)
        assert t.is_alive()  # the next fetch waits while the limit is low
        assert len(fetched) == 2  # the rest of the first batch only
    t.join(30)
    assert [r["x"] for r in fetched] == list(range(1, 10))


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    out = tmp_path_factory.mktemp("gen") / "cursors"
    return write_trace(out, GenSpec(events=20_000, cpus=2, chunks=1, packet_size=8192, seed=9))


@pytest.mark.parametrize("use", USES.values(), ids=USES.keys())
def test_a_cursor_waits_for_the_chunk_written_in_the_background(gen: GenInfo, use: Using) -> None:
    db = Database.open(":memory:")
    reached, go = threading.Event(), threading.Event()

    def before_commit() -> None:
        reached.set()
        go.wait()

    settings = LoadSettings(answer_first=True, before_commit=before_commit)
    import_trace(db, gen.dirs[0], node="n", session="s", settings=settings)
    assert reached.wait(60)
    seen: list[int] = []

    def count() -> None:
        with use(db) as cur:
            seen.append(cur.execute("SELECT count(*) FROM syscalls").fetchall()[0][0])

    t = threading.Thread(target=count)
    t.start()
    t.join(0.3)
    assert t.is_alive() and not seen  # it would not see the pending rows yet
    go.set()
    t.join(60)
    assert seen == [db.execute("SELECT count(*) FROM syscalls")[0][0]]
    assert seen[0] > 0
