"""The syscall stager's write-ahead paths: rows written with the flushes before the thread facts
are known (fixed at the chunk's end), undone when a load fails or stream-local pairing does not
hold, and left over by an interrupted process (removed by the next import)."""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from fayshell.ctf.decode import EventBatch, StreamReader
from fayshell.store import derived, kernel, loader
from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.settings import LoadSettings
from tests.fixtures.ctfgen import GenInfo, GenSpec, write_trace


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    out = tmp_path_factory.mktemp("gen") / "stager"
    return write_trace(out, GenSpec(events=20_000, cpus=3, packet_size=8192, chunks=2, seed=5))


def backwards(readers: list[StreamReader]) -> Iterator[tuple[StreamReader, EventBatch]]:
    """Streams read last to first (the statedump, at the start of the first stream, comes
    after every other stream's rows)."""
    for r in reversed(readers):
        for b in r.batches():
            yield r, b


#: Small flushes whose syscalls rows are written at once (tiny row groups), streams backwards.
EARLY = LoadSettings(flush_rows=1500, row_group=64, batches=backwards)
#: The same, flushed as decoded (not answer_first): the path the interruption tests break.
FLUSHED = dataclasses.replace(EARLY, answer_first=False)


def _syscalls(db: Database) -> Counter[tuple[object, ...]]:
    return Counter(
        db.execute(
            "SELECT node, session, cpu, tid, pid, procname, name, ts_entry, "
            "ts_exit, dur_ns, ret FROM syscalls"
        )
    )


def _truth(info: GenInfo) -> Counter[tuple[object, ...]]:
    off = GenSpec().clock_offset
    return Counter(
        (
            "n",
            "s",
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


def _import(db: Database, info: GenInfo, settings: LoadSettings = EARLY) -> None:
    for d in info.dirs:
        res = import_trace(db, d, node="n", session="s", settings=settings)
        assert res.chunks_loaded == 1 and not res.errors


def test_pids_learnt_late_are_fixed(gen: GenInfo) -> None:
    db = Database.open(":memory:")
    _import(db, gen)
    assert _syscalls(db) == _truth(gen)


def test_failed_load_leaves_no_syscalls(gen: GenInfo, monkeypatch: pytest.MonkeyPatch) -> None:
    db = Database.open(":memory:")

    def boom(db: Database, info: derived.ChunkInfo, settings: LoadSettings) -> None:
        raise RuntimeError("interrupted")

    with monkeypatch.context() as m:
        m.setattr(derived, "derive_chunk", boom)
        with pytest.raises(RuntimeError):
            import_trace(db, gen.dirs[0], node="n", session="s", settings=FLUSHED)
    assert db.execute("SELECT count(*) FROM syscalls")[0][0] == 0
    _import(db, gen)
    assert _syscalls(db) == _truth(gen)


def test_rows_of_a_dead_process_are_removed(gen: GenInfo, monkeypatch: pytest.MonkeyPatch) -> None:
    db = Database.open(":memory:")
    _import(db, GenInfo([gen.dirs[0]]))
    first = _syscalls(db)

    def boom(db: Database, info: derived.ChunkInfo, settings: LoadSettings) -> None:
        raise RuntimeError("killed")

    with monkeypatch.context() as m:  # the process "dies": nothing cleans up after it
        m.setattr(derived, "derive_chunk", boom)
        m.setattr(loader, "remove_orphans", lambda db: None)
        with pytest.raises(RuntimeError):
            import_trace(db, gen.dirs[1], node="n", session="s", settings=FLUSHED)
    assert db.execute("SELECT count(*) FROM syscalls")[0][0] > first.total()
    _import(db, GenInfo([gen.dirs[1]]))
    assert _syscalls(db) == _truth(gen)


def test_two_channels_of_a_cpu_fall_back_to_sql(gen: GenInfo, tmp_path: Path) -> None:
    trace = tmp_path / "two"
    shutil.copytree(gen.dirs[0], trace)
    shutil.copy(trace / "channel0_1", trace / "channel1_1")  # cpu 1 in two stream files
    got = Database.open(":memory:")
    import_trace(got, trace, node="n", session="s", settings=EARLY)
    want = Database.open(":memory:")
    import_trace(
        want, trace, node="n", session="s", settings=dataclasses.replace(EARLY, fast_syscalls=False)
    )
    assert _syscalls(got) == _syscalls(want)
    assert _syscalls(got).total() > 0


def test_compiled_scan_matches_numpy() -> None:
    import numpy as np

    pytest.importorskip("fayshell.store._algos")
    rng = np.random.default_rng(3)
    kinds = np.array([0, kernel.ENTRY, kernel.EXIT, kernel.SWITCH, kernel.ENTRY], np.int8)
    for n in (0, 1, 2, 17, 5000):
        cls = rng.integers(0, len(kinds), n).astype(np.int32)
        tid = rng.integers(-1, 3, n).astype(np.int64)
        run = np.cumsum(rng.random(n) < 0.05).astype(np.int64)
        c = kernel.scan_batch(cls, kinds, tid, run, use_c=True)
        py = kernel.scan_batch(cls, kinds, tid, run, use_c=False)
        for field in ("entries", "exits", "heads", "tails"):
            assert getattr(c, field).tolist() == getattr(py, field).tolist(), (n, field)
    with pytest.raises(ValueError):
        from fayshell.store._algos import pair_scan

        pair_scan(np.array([9], np.int32), kinds, np.zeros(1, np.int64), np.zeros(1, np.int64))


def test_numpy_scan_imports_the_same(gen: GenInfo) -> None:
    db = Database.open(":memory:")
    _import(db, gen, dataclasses.replace(EARLY, prefer_c=False))
    assert _syscalls(db) == _truth(gen)
