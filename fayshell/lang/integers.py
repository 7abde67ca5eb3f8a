"""PowerShell's integer types, and the arithmetic and bitwise operators on them.

A plain Python ``int`` is an [int] (Int32), or an [long] (Int64) when its value does not fit
Int32 (a number from a query, a literal like ``3000000000``). The other types are ``int``
subclasses that say which they are: a cast (``[long]5``, ``[byte]$x``), a literal's suffix
(``5L``, ``5u``, ``5uy``) or an operation on them makes one.

The operators follow PowerShell's binder: operands smaller than Int32 widen to Int32; the
operation is done in the wider operand's type (an unsigned one beside a negative signed one:
in Int64, or Decimal beside UInt64); a result that does not fit becomes a [double]
(``[int]::MaxValue + 1`` is 2147483648, a Double); ``/`` stays an integer only when it
divides exactly. ``-band``/``-bor``/``-bxor`` work in the wider type's bits, ``-shl``/``-shr``
in the left operand's (the count taken modulo its width, as .NET does: ``1 -shl 33`` is 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar


@dataclass(frozen=True)
class IntKind:
    """One .NET integer type: its name, width, sign, .NET's word for it in overflow messages
    and C#'s keyword for it (what member definitions show: ``long a=1``); ``rank`` orders the
    types as .NET's TypeCode does (SByte < Byte < ... < UInt64)."""

    net: str
    bits: int
    signed: bool
    called: str
    rank: int
    keyword: str

    @property
    def lo(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        return (1 << (self.bits - 1 if self.signed else self.bits)) - 1

    def holds(self, n: int) -> bool:
        return self.lo <= n <= self.hi

    def wrap(self, n: int) -> int:
        """``n``'s low bits read as this type (what an unchecked .NET conversion gives)."""
        n &= (1 << self.bits) - 1
        return n - (1 << self.bits) if self.signed and n >> (self.bits - 1) else n


SBYTE = IntKind("SByte", 8, True, "a signed byte", 5, "sbyte")
BYTE = IntKind("Byte", 8, False, "an unsigned byte", 6, "byte")
INT16 = IntKind("Int16", 16, True, "an Int16", 7, "short")
UINT16 = IntKind("UInt16", 16, False, "a UInt16", 8, "ushort")
INT32 = IntKind("Int32", 32, True, "an Int32", 9, "int")
UINT32 = IntKind("UInt32", 32, False, "a UInt32", 10, "uint")
INT64 = IntKind("Int64", 64, True, "an Int64", 11, "long")
UINT64 = IntKind("UInt64", 64, False, "a UInt64", 12, "ulong")

#: Every integer type, in rank order.
KINDS = (SBYTE, BYTE, INT16, UINT16, INT32, UINT32, INT64, UINT64)

#: The names a cast or ``-is`` may give each type (lower case, without ``System.``): C#'s
#: keyword and .NET's name (``long``, ``int64``).
NAMES: dict[str, IntKind] = {
    name: kind for kind in KINDS for name in (kind.keyword, kind.net.lower())
}


class SizedInt(int):
    """An integer of a type other than Int32; arithmetic on it goes through :func:`arithmetic`
    (Python's own operators give plain ints)."""

    __slots__ = ()
    KIND: ClassVar[IntKind]
    TYPE_NAME: ClassVar[str]

    def __repr__(self) -> str:
        return int.__repr__(self)

    __str__ = __repr__


def _sized(kind: IntKind) -> type[SizedInt]:
    return type(
        kind.net, (SizedInt,), {"__slots__": (), "KIND": kind, "TYPE_NAME": f"System.{kind.net}"}
    )


SByte, Byte, Int16, UInt16, UInt32, Int64, UInt64 = (
    _sized(k) for k in (SBYTE, BYTE, INT16, UINT16, UINT32, INT64, UINT64)
)
_I32_LO, _I32_HI = INT32.lo, INT32.hi
_CLASSES: dict[IntKind, type[SizedInt]] = {
    cls.KIND: cls for cls in (SByte, Byte, Int16, UInt16, UInt32, Int64, UInt64)
}


def kind_of(value: int) -> IntKind:
    """The type of an integer: its own, else Int32 when it fits, else Int64 (else UInt64)."""
    if isinstance(value, SizedInt):
        return value.KIND
    if INT32.holds(value):
        return INT32
    return INT64 if INT64.holds(value) else UINT64


def make(kind: IntKind, n: int) -> int:
    """``n`` as an integer of ``kind`` (a plain int for Int32); ``n`` must fit."""
    return int(n) if kind is INT32 else _CLASSES[kind](n)


def _operation(a: int, b: int) -> IntKind | None:
    """The type an arithmetic operation on ``a`` and ``b`` is done in; None: Decimal (a
    negative signed number beside a UInt64)."""
    wide = max(kind_of(a), kind_of(b), key=lambda k: k.rank)
    if wide.rank <= INT32.rank:
        return INT32
    negative = min(a, b) < 0
    if wide is UINT32 and negative:
        return INT64
    if wide is UINT64 and negative:
        return None
    return wide


def arithmetic(op: str, a: int, b: int) -> int | float | Decimal:
    """``a op b`` for ``+ - * / %`` on two integers, typed as PowerShell types it; raises
    ZeroDivisionError on ``/`` or ``%`` by zero."""
    if type(a) is int and type(b) is int and op in "+-*":  # the common case, kept quick
        n = a + b if op == "+" else a - b if op == "-" else a * b
        if _I32_LO <= a <= _I32_HI and _I32_LO <= b <= _I32_HI:
            return n if _I32_LO <= n <= _I32_HI else float(n)
        if INT64.holds(a) and INT64.holds(b):
            return make(INT64, n) if INT64.holds(n) else float(n)
    kind = _operation(a, b)
    if kind is None:
        return _decimal(op, Decimal(a), Decimal(b))
    if op in "/%" and b == 0:
        raise ZeroDivisionError
    if op == "/":
        if a % b:
            return float(a) / float(b)
        exact = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return make(kind, exact) if kind.holds(exact) else float(exact)
    if op == "%":  # the sign of the dividend, as .NET's remainder
        return make(kind, int(math.copysign(abs(a) % abs(b), a)) if a else 0)
    n = a + b if op == "+" else a - b if op == "-" else a * b
    return make(kind, n) if kind.holds(n) else float(n)


#: The largest [decimal]; a result past it falls back to a double.
_DECIMAL_MAX = Decimal(2**96 - 1)


def _decimal(op: str, a: Decimal, b: Decimal) -> Decimal | float:
    if op in "/%" and b == 0:
        raise ZeroDivisionError
    n = a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b
    if op == "%":
        n = a % b  # Decimal's remainder has the sign of the dividend, as .NET's
    return n if abs(n) <= _DECIMAL_MAX else float(n)


def _bitwise_kind(kind: IntKind) -> IntKind:
    """The type bitwise operators work in: Int32 for the narrower types."""
    return INT32 if kind.rank <= INT32.rank else kind


def bitwise(op: str, a: int, b: int) -> int:
    """``-band -bor -bxor -shl -shr`` on two integers (floats already rounded to Int64)."""
    if op in ("shl", "shr"):
        kind = _bitwise_kind(kind_of(a))
        count = b & (kind.bits - 1)
        n = a << count if op == "shl" else a >> count
        return make(kind, kind.wrap(n))
    kind = max(_bitwise_kind(kind_of(a)), _bitwise_kind(kind_of(b)), key=lambda k: k.rank)
    n = a & b if op == "band" else a | b if op == "bor" else a ^ b
    return make(kind, kind.wrap(n))


def bnot(a: int) -> int:
    """``-bnot a``: the complement in ``a``'s type (Int32 for the narrower types)."""
    kind = _bitwise_kind(kind_of(a))
    return make(kind, kind.wrap(~a))


def negate(a: int) -> int | float:
    """``-a``: a plain int stays one (``-2147483648`` is an Int32); a narrower type widens to
    Int32, an unsigned one to Int64 (``-[uint32]5``), and what does not fit to a double."""
    if not isinstance(a, SizedInt):
        return -int(a)
    kind = a.KIND if a.KIND.rank > INT32.rank else INT32
    kind = INT64 if not kind.signed else kind
    return make(kind, -a) if kind.holds(-a) else float(-a)


def is_kind(value: object, kind: IntKind) -> bool:
    """``$x -is [long]`` and its kin: ``value`` is an integer of exactly that type."""
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    own = getattr(type(value), "KIND", None)
    if own is not None or isinstance(value, SizedInt):
        return own is kind
    return type(value) is int and kind_of(value) is kind
