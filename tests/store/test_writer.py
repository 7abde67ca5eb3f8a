"""RowGroupHold: appends leave in whole DuckDB row groups, the rest waits (bounded).
FlushWriter: while a job runs, the connection is its thread's alone."""

from __future__ import annotations

import threading
from collections.abc import Callable

import duckdb
import pyarrow as pa
import pytest

from fayshell.store.database import ConnectionLent, Database
from fayshell.store.settings import LoadSettings
from fayshell.store.writer import FlushWriter, Insert, RowGroupHold


def _rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"eid": pa.array(range(start, start + n), pa.int64())})


def test_whole_row_groups_leave_and_the_rest_waits() -> None:
    hold = RowGroupHold(LoadSettings(row_group=10))
    hold.add(Insert("a", _rows(25), "? AS x, *", [1]))
    hold.add(Insert("b", _rows(7)))
    out = hold.take()
    assert [(i.table, i.data.num_rows, i.select, i.params) for i in out] == [
        ("a", 20, "? AS x, *", [1])
    ]
    hold.add(Insert("a", _rows(6, 25), "? AS x, *", [1]))
    out = hold.take()
    assert [(i.table, i.data.column("eid").to_pylist()) for i in out] == [
        ("a", list(range(20, 30)))
    ]
    final = hold.take(final=True)
    assert sorted((i.table, i.data.column("eid").to_pylist()) for i in final) == [
        ("a", [30]),
        ("b", list(range(7))),
    ]
    assert hold.take(final=True) == []


def test_too_much_held_is_written_anyway() -> None:
    hold = RowGroupHold(LoadSettings(row_group=1000, hold_bytes=8 * 100))
    hold.add(Insert("a", _rows(99)))
    assert hold.take() == []
    hold.add(Insert("b", _rows(99)))  # 2 x 99 rows x 8 bytes: over the cap
    assert sorted(i.data.num_rows for i in hold.take()) == [99, 99]


def test_held_rows_do_not_pin_their_batches() -> None:
    hold = RowGroupHold(LoadSettings(row_group=1000))
    hold.add(Insert("a", pa.table({"s": pa.array(["x" * 100] * 1005)})))
    out = hold.take()
    assert [i.data.num_rows for i in out] == [1000]
    (rest,) = hold.held[("a", "*", ())]
    held_bytes = sum(b.size for c in rest.columns for ch in c.chunks for b in ch.buffers() if b)
    assert rest.column("s").to_pylist() == ["x" * 100] * 5
    assert held_bytes < 1000  # five rows of 100 bytes, not the batch's 100 kB


def test_the_connection_is_the_writer_threads_while_a_job_runs() -> None:
    db = Database.open(":memory:")
    writer = FlushWriter(db)
    started, release = threading.Event(), threading.Event()
    seen: list[object] = []

    def job(con: duckdb.DuckDBPyConnection) -> None:
        started.set()
        release.wait()
        seen.append(con.execute("SELECT 42").fetchall())
        seen.append(db.con is con)  # the writer thread may use db.con itself

    writer.submit(job)
    started.wait()
    with pytest.raises(ConnectionLent, match="store-flush"):
        db.execute("SELECT 1")
    other: list[BaseException] = []
    t = threading.Thread(target=lambda: other.append(_error_of(lambda: db.con)))
    t.start()
    t.join()
    assert isinstance(other[0], ConnectionLent)
    release.set()
    writer.wait()
    assert seen == [[(42,)], True]
    assert db.execute("SELECT 1") == [(1,)]  # given back once the job is done


def test_a_failed_job_gives_the_connection_back_and_raises_at_wait() -> None:
    db = Database.open(":memory:")
    writer = FlushWriter(db)

    def job(con: duckdb.DuckDBPyConnection) -> None:
        con.execute("SELECT * FROM no_such_table")

    writer.submit(job)
    with pytest.raises(duckdb.CatalogException):
        writer.wait()
    assert db.execute("SELECT 1") == [(1,)]


def _error_of(fn: Callable[[], object]) -> BaseException:
    try:
        fn()
    except BaseException as exc:
        return exc
    raise AssertionError("no error")
