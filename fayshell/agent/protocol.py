"""The shell <-> node agent protocol: typed frames and their byte encoding, shared by both ends.

A frame on the wire::

    magic  b"FAYF"   4 bytes
    type   u8        which frame (``FRAME_TYPES``)
    length u32 BE    bytes of the body that follows
    body:  jlen u32 BE, then ``jlen`` bytes of a JSON object (the frame's fields),
           then ``length - 4 - jlen`` bytes of binary data (an Arrow IPC stream for
           :class:`Result`, empty for every other frame)

Decoding is strict: a wrong magic, an unknown type, a body over the limits, JSON that is not an
object, a missing, unknown or mistyped field, or binary data on a control frame each raise
:class:`ProtocolError` naming the byte offset of the frame in the stream. This module needs only
the standard library (pyarrow is imported when a result's table is asked for).
"""

from __future__ import annotations

import json
import struct
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import IO, Any, ClassVar

from fayshell.errors import FayError

MAGIC = b"FAYF"
HEADER = struct.Struct(">4sBI")
JLEN = struct.Struct(">I")

#: Protocol versions this build speaks; Hello offers them, the agent picks the highest common.
VERSIONS = (1,)


@dataclass(frozen=True)
class Limits:
    """Size limits on frames: control (JSON) parts and whole frames (results included)."""

    max_json: int = 1 << 20
    max_frame: int = 512 << 20


DEFAULT_LIMITS = Limits()


class ProtocolError(FayError):
    """A malformed or oversized frame; names the byte offset of the frame in the stream."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(f"protocol error at byte {offset}: {message}")
        self.offset = offset


@dataclass(frozen=True)
class Frame:
    """Base of every frame; ``code`` is its type byte on the wire."""

    code: ClassVar[int] = 0

    def fields_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "data"}


@dataclass(frozen=True)
class Hello(Frame):
    """Shell -> agent, first frame: the versions the shell speaks and its fayshell version."""

    code: ClassVar[int] = 1
    versions: list[int]
    fayshell: str


@dataclass(frozen=True)
class Welcome(Frame):
    """Agent -> shell, the answer to Hello: the chosen version and what runs the agent."""

    code: ClassVar[int] = 2
    version: int
    fayshell: str
    python: str
    arch: str
    pid: int
    store: str


@dataclass(frozen=True)
class Import(Frame):
    """Load the finished chunks under ``path`` (a session's output dir) into the node store;
    ``stopped``: the session is stopped, so a never-rotated top-level trace is finished too."""

    code: ClassVar[int] = 3
    id: int
    path: str
    session: str
    node: str
    stopped: bool


@dataclass(frozen=True)
class Imported(Frame):
    """What an Import did (incremental: chunks loaded before are skipped)."""

    code: ClassVar[int] = 4
    id: int
    chunks: int
    skipped: int
    events: int
    errors: list[str]


@dataclass(frozen=True)
class Query(Frame):
    """Run one SQL query on the node store; the answer is a Result or an Error."""

    code: ClassVar[int] = 5
    id: int
    sql: str


@dataclass(frozen=True)
class Result(Frame):
    """A table as an Arrow IPC stream (``data``), with its row count."""

    code: ClassVar[int] = 7
    id: int
    rows: int
    data: bytes = field(default=b"", repr=False)

    def table(self) -> Any:
        """The pyarrow Table; damaged IPC bytes raise ProtocolError (offset within data)."""
        import pyarrow as pa

        try:
            return pa.ipc.open_stream(pa.py_buffer(self.data)).read_all()
        except (pa.ArrowInvalid, OSError) as exc:
            raise ProtocolError(0, f"result {self.id}: bad Arrow IPC data: {exc}") from None


@dataclass(frozen=True)
class Error(Frame):
    """A request failed (``id`` 0 when it is not about one request): code and one-line text."""

    code: ClassVar[int] = 8
    id: int
    kind: str
    message: str


@dataclass(frozen=True)
class Cancel(Frame):
    """Stop request ``id`` if it is still running (its answer is then an Error 'cancelled')."""

    code: ClassVar[int] = 9
    id: int


@dataclass(frozen=True)
class Bye(Frame):
    """Either side: no more frames; the agent closes its store and exits."""

    code: ClassVar[int] = 10


FRAME_TYPES: dict[int, type[Frame]] = {
    cls.code: cls for cls in (Hello, Welcome, Import, Imported, Query, Result, Error, Cancel, Bye)
}


def negotiate(offered: list[int], ours: tuple[int, ...] = VERSIONS) -> int | None:
    """The highest version both sides speak, or None."""
    common = set(offered) & set(ours)
    return max(common) if common else None


# ---- encoding ----------------------------------------------------------------------------------


def encode(frame: Frame, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The frame's bytes; a frame over the limits raises ProtocolError (offset 0)."""
    body = json.dumps(frame.fields_json(), separators=(",", ":")).encode()
    data = frame.data if isinstance(frame, Result) else b""
    if len(body) > limits.max_json:
        raise ProtocolError(
            0, f"{type(frame).__name__} JSON part of {len(body)} bytes exceeds {limits.max_json}"
        )
    length = JLEN.size + len(body) + len(data)
    if length > limits.max_frame:
        raise ProtocolError(
            0, f"{type(frame).__name__} of {length} bytes exceeds {limits.max_frame}"
        )
    return HEADER.pack(MAGIC, frame.code, length) + JLEN.pack(len(body)) + body + data


# ---- decoding ----------------------------------------------------------------------------------


class FrameDecoder:
    """Incremental decoder: ``feed`` bytes as they arrive, get the complete frames back."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self.buffer = bytearray()
        self.offset = 0  # stream offset of buffer[0]

    def feed(self, data: bytes) -> list[Frame]:
        self.buffer += data
        out = []
        while (frame := self._next()) is not None:
            out.append(frame)
        return out

    def pending(self) -> int:
        """Bytes of an incomplete frame held back."""
        return len(self.buffer)

    def _next(self) -> Frame | None:
        if len(self.buffer) < HEADER.size:
            return None
        code, length = check_header(bytes(self.buffer[: HEADER.size]), self.offset, self.limits)
        end = HEADER.size + length
        if len(self.buffer) < end:
            return None
        frame = decode_body(code, bytes(self.buffer[HEADER.size : end]), self.offset, self.limits)
        del self.buffer[:end]
        self.offset += end
        return frame


def check_header(header: bytes, offset: int, limits: Limits) -> tuple[int, int]:
    """(type, length) of a frame header, validated."""
    magic, code, length = HEADER.unpack(header)
    if magic != MAGIC:
        raise ProtocolError(offset, f"bad magic {magic!r} (expected {MAGIC!r})")
    if code not in FRAME_TYPES:
        raise ProtocolError(offset, f"unknown frame type {code}")
    if length > limits.max_frame:
        raise ProtocolError(
            offset, f"frame of {length} bytes exceeds the limit of {limits.max_frame}"
        )
    if length < JLEN.size:
        raise ProtocolError(
            offset, f"frame body of {length} bytes is shorter than its JSON length field"
        )
    return code, length


def decode_body(code: int, body: bytes, offset: int, limits: Limits) -> Frame:
    """The frame of type ``code`` from its body bytes."""
    cls = FRAME_TYPES[code]
    (jlen,) = JLEN.unpack_from(body)
    if jlen > limits.max_json or JLEN.size + jlen > len(body):
        raise ProtocolError(
            offset,
            f"{cls.__name__}: JSON length {jlen} does not fit the frame "
            f"(body {len(body)}, limit {limits.max_json})",
        )
    data = body[JLEN.size + jlen :]
    if data and cls is not Result:
        raise ProtocolError(offset, f"{cls.__name__}: {len(data)} unexpected binary bytes")
    try:
        obj = json.loads(body[JLEN.size : JLEN.size + jlen].decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(offset, f"{cls.__name__}: bad JSON: {exc}") from None
    values = check_fields(cls, obj, offset)
    if cls is Result:
        values["data"] = data
    return cls(**values)


def check_fields(cls: type[Frame], obj: Any, offset: int) -> dict[str, Any]:
    """The frame's fields from a decoded JSON object: exact names, checked types."""
    if not isinstance(obj, dict):
        raise ProtocolError(offset, f"{cls.__name__}: JSON part is not an object")
    hints, want = field_types(cls)
    extra = sorted(set(obj) - set(want))
    missing = [n for n in want if n not in obj]
    if extra or missing:
        what = f"unknown field {extra[0]!r}" if extra else f"missing field {missing[0]!r}"
        raise ProtocolError(offset, f"{cls.__name__}: {what}")
    for name in want:
        if not _conforms(obj[name], hints[name]):
            raise ProtocolError(
                offset,
                f"{cls.__name__}.{name}: expected {_tname(hints[name])}, "
                f"got {type(obj[name]).__name__}",
            )
    return dict(obj)


def field_types(cls: type[Frame]) -> tuple[dict[str, Any], list[str]]:
    """A frame class's field types and its JSON field names (read once per class: resolving
    the annotations costs more than decoding a frame)."""
    known = _FIELD_TYPES.get(cls)
    if known is None:
        names = [f.name for f in fields(cls) if f.name != "data"]
        known = _FIELD_TYPES[cls] = (typing.get_type_hints(cls), names)
    return known


_FIELD_TYPES: dict[type[Frame], tuple[dict[str, Any], list[str]]] = {}


def _conforms(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_conforms(v, item) for v in value)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _tname(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint)


def read_frame(stream: IO[bytes], decoder: FrameDecoder) -> Frame | None:
    """The next frame from a blocking byte stream, or None at a clean end of stream."""
    header = _read_exact(stream, HEADER.size, decoder.offset, allow_eof=True)
    if header is None:
        return None
    code, length = check_header(header, decoder.offset, decoder.limits)
    body = _read_exact(stream, length, decoder.offset, allow_eof=False)
    assert body is not None
    frame = decode_body(code, body, decoder.offset, decoder.limits)
    decoder.offset += HEADER.size + length
    return frame


def _read_exact(stream: IO[bytes], n: int, offset: int, allow_eof: bool) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        piece = stream.read(n - got)
        if not piece:
            if got == 0 and allow_eof:
                return None
            raise ProtocolError(offset, f"stream ended inside a frame ({got} of {n} bytes)")
        chunks.append(piece)
        got += len(piece)
    return b"".join(chunks)


def iter_frames(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Iterator[Frame]:
    """Every frame of a complete byte string; trailing partial bytes raise ProtocolError."""
    dec = FrameDecoder(limits)
    yield from dec.feed(data)
    if dec.pending():
        raise ProtocolError(dec.offset, f"{dec.pending()} bytes of an incomplete frame at the end")


def table_bytes(table: Any) -> bytes:
    """A pyarrow Table as Arrow IPC stream bytes (for :class:`Result`)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue())
