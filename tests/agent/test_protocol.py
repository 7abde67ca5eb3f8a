"""The agent protocol on its own: round trips, framing across arbitrary splits, strict decoding."""

from __future__ import annotations

import io
import json
import struct

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fayshell.agent import protocol as p

TEXT = st.text(max_size=40)
IDS = st.integers(min_value=0, max_value=2**53)

FRAMES = st.one_of(
    st.builds(p.Hello, versions=st.lists(st.integers(0, 100), max_size=4), fayshell=TEXT),
    st.builds(p.Welcome, version=IDS, fayshell=TEXT, python=TEXT, arch=TEXT, pid=IDS, store=TEXT),
    st.builds(p.Import, id=IDS, path=TEXT, session=TEXT, node=TEXT, stopped=st.booleans()),
    st.builds(
        p.Imported, id=IDS, chunks=IDS, skipped=IDS, events=IDS, errors=st.lists(TEXT, max_size=3)
    ),
    st.builds(p.Query, id=IDS, sql=TEXT),
    st.builds(p.Result, id=IDS, rows=IDS, data=st.binary(max_size=200)),
    st.builds(p.Error, id=IDS, kind=TEXT, message=TEXT),
    st.builds(p.Cancel, id=IDS),
    st.just(p.Bye()),
)


def raw(code: int, obj: object, data: bytes = b"", magic: bytes = p.MAGIC) -> bytes:
    body = json.dumps(obj).encode()
    return (
        p.HEADER.pack(magic, code, 4 + len(body) + len(data))
        + struct.pack(">I", len(body))
        + body
        + data
    )


@given(st.lists(FRAMES, max_size=6), st.data())
@settings(max_examples=150, deadline=None)
def test_frames_round_trip_across_any_split(frames: list[p.Frame], data: st.DataObject) -> None:
    wire = b"".join(p.encode(f) for f in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=5)))
    dec = p.FrameDecoder()
    got: list[p.Frame] = []
    last = 0
    for cut in [*cuts, len(wire)]:
        got += dec.feed(wire[last:cut])
        last = cut
    assert got == frames
    assert dec.pending() == 0
    assert dec.offset == len(wire)


@given(st.lists(FRAMES, max_size=4))
@settings(deadline=None)
def test_blocking_reader_matches_incremental(frames: list[p.Frame]) -> None:
    stream = io.BytesIO(b"".join(p.encode(f) for f in frames))
    dec = p.FrameDecoder()
    got = []
    while (f := p.read_frame(stream, dec)) is not None:
        got.append(f)
    assert got == frames


@given(st.binary(max_size=64))
@settings(deadline=None)
def test_garbage_never_escapes_as_anything_but_protocol_error(blob: bytes) -> None:
    try:
        list(p.iter_frames(blob))
    except p.ProtocolError as exc:
        assert 0 <= exc.offset <= len(blob)


def test_result_carries_an_arrow_table() -> None:
    table = pa.table({"name": ["read", "write"], "n": [3, 4]})
    frame = p.Result(7, 2, p.table_bytes(table))
    (back,) = p.iter_frames(p.encode(frame))
    assert isinstance(back, p.Result)
    assert back.table().equals(table)


def test_damaged_arrow_bytes_are_a_protocol_error() -> None:
    with pytest.raises(p.ProtocolError, match="result 3: bad Arrow IPC data"):
        p.Result(3, 1, b"not arrow at all").table()


def test_bad_magic_names_the_offset_of_the_second_frame() -> None:
    first = p.encode(p.Cancel(1))
    wire = first + raw(p.Cancel.code, {"id": 2}, magic=b"XXXX")
    with pytest.raises(p.ProtocolError, match=f"at byte {len(first)}: bad magic"):
        list(p.iter_frames(wire))


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        (raw(99, {}), "unknown frame type 99"),
        (raw(p.Cancel.code, [1]), "Cancel: JSON part is not an object"),
        (raw(p.Cancel.code, {}), "Cancel: missing field 'id'"),
        (raw(p.Cancel.code, {"id": 1, "x": 2}), "Cancel: unknown field 'x'"),
        (raw(p.Cancel.code, {"id": "1"}), "Cancel.id: expected int, got str"),
        (raw(p.Cancel.code, {"id": True}), "Cancel.id: expected int, got bool"),
        (raw(p.Hello.code, {"versions": [1, "2"], "fayshell": "x"}), "Hello.versions: expected"),
        (raw(p.Cancel.code, {"id": 1}, data=b"zz"), "Cancel: 2 unexpected binary bytes"),
        (
            p.HEADER.pack(p.MAGIC, p.Bye.code, 4) + struct.pack(">I", 9),
            "JSON length 9 does not fit",
        ),
        (p.HEADER.pack(p.MAGIC, p.Bye.code, 2) + b"..", "shorter than its JSON length field"),
        (p.HEADER.pack(p.MAGIC, p.Bye.code, 5) + struct.pack(">I", 1) + b"\xff", "bad JSON"),
    ],
)
def test_malformed_frames_are_refused(wire: bytes, message: str) -> None:
    with pytest.raises(p.ProtocolError, match="at byte 0: .*" + message.replace("(", r"\(")):
        list(p.iter_frames(wire))


def test_oversized_frames_are_refused_both_ways() -> None:
    small = p.Limits(max_json=64, max_frame=128)
    with pytest.raises(p.ProtocolError, match="JSON part of .* exceeds 64"):
        p.encode(p.Query(1, "x" * 100), small)
    with pytest.raises(p.ProtocolError, match="exceeds 128"):
        p.encode(p.Result(1, 0, b"\0" * 200), small)
    header = p.HEADER.pack(p.MAGIC, p.Result.code, 1 << 30)
    with pytest.raises(p.ProtocolError, match="at byte 0: frame of 1073741824 bytes exceeds"):
        p.FrameDecoder(small).feed(header)  # refused on the header, before any body arrives


def test_truncated_stream_is_named() -> None:
    wire = p.encode(p.Query(1, "SELECT 1"))
    with pytest.raises(p.ProtocolError, match="incomplete frame"):
        list(p.iter_frames(wire[:-3]))
    with pytest.raises(p.ProtocolError, match="stream ended inside a frame"):
        p.read_frame(io.BytesIO(wire[:-3]), p.FrameDecoder())


def test_version_negotiation_picks_the_highest_common() -> None:
    assert p.negotiate([1, 2, 3], (1, 2)) == 2
    assert p.negotiate([5], (1, 2)) is None
    assert p.negotiate([], (1,)) is None
