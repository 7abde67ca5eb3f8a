"""Classes scripts declare (about_Classes): parsed, then run in a real shell."""

from __future__ import annotations

import json

import pytest

from fayshell.errors import FayError, ParseError
from fayshell.lang import ast
from fayshell.lang.classes import ClassInstance
from fayshell.lang.parser import parse

NODE_CLASS = """
class Node {
  [string]$Name
  [int]$Cpus = 2
  hidden [string]$secret
  static [int]$Made = 0
  Node() { [Node]::Made += 1 }
  Node([string]$name, [int]$cpus) { $this.Name = $name; $this.Cpus = $cpus; [Node]::Made += 1 }
  [int] Threads([int]$per) { "not output"; return $this.Cpus * $per }
  [void] Rename([string]$to) { $this.Name = $to }
  [string] ToString() { return "$($this.Name)/$($this.Cpus)" }
  static [Node] Local() { return [Node]::new('localhost', 1) }
}
"""


def test_class_members_parse() -> None:
    (cls,) = parse(NODE_CLASS).statements
    assert isinstance(cls, ast.ClassDef) and (cls.name, cls.base) == ("Node", None)
    assert [(p.name, p.type, p.static) for p in cls.properties] == [
        ("Name", "string", False),
        ("Cpus", "int", False),
        ("secret", "string", False),
        ("Made", "int", True),
    ]
    assert [(m.name, m.constructor, m.static, len(m.params)) for m in cls.methods] == [
        ("Node", True, False, 0),
        ("Node", True, False, 2),
        ("Threads", False, False, 1),
        ("Rename", False, False, 1),
        ("ToString", False, False, 0),
        ("Local", False, True, 0),
    ]


def test_class_syntax_errors_name_the_place() -> None:
    with pytest.raises(ParseError) as err:
        parse("class C {\n  [int]$a\n  [int] 5\n}")
    assert err.value.span.line == 3 and "method name" in err.value.expected
    with pytest.raises(ParseError):
        parse("class D { D() : other(1) { } }")


async def test_objects_constructors_methods_and_statics(shell) -> None:
    await shell.run(NODE_CLASS)
    out = await shell.run(
        "$n = [Node]::new('web01', '4'); $n.Threads(2); $n.Cpus.GetType().Name; "
        "$n.Rename('web02'); $n.Name; \"$n\"; $n.GetType().Name; $n -is [Node]; "
        "[Node]::Local().ToString(); [Node]::Made; ([Node]::new()).Cpus; "
        "$null -eq ([Node]::new()).Name"
    )
    # a [void] method writes nothing (not even $null)
    assert out == [8, "Int32", "web02", "web02/4", "Node", True, "localhost/1", 2, 2, True]


async def test_objects_are_records_for_the_pipeline(shell) -> None:
    await shell.run(NODE_CLASS)
    out = await shell.run(
        "$all = [Node]::new('a', 1), [Node]::new('b', 8); "
        "($all | Sort-Object Cpus -Descending | Select-Object -First 1).Name; "
        "$all[0] | ConvertTo-Json -Compress"
    )
    assert out[0] == "b" and json.loads(out[1]) == {"Name": "a", "Cpus": 1, "secret": None}
    (made,) = await shell.run("[Node]@{ Name = 'c'; Cpus = '3' }")
    assert isinstance(made, ClassInstance) and (made["Name"], made["Cpus"]) == ("c", 3)
    (other,) = await shell.run("New-Object Node -ArgumentList 'd', 5")
    assert other["Cpus"] == 5


async def test_inheritance_base_constructor_and_overrides(shell) -> None:
    await shell.run(
        "class Shape { [string]$Kind; Shape([string]$k) { $this.Kind = $k }; "
        '[double] Area() { return 0 }; [string] Describe() { return "$($this.Kind) $($this.Area())" } }\n'
        "class Square : Shape { [double]$Side; Square([double]$s) : base('square') { $this.Side = $s }; "
        "[double] Area() { return $this.Side * $this.Side } }"
    )
    out = await shell.run(
        "$s = [Square]::new(3); $s.Describe(); $s -is [Shape]; $s -is [Square]; "
        "[Shape]::new('blob').Area(); ([Shape]$s).Kind; \"$($s.GetType().BaseType)\""
    )
    assert out == ["square 9", True, True, 0.0, "square", "Shape"]


async def test_wrong_uses_are_powershell_errors(shell) -> None:
    await shell.run(NODE_CLASS)
    with pytest.raises(FayError, match="The property 'Nope' cannot be found"):
        await shell.run("$n = [Node]::new(); $n.Nope = 1")
    with pytest.raises(FayError, match='Cannot find an overload for "new" and the argument count'):
        await shell.run("[Node]::new(1)")
    with pytest.raises(FayError, match='Cannot find an overload for "Threads"'):
        await shell.run("[Node]::new().Threads()")
    with pytest.raises(FayError, match="does not contain a method named 'Fly'"):
        await shell.run("[Node]::new().Fly()")
    with pytest.raises(FayError, match="not a class declared before"):
        await shell.run("class Late : Missing { }")
    with pytest.raises(FayError, match='to type "Node"'):
        await shell.run("[Node]$typed = 'text'")


async def test_static_increment_hidden_members_and_base_type(shell) -> None:
    """[Animal]::Count++ did not parse; hidden properties were shown; BaseType was a string."""
    out = await shell.run(
        "class Animal { static [int]$Count = 0; [string]$Name; hidden [int]$Secret = 7; "
        "Animal([string]$n) { $this.Name = $n; [Animal]::Count++ } "
        "[string] Speak() { return 'a' } }; "
        "class Dog : Animal { Dog([string]$n) : base($n) { } [string] Speak([int]$t) { return 'b' } }; "
        "$d = [Dog]::new('rex'); [Animal]::Count; $d.Secret; $d.GetType().BaseType.Name; "
        "($d | Select-Object *).PSObject.Properties.Name; $d | ConvertTo-Json -Compress; "
        '$d | Get-Member | ForEach-Object { "$($_.MemberType) $($_.Definition)" }'
    )
    # ConvertTo-Json writes hidden properties, as PowerShell's does (PowerShell issue 9847)
    assert out[:5] == [1, 7, "Animal", "Name", '{"Name":"rex","Secret":7}']
    assert "Property string Name {get;set;}" in out[5:]
    assert {"Method string Speak()", "Method string Speak(int t)"} <= set(out[5:])
    assert not any("Secret" in line for line in out[5:])


async def test_flags_enum_bitwise_operators_keep_the_enum(shell) -> None:
    out = await shell.run(
        "[Flags()] enum Perm { Read = 1; Write = 2; Exec = 4 }; "
        '$p = [Perm]::Read -bor [Perm]::Write; "$p"; $p.HasFlag([Perm]::Write); [int]$p; '
        '"$($p -band [Perm]::Write)"; [int]([Perm]::Read -bor 8)'
    )
    assert out == ["Read, Write", True, 3, "Write", 9]


async def test_a_cast_to_the_base_class_calls_the_base_method(shell) -> None:
    out = await shell.run(
        "class Dog { [string] Speak() { return 'woof' } }; "
        "class Puppy : Dog { [string] Speak() { return 'yip ' + ([Dog]$this).Speak() } }; "
        "$p = [Puppy]::new(); $p.Speak(); $d = [Dog]$p; $d.Speak(); ([Dog]$p).Speak()"
    )
    # only a call on the cast itself is the base's: a variable holding the object still
    # calls the object's own override, as .NET's virtual methods
    assert out == ["yip woof", "yip woof", "woof"]


async def test_overloads_are_chosen_by_the_arguments_types(shell) -> None:
    """Two methods (or constructors) with as many parameters: the one the arguments fit,
    an argument of the parameter's type before one that only converts to it."""
    out = await shell.run(
        "class Pick { [string]$made; Pick([int]$n) { $this.made = 'int' } "
        "Pick([string]$s) { $this.made = 'string' } "
        "[string] Of([int]$x) { return 'int' } [string] Of([string]$x) { return 'string' } "
        "static [string] At([double]$d) { return 'double' } "
        "static [string] At([datetime]$t) { return 'datetime' } }; "
        "$p = [Pick]::new(1); $p.made; [Pick]::new('x').made; "
        "$p.Of(5); $p.Of('abc'); $p.Of('7'); [Pick]::At(1.5); [Pick]::At((Get-Date))"
    )
    assert out == ["int", "string", "int", "string", "string", "double", "datetime"]


async def test_a_derived_method_overrides_the_same_signature(shell) -> None:
    out = await shell.run(
        "class Base { [string] Say([int]$x) { return 'base' } [string] Say([string]$x) "
        "{ return 'base text' } }; class Derived : Base { [string] Say([int]$x) "
        "{ return 'derived' } }; $d = [Derived]::new(); $d.Say(1); $d.Say('a')"
    )
    assert out == ["derived", "base text"]


async def test_an_icomparable_class_orders_by_its_compare_to(shell) -> None:
    out = await shell.run(
        "class Version2 : System.IComparable { [int]$Major; [int]$Minor; "
        "Version2([int]$a, [int]$b) { $this.Major = $a; $this.Minor = $b } "
        "[int] CompareTo([object]$o) { if ($this.Major -ne $o.Major) "
        "{ return $this.Major - $o.Major }; return $this.Minor - $o.Minor } }; "
        "$v = [Version2]::new(2, 0), [Version2]::new(1, 10), [Version2]::new(1, 9), "
        "[Version2]::new(1, 10); "
        "($v | Sort-Object | ForEach-Object { \"$($_.Major).$($_.Minor)\" }) -join ' '; "
        "($v | Sort-Object -Descending -Unique | ForEach-Object Minor) -join ' '; "
        "$v[0] -gt $v[1]; $v[1] -le $v[3]; $v[2] -ge $v[1]; "
        "$v[0] -is [System.IComparable]; $v[0] -is [IDisposable]"
    )
    assert out == ["1.9 1.10 1.10 2.0", "0 10 9", True, True, False, True, False]


async def test_to_string_gives_an_object_its_text_everywhere(shell) -> None:
    """A class's ToString() is its text in -join, [string], "$x" and a table cell (before,
    only "$x" used it; a cell showed @{...}); a class without one reads as its name."""
    out = await shell.run(
        "class Node2 { [string]$Name; Node2([string]$n) { $this.Name = $n } "
        '[string] ToString() { return "node:$($this.Name)" } }; class Bare { [int]$v = 1 }; '
        "$n = [Node2]::new('a'), [Node2]::new('b'); $n -join ','; [string]$n[0]; \"$($n[1])\"; "
        "[pscustomobject]@{ node = $n[0]; bare = [Bare]::new() } | Out-String; "
        'class Self { [string] ToString() { return "self:$this" } }; "$([Self]::new())"'
    )
    assert out[:3] == ["node:a,node:b", "node:a", "node:b"]
    assert out[3].split("\n")[3] == "node:a Bare"
    assert out[4] == "self:Self"  # "$this" inside its own ToString: the class's name


async def test_property_validation_attributes_check_each_assignment(shell) -> None:
    await shell.run(
        "class Limits { [ValidateRange(1, 10)][int]$Retries = 3; "
        "[ValidateSet('low', 'high')][string]$Level = 'low'; "
        "Limits([int]$r) { $this.Retries = $r } }"
    )
    assert await shell.run("$l = [Limits]::new(5); $l.Level = 'HIGH'; $l.Retries; $l.Level") == [
        5,
        "HIGH",
    ]
    with pytest.raises(FayError, match='Exception setting "Retries": "The 50 argument is greater'):
        await shell.run("$l.Retries = 50")
    assert await shell.run("$l.Retries") == [5]  # kept
    with pytest.raises(FayError, match='Exception setting "Level"'):
        await shell.run("$l.Level = 'mid'")
    with pytest.raises(FayError, match="maximum allowed range of 10"):
        await shell.run("[Limits]::new(11)")  # the constructor's assignment too
