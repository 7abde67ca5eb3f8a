"""Answers before the data is on disk (fayshell.store.pending): while a chunk is written in
the background its rows are queryable from Arrow, each exactly once, with the same results as
the flushing path; the shell waits for the write before it exits."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from fayshell.errors import StoreError
from fayshell.lang.streams import is_relation
from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.settings import ANSWER_FIRST, LoadSettings
from tests.fixtures.ctfgen import GenInfo, GenSpec, write_trace
from tests.fixtures.shell import Shell

ROOT = Path(__file__).resolve().parents[2]

#: Every table a kernel chunk feeds, compared as whole row multisets.
QUERIES = {
    "syscalls": "SELECT node, session, cpu, tid, pid, procname, name, ts_entry, ts_exit, dur_ns,"
    " ret FROM syscalls",
    # eids follow the order the parallel decoder delivers batches in: counted, not compared
    "events": "SELECT node, session, chunk_id, stream_id, cpu, ts, name FROM events",
    "eids": "SELECT count(*), count(DISTINCT eid), max(eid) - min(eid) + 1 FROM events",
    "pending_syscalls": "SELECT * FROM pending_syscalls",
    "cpu_state": "SELECT node, session, cpu, tid, procname FROM cpu_state",
    "threads": "SELECT * FROM threads",
    "chunks": "SELECT chunk_id, node, session, events, chunk_no FROM chunks",
}


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    out = tmp_path_factory.mktemp("gen") / "pending"
    return write_trace(out, GenSpec(events=30_000, cpus=3, chunks=2, packet_size=8192, seed=5))


def _rows(db: Database) -> dict[str, list[tuple[object, ...]]]:
    return {t: sorted(db.execute(sql), key=repr) for t, sql in QUERIES.items()}


class Gate:
    """Holds the background writer just before it commits until released."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.go = threading.Event()

    def __call__(self) -> None:
        self.reached.set()
        self.go.wait()


def test_query_while_the_writer_is_behind_sees_each_row_once(gen: GenInfo) -> None:
    flushed = Database.open(":memory:")
    for d in gen.dirs:
        import_trace(flushed, d, node="n", session="s", settings=LoadSettings(flush_rows=2000))
    want = _rows(flushed)
    db = Database.open(":memory:")
    import_trace(db, gen.dirs[0], node="n", session="s", settings=ANSWER_FIRST)  # written...
    gate = Gate()
    res = import_trace(
        db,
        gen.dirs[1],
        node="n",
        session="s",
        settings=LoadSettings(answer_first=True, before_commit=gate),
    )
    assert res.chunks_loaded == 1
    assert gate.reached.wait(60)  # ...the second held uncommitted
    assert db.has_pending
    during = _rows(db)
    gate.go.set()
    db.wait_pending()
    after = _rows(db)
    assert during == want
    assert after == want
    assert len(want["syscalls"]) > 1000 and want["pending_syscalls"] and want["cpu_state"]


@pytest.fixture(scope="module")
def blkkin(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A real BlkKin-only trace (no log events: every table answer_first derives), cut into
    two chunks between packets as a rotation would, with a span on both sides of the cut."""
    from fayshell.ctf.trace import find_traces
    from fayshell.lttng import AddContext, CreateSession, EnableChannel, EnableEvent, Start, Stop
    from tests.fixtures.workloads.build import build_blkkin
    from tests.lttng.harness import PrivateSessiond
    from tests.store.test_real_ust import split_within_a_span

    program = build_blkkin()
    d = PrivateSessiond()
    try:
        d.start()
        out = d.output_dir("fay-pending")
        d.ok(CreateSession("fay-pending", output=str(out)).argv())
        d.ok(EnableChannel("fay-pending", "small", "user", subbuf_size=16384, num_subbuf=32).argv())
        d.ok(EnableEvent("fay-pending", "user", ("zipkin:*",), channel="small").argv())
        d.ok(
            AddContext(
                "fay-pending", ("vpid", "vtid", "procname"), domain="user", channel="small"
            ).argv()
        )
        d.ok(Start("fay-pending").argv())
        d.workload([str(program), "--requests", "60"])
        d.ok(Stop("fay-pending").argv())
        return split_within_a_span(find_traces(out)[0], tmp_path_factory.mktemp("cut"))
    finally:
        d.stop()


def test_spans_while_the_writer_is_behind(blkkin: tuple[Path, Path]) -> None:
    sql = (
        "SELECT node, session, trace_id, span_id, parent_span_id, service, name, ts_start, "
        "ts_end, dur_ns, client_dur_ns, server_dur_ns, annotations, keyvals, error, chunk_no "
        "FROM spans"
    )
    flushed = Database.open(":memory:")
    for d in blkkin:
        import_trace(flushed, d, node="n", session="s", settings=LoadSettings())
    want = sorted(map(str, flushed.execute(sql)))
    db = Database.open(":memory:")
    import_trace(db, blkkin[0], node="n", session="s", settings=ANSWER_FIRST)
    gate = Gate()
    import_trace(
        db,
        blkkin[1],
        node="n",
        session="s",
        settings=LoadSettings(answer_first=True, before_commit=gate),
    )
    assert gate.reached.wait(60)
    during = sorted(map(str, db.execute(sql)))
    events = db.execute("SELECT count(*), count(DISTINCT eid) FROM events")[0]
    gate.go.set()
    db.wait_pending()
    assert during == want
    assert sorted(map(str, db.execute(sql))) == want
    assert events == flushed.execute("SELECT count(*), count(DISTINCT eid) FROM events")[0]
    straddling = db.execute(
        "SELECT count(*) FROM spans WHERE chunk_no = 2 AND ts_start < "
        "(SELECT first_ts FROM chunks WHERE chunk_no = 2)"
    )[0][0]
    assert straddling > 0  # spans with rows in both chunks were rebuilt and replaced


def test_the_shell_waits_for_the_write_before_it_exits(gen: GenInfo, tmp_path: Path) -> None:
    path = tmp_path / "shell.duckdb"
    cmd = [
        sys.executable,
        "-m",
        "fayshell",
        "--no-color",
        "--db",
        str(path),
        "-c",
        f"Import-Trace '{gen.dirs[0]}' -Node n -Session s | Out-Null; "
        "sql SELECT count(*) AS n FROM syscalls",
    ]
    out = subprocess.run(
        cmd, capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    ).stdout
    answered = int(out.split()[-1])
    flushed = Database.open(":memory:")
    import_trace(flushed, gen.dirs[0], node="n", session="s", settings=LoadSettings())
    db = Database.open(str(path))
    assert answered == flushed.execute("SELECT count(*) FROM syscalls")[0][0] > 0
    assert _rows(db) == _rows(flushed)


def test_a_failed_background_write_is_reported_and_the_chunk_imports_again(gen: GenInfo) -> None:
    def disk_full() -> None:
        raise OSError("No space left on device")

    db = Database.open(":memory:")
    res = import_trace(
        db,
        gen.dirs[0],
        node="n",
        session="s",
        settings=LoadSettings(answer_first=True, before_commit=disk_full),
    )
    assert res.chunks_loaded == 1
    with pytest.raises(StoreError, match="imported again next time.*No space left"):
        db.wait_pending()
    assert not db.has_pending
    assert db.execute("SELECT count(*) FROM chunks")[0][0] == 0  # rolled back, views gone
    assert db.execute("SELECT count(*) FROM event_rows")[0][0] == 0
    again = import_trace(db, gen.dirs[0], node="n", session="s", settings=ANSWER_FIRST)
    db.wait_pending()
    flushed = Database.open(":memory:")
    import_trace(flushed, gen.dirs[0], node="n", session="s")
    assert (again.chunks_loaded, again.chunks_skipped) == (1, 0)
    assert _rows(db) == _rows(flushed)


def test_row_wise_pipelines_see_the_pending_rows(gen: GenInfo) -> None:
    db = Database.open(":memory:")
    gate = Gate()
    import_trace(
        db,
        gen.dirs[0],
        node="n",
        session="s",
        settings=LoadSettings(answer_first=True, before_commit=gate),
    )
    assert gate.reached.wait(60)
    streamed = len(list(db.relation("SELECT * FROM syscalls").iter_records()))
    counted = db.execute("SELECT count(*) FROM syscalls")[0][0]
    gate.go.set()
    db.wait_pending()
    assert streamed == counted == db.execute("SELECT count(*) FROM syscalls")[0][0] > 0
    assert len(list(db.relation("SELECT * FROM syscalls").iter_records())) == counted


@pytest.mark.parametrize(
    "ratio",
    [
        pytest.param(2.0, id="too-big-by-its-files"),  # never held
        pytest.param(0.0, id="past-the-budget-while-decoding"),  # held, then flushed
    ],
)
def test_past_pending_bytes_the_chunk_is_flushed_as_it_is_decoded(
    gen: GenInfo, ratio: float
) -> None:
    db = Database.open(":memory:")
    small = LoadSettings(
        answer_first=True, pending_bytes=1, flush_rows=2000, decoded_per_file_byte=ratio
    )
    for d in gen.dirs:
        import_trace(db, d, node="n", session="s", settings=small)
        assert not db.has_pending  # committed when import_trace returned
    flushed = Database.open(":memory:")
    for d in gen.dirs:
        import_trace(flushed, d, node="n", session="s")
    assert _rows(db) == _rows(flushed)


def test_imports_from_two_threads_take_turns(gen: GenInfo) -> None:
    db = Database.open(":memory:")
    threads = [
        threading.Thread(
            target=import_trace,
            args=(db, d),
            kwargs={"node": "n", "session": "s", "settings": ANSWER_FIRST},
        )
        for d in gen.dirs
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    db.wait_pending()
    assert db.execute("SELECT count(*) FROM chunks")[0][0] == 2
    got = db.execute("SELECT count(*), count(DISTINCT eid) FROM events")[0]
    assert got[0] == got[1] == sum(db.execute("SELECT sum(events) FROM chunks")[0])


def test_a_held_write_starts_only_when_asked(gen: GenInfo, tmp_path: Path) -> None:
    """hold_write: the chunk is queryable at once, nothing is stored until start_pending
    starts its writer, which then stores what the flushing path does."""
    gate = Gate()
    path = tmp_path / "held.duckdb"
    db = Database.open(str(path))
    held = LoadSettings(answer_first=True, hold_write=True, before_commit=gate)
    assert import_trace(db, gen.dirs[0], node="n", session="s", settings=held).chunks_loaded == 1
    assert db.held_write is not None and db.has_pending
    during = _rows(db)
    other = db.con.cursor()  # another connection sees only what is stored
    assert other.execute("SELECT count(*) FROM chunks").fetchall() == [(0,)]
    db.start_pending()
    assert db.held_write is None
    assert gate.reached.wait(60)  # the writer runs, up to its commit
    gate.go.set()
    db.wait_pending()
    assert other.execute("SELECT count(*) FROM chunks").fetchall() == [(1,)]
    other.close()
    db.close()
    flushed = Database.open(":memory:")
    import_trace(flushed, gen.dirs[0], node="n", session="s")
    assert during == _rows(Database.open(str(path))) == _rows(flushed)


def test_waiting_for_a_held_write_starts_it(gen: GenInfo) -> None:
    db = Database.open(":memory:")
    import_trace(db, gen.dirs[0], node="n", session="s", settings=ANSWER_FIRST)
    assert db.held_write is not None  # the shell's Import-Trace holds its write
    db.wait_pending()
    assert db.held_write is None and not db.has_pending
    assert db.execute("SELECT count(*) FROM main.chunks")[0][0] == 1


async def test_the_shell_writes_an_import_after_the_next_statement(
    gen: GenInfo, shell: Shell
) -> None:
    """Import-Trace's write waits until the statement after it has run and shown its output:
    that question is answered from memory with both cores; then the write starts."""
    shown: list[tuple[int | None, list[object]]] = []

    def show(out: Any) -> None:  # a list of items, or a Relation
        rows = out.records() if is_relation(out) else list(out)
        shown.append((shell.state.database.held_write, rows))

    await shell.interp.run(
        f"Import-Trace '{gen.dirs[0]}' -Node n -Session s | Out-Null\n"
        "sql SELECT count(*) AS n FROM chunks",
        on_output=show,
    )
    ((held, rows),) = shown
    assert held is not None and rows == [{"n": 1}]  # answered while the write was held
    db = shell.state.database
    assert db.held_write is None  # started once that statement was done
    shell.state.wait_for_writes()
    assert db.execute("SELECT count(*) FROM main.chunks")[0][0] == 1


@pytest.mark.parametrize("sleep", [False, True], ids=["loop", "loop-with-sleep"])
async def test_a_held_write_starts_after_the_loop_or_when_the_shell_sleeps(
    gen: GenInfo, shell: Shell, sleep: bool
) -> None:
    """Only a script's own statements count: an import inside a loop is written after the
    statement after the loop, or as soon as Start-Sleep makes the shell wait."""
    body = f"Import-Trace '{gen.dirs[0]}' -Node n -Session s | Out-Null"
    body += "; Start-Sleep -Milliseconds 1" if sleep else ""
    await shell.run(f"foreach ($i in 1) {{ {body} }}")
    db = shell.state.database
    assert (db.held_write is None) == sleep
    await shell.run("$x = 1")
    assert db.held_write is None
    shell.state.wait_for_writes()
    assert db.execute("SELECT count(*) FROM main.chunks")[0][0] == 1
