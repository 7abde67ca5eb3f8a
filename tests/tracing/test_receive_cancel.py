"""A pull cancelled while its disk work is in flight leaves nothing behind, at every step.

The chunk's temporary directory is made and its files are written in worker threads. The
``held_threads`` executor holds the n-th of those thread calls at a gate, the pull is cancelled
right then, and only afterwards is the thread let go: the cancelled pull must not return before
its thread finished, and no ``.<chunk>.part`` directory (nor a half chunk) may remain. That is
done for every thread call of the pull, over SFTP from a real node and from the local node.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from fayshell.lttng import ChunkFile, ChunkInfo
from fayshell.remote.cluster import Cluster
from fayshell.remote.files import FileAccess, LocalFiles
from fayshell.tracing.receive import WHOLE_READ_MAX, ByteProgress, pull_chunk
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.threads import HeldThreads

CHUNK_ID = "20261124T000000+0000-20261124T000001+0000-3"
SIZES = {
    "metadata": 3000,
    "ust/uid/1001/64-bit/chan_0": 70_000,
    "ust/uid/1001/64-bit/chan_1": 50_000,
    "ust/uid/1001/64-bit/index/chan_0.idx": 256,
    "ust/uid/1001/64-bit/chan_2": WHOLE_READ_MAX + (1 << 20),
}  # streamed in blocks


def write_chunk(root: Path, uid: int | None = None) -> ChunkInfo:
    """A chunk's files (random bytes) under ``root/archives/CHUNK_ID``, owned by ``uid``."""
    base = root / "archives" / CHUNK_ID
    for rel, size in SIZES.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_bytes(os.urandom(size))
    if uid is not None:
        for p in [root, *root.rglob("*")]:
            os.chown(p, uid, uid)
    files = tuple(ChunkFile(path=p, size=s) for p, s in SIZES.items())
    return ChunkInfo(chunk_id=CHUNK_ID, kind="archive", path=f"archives/{CHUNK_ID}", files=files)


@pytest.fixture(params=["sftp", "local"])
async def source(
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> AsyncIterator[tuple[FileAccess, Path, ChunkInfo]]:
    """(file access, session output dir, chunk) on a real node over SFTP, or on this machine."""
    if request.param == "local":
        root = tmp_path / "node-out"
        yield LocalFiles(), root, write_chunk(root)
        return
    real_cluster: LocalCluster = request.getfixturevalue("real_cluster")
    node = real_cluster.node("node01")
    root = node.home / f"cancel-{os.getpid()}-{id(tmp_path)}"
    chunk = write_chunk(root, node.uid)
    cluster = Cluster.from_options(real_cluster.options())
    try:
        transport = await cluster.pool.get(cluster.resolve("node01")[0])
        yield await transport.files(), root, chunk
    finally:
        await cluster.aclose()
        import shutil

        shutil.rmtree(root, ignore_errors=True)


async def pull(files: FileAccess, root: Path, chunk: ChunkInfo, dest: Path) -> Path | None:
    return await pull_chunk(
        files, str(root), chunk, dest, ByteProgress(None), asyncio.Semaphore(32)
    )


async def test_cancel_during_each_thread_call_leaves_nothing(
    held_threads: HeldThreads, source: tuple[FileAccess, Path, ChunkInfo], tmp_path: Path
) -> None:
    files, root, chunk = source
    held_threads.arm(10**6)  # a pull that holds nothing, to count its thread calls
    (tmp_path / "counted").mkdir()
    assert await pull(files, root, chunk, tmp_path / "counted") is not None
    calls = held_threads.calls  # temporary dirs, writes (a streamed file: open, blocks, close)
    assert calls > len(chunk.files)
    dest = tmp_path / "dest"
    dest.mkdir()
    for hold in range(calls):
        held_threads.arm(hold)
        task = asyncio.ensure_future(pull(files, root, chunk, dest))
        waiting = asyncio.ensure_future(held_threads.held.wait())
        await asyncio.wait([task, waiting], return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        assert held_threads.held.is_set(), f"the pull ended before thread call {hold}"
        task.cancel()
        for _ in range(50):  # ample turns for a cancellation that does not wait to complete
            await asyncio.sleep(0)
        assert not task.done(), f"cancelled pull returned while thread call {hold} still ran"
        held_threads.release()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert held_threads.pending == 0
        assert sorted(p.name for p in dest.iterdir()) == [], f"left behind (call {hold})"

    final = await pull(files, root, chunk, dest)  # resumed: complete and identical
    assert final == dest / CHUNK_ID
    src = root / chunk.path
    for rel in SIZES:
        assert (final / rel).read_bytes() == (src / rel).read_bytes()
    assert [p.name for p in dest.iterdir()] == [CHUNK_ID]
