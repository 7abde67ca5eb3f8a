"""PowerShell's integer types (fayshell/lang/integers.py): the module alone (kinds, the
operation type of each pair, overflow to a double, bit widths), then in a real shell: literals'
suffixes, casts, GetType(), -is, the operators, and what keeps the type (Format-Hex,
Export-/Import-Clixml, a file's Length)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from fayshell.errors import ParseError, RuntimeFayError
from fayshell.lang import integers as ints
from fayshell.lang.integers import INT32, INT64, UINT32, UINT64, Byte, Int64, UInt32, UInt64
from tests.fixtures.shell import Shell


def test_a_plain_int_is_int32_until_it_does_not_fit() -> None:
    assert ints.kind_of(5) is INT32 and ints.kind_of(-(2**31)) is INT32
    assert ints.kind_of(2**31) is INT64 and ints.kind_of(2**63) is UINT64
    assert ints.kind_of(Byte(5)).net == "Byte" and ints.kind_of(Int64(5)) is INT64
    assert type(ints.make(INT32, 7)) is int and type(ints.make(UINT32, 7)) is UInt32
    assert str(Int64(-3)) == "-3" and repr(UInt64(3)) == "3"


@pytest.mark.parametrize(
    ("a", "b", "result", "kind"),
    [
        (Byte(200), Byte(100), 300, "Int32"),  # narrower types widen to Int32
        (2**31 - 1, 1, 2147483648.0, "Double"),  # Int32 overflow: a double (IntOps)
        (Int64(5), 1, 6, "Int64"),
        (UInt32(5), 1, 6, "UInt32"),
        (UInt32(5), -1, 4, "Int64"),  # a negative signed operand: done in Int64
        (UInt64(5), -1, Decimal(4), "Decimal"),  # ... or in Decimal beside a UInt64
        (UInt64(2**64 - 1), 1, float(2**64), "Double"),
        (Int64(2**63 - 1), 2, float(2**63 + 1), "Double"),
    ],
)
def test_addition_is_done_in_the_wider_type(a: int, b: int, result: object, kind: str) -> None:
    got = ints.arithmetic("+", a, b)
    assert got == result
    assert _net(got) == kind


def _net(value: object) -> str:
    """The .NET type name of an arithmetic result."""
    if isinstance(value, float):
        return "Double"
    if isinstance(value, Decimal):
        return "Decimal"
    assert isinstance(value, int)
    return ints.kind_of(value).net


def test_division_and_remainder_as_dotnet_does() -> None:
    assert type(ints.arithmetic("/", Int64(6), 2)) is Int64
    assert ints.arithmetic("/", 7, 2) == 3.5
    assert ints.arithmetic("/", -(2**31), -1) == 2147483648.0  # Int32.MinValue / -1
    assert ints.arithmetic("%", -7, 3) == -1 and ints.arithmetic("%", 7, -3) == 1
    assert ints.arithmetic("%", -(2**31), -1) == 0
    with pytest.raises(ZeroDivisionError):
        ints.arithmetic("%", 1, 0)
    assert ints.arithmetic("-", UInt32(5), UInt32(7)) == -2.0  # UIntOps.Sub: a double


def test_bitwise_operators_work_in_the_types_bits() -> None:
    assert ints.bitwise("shl", 1, 31) == -(2**31)  # Int32 wraps
    assert ints.bitwise("shl", 1, 33) == 2  # the count modulo 32
    assert ints.bitwise("shl", Int64(1), 40) == 2**40
    assert ints.bitwise("shr", -21, 2) == -6 and ints.bitwise("shr", 21, 65) == 10
    assert ints.bitwise("bor", UInt32(1), -2) == 2**32 - 1  # -2's bits read as a UInt32
    assert ints.bnot(10) == -11 and ints.bnot(UInt32(5)) == 2**32 - 6
    assert ints.bnot(Byte(5)) == -6  # a byte widens to Int32 first
    assert ints.negate(UInt32(5)) == -5 and type(ints.negate(UInt32(5))) is Int64


def test_is_kind_is_exact() -> None:
    assert ints.is_kind(5, INT32) and not ints.is_kind(5, INT64)
    assert ints.is_kind(2**40, INT64) and ints.is_kind(Int64(5), INT64)
    assert not ints.is_kind(Byte(5), INT32) and not ints.is_kind(True, INT32)


async def test_literal_suffixes_and_casts_name_their_types(shell: Shell) -> None:
    out = await shell.run(
        "100L.GetType().Name; 0x10L.GetType().Name; 5u.GetType().Name; "
        "5000000000u.GetType().Name; 3uy.GetType().Name; 0xFFy; 1.5L; "
        "([long]5).GetType().Name; ([int16]5).GetType().Name; ([byte[]](1,2))[0].GetType().Name; "
        "[uint32]::MaxValue.GetType().Name; [sbyte]'0xFF'"
    )
    assert out == [
        "Int64",
        "Int64",
        "UInt32",
        "UInt64",
        "Byte",
        -1,
        2,
        "Int64",
        "Int16",
        "Byte",
        "UInt32",
        -1,
    ]
    with pytest.raises(ParseError, match=r"numeric constant 300uy is not valid"):
        await shell.run("300uy")


async def test_operators_keep_powershells_types(shell: Shell) -> None:
    out = await shell.run(
        "([long]5 + 1).GetType().Name; ([byte]5 + 1).GetType().Name; "
        "([int]::MaxValue + 1).GetType().Name; (512MB * 512MB).GetType().Name; "
        "([int32]::MinValue + [uint32]::MaxValue).GetType().FullName; "
        "9223372036854775807ul + 2; 1 -shl 31; 1 -shl 40; [long]1 -shl 40; "
        "0x0F0F -band 14.6; (-bnot [uint32]5).GetType().Name; '{0:X}' -f [long]-1"
    )
    assert out == [
        "Int64",
        "Int32",
        "Double",
        "Double",
        "System.Int64",
        9223372036854775809,
        -2147483648,
        256,
        1099511627776,
        15,
        "UInt32",
        "FFFFFFFFFFFFFFFF",
    ]


async def test_is_names_the_exact_integer_type(shell: Shell) -> None:
    out = await shell.run(
        "[long]5 -is [long]; 5 -is [long]; 5 -is [int]; [byte]5 -is [int]; [byte]5 -is [byte]; "
        "1kb -is [int]; 2s -is [int]; [long]$v = 1; $v++; $v -is [long]"
    )
    assert out == [True, False, True, False, True, True, False, True]


async def test_types_survive_clixml_and_format_hex(shell: Shell, tmp_path: Path) -> None:
    xml = tmp_path / "n.xml"
    out = await shell.run(
        f"[long]5, 7, [byte]3, [uint16]9 | Export-Clixml '{xml}'; "
        f"Import-Clixml '{xml}' | ForEach-Object {{ $_.GetType().Name }}; "
        "([int16]258 | Format-Hex).HexBytes"
    )
    assert out == ["Int64", "Int32", "Byte", "UInt16", "02 01"]
    assert "<I64>5</I64>" in xml.read_text() and "<U16>9</U16>" in xml.read_text()


async def test_a_files_length_is_a_long(shell: Shell, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("abc")
    out = await shell.run(f"(Get-Item '{tmp_path / 'f.txt'}').Length.GetType().Name")
    assert out == ["Int64"]


async def test_a_double_divided_by_zero_is_infinite_not_an_error(shell: Shell) -> None:
    """DoubleOps.Divide: 1/0.0 is infinity (it was "Attempted to divide by zero."); an
    integer division by zero is still that error."""
    out = await shell.run("1/0.0; -1/0.0; 1/-0.0; [double]::IsNaN(0/0.0); [double]::IsNaN(5 % 0.0)")
    assert out == [float("inf"), float("-inf"), float("-inf"), True, True]
    with pytest.raises(RuntimeFayError, match="Attempted to divide by zero"):
        await shell.run("1/0")


async def test_arithmetic_on_an_enum_keeps_its_type(shell: Shell) -> None:
    """about_Arithmetic_Operators: $blue + 3 is Red. [DayOfWeek] and [ConsoleColor] are
    types (a cast, -is, statics): [DayOfWeek]5 was "unknown type", Monday + 1 was 2."""
    out = await shell.run(
        "[ConsoleColor]::Blue + 3; [ConsoleColor]::Red - 3; [DayOfWeek]::Monday + 1; "
        "[DayOfWeek]5; (Get-Date '2024-03-05').DayOfWeek -is [DayOfWeek]; "
        "enum E { A = 1; B = 2 }; ([E]::A + 1).GetType().Name; [E]::A + 1"
    )
    assert [str(v) for v in out] == ["Red", "Blue", "Tuesday", "Friday", "True", "E", "B"]


async def test_integer_parameters_check_their_range_and_keep_their_type(shell: Shell) -> None:
    """function f([int]$x) took 5000000000 without a word; [long]$x was an Int32."""
    out = await shell.run(
        "function l([long]$x) { $x.GetType().Name }; l 5; "
        "function f([int]$x) { $x }; f 2.5; f '0x10'"
    )
    assert out == ["Int64", 2, 16]
    defaults = await shell.run(
        "class C { [long]$n; [float]$f; [uint16]$u }; $c = [C]::new(); "
        "$c.n.GetType().Name; $c.f.GetType().Name; $c.u.GetType().Name"
    )
    assert defaults == ["Int64", "Single", "UInt16"]  # .NET's default of each type
    with pytest.raises(RuntimeFayError, match='"5000000000" to type "System.Int32"'):
        await shell.run("f 5000000000")


async def test_parse_of_every_number_type(shell: Shell) -> None:
    """[long]::Parse, [byte]::Parse, [decimal]::Parse and [float]::Parse were 'no static
    member'; [int]::Parse gave an Int32 but took what .NET refuses."""
    out = await shell.run(
        "[long]::Parse(' -9000000000 ').GetType().Name; [byte]::Parse('7').GetType().Name; "
        "[decimal]::Parse('1,000.50'); [float]::Parse('3.14159265').GetType().Name"
    )
    assert [str(v) for v in out] == ["Int64", "Byte", "1000.50", "Single"]
    with pytest.raises(RuntimeFayError, match="too large or too small for an unsigned byte"):
        await shell.run("[byte]::Parse('300')")
    with pytest.raises(RuntimeFayError, match="The input string '2.5' was not in a correct"):
        await shell.run("[int]::Parse('2.5')")
