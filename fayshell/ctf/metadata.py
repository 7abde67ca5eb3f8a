"""Read a trace's ``metadata`` file (packetized or plain text) and parse it.

Parsed metadata is kept by the digest of the file's bytes (:class:`MetadataCache`): LTTng writes
the same metadata into every chunk of a session, and a live view imports one small chunk per node
every second, so each distinct metadata is parsed once. The cached :class:`Metadata` is shared
between the traces that read it: it is read-only once parsed.
"""

from __future__ import annotations

import hashlib
import struct
import threading
from collections import OrderedDict
from pathlib import Path

from fayshell.ctf.tsdl import TsdlError, parse_tsdl
from fayshell.ctf.types import Metadata
from fayshell.errors import TraceFormatError

METADATA_MAGIC = 0x75D11D57
_HEADER = 37  # magic, uuid[16], checksum, content_size, packet_size, 5 x uint8


def metadata_text(path: Path) -> str:
    """The TSDL text of a metadata file, unpacking metadata packets if needed."""
    return text_of(path, read_bytes(path))


def read_bytes(path: Path) -> bytes:
    """The bytes of a metadata file; an unreadable file is a TraceFormatError naming it."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise TraceFormatError(str(path), None, f"cannot read metadata: {exc.strerror}") from None


def text_of(path: Path, data: bytes) -> str:
    """The TSDL text of the bytes ``data`` of the metadata file ``path``."""
    if len(data) >= 4 and struct.unpack("<I", data[:4])[0] == METADATA_MAGIC:
        return _unpack(path, data, "<")
    if len(data) >= 4 and struct.unpack(">I", data[:4])[0] == METADATA_MAGIC:
        return _unpack(path, data, ">")
    if not data.lstrip().startswith(
        (b"/* CTF", b"typealias", b"trace", b"/*", b"//", b"env", b"clock")
    ):
        raise TraceFormatError(str(path), 0, "not CTF metadata (no magic, no TSDL text)")
    return _decode(path, data, 0)


def _decode(path: Path, data: bytes, offset: int) -> str:
    if b"\0" in data:
        data = data[: data.index(b"\0")]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFormatError(
            str(path), offset + exc.start, "metadata is not UTF-8 text"
        ) from None


def _unpack(path: Path, data: bytes, bo: str) -> str:
    parts: list[str] = []
    off = 0
    while off < len(data):
        if len(data) - off < _HEADER:
            raise TraceFormatError(str(path), off, "truncated metadata packet header")
        (magic,) = struct.unpack_from(bo + "I", data, off)
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
        parts.append(_decode(path, data[off + _HEADER : off + content // 8], off + _HEADER))
        off += size // 8
    return "".join(parts)


def parse_metadata(path: Path, data: bytes) -> Metadata:
    """Parse the bytes ``data`` of the metadata file ``path``; errors name the file."""
    text = text_of(path, data)
    try:
        return parse_tsdl(text)
    except TsdlError as exc:
        raise TraceFormatError(str(path), None, str(exc)) from None
    except RecursionError:
        raise TraceFormatError(str(path), None, "metadata nests too deeply") from None


class MetadataCache:
    """Parsed metadata by the SHA-256 of the metadata file's bytes, the ``capacity`` most
    recently used kept. Bad metadata is not kept: every read reports it again."""

    def __init__(self, capacity: int = 32) -> None:
        self.capacity = capacity
        self._parsed: OrderedDict[bytes, Metadata] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._parsed)

    def get(self, path: Path, data: bytes) -> Metadata:
        """The metadata of ``data`` (the bytes of ``path``), parsed when not kept."""
        key = hashlib.sha256(data).digest()
        with self._lock:
            meta = self._parsed.get(key)
            if meta is not None:
                self._parsed.move_to_end(key)
                self.hits += 1
                return meta
        meta = parse_metadata(path, data)
        with self._lock:
            self.misses += 1
            self._parsed[key] = meta
            while len(self._parsed) > self.capacity:
                self._parsed.popitem(last=False)
        return meta


#: The process's cache (every trace opened reads through it unless given another).
METADATA_CACHE = MetadataCache()


def read_metadata(trace_dir: Path, cache: MetadataCache | None = METADATA_CACHE) -> Metadata:
    """Parse ``trace_dir/metadata`` (through ``cache``; None parses anew); errors name the file."""
    path = trace_dir / "metadata"
    data = read_bytes(path)
    return parse_metadata(path, data) if cache is None else cache.get(path, data)
