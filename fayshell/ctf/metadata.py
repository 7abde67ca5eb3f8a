"""Read a trace's ``metadata`` file (packetized or plain text) and parse it."""

from __future__ import annotations

import struct
from pathlib import Path

from fayshell.ctf.tsdl import TsdlError, parse_tsdl
from fayshell.ctf.types import Metadata
from fayshell.errors import TraceFormatError

METADATA_MAGIC = 0x75D11D57
_HEADER = 37  # magic, uuid[16], checksum, content_size, packet_size, 5 x uint8


def metadata_text(path: Path) -> str:
    """The TSDL text of a metadata file, unpacking metadata packets if needed."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceFormatError(str(path), None, f"cannot read metadata: {exc.strerror}") from None
    if len(data) >= 4 and struct.unpack("<I", data[:4])[0] == METADATA_MAGIC:
        return _unpack(path, data, "<")
    if len(data) >= 4 and struct.unpack(">I", data[:4])[0] == METADATA_MAGIC:
        return _unpack(path, data, ">")
    if not data.lstrip().startswith((b"/* CTF", b"typealias", b"trace", b"/*", b"//", b"env",
                                     b"clock")):
        raise TraceFormatError(str(path), 0, "not CTF metadata (no magic, no TSDL text)")
    return _decode(path, data, 0)


def _decode(path: Path, data: bytes, offset: int) -> str:
    if b"\0" in data:
        data = data[: data.index(b"\0")]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFormatError(str(path), offset + exc.start, "metadata is not UTF-8 text") from None


def _unpack(path: Path, data: bytes, bo: str) -> str:
    parts: list[str] = []
    off = 0
    while off < len(data):
        if len(data) - off < _HEADER:
            raise TraceFormatError(str(path), off, "truncated metadata packet header")
        magic, = struct.unpack_from(bo + "I", data, off)
        if magic != METADATA_MAGIC:
            raise TraceFormatError(str(path), off, f"bad metadata packet magic {magic:#x}")
        content, size = struct.unpack_from(bo + "II", data, off + 24)
        comp, enc, csum = data[off + 32], data[off + 33], data[off + 34]
        if comp or enc or csum:
            raise TraceFormatError(str(path), off, "compressed/encrypted metadata not supported")
        if size % 8 or content % 8 or content > size or content < _HEADER * 8 or size == 0:
            raise TraceFormatError(str(path), off, f"bad metadata packet sizes {content}/{size}")
        if off + size // 8 > len(data):
            raise TraceFormatError(str(path), off, "truncated metadata packet")
        parts.append(_decode(path, data[off + _HEADER: off + content // 8], off + _HEADER))
        off += size // 8
    return "".join(parts)


def read_metadata(trace_dir: Path) -> Metadata:
    """Parse ``trace_dir/metadata``; errors name the file."""
    path = trace_dir / "metadata"
    text = metadata_text(path)
    try:
        return parse_tsdl(text)
    except TsdlError as exc:
        raise TraceFormatError(str(path), None, str(exc)) from None
    except RecursionError:
        raise TraceFormatError(str(path), None, "metadata nests too deeply") from None
