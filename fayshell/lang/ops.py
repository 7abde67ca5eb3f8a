"""Operator semantics, the PowerShell way: case-insensitive strings, the right side converted to
the left side's type, comparison operators filtering arrays, wildcard ``-like``, regex ``-match``."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from types import ModuleType
from typing import Any

from fayshell.lang.values import Duration, Size, parse_unit_number


def _dates() -> ModuleType:
    """fayshell.lang.dates, imported when a date first meets an operator (it imports this
    module's neighbours, not this module)."""
    import fayshell.lang.dates as dates

    return dates


class OperatorError(Exception):
    """An operator cannot apply to its operands; the evaluator adds the location."""


FILTERING = {"eq", "ne", "gt", "ge", "lt", "le", "like", "notlike", "match", "notmatch"}


def truthy(value: Any) -> bool:
    """PowerShell truthiness: empty string, 0, $null and empty arrays are false."""
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


def to_number(value: Any) -> int | float:
    """Convert to int or float; raises OperatorError when that is not possible."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip()
        unit = parse_unit_number(text)
        if unit is not None:
            return unit
        try:
            return int(text, 0) if text.lower().startswith("0x") else int(text)
        except ValueError:
            pass
        try:
            return float(text)
        except ValueError:
            raise OperatorError(f"cannot convert {value!r} to a number") from None
    if value is None:
        return 0
    raise OperatorError(f"cannot convert {type_name(value)} to a number")


def to_string(value: Any) -> str:
    """How a value reads inside a string: $null is empty, arrays are space-joined."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (list, tuple)):
        return " ".join(to_string(v) for v in value)
    if isinstance(value, datetime):  # "$date" is the invariant culture's text, as in PowerShell
        return _dates().invariant_text(value)
    return str(value)


def type_name(value: Any) -> str:
    if value is None:
        return "$null"
    return {bool: "bool", int: "int", float: "double", str: "string", list: "array",
            dict: "hashtable"}.get(type(value), type(value).__name__)


def coerce_like(left: Any, right: Any) -> Any:
    """Convert ``right`` to the type of ``left`` (PowerShell's rule for comparisons)."""
    if isinstance(left, bool):
        return truthy(right)
    if isinstance(left, (int, float)) and isinstance(right, str):
        try:
            return to_number(right)
        except OperatorError:
            return right
    if isinstance(left, datetime) and isinstance(right, str):
        return _dates().to_datetime(right)
    if isinstance(left, str) and not isinstance(right, str) and right is not None:
        return to_string(right)
    return right


def _cmp_key(value: Any, case: bool) -> Any:
    return value if case or not isinstance(value, str) else value.casefold()


def compare(op: str, left: Any, right: Any) -> Any:
    """Apply a comparison operator (``eq``, ``clike``, ``in``, ...) to two values."""
    case = False
    base = op
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
            found = re.search(to_string(right), to_string(left), 0 if case else re.IGNORECASE)
        except re.error as exc:
            raise OperatorError(f"invalid regular expression {right!r}: {exc}") from None
        return bool(found) if op == "match" else not found
    if left is None or right is None:
        if op == "eq":
            return left is None and right is None
        if op == "ne":
            return not (left is None and right is None)
        return _order(op, left, right)
    right = coerce_like(left, right)
    lk, rk = _cmp_key(left, case), _cmp_key(right, case)
    if op == "eq":
        return bool(lk == rk)
    if op == "ne":
        return bool(lk != rk)
    return _order(op, lk, rk)


def _order(op: str, left: Any, right: Any) -> bool:
    if left is None:
        left, right = (0 if isinstance(right, (int, float)) else ""), right
    if right is None:
        right = 0 if isinstance(left, (int, float)) else ""
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
            f"cannot compare {type_name(left)} with {type_name(right)} using -{op}") from None
    raise OperatorError(f"unknown operator -{op}")


@functools.lru_cache(maxsize=256)
def _wildcard_regex(pattern: str, case: bool) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(pattern), 0 if case else re.IGNORECASE)


def wildcard_match(text: str, pattern: str, case: bool = False) -> bool:
    """PowerShell ``-like``: ``*``, ``?`` and ``[abc]`` over the whole string."""
    return _wildcard_regex(pattern, case).match(text) is not None


def arithmetic(op: str, left: Any, right: Any) -> Any:
    """``+ - * / %`` with string concatenation, array concatenation and repetition."""
    if isinstance(left, datetime) or isinstance(right, datetime):
        return _dates().date_arithmetic(op, left, right)
    if op == "+":
        if isinstance(left, str):
            return left + to_string(right)
        if isinstance(left, (list, tuple)):
            return list(left) + (list(right) if isinstance(right, (list, tuple)) else [right])
        if isinstance(left, Mapping) and isinstance(right, Mapping):
            return {**left, **right}
    if op == "*":
        if isinstance(left, str):
            return left * int(to_number(right))
        if isinstance(left, (list, tuple)):
            return list(left) * int(to_number(right))
    a, b = to_number(left), to_number(right)
    if op == "+":
        return _keep_unit(left, right, a + b)
    if op == "-":
        return _keep_unit(left, right, a - b)
    if op == "*":
        return a * b
    if b == 0 and op in "/%":
        raise OperatorError("attempted to divide by zero")
    if op == "/":
        q = a / b
        return int(q) if isinstance(a, int) and isinstance(b, int) and a % b == 0 else q
    if op == "%":
        return a % b
    raise OperatorError(f"unknown operator {op}")


def _keep_unit(left: Any, right: Any, result: int | float) -> Any:
    """Sum of two durations (or sizes) stays a duration (size)."""
    for unit in (Duration, Size):
        if isinstance(left, unit) and isinstance(right, (unit, int)) and isinstance(result, int):
            return unit(result)
    return result


def convert(value: Any, target: str) -> Any:
    """A cast ``[int]$x``; raises OperatorError when the value does not convert."""
    t = target.lower()
    if t in ("int", "long", "int32", "int64"):
        n = to_number(value)
        return int(round(n)) if isinstance(n, float) else int(n)
    if t in ("double", "float", "decimal", "single"):
        return float(to_number(value))
    if t == "string":
        return to_string(value)
    if t in ("bool", "boolean", "switch"):
        return truthy(value)
    if t in ("array", "object[]", "string[]", "int[]"):
        items = value if isinstance(value, list) else ([] if value is None else [value])
        inner = t[:-2] if t.endswith("[]") and t != "object[]" else None
        return [convert(v, inner) for v in items] if inner else list(items)
    if t in ("hashtable", "ordered", "pscustomobject"):
        if isinstance(value, Mapping):
            return dict(value)
        raise OperatorError(f"cannot convert {type_name(value)} to {target}")
    if t in ("duration", "timespan"):
        if isinstance(value, str) and ":" in value:
            return _dates().parse_timespan(value)
        n = to_number(value)
        return n if isinstance(n, Duration) else Duration(int(n * 1e9))
    if t == "datetime":
        return _dates().to_datetime(value)
    if t in ("object", "psobject"):
        return value
    raise OperatorError(f"unknown type [{target}]")


def string_method(value: str, name: str, args: list[Any]) -> Any:
    """The few .NET string methods scripts use (``ToUpper()``, ``Split(',')``, ...)."""
    low = name.lower()
    simple: dict[str, Callable[[str], str]] = {"toupper": str.upper, "tolower": str.lower, "trim": str.strip,
              "trimstart": str.lstrip, "trimend": str.rstrip, "tostring": str}
    if low in simple and not args:
        return simple[low](value)
    if low == "split":
        return value.split(to_string(args[0])) if args else value.split()
    if low == "replace" and len(args) == 2:
        return value.replace(to_string(args[0]), to_string(args[1]))
    if low in ("startswith", "endswith", "contains") and len(args) == 1:
        arg = to_string(args[0])
        return {"startswith": value.startswith, "endswith": value.endswith,
                "contains": value.__contains__}[low](arg)
    if low == "substring" and args:
        start = int(to_number(args[0]))
        return value[start:start + int(to_number(args[1]))] if len(args) > 1 else value[start:]
    if low == "indexof" and len(args) == 1:
        return value.find(to_string(args[0]))
    raise OperatorError(f"string has no method {name}({len(args)} arguments)")
