"""The pure-Python executor of decoder programs: the reference (and fallback) for the C one."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from fayshell.ctf import program as P


class DecodeError(Exception):
    """Damage found while executing a program; ``bit`` is the absolute bit position."""

    def __init__(self, bit: int, message: str) -> None:
        super().__init__(message)
        self.bit = bit
        self.message = message


_FLOAT = {
    (32, 0): struct.Struct("<f"),
    (32, 1): struct.Struct(">f"),
    (64, 0): struct.Struct("<d"),
    (64, 1): struct.Struct(">d"),
}


def read_bits(buf: bytes | memoryview, pos: int, size: int, signed: int, be: int, end: int) -> int:
    """An integer of ``size`` bits at bit ``pos`` (CTF bit numbering for the byte order)."""
    if pos + size > end:
        raise DecodeError(pos, f"{size}-bit integer runs past the packet content")
    start = pos >> 3
    shift = pos & 7
    if shift == 0 and size & 7 == 0:
        v = int.from_bytes(buf[start : start + (size >> 3)], "big" if be else "little")
    else:
        stop = (pos + size + 7) >> 3
        word = int.from_bytes(buf[start:stop], "big" if be else "little")
        cut = stop * 8 - pos - size if be else shift
        v = (word >> cut) & ((1 << size) - 1)
    if signed and v >> (size - 1):
        v -= 1 << size
    return v


def utf8(raw: bytes) -> str:
    """Bytes as text; invalid UTF-8 bytes become U+FFFD."""
    return raw.decode("utf-8", "replace")


@dataclass
class ColumnValues:
    """Values of one program's columns; list columns keep their element counts."""

    cols: list[list[Any]]
    rows: int = 0

    @classmethod
    def for_program(cls, prog: P.Program) -> ColumnValues:
        return cls([[] for _ in prog.columns])


@dataclass
class ExecState:
    """Per-stream state carried across events and packets: clock and registers."""

    clock: int = 0
    regs: list[int] = field(default_factory=list)


def run(
    code: list[list[int]],
    out: ColumnValues | None,
    buf: bytes | memoryview,
    pos: int,
    end: int,
    st: ExecState,
) -> int:
    """Execute ``code`` from bit ``pos``; returns the bit position after it."""
    pc = 0
    regs = st.regs
    cols = out.cols if out is not None else []
    while True:
        op, a, b, c, d, e = code[pc]
        if op == P.ALIGN:
            pos = (pos + a - 1) & -a
        elif op == P.INT:
            v = read_bits(buf, pos, a, b, c, end)
            pos += a
            if d >= 0:
                cols[d].append(v)
            if e >= 0:
                regs[e] = v
        elif op == P.CLOCK:
            v = read_bits(buf, pos, a, 0, b, end)
            pos += a
            st.clock = update_clock(st.clock, v, a)
        elif op == P.FLOAT:
            if pos + a > end:
                raise DecodeError(pos, "float runs past the packet content")
            if pos & 7:
                raw = read_bits(buf, pos, a, 0, b, end)
                v2 = _FLOAT[(a, 0)].unpack(raw.to_bytes(a // 8, "little"))[0]
            else:
                v2 = _FLOAT[(a, b)].unpack_from(buf, pos >> 3)[0]
            pos += a
            if c >= 0:
                cols[c].append(v2)
        elif op == P.STRING:
            pos = _string(buf, pos, end, cols[a] if a >= 0 else None)
        elif op in (P.TEXTARR, P.TEXTSEQ):
            n = a if op == P.TEXTARR else regs[a]
            if pos & 7:
                raise DecodeError(pos, "text array is not byte aligned")
            if n < 0 or pos + n * 8 > end:
                raise DecodeError(pos, f"text of {n} bytes runs past the packet content")
            text = bytes(buf[pos >> 3 : (pos >> 3) + n])
            pos += n * 8
            if b >= 0:
                cols[b].append(utf8(text.split(b"\0", 1)[0]))
        elif op == P.LIST:
            n = regs[c] if c >= 0 else b
            if n < 0 or n > (end - pos) + 1:
                raise DecodeError(pos, f"sequence length {n} exceeds the packet content")
            body = code[pc + 1 : pc + 1 + d] + [[P.END, 0, 0, 0, 0, 0]]
            for _ in range(n):
                pos = run(body, out, buf, pos, end, st)
            if a >= 0:
                cols[a].append(n)
            pc += d
        elif op == P.VARIANT:
            v = regs[a]
            for k in range(b):
                row = code[pc + 1 + k]
                if row[1] <= v <= row[2]:
                    pc = row[3]
                    break
            else:
                raise DecodeError(pos, f"variant tag value {v} selects no option")
            continue
        elif op == P.JUMP:
            pc = a
            continue
        elif op == P.END:
            return pos
        pc += 1


def _string(buf: bytes | memoryview, pos: int, end: int, col: list[Any] | None) -> int:
    if pos & 7:
        raise DecodeError(pos, "string is not byte aligned")
    start = pos >> 3
    stop = end >> 3
    nul = bytes(buf[start:stop]).find(b"\0")
    if nul < 0:
        raise DecodeError(pos, "string runs past the packet content")
    if col is not None:
        col.append(utf8(bytes(buf[start : start + nul])))
    return (start + nul + 1) * 8


def update_clock(clock: int, value: int, size: int) -> int:
    """Rebuild a full clock value from ``size`` low bits (wrap-around when they go back)."""
    if size >= 64:
        return value
    mask = (1 << size) - 1
    new = (clock & ~mask) | value
    if value < (clock & mask):
        new += 1 << size
    return new & 0xFFFFFFFFFFFFFFFF


def pad_nulls(prog: P.Program, out: ColumnValues) -> None:
    """Give columns of variant options not taken a NULL for the current row."""
    rows = out.rows + 1
    for i, c in enumerate(prog.columns):
        if c.nullable and len(out.cols[i]) < rows:
            out.cols[i].append(None)
