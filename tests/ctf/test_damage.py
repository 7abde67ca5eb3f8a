"""Damaged traces: a clear TraceFormatError naming the file and byte offset, the events
decoded before the damage kept and counted, no hang, no crash (both decoders)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from fayshell.ctf.decode import StreamStats, stream_readers
from fayshell.ctf.trace import open_trace
from fayshell.errors import TraceFormatError
from tests.fixtures.ctfgen import GenSpec, write_trace

PACKET = 8192


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    """A one-CPU kernel-layout trace of several 8 KiB packets."""
    write_trace(tmp_path / "t", GenSpec(events=3000, cpus=1, packet_size=PACKET, seed=5))
    return tmp_path / "t"


def decode(path: Path, prefer_c: bool) -> tuple[list[tuple[int, int]], list[StreamStats]]:
    """(ts, class) of every event in stream order, and each stream's stats."""
    tr = open_trace(path)
    events: list[tuple[int, int]] = []
    stats = []
    for r in stream_readers(tr, prefer_c, batch_rows=1000):
        for b in r.batches():
            events += list(
                zip(
                    b.common.column("ts").to_pylist(),
                    b.common.column("cls").to_pylist(),
                    strict=True,
                )
            )
            for t in b.payload.values():
                assert t.num_rows == len(set(t.column("row").to_pylist()))
        stats.append(r.stats)
    return events, stats


def test_truncated_stream(trace: Path, prefer_c: bool) -> None:
    full, _ = decode(trace, prefer_c)
    f = trace / "channel0_0"
    data = f.read_bytes()
    f.write_bytes(data[: 3 * PACKET + 100])
    events, (st,) = decode(trace, prefer_c)
    assert isinstance(st.error, TraceFormatError)
    assert st.error.path == str(f) and st.error.offset == 3 * PACKET
    assert "truncated packet" in st.error.message
    assert 0 < len(events) == st.events < len(full)
    assert events == full[: len(events)]


@pytest.mark.parametrize("where", ["magic", "uuid"])
def test_corrupt_packet_header(trace: Path, prefer_c: bool, where: str) -> None:
    full, _ = decode(trace, prefer_c)
    f = trace / "channel0_0"
    data = bytearray(f.read_bytes())
    at = 2 * PACKET + (0 if where == "magic" else 4)
    data[at] ^= 0xFF
    f.write_bytes(bytes(data))
    events, (st,) = decode(trace, prefer_c)
    assert st.error is not None and st.error.offset == at
    assert where in st.error.message
    assert events == full[: len(events)] and len(events) > 0


def test_garbage_inside_packet(trace: Path, prefer_c: bool) -> None:
    full, _ = decode(trace, prefer_c)
    f = trace / "channel0_0"
    data = bytearray(f.read_bytes())
    start = PACKET + 84 + 2000
    data[start : start + 64] = b"\x1e" * 64  # compact header, id 30: not declared
    f.write_bytes(bytes(data))
    events, (st,) = decode(trace, prefer_c)
    assert st.error is not None
    assert PACKET + 84 <= st.error.offset < 2 * PACKET
    assert st.error.path == str(f)
    assert events == full[: len(events)]
    # every event of the first packet, and those of the second before the damage, are kept
    begin2 = struct.unpack_from("<Q", data, PACKET + 32)[0] + GenSpec().clock_offset
    first_packet = sum(1 for ts, _ in full if ts < begin2)
    assert first_packet < len(events) < len(full)


def test_bad_content_size(trace: Path, prefer_c: bool) -> None:
    f = trace / "channel0_0"
    data = bytearray(f.read_bytes())
    struct.pack_into("<Q", data, PACKET + 32 + 16, PACKET * 8 + 64)  # content > packet size
    f.write_bytes(bytes(data))
    events, (st,) = decode(trace, prefer_c)
    assert st.error is not None and st.error.offset == PACKET
    assert "packet sizes" in st.error.message and len(events) > 0


def test_empty_stream_file(trace: Path, prefer_c: bool) -> None:
    (trace / "channel0_0").write_bytes(b"")
    events, (st,) = decode(trace, prefer_c)
    assert events == [] and st.error is None


@pytest.mark.parametrize("damage", ["garbage", "truncated", "text-cut", "empty"])
def test_bad_metadata(trace: Path, damage: str) -> None:
    m = trace / "metadata"
    data = m.read_bytes()
    if damage == "garbage":
        m.write_bytes(bytes(range(256)) * 4)
    elif damage == "truncated":
        m.write_bytes(data[: 4096 + 100])
    elif damage == "text-cut":
        from fayshell.ctf.metadata import metadata_text

        m.write_text(metadata_text(m)[:1500])
    else:
        m.write_bytes(b"")
    with pytest.raises(TraceFormatError) as info:
        open_trace(trace)
    assert str(m) in str(info.value)


def test_metadata_of_another_trace(trace: Path, tmp_path: Path, prefer_c: bool) -> None:
    other = tmp_path / "other"
    write_trace(other, GenSpec(events=100, cpus=1, seed=99))
    shutil.copy(other / "metadata", trace / "metadata")
    events, (st,) = decode(trace, prefer_c)
    assert st.error is not None and st.error.offset == 4
    assert "uuid" in st.error.message and events == []


def test_unknown_stream_class(trace: Path, prefer_c: bool) -> None:
    f = trace / "channel0_0"
    data = bytearray(f.read_bytes())
    struct.pack_into("<I", data, 20, 7)  # stream_id 7 is not declared
    f.write_bytes(bytes(data))
    _, (st,) = decode(trace, prefer_c)
    assert st.error is not None and st.error.offset == 0 and "stream class 7" in st.error.message


def test_not_a_trace(tmp_path: Path) -> None:
    with pytest.raises(TraceFormatError, match="no metadata"):
        open_trace(tmp_path)
