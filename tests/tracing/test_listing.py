"""The node listing a pull starts from: chunks already received are listed by name only, so a
live pull's listing does not grow with every chunk the session has archived."""

from __future__ import annotations

from typing import Any

from fayshell.lttng import RemoteEntry, find_chunks
from fayshell.remote.cluster import Cluster
from fayshell.remote.quoting import quote_argv
from fayshell.tracing.receive import _sftp_walk, walk
from tests.fixtures.cluster import LocalCluster

ARCHIVES = [f"20261121T1934{i:02d}+0000-20261121T1934{i + 1:02d}+0000-{i}" for i in range(4)]
FILES = ("ust/uid/1025/64-bit/metadata", "ust/uid/1025/64-bit/chan_0", "ust/uid/1025/64-bit/index/chan_0.idx")


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
    files_of = {e.path.split("/")[1] for e in part if e.path.startswith("archives/") and not e.is_dir}
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
