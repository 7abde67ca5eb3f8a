"""[bigint] (System.Numerics.BigInteger): the type on its own against Python's integers, and in
a shell (casts, the ``n`` literal suffix, operators, static methods, errors)."""

from __future__ import annotations

import itertools

import pytest

from fayshell.errors import FayError
from fayshell.lang import netnumerics as nn

BIG = 123456789012345678901234567890


@pytest.mark.parametrize(
    ("a", "b"), list(itertools.product([BIG, -BIG, 7, -7], [3, -3, BIG, 10**40]))
)
def test_division_truncates_and_remainder_keeps_the_dividends_sign(a: int, b: int) -> None:
    q, r = nn.arithmetic("/", nn.BigInteger(a), b), nn.arithmetic("%", nn.BigInteger(a), b)
    assert isinstance(q, nn.BigInteger) and isinstance(r, nn.BigInteger)
    assert q * b + r == a and abs(r) < abs(b)  # .NET's identity for truncated division
    assert r == 0 or (r < 0) == (a < 0)


def test_conversions_parse_and_statics() -> None:
    assert nn.to_bigint(2.9) == 2 and nn.to_bigint(-2.9) == -2  # truncated toward zero
    assert nn.to_bigint(" 0x1F ") == 31 and nn.parse("1,000") == 1000
    assert str(nn.BigInteger(BIG)) == str(BIG) and repr(nn.BigInteger(-5)) == "-5"
    assert nn.static("Pow", [2, 100]) == 2**100
    assert nn.static("ModPow", [3, 200, 1000]) == pow(3, 200, 1000)
    assert nn.static("GreatestCommonDivisor", [BIG, 10]) == 10
    assert nn.static("One", None) == 1 and nn.static("One", []) is NotImplemented
    with pytest.raises(nn.BigIntegerError, match="could not be parsed"):
        nn.parse("12x")
    with pytest.raises(ZeroDivisionError):
        nn.arithmetic("%", nn.BigInteger(1), 0)


async def test_bigint_in_a_shell_stays_exact(shell) -> None:
    out = await shell.run(
        "$b = [bigint]'123456789012345678901234567890'; $b * 2; ($b * 2).GetType().FullName; "
        "12345678901234567890n + 1; (5n).GetType().Name; [bigint]7 / 2; [bigint]-7 % 3; "
        "$b -is [bigint]; 5 -is [bigint]; [bigint]2 + 0.5; [bigint]::Pow(2, 64); "
        "'{0:N0}' -f [bigint]::Pow(10, 20); [bigint]::Parse('42') -eq 42"
    )
    assert out == [
        BIG * 2,
        "System.Numerics.BigInteger",
        12345678901234567891,
        "BigInteger",
        3,
        -1,
        True,
        False,
        2.5,
        2**64,
        "100,000,000,000,000,000,000",
        True,
    ]
    (long_sum,) = await shell.run("[long]::MaxValue + 1")  # other integers still widen
    assert isinstance(long_sum, float)


async def test_bigint_errors_are_dotnets(shell) -> None:
    out = await shell.run(
        "try { [bigint]'x' } catch { $_.Exception.Message }; "
        "try { [bigint]::Parse('zz') } catch [FormatException] { 'format: ' + $_.Exception.Message }"
    )
    assert out == [
        'Cannot convert value "x" to type "System.Numerics.BigInteger". '
        'Error: "The value could not be parsed."',
        'format: Exception calling "Parse" with "1" argument(s): "The value could not be parsed."',
    ]
    with pytest.raises(FayError, match="Attempted to divide by zero"):
        await shell.run("[bigint]1 / 0")
