"""``[bigint]`` (System.Numerics.BigInteger): integers of any size, as about_Numeric_Literals'
``n`` suffix (``12345678901234567890n``) and the type accelerator give them. Other integers
widen to ``[double]`` past Int64; a BigInteger stays exact through ``+ - * / %`` with
integers (its division truncates, as .NET's), and becomes a double beside a double."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fayshell.lang.values import NetException

#: The names a script writes for the type (lower case, without ``System.``).
TYPES = ("bigint", "numerics.biginteger")


class BigInteger(int):
    """An integer that keeps every digit; reads and prints as its digits."""

    TYPE_NAME = "System.Numerics.BigInteger"

    def __repr__(self) -> str:
        return int.__repr__(self)

    __str__ = __repr__


class BigIntegerError(NetException):
    """A value that is no integer, in .NET's words (its FormatException)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "System.FormatException")


def to_bigint(value: Any) -> BigInteger:
    """``[bigint]$x``: an integer as is, a double or decimal truncated toward zero, text read
    as decimal digits (a ``0x`` prefix as hexadecimal)."""
    if isinstance(value, bool):
        return BigInteger(int(value))
    if isinstance(value, int):
        return BigInteger(value)
    if isinstance(value, str):
        try:
            return parse(value)
        except BigIntegerError as exc:
            raise BigIntegerError(
                f'Cannot convert value "{value}" to type "System.Numerics.BigInteger". '
                f'Error: "{exc}"'
            ) from None
    try:
        return BigInteger(int(value))  # float, Decimal: .NET's explicit conversion truncates
    except (TypeError, ValueError, OverflowError):
        raise BigIntegerError(
            f'Cannot convert value "{value}" to type "System.Numerics.BigInteger".'
        ) from None


def parse(text: str) -> BigInteger:
    """``[bigint]::Parse('123')``; .NET's FormatException words when it is no integer."""
    digits = text.strip().replace(",", "") if text.strip() else "x"
    try:
        return BigInteger(int(digits, 16) if digits.lower().startswith("0x") else int(digits))
    except ValueError:
        raise BigIntegerError("The value could not be parsed.") from None


def arithmetic(op: str, a: int, b: int) -> BigInteger:
    """``a op b`` when one side is a BigInteger and both are integers."""
    if b == 0 and op in "/%":
        raise ZeroDivisionError("Attempted to divide by zero.")
    if op == "/":  # truncated toward zero, as BigInteger.Divide
        q = abs(a) // abs(b)
        return BigInteger(q if (a < 0) == (b < 0) else -q)
    if op == "%":  # the dividend's sign, as BigInteger.Remainder
        r = abs(a) % abs(b)
        return BigInteger(-r if a < 0 else r)
    return BigInteger({"+": a + b, "-": a - b, "*": a * b}[op])


def _pow(value: Any, exponent: Any) -> BigInteger:
    if int(exponent) < 0:
        raise NetException(
            "The number must be greater than or equal to zero. (Parameter 'exponent')",
            "System.ArgumentOutOfRangeException",
        )
    return BigInteger(to_bigint(value) ** int(exponent))


def _mod_pow(value: Any, exponent: Any, modulus: Any) -> BigInteger:
    return BigInteger(pow(to_bigint(value), int(exponent), int(modulus)))


def _gcd(a: Any, b: Any) -> BigInteger:
    import math

    return BigInteger(math.gcd(to_bigint(a), to_bigint(b)))


#: ``[bigint]::Name``: properties (called with no arguments) and methods.
STATICS: dict[str, Callable[..., Any]] = {
    "zero": lambda: BigInteger(0),
    "one": lambda: BigInteger(1),
    "minusone": lambda: BigInteger(-1),
    "parse": lambda text: parse(str(text)),
    "pow": _pow,
    "modpow": _mod_pow,
    "abs": lambda v: BigInteger(abs(to_bigint(v))),
    "negate": lambda v: BigInteger(-to_bigint(v)),
    "greatestcommondivisor": _gcd,
    "max": lambda a, b: BigInteger(max(to_bigint(a), to_bigint(b))),
    "min": lambda a, b: BigInteger(min(to_bigint(a), to_bigint(b))),
    "compare": lambda a, b: (to_bigint(a) > to_bigint(b)) - (to_bigint(a) < to_bigint(b)),
    "add": lambda a, b: arithmetic("+", to_bigint(a), to_bigint(b)),
    "subtract": lambda a, b: arithmetic("-", to_bigint(a), to_bigint(b)),
    "multiply": lambda a, b: arithmetic("*", to_bigint(a), to_bigint(b)),
    "divide": lambda a, b: arithmetic("/", to_bigint(a), to_bigint(b)),
    "remainder": lambda a, b: arithmetic("%", to_bigint(a), to_bigint(b)),
    "new": to_bigint,
}


def static(name: str, args: list[Any] | None) -> Any:
    """``[bigint]::Pow(2, 100)`` and its kin; NotImplemented for a name it does not have."""
    member = STATICS.get(name.lower())
    if member is None or (args is None) != (name.lower() in ("zero", "one", "minusone")):
        return NotImplemented
    return member(*(args or []))
