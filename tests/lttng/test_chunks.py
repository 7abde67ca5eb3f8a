"""find_chunks on listings shaped like SFTP's (the real-session cases are in
test_rotation_snapshot.py; these cover the corners a live session rarely shows)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fayshell.errors import TraceFormatError
from fayshell.lttng import RemoteEntry, find_chunks, list_local
from fayshell.lttng.chunks import CTIME_MARGIN_S, FULL_LISTING_EVERY, ArchiveWatch, archive_name

A0 = "archives/20261121T193418+0000-20261121T193420+0000-0"
A1 = "archives/20261121T193420+0000-20261121T193422+0000-1"
A10 = "archives/20261121T193438+0000-20261121T193440+0000-10"
UST = "ust/uid/1000/64-bit"


def _trace(prefix: str, data: int = 4096) -> list[RemoteEntry]:
    return [
        RemoteEntry(f"{prefix}/{UST}/metadata", 1234),
        RemoteEntry(f"{prefix}/{UST}/channel0_0", data),
        RemoteEntry(f"{prefix}/{UST}/channel0_1", data),
        RemoteEntry(f"{prefix}/{UST}/index/channel0_0.idx", 88),
        RemoteEntry(f"{prefix}/{UST}/index/channel0_1.idx", 88),
    ]


def test_rotation_archives_in_numeric_order_and_current_chunk_pending() -> None:
    entries = _trace(A10) + _trace(A1) + _trace(A0) + _trace("20261121T193440+0000-11")
    listing = find_chunks(entries)
    assert [c.index for c in listing.complete] == [0, 1, 10]
    assert listing.in_progress == ("20261121T193440+0000-11",)
    c = listing.complete[2]
    assert c.chunk_id == A10.split("/")[1] and c.path == A10 and c.kind == "archive"
    assert c.begin == datetime(2026, 11, 21, 19, 34, 38, tzinfo=UTC)
    assert c.end == datetime(2026, 11, 21, 19, 34, 40, tzinfo=UTC)
    assert c.bytes == 1234 + 2 * 4096 + 2 * 88 and c.domains == ("ust",) and not c.empty
    assert c.remote_path(c.files[0]) == f"{A10}/{c.files[0].path}"
    assert [f.path for f in c.files][0] == f"{UST}/channel0_0"


def test_empty_archive_is_complete_but_empty() -> None:
    listing = find_chunks([RemoteEntry(A0, 0, True), RemoteEntry(f"{A0}/ust", 0, True)])
    (c,) = listing.complete
    assert c.empty and c.files == () and c.bytes == 0


def test_snapshots_named_and_numbered() -> None:
    entries = (
        _trace("snapshot-1-20261121-193446-0")
        + _trace("incident-20261121-193447-1")
        + _trace("other-thing-20261121-193448-2")
    )
    listing = find_chunks(entries, snapshot_names=["incident"])
    assert [(c.snapshot_name, c.index) for c in listing.complete] == [
        ("snapshot-1", 0),
        ("incident", 1),
    ]
    assert listing.ignored == ("other-thing-20261121-193448-2",)
    everything = find_chunks(entries)  # no names given: every snapshot-shaped directory
    assert len(everything.complete) == 3


def test_never_rotated_trace_is_complete_only_when_stopped() -> None:
    entries = _trace("") + [
        RemoteEntry("kernel/metadata", 10),
        RemoteEntry("kernel/channel0_0", 4096),
    ]
    entries = [RemoteEntry(e.path.lstrip("/"), e.size) for e in entries]
    assert find_chunks(entries).complete == () and find_chunks(entries).in_progress == ("trace",)
    (c,) = find_chunks(entries, stopped=True).complete
    assert (c.chunk_id, c.kind, c.path, c.domains) == ("trace", "trace", "", ("ust", "kernel"))
    assert f"{UST}/metadata" in {f.path for f in c.files} and "kernel/metadata" in {
        f.path for f in c.files
    }


def test_stray_files_and_odd_archive_names_are_ignored() -> None:
    entries = _trace(A0) + [RemoteEntry("notes.txt", 3), RemoteEntry("archives/garbage/x", 1)]
    listing = find_chunks(entries)
    assert [c.index for c in listing.complete] == [0]
    assert listing.ignored == ("archives/garbage", "notes.txt")


@pytest.mark.parametrize("bad", ["../etc/passwd", "archives/../../x", "a/../../b"])
def test_listing_escaping_the_directory_is_refused(bad: str) -> None:
    with pytest.raises(TraceFormatError):
        find_chunks([RemoteEntry(bad, 1)])


def test_list_local_matches_sftp_shape(tmp_path) -> None:
    (tmp_path / "archives" / A0.split("/")[1] / "ust").mkdir(parents=True)
    (tmp_path / "archives" / A0.split("/")[1] / "ust" / "metadata").write_bytes(b"x" * 7)
    entries = list_local(str(tmp_path))
    assert RemoteEntry(f"{A0}/ust/metadata", 7) in entries
    assert RemoteEntry("archives", 0, True) in entries
    (c,) = find_chunks(entries).complete
    assert c.files[0].size == 7 and not c.empty


def test_settled_archives_are_counted_not_classified() -> None:
    """A live pull lists the chunks it already has by name only: they are neither empty nor
    to be pulled, and the others are classified as usual."""
    entries = [RemoteEntry(A0, 0, True), RemoteEntry(A1, 0, True), *_trace(A10)]
    listing = find_chunks(entries, settled={A0.split("/")[1], A1.split("/")[1], "unknown"})
    assert listing.settled == (A0.split("/")[1], A1.split("/")[1])
    assert [c.chunk_id for c in listing.complete] == [A10.split("/")[1]]
    assert not listing.complete[0].empty and len(listing.complete[0].files) == 5


def test_listing_of_many_archives_keeps_each_chunks_files() -> None:
    """Files are grouped per chunk in one pass: 500 archives, each with exactly its own."""
    names = [
        f"archives/20261121T1934{i % 60:02d}+0000-20261121T1934{i % 60:02d}+0000-{i}"
        for i in range(500)
    ]
    entries = [e for n in names for e in _trace(n, data=100 + len(n))]
    listing = find_chunks(reversed(entries))
    assert [c.index for c in listing.complete] == list(range(500))
    for c, n in zip(listing.complete, names, strict=True):
        assert c.path == n and [f.size for f in c.files] == [100 + len(n)] * 2 + [88, 88, 1234]


def test_list_local_leaves_out_the_files_of_refused_archives(tmp_path) -> None:
    for a in (A0, A1):
        (tmp_path / a / "ust").mkdir(parents=True)
        (tmp_path / a / "ust" / "metadata").write_bytes(b"x")
    entries = list_local(str(tmp_path), descend=lambda name: name != A0.split("/")[1])
    assert RemoteEntry(A0, 0, True) in entries and RemoteEntry(A1, 0, True) in entries
    assert RemoteEntry(f"{A1}/ust/metadata", 1) in entries
    assert not [e for e in entries if e.path.startswith(A0 + "/")]


def test_listing_keeps_each_archives_change_time() -> None:
    name = "20261121T193418+0000-20261121T193419+0000-1"
    entries = [
        RemoteEntry("archives", 0, True, 9.0),
        RemoteEntry(f"archives/{name}", 0, True, 7.5),
        RemoteEntry(f"archives/{name}/ust/metadata", 5, False, 7.0),
    ]
    assert find_chunks(entries).archived == {name: 7.5}
    assert find_chunks(entries, settled={name}).archived == {name: 7.5}


def test_archive_watch_marks_the_oldest_untaken_else_the_newest_listed() -> None:
    watch = ArchiveWatch()
    assert watch.since() is None  # nothing known: list everything
    watch.listed({"a": 100.0, "b": 101.0}, untaken=[])
    assert watch.since() == 101.0 - CTIME_MARGIN_S
    watch.listed({"b": 101.0, "c": 104.0, "d": 106.0}, untaken=["c"])  # c's pull failed
    assert watch.since() == 104.0 - CTIME_MARGIN_S
    watch.listed({}, untaken=[])  # nothing changed since: the mark stays
    assert watch.since() == 104.0 - CTIME_MARGIN_S
    watch.listed({"c": 104.0, "d": 106.0}, untaken=[])
    assert watch.since() == 106.0 - CTIME_MARGIN_S
    watch.listed({"e": 0.0}, untaken=[])  # a listing without times (SFTP): list everything
    assert watch.since() is None


def test_archive_watch_lists_everything_every_so_often() -> None:
    watch = ArchiveWatch()
    full = []
    for _ in range(2 * FULL_LISTING_EVERY):
        full.append(watch.since() is None)
        watch.listed({"a": 100.0}, untaken=[])
    assert full.count(True) == 2 and full[0] and full[FULL_LISTING_EVERY]


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("archives/20261125T010000+0000-1", "20261125T010000+0000-1"),
        ("archives/x/ust", ""),
        ("archives/", ""),
        ("archives", ""),
        ("snapshot-1/archives", ""),
    ],
)
def test_archive_name_is_the_chunk_directly_under_archives(path: str, name: str) -> None:
    assert archive_name(path) == name
