"""import_trace into DuckDB: tables, idempotency, losses, damage, and syscalls against the
generator's ground truth (including pairs split over chunks)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fayshell.errors import TraceFormatError
from fayshell.store.arrowsql import q
from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.settings import LoadSettings
from tests.fixtures.ctfgen import GenInfo, GenSpec, write_trace


@pytest.fixture(scope="module")
def chunked(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    out = tmp_path_factory.mktemp("gen") / "chunked"
    return write_trace(
        out,
        GenSpec(
            events=30_000,
            cpus=3,
            packet_size=8192,
            chunks=3,
            seed=11,
            discard_every=5,
            lost_every=6,
        ),
    )


def _syscalls(db: Database) -> Counter[tuple[object, ...]]:
    rows = db.execute(
        "SELECT cpu, tid, pid, procname, name, ts_entry, ts_exit, dur_ns, ret FROM syscalls"
    )
    return Counter(rows)


def _truth(info: GenInfo) -> Counter[tuple[object, ...]]:
    off = GenSpec().clock_offset
    return Counter(
        (
            s.cpu,
            s.tid,
            s.pid,
            f"worker-{s.tid}",
            s.name,
            s.ts_entry + off,
            s.ts_exit + off,
            s.ts_exit - s.ts_entry,
            s.ret,
        )
        for s in info.syscalls
    )


@pytest.mark.parametrize("fast", [True, False], ids=["staged", "sql"])
def test_chunks_in_order_rebuild_every_syscall(
    chunked: GenInfo, prefer_c: bool, fast: bool
) -> None:
    db = Database.open(":memory:")
    total = 0
    for d in chunked.dirs:  # as Receive-Trace -Import would, chunk by chunk
        res = import_trace(
            db,
            d,
            node="n1",
            session="s1",
            settings=LoadSettings(prefer_c=prefer_c, fast_syscalls=fast),
        )
        assert res.chunks_loaded == 1 and not res.errors
        total += res.events
    assert total == chunked.events
    assert _syscalls(db) == _truth(chunked)
    # pairs whose exit fell into a later chunk were completed there
    bounds = db.execute("SELECT first_ts FROM chunks ORDER BY first_ts")
    split = db.execute(
        "SELECT count(*) FROM syscalls WHERE ts_entry < ? AND ts_exit >= ?",
        [bounds[1][0], bounds[1][0]],
    )[0][0]
    assert split > 0
    # every thread ends blocked in futex: those entries stay pending for the next chunk
    assert db.execute("SELECT count(*), count(DISTINCT tid) FROM pending_syscalls")[0] == (18, 18)


@pytest.mark.parametrize("fast", [True, False], ids=["staged", "sql"])
def test_tid_context_is_used(tmp_path: Path, fast: bool) -> None:
    from fayshell.ctf.metadata import metadata_text

    info = write_trace(
        tmp_path / "t",
        GenSpec(events=12_000, cpus=2, packet_size=8192, chunks=2, tid_context=True, seed=8),
    )
    for d in info.dirs:  # hide sched_switch: only the tid context can name the thread
        text = metadata_text(d / "metadata").replace('"sched_switch"', '"sched_switch_x"')
        (d / "metadata").write_text(text)
    db = Database.open(":memory:")
    for d in info.dirs:
        assert (
            import_trace(
                db, d, node="n", session="s", settings=LoadSettings(fast_syscalls=fast)
            ).errors
            == []
        )
    assert "tid" in {c.lower() for c in db.table_columns()["events"]}
    assert _syscalls(db) == _truth(info)


def test_tree_import_counts_and_is_idempotent(chunked: GenInfo, prefer_c: bool) -> None:
    db = Database.open(":memory:")
    root = chunked.dirs[0].parent
    res = import_trace(db, root, settings=LoadSettings(prefer_c=prefer_c))
    assert (res.chunks_loaded, res.chunks_skipped, res.events) == (3, 0, chunked.events)
    assert res.discarded == chunked.discarded > 0
    assert res.lost_packets == chunked.lost_packets > 0
    assert _syscalls(db) == _truth(chunked)
    row = db.execute(
        "SELECT count(*), sum(events), sum(discarded), sum(lost_packets), "
        "min(node), min(session) FROM chunks"
    )[0]
    assert row == (
        3,
        chunked.events,
        chunked.discarded,
        chunked.lost_packets,
        "gen-node",
        "chunked",
    )
    names = dict(db.execute("SELECT name, count(*) FROM events GROUP BY name"))
    assert names == {k: v for k, v in chunked.counts.items() if v}
    before = db.execute("SELECT count(*) FROM events")[0][0]
    again = import_trace(db, root, settings=LoadSettings(prefer_c=prefer_c))
    assert (again.chunks_loaded, again.chunks_skipped, again.events) == (0, 3, 0)
    assert db.execute("SELECT count(*) FROM events")[0][0] == before
    assert _syscalls(db) == _truth(chunked)


def test_payload_tables_join_events(chunked: GenInfo) -> None:
    db = Database.open(":memory:")
    import_trace(db, chunked.dirs[0])
    rows = db.execute(
        "SELECT e.ts, p.next_tid, p.next_comm FROM events e "
        "JOIN ev_sched_switch p USING (eid) ORDER BY e.ts LIMIT 3"
    )
    assert len(rows) == 3 and all(comm == f"worker-{tid}" for _, tid, comm in rows)
    n = db.execute("SELECT count(*) FROM ev_syscall_entry_openat WHERE filename LIKE '/%'")[0][0]
    assert n == db.execute("SELECT count(*) FROM events WHERE name = 'syscall_entry_openat'")[0][0]
    table = db.execute("SELECT table_name FROM event_classes WHERE name = 'sched_switch'")
    assert table == [("ev_sched_switch",)]


def test_layout_names_from_receive_tree(tmp_path: Path) -> None:
    write_trace(tmp_path / "pulled" / "incident" / "web01" / "c1", GenSpec(events=500, cpus=1))
    db = Database.open(":memory:")
    res = import_trace(db, tmp_path / "pulled")
    assert res.chunks_loaded == 1
    assert db.execute("SELECT node, session FROM chunks") == [("web01", "incident")]
    assert db.execute("SELECT DISTINCT node, session FROM syscalls") == [("web01", "incident")]


def test_damaged_stream_keeps_events_before(tmp_path: Path, prefer_c: bool) -> None:
    info = write_trace(tmp_path / "t", GenSpec(events=6000, cpus=2, packet_size=8192))
    f = tmp_path / "t" / "channel0_1"
    f.write_bytes(f.read_bytes()[: 8192 * 2 + 500])
    db = Database.open(":memory:")
    res = import_trace(db, tmp_path / "t", settings=LoadSettings(prefer_c=prefer_c))
    assert res.chunks_loaded == 1 and len(res.errors) == 1
    err = res.errors[0]
    assert isinstance(err, TraceFormatError) and err.path == str(f) and err.offset == 8192 * 2
    assert 0 < res.events < info.events
    assert db.execute("SELECT sum(events), sum(errors) FROM chunks")[0] == (res.events, 1)
    assert db.execute("SELECT count(*) FROM events")[0][0] == res.events


def test_not_a_trace_is_reported(tmp_path: Path) -> None:
    db = Database.open(":memory:")
    res = import_trace(db, tmp_path)
    assert res.chunks_loaded == 0 and len(res.errors) == 1
    assert "no CTF trace" in res.errors[0].message


def test_ust_events_with_log_levels_become_logs(tmp_path: Path, prefer_c: bool) -> None:
    from tests.ctf.minitrace import write_mini
    from tests.ctf.reference import bt2_raw

    trace = write_mini(tmp_path / "mini")
    db = Database.open(":memory:")
    res = import_trace(db, trace, settings=LoadSettings(prefer_c=prefer_c))
    assert res.events == 60
    want = sorted(
        (ts, "t:misc", 4, "Warning", f["s"])
        for name, ts, _c, _x, f in bt2_raw(str(trace))
        if name == "t:misc"
    )
    got = sorted(
        db.execute("SELECT ts, logger, level, severity, msg FROM logs WHERE domain = 'ust'")
    )
    assert got == want and len(got) == 48  # t:simple has no log level
    assert db.execute("SELECT DISTINCT node, session FROM logs") == [("mini", "mini-trace")]


def test_payload_table_made_whole_then_widened(tmp_path: Path) -> None:
    """A class's payload table is created with all its columns at once; a later chunk whose
    class declares another field widens it: earlier rows read NULL there."""
    from tests.ctf.minitrace import write_mini

    first = write_mini(tmp_path / "a")
    second = write_mini(tmp_path / "b")
    meta = second / "metadata"
    meta.write_text(meta.read_text().replace("uint64_t _x; }", "uint64_t _y; }"))
    db = Database.open(str(tmp_path / "t.duckdb"))
    for trace in (first, second):
        assert import_trace(db, trace).events == 60
    (table,) = db.execute("SELECT table_name FROM event_classes WHERE name = 't:simple'")[0]
    misc = db.execute("SELECT table_name FROM event_classes WHERE name = 't:misc'")[0][0]
    cols = " ".join(r[0] for r in db.execute(f"DESCRIBE {q(misc)}"))
    assert cols == "eid kind s3 flag nib be13 be3 f32 f64be n vals s fixed text v_A v_B v_C last"
    rows = db.execute(f"SELECT x IS NULL, y IS NULL, count(*) FROM {q(table)} GROUP BY ALL")
    assert sorted(rows) == [(False, True, 12), (True, False, 12)]


def test_a_chunk_removed_by_a_statement_loads_again(chunked: GenInfo) -> None:
    db = Database.open(":memory:")
    root = chunked.dirs[0].parent
    assert import_trace(db, root).chunks_loaded == 3
    db.execute("DELETE FROM event_rows WHERE chunk_no = 2")
    db.execute("DELETE FROM chunks WHERE chunk_no = 2")
    again = import_trace(db, root)
    assert (again.chunks_loaded, again.chunks_skipped) == (1, 2)
    assert db.execute("SELECT count(*) FROM events")[0][0] == chunked.events
