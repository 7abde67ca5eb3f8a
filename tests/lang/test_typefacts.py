"""Type objects (fayshell/lang/typefacts.py and values.TypeName): the facts alone, then what
``[int]`` and ``$x.GetType()`` give in a real shell: their properties, how they show, compare
and read inside strings."""

from __future__ import annotations

from fayshell.lang.typefacts import facts_of
from fayshell.render import render_plain
from tests.fixtures.shell import Shell


def test_facts_of_known_unknown_and_array_types() -> None:
    int_facts = facts_of("int")
    assert (int_facts.full, int_facts.base, int_facts.value_type) == (
        "System.Int32",
        "System.ValueType",
        True,
    )
    assert facts_of("System.Int64") == facts_of("long")
    assert facts_of("string[]").full == "System.String[]" and facts_of("string[]").array
    assert facts_of("IO.Path").full == "System.IO.Path" and facts_of("IO.Path").name == "Path"
    assert facts_of("object").base is None


async def test_a_type_has_dotnets_properties(shell: Shell) -> None:
    out = await shell.run(
        "[int].FullName; [int].Name; [string].BaseType.FullName; [int].IsValueType; "
        '[int].ToString(); "$([int])"; [IO.Path].FullName; [int].BaseType.BaseType.Name; '
        "[int].GetType().FullName; (1).GetType().Namespace"
    )
    assert [str(v) for v in out] == [
        "System.Int32",
        "Int32",
        "System.Object",
        "True",
        "System.Int32",
        "int",
        "System.IO.Path",
        "Object",
        "System.RuntimeType",
        "System",
    ]


async def test_types_compare_by_the_type_they_name(shell: Shell) -> None:
    out = await shell.run(
        "(1).GetType() -eq [int]; [int] -eq [Int32]; [int] -ne [long]; $t = [int]; 5 -is $t"
    )
    assert out == [True, True, True, True]


async def test_a_type_shows_as_powershell_shows_one(shell: Shell) -> None:
    (value,) = await shell.run("[int]")
    lines = [line.split() for line in render_plain([value]).splitlines() if line.strip()]
    assert lines[0] == ["IsPublic", "IsSerial", "Name", "BaseType"]
    assert lines[2] == ["True", "True", "Int32", "System.ValueType"]


async def test_get_member_of_a_type_lists_a_types_members(shell: Shell) -> None:
    """[int] | Get-Member listed a string's methods under 'fayshell.TypeName'."""
    members = await shell.run("[int] | Get-Member")
    assert {m.TypeName for m in members} == {"System.RuntimeType"}
    names = {m.Name: m.Definition for m in members}
    assert names["BaseType"] == "type BaseType {get;}" and "Substring" not in names
    out = await shell.run(
        "[pscustomobject]@{a=[long]1; b=[byte]2; c=[float]1.5} | "
        "Get-Member -MemberType NoteProperty | ForEach-Object Definition"
    )
    assert out == ["long a=1", "byte b=2", "float c=1.5"]
