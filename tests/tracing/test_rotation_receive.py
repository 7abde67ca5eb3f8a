"""Rotation every second while the programs run, incremental pulls during the run, and an
interrupted Receive-Trace resumed: every event arrives exactly once, every chunk verified."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from pathlib import Path
from typing import Any

from fayshell.host import CaptureHost, NullProgress, ProgressTask
from fayshell.lttng import find_chunks, list_local
from fayshell.tracing.records import ReceivedChunk
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import SYSTEM_PYTHON, chunk_dirs, decode, run_on, shell_on

NODES = ("node03", "node04")
NODESET = "node[03-04]"


def _key(e: dict[str, Any]) -> tuple[Any, ...]:
    """One emitted record: python messages carry a unique seq, zipkin events their ids."""
    f = e["fields"]
    if e["name"] == "lttng_python:event":
        return (e["name"], f["msg"])
    return (
        e["name"],
        f["trace_id"],
        f.get("span_id"),
        f.get("service_name"),
        f.get("event"),
        f.get("key"),
    )


class CancelAfter(CaptureHost):
    """A host whose progress bar cancels a task once ``limit`` bytes have been received."""

    def __init__(self) -> None:
        super().__init__()
        self.task: asyncio.Task[Any] | None = None
        self.limit = 1

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask:
        host = self

        class Tripwire(NullProgress):
            done = 0.0

            def advance(self, amount: float = 1.0) -> None:
                self.done += amount
                if host.task is not None and self.done >= host.limit:
                    host.task.cancel()
                    host.task = None

        return Tripwire()


async def test_rotation_pulled_during_run_and_resumed(
    cluster_shell: Shell,
    tmp_path: Path,
    real_cluster: LocalCluster,
    pylog_script: Path,
    blkkin_binary: Path,
    bt2_dump: Path,
) -> None:
    sh = cluster_shell
    dest = tmp_path / "pull"
    await sh.run(f"New-TraceSession rot -Node '{NODESET}' -Rotate 1s")
    await sh.run("Enable-Tracepoint -Session rot -Domain python")
    await sh.run("Enable-Tracepoint -Session rot -Domain user -Name 'zipkin:*'")
    await sh.run("Start-Trace rot")  # default nodes: the ones the session was created on

    py = asyncio.ensure_future(
        run_on(
            sh,
            NODESET,
            [
                SYSTEM_PYTHON,
                str(pylog_script),
                "--count",
                "2",
                "--rounds",
                "10",
                "--interval",
                "0.4",
            ],
        )
    )
    blk = asyncio.ensure_future(
        run_on(sh, NODESET, [str(blkkin_binary), "--requests", "40", "--interval-ms", "100"])
    )
    during: list[ReceivedChunk] = []
    while not (py.done() and blk.done()):
        got = await sh.run(f"Receive-Trace rot -Destination '{dest}'")
        if not (py.done() and blk.done()):
            during += [c for c in got if isinstance(c, ReceivedChunk)]
        await asyncio.sleep(0.5)
    py_sum, blk_sum = py.result(), blk.result()
    assert {c.node for c in during} == set(NODES), "no chunk was pulled while the programs ran"
    assert all(c.kind == "archive" for c in during)

    await sh.run("Stop-Trace rot")
    final = await sh.run(f"Receive-Trace rot -Destination '{dest}' -ErrorAction Continue")
    assert not sh.host.errors, sh.host.errors
    assert final and all(isinstance(c, ReceivedChunk) for c in final)
    all_ids = [(c.node, c.chunk_id) for c in during + final]
    assert len(all_ids) == len(set(all_ids))
    assert await sh.run(f"Receive-Trace rot -Destination '{dest}'") == []  # nothing new

    for node in NODES:
        dirs = chunk_dirs(dest, "rot", node)
        assert len(dirs) >= 3
        events = decode(bt2_dump, *dirs)
        keys = Counter(_key(e) for e in events)
        assert max(keys.values()) == 1, "an event arrived twice"
        names = Counter(e["name"] for e in events)
        assert names["lttng_python:event"] == py_sum[node]["total"] == 3 * 5 * 2 * 10
        assert {k: names[k] for k in blk_sum[node]["events"]} == blk_sum[node]["events"]

    # Interrupted pull into a fresh directory, cancelled after the first bytes land, resumed.
    host = CancelAfter()
    other = shell_on(real_cluster, tmp_path / "other.duckdb", host)
    dest2 = tmp_path / "again"
    try:
        other.state.trace_sessions.update(sh.state.trace_sessions)
        run = asyncio.ensure_future(other.run(f"Receive-Trace rot -Destination '{dest2}'"))
        host.task = run
        with contextlib.suppress(asyncio.CancelledError):
            await run
        assert run.cancelled(), "the pull finished before it could be interrupted"
        first = {(n, p.name) for n in NODES for p in chunk_dirs(dest2, "rot", n)}
        leftovers = [p for p in dest2.rglob(".*.part")]
        assert leftovers == []
        total = {(n, p.name) for n in NODES for p in chunk_dirs(dest, "rot", n)}
        assert first < total, "the interrupted pull should have left chunks to do"
        _assert_verified(dest2, first)
        again = await other.run(f"Receive-Trace rot -Destination '{dest2}'")
        second = {(c.node, c.chunk_id) for c in again}
        assert first.isdisjoint(second) and first | second == total
        _assert_verified(dest2, total)
        assert Counter(
            _key(e) for n in NODES for e in decode(bt2_dump, *chunk_dirs(dest2, "rot", n))
        ) == Counter(_key(e) for n in NODES for e in decode(bt2_dump, *chunk_dirs(dest, "rot", n)))
    finally:
        await other.state.aclose()
    await sh.run("Remove-TraceSession rot -Force")


def _assert_verified(dest: Path, chunks: set[tuple[str, str]]) -> None:
    """Every received chunk is a complete trace: metadata plus its stream files."""
    for node, cid in chunks:
        listing = find_chunks(list_local(str(dest / "rot" / node / cid)), stopped=True)
        assert listing.complete and not listing.complete[0].empty, (node, cid)
