"""``[System.Linq.Enumerable]``'s methods that take no delegate (Sum, Max, Distinct, Take ...),
as scripts call them on arrays for speed or brevity. Those that take a predicate or selector
are refused with an error that says so (a script block is not a .NET delegate here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fayshell.lang.ops import OperatorError, arithmetic, compare, to_number
from fayshell.lang.streams import unroll
from fayshell.lang.values import NetException

TYPES = ("linq.enumerable",)

EMPTY = "Sequence contains no elements"


def _items(args: list[Any]) -> list[Any]:
    return list(unroll(args[0])) if args else []


def _sum(items: list[Any]) -> Any:
    total: Any = 0
    for item in items:
        total = arithmetic("+", total, item)
    return total


def _extreme(items: list[Any], op: str) -> Any:
    if not items:
        raise NetException(EMPTY, "System.InvalidOperationException")
    best = items[0]
    for item in items[1:]:
        if compare(op, item, best):
            best = item
    return best


def _average(items: list[Any]) -> float:
    if not items:
        raise NetException(EMPTY, "System.InvalidOperationException")
    return float(to_number(_sum(items))) / len(items)


def _distinct(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:  # .NET's default comparer: strings case-sensitively
        if not any(compare("ceq", item, seen) for seen in out):
            out.append(item)
    return out


def _end(items: list[Any], at: int) -> Any:
    if not items:
        raise NetException(EMPTY, "System.InvalidOperationException")
    return items[at]


def _count(args: list[Any]) -> int:
    return max(int(to_number(args[1])), 0) if len(args) > 1 else 0


#: Method name -> (argument count, what it does with the arguments).
METHODS: dict[str, tuple[int, Callable[[list[Any]], Any]]] = {
    "sum": (1, lambda a: _sum(_items(a))),
    "max": (1, lambda a: _extreme(_items(a), "gt")),
    "min": (1, lambda a: _extreme(_items(a), "lt")),
    "average": (1, lambda a: _average(_items(a))),
    "count": (1, lambda a: len(_items(a))),
    "distinct": (1, lambda a: _distinct(_items(a))),
    "reverse": (1, lambda a: _items(a)[::-1]),
    "first": (1, lambda a: _end(_items(a), 0)),
    "last": (1, lambda a: _end(_items(a), -1)),
    "any": (1, lambda a: bool(_items(a))),
    "toarray": (1, _items),
    "tolist": (1, _items),
    "take": (2, lambda a: _items(a)[: _count(a)]),
    "skip": (2, lambda a: _items(a)[_count(a) :]),
    "contains": (2, lambda a: any(compare("ceq", v, a[1]) for v in _items(a))),
    "range": (2, lambda a: list(range(int(to_number(a[0])), int(to_number(a[0])) + _count(a)))),
    "repeat": (2, lambda a: [a[0]] * _count(a)),
}


#: The methods that need a delegate: refused, with what to use instead.
DELEGATES = ("where", "select", "selectmany", "orderby", "orderbydescending", "groupby", "all")


def static(name: str, args: list[Any]) -> Any:
    """``[Linq.Enumerable]::Sum($a)`` ...; NotImplemented for a method it does not have."""
    known = METHODS.get(name.lower())
    if known is None and name.lower() not in DELEGATES:
        return NotImplemented
    count, run = known or (-1, _items)
    if len(args) != count:
        raise OperatorError(
            f'Cannot find an overload for "{name}" and the argument count: "{len(args)}" '
            "(fayshell's [Linq.Enumerable] takes no predicate or selector; use Where-Object, "
            "ForEach-Object or .Where({ }))"
        )
    return run(args)
