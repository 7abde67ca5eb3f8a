"""The C extension's event decoder behind the same interface as the Python reference.

Importing this module raises ImportError when ``fayshell.ctf._decode`` was not built.
"""

from __future__ import annotations

from typing import Any

from fayshell.ctf import _decode  # noqa: F401 - ImportError here selects the Python decoder
from fayshell.ctf import program as P
from fayshell.ctf.backend import PacketResult, RawBatch, arrow_type
from fayshell.ctf.pyexec import DecodeError

MAX_IDS = 1 << 20
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


class CEventDecoder:
    """Flattens a stream's programs into one code array and drives ``_decode.Decoder``."""

    def __init__(self, code: P.StreamPrograms, class_of_id: dict[int, int]) -> None:
        import numpy as np

        from fayshell.ctf._decode import Decoder

        ids = sorted(code.classes)
        if ids and (ids[-1] >= MAX_IDS or ids[0] < 0):
            raise ImportError("event ids too large for the C decoder")
        flat: list[int] = []
        self.columns: list[tuple[int, P.Column]] = []  # (table, column)
        pcs: dict[str, int] = {}
        programs: list[tuple[str, int, P.Program]] = [
            ("header", 0, code.header),
            ("context", 0, code.context),
        ]
        self.table_of: dict[int, int] = {}
        for n, eid in enumerate(ids):
            self.table_of[eid] = n + 1
            programs.append((f"c{eid}", n + 1, code.classes[eid]))
        for key, table, prog in programs:
            pcs[key] = len(flat) // P.WIDTH
            flat.extend(_relocate(prog, pcs[key], len(self.columns)))
            base = len(self.columns)
            for col in prog.columns:
                self.columns.append((table, col))
            for i, col in enumerate(prog.columns):
                if col.kind == P.K_LIST:
                    col_child = col.child + base
                    self.columns[base + i] = (table, col)
                    self._child_of = getattr(self, "_child_of", {})
                    self._child_of[base + i] = col_child
        n = (ids[-1] + 1) if ids else 0
        class_pc = np.full(n, -1, np.int64)
        class_table = np.zeros(n, np.int64)
        class_global = np.zeros(n, np.int64)
        for eid in ids:
            class_pc[eid] = pcs[f"c{eid}"]
            class_table[eid] = self.table_of[eid]
            class_global[eid] = class_of_id[eid]
        specs = []
        child_of = getattr(self, "_child_of", {})
        for i, (table, col) in enumerate(self.columns):
            specs.extend(
                [
                    col.kind,
                    col.width,
                    int(col.nullable),
                    table,
                    int(col.is_child),
                    child_of.get(i, -1),
                ]
            )
        self.code = code
        self.class_of_id = class_of_id
        self.ntables = len(ids) + 1
        self.dec = Decoder(
            np.array(flat, np.int64).tobytes(),
            pcs["header"],
            pcs["context"],
            class_pc.tobytes(),
            class_table.tobytes(),
            class_global.tobytes(),
            np.array(specs, np.int64).tobytes(),
            self.ntables,
            max(code.nregs, 1),
        )
        self.eid_of_table = {t: eid for eid, t in self.table_of.items()}
        self.child_of = child_of

    @property
    def rows(self) -> int:
        return int(self.dec.rows)

    def packet(self, buf: Any, start: int, end: int, clock: int) -> PacketResult:
        n, clk, err_bit, err = self.dec.packet(buf, start, end, clock)
        return PacketResult(n, clk, None if err is None else DecodeError(err_bit, err))

    def take(self) -> RawBatch:
        import pyarrow as pa

        ts, cls, table_rows, cols = self.dec.take()
        arrays = [self._array(i, cols) for i in range(len(cols))]
        ctx: dict[str, pa.Array] = {}
        payload: dict[int, tuple[pa.Array, dict[str, pa.Array]]] = {}
        for i, (table, col) in enumerate(self.columns):
            if col.is_child:
                continue
            if table == 0:
                ctx[col.name] = arrays[i]
            elif table_rows[table]:
                eid = self.eid_of_table[table]
                g = self.class_of_id[eid]
                if g not in payload:
                    payload[g] = (self._rows(table_rows[table]), {})
                payload[g][1][col.name] = arrays[i]
        for table in range(1, self.ntables):
            eid = self.eid_of_table[table]
            g = self.class_of_id[eid]
            if g not in payload and table_rows[table]:
                payload[g] = (self._rows(table_rows[table]), {})
        return RawBatch(
            pa.Array.from_buffers(pa.uint64(), len(ts) // 8, [None, pa.py_buffer(ts)]),
            pa.Array.from_buffers(pa.int32(), len(cls) // 4, [None, pa.py_buffer(cls)]),
            ctx,
            payload,
        )

    @staticmethod
    def _rows(raw: bytes) -> Any:
        import pyarrow as pa

        return pa.Array.from_buffers(pa.int64(), len(raw) // 8, [None, pa.py_buffer(raw)])

    def _array(self, i: int, cols: list[tuple[int, bytes, bytes | None, bytes | None]]) -> Any:
        import numpy as np
        import pyarrow as pa

        table, col = self.columns[i]
        n, data, offs, valid = cols[i]
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
            child_idx = self.child_of[i]
            child = self._array(child_idx, cols)
            return pa.Array.from_buffers(
                pa.list_(child.type), n, [vbuf, pa.py_buffer(offs)], children=[child]
            )
        return pa.Array.from_buffers(arrow_type(col), n, [vbuf, pa.py_buffer(data)])
