"""A function parameter's ``[Validate...]`` attributes: why a bound value fails one, in
PowerShell's words (they follow "Cannot validate argument on parameter 'Name'.").

``[ValidateScript({...})]`` runs a script block, so the evaluator checks it; every other
attribute is a pure function of its arguments and the value, here.
"""

from __future__ import annotations

from typing import Any

from fayshell.lang.dotnet import regex
from fayshell.lang.ops import compare, to_number, to_string
from fayshell.lang.streams import unroll

#: ValidateRange's named ranges (PowerShell 6+): the comparison with zero, and its words.
RANGE_KINDS = {
    "positive": ("gt", "greater than zero"),
    "negative": ("lt", "less than zero"),
    "nonnegative": ("ge", "greater than or equal to zero"),
    "nonpositive": ("le", "less than or equal to zero"),
}
AGAIN = "and then try the command again."


def problem(attr: str, args: list[Any], value: Any) -> str | None:
    """Why ``value`` fails ``[attr(args)]`` (``attr`` lower-case), or None when it passes."""
    check = CHECKS.get(attr)
    return None if check is None else check(args, value)


def _not_null(args: list[Any], value: Any) -> str | None:
    if value is not None:
        return None
    return f"The argument is null. Provide a valid value for the argument, {AGAIN}"


def _not_null_or_empty(args: list[Any], value: Any) -> str | None:
    if not (value is None or value == "" or (isinstance(value, list) and not value)):
        return None
    return f"The argument is null or empty. Provide an argument that is not null or empty, {AGAIN}"


def _in_set(args: list[Any], value: Any) -> str | None:
    allowed = [to_string(a) for a in unroll(args)]
    for v in unroll(value):
        if not any(to_string(v).lower() == a.lower() for a in allowed):
            return (
                f'The argument "{to_string(v)}" does not belong to the set "{",".join(allowed)}" '
                f"specified by the ValidateSet attribute. Supply an argument that is in the set "
                f"{AGAIN}"
            )
    return None


def _pattern(args: list[Any], value: Any) -> str | None:
    pattern = to_string(args[0]) if args else ""
    for v in unroll(value):
        if not regex(pattern, False).search(to_string(v)):
            return (
                f'The argument "{to_string(v)}" does not match the "{pattern}" pattern. Supply an '
                f'argument that matches "{pattern}" and try the command again.'
            )
    return None


def _range(args: list[Any], value: Any) -> str | None:
    return next((p for v in unroll(value) if (p := _out_of_range(args, v)) is not None), None)


def _out_of_range(args: list[Any], value: Any) -> str | None:
    kind = to_string(args[0]).lower() if len(args) == 1 else ""
    if kind in RANGE_KINDS:
        op, words = RANGE_KINDS[kind]
        if compare(op, value, 0):
            return None
        return (
            f'The argument "{to_string(value)}" cannot be validated because its value is not '
            f"{words}."
        )
    if len(args) != 2:
        return None
    low, high = (to_string(a) for a in args)
    if compare("lt", value, args[0]):
        return (
            f"The {to_string(value)} argument is less than the minimum allowed range of {low}. "
            f"Supply an argument that is greater than or equal to {low} {AGAIN}"
        )
    if compare("gt", value, args[1]):
        return (
            f"The {to_string(value)} argument is greater than the maximum allowed range of "
            f"{high}. Supply an argument that is less than or equal to {high} {AGAIN}"
        )
    return None


def _length(args: list[Any], value: Any) -> str | None:
    if len(args) != 2:
        return None
    low, high = int(to_number(args[0])), int(to_number(args[1]))
    for v in unroll(value):
        n = len(to_string(v))
        if n < low:
            return (
                f"The character length ({n}) of the argument is too short. Specify an argument "
                f'with a length that is greater than or equal to "{low}", {AGAIN}'
            )
        if n > high:
            return (
                f"The character length of the {n} argument is too long. Shorten the character "
                f'length of the argument so it is fewer than or equal to "{high}" characters, '
                f"{AGAIN}"
            )
    return None


def _count(args: list[Any], value: Any) -> str | None:
    if len(args) != 2:
        return None
    low, high, n = int(to_number(args[0])), int(to_number(args[1])), len(unroll(value))
    if low <= n <= high:
        return None
    return (
        f"The parameter requires at least {low} value(s) and no more than {high} value(s) - "
        f"{n} value(s) were provided."
    )


def script_failed(text: str, value: Any) -> str:
    """``[ValidateScript({ text })]`` did not return True for ``value``."""
    return (
        f'The "{text}" validation script for the argument with value "{to_string(value)}" did '
        f"not return a result of True. Determine why the validation script failed, {AGAIN}"
    )


CHECKS = {
    "validatenotnull": _not_null,
    "validatenotnullorempty": _not_null_or_empty,
    "validateset": _in_set,
    "validatepattern": _pattern,
    "validaterange": _range,
    "validatelength": _length,
    "validatecount": _count,
}
