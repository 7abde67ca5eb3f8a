"""The fixed cost of a small chunk's import is cut without changing what is stored: parsed
metadata kept by digest (a changed file is parsed again, an evicted entry rebuilt), the schema
ensured once per connection (a fresh database still gets it, a user's DDL asks again), the
catalog kept across loads (read again when another connection changed it, or a load failed),
and a chunk of one flush written in its own final transaction (same rows as several flushes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fayshell.ctf.metadata import MetadataCache, metadata_text, read_metadata
from fayshell.errors import TraceFormatError
from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.schema import ensure_schema
from fayshell.store.settings import LoadSettings
from tests.fixtures.ctfgen import GenInfo, GenSpec, write_trace

TABLES = (
    "chunks",
    "event_rows",
    "event_names",
    "event_classes",
    "store_state",
    "syscalls",
    "pending_syscalls",
    "syscalls_mark",
    "cpu_state",
    "threads",
    "spans",
    "logs",
)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    """Six small chunks of one trace (the same metadata in each)."""
    out = tmp_path_factory.mktemp("gen") / "small"
    return write_trace(out, GenSpec(events=3_000, cpus=2, packet_size=4096, chunks=6, seed=5))


def _renamed(src: Path, dest: Path, old: str, new: str) -> Path:
    """A copy of the chunk ``src`` whose metadata calls the event class ``old`` ``new``."""
    dest.mkdir(parents=True)
    for f in src.iterdir():
        (dest / f.name).write_bytes(f.read_bytes())
    (dest / "metadata").write_text(metadata_text(src / "metadata").replace(old, new))
    return dest


def _names(meta: object) -> set[str]:
    return {ev.name for ev in meta.event_classes()}  # type: ignore[attr-defined]


# -- parsed metadata ---------------------------------------------------------------------------


def test_identical_metadata_is_parsed_once_and_equals_a_fresh_parse(small: GenInfo) -> None:
    cache = MetadataCache(capacity=4)
    first = read_metadata(small.dirs[0], cache)
    again = read_metadata(small.dirs[1], cache)
    assert again is first and (cache.misses, cache.hits) == (1, 1)
    assert first == read_metadata(small.dirs[1], cache=None)


def test_changed_metadata_is_not_served_from_the_cache(small: GenInfo, tmp_path: Path) -> None:
    cache = MetadataCache(capacity=4)
    before = read_metadata(small.dirs[0], cache)
    changed = _renamed(small.dirs[0], tmp_path / "c", '"sched_switch"', '"sched_switch_x"')
    after = read_metadata(changed, cache)
    assert "sched_switch" in _names(before) and "sched_switch" not in _names(after)
    assert "sched_switch_x" in _names(after) and cache.misses == 2


def test_an_evicted_entry_is_parsed_again(small: GenInfo, tmp_path: Path) -> None:
    cache = MetadataCache(capacity=1)
    other = _renamed(small.dirs[0], tmp_path / "o", '"sched_switch"', '"sched_other"')
    first = read_metadata(small.dirs[0], cache)
    read_metadata(other, cache)  # evicts the first
    rebuilt = read_metadata(small.dirs[0], cache)
    assert len(cache) == 1 and (cache.misses, cache.hits) == (3, 0)
    assert rebuilt is not first and rebuilt == first


def test_bad_metadata_is_reported_every_time_and_not_kept(tmp_path: Path) -> None:
    cache = MetadataCache()
    (tmp_path / "metadata").write_text("/* CTF 1.8 */\ntrace { major = ; };\n")
    for _ in range(2):
        with pytest.raises(TraceFormatError, match="metadata"):
            read_metadata(tmp_path, cache)
    assert len(cache) == 0


# -- the schema, once per connection -----------------------------------------------------------


def test_a_fresh_database_still_gets_its_schema(small: GenInfo) -> None:
    first = Database.open(":memory:")
    import_trace(first, small.dirs[0], node="n", session="s")
    fresh = Database.open(":memory:")
    assert not fresh.schema_ready and not fresh.tables()
    ensure_schema(fresh)
    assert fresh.schema_ready and set(TABLES) <= set(fresh.tables())
    assert "events" in fresh.tables()


def test_a_dropped_store_table_is_made_again_after_user_ddl(small: GenInfo) -> None:
    db = Database.open(":memory:")
    import_trace(db, small.dirs[0], node="n", session="s")
    db.relation("SELECT count(*) FROM logs").fetch()
    assert db.schema_ready  # a query leaves what is known alone
    db.relation("DROP TABLE logs").fetch()
    assert not db.schema_ready and db.catalog is None
    res = import_trace(db, small.dirs[1], node="n", session="s")
    assert res.chunks_loaded == 1 and not res.errors and "logs" in db.tables()


# -- the catalog kept across loads -------------------------------------------------------------


def test_a_catalog_changed_by_another_connection_is_read_again(
    small: GenInfo, tmp_path: Path
) -> None:
    path = str(tmp_path / "two.duckdb")
    mine, other = Database.open(path), Database.open(path)
    x = _renamed(small.dirs[1], tmp_path / "x", '"sched_switch"', '"sched_switch_x"')
    y = _renamed(small.dirs[2], tmp_path / "y", '"sched_switch"', '"sched_switch_y"')
    assert import_trace(mine, small.dirs[0], node="n", session="s").chunks_loaded == 1
    assert import_trace(other, x, node="n", session="s").chunks_loaded == 1
    res = import_trace(mine, y, node="n", session="s")  # a new name after the other's
    assert res.chunks_loaded == 1 and not res.errors
    ids = mine.execute("SELECT name, class_id FROM event_names WHERE name LIKE 'sched_switch%'")
    assert len({i for _, i in ids}) == len(ids) == 3
    for name in ("sched_switch_x", "sched_switch_y"):
        got = mine.execute("SELECT count(*) FROM events WHERE name = ?", [name])[0][0]
        assert got == mine.execute(f"SELECT count(*) FROM ev_{name}")[0][0] > 0


def test_a_failed_load_forgets_the_catalog(small: GenInfo) -> None:
    db = Database.open(":memory:")
    import_trace(db, small.dirs[0], node="n", session="s")
    assert db.catalog is not None

    def failing(readers: object) -> object:
        raise RuntimeError("decoder gone")
        yield

    with pytest.raises(RuntimeError):
        import_trace(
            db, small.dirs[1], node="n", session="s", settings=LoadSettings(batches=failing)
        )  # type: ignore[arg-type]
    assert db.catalog is None
    assert import_trace(db, small.dirs[1], node="n", session="s").chunks_loaded == 1
    assert db.execute("SELECT count(*) FROM chunks")[0][0] == 2


# -- one flush or several: the same rows -------------------------------------------------------


def _contents(db: Database) -> dict[str, list[tuple[object, ...]]]:
    """Every derived and event row, without the eids (decoding order numbers them)."""
    return {
        "events": db.execute(
            "SELECT node, session, chunk_id, stream_id, cpu, ts, name FROM events ORDER BY ALL"
        ),
        "syscalls": db.execute("SELECT * FROM syscalls ORDER BY ALL"),
        "pending": db.execute("SELECT * FROM pending_syscalls ORDER BY ALL"),
        "threads": db.execute("SELECT * FROM threads ORDER BY ALL"),
        "chunks": db.execute(
            "SELECT chunk_id, events, discarded, first_ts, last_ts, chunk_no "
            "FROM chunks ORDER BY ALL"
        ),
        "switches": db.execute(
            "SELECT e.ts, p.* EXCLUDE (eid) FROM events e "
            "JOIN ev_sched_switch p USING (eid) ORDER BY ALL"
        ),
    }


@pytest.mark.parametrize("fast", [True, False], ids=["staged", "sql"])
def test_a_chunk_of_one_flush_stores_what_several_flushes_store(small: GenInfo, fast: bool) -> None:
    one, several = Database.open(":memory:"), Database.open(":memory:")
    many = LoadSettings(flush_rows=100, batch_rows=50, row_group=64, fast_syscalls=fast)
    for d in small.dirs:
        import_trace(one, d, node="n", session="s", settings=LoadSettings(fast_syscalls=fast))
        import_trace(several, d, node="n", session="s", settings=many)
    assert _contents(one) == _contents(several)
    assert one.execute("SELECT sum(events) FROM chunks")[0][0] == small.events
