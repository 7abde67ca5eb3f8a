"""Stream files cut at packet boundaries (fayshell.ctf.decode.cut): the parts, decoded on
their own, give exactly what one pass over the file gives, losses included."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa

from fayshell.ctf.decode import StreamReader, cut, packet_starts, stream_readers
from fayshell.ctf.trace import open_trace
from tests.fixtures.ctfgen import GenInfo


def _decoded(readers: list[StreamReader]) -> tuple[pa.Table, dict[int, pa.Table]]:
    """The readers' events in reader order: common columns, and payload rows by class."""
    common, payload = [], {}
    for r in readers:
        for b in r.batches():
            assert r.stats.error is None
            common.append(b.common)
            for cls, t in b.payload.items():
                payload.setdefault(cls, []).append(t.drop(["row"]))
    return pa.concat_tables(common), {c: pa.concat_tables(t) for c, t in payload.items()}


def test_parts_cover_each_file_at_packet_starts(gen_lossy: GenInfo) -> None:
    trace = open_trace(gen_lossy.dirs[0])
    for path in trace.files:
        starts = packet_starts(trace, path)
        assert starts is not None and len(starts) > 10
        parts = cut(trace, path, 5)
        assert len(parts) == 5
        assert parts[0].start == 0 and parts[-1].end == path.stat().st_size
        assert all(a.end == b.start for a, b in zip(parts, parts[1:], strict=False))
        offsets = {off for off, _, _ in starts}
        assert all(p.start in offsets for p in parts)
        assert parts[0].discarded is None and parts[1].discarded is not None
        assert cut(trace, path, 1) == []


def test_parts_decode_as_the_whole_file(gen_lossy: GenInfo, prefer_c: bool) -> None:
    """Per file, the parts in order give the same events and payloads as one pass, and the
    discarded events and lost packets add up to the generator's (the losses that fall on a
    cut are counted from the packet before it)."""
    trace = open_trace(gen_lossy.dirs[0])
    whole = stream_readers(trace, prefer_c, 1000)
    parts = stream_readers(trace, prefer_c, 1000, part_bytes=1, workers=8)
    assert len(parts) > 3 * len(whole)
    for path in trace.files:
        one = [r for r in whole if r.path == path]
        many = sorted((r for r in parts if r.path == path), key=lambda r: r.part.start)  # type: ignore[union-attr]
        assert _decoded(many) == _decoded(one)
    for got in (whole, parts):
        assert sum(r.stats.events for r in got) == gen_lossy.events
        assert sum(r.stats.discarded for r in got) == gen_lossy.discarded > 0
        assert sum(r.stats.lost_packets for r in got) == gen_lossy.lost_packets > 0
        assert sum(r.stats.bytes_read for r in got) == sum(r.size() for r in got)


def test_damaged_header_keeps_the_file_whole(gen_lossy: GenInfo, tmp_path: Path) -> None:
    """A packet header that cannot be read: no parts, so the one pass reports the damage
    at its byte offset as before."""
    copy = tmp_path / "t"
    shutil.copytree(gen_lossy.dirs[0], copy)
    trace = open_trace(copy)
    path = trace.files[0]
    starts = packet_starts(trace, path)
    assert starts is not None
    at = starts[len(starts) // 2][0]
    with open(path, "r+b") as fh:
        fh.seek(at)
        fh.write(b"\0\0\0\0")  # the packet magic
    assert packet_starts(trace, path) is None
    assert cut(trace, path, 4) == []
    readers = [r for r in stream_readers(trace, part_bytes=1, workers=8) if r.path == path]
    assert len(readers) == 1
    for _ in readers[0].batches():
        pass
    assert readers[0].stats.error is not None and readers[0].stats.error.offset == at


def test_a_finished_reader_lets_its_decoder_go(gen_lossy: GenInfo, prefer_c: bool) -> None:
    """A reader done with its file (or part) drops its decoder, whose buffers keep a batch's
    capacity per column: with many parts, finished readers held 70 MiB at the peak of a
    2 GiB import."""
    trace = open_trace(gen_lossy.dirs[0])
    readers = stream_readers(trace, prefer_c, 10, part_bytes=1, workers=8)
    batches = readers[0].batches()
    next(batches)
    assert readers[0].decoder is not None
    assert sum(b.common.num_rows for b in batches) > 0
    assert readers[0].decoder is None and readers[0].stats.error is None
