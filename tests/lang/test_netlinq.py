"""[System.Linq.Enumerable]'s delegate-free methods: directly, and from a script."""

from __future__ import annotations

import pytest

from fayshell.errors import RuntimeFayError
from fayshell.lang import netlinq
from fayshell.lang.ops import OperatorError
from fayshell.lang.values import NetException


@pytest.mark.parametrize(
    "name, args, expected",
    [
        ("Sum", [[1, 2, 3]], 6),
        ("Sum", [[1.5, 2]], 3.5),
        ("Max", [[3, 9, 2]], 9),
        ("Min", [["b", "a"]], "a"),
        ("Average", [[1, 2]], 1.5),
        ("Count", [[1, 2]], 2),
        ("Distinct", [["a", "A", "a"]], ["a", "A"]),
        ("Reverse", [[1, 2, 3]], [3, 2, 1]),
        ("First", [[4, 5]], 4),
        ("Last", [[4, 5]], 5),
        ("Take", [[1, 2, 3], 2], [1, 2]),
        ("Skip", [[1, 2, 3], 2], [3]),
        ("Contains", [["a", "b"], "b"], True),
        ("Contains", [["a", "b"], "B"], False),
        ("Range", [5, 3], [5, 6, 7]),
        ("Repeat", ["x", 2], ["x", "x"]),
        ("Any", [[]], False),
    ],
)
def test_methods_answer_as_dotnets(name: str, args: list[object], expected: object) -> None:
    assert netlinq.static(name, args) == expected


def test_empty_sequences_delegates_and_unknown_methods() -> None:
    with pytest.raises(NetException, match="Sequence contains no elements"):
        netlinq.static("Max", [[]])
    with pytest.raises(OperatorError, match="takes no predicate"):
        netlinq.static("Where", [[1], None])
    assert netlinq.static("Aggregate", [[1]]) is NotImplemented


async def test_scripts_call_linq(shell) -> None:
    out = await shell.run(
        "[System.Linq.Enumerable]::Sum([int[]](1, 2, 3)); "
        "[Linq.Enumerable]::Take(@(1, 2, 3), 2) -join ','; "
        "try { [Linq.Enumerable]::Max(@()) } catch [InvalidOperationException] { 'empty' }"
    )
    assert out == [6, "1,2", "empty"]
    with pytest.raises(RuntimeFayError, match="takes no predicate"):
        await shell.run("[Linq.Enumerable]::Where(@(1), { $_ })")
