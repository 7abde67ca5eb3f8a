"""Event decoders over one stream's packets: the C extension, or the Python reference.

Both take packets (bytes, bit range, starting clock) and accumulate columns; ``take()`` hands
back a :class:`RawBatch` of Arrow arrays and resets. No Python object per event on the C path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from fayshell.ctf import program as P
from fayshell.ctf.pyexec import ColumnValues, DecodeError, ExecState, pad_nulls, run

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass
class RawBatch:
    """Decoded events of some packets: common columns, and per class its rows and payload."""

    ts: pa.Array  # uint64 clock values
    cls: pa.Array  # int32 global class index
    context: dict[str, pa.Array]  # stream event context columns
    payload: dict[int, tuple[pa.Array, dict[str, pa.Array]]]  # class -> (row index, columns)

    def __len__(self) -> int:
        return len(self.ts)


@dataclass
class PacketResult:
    """Events decoded from one packet, the clock after them, and damage found (if any)."""

    events: int
    clock: int
    error: DecodeError | None = None


class EventDecoder(Protocol):
    def packet(self, buf: bytes, start: int, end: int, clock: int) -> PacketResult: ...

    def take(self) -> RawBatch: ...

    @property
    def rows(self) -> int: ...


def arrow_columns(columns: list[P.Column], values: list[Any]) -> dict[str, pa.Array]:
    """Arrow arrays of a program's top-level columns from Python value lists."""
    import pyarrow as pa

    out: dict[str, pa.Array] = {}
    for col, vals in zip(columns, values, strict=True):
        if col.is_child:
            continue
        if col.kind == P.K_LIST:
            child = columns[col.child]
            offsets = [0]
            for n in vals:
                offsets.append(offsets[-1] + (n or 0))
            mask = pa.array([v is None for v in vals]) if col.nullable else None
            arr = pa.ListArray.from_arrays(
                pa.array(offsets, pa.int32()),
                pa.array(values[col.child], arrow_type(child)),
                mask=mask,
            )
            out[col.name] = arr
        else:
            out[col.name] = pa.array(vals, arrow_type(col))
    return out


def arrow_type(col: P.Column) -> pa.DataType:
    """The Arrow type of a column."""
    import pyarrow as pa

    if col.kind == P.K_STR:
        return pa.string()
    if col.kind == P.K_FLOAT:
        return pa.float32() if col.width == 4 else pa.float64()
    if col.kind == P.K_LIST:
        raise ValueError("list columns need their child")
    bits = col.width * 8
    return getattr(pa, f"{'int' if col.signed else 'uint'}{bits}")()


class PyEventDecoder:
    """The reference executor driving a stream's programs over packets."""

    def __init__(self, code: P.StreamPrograms, class_of_id: dict[int, int]) -> None:
        self.code = code
        self.class_of_id = class_of_id
        self.state = ExecState(regs=[0] * max(code.nregs, 1))
        self._reset()

    def _reset(self) -> None:
        self.ts: list[int] = []
        self.cls: list[int] = []
        self.ctx = ColumnValues.for_program(self.code.context)
        self.payload: dict[int, tuple[list[int], ColumnValues]] = {}

    @property
    def rows(self) -> int:
        return len(self.ts)

    def packet(self, buf: bytes, start: int, end: int, clock: int) -> PacketResult:
        st = self.state
        st.clock = clock
        pos, n = start, 0
        code = self.code
        try:
            while pos < end:
                st.regs[P.REG_ID] = 0
                pos = run(code.header.code, None, buf, pos, end, st)
                eid = st.regs[P.REG_ID]
                prog = code.classes.get(eid)
                if prog is None:
                    raise DecodeError(pos, f"unknown event id {eid}")
                mark = self._mark(eid)
                try:
                    pos = run(code.context.code, self.ctx, buf, pos, end, st)
                    rows, vals = self.payload[eid]
                    pos = run(prog.code, vals, buf, pos, end, st)
                except DecodeError:
                    self._rollback(eid, mark)
                    raise
                if prog.has_variant_columns:
                    pad_nulls(prog, vals)
                if code.context.has_variant_columns:
                    pad_nulls(code.context, self.ctx)
                rows.append(len(self.ts))
                vals.rows += 1
                self.ctx.rows += 1
                self.ts.append(st.clock)
                self.cls.append(self.class_of_id[eid])
                n += 1
        except DecodeError as exc:
            return PacketResult(n, st.clock, exc)
        return PacketResult(n, st.clock)

    def _mark(self, eid: int) -> tuple[list[int], list[int]]:
        if eid not in self.payload:
            self.payload[eid] = ([], ColumnValues.for_program(self.code.classes[eid]))
        return ([len(c) for c in self.ctx.cols], [len(c) for c in self.payload[eid][1].cols])

    def _rollback(self, eid: int, mark: tuple[list[int], list[int]]) -> None:
        for col, n in zip(self.ctx.cols, mark[0], strict=True):
            del col[n:]
        for col, n in zip(self.payload[eid][1].cols, mark[1], strict=True):
            del col[n:]

    def take(self) -> RawBatch:
        import pyarrow as pa

        payload = {}
        for eid, (rows, vals) in self.payload.items():
            prog = self.code.classes[eid]
            payload[self.class_of_id[eid]] = (
                pa.array(rows, pa.int64()),
                arrow_columns(prog.columns, vals.cols),
            )
        batch = RawBatch(
            pa.array(self.ts, pa.uint64()),
            pa.array(self.cls, pa.int32()),
            arrow_columns(self.code.context.columns, self.ctx.cols),
            payload,
        )
        self._reset()
        return batch


def read_struct(prog: P.Program, buf: bytes, pos: int, end: int) -> tuple[dict[str, Any], int]:
    """Decode one packet header/context with the reference executor: values by name."""
    vals = ColumnValues.for_program(prog)
    st = ExecState(regs=[0] * max(prog.nregs, 1))
    pos = run(prog.code, vals, buf, pos, end, st)
    out: dict[str, Any] = {}
    for col, v in zip(prog.columns, vals.cols, strict=True):
        if col.is_child:
            continue
        if col.kind == P.K_LIST:
            out[col.name] = vals.cols[col.child]
        else:
            out[col.name] = v[0] if v else None
    return out, pos


def make_decoder(
    code: P.StreamPrograms, class_of_id: dict[int, int], prefer_c: bool = True
) -> EventDecoder:
    """The C decoder when the extension is built (and allowed), else the Python one.
    ``FAYSHELL_PYTHON_DECODER=1`` in the environment forces the Python reference."""
    import os

    if prefer_c and not os.environ.get("FAYSHELL_PYTHON_DECODER"):
        try:
            from fayshell.ctf.cdecoder import CEventDecoder
        except ImportError:
            pass
        else:
            return CEventDecoder(code, class_of_id)
    return PyEventDecoder(code, class_of_id)
