"""A killed import: the ``chunks`` table is the idempotency record. A process killed (SIGKILL,
nothing cleans up) in the middle of a chunk, with some of its flushes already committed,
leaves the chunk unmarked, and the next import loads it exactly once; so does one killed while
an answer_first chunk is written in the background (its transaction open); a process killed
after the chunk's write finished (``wait_pending``) keeps the chunk (its commit is durable)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.settings import ANSWER_FIRST
from tests.fixtures.ctfgen import GenInfo, GenSpec, write_trace

ROOT = Path(__file__).resolve().parents[2]

#: The child: imports with small flushes (several commit before it stops), says where it is on
#: stdout and waits on stdin, so the parent kills it at a known point, not after a sleep.
CHILD = textwrap.dedent("""
    import sys
    from fayshell.store.database import Database
    from fayshell.store.loader import import_trace
    from fayshell.store.settings import LoadSettings, parallel_streams

    def stop_after(n):
        def batches(readers):
            for i, item in enumerate(parallel_streams(readers)):
                if i == n:
                    print("stopped", flush=True)
                    sys.stdin.readline()       # killed here
                yield item
        return batches

    def stop_before_commit():
        print("writing", flush=True)
        sys.stdin.readline()                   # killed here, the chunk's transaction open

    db_path, trace, where = sys.argv[1:]
    db = Database.open(db_path)
    small = dict(flush_rows=2000, batch_rows=500, row_group=1024)
    if where == "middle":                      # the flushing path: some flushes committed
        import_trace(db, trace, node="n", session="s",
                     settings=LoadSettings(**small, answer_first=False,
                                           batches=stop_after(40)))
    elif where == "writing":                   # answer_first: the background write
        import_trace(db, trace, node="n", session="s",
                     settings=LoadSettings(**small, answer_first=True,
                                           before_commit=stop_before_commit))
        db.wait_pending()
    else:
        res = import_trace(db, trace, node="n", session="s", settings=LoadSettings(**small))
        db.wait_pending()                      # the chunk is on disk from here on
        print("imported", res.chunks_loaded, flush=True)
        sys.stdin.readline()                   # killed here
""")


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    out = tmp_path_factory.mktemp("gen") / "killed"
    return write_trace(out, GenSpec(events=60_000, cpus=3, packet_size=8192, seed=11))


#: SIGKILL (nothing cleans up), and what a shell gets from `kill` or a closed terminal: fayshell
#: keeps their default action, so the process ends at once, as with SIGKILL.
SIGNALS = [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP]


def _default_signals() -> None:
    """In the child: SIGTERM and SIGHUP take their default action even when the test runner
    was started ignoring them (nohup, some CI runners: an ignored signal is inherited)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def _ended(proc: subprocess.Popen[str]) -> int:
    """The child's exit status once it has ended (killed for good if it did not end)."""
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("the child did not end on its signal") from None


def _killed_at(
    db: Path, trace: Path, where: str, expect: str, sig: signal.Signals = signal.SIGKILL
) -> None:
    """Run the child until it reports ``expect``, then send it ``sig``."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(trace), where],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_default_signals,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith(expect), line
    finally:
        proc.send_signal(sig)
    assert _ended(proc) == -sig


def _truth(info: GenInfo) -> Counter[tuple[object, ...]]:
    off = GenSpec().clock_offset
    return Counter(
        (s.cpu, s.tid, s.pid, s.name, s.ts_entry + off, s.ts_exit + off, s.ret)
        for s in info.syscalls
    )


def _syscalls(db: Database) -> Counter[tuple[object, ...]]:
    return Counter(db.execute("SELECT cpu, tid, pid, name, ts_entry, ts_exit, ret FROM syscalls"))


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_killed_mid_chunk_leaves_it_unmarked_and_it_imports_again(
    trace: GenInfo, tmp_path: Path, sig: signal.Signals
) -> None:
    path = tmp_path / "killed.duckdb"
    _killed_at(path, trace.dirs[0], "middle", "stopped", sig)
    db = Database.open(str(path))
    assert db.execute("SELECT count(*) FROM chunks")[0][0] == 0
    assert db.execute("SELECT count(*) FROM event_rows")[0][0] > 0  # flushes had committed
    res = import_trace(db, trace.dirs[0], node="n", session="s")
    assert (res.chunks_loaded, res.chunks_skipped, res.errors) == (1, 0, [])
    assert db.execute("SELECT count(*) FROM events")[0][0] == trace.events == res.events
    assert db.execute("SELECT count(DISTINCT eid) FROM event_rows")[0][0] == trace.events
    assert _syscalls(db) == _truth(trace)


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_killed_during_the_background_write_leaves_it_unmarked(
    trace: GenInfo, tmp_path: Path, sig: signal.Signals
) -> None:
    path = tmp_path / "writing.duckdb"
    _killed_at(path, trace.dirs[0], "writing", "writing", sig)
    db = Database.open(str(path))
    assert db.execute("SELECT count(*) FROM chunks")[0][0] == 0
    assert db.execute("SELECT count(*) FROM event_rows")[0][0] == 0  # one transaction
    res = import_trace(db, trace.dirs[0], node="n", session="s", settings=ANSWER_FIRST)
    assert (res.chunks_loaded, res.chunks_skipped, res.errors) == (1, 0, [])
    db.wait_pending()
    assert db.execute("SELECT count(*) FROM events")[0][0] == trace.events == res.events
    assert db.execute("SELECT count(DISTINCT eid) FROM event_rows")[0][0] == trace.events
    assert _syscalls(db) == _truth(trace)


def test_killed_after_the_import_keeps_the_chunk(trace: GenInfo, tmp_path: Path) -> None:
    path = tmp_path / "done.duckdb"
    _killed_at(path, trace.dirs[0], "after", "imported 1")
    db = Database.open(str(path))
    assert db.execute("SELECT count(*) FROM chunks")[0][0] == 1
    assert db.execute("SELECT count(*) FROM events")[0][0] == trace.events
    again = import_trace(db, trace.dirs[0], node="n", session="s")
    assert (again.chunks_loaded, again.chunks_skipped) == (0, 1)
    assert _syscalls(db) == _truth(trace)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_the_shell_ends_at_once_on_term_and_hup(tmp_path: Path, sig: signal.Signals) -> None:
    """The shell installs no handler for SIGTERM and SIGHUP (what the tests above rely on): it
    ends at once; what it had committed stays, the rest is imported again. (A shell started
    under nohup keeps ignoring SIGHUP, as its user asked.)"""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fayshell",
            "--db",
            str(tmp_path / "s.duckdb"),
            "-c",
            "'ready'; Start-Sleep 60",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_default_signals,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    finally:
        proc.send_signal(sig)
    assert _ended(proc) == -sig
