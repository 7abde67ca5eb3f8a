"""The C extension's event decoder behind the same interface as the Python reference.

Importing this module raises ImportError when ``fayshell.ctf._decode`` was not built.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from fayshell.ctf import _decode  # noqa: F401 - ImportError here selects the Python decoder
from fayshell.ctf import program as P
from fayshell.ctf.backend import PacketResult, RawBatch, arrow_type
from fayshell.ctf.pyexec import DecodeError

MAX_IDS = 1 << 20
#: One column as ``Decoder.take`` returns it: values, data, offsets and validity buffers.
_Raw = tuple[int, bytes, bytes | None, bytes | None]
_COL_FIELD = {P.INT: 4, P.FLOAT: 3, P.STRING: 1, P.TEXTARR: 2, P.TEXTSEQ: 2, P.LIST: 1}


def _relocate(prog: P.Program, base_pc: int, base_col: int) -> list[int]:
    out: list[int] = []
    for row in prog.code:
        r = list(row)
        k = _COL_FIELD.get(r[0])
        if k is not None and r[k] >= 0:
            r[k] += base_col
        if r[0] == P.CASE:
            r[3] += base_pc
        elif r[0] == P.JUMP:
            r[1] += base_pc
        out.extend(r)
    return out


class BufferSizes:
    """The buffer sizes the last decoder of a layout reached, where the next one starts. An
    import decodes a large stream file in parts, a decoder each, and one that starts at 1 KiB
    grows every buffer by copying it into fresh pages (decoding the BlkKin bench trace alone,
    in 7 parts: 18% more CPU and 14% more page faults). Readers on several threads share it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sizes: bytes | None = None

    def get(self) -> bytes | None:
        with self._lock:
            return self._sizes

    def put(self, sizes: bytes) -> None:
        with self._lock:
            self._sizes = sizes


@dataclass(frozen=True)
class Layout:
    """One stream's programs flattened for ``_decode.Decoder``: its constructor's arguments,
    and where each decoded column goes. The same for every reader of the stream, so it is
    made once (``Layouts``): for a real kernel trace's 1,181 classes it takes about 20 ms, and
    an import has a reader for each file part."""

    args: tuple[Any, ...]
    columns: list[tuple[int, P.Column]]  # (table, column)
    by_table: list[list[int]]  # each table's top-level columns
    child_of: dict[int, int]  # a list column -> its element column
    class_of_table: list[int]  # the trace class of each table (0: the common context)
    sizes: BufferSizes = field(default_factory=BufferSizes, compare=False)

    @classmethod
    def of(cls, code: P.StreamPrograms, class_of_id: dict[int, int]) -> Layout:
        import numpy as np

        ids = sorted(code.classes)
        if ids and (ids[-1] >= MAX_IDS or ids[0] < 0):
            raise ImportError("event ids too large for the C decoder")
        programs = [(0, code.header), (0, code.context)]
        programs += [(n + 1, code.classes[eid]) for n, eid in enumerate(ids)]
        flat, pcs, columns, child_of = _flatten(programs)
        by_table: list[list[int]] = [[] for _ in range(len(ids) + 1)]
        for i, (table, col) in enumerate(columns):
            if not col.is_child:
                by_table[table].append(i)
        specs = [
            (col.kind, col.width, int(col.nullable), table, int(col.is_child), child_of.get(i, -1))
            for i, (table, col) in enumerate(columns)
        ]
        args = (
            np.array(flat, np.int64).tobytes(),
            pcs[0],
            pcs[1],
            *_class_tables(ids, pcs[2:], class_of_id),
            np.array(specs, np.int64).tobytes(),
            len(ids) + 1,
            max(code.nregs, 1),
        )
        return cls(args, columns, by_table, child_of, [0] + [class_of_id[eid] for eid in ids])


def _flatten(
    programs: list[tuple[int, P.Program]],
) -> tuple[list[int], list[int], list[tuple[int, P.Column]], dict[int, int]]:
    """(table, program) pairs as one code array: the code, each program's first instruction,
    the columns with their tables, and each list column's element column."""
    flat: list[int] = []
    pcs: list[int] = []
    columns: list[tuple[int, P.Column]] = []
    child_of: dict[int, int] = {}
    for table, prog in programs:
        pcs.append(len(flat) // P.WIDTH)
        base = len(columns)
        flat.extend(_relocate(prog, pcs[-1], base))
        for i, col in enumerate(prog.columns):
            columns.append((table, col))
            if col.kind == P.K_LIST:
                child_of[base + i] = col.child + base
    return flat, pcs, columns, child_of


def _class_tables(ids: list[int], pcs: list[int], class_of_id: dict[int, int]) -> list[bytes]:
    """By event id: its program's first instruction (-1: no such id), its table and its
    trace class, as int64 arrays."""
    import numpy as np

    n = (ids[-1] + 1) if ids else 0
    class_pc = np.full(n, -1, np.int64)
    class_table = np.zeros(n, np.int64)
    class_global = np.zeros(n, np.int64)
    for k, eid in enumerate(ids):
        class_pc[eid], class_table[eid], class_global[eid] = pcs[k], k + 1, class_of_id[eid]
    return [class_pc.tobytes(), class_table.tobytes(), class_global.tobytes()]


class Layouts:
    """The layouts of the streams decoded lately, made once each (readers of one stream on
    several threads: the first makes it, the others wait for it). A few are kept, with their
    programs: a live view opens each new chunk anew, so its programs are new objects too."""

    def __init__(self, keep: int = 4) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._made: dict[tuple[int, int], tuple[P.StreamPrograms, dict[int, int], Layout]] = {}

    def get(self, code: P.StreamPrograms, class_of_id: dict[int, int]) -> Layout:
        key = (id(code), id(class_of_id))
        with self._lock:
            hit = self._made.get(key)
            if hit is not None:  # the entry keeps both alive: their ids are still theirs
                return hit[2]
            made = Layout.of(code, class_of_id)
            if len(self._made) >= self.keep:
                self._made.clear()
            self._made[key] = (code, class_of_id, made)
            return made


#: The process's layouts (every C decoder is made through it unless given another).
LAYOUTS = Layouts()


class CEventDecoder:
    """Drives ``_decode.Decoder`` over a stream's flattened programs (its ``Layout``)."""

    def __init__(
        self,
        code: P.StreamPrograms,
        class_of_id: dict[int, int],
        layouts: Layouts = LAYOUTS,
    ) -> None:
        from fayshell.ctf._decode import Decoder

        self.layout = layouts.get(code, class_of_id)
        self.dec = Decoder(*self.layout.args, self.layout.sizes.get())

    @property
    def rows(self) -> int:
        return int(self.dec.rows)

    def packet(self, buf: Any, start: int, end: int, clock: int) -> PacketResult:
        n, clk, err_bit, err = self.dec.packet(buf, start, end, clock)
        return PacketResult(n, clk, None if err is None else DecodeError(err_bit, err))

    def take(self) -> RawBatch:
        import pyarrow as pa

        self.layout.sizes.put(self.dec.sizes())
        ts, cls, table_rows, cols = self.dec.take()
        ctx = self._arrays(0, cols)
        payload: dict[int, tuple[pa.Array, dict[str, pa.Array]]] = {}
        for table, g in enumerate(self.layout.class_of_table):
            if table and table_rows[table]:
                if g not in payload:
                    payload[g] = (self._rows(table_rows[table]), {})
                payload[g][1].update(self._arrays(table, cols))
        return RawBatch(
            pa.Array.from_buffers(pa.uint64(), len(ts) // 8, [None, pa.py_buffer(ts)]),
            pa.Array.from_buffers(pa.int32(), len(cls) // 4, [None, pa.py_buffer(cls)]),
            ctx,
            payload,
        )

    def _arrays(self, table: int, cols: list[_Raw | None]) -> Any:
        """``table``'s columns by name, as Arrow arrays."""
        lay = self.layout
        return {lay.columns[i][1].name: self._array(i, cols) for i in lay.by_table[table]}

    @staticmethod
    def _rows(raw: bytes) -> Any:
        import pyarrow as pa

        return pa.Array.from_buffers(pa.int64(), len(raw) // 8, [None, pa.py_buffer(raw)])

    def _array(self, i: int, cols: list[_Raw | None]) -> Any:
        import numpy as np
        import pyarrow as pa

        col = self.layout.columns[i][1]
        raw = cols[i]
        assert raw is not None  # None only for the columns of a table without rows
        n, data, offs, valid = raw
        vbuf = None
        if valid is not None:
            v = np.frombuffer(valid, np.uint8)
            if not v.all():
                vbuf = pa.py_buffer(np.packbits(v, bitorder="little").tobytes())
        if col.kind == P.K_STR:
            return pa.Array.from_buffers(
                pa.string(), n, [vbuf, pa.py_buffer(offs), pa.py_buffer(data)]
            )
        if col.kind == P.K_LIST:
            child_idx = self.layout.child_of[i]
            child = self._array(child_idx, cols)
            return pa.Array.from_buffers(
                pa.list_(child.type), n, [vbuf, pa.py_buffer(offs)], children=[child]
            )
        return pa.Array.from_buffers(arrow_type(col), n, [vbuf, pa.py_buffer(data)])
