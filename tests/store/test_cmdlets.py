"""The store cmdlets in a real shell: Import-Trace and the query cmdlets feeding pipelines."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.fixtures.ctfgen import GenInfo, GenSpec, write_trace
from tests.fixtures.shell import Shell, shell  # noqa: F401 - fixture


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    out = tmp_path_factory.mktemp("pulled") / "incident" / "web01"
    return write_trace(out, GenSpec(events=8000, cpus=2, packet_size=8192, chunks=2, seed=2))


async def test_import_then_query(shell: Shell, tree: GenInfo) -> None:  # noqa: F811
    root = tree.dirs[0].parents[2]
    out = await shell.run(f"Import-Trace '{root}'")
    assert len(out) == 1
    s = out[0]
    assert (s.Chunks, s.Skipped, s.Events, s.Errors) == (2, 0, tree.events, 0)
    again = await shell.run(f"Import-Trace '{root}'")
    assert (again[0].Chunks, again[0].Skipped, again[0].Events) == (0, 2, 0)
    chunks = await shell.run("Get-TraceChunk -Node web01 | Sort-Object first_ts")
    assert [c["session"] for c in chunks] == ["incident", "incident"]
    assert sum(c["events"] for c in chunks) == tree.events
    n = await shell.run("Get-Event sched_switch | Measure-Object")
    assert n[0]["Count"] == tree.counts["sched_switch"]
    reads = await shell.run(
        "Get-Syscall read -MinDuration 2us | Sort-Object dur_ns -Descending"
        " | Select-Object -First 3"
    )
    want = sorted(
        (
            s.ts_exit - s.ts_entry
            for s in tree.syscalls
            if s.name == "read" and s.ts_exit - s.ts_entry >= 2000
        ),
        reverse=True,
    )[:3]
    assert [r["dur_ns"] for r in reads] == want
    groups = await shell.run("Get-Syscall | Group-Object name | Sort-Object Name")
    assert {g["Name"]: g["Count"] for g in groups} == {
        name: sum(1 for s in tree.syscalls if s.name == name)
        for name in {s.name for s in tree.syscalls}
    }
    tid = tree.syscalls[0].tid
    mine = await shell.run(
        f"Get-Syscall -Tid {tid} | Where-Object {{ $_.dur_ns -ge 0 }} | Measure-Object"
    )
    assert mine[0]["Count"] == sum(1 for s in tree.syscalls if s.tid == tid)


async def test_query_cmdlets_filter_logs_and_spans(shell: Shell) -> None:  # noqa: F811
    await shell.run("Get-TraceChunk")  # creates the schema
    db = shell.state.database
    for i, (sev, level) in enumerate(
        (("Debug", 10), ("Warning", 30), ("Error", 40), ("Critical", 50))
    ):
        db.execute(
            "INSERT INTO logs VALUES ('n1', 's', ?, 'python', ?, ?, ?, 'm', 'f', 1, 't', 1, 'p')",
            [i, f"storage.{sev.lower()}", level, sev],
        )
    warn = await shell.run("Get-Log -Severity Warning | Sort-Object ts")
    assert [r["severity"] for r in warn] == ["Warning", "Error", "Critical"]
    exact = await shell.run("Get-Log -Severity error -Exact")
    assert [r["logger"] for r in exact] == ["storage.error"]
    named = await shell.run("Get-Log 'storage.c*'")
    assert [r["level"] for r in named] == [50]
    db.execute(
        "INSERT INTO spans (node, session, trace_id, span_id, service, name, ts_start, "
        "ts_end, dur_ns, error) VALUES ('n1', 's', 1, 2, 'vlmcd', 'read', 0, 60000000, "
        "60000000, true), ('n1', 's', 1, 3, 'mapperd', 'map', 0, 10, 10, false)"
    )
    slow = await shell.run("Get-Span -Service vlmcd | Where-Object { $_.dur_ms -gt 50 }")
    assert [(r["span_id"], r["dur_ms"]) for r in slow] == [(2, 60.0)]
    errs = await shell.run("Get-Span -ErrorOnly | Measure-Object")
    assert errs[0]["Count"] == 1


async def test_damaged_and_missing_paths(shell: Shell, tmp_path: Path) -> None:  # noqa: F811
    write_trace(tmp_path / "t", GenSpec(events=3000, cpus=1, packet_size=8192))
    f = tmp_path / "t" / "channel0_0"
    f.write_bytes(f.read_bytes()[: 8192 + 10])
    paths = f"'{tmp_path / 't'}', '{tmp_path / 'nope'}'"
    from fayshell.errors import CommandError

    with pytest.raises(CommandError, match="channel0_0"):
        await shell.run(f"Import-Trace {paths}")  # -ErrorAction Stop is the default
    shell.host.errors.clear()
    (tmp_path / "db2.duckdb").unlink(missing_ok=True)
    out = await shell.run(
        f"Import-Trace {paths} -Database '{tmp_path / 'db2.duckdb'}' -ErrorAction Continue"
    )
    assert [o.Errors for o in out] == [1, 1]
    assert 0 < out[0].Events < 3000
    assert any(str(f) in e and "@ byte 8192" in e for e in shell.host.errors), shell.host.errors
    assert any("nope" in e for e in shell.host.errors)


async def test_import_into_other_database(shell: Shell, tmp_path: Path) -> None:  # noqa: F811
    write_trace(tmp_path / "t", GenSpec(events=1000, cpus=1))
    other = tmp_path / "other.duckdb"
    out = await shell.run(f"Import-Trace '{tmp_path / 't'}' -Database '{other}' -Node x")
    assert out[0].Chunks == 1
    from fayshell.store.database import Database

    db = Database.open(str(other))
    assert db.execute("SELECT node, events FROM chunks") == [("x", out[0].Events)]
    db.close()


async def test_get_event_comes_in_time_order(shell: Shell, tree: GenInfo) -> None:  # noqa: F811
    """Two CPUs' streams interleave in time; Get-Event shows them merged by ts."""
    await shell.run(f"Import-Trace '{tree.dirs[0].parents[2]}'")
    rows = await shell.run("Get-Event")
    stamps = [r["ts"] for r in rows]
    assert len(stamps) == tree.events
    assert stamps == sorted(stamps)
    assert len({r["cpu"] for r in rows[:200]}) == 2  # really interleaved, not one CPU after another
    first = await shell.run("Get-Event | Where-Object { $_.cpu -eq 1 } | Select-Object -First 5")
    assert [r["ts"] for r in first] == sorted(r["ts"] for r in rows if r["cpu"] == 1)[:5]


class RecordedBar:
    """A progress bar that keeps what it was told (the loader's side of the protocol)."""

    def __init__(self) -> None:
        self.descriptions: list[str] = []
        self.advanced = 0.0

    def advance(self, amount: float = 1.0) -> None:
        self.advanced += amount

    def update(
        self,
        *,
        completed: float | None = None,
        total: float | None = None,
        description: str | None = None,
    ) -> None:
        if description is not None:
            self.descriptions.append(description)

    def close(self) -> None:
        pass


def test_import_progress_names_each_chunk_and_counts_its_events(
    tree: GenInfo, tmp_path: Path
) -> None:
    from fayshell.store.database import Database
    from fayshell.store.loader import import_trace

    bar = RecordedBar()
    db = Database.open(str(tmp_path / "p.duckdb"))
    try:
        res = import_trace(db, tree.dirs[0].parents[2], progress=bar)
    finally:
        db.close()
    assert res.chunks_loaded == 2
    labels = [d for d in bar.descriptions if ":" not in d]
    assert [lab.split()[:2] for lab in labels] == [["chunk", "1/2"], ["chunk", "2/2"]]
    last: dict[str, int] = {}  # chunk label -> the last event count shown for it
    for d in bar.descriptions:
        if d.endswith(" events"):
            label, count = d.rsplit(": ", 1)
            last[label] = int(count.split()[0].replace(",", ""))
    assert sorted(last) == sorted(labels) and sum(last.values()) == tree.events
    assert bar.advanced == sum(
        f.stat().st_size
        for d in tree.dirs
        for f in d.iterdir()
        if f.is_file() and f.name != "metadata"
    )


class InterruptingBar(RecordedBar):
    """The bar of a shell whose user presses Ctrl-C once some bytes are decoded."""

    def advance(self, amount: float = 1.0) -> None:
        from fayshell.errors import Interrupted

        super().advance(amount)
        if self.advanced > 0:
            raise Interrupted()


def test_ctrl_c_during_import_is_an_interrupt_and_the_chunk_imports_again(
    tree: GenInfo, tmp_path: Path
) -> None:
    from fayshell.errors import Interrupted
    from fayshell.store.database import Database
    from fayshell.store.loader import import_trace

    root = tree.dirs[0].parents[2]
    db = Database.open(str(tmp_path / "i.duckdb"))
    try:
        with pytest.raises(Interrupted):  # not re-wrapped as a store error: exit 130
            import_trace(db, root, progress=InterruptingBar())
        assert db.execute("SELECT count(*) FROM chunks")[0][0] == 0
        res = import_trace(db, root)
        assert (res.chunks_loaded, res.events) == (2, tree.events)
        assert db.execute("SELECT count(*) FROM events")[0][0] == tree.events
    finally:
        db.close()


def decoder_threads() -> list[str]:
    import threading

    return [t.name for t in threading.enumerate() if t.name.startswith("ctf-decode")]


async def test_first_chunk_decodes_before_the_database_opens_and_no_decoder_outlives_it(
    shell: Shell,  # noqa: F811
    tree: GenInfo,
    tmp_path: Path,
) -> None:
    """Import-Trace starts decoding its first chunk before it opens the database: used (a new
    chunk), not used (imported already) or cut short (the database cannot open), no decoder
    thread outlives the command, and what is imported is what a plain import stores."""
    from fayshell.errors import FayError
    from fayshell.store.database import Database

    root = tree.dirs[0].parents[2]
    other = tmp_path / "early.duckdb"
    out = await shell.run(f"Import-Trace '{root}' -Database '{other}'")
    assert (out[0].Chunks, out[0].Events) == (2, tree.events) and decoder_threads() == []
    again = await shell.run(f"Import-Trace '{root}' -Database '{other}'")
    assert (again[0].Chunks, again[0].Skipped) == (0, 2) and decoder_threads() == []
    (tmp_path / "a-directory").mkdir()
    with pytest.raises(FayError, match="a-directory"):
        await shell.run(f"Import-Trace '{root}' -Database '{tmp_path / 'a-directory'}'")
    assert decoder_threads() == []
    db = Database.open(str(other))
    try:
        assert db.execute("SELECT count(*) FROM events")[0][0] == tree.events
    finally:
        db.close()


def test_start_first_chunk_decodes_the_first_trace_and_stops(tree: GenInfo, tmp_path: Path) -> None:
    from fayshell.store.loader import start_first_chunk
    from fayshell.store.settings import ANSWER_FIRST

    assert start_first_chunk(tmp_path, ANSWER_FIRST) is None  # no trace under it
    assert start_first_chunk(tmp_path / "missing", ANSWER_FIRST) is None
    started = start_first_chunk(tree.dirs[0].parents[2], ANSWER_FIRST)
    assert started is not None and started.trace.path == tree.dirs[0]
    deadline = time.monotonic() + 30
    while not any(r.stats.bytes_read for r in started.readers):  # no batch asked for yet
        assert time.monotonic() < deadline, "the decoders did not start"
        time.sleep(0.01)
    reader, batch = next(started.batches)
    assert batch.common.num_rows > 0
    started.close()
    started.close()  # a second close is harmless (the import's and its caller's)
    assert decoder_threads() == []
