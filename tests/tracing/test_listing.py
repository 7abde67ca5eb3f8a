"""The node listing a pull starts from: chunks already received are listed by name only, so a
live pull's listing does not grow with every chunk the session has archived."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fayshell.lttng import RemoteEntry, find_chunks
from fayshell.remote.cluster import Cluster
from fayshell.remote.quoting import quote_argv
from fayshell.tracing.receive import _sftp_walk, walk
from tests.fixtures.cluster import LocalCluster

ARCHIVES = [f"20261121T1934{i:02d}+0000-20261121T1934{i + 1:02d}+0000-{i}" for i in range(4)]
FILES = (
    "ust/uid/1025/64-bit/metadata",
    "ust/uid/1025/64-bit/chan_0",
    "ust/uid/1025/64-bit/index/chan_0.idx",
)


async def test_received_archives_listed_by_name_only(
    real_cluster: LocalCluster, fay_cluster: Cluster
) -> None:
    # a glob character in the output directory: the find pattern must match it literally
    root = f"{real_cluster.node('node01').home}/fay-list[1]"
    made = [f"{root}/archives/{a}/{f}" for a in ARCHIVES for f in FILES]
    made.append(f"{root}/20261121T193404+0000-4/ust/uid/1025/64-bit/metadata")  # being written
    script = " && ".join(
        f"mkdir -p {quote_argv([p.rsplit('/', 1)[0]])} && printf 12345 > {quote_argv([p])}"
        for p in made
    )
    await fay_cluster.run_all("node01", f"rm -rf {quote_argv([root])} && {script}")
    have = set(ARCHIVES[:3])

    async def listings(t: Any) -> tuple[list[RemoteEntry], ...]:
        files = await t.files()
        return (
            await walk(t, root),
            await walk(t, root, lambda name: name not in have),
            await _sftp_walk(files, root, lambda name: name not in have),
        )

    [out] = [o async for o in fay_cluster.map("node01", listings)]
    full, part, by_sftp = out.value
    assert _shape(part) == _shape(by_sftp) and len(part) == len(by_sftp)
    for a in ARCHIVES:
        assert RemoteEntry(f"archives/{a}", 0, True) in part
    files_of = {
        e.path.split("/")[1] for e in part if e.path.startswith("archives/") and not e.is_dir
    }
    assert files_of == {ARCHIVES[3]}
    assert RemoteEntry(f"archives/{ARCHIVES[3]}/{FILES[0]}", 5) in part
    assert RemoteEntry("20261121T193404+0000-4/ust/uid/1025/64-bit/metadata", 5) in part
    assert set(part) < set(full) and len(full) - len(part) == 3 * (len(FILES) + 5)  # + 5 dirs each

    listing = find_chunks(part, settled=have)
    assert listing.settled == tuple(sorted(have))
    assert [c.chunk_id for c in listing.complete] == [ARCHIVES[3]]
    assert listing.complete[0].bytes == 15 and listing.in_progress == ("20261121T193404+0000-4",)
    await fay_cluster.run_all("node01", f"rm -rf {quote_argv([root])}")


def _shape(entries: list[RemoteEntry]) -> set[tuple[str, bool, int]]:
    """Paths, kinds and file sizes (SFTP gives directories a size, find's listing 0)."""
    return {(e.path, e.is_dir, 0 if e.is_dir else e.size) for e in entries}


async def test_chunk_pulled_but_not_imported_is_imported_next_cycle(
    real_cluster: LocalCluster, fay_cluster: Cluster, tmp_path: Path
) -> None:
    """A live cycle cancelled between a chunk's pull and its import (its turn in the import
    queue) leaves the chunk's directory with its files: the next cycle imports it from there
    instead of taking the directory as done (its events were lost for good before)."""
    from fayshell.store.database import Database
    from fayshell.store.schema import ensure_schema
    from fayshell.tracing.receive import ByteProgress, receive_node
    from fayshell.views.live import imported_here

    out = f"{real_cluster.node('node01').home}/fay-gone"  # the output of a session now gone
    made = [f"{out}/archives/{a}/{f}" for a in ARCHIVES[:3] for f in FILES]
    script = " && ".join(
        f"mkdir -p {quote_argv([p.rsplit('/', 1)[0]])} && printf 12345 > {quote_argv([p])}"
        for p in made
    )
    await fay_cluster.run_all("node01", f"rm -rf {quote_argv([out])} && {script}")
    node_dir = tmp_path / "dest" / "gone" / "node01"
    db = Database.open(str(tmp_path / "x.duckdb"))
    ensure_schema(db)
    # imported: its row names it, its directory is gone
    db.execute("INSERT INTO chunks (path) VALUES (?)", [f"{node_dir}/{ARCHIVES[0]}/ust/uid"])
    (node_dir / ARCHIVES[1] / "ust").mkdir(parents=True)  # pulled, never imported
    (node_dir / ARCHIVES[1] / "ust" / "metadata").write_bytes(b"12345")
    imported = imported_here(db, node_dir)
    db.close()
    assert imported == {ARCHIVES[0]}
    took: list[str] = []

    async def importer(path: Path, node: str, session: str) -> int:
        took.append(path.name)
        return 1

    async def cycle(t: Any, record: set[str] | None) -> Any:
        dest = tmp_path / "dest"
        return await receive_node(
            t, "gone", dest, out, ByteProgress(None), lambda rec: None, importer, record
        )

    [first] = [o async for o in fay_cluster.map("node01", lambda t: cycle(t, imported))]
    assert took == [ARCHIVES[1], ARCHIVES[2]] and imported == set(ARCHIVES[:3])
    assert first.value.received == 2 and first.value.skipped == 1
    # without the importer's record (Receive-Trace), a chunk directory that exists is done
    took.clear()
    (node_dir / ARCHIVES[0]).mkdir()
    (node_dir / ARCHIVES[2]).rename(tmp_path / "moved")
    [again] = [o async for o in fay_cluster.map("node01", lambda t: cycle(t, None))]
    assert took == [ARCHIVES[2]] and again.value.received == 1 and again.value.skipped == 2
    await fay_cluster.run_all("node01", f"rm -rf {quote_argv([out])}")


async def test_watched_pull_lists_only_archives_changed_after_its_mark(
    real_cluster: LocalCluster, fay_cluster: Cluster, tmp_path: Path
) -> None:
    """A live cycle's find leaves out the archives renamed into ``archives/`` before the watch's
    mark (by the node's clock), so its listing stays a few names long however many chunks the
    session has archived; an archive renamed in after the mark is listed and pulled."""
    import asyncio

    from fayshell.lttng.chunks import CTIME_MARGIN_S, ArchiveWatch
    from fayshell.tracing.receive import ByteProgress, receive_node

    out = f"{real_cluster.node('node01').home}/fay-watch"
    await fay_cluster.run_all("node01", f"rm -rf {quote_argv([out])} && {_archiving(out, 0, 3)}")

    async def listing(t: Any) -> list[RemoteEntry]:
        return await walk(t, out)

    [full] = [o async for o in fay_cluster.map("node01", listing)]
    ctimes = {e.path: e.ctime for e in full.value if e.path.count("/") == 1 and e.is_dir}
    old = max(ctimes[f"archives/{a}"] for a in ARCHIVES[:3])
    assert min(ctimes.values()) > 1e9  # seconds since the epoch, from the node's find
    await asyncio.sleep(0.05)  # past the file system's clock tick
    await fay_cluster.run_all("node01", _archiving(out, 3, 4))
    # all but the new one taken (a millisecond more: find's time has fewer digits than %C@)
    watch = ArchiveWatch(mark=old + CTIME_MARGIN_S + 0.001, listings=1)
    imported: set[str] = set()
    took: list[str] = []

    async def importer(path: Path, node: str, session: str) -> int:
        took.append(path.name)
        return 1

    async def cycle(t: Any) -> Any:
        dest = tmp_path / "dest"
        return await receive_node(
            t, "w", dest, out, ByteProgress(None), lambda rec: None, importer, imported, watch
        )

    [got] = [o async for o in fay_cluster.map("node01", cycle)]
    assert took == [ARCHIVES[3]] and got.value.received == 1
    assert got.value.skipped == 0  # the three older archives were not even listed
    assert watch.mark is not None and watch.mark > old and watch.listings == 2
    await fay_cluster.run_all("node01", f"rm -rf {quote_argv([out])}")


def _archiving(out: str, lo: int, hi: int) -> str:
    """Shell commands writing ARCHIVES[lo:hi] under ``out`` as LTTng does: each chunk made
    aside, then renamed into ``archives/``."""
    steps = [f"mkdir -p {quote_argv([f'{out}/archives'])}"]
    for a in ARCHIVES[lo:hi]:
        aside = f"{out}/{a}.tmp"
        for f in FILES:
            steps.append(f"mkdir -p {quote_argv([f'{aside}/{f}'.rsplit('/', 1)[0]])}")
            steps.append(f"printf 12345 > {quote_argv([f'{aside}/{f}'])}")
        steps.append(f"mv {quote_argv([aside])} {quote_argv([f'{out}/archives/{a}'])}")
    return " && ".join(steps)
