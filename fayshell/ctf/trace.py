"""An opened CTF trace directory: metadata, compiled programs and stream files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

from fayshell.ctf import program as P
from fayshell.ctf.metadata import read_metadata
from fayshell.ctf.types import EventClass, Metadata, StructType
from fayshell.errors import TraceFormatError

PACKET_MAGIC = 0xC1FC1FC1
T = TypeVar("T")


@dataclass
class StreamCode:
    """Compiled programs of one stream class and the map from event id to global class index."""

    stream_id: int
    packet_context: P.Program
    events: P.StreamPrograms
    class_of_id: dict[int, int]


@dataclass
class Trace:
    """A trace directory ready to decode."""

    path: Path
    meta: Metadata
    classes: list[EventClass]
    packet_header: P.Program
    streams: dict[int, StreamCode]
    files: list[Path] = field(default_factory=list)

    @property
    def clock_offset_ns(self) -> int:
        return self.meta.clock().offset_ns()

    @property
    def freq(self) -> int:
        return self.meta.clock().freq

    def to_ns(self, cycles: int) -> int:
        """A clock value in nanoseconds since the epoch."""
        clk = self.meta.clock()
        if clk.freq == 1_000_000_000:
            return clk.offset_ns() + cycles
        return clk.offset_s * 1_000_000_000 + (clk.offset + cycles) * 1_000_000_000 // clk.freq

    @property
    def domain(self) -> str:
        return str(self.meta.env.get("domain", ""))

    @property
    def hostname(self) -> str:
        return str(self.meta.env.get("hostname", ""))


def _compile(path: Path, what: str, fn: Callable[[], T]) -> T:
    """Run a compile step; a CompileError becomes a TraceFormatError naming the metadata."""
    try:
        return fn()
    except P.CompileError as exc:
        raise TraceFormatError(str(path / "metadata"), None, f"{what}: {exc}") from None


def _struct_program(st: StructType | None) -> P.Program:
    c = P.Compiler()
    if st is not None:
        c.struct(st, "")
    return c.finish()


def open_trace(path: str | Path) -> Trace:
    """Read metadata, compile programs and list the stream files of ``path``."""
    root = Path(path)
    if not (root / "metadata").is_file():
        raise TraceFormatError(str(root), None, "not a CTF trace directory (no metadata file)")
    meta = read_metadata(root)
    classes: list[EventClass] = []
    streams: dict[int, StreamCode] = {}
    for sid, sc in sorted(meta.streams.items()):
        ids: dict[int, int] = {}
        per: dict[int, tuple[StructType | None, StructType | None]] = {}
        for eid, ev in sorted(sc.events.items()):
            ids[eid] = len(classes)
            classes.append(ev)
            per[eid] = (ev.context, ev.fields)
        progs = _compile(
            root, f"stream {sid}", partial(P.compile_stream, sc.event_header, sc.event_context, per)
        )
        pctx = _compile(
            root, f"stream {sid} packet context", partial(_struct_program, sc.packet_context)
        )
        streams[sid] = StreamCode(sid, pctx, progs, ids)
    header = _compile(root, "packet header", partial(_struct_program, meta.packet_header))
    files = sorted(
        p
        for p in root.iterdir()
        if p.is_file() and p.name != "metadata" and not p.name.startswith(".")
    )
    return Trace(root, meta, classes, header, streams, files)


def find_traces(path: str | Path) -> list[Path]:
    """Every trace directory (one holding a ``metadata`` file) at or under ``path``."""
    root = Path(path)
    if (root / "metadata").is_file():
        return [root]
    if not root.is_dir():
        raise TraceFormatError(str(root), None, "no such trace directory")
    return sorted(p.parent for p in root.rglob("metadata") if p.is_file())
