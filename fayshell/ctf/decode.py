"""Drive packets of a trace's stream files through an event decoder into Arrow batches.

Memory stays bounded: each stream file is memory-mapped and batches are yielded once they hold
``batch_rows`` events. Damage stops that stream file with a :class:`TraceFormatError` recorded
in its :class:`StreamStats`; the events decoded before it are kept.
"""

from __future__ import annotations

import itertools
import mmap
from bisect import bisect_left
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.ctf.backend import EventDecoder, RawBatch, make_decoder, read_struct
from fayshell.ctf.pyexec import DecodeError
from fayshell.ctf.trace import PACKET_MAGIC, StreamCode, Trace
from fayshell.errors import TraceFormatError

if TYPE_CHECKING:
    import pyarrow as pa

BATCH_ROWS = 1 << 18


@dataclass
class StreamStats:
    """What decoding one stream file found."""

    path: Path
    stream_id: int = -1
    packets: int = 0
    events: int = 0
    discarded: int = 0
    lost_packets: int = 0
    first_ts: int | None = None
    last_ts: int | None = None
    error: TraceFormatError | None = None
    bytes_read: int = 0


@dataclass
class EventBatch:
    """Decoded events as Arrow: common columns and per-class payload tables."""

    stream_id: int
    path: Path
    common: pa.Table  # ts (ns), cls, cpu, stream context columns
    payload: dict[int, pa.Table] = field(default_factory=dict)  # class -> row + payload

    def __len__(self) -> int:
        return self.common.num_rows


@dataclass
class _Packet:
    """A packet read: its CPU (-1: none in its context) and its count of events."""

    cpu: int
    events: int


@dataclass(frozen=True)
class _Head:
    """A packet's header and context as read, and where its events start (bits)."""

    stream: StreamCode
    ctx: dict[str, Any]
    pos: int
    size: int  # the packet's bits
    content: int  # bits of it that hold data


@dataclass(frozen=True)
class Part:
    """Whole packets of one stream file, bytes ``start`` to ``end``, decoded on their own
    (packets are self-contained). ``discarded`` and ``seq`` are the running loss counters of
    the packet before ``start``, so losses are counted across the cut as in one pass."""

    start: int
    end: int
    discarded: int | None = None
    seq: int | None = None


@contextmanager
def mapped(path: Path) -> Iterator[Any]:
    """The file's bytes, memory-mapped (empty bytes for an empty file)."""
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        if size == 0:
            yield b""
            return
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            yield mm
        finally:
            mm.close()


@dataclass
class _Released:
    """Hands the pages of a mapped file back once decoded: mapped pages count in the process's
    resident memory, and a stream file may be gigabytes (they stay in the page cache)."""

    data: Any
    at: int = 0  # a page boundary

    def upto(self, offset: int) -> None:
        if not isinstance(self.data, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED"):
            return
        end = offset - offset % mmap.PAGESIZE
        if end > self.at:
            self.data.madvise(mmap.MADV_DONTNEED, self.at, end - self.at)
            self.at = end


class StreamReader:
    """Packets of one stream file, decoded in batches."""

    def __init__(
        self,
        trace: Trace,
        path: Path,
        prefer_c: bool = True,
        batch_rows: int = BATCH_ROWS,
        part: Part | None = None,
    ) -> None:
        self.trace = trace
        self.path = path
        self.prefer_c = prefer_c
        self.batch_rows = batch_rows
        self.part = part  # None: the whole file
        self.stats = StreamStats(path)
        self.decoder: EventDecoder | None = None
        self.packets: list[_Packet] = []
        self._disc = part.discarded if part else None
        self._seq = part.seq if part else None

    def size(self) -> int:
        """The bytes this reader decodes (``stats.bytes_read`` counts up to it)."""
        return self.part.end - self.part.start if self.part else self.path.stat().st_size

    def fail(self, offset: int, message: str) -> TraceFormatError:
        return TraceFormatError(str(self.path), offset, message)

    def batches(self) -> Iterator[EventBatch]:
        """Decode the whole file, yielding batches; damage ends it with ``stats.error`` set."""
        try:
            with mapped(self.path) as data:
                yield from self._run(data)
        except TraceFormatError as exc:
            self.stats.error = exc
        except OSError as exc:
            self.stats.error = self.fail(0, f"cannot read: {exc.strerror}")
        if self.decoder is not None and self.decoder.rows:
            yield self._flush()
        self.decoder = None  # its buffers (a batch's capacity per column) go with it

    def _run(self, data: Any) -> Iterator[EventBatch]:
        start, end = (self.part.start, self.part.end) if self.part else (0, len(data))
        size, off = end * 8, start * 8
        clock = 0
        done = _Released(data, start - start % mmap.PAGESIZE)
        while off < size:
            head = self._head(data, off, size)
            self._count_losses(head.ctx)
            if self.decoder is None:
                self.decoder = make_decoder(
                    head.stream.events, head.stream.class_of_id, self.prefer_c
                )
            ctx = head.ctx
            clock = (
                int(ctx.get("timestamp_begin", clock) or 0) if "timestamp_begin" in ctx else clock
            )
            res = self.decoder.packet(data, head.pos, off + head.content, clock)
            clock = res.clock
            cpu = ctx.get("cpu_id")
            self.packets.append(_Packet(-1 if cpu is None else int(cpu), res.events))
            self.stats.packets += 1
            if res.error is not None:
                raise self.fail(res.error.bit // 8, res.error.message)
            off += head.size
            self.stats.bytes_read = off // 8 - start
            if self.decoder.rows >= self.batch_rows:
                yield self._flush()
                done.upto(off // 8)

    def _head(self, data: Any, off: int, size: int) -> _Head:
        """The packet header and context at bit ``off``, checked."""
        hdr, pos = self._struct(self.trace.packet_header, data, off, off, size, "packet header")
        self._check_header(hdr, off)
        sid = int(hdr.get("stream_id") or 0)
        sc = self.trace.streams.get(sid)
        if sc is None:
            raise self.fail(off // 8, f"packet names stream class {sid}, not in metadata")
        if self.stats.stream_id < 0:
            self.stats.stream_id = sid
        elif sid != self.stats.stream_id:
            raise self.fail(off // 8, f"stream id changes from {self.stats.stream_id} to {sid}")
        ctx, pos = self._struct(sc.packet_context, data, off, pos, size, "packet context")
        psize = int(ctx.get("packet_size") or (size - off))
        content = int(ctx.get("content_size") or psize)
        if psize <= 0 or psize % 8 or content > psize or off + content < pos:
            raise self.fail(off // 8, f"bad packet sizes: content {content}, packet {psize} bits")
        if off + psize > size:
            raise self.fail(
                off // 8,
                f"truncated packet: {psize // 8} bytes declared, {(size - off) // 8} in the file",
            )
        return _Head(sc, ctx, pos, psize, content)

    def _struct(
        self, prog: Any, data: Any, off: int, pos: int, size: int, what: str
    ) -> tuple[dict[str, Any], int]:
        """A packet header/context; damage is reported at the packet's first byte."""
        try:
            return read_struct(prog, data, pos, size)
        except DecodeError as exc:
            raise self.fail(
                off // 8, f"truncated {what} ({exc.message}, {size // 8 - off // 8} bytes left)"
            ) from None

    def _check_header(self, hdr: dict[str, Any], off: int) -> None:
        magic = hdr.get("magic")
        if magic is not None and magic != PACKET_MAGIC:
            raise self.fail(off // 8, f"bad packet magic {magic:#x}")
        uuid = hdr.get("uuid")
        want = self.trace.meta.uuid
        if uuid is not None and want is not None and bytes(uuid) != want:
            raise self.fail(off // 8 + 4, "packet uuid does not match the metadata uuid")

    def _count_losses(self, ctx: dict[str, Any]) -> None:
        disc = ctx.get("events_discarded")
        if disc is not None:
            # a running count: what rose since the previous packet of this stream file was
            # lost (as babeltrace2 counts it, the first packet only sets the baseline)
            if self._disc is not None and disc > self._disc:
                self.stats.discarded += disc - self._disc
            self._disc = disc
        seq = ctx.get("packet_seq_num")
        if seq is not None:
            if self._seq is not None and seq > self._seq + 1:
                self.stats.lost_packets += seq - self._seq - 1
            self._seq = seq

    def _flush(self) -> EventBatch:
        assert self.decoder is not None
        raw = self.decoder.take()
        batch = to_event_batch(self.trace, self.stats, raw, self.packets, self.path)
        self.packets = []
        return batch


def to_event_batch(
    trace: Trace, stats: StreamStats, raw: RawBatch, packets: list[_Packet], path: Path
) -> EventBatch:
    """Arrow tables with ns timestamps and the cpu column rebuilt from packet counts."""
    import numpy as np
    import pyarrow as pa

    cycles = raw.ts.to_numpy(zero_copy_only=False)
    if trace.freq == 1_000_000_000:  # one new array (cycles are the decoder's own buffer)
        ts = cycles.view(np.int64) + np.int64(trace.clock_offset_ns)
    else:
        ts = np.array([trace.to_ns(int(c)) for c in cycles], dtype=np.int64)
    counts = np.array([p.events for p in packets], dtype=np.int64)
    cpus = np.repeat(np.array([p.cpu for p in packets], dtype=np.int32), counts)
    n = len(ts)
    if n:
        first, last = int(ts.min()), int(ts.max())
        stats.first_ts = first if stats.first_ts is None else min(stats.first_ts, first)
        stats.last_ts = last if stats.last_ts is None else max(stats.last_ts, last)
    stats.events += n
    cols: dict[str, pa.Array] = {
        "ts": pa.array(ts),
        "cls": raw.cls,
        "cpu": pa.array(cpus, mask=cpus < 0),
    }
    cols.update(raw.context)
    common = pa.table(cols)
    payload = {
        cls: pa.table({"row": rows, **arrays}) for cls, (rows, arrays) in raw.payload.items()
    }
    return EventBatch(stats.stream_id, path, common, payload)


def stream_readers(
    trace: Trace,
    prefer_c: bool = True,
    batch_rows: int = BATCH_ROWS,
    part_bytes: int = 0,
    workers: int = 1,
) -> list[StreamReader]:
    """Readers of the trace's stream files; iterate ``reader.batches()``, then read
    ``reader.stats``. With ``part_bytes``: largest first, and a file of several times that
    much cut at packet boundaries into parts of about a quarter of the trace per worker (at
    least ``part_bytes`` each), so one large file does not leave the other workers idle."""
    if part_bytes <= 0:
        return [StreamReader(trace, path, prefer_c, batch_rows) for path in trace.files]
    sizes = {path: path.stat().st_size if path.exists() else 0 for path in trace.files}
    target = max(part_bytes, sum(sizes.values()) // max(4 * workers, 1))
    readers = []
    for path in sorted(trace.files, key=lambda f: -sizes[f]):
        parts = cut(trace, path, sizes[path] // target)
        readers += [StreamReader(trace, path, prefer_c, batch_rows, p) for p in parts] or [
            StreamReader(trace, path, prefer_c, batch_rows)
        ]
    return readers


def cut(trace: Trace, path: Path, n: int) -> list[Part]:
    """``path`` as ``n`` parts of about equal bytes, cut at packet boundaries; no parts when
    ``n`` < 2 or a packet header cannot be read (the whole file is then decoded in one pass,
    which reports the damage where it is)."""
    starts = packet_starts(trace, path) if n >= 2 else None
    if not starts:
        return []
    size = path.stat().st_size
    offsets = [off for off, _, _ in starts]
    at = sorted({bisect_left(offsets, size * k // n) for k in range(1, n)} - {0, len(starts)})
    bounds = [0, *at, len(starts)]
    return [
        Part(
            offsets[i],
            offsets[j] if j < len(starts) else size,
            starts[i - 1][1] if i else None,
            starts[i - 1][2] if i else None,
        )
        for i, j in itertools.pairwise(bounds)
    ]


def packet_starts(trace: Trace, path: Path) -> list[tuple[int, int | None, int | None]] | None:
    """Each packet's first byte and running loss counters (discarded events, sequence
    number), from the headers alone; None when one is damaged or a packet does not give
    its own clock base (``timestamp_begin``, then a part could not start there)."""
    reader = StreamReader(trace, path)
    out: list[tuple[int, int | None, int | None]] = []
    try:
        with mapped(path) as data:
            off, size = 0, len(data) * 8
            while off < size:
                head = reader._head(data, off, size)
                if "timestamp_begin" not in head.ctx:
                    return None
                out.append(
                    (off // 8, head.ctx.get("events_discarded"), head.ctx.get("packet_seq_num"))
                )
                off += head.size
    except (TraceFormatError, OSError):
        return None
    return out
