"""Compile CTF types into flat instruction lists that a decoder executes over packet bytes.

One program per stream (event header, stream event context) and one per event class (event
context and payload). Instructions are rows of :data:`WIDTH` int64 words: ``op, a, b, c, d, e``.
The same lists run in the pure-Python executor (:mod:`fayshell.ctf.pyexec`) and in the C
extension (``fayshell/ctf/_decode.c``); the opcodes below are the contract between them, and
``fayshell/ctf/_opcodes.h`` (which the extension includes) must hold exactly the same names and
numbers (tests/ctf/test_opcodes.py checks it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fayshell.ctf.types import (
    ArrayType,
    CtfType,
    EnumType,
    FloatType,
    IntType,
    SequenceType,
    StringType,
    StructType,
    VariantType,
)

WIDTH = 6

# opcodes ----------------------------------------------------------------------------------
ALIGN = 1  # a=bits
INT = 2  # a=size b=signed c=big_endian d=column e=register f=(unused)
CLOCK = 3  # a=size b=big_endian : update the stream clock from a mapped timestamp field
FLOAT = 4  # a=size b=big_endian c=column
STRING = 5  # a=column
TEXTARR = 6  # a=bytes b=column
TEXTSEQ = 7  # a=register b=column
LIST = 8  # a=column b=static count c=register(-1 static) d=body length (instructions)
VARIANT = 9  # a=register b=number of CASE rows that follow
CASE = 10  # a=low b=high c=target pc
JUMP = 11  # a=target pc
END = 12  # end of program

REG_ID = 0  # register holding the event id decoded from the event header

# column kinds -----------------------------------------------------------------------------
K_INT = 0
K_FLOAT = 1
K_STR = 2
K_LIST = 3


class CompileError(Exception):
    """A type the decoder cannot lay out (reported as a TraceFormatError by callers)."""


@dataclass
class Column:
    """One output column: kind, width in bytes (ints/floats), signedness, list child index."""

    name: str
    kind: int
    width: int = 8
    signed: bool = True
    child: int = -1
    nullable: bool = False
    is_child: bool = False
    enum: EnumType | None = None
    base: int = 10


@dataclass
class Program:
    """Instructions plus the columns they write."""

    code: list[list[int]] = field(default_factory=list)
    columns: list[Column] = field(default_factory=list)
    nregs: int = 1
    has_variant_columns: bool = False
    context_columns: int = 0

    def flat(self) -> list[int]:
        return [w for row in self.code for w in row]


@dataclass
class _Slot:
    """A field already decoded, that a later sequence length or variant tag names: where its
    value is kept and its type."""

    pc: int
    type: IntType | EnumType


def strip_name(name: str) -> str:
    """CTF 1.8 field names lose one leading underscore (as babeltrace2 shows them)."""
    return name[1:] if name.startswith("_") else name


def int_width(size: int) -> int:
    """Bytes of the column that stores an integer of ``size`` bits."""
    return 1 if size <= 8 else 2 if size <= 16 else 4 if size <= 32 else 8


class Compiler:
    """Builds one :class:`Program`; register numbers are shared across programs of a stream."""

    def __init__(self, regs: list[int] | None = None, clock_fields: bool = False) -> None:
        self.prog = Program()
        self.scopes: list[dict[str, _Slot]] = []
        self.roots: dict[str, dict[str, _Slot]] = {}
        self.regs = regs if regs is not None else [1]
        self.header = clock_fields
        self.in_variant = 0

    # -- emission ------------------------------------------------------------------------
    def emit(self, op: int, *args: int) -> int:
        row = [op, *args] + [0] * (WIDTH - 1 - len(args))
        self.prog.code.append(row)
        return len(self.prog.code) - 1

    def column(self, col: Column) -> int:
        names = {c.name for c in self.prog.columns}
        base, n = col.name, 2
        while col.name in names:
            col.name = f"{base}_{n}"
            n += 1
        col.nullable = self.in_variant > 0
        if col.nullable:
            self.prog.has_variant_columns = True
        self.prog.columns.append(col)
        return len(self.prog.columns) - 1

    def align(self, bits: int) -> None:
        if bits > 1:
            self.emit(ALIGN, bits)

    def finish(self) -> Program:
        self.emit(END)
        self.prog.nregs = self.regs[0]
        return self.prog

    # -- registers and references --------------------------------------------------------
    def new_reg(self) -> int:
        r = self.regs[0]
        self.regs[0] += 1
        return r

    def lookup(self, path: str) -> _Slot:
        parts = path.split(".")
        for prefix in (
            "stream.event.header",
            "stream.event.context",
            "event.context",
            "event.fields",
            "stream.packet.context",
            "trace.packet.header",
        ):
            if path.startswith(prefix + "."):
                rest = path[len(prefix) + 1 :]
                scope = self.roots.get(prefix, {})
                if rest in scope:
                    return scope[rest]
                raise CompileError(f"cannot resolve field path {path!r}")
        for scope in reversed(self.scopes):
            if path in scope:
                return scope[path]
        for roots in self.roots.values():
            if len(parts) == 1 and path in roots:
                return roots[path]
        raise CompileError(f"cannot resolve field path {path!r}")

    def reg_of(self, path: str) -> tuple[int, IntType | EnumType]:
        """The register holding the integer at ``path`` (allocated by patching its INT)."""
        slot = self.lookup(path)
        row = self.prog.code[slot.pc]
        if row[5] < 0:
            row[5] = self.new_reg()
        return row[5], slot.type

    # -- types ---------------------------------------------------------------------------
    def struct(self, st: StructType, prefix: str, root: str | None = None) -> None:
        self.align(st.align)
        scope: dict[str, _Slot] = {}
        self.scopes.append(scope)
        if root is not None:
            self.roots[root] = scope
        for f in st.fields:
            self.field(f.name, f.type, prefix, scope)
        self.scopes.pop()

    def field(self, raw: str, t: CtfType, prefix: str, scope: dict[str, _Slot]) -> None:
        name = prefix + strip_name(raw)
        if isinstance(t, (IntType, EnumType)):
            pc = self.integer(name, t, raw)
            scope[raw] = _Slot(pc, t)
        elif isinstance(t, StructType):
            inner: dict[str, _Slot] = {}
            self.scopes.append(inner)
            self.align(t.align)
            for f in t.fields:
                self.field(f.name, f.type, name + "_", inner)
            self.scopes.pop()
            scope.update({f"{raw}.{k}": v for k, v in inner.items()})
        elif isinstance(t, VariantType):
            self.variant(name, raw, t, scope)
        else:
            self.scalar(name, t)

    def integer(self, name: str, t: IntType | EnumType, raw: str) -> int:
        it = t.container if isinstance(t, EnumType) else t
        self.align(it.align)
        if self.header:
            if it.clock is not None and raw in ("timestamp", "_timestamp"):
                return self.emit(CLOCK, it.size, int(it.big_endian), -1, -1, -1)
            reg = REG_ID if raw in ("id", "_id") else -1
            return self.emit(INT, it.size, int(it.signed), int(it.big_endian), -1, reg)
        col = self.column(
            Column(
                name,
                K_INT,
                int_width(it.size),
                it.signed,
                enum=t if isinstance(t, EnumType) else None,
                base=it.base,
            )
        )
        return self.emit(INT, it.size, int(it.signed), int(it.big_endian), col, -1)

    def scalar(self, name: str, t: CtfType) -> None:
        """Strings, floats, arrays and sequences."""
        hidden = self.header
        if isinstance(t, StringType):
            self.emit(STRING, -1 if hidden else self.column(Column(name, K_STR)))
        elif isinstance(t, FloatType):
            self.align(t.align)
            col = -1 if hidden else self.column(Column(name, K_FLOAT, t.size // 8))
            self.emit(FLOAT, t.size, int(t.big_endian), col)
        elif isinstance(t, (ArrayType, SequenceType)):
            self.array(name, t, hidden)
        else:
            raise CompileError(f"field {name}: unsupported type {type(t).__name__}")

    def array(self, name: str, t: ArrayType | SequenceType, hidden: bool) -> None:
        el = t.element
        reg = -1
        if isinstance(t, SequenceType):
            reg, _ = self.reg_of(t.length_path)
        self.align(t.align)
        if isinstance(el, IntType) and el.is_text and el.align <= 8:
            col = -1 if hidden else self.column(Column(name, K_STR))
            if isinstance(t, ArrayType):
                self.emit(TEXTARR, t.length, col)
            else:
                self.emit(TEXTSEQ, reg, col)
            return
        if not isinstance(el, (IntType, EnumType, FloatType, StringType)):
            raise CompileError(f"field {name}: arrays of {type(el).__name__} are not supported")
        lcol = -1 if hidden else self.column(Column(name, K_LIST))
        at = self.emit(LIST, lcol, t.length if isinstance(t, ArrayType) else 0, reg, 0)
        start = len(self.prog.code)
        saved_hidden = self.header
        if hidden:
            self.header = True
        if isinstance(el, (IntType, EnumType)):
            it = el.container if isinstance(el, EnumType) else el
            self.align(it.align)
            ccol = (
                -1
                if hidden
                else self.column(
                    Column(name + "[]", K_INT, int_width(it.size), it.signed, is_child=True)
                )
            )
            self.emit(INT, it.size, int(it.signed), int(it.big_endian), ccol, -1)
        elif isinstance(el, FloatType):
            self.align(el.align)
            ccol = (
                -1
                if hidden
                else self.column(Column(name + "[]", K_FLOAT, el.size // 8, is_child=True))
            )
            self.emit(FLOAT, el.size, int(el.big_endian), ccol)
        else:
            ccol = -1 if hidden else self.column(Column(name + "[]", K_STR, is_child=True))
            self.emit(STRING, ccol)
        self.header = saved_hidden
        self.prog.code[at][4] = len(self.prog.code) - start
        if lcol >= 0:
            self.prog.columns[lcol].child = ccol
            self.prog.columns[ccol].nullable = False

    def variant(self, name: str, raw: str, t: VariantType, scope: dict[str, _Slot]) -> None:
        if t.tag is None:
            raise CompileError(f"variant {name} has no tag")
        reg, tag_type = self.reg_of(t.tag)
        if not isinstance(tag_type, EnumType):
            raise CompileError(f"variant {name}: tag {t.tag} is not an enumeration")
        by_name = {f.name: f for f in t.options}
        cases: list[tuple[int, int, str]] = []
        for m in tag_type.mappings:
            opt = by_name.get(m.label) or by_name.get("_" + m.label)
            if opt is not None:
                cases.append((m.low, m.high, opt.name))
        self.emit(VARIANT, reg, len(cases))
        case_pcs = [self.emit(CASE, lo, hi, 0) for lo, hi, _ in cases]
        jumps: list[int] = []
        starts: dict[str, int] = {}
        self.in_variant += 1
        for opt in t.options:
            starts[opt.name] = len(self.prog.code)
            inner: dict[str, _Slot] = {}
            self.scopes.append(inner)
            self.field(opt.name, opt.type, name + "_", inner)
            self.scopes.pop()
            scope.update({f"{raw}.{k}": v for k, v in inner.items()})
            scope.update({f"{raw}.{opt.name}.{k.split('.', 1)[-1]}": v for k, v in inner.items()})
            jumps.append(self.emit(JUMP, 0))
        self.in_variant -= 1
        end = len(self.prog.code)
        for pc in jumps:
            self.prog.code[pc][1] = end
        for pc, (_, _, opt_name) in zip(case_pcs, cases, strict=True):
            self.prog.code[pc][3] = starts[opt_name]


@dataclass
class StreamPrograms:
    """Compiled programs of one stream class: header, common context, and per event class."""

    header: Program
    context: Program
    classes: dict[int, Program]
    nregs: int


def compile_stream(
    header: StructType | None,
    context: StructType | None,
    classes: dict[int, tuple[StructType | None, StructType | None]],
) -> StreamPrograms:
    """Compile a stream's event header, stream event context and every event class."""
    regs = [1]
    hc = Compiler(regs, clock_fields=True)
    if header is not None:
        hc.struct(header, "", root="stream.event.header")
    hp = hc.finish()
    cc = Compiler(regs)
    cc.roots.update(hc.roots)
    if context is not None:
        cc.struct(context, "", root="stream.event.context")
    cp = cc.finish()
    progs: dict[int, Program] = {}
    for cid, (ectx, fields) in classes.items():
        ec = Compiler(regs)
        ec.roots.update(cc.roots)
        if ectx is not None:
            ec.struct(ectx, "", root="event.context")
            ec.prog.context_columns = len(ec.prog.columns)
        if fields is not None:
            ec.struct(fields, "", root="event.fields")
        progs[cid] = ec.finish()
    return StreamPrograms(hp, cp, progs, regs[0])
