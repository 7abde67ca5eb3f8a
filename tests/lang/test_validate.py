"""fayshell.lang.validate: each [Validate...] attribute's check, on its own."""

from __future__ import annotations

import pytest

from fayshell.lang.validate import problem, script_failed


@pytest.mark.parametrize(
    "attr, args, value",
    [
        ("validateset", ["a", "b"], "B"),  # case-insensitive, as PowerShell's default
        ("validateset", ["a", "b"], ["a", "b"]),  # every item of an array
        ("validaterange", [1, 10], 10),
        ("validaterange", [1, 10], [1, 2]),
        ("validaterange", ["NonNegative"], 0),
        ("validatepattern", ["^web\\d+$"], "WEB12"),
        ("validatelength", [1, 3], "abc"),
        ("validatecount", [1, 2], [1, 2]),
        ("validatenotnull", [], ""),
        ("validatenotnullorempty", [], "x"),
        ("validatedrive", ["C"], "anything"),  # not one fayshell checks: passes
    ],
)
def test_values_that_pass(attr, args, value) -> None:
    assert problem(attr, args, value) is None


@pytest.mark.parametrize(
    "attr, args, value, words",
    [
        (
            "validateset",
            ["a", "b"],
            ["a", "c"],
            'The argument "c" does not belong to the set "a,b"',
        ),
        ("validaterange", [1, 10], 0, "less than the minimum allowed range of 1. Supply"),
        ("validaterange", [1, 10], [5, 11], "The 11 argument is greater than the maximum"),
        ("validaterange", ["Negative"], 0, "its value is not less than zero."),
        ("validatepattern", ["^a"], "ba", 'does not match the "^a" pattern. Supply an argument'),
        ("validatelength", [2, 3], "a", "The character length (1) of the argument is too short"),
        ("validatelength", [1, 3], "abcd", "The character length of the 4 argument is too long"),
        ("validatecount", [2, 3], 7, "at least 2 value(s) and no more than 3 value(s) - 1"),
        ("validatenotnull", [], None, "The argument is null. Provide a valid value"),
        ("validatenotnullorempty", [], [], "The argument is null or empty."),
    ],
)
def test_values_that_fail_say_why(attr, args, value, words) -> None:
    said = problem(attr, args, value)
    assert said is not None and words in said and said.endswith(".")


def test_script_failure_names_the_script_and_the_value() -> None:
    assert script_failed("$_ -gt 0", -1).startswith(
        'The "$_ -gt 0" validation script for the argument with value "-1" did not return'
    )
