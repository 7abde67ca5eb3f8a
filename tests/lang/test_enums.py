"""Enumerations scripts declare (about_Enum): the value type alone, then in a real shell."""

from __future__ import annotations

import pytest

from fayshell.errors import FayError, ParseError
from fayshell.lang.enums import EnumType, EnumValue, enum_static, members_of
from fayshell.lang.ops import OperatorError


def color() -> EnumType:
    return EnumType("Color", members_of("Color", [("Red", None), ("Green", 5), ("Blue", None)]))


def access() -> EnumType:
    declared = [("None", 0), ("Read", 1), ("Write", 2), ("Exec", 4)]
    return EnumType("Access", members_of("Access", declared), flags=True)


def test_members_count_on_from_the_previous_one() -> None:
    assert color().members == (("Red", 0), ("Green", 5), ("Blue", 6))
    with pytest.raises(OperatorError, match="declared twice"):
        members_of("E", [("A", None), ("a", None)])
    with pytest.raises(OperatorError, match="not an integer"):
        members_of("E", [("A", 1.5)])


def test_a_value_is_an_int_that_reads_as_its_name() -> None:
    blue = color().convert("BLUE")
    assert isinstance(blue, EnumValue) and blue == 6 and str(blue) == "Blue"
    assert blue.value__ == 6 and int(blue) + 1 == 7
    assert color().convert(5) == color().member("green")
    with pytest.raises(OperatorError, match='Cannot convert value "Purple" to type "Color"'):
        color().convert("Purple")
    with pytest.raises(OperatorError):
        color().convert(3)  # no member has it


def test_flags_read_and_combine() -> None:
    rw = access().convert("Read, Write")
    assert (int(rw), str(rw)) == (3, "Read, Write")
    assert rw.HasFlag("Write") and not rw.HasFlag(access().member("Exec"))
    assert str(access().convert(7)) == "Read, Write, Exec"
    assert str(access().convert(0)) == "None"
    with pytest.raises(OperatorError):
        access().convert(8)


def test_enum_static_methods() -> None:
    t = color()
    assert enum_static("GetNames", [t]) == ["Red", "Green", "Blue"]
    assert [int(v) for v in enum_static("GetValues", [t])] == [0, 5, 6]
    assert str(enum_static("Parse", [t, "green"])) == "Green"
    assert enum_static("IsDefined", [t, 6]) and not enum_static("IsDefined", [t, 1])
    with pytest.raises(OperatorError, match="needs an enum type"):
        enum_static("GetNames", ["Color"])


async def test_scripts_declare_use_and_compare_enums(shell) -> None:
    out = await shell.run(
        "enum Severity {\n  Info  # the default\n  Warning = 4\n  Error\n}\n"
        '$s = [Severity]::Error; "$s"; [int]$s; $s.value__; $s.GetType().Name; '
        "$s -eq 'error'; $s -eq 5; $s -is [Severity]; 'Warning' -as [Severity]; "
        "'Nope' -as [Severity]; [Severity]4; "
        "([Severity]::Info, [Severity]::Error, [Severity]::Warning | Sort-Object) -join ','; "
        "[enum]::GetNames([Severity]) -join ','; [Severity].GetEnumNames().Count; "
        "switch ([Severity]::Warning) { Info { 'i' } Warning { 'w' } }"
    )
    assert [str(o) if isinstance(o, EnumValue) else o for o in out] == [
        "Error",
        5,
        5,
        "Severity",
        True,
        True,
        True,
        "Warning",
        None,  # 'Nope' -as [Severity]
        "Warning",
        "Info,Warning,Error",
        "Info,Warning,Error",
        3,
        "w",
    ]


async def test_typed_variables_and_parameters_convert_to_the_enum(shell) -> None:
    out = await shell.run(
        "[Flags()] enum Access { Read = 1; Write = 2; Exec = 4 }\n"
        "[Access]$a = 'Read'; $a = 'Read, Exec'; \"$a\"; [int]$a; "
        "function f { param([Access]$need) $need.HasFlag([Access]::Exec) }; f 5; f Write"
    )
    assert out == ["Read, Exec", 5, True, False]
    with pytest.raises(FayError, match="Cannot process argument transformation"):
        await shell.run("f Fly")


async def test_enum_syntax_errors_name_the_place(shell) -> None:
    with pytest.raises(ParseError) as err:
        await shell.run("enum E {\n  A\n  2B\n}")
    assert err.value.span.line == 3 and err.value.expected == "an enum member name"
    with pytest.raises(FayError, match="declared twice"):
        await shell.run("enum F { A; A }")


async def test_typed_parameters_convert_to_their_declared_type(shell) -> None:
    """``[datetime]$d`` given text is a date, as PowerShell binds it (it stayed text, and
    ``$d.Year`` was $null without a word); a type fayshell does not know leaves the value."""
    out = await shell.run(
        "function g { param([datetime]$d, [version]$v, [System.Uri]$u, [Windows.Point]$p) "
        "$d.Year; $v.Minor; $u.Host; $p }; g '2020-03-01' '1.2' 'http://x' '1,2'"
    )
    assert out == [2020, 2, "x", "1,2"]
    with pytest.raises(FayError, match="parameter 'd'"):
        await shell.run("g 'not a date'")
