"""The CTF 1.8 type model that the TSDL parser builds and the compiler turns into instructions."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class IntType:
    """An integer: size and alignment in bits, signedness, byte order, base, encoding, clock map."""

    size: int
    align: int = 8
    signed: bool = False
    big_endian: bool = False
    base: int = 10
    encoding: str = "none"
    clock: str | None = None

    @property
    def is_text(self) -> bool:
        return self.encoding.lower() in ("utf8", "ascii") and self.size == 8


@dataclass(frozen=True)
class FloatType:
    """A floating point number; only IEEE 754 binary32 and binary64 are decoded."""

    exp_dig: int
    mant_dig: int
    align: int = 8
    big_endian: bool = False

    @property
    def size(self) -> int:
        return self.exp_dig + self.mant_dig


@dataclass(frozen=True)
class StringType:
    """A NUL-terminated string."""

    encoding: str = "UTF8"
    align: int = 8


@dataclass(frozen=True)
class EnumMapping:
    """One enumeration label and the closed range of values it names."""

    label: str
    low: int
    high: int


@dataclass(frozen=True)
class EnumType:
    """An enumeration over an integer container."""

    container: IntType
    mappings: tuple[EnumMapping, ...] = ()

    @property
    def align(self) -> int:
        return self.container.align

    def label_of(self, value: int) -> str | None:
        for m in self.mappings:
            if m.low <= value <= m.high:
                return m.label
        return None


@dataclass(frozen=True)
class Field:
    """A named member of a structure or an option of a variant."""

    name: str
    type: CtfType


@dataclass(frozen=True)
class StructType:
    """A structure: ordered fields and a minimum alignment."""

    fields: tuple[Field, ...] = ()
    min_align: int = 1

    @property
    def align(self) -> int:
        return max([self.min_align, *(type_align(f.type) for f in self.fields)])


@dataclass(frozen=True)
class VariantType:
    """A variant selected by an enumeration tag found at ``tag`` (a field path)."""

    tag: str | None
    options: tuple[Field, ...] = ()

    @property
    def align(self) -> int:
        return 1


@dataclass(frozen=True)
class ArrayType:
    """A static array of ``length`` elements."""

    element: CtfType
    length: int

    @property
    def align(self) -> int:
        return type_align(self.element)


@dataclass(frozen=True)
class SequenceType:
    """A dynamic array whose length is the integer field at ``length_path``."""

    element: CtfType
    length_path: str

    @property
    def align(self) -> int:
        return type_align(self.element)


CtfType = (
    IntType
    | FloatType
    | StringType
    | EnumType
    | StructType
    | VariantType
    | ArrayType
    | SequenceType
)


def type_align(t: CtfType) -> int:
    """Alignment in bits of a type."""
    return t.align


@dataclass
class Clock:
    """A clock block: frequency and offset from the epoch."""

    name: str
    freq: int = 1_000_000_000
    offset_s: int = 0
    offset: int = 0
    uuid: str | None = None

    def offset_ns(self) -> int:
        """The clock offset in nanoseconds (exact when freq is 1 GHz)."""
        return self.offset_s * 1_000_000_000 + self.offset * 1_000_000_000 // self.freq


@dataclass
class EventClass:
    """An event block: name, id, stream, log level, context and payload."""

    name: str
    id: int = 0
    stream_id: int = 0
    loglevel: int | None = None
    context: StructType | None = None
    fields: StructType | None = None


@dataclass
class StreamClass:
    """A stream block: packet context, event header and stream event context."""

    id: int = 0
    packet_context: StructType | None = None
    event_header: StructType | None = None
    event_context: StructType | None = None
    events: dict[int, EventClass] = field(default_factory=dict)


@dataclass
class Metadata:
    """Everything the TSDL metadata declares."""

    big_endian: bool = False
    uuid: bytes | None = None
    packet_header: StructType | None = None
    env: dict[str, int | str] = field(default_factory=dict)
    clocks: dict[str, Clock] = field(default_factory=dict)
    streams: dict[int, StreamClass] = field(default_factory=dict)

    def clock(self) -> Clock:
        """The trace's clock (the first declared; a default 1 GHz clock if none)."""
        if self.clocks:
            return next(iter(self.clocks.values()))
        return Clock("default")

    def event_classes(self) -> list[EventClass]:
        return [ev for s in self.streams.values() for ev in s.events.values()]
