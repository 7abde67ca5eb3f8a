"""The narrow events layout: event_rows + event_names behind the ``events`` view, the upgrade of
a store with a wide ``events`` table, and a failing background write rolled back cleanly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.schema import ensure_schema
from fayshell.store.settings import LoadSettings
from fayshell.store.writer import Insert
from tests.fixtures.ctfgen import GenSpec, write_trace

EVENTS = "SELECT node, session, chunk_id, stream_id, cpu, ts, name, eid FROM events ORDER BY eid"


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "t"
    write_trace(out, GenSpec(events=5000, cpus=2, packet_size=8192, seed=5))
    return out


def test_events_view_has_the_contract_columns(trace: Path) -> None:
    db = Database.open(":memory:")
    import_trace(db, trace, node="n1", session="s1")
    kind = db.execute(
        "SELECT table_type FROM information_schema.tables WHERE table_name = 'events'"
    )
    assert kind == [("VIEW",)]
    cols = db.table_columns()["events"]
    assert cols[:8] == ["node", "session", "chunk_id", "stream_id", "cpu", "ts", "name", "eid"]
    (cid,) = db.execute("SELECT chunk_id FROM chunks")[0]
    n = db.execute(
        "SELECT count(*) FROM events WHERE name = 'sched_switch' AND node = 'n1' "
        "AND session = 's1' AND chunk_id = ?",
        [cid],
    )[0][0]
    assert n == db.execute("SELECT count(*) FROM ev_sched_switch")[0][0] > 0
    total = db.execute("SELECT sum(events) FROM chunks")[0][0]
    assert db.execute("SELECT count(*), count(DISTINCT eid) FROM events")[0] == (total, total)


def _legacy_copy(db: Database, old: Database | None = None) -> Database:
    """A store as the wide layout wrote it: ``events`` a table, chunks without chunk_no (in
    ``old``, else in memory)."""
    old = old or Database.open(":memory:")
    rows: list[Any] = db.execute("SELECT * FROM events ORDER BY eid")
    cols = db.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_name = 'events' ORDER BY ordinal_position"
    )
    old.execute("CREATE TABLE events (" + ", ".join(f'"{c}" {t}' for c, t in cols) + ")")
    old.con.executemany(f"INSERT INTO events VALUES ({', '.join('?' * len(cols))})", rows)
    chunk_cols = [c for c in db.table_columns()["chunks"] if c != "chunk_no"]
    old.execute(
        "CREATE TABLE chunks (chunk_id VARCHAR, node VARCHAR, session VARCHAR, "
        "path VARCHAR, bytes BIGINT, events BIGINT, discarded BIGINT, lost_packets BIGINT, "
        "first_ts BIGINT, last_ts BIGINT, loaded_at TIMESTAMP, domain VARCHAR, "
        "errors INTEGER)"
    )
    old.con.executemany(
        "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        db.execute(f"SELECT {', '.join(chunk_cols)} FROM chunks"),
    )
    return old


def test_wide_events_table_is_upgraded(trace: Path) -> None:
    db = Database.open(":memory:")
    import_trace(db, trace, node="n1", session="s1")
    old = _legacy_copy(db)
    ensure_schema(old)
    assert old.execute(EVENTS) == db.execute(EVENTS)
    assert old.execute("SELECT count(*) FROM event_rows")[0][0] == len(db.execute(EVENTS))
    again = import_trace(old, trace, node="n1", session="s1")
    assert again.chunks_skipped == 1 and again.chunks_loaded == 0


def test_only_a_file_this_open_made_skips_the_layout_check(trace: Path, tmp_path: Path) -> None:
    """A database file that did not exist has no wide ``events`` table to upgrade, so its
    first import spares that catalog query; a statement that may change the schema since it
    was opened, or a file that existed, brings the check back."""
    fresh = Database.open(str(tmp_path / "new.duckdb"))
    assert fresh.new
    import_trace(fresh, trace, node="n1", session="s1")
    kind = "SELECT table_type FROM information_schema.tables WHERE table_name = 'events'"
    assert fresh.execute(kind) == [("VIEW",)]
    old = _legacy_copy(fresh, Database.open(str(tmp_path / "old.duckdb")))
    assert not old.new  # its CREATE TABLE statements
    ensure_schema(old)
    assert old.execute(kind) == [("VIEW",)]
    assert old.execute(EVENTS) == fresh.execute(EVENTS)
    old.con.close()
    assert not Database.open(str(tmp_path / "old.duckdb")).new


def test_failed_background_write_leaves_no_rows(
    trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database.open(":memory:")
    calls = {"n": 0}
    real = Insert.run

    def flaky(self: Insert, con: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("disk full")
        real(self, con)

    monkeypatch.setattr(Insert, "run", flaky)
    with pytest.raises(RuntimeError, match="disk full"):  # the flushing path's writer
        import_trace(db, trace, node="n1", session="s1", settings=LoadSettings(answer_first=False))
    monkeypatch.setattr(Insert, "run", real)
    assert db.execute("SELECT count(*) FROM event_rows")[0][0] == 0
    assert db.execute("SELECT count(*) FROM chunks")[0][0] == 0
    res = import_trace(db, trace, node="n1", session="s1")
    assert res.chunks_loaded == 1 and not res.errors
    assert db.execute("SELECT count(*) FROM events")[0][0] == res.events
