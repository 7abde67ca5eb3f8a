"""Operator semantics, the PowerShell way: case-insensitive strings, the right side converted to
the left side's type, comparison operators filtering arrays, wildcard ``-like``, regex ``-match``."""

from __future__ import annotations

import contextlib
import functools
import math
import operator
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation, localcontext
from types import ModuleType
from typing import Any

from fayshell import errorids
from fayshell.lang import integers, netaddr, xmldoc
from fayshell.lang.dotnet import EXCEPTION_BASES, DotNetError, format_double, regex
from fayshell.lang.netnumerics import TYPES as BIG_TYPES
from fayshell.lang.netnumerics import BigInteger, to_bigint
from fayshell.lang.netnumerics import arithmetic as big_arithmetic
from fayshell.lang.netregex import Regex
from fayshell.lang.single import Single
from fayshell.lang.streams import collected, is_relation
from fayshell.lang.values import (
    NUMBERS,
    Char,
    Duration,
    ExceptionValue,
    Guid,
    Hashtable,
    NetException,
    OrderedDictionary,
    PSCustomObject,
    Size,
    TimeSpan,
    TypedArray,
    TypeName,
    parse_unit_number,
)
from fayshell.lang.versions import SemanticVersion, Version, VersionError, to_semver, to_version
from fayshell.records import get_property, is_record, property_names


def _dates() -> ModuleType:
    """fayshell.lang.dates, imported when a date first meets an operator (it imports this
    module's neighbours, not this module)."""
    import fayshell.lang.dates as dates

    return dates


class OperatorError(Exception):
    """An operator cannot apply to its operands; the evaluator adds the location.
    ``error_id``: PowerShell's ``$_.FullyQualifiedErrorId`` for it ("": the message)."""

    error_id = ""

    def __init__(self, message: str = "", error_id: str = "") -> None:
        super().__init__(message)
        if error_id:
            self.error_id = error_id


class VariableNotWritable(OperatorError):
    """An assignment to a variable made -Option ReadOnly or Constant."""

    error_id = "VariableNotWritable"

    def __init__(self, name: str) -> None:
        super().__init__(f"Cannot overwrite variable {name} because it is read-only or constant.")


class DivideByZero(OperatorError):
    """``x / 0`` (PowerShell's DivideByZeroException)."""

    error_id = "RuntimeException"


class MethodFailed(OperatorError):
    """A .NET method threw (PowerShell's MethodInvocationException); ``inner`` is the type of
    what it threw (a typed ``catch [FormatException]`` takes it, as PowerShell's does)."""

    def __init__(self, message: str, inner: str, inner_message: str) -> None:
        super().__init__(message, inner.rsplit(".", 1)[-1])  # its id: FileNotFoundException
        self.inner = inner
        self.inner_message = inner_message


class CastError(OperatorError):
    """A value does not convert to a type (PowerShell's PSInvalidCastException)."""


class UnknownType(OperatorError):
    """A cast to a type fayshell does not know (``[System.Uri]``)."""


class StrictModeError(OperatorError):
    """A rule of Set-StrictMode broken; ``category`` is PowerShell's ErrorCategory."""

    category = "InvalidOperation"


class VariableNotSet(StrictModeError):
    """Version 1: a variable read before it was set."""

    error_id = "VariableIsUndefined"

    def __init__(self, name: str) -> None:
        super().__init__(f"The variable '${name}' cannot be retrieved because it has not been set.")


class PropertyNotFound(StrictModeError):
    """Version 2: a property the object does not have (PropertyNotFoundException)."""

    category = "NotSpecified"
    error_id = "PropertyNotFoundStrict"

    def __init__(self, name: str) -> None:
        super().__init__(
            f"The property '{name}' cannot be found on this object. Verify that the property "
            "exists."
        )


class MethodSyntax(StrictModeError):
    """Version 2: ``f(1, 2)``, a command called as if it were a method."""

    def __init__(self) -> None:
        super().__init__(
            "The function or command was called as if it were a method. Parameters should be "
            "separated by spaces. For information about parameters, see the about_Parameters "
            "Help topic."
        )


class IndexOutOfRange(StrictModeError):
    """Version 3: an index past either end of an array (IndexOutOfRangeException)."""

    category = "OperationStopped"

    def __init__(self) -> None:
        super().__init__("Index was outside the bounds of the array.")


FILTERING = {"eq", "ne", "gt", "ge", "lt", "le", "like", "notlike", "match", "notmatch"}


def truthy(value: Any) -> bool:
    """PowerShell truthiness: empty string, 0, $null and empty arrays are false."""
    if is_relation(value):  # a query's rows: two tell all there is to know
        value = collected(value, 2)
    if value is None:
        return False
    if isinstance(value, (list, tuple)):
        return len(value) > 1 or (len(value) == 1 and truthy(value[0]))
    if isinstance(value, str):
        return value != ""
    if isinstance(value, (bool, int, float)):
        return bool(value)
    if isinstance(value, Mapping):
        return True
    return bool(value)


def to_number(value: Any) -> int | float | Decimal:
    """Convert to int, float or Decimal; raises OperatorError when that is not possible."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, NUMBERS):
        return value
    if isinstance(value, str):
        return _text_number(value)
    if value is None:
        return 0
    raise CastError(f"cannot convert {type_name(value)} to a number")


#: Text .NET reads as a number with thousands separators (``1,000``; ``1,5`` is 15).
THOUSANDS = re.compile(r"[+-]?\d[\d,]*(?:\.\d*)?(?:[eE][+-]?\d+)?")


def _text_number(value: str) -> int | float | Decimal:
    """A text's number as PowerShell reads it: decimal or 0x hex digits, with thousands
    separators, a size or duration unit (fayshell's), or nothing at all (0); not Python's own
    spellings (``1_0``, ``0o17``) and not blanks alone."""
    text = value.strip()
    unit = parse_unit_number(text)
    if unit is not None:
        return unit
    if not value:
        return 0
    if "," in text and THOUSANDS.fullmatch(text):
        text = text.replace(",", "")
    with contextlib.suppress(ValueError):
        if text and "_" not in text:  # blanks alone, and Python's 1_0, are no number
            return int(text, 16) if text.lower().startswith("0x") else int(text)
    with contextlib.suppress(ValueError):
        if text and "_" not in text:
            return float(text)
    raise CastError(f"cannot convert {value!r} to a number")


def to_string(value: Any) -> str:
    """How a value reads inside a string: $null is empty, arrays are space-joined."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if is_relation(value):
        value = value.records()
    if isinstance(value, (list, tuple)):
        return " ".join(to_string(v) for v in value)
    if isinstance(value, datetime):  # "$date" is the invariant culture's text, as in PowerShell
        return _dates().invariant_text(value)
    if type(value) is float:
        return format_double(value)
    if isinstance(value, Decimal):  # .NET never writes a decimal with an exponent
        return format(value, "f")
    # a record as @{k=v; ...}, unless its type writes its own text (a script class's object)
    if (
        isinstance(value, dict)
        and not isinstance(value, Hashtable)
        and type(value).__str__ is dict.__str__
    ):
        return "@{" + "; ".join(f"{k}={to_string(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Hashtable):
        return value.FULL_NAME
    if type(value).__str__ is object.__str__ and is_record(value):
        return _record_text(value)
    return str(value)


def _record_text(value: Any) -> str:
    """A record that writes no text of its own: a .NET object's stand-in (its type lists its
    MEMBERS) reads as its type's full name, as .NET's ToString; any other as @{k=v; ...}."""
    if isinstance(getattr(type(value), "MEMBERS", None), tuple):
        from fayshell.lang.dotnet import full_type_name_of

        return full_type_name_of(value)
    names = property_names(value)
    return "@{" + "; ".join(f"{k}={to_string(get_property(value, k))}" for k in names) + "}"


def type_name(value: Any) -> str:
    if value is None:
        return "$null"
    return {
        bool: "bool",
        int: "int",
        float: "double",
        Decimal: "decimal",
        str: "string",
        list: "array",
        dict: "hashtable",
    }.get(type(value), type(value).__name__)


def coerce_like(left: Any, right: Any) -> Any:
    """Convert ``right`` to the type of ``left`` (PowerShell's rule for comparisons)."""
    own = getattr(left, "ps_coerce", None)  # a script's enum: 'Error' as [Severity]::Error
    if own is not None:
        return own(right)
    if isinstance(left, bool):
        return truthy(right)
    if isinstance(left, NUMBERS) and isinstance(right, str):
        try:
            return to_number(right)
        except OperatorError:
            return right
    if isinstance(left, datetime) and isinstance(right, str):
        return _dates().to_datetime(right)
    if isinstance(left, (Version, SemanticVersion)) and not isinstance(right, type(left)):
        try:  # [version]"2.13" -ge "2.9", $PSVersionTable.PSVersion -ge [version]"7.0"
            return to_version(right) if isinstance(left, Version) else to_semver(right)
        except VersionError:
            return right  # not equal, and not ordered: -gt says it cannot compare them
    if isinstance(left, str) and not isinstance(right, str) and right is not None:
        return to_string(right)
    return right


@functools.total_ordering
class SortKey:
    """Orders mixed values as Sort-Object and [array]::Sort do: $null first, numbers
    numerically, strings case-insensitively, dates in time, versions part by part."""

    def __init__(self, value: Any) -> None:
        self.rank, self.value = _rank(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SortKey) and (self.rank, self.value) == (other.rank, other.value)

    def __lt__(self, other: SortKey) -> bool:
        if self.rank != other.rank:
            return self.rank < other.rank
        return bool(self.value < other.value)


#: Values that order by their own comparison (dates in time, versions part by part), not by
#: their text ("12/1/2023" after "3/5/2024", "1.10" before "1.9").
ORDERED = (datetime, Version, SemanticVersion)


def _rank(value: Any) -> tuple[int, Any]:
    if value is None:
        return 0, 0
    if isinstance(value, (bool, *NUMBERS)):
        return 1, float(value) if not isinstance(value, bool) else int(value)
    if isinstance(value, str):
        return 2, value.casefold()
    if isinstance(value, datetime):
        return 3, _dates().wall_clock(value)
    if isinstance(value, (Version, SemanticVersion)):  # one rank each: they do not compare
        return (4 if isinstance(value, Version) else 5), value
    if is_record(value):  # a [pscustomobject] has no order of its own: keep the input order
        return 6, ""
    return 6, to_string(value).casefold()


def culture_key(text: str) -> tuple[str, str]:
    """Case-sensitive order as .NET's culture compares text (-clt, [string]::Compare): the
    letters first whatever their case ('a' before 'B'), then lowercase before uppercase."""
    return text.casefold(), text.swapcase()


def culture_compare(left: str, right: str, ignore_case: bool = False) -> int:
    """-1, 0 or 1, as ``[string]::Compare(left, right, ignore_case)``."""
    if ignore_case:
        lk, rk = culture_key(left.casefold()), culture_key(right.casefold())
    else:
        lk, rk = culture_key(left), culture_key(right)
    return (lk > rk) - (lk < rk)


def _cmp_key(value: Any, case: bool) -> Any:
    if isinstance(value, datetime):  # by wall-clock time whatever the Kind, as .NET compares
        return _dates().wall_clock(value)  # (DuckDB's TIMESTAMPTZ values are aware datetimes)
    return value if case or not isinstance(value, str) else value.casefold()


def compare(op: str, left: Any, right: Any) -> Any:
    """Apply a comparison operator (``eq``, ``clike``, ``in``, ...) to two values."""
    case = False
    base = op
    left, right = collected(left), collected(right)  # a query's rows as values
    if op[0] in "ci" and op[1:] in FILTERING | {"in", "notin", "contains", "notcontains"}:
        case, base = op[0] == "c", op[1:]
    if base in ("contains", "notcontains"):
        found = _contains(left, right, case)
        return found if base == "contains" else not found
    if base in ("in", "notin"):
        found = _contains(right, left, case)
        return found if base == "in" else not found
    if isinstance(left, (list, tuple)) and base in FILTERING:
        return [item for item in left if compare(op, item, right)]
    return _scalar_compare(base, left, right, case)


def _contains(collection: Any, item: Any, case: bool) -> bool:
    items = collection if isinstance(collection, (list, tuple, set)) else [collection]
    return any(_scalar_compare("eq", x, item, case) for x in items)


def _scalar_compare(op: str, left: Any, right: Any, case: bool) -> bool:
    if op in ("like", "notlike"):
        hit = wildcard_match(to_string(left), to_string(right), case)
        return hit if op == "like" else not hit
    if op in ("match", "notmatch"):
        try:
            found = regex(to_string(right), case).search(to_string(left))
        except DotNetError as exc:
            raise OperatorError(str(exc)) from None
        return bool(found) if op == "match" else not found
    if op in ("eq", "ne") and isinstance(left, TypeName) and isinstance(right, TypeName):
        same = left.FullName.lower() == right.FullName.lower()  # [int] is [Int32]
        return same == (op == "eq")
    if op in ("eq", "ne") and isinstance(left, Mapping):
        # a hashtable or an object equals itself only (.NET's reference equality): two
        # objects with the same properties are two objects
        return (left is right) == (op == "eq")
    if left is None or right is None:
        if op == "eq":
            return left is None and right is None
        if op == "ne":
            return not (left is None and right is None)
        return _order(op, left, right)
    right = coerce_like(left, right)
    if case and op not in ("eq", "ne") and isinstance(left, str) and isinstance(right, str):
        return _order(op, culture_key(left), culture_key(right))
    lk, rk = _cmp_key(left, case), _cmp_key(right, case)
    if op == "eq":
        return bool(lk == rk)
    if op == "ne":
        return bool(lk != rk)
    return _order(op, lk, rk)


def _order(op: str, left: Any, right: Any) -> bool:
    """``left -op right``. ``$null`` orders as 0 against a number, as "" against text, and
    before anything else (a date, a version), as PowerShell compares them."""
    other = right if left is None else left if right is None else None
    if other is not None and not isinstance(other, (str, *NUMBERS)):
        sign = -1 if left is None else 1
        return {"gt": sign > 0, "ge": sign > 0, "lt": sign < 0, "le": sign < 0}[op]
    if left is None:
        left, right = (0 if isinstance(right, NUMBERS) else ""), right
    if right is None:
        right = 0 if isinstance(left, NUMBERS) else ""
    try:
        if op == "gt":
            return bool(left > right)
        if op == "ge":
            return bool(left >= right)
        if op == "lt":
            return bool(left < right)
        if op == "le":
            return bool(left <= right)
    except TypeError:
        raise OperatorError(
            f"cannot compare {type_name(left)} with {type_name(right)} using -{op}"
        ) from None
    raise OperatorError(f"unknown operator -{op}")


@functools.lru_cache(maxsize=256)
def _wildcard_regex(pattern: str, case: bool) -> re.Pattern[str]:
    return re.compile(wildcard_regex(pattern), 0 if case else re.IGNORECASE)


def wildcard_regex(pattern: str) -> str:
    """A PowerShell wildcard as a whole-string regex: ``*``, ``?``, ``[a-c]``, and a backtick
    that makes the next character literal (``'a*b' -like 'a`*b'``)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        close = pattern.find("]", i + 2) if ch == "[" else -1
        if ch == "`" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 1
        elif ch in "*?":
            out.append(".*" if ch == "*" else ".")
        elif close > 0:
            out.append("[" + pattern[i + 1 : close].replace("\\", "\\\\") + "]")
            i = close
        else:
            out.append(re.escape(ch))
        i += 1
    return "(?s:" + "".join(out) + r")\Z"


#: The characters that make a name a wildcard pattern.
WILDCARD = frozenset("*?[")


def has_wildcard(text: str) -> bool:
    """Is ``text`` a wildcard pattern (not one name)?"""
    return any(ch in WILDCARD for ch in text)


def wildcard_match(text: str, pattern: str, case: bool = False) -> bool:
    """PowerShell ``-like``: ``*``, ``?``, ``[abc]`` and backtick escapes, the whole string."""
    return _wildcard_regex(pattern, case).match(text) is not None


def arithmetic(op: str, left: Any, right: Any) -> Any:
    """``+ - * / %`` with string concatenation, array concatenation and repetition."""
    if isinstance(left, datetime) or isinstance(right, datetime):
        return _dates().date_arithmetic(op, left, right)
    if op == "*" and left is None:
        return None  # $null * 5 is $null
    if op == "+":
        if left is None and not isinstance(right, NUMBERS):
            return list(right) if isinstance(right, (list, tuple)) else right
        if isinstance(left, str):
            return left + to_string(right)
        if isinstance(left, (list, tuple)):
            return list(left) + (list(right) if isinstance(right, (list, tuple)) else [right])
        if isinstance(left, Mapping) and isinstance(right, Mapping):
            dup = [k for k in right if str(k).lower() in {str(x).lower() for x in left}]
            if dup:
                raise OperatorError(f"Item has already been added. Key in dictionary: '{dup[0]}'")
            return type(left)({**left, **right}) if isinstance(left, dict) else {**left, **right}
    if isinstance(left, Char):  # a [char] adds as text, and has no other arithmetic
        raise _undefined(op, left, right)
    if op == "*" and isinstance(left, (str, list, tuple)):
        count = int(to_number(right))
        if count * max(len(left), 1) > 100_000_000:
            raise OperatorError(f"repeating {len(left)} items {count} times is too large")
        return left * count if isinstance(left, str) else list(left) * count
    a, b = to_number(left), _operand(right, left)
    if isinstance(a, BigInteger) or isinstance(b, BigInteger):
        if isinstance(a, int) and isinstance(b, int):
            try:
                return big_arithmetic(op, a, b)
            except ZeroDivisionError:
                raise DivideByZero("Attempted to divide by zero.") from None
        a, b = float(a), float(b)  # beside a double (or decimal), a double
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        return _decimal_arithmetic(op, to_decimal(a), to_decimal(b))
    if isinstance(a, int) and isinstance(b, int) and not _is_duration(left, right):
        try:
            n = integers.arithmetic(op, a, b)
        except ZeroDivisionError:
            raise DivideByZero("Attempted to divide by zero.") from None
        own = getattr(left, "enum_type", None)  # the left enum's type: Monday + 1 is Tuesday
        if own is not None and isinstance(n, int):
            return type(left)(own, n)
        return _keep_unit(left, right, n) if isinstance(n, int) else n
    if op == "+":
        return _keep_unit(left, right, _fits_long(a + b))
    if op == "-":
        return _keep_unit(left, right, _fits_long(a - b))
    if op == "*":
        return _fits_long(a * b)
    if b == 0 and op in "/%":
        if isinstance(a, float) or isinstance(b, float):
            return _ieee_by_zero(op, float(a), float(b))  # a double's: no error (DoubleOps)
        raise DivideByZero("Attempted to divide by zero.")
    if op == "/":
        q = a / b
        return int(q) if isinstance(a, int) and isinstance(b, int) and a % b == 0 else q
    if op == "%":  # .NET remainder: the sign of the dividend
        r = math.fmod(a, b)
        return int(r) if isinstance(a, int) and isinstance(b, int) else r
    raise OperatorError(f"unknown operator {op}")


def _ieee_by_zero(op: str, a: float, zero: float) -> float:
    """``a / 0.0`` and ``a % 0.0`` as a double gives them: infinity of the quotient's sign
    (-0.0 counts as negative), or NaN."""
    if op == "%" or a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, zero)


def _is_duration(left: Any, right: Any) -> bool:
    """A duration among the operands: a TimeSpan's arithmetic, not an integer type's."""
    return isinstance(left, Duration) or isinstance(right, Duration)


def _operand(right: Any, left: Any) -> int | float | Decimal:
    """The right operand of arithmetic on a number, converted as PowerShell converts it to the
    left one's type: a [char] is its code (``1 + [char]65`` is 66), and a text that is no
    number is .NET's error for the left one's type."""
    if isinstance(right, Char):
        return ord(right)
    try:
        return to_number(right)
    except CastError:
        if not isinstance(right, str) or not isinstance(left, (int, float)):
            raise
        raise _not_a_number(
            right, "Double" if isinstance(left, float) else "Int32", False
        ) from None


def _undefined(op: str, left: Any, right: Any) -> OperatorError:
    """PowerShell's error for arithmetic that the operand types do not define."""
    from fayshell.lang.dotnet import full_type_name_of

    pair = f"[{full_type_name_of(left)}] {op} [{full_type_name_of(right)}]"
    return OperatorError(f"The operation '{pair}' is not defined.", errorids.NOT_DEFINED_OPERATION)


#: The largest [decimal]; beyond it .NET's decimal arithmetic fails.
DECIMAL_MAX = Decimal(2**96 - 1)


def to_decimal(value: Any) -> Decimal:
    """A number as [decimal]: a double keeps its 15 significant digits, as .NET converts it
    (``[decimal]0.1`` is 0.1, not the double's binary expansion); text keeps its digits
    (``[decimal]'1.10'`` is 1.10)."""
    if isinstance(value, str) and (exact := _decimal_text(value)) is not None:
        return exact
    n = to_number(value)
    if isinstance(n, float):
        if math.isnan(n) or math.isinf(n) or abs(n) > DECIMAL_MAX:
            raise CastError("Value was either too large or too small for a Decimal.")
        return Decimal(format(n, ".15g"))
    return Decimal(n)


_DECIMAL_OPS: dict[str, Callable[[Decimal, Decimal], Decimal]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,  # Decimal's % keeps the dividend's sign, as .NET's remainder
}


def _decimal_text(text: str) -> Decimal | None:
    """Plain decimal digits as a Decimal; None for hex, units, NaN and the like."""
    try:
        d = Decimal(text.strip().replace("_", "x"))  # (Decimal would read "1_0" as 10)
    except InvalidOperation:
        return None
    return d if d.is_finite() else None


def _decimal_arithmetic(op: str, a: Decimal, b: Decimal) -> Decimal:
    """``+ - * / %`` on [decimal] (either operand decimal makes both decimal, as in .NET): as
    many digits as .NET's decimal holds, the remainder with the dividend's sign."""
    if b == 0 and op in "/%":
        raise DivideByZero("Attempted to divide by zero.")
    try:
        with localcontext(prec=60):
            result = _DECIMAL_OPS[op](a, b)
    except InvalidOperation as exc:
        raise OperatorError(str(exc)) from None
    if abs(result) > DECIMAL_MAX:
        raise OperatorError("Value was either too large or too small for a Decimal.")
    return net_decimal(result)


#: A .NET decimal's mantissa is below this (96 bits); its scale is at most 28 places.
_MANTISSA_END = 2**96
_MOST_PLACES = 28


def net_decimal(x: Decimal) -> Decimal:
    """``x`` rounded (to even) to the most decimal places .NET's decimal can hold for it:
    ``[decimal]10/3`` is 3.3333333333333333333333333333 (29 digits), ``[decimal]1/3``
    0.3333333333333333333333333333 (28 places)."""
    places = -int(x.as_tuple().exponent)
    if places <= 0:
        return x
    with localcontext(prec=60):
        for keep in range(min(places, _MOST_PLACES), 0, -1):
            rounded = x.quantize(Decimal(1).scaleb(-keep), rounding=ROUND_HALF_EVEN)
            if abs(rounded.scaleb(keep)) < _MANTISSA_END:
                return rounded
        return x.quantize(Decimal(1), rounding=ROUND_HALF_EVEN)


def _fits_long(n: int | float) -> int | float:
    """A duration's result past Int64 becomes a double, as a [long]'s does (lang/integers
    types the other integers' results)."""
    if type(n) is int and not -(2**63) <= n < 2**63:
        return float(n)
    return n


def _keep_unit(left: Any, right: Any, result: int | float) -> Any:
    """Sum of two durations (or sizes) stays a duration (size)."""
    for unit in (Duration, Size):
        if isinstance(left, unit) and isinstance(right, (unit, int)) and isinstance(result, int):
            return type(left)(result)  # a TimeSpan stays one
    return result


def convert(value: Any, target: str) -> Any:
    """A cast ``[int]$x``; raises CastError when the value does not convert."""
    t = target.lower().strip()
    if t.startswith("system."):
        t = t[7:]
    if t.endswith("[]") and t not in ("object[]", "psobject[]"):
        items = value if isinstance(value, (list, tuple)) else ([] if value is None else [value])
        if t == "char[]" and isinstance(value, str):
            items = [Char(c) for c in value]
        converted = [convert(v, t[:-2]) for v in items]
        element = element_name(t[:-2])
        return converted if element is None else TypedArray(converted, element)
    simple = CONVERSIONS.get(t)
    if simple is not None:
        return simple(value)
    if t == "collections.arraylist":  # [System.Collections.ArrayList]@(...)
        from fayshell.lang.generic import ArrayList

        return ArrayList(convert(value, "array"))
    if t in (
        "array",
        "object[]",
        "psobject[]",
        "collections.generic.list[object]",
    ):
        return (
            list(value) if isinstance(value, (list, tuple)) else ([] if value is None else [value])
        )
    if t in ("hashtable", "ordered", "collections.hashtable"):
        if isinstance(value, Mapping):
            return OrderedDictionary(value) if t == "ordered" else Hashtable(value)
        raise CastError(f"cannot convert {type_name(value)} to {target}")
    if t in ("pscustomobject", "psobject", "object"):
        return (
            PSCustomObject({to_string(k): v for k, v in value.items()})  # names are text
            if isinstance(value, Mapping) and t == "pscustomobject"
            else value
        )
    if t == "exception" or t in EXCEPTION_BASES:  # [InvalidOperationException]'text': new(text)
        if isinstance(value, ExceptionValue):
            return value
        return ExceptionValue(to_string(value), "System." + target.strip().removeprefix("System."))
    raise UnknownType(f"unknown type [{target}]")


def _not_a_number(text: str, net: str, cast: bool = True) -> OperatorError:
    """.NET's error for a text that is no number of the type ``net`` (Int32, Double): a
    PSInvalidCastException for a cast, a RuntimeException for an operand of arithmetic."""
    kind = (
        "InvalidCastFromStringToDoubleOrSingle"
        if net in ("Double", "Single", "Decimal")
        else errorids.CAST_TO_INTEGER
    )
    made = CastError if cast else OperatorError
    return made(
        f'Cannot convert value "{text}" to type "System.{net}". '
        'Error: "Input string was not in a correct format."',
        kind,
    )


def _to_int(value: Any, net: str = "Int32") -> int:
    if isinstance(value, Char):
        return ord(value)
    try:
        n = to_number(value)
    except CastError:
        if not isinstance(value, str):
            raise
        raise _not_a_number(value, net) from None
    if isinstance(n, (float, Decimal)):  # to even, as .NET rounds
        if not math.isfinite(n):
            raise CastError(f"cannot convert {value} to an integer")
        return int(round(n))
    return int(n)


def int_limits(name: str) -> dict[str, int]:
    """``[uint16]::MaxValue`` and ``MinValue`` of an integer type (none for other types)."""
    kind = integers.NAMES.get(name)
    if kind is None:
        return {}
    return {"maxvalue": integers.make(kind, kind.hi), "minvalue": integers.make(kind, kind.lo)}


#: The .NET names of the element types a typed array (``[string[]]``) keeps.
ELEMENT_NAMES = {
    **{name: kind.net for name, kind in integers.NAMES.items()},
    "string": "String",
    "double": "Double",
    **dict.fromkeys(("float", "single"), "Single"),
    "decimal": "Decimal",
    **dict.fromkeys(("bool", "boolean"), "Boolean"),
    "char": "Char",
    "datetime": "DateTime",
    "timespan": "TimeSpan",
    "version": "Version",
}


def element_name(t: str) -> str | None:
    """The .NET name of an array's element type (``t``: lower case, no ``System.``), or None
    for a type whose arrays fayshell keeps as Object[]."""
    return ELEMENT_NAMES.get(t[7:] if t.startswith("system.") else t)


def _to_int_type(kind: integers.IntKind) -> Callable[[Any], int]:
    """``[int]$x`` and its kin: the number as that type, or .NET's error when it does not
    fit."""

    def cast(value: Any) -> int:
        n = _to_int(value, kind.net)
        if kind.signed and isinstance(value, str) and value.strip().lower().startswith("0x"):
            n = kind.wrap(n) if n >> kind.bits == 0 else n  # a bit pattern
        if not kind.holds(n):
            raise CastError(
                f'Cannot convert value "{to_string(value)}" to type "System.{kind.net}". '
                f'Error: "Value was either too large or too small for {kind.called}."',
                errorids.CAST_ICONVERTIBLE,
            )
        return integers.make(kind, n)

    return cast


def _to_float(value: Any, net: str) -> float:
    """``[double]$x`` (``[float]``: .NET's Single, named so in its error)."""
    try:
        return float(to_number(value))
    except CastError:
        if not isinstance(value, str):
            raise
        raise _not_a_number(value, net) from None


def _to_char(value: Any) -> str:
    if isinstance(value, str):
        if len(value) != 1:
            raise CastError(
                f'Cannot convert value "{value}" to type "System.Char". '
                'Error: "String must be exactly one character long."',
                "InvalidCastParseTargetInvocation",
            )
        return Char(value)
    code = _to_int(value)
    if not 0 <= code <= 0xFFFF:  # a .NET char is one UTF-16 unit
        raise CastError(
            f'Cannot convert value "{to_string(value)}" to type "System.Char". Error: "Value was '
            'either too large or too small for a character."',
            errorids.CAST_ICONVERTIBLE,
        )
    return Char(chr(code))


def _to_datetime(value: Any) -> Any:
    """``[datetime]x``: lang/dates parses PowerShell's date texts."""
    return _dates().to_datetime(value)


def _to_duration(value: Any) -> Duration:
    """``[duration]$x``: a duration, a TimeSpan's text, or seconds."""
    if isinstance(value, str) and ":" in value:
        return _dates().parse_timespan(value)
    n = to_number(value)
    return n if isinstance(n, Duration) else Duration.from_seconds(float(n))


def _to_timespan(value: Any) -> TimeSpan:
    """``[timespan]$x``: the same span as a .NET TimeSpan (read as 01:02:03)."""
    return TimeSpan(_to_duration(value))


def _to_guid(text: str) -> Guid:
    """``[guid]'0f8fad5b-...'``: .NET's error for text that is no GUID."""
    try:
        return Guid.parse(text)
    except ValueError:
        raise CastError(
            f'Cannot convert value "{text}" to type "System.Guid". Error: "Guid should contain '
            '32 digits with 4 dashes (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)."'
        ) from None


def _cast_error(convert: Callable[[Any], Any], value: Any) -> Any:
    """``convert(value)``, .NET's exception a conversion threw as PowerShell's cast error."""
    try:
        return convert(value)
    except NetException as exc:
        raise CastError(str(exc)) from None


def _net_cast(make: Callable[[Any], Any], full: str) -> Callable[[Any], Any]:
    """A cast whose .NET constructor throws: PowerShell's words around its message."""

    def cast(value: Any) -> Any:
        try:
            return make(value)
        except NetException as exc:
            raise CastError(
                f'Cannot convert value "{to_string(value)}" to type "{full}". Error: "{exc}"',
                errorids.CAST_ICONVERTIBLE,
            ) from None

    return cast


def _to_bool(value: Any) -> bool:
    return truthy(value)


def _versioned(parse: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A [version]/[semver] cast: a text that is not a version is a cast error."""

    def cast(value: Any) -> Any:
        try:
            return parse(value)
        except VersionError as exc:
            raise CastError(str(exc)) from None

    return cast


CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    **{name: _to_int_type(kind) for name, kind in integers.NAMES.items()},
    "double": lambda v: _to_float(v, "Double"),
    **dict.fromkeys(("float", "single"), lambda v: Single(_to_float(v, "Single"))),
    "decimal": to_decimal,
    **dict.fromkeys(BIG_TYPES, lambda v: _cast_error(to_bigint, v)),
    "string": lambda v: to_string(v),
    **dict.fromkeys(("bool", "boolean", "switch"), _to_bool),
    "char": _to_char,
    # fayshell's [DateTimeOffset] is a date in local or UTC time (fayshell.lang.dates)
    **dict.fromkeys(("datetime", "datetimeoffset"), _to_datetime),
    "duration": _to_duration,
    "timespan": _to_timespan,
    "regex": lambda v: v if isinstance(v, Regex) else Regex(to_string(v)),
    "guid": lambda v: v if isinstance(v, Guid) else _to_guid(to_string(v)),
    "scriptblock": lambda v: v,
    "void": lambda v: None,
    "type": lambda v: TypeName(to_string(v)),
    "uri": netaddr.to_uri,
    **dict.fromkeys(
        ("ipaddress", "net.ipaddress"), _net_cast(netaddr.to_ip, "System.Net.IPAddress")
    ),
    **dict.fromkeys(("xml", "xml.xmldocument"), _net_cast(xmldoc.to_xml, xmldoc.XML_DOCUMENT)),
    "version": _versioned(to_version),
    **dict.fromkeys(("semver", "management.automation.semanticversion"), _versioned(to_semver)),
}


def no_method(type_name: str, name: str, count: int, known: bool) -> OperatorError:
    """PowerShell's error for a method a value lacks, or lacks with this many arguments."""
    if known:
        return OperatorError(
            f'Cannot find an overload for "{name}" and the argument count: "{count}".'
        )
    return OperatorError(
        f"Method invocation failed because [{type_name}] does not contain a method named '{name}'.",
        errorids.METHOD_NOT_FOUND,
    )


def no_property_to_set(name: str) -> OperatorError:
    """PowerShell's error for setting a property the object does not have."""
    return OperatorError(
        f"The property '{name}' cannot be found on this object. Verify that the property "
        "exists and can be set."
    )


def method_failed(name: str, count: int, exc: BaseException) -> OperatorError:
    """PowerShell's error for a .NET method that threw (its MethodInvocationException); an
    argument missing or of no use to it (IndexError, TypeError) is its error for a call with
    no overload of that many arguments."""
    if isinstance(exc, (IndexError, TypeError)):
        return no_method("", name, count, True)
    inner = getattr(exc, "type_name", "System.Exception")
    text = f'Exception calling "{name}" with "{count}" argument(s): "{exc}"'
    return MethodFailed(text, inner, str(exc))


def string_method(value: str, name: str, args: list[Any]) -> Any:
    """The .NET string methods scripts use (``ToUpper()``, ``Split(',')``, ``PadLeft(5)`` ...)."""
    low = name.lower()
    text = [to_string(a) for a in args]
    method = STRING_METHODS.get((low, len(args))) or STRING_METHODS.get((low, -1))
    if method is None:
        known = any(key == low for key, _ in STRING_METHODS)
        raise no_method("System.String", name, len(args), known)
    try:
        return method(value, text, args)
    except (ValueError, IndexError, TypeError) as exc:
        raise method_failed(name, len(args), exc) from None


def _index_of_any(s: str, args: list[Any], last: bool) -> int:
    """``IndexOfAny([char[]]'xy'[, start])``: where the first (or last) of those characters
    is, -1 when none is."""
    chars = args[0] if isinstance(args[0], (list, tuple)) else list(to_string(args[0]))
    wanted = {to_string(c) for c in chars}
    start = int(to_number(args[1])) if len(args) > 1 else (len(s) - 1 if last else 0)
    spots = range(start, -1, -1) if last else range(start, len(s))
    return next((i for i in spots if 0 <= i < len(s) and s[i] in wanted), -1)


def _trim(chars: list[str]) -> str | None:
    return "".join(chars) if chars else None


def _substring(s: str, a: list[Any]) -> str:
    start = int(to_number(a[0]))
    if start < 0:
        raise ValueError("StartIndex cannot be less than zero. (Parameter 'startIndex')")
    if start > len(s):
        raise ValueError(
            "startIndex cannot be larger than length of string. (Parameter 'startIndex')"
        )
    if len(a) > 1:
        length = int(to_number(a[1]))
        if length < 0 or start + length > len(s):
            raise ValueError(
                "Index and length must refer to a location within the string. (Parameter 'length')"
            )
        return s[start : start + length]
    return s[start:]


def _split(s: str, t: list[str], a: list[Any]) -> list[str]:
    """.NET ``Split``: on each separator string (PowerShell 7 binds a string as one separator)."""
    options = {x.lower() for x in t if x.lower() in ("removeemptyentries", "trimentries", "none")}
    counts = [int(v) for v in a if isinstance(v, int) and not isinstance(v, bool)]
    if a and isinstance(a[0], (list, tuple)):  # a char[] or a string[]: each one a separator
        seps = [to_string(x) for x in a[0]]
    else:
        seps = [
            x
            for x, v in zip(t, a, strict=True)
            if x.lower() not in options and not (isinstance(v, int) and not isinstance(v, bool))
        ]
    pattern = "|".join(re.escape(x) for x in seps if x) or r"\s"
    parts = re.split(pattern, s, maxsplit=max(counts[0] - 1, 0) if counts else 0)
    if "trimentries" in options:
        parts = [p.strip() for p in parts]
    if "removeemptyentries" in options:
        parts = [p for p in parts if p]
    return parts


STRING_METHODS: dict[tuple[str, int], Callable[[str, list[str], list[Any]], Any]] = {
    ("toupper", 0): lambda s, t, a: s.upper(),
    ("tolower", 0): lambda s, t, a: s.lower(),
    ("toupperinvariant", 0): lambda s, t, a: s.upper(),
    ("tolowerinvariant", 0): lambda s, t, a: s.lower(),
    ("trim", -1): lambda s, t, a: s.strip(_trim(t)),
    ("trimstart", -1): lambda s, t, a: s.lstrip(_trim(t)),
    ("trimend", -1): lambda s, t, a: s.rstrip(_trim(t)),
    ("tostring", 0): lambda s, t, a: s,
    ("split", -1): _split,
    ("replace", 2): lambda s, t, a: s.replace(t[0], t[1]),
    ("replace", 3): lambda s, t, a: (  # Replace(old, new, StringComparison)
        re.sub(re.escape(t[0]), lambda _: t[1], s, flags=re.IGNORECASE)
        if "ignorecase" in t[2].lower()
        else s.replace(t[0], t[1])
    ),
    ("startswith", -1): lambda s, t, a: (
        s.lower().startswith(t[0].lower())
        if len(t) > 1 and "ignorecase" in t[1].lower()
        else s.startswith(t[0])
    ),
    ("endswith", -1): lambda s, t, a: (
        s.lower().endswith(t[0].lower())
        if len(t) > 1 and "ignorecase" in t[1].lower()
        else s.endswith(t[0])
    ),
    ("contains", -1): lambda s, t, a: (
        t[0].lower() in s.lower() if len(t) > 1 and "ignorecase" in t[1].lower() else t[0] in s
    ),
    ("substring", -1): lambda s, t, a: _substring(s, a),
    ("indexof", -1): lambda s, t, a: s.find(t[0], int(to_number(a[1])) if len(a) > 1 else 0),
    ("lastindexof", 1): lambda s, t, a: s.rfind(t[0]),
    ("lastindexof", 2): lambda s, t, a: s.rfind(t[0], 0, int(to_number(a[1])) + 1),
    ("indexofany", -1): lambda s, t, a: _index_of_any(s, a, False),
    ("lastindexofany", -1): lambda s, t, a: _index_of_any(s, a, True),
    ("padleft", -1): lambda s, t, a: s.rjust(int(to_number(a[0])), t[1] if len(t) > 1 else " "),
    ("padright", -1): lambda s, t, a: s.ljust(int(to_number(a[0])), t[1] if len(t) > 1 else " "),
    ("insert", 2): lambda s, t, a: s[: int(to_number(a[0]))] + t[1] + s[int(to_number(a[0])) :],
    ("remove", -1): lambda s, t, a: (
        s[: int(to_number(a[0]))]
        + (s[int(to_number(a[0])) + int(to_number(a[1])) :] if len(a) > 1 else "")
    ),
    ("equals", -1): lambda s, t, a: (
        s.lower() == t[0].lower() if len(t) > 1 and "ignorecase" in t[1].lower() else s == t[0]
    ),
    ("compareto", 1): lambda s, t, a: culture_compare(s, t[0]),
    ("tochararray", 0): lambda s, t, a: TypedArray((Char(c) for c in s), "Char"),
    ("getenumerator", 0): lambda s, t, a: list(s),
    ("isnormalized", 0): lambda s, t, a: True,
    ("normalize", 0): lambda s, t, a: s,
    ("gethashcode", 0): lambda s, t, a: hash(s) & 0x7FFFFFFF,
    ("chars", 1): lambda s, t, a: s[int(to_number(a[0]))],
    ("format", -1): lambda s, t, a: s,
}
