"""Cmdlets about objects themselves: Get-Member, Add-Member, New-Object, Compare-Object,
Get-Unique and Tee-Object.

Records are dicts (``[pscustomobject]@{}`` and ``@{}`` both make one) or dataclasses; a relation
is described by its columns and their DuckDB types without fetching rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fayshell.commands.encodings import ENCODING_PARAM, write_text
from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import BY_VALUE, Param, cmdlet
from fayshell.errors import CommandError, ParameterError
from fayshell.lang.classes import ClassInstance, ClassType
from fayshell.lang.dates import NOT_HANDLED
from fayshell.lang.dates import static_member as date_static
from fayshell.lang.generic import new_collection
from fayshell.lang.integers import kind_of
from fayshell.lang.nettext import StringBuilder
from fayshell.lang.ops import OperatorError, compare, to_string, wildcard_match
from fayshell.lang.single import Single
from fayshell.lang.streams import collect, is_relation, single_or_list, unroll
from fayshell.lang.values import (
    SORTED_TYPES,
    Duration,
    Guid,
    Hashtable,
    PSCustomObject,
    ScriptBlock,
    Size,
    SortedDictionary,
    TypeName,
)
from fayshell.records import get_property, is_record, property_names

PSCUSTOMOBJECT = "System.Management.Automation.PSCustomObject"
MEMBER_TYPES = (
    "AliasProperty",
    "CodeProperty",
    "Property",
    "NoteProperty",
    "ScriptProperty",
    "Properties",
    "PropertySet",
    "Method",
    "CodeMethod",
    "ScriptMethod",
    "Methods",
    "ParameterizedProperty",
    "MemberSet",
    "Event",
    "Dynamic",
    "All",
)
PROPERTY_KINDS = ("AliasProperty", "CodeProperty", "Property", "NoteProperty", "ScriptProperty")
OBJECT_METHODS = (
    ("Equals", "bool Equals(System.Object obj)"),
    ("GetHashCode", "int GetHashCode()"),
    ("GetType", "type GetType()"),
    ("ToString", "string ToString()"),
)
STRING_METHODS = (
    ("Contains", "bool Contains(string value)"),
    ("EndsWith", "bool EndsWith(string value)"),
    ("IndexOf", "int IndexOf(string value)"),
    ("Replace", "string Replace(string oldValue, string newValue)"),
    ("Split", "string[] Split(string separator)"),
    ("StartsWith", "bool StartsWith(string value)"),
    ("Substring", "string Substring(int startIndex, int length)"),
    ("ToLower", "string ToLower()"),
    ("ToUpper", "string ToUpper()"),
    ("Trim", "string Trim()"),
    ("TrimEnd", "string TrimEnd()"),
    ("TrimStart", "string TrimStart()"),
)


# ---- type names ----------------------------------------------------------------------------


def short_type(value: Any) -> str:
    """The short .NET-style type name PowerShell shows in member definitions."""
    if value is None:
        return "object"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Duration):
        return "duration"
    if isinstance(value, Size):
        return "size"
    if isinstance(value, int):
        return kind_of(value).keyword
    if isinstance(value, Single):
        return "float"
    if isinstance(value, TypeName):
        return "type"
    names = {float: "double", str: "string", list: "Object[]", tuple: "Object[]"}
    if type(value) in names:
        return names[type(value)]
    if isinstance(value, Mapping):
        return PSCUSTOMOBJECT
    if isinstance(value, ScriptBlock):
        return "scriptblock"
    return type(value).__name__


def full_type(value: Any) -> str:
    """The full type name Get-Member's TypeName shows."""
    if isinstance(value, Hashtable):
        return "System.Collections.Hashtable"
    if isinstance(value, Mapping):
        return PSCUSTOMOBJECT
    full = {
        "bool": "System.Boolean",
        "int": "System.Int32",
        "long": "System.Int64",
        "double": "System.Double",
        "string": "System.String",
        "Object[]": "System.Object[]",
        "scriptblock": "System.Management.Automation.ScriptBlock",
    }
    named = getattr(type(value), "TYPE_NAME", None)  # e.g. MatchInfo, GroupInfo
    if isinstance(named, str):
        return named
    short = short_type(value)
    return full.get(short, f"fayshell.{short}")


def value_text(value: Any) -> str:
    """How a value reads in a NoteProperty definition (``int a=1``)."""
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "System.Object[]"
    if isinstance(value, Mapping):
        return "@{" + "; ".join(f"{k}={value_text(v)}" for k, v in value.items()) + "}"
    return to_string(value)


# ---- Get-Member ----------------------------------------------------------------------------


@dataclass(frozen=True)
class MemberDefinition:
    """One member, as Get-Member shows it (TypeName is a property but not a column: PowerShell
    shows it above the table)."""

    Name: str
    MemberType: str
    Definition: str
    TypeName: str = field(default="", repr=False)

    TYPE_NAME = "Microsoft.PowerShell.Commands.MemberDefinition"
    #: Shown as PowerShell shows members: one table per type under ``   TypeName: X``.
    GROUP_BY = "TypeName"


def _m(type_name: str, name: str, kind: str, definition: str) -> MemberDefinition:
    return MemberDefinition(name, kind, definition, type_name)


def members_of(value: Any) -> list[MemberDefinition]:
    """Every member of one value, sorted as PowerShell sorts them (by kind, then name)."""
    tname = full_type(value)
    out = [_m(tname, n, "Method", d) for n, d in OBJECT_METHODS]
    if isinstance(value, ClassInstance):
        out = _class_members(value)
    elif isinstance(value, Mapping):
        out += [
            _m(tname, str(k), "NoteProperty", f"{short_type(v)} {k}={value_text(v)}")
            for k, v in value.items()
        ]
        if isinstance(value, PSCustomObject):
            out += [
                _m(tname, n, "ScriptMethod", f"System.Object {n}();")
                for n, _ in value.script_methods().values()
            ]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        out += [
            _m(
                tname,
                f.name,
                "Property",
                f"{short_type(getattr(value, f.name))} {f.name} {{get;set;}}",
            )
            for f in dataclasses.fields(value)
        ]
    elif isinstance(value, TypeName):  # [int]: a type, not its name's text
        out += [
            _m(tname, n, "Property", f"{short_type(getattr(value, n))} {n} {{get;}}")
            for n in value.PROPERTIES
        ]
    elif isinstance(value, str):
        out += [_m(tname, "Length", "Property", "int Length {get;}")]
        out += [_m(tname, n, "Method", d) for n, d in STRING_METHODS]
    elif isinstance(value, (list, tuple)):
        out += [
            _m(tname, "Count", "Property", "int Count {get;}"),
            _m(tname, "Length", "Property", "int Length {get;}"),
        ]
    else:
        out += _object_members(value, tname)
    return sorted(out, key=lambda m: (m.MemberType.lower(), m.Name.lower()))


def _class_members(value: ClassInstance) -> list[MemberDefinition]:
    """An object of a script's class: its properties (not the hidden ones) and methods."""
    cls = value.ps_class
    names = {n.lower() for n, _ in OBJECT_METHODS}
    seen: set[tuple[str, int]] = set()  # an override once, each overload
    out = [_m(cls.Name, n, "Method", d) for n, d in OBJECT_METHODS]
    out += [
        _m(cls.Name, p.name, "Property", f"{p.type or 'System.Object'} {p.name} {{get;set;}}")
        for p in cls.instance_properties()
        if not p.hidden
    ]
    for owner in cls.lineage():
        for m in owner.methods:
            key = (m.name.lower(), len(m.params))
            if m.static or m.constructor or key[0] in names or key in seen:
                continue
            seen.add(key)
            params = ", ".join(f"{p.type or 'System.Object'} {p.name}" for p in m.params)
            out.append(
                _m(cls.Name, m.name, "Method", f"{m.return_type or 'void'} {m.name}({params})")
            )
    return out


def _object_members(value: Any, tname: str) -> list[MemberDefinition]:
    """Public attributes of any other Python object (e.g. MatchInfo) as properties."""
    if isinstance(value, (int, float, bool)) or value is None:
        return []
    adapted = getattr(value, "ps_names", None)
    if adapted is not None:  # its content's names (an XML element's), then .NET's members
        return _adapted_members(value, tname, list(adapted()))
    names = getattr(value, "MEMBERS", None)
    if names is None:
        names = [a for a in getattr(value, "__dict__", {}) if not a.startswith("_")]
    return [
        _m(tname, n, "Property", f"{short_type(getattr(value, n, None))} {n} {{get;}}")
        for n in names
    ]


def _adapted_members(value: Any, tname: str, names: list[str]) -> list[MemberDefinition]:
    """An adapted object's members: the names of its content as settable properties, its
    type's .NET-named properties and methods."""
    kind = {n: v for klass in reversed(type(value).__mro__) for n, v in vars(klass).items()}
    own = [n for n, v in kind.items() if isinstance(v, property) and n[:1].isupper()]
    inherited = {n for n, _ in OBJECT_METHODS}  # listed once, as every object's
    methods = [n for n, v in kind.items() if callable(v) and n[:1].isupper() and n not in inherited]
    typed = [(n, short_type(get_property(value, n))) for n in names + own]
    return [_m(tname, n, "Property", f"{t} {n} {{get;set;}}") for n, t in typed] + [
        _m(tname, n, "Method", f"{n}()") for n in methods
    ]


def relation_members(schema: Mapping[str, str]) -> list[MemberDefinition]:
    """The columns of a relation as properties typed with their DuckDB types."""
    return sorted(
        (_m("fayshell.Row", name, "Property", f"{kind} {name}") for name, kind in schema.items()),
        key=lambda m: m.Name.lower(),
    )


def _member_filter(kinds: list[str] | None, names: list[str] | None) -> Any:
    wanted: set[str] = set()
    for k in kinds or ["All"]:
        if k == "All":
            return lambda m: _name_ok(m, names)
        wanted.update(
            PROPERTY_KINDS
            if k == "Properties"
            else ("Method", "CodeMethod", "ScriptMethod")
            if k == "Methods"
            else (k,)
        )
    return lambda m: m.MemberType in wanted and _name_ok(m, names)


def _name_ok(member: MemberDefinition, names: list[str] | None) -> bool:
    return not names or any(wildcard_match(member.Name, n) for n in names)


@cmdlet(
    "Get-Member",
    aliases=("gm",),
    synopsis="The properties and methods of the objects in the pipeline (for a relation: its "
    "columns and their DuckDB types).",
    description="One set of members per distinct type, sorted by member type then name as "
    "PowerShell sorts them. A relation is described from its schema, without "
    "running the query.",
    params=[
        Param("Name", "strings", position=0, help="Only members whose name matches (wildcards)."),
        Param(
            "MemberType",
            "strings",
            aliases=("Type",),
            choices=MEMBER_TYPES,
            help="Only these kinds: Property, NoteProperty, Method, Properties, ...",
        ),
        Param("InputObject", "any", pipeline=BY_VALUE, help="The objects to describe."),
        Param("Force", bool, help="Accepted for compatibility."),
    ],
    examples=[
        ("Get-Syscall | Get-Member", "The columns of the syscalls relation and their types."),
        (
            "[pscustomobject]@{a=1} | Get-Member -MemberType NoteProperty",
            "The note properties of a custom object.",
        ),
    ],
    stream=True,
)
async def get_member(
    ctx: Invocation,
    *,
    name: list[str] | None = None,
    member_type: list[str] | None = None,
    input_object: Any = None,
    force: bool = False,
) -> list[MemberDefinition]:
    source = ctx.input if ctx.input is not None else input_object
    keep = _member_filter(member_type, name)
    if is_relation(source):
        return [m for m in relation_members(source.schema()) if keep(m)]
    items = await collect(source) if ctx.input is not None else [input_object]
    if not items or items == [None]:
        raise CommandError("Get-Member", "you must specify an object for the Get-Member cmdlet")
    out: list[MemberDefinition] = []
    seen: set[str] = set()
    for item in items:
        members = members_of(item)
        key = (
            members[0].TypeName
            if not isinstance(item, Mapping)
            else members[0].TypeName + "\0" + "\0".join(map(str, item))
        )
        if key not in seen:
            seen.add(key)
            out += [m for m in members if keep(m)]
    return out


# ---- Add-Member ----------------------------------------------------------------------------


@cmdlet(
    "Add-Member",
    synopsis="Add a property (NoteProperty or AliasProperty) or a ScriptMethod to an object.",
    description="Dicts and [pscustomobject] records get the property in place, so the "
    "variable that holds them sees it; -PassThru also writes the object out. A ScriptMethod "
    "(a [pscustomobject]'s) runs its block with $this as the object. ScriptProperty is not "
    "supported.",
    params=[
        Param(
            "MemberType",
            "any",
            position=0,
            help="NoteProperty, AliasProperty or ScriptMethod (or, positionally, a "
            "NotePropertyName).",
        ),
        Param("Name", "any", position=1, help="The new member's name."),
        Param("Value", "any", position=2, help="Its value (AliasProperty: the target name)."),
        Param("NotePropertyName", str, help="Name of a note property to add."),
        Param("NotePropertyValue", "any", help="Its value."),
        Param("NotePropertyMembers", "hashtable", help="Several note properties at once."),
        Param("PassThru", bool, help="Write the object to the pipeline."),
        Param("Force", bool, help="Overwrite a member that already exists."),
        Param("TypeName", str, help="Accepted for compatibility."),
        Param(
            "InputObject", "any", pipeline=BY_VALUE, mandatory=True, help="The object to add to."
        ),
    ],
    examples=[
        (
            "$o = [pscustomobject]@{a=1}; $o | Add-Member -NotePropertyName b "
            "-NotePropertyValue 2; $o",
            "Adds b=2 to $o.",
        ),
        (
            "$o | Add-Member -MemberType NoteProperty -Name c -Value 3 -PassThru",
            "Adds c and writes the object out.",
        ),
        ("$o | Add-Member -NotePropertyMembers @{x=1; y=2}", "Two properties at once."),
        (
            "$o | Add-Member ScriptMethod Total { $this.a + $this.b }; $o.Total()",
            "A method of $o.",
        ),
    ],
)
def add_member(
    ctx: Invocation,
    *,
    input_object: Any,
    member_type: Any = None,
    name: Any = None,
    value: Any = None,
    note_property_name: str | None = None,
    note_property_value: Any = None,
    note_property_members: dict[str, Any] | None = None,
    pass_thru: bool = False,
    force: bool = False,
    type_name: str | None = None,
) -> Any:
    additions = _additions(
        member_type, name, value, note_property_name, note_property_value, note_property_members
    )
    target = input_object
    for key, (kind, val) in additions.items():
        if kind == "ScriptMethod":
            _add_script_method(target, key, val, force)
            continue
        if kind == "AliasProperty":
            val = get_property(target, to_string(val))
        _set_member(target, key, val, force)
    return [target] if pass_thru else None


def _add_script_method(target: Any, name: str, block: Any, force: bool) -> None:
    """A method whose body is ``block`` ($this: the object, $args: the call's arguments)."""
    if not isinstance(block, ScriptBlock):
        raise ParameterError("Add-Member", "Value", "a ScriptMethod's value is a script block")
    if not isinstance(target, PSCustomObject):
        raise CommandError(
            "Add-Member",
            f"a ScriptMethod can be added to a [pscustomobject], not a {full_type(target)}",
        )
    methods = target.script_methods()
    if name.lower() in methods and not force:
        raise CommandError(
            "Add-Member",
            f'Cannot add a member with the name "{name}" because a member with that name already '
            "exists. To overwrite the member anyway, add the Force parameter to your command.",
        )
    methods[name.lower()] = (name, block)


def _additions(
    member_type: Any,
    name: Any,
    value: Any,
    np_name: str | None,
    np_value: Any,
    np_members: dict[str, Any] | None,
) -> dict[str, tuple[str, Any]]:
    if np_members is not None or isinstance(member_type, Mapping):
        table = np_members if np_members is not None else dict(member_type)
        return {str(k): ("NoteProperty", v) for k, v in table.items()}
    if np_name is not None:
        return {np_name: ("NoteProperty", np_value)}
    kind = to_string(member_type) if member_type is not None else ""
    known = {k.lower(): k for k in MEMBER_TYPES}
    if kind.lower() not in known:
        if member_type is None or value is not None:
            raise ParameterError(
                "Add-Member",
                "MemberType",
                "give -NotePropertyName/-NotePropertyValue, "
                "-NotePropertyMembers, or -MemberType NoteProperty -Name -Value",
            )
        return {kind: ("NoteProperty", name)}  # Add-Member name value
    kind = known[kind.lower()]
    if kind not in ("NoteProperty", "AliasProperty", "ScriptMethod"):
        raise ParameterError(
            "Add-Member",
            "MemberType",
            f"{kind} members are not supported; use NoteProperty, AliasProperty or ScriptMethod",
        )
    if name is None:
        raise ParameterError("Add-Member", "Name", "a member name is needed")
    return {to_string(name): (kind, value)}


def _set_member(target: Any, key: str, value: Any, force: bool) -> None:
    exists = (
        key.lower() in (n.lower() for n in property_names(target)) if is_record(target) else False
    )
    if exists and not force:
        raise CommandError(
            "Add-Member",
            f"cannot add a member with the name {key!r} because a "
            "member with that name already exists; use -Force to "
            "overwrite it",
        )
    if isinstance(target, dict):
        old = next((k for k in target if str(k).lower() == key.lower()), key)
        target[old] = value
        return
    if target is None or isinstance(target, (str, int, float, bool, list, tuple)):
        raise CommandError(
            "Add-Member",
            f"cannot add a member to a {short_type(target)}; use [pscustomobject]@{{...}}",
        )
    try:
        setattr(target, key, value)
    except (AttributeError, TypeError, dataclasses.FrozenInstanceError):
        raise CommandError(
            "Add-Member",
            f"cannot add members to a {type(target).__name__} "
            "record; Select-Object *, @{n=...; e={...}} makes a "
            "copy with the new property",
        ) from None


# ---- New-Object ----------------------------------------------------------------------------

RECORD_TYPES = (
    "psobject",
    "pscustomobject",
    "system.management.automation.psobject",
    "system.management.automation.pscustomobject",
    "hashtable",
    "system.collections.hashtable",
    "object",
    "system.object",
)
LIST_TYPES = ("system.collections.arraylist", "collections.arraylist", "arraylist")


@cmdlet(
    "New-Object",
    synopsis="Make a new object: a PSObject with properties, a hashtable or a collection.",
    params=[
        Param(
            "TypeName",
            str,
            position=0,
            mandatory=True,
            help="PSObject, PSCustomObject, Hashtable, System.Collections.ArrayList, "
            "or System.Collections.Generic.List[T], Dictionary[K,V] (a hashtable), "
            "HashSet[T], Queue[T] or Stack[T].",
        ),
        Param(
            "ArgumentList",
            "any",
            position=1,
            aliases=("Args",),
            help="Initial items for a list type.",
        ),
        Param("Property", "hashtable", help="Properties of the new object."),
    ],
    examples=[
        (
            "New-Object PSObject -Property @{name='web01'; cpu=4}",
            "The same as [pscustomobject]@{name='web01'; cpu=4}.",
        )
    ],
)
async def new_object(
    ctx: Invocation,
    *,
    type_name: str,
    argument_list: Any = None,
    property: dict[str, Any] | None = None,
) -> Any:
    low = type_name.lower()
    interp = ctx.state.interpreter
    own = None if interp is None else interp.user_type(type_name)
    if isinstance(own, ClassType):  # a class the script declared: its constructor runs
        made = await interp.construct(own, _listed_args(argument_list))
        for key, value in (property or {}).items():
            made[key] = value
        return [made]
    if low in RECORD_TYPES:
        return [dict(property or {})]
    if low in LIST_TYPES:  # ArrayList(capacity) is empty; ArrayList(collection) holds its items
        given = argument_list if isinstance(argument_list, list) else [argument_list]
        first = given[0] if given else None
        items = first if isinstance(first, list) else []
        return [new_collection("System.Collections.ArrayList", items)]
    if low.startswith("list["):  # List[int] without its namespace
        type_name = "System.Collections.Generic." + type_name
    if low.startswith(("system.collections.generic.dictionary[", "dictionary[")):
        return [Hashtable()]
    if low.removeprefix("system.").startswith(SORTED_TYPES):
        return [SortedDictionary()]
    made = new_collection(type_name, argument_list)
    if made is not None:
        return [made]
    if low.endswith("[]") and argument_list is not None:  # New-Object int[] 3
        from fayshell.lang.interp import new_array

        return [new_array(type_name, unroll(argument_list)[0])]
    args = argument_list if isinstance(argument_list, list) else [argument_list]
    if low.removeprefix("system.").removeprefix("text.") == "stringbuilder":
        return [StringBuilder.new([a for a in args if a is not None])]
    dated = date_static(type_name, "new", [a for a in args if a is not None])
    if dated is not NOT_HANDLED:  # DateTime, TimeSpan, Stopwatch
        return [dated]
    raise CommandError(
        "New-Object",
        f"type [{type_name}] is not available in fayshell; "
        "New-Object makes PSObject, Hashtable, ArrayList and the generic List, Dictionary, "
        "HashSet, Queue and Stack, DateTime, TimeSpan and Stopwatch",
    )


def _listed_args(argument_list: Any) -> list[Any]:
    """-ArgumentList as a constructor's arguments: none, one, or each item of a list."""
    if argument_list is None:
        return []
    return argument_list if isinstance(argument_list, list) else [argument_list]


# ---- Compare-Object ------------------------------------------------------------------------


@cmdlet(
    "Compare-Object",
    aliases=("compare",),
    synopsis="Compare two sets of objects: which are only in the reference (<=), only in the "
    "difference (=>), or in both (==).",
    description="Strings compare case-insensitively unless -CaseSensitive. Output order as "
    "PowerShell's: the equal items (-IncludeEqual), then those only in the "
    "difference set, then those only in the reference set.",
    params=[
        Param("ReferenceObject", "any", position=0, mandatory=True),
        Param("DifferenceObject", "any", position=1, pipeline=BY_VALUE),
        Param("Property", "any", help="Compare these properties only."),
        Param("IncludeEqual", bool, help="Also output the items in both sets (==)."),
        Param("ExcludeDifferent", bool, help="Only output the items in both sets."),
        Param("PassThru", bool, help="Output the objects themselves, with a SideIndicator."),
        Param("CaseSensitive", bool),
        Param("SyncWindow", int, help="Accepted for compatibility; the whole sets are compared."),
    ],
    examples=[
        ("Compare-Object 'a','b','c' 'b','c','d'", "d => and a <=."),
        (
            "Compare-Object $before $after -Property node -IncludeEqual",
            "Nodes in both lists, and those only in one.",
        ),
    ],
    stream=True,
)
async def compare_object(
    ctx: Invocation,
    *,
    reference_object: Any,
    difference_object: Any = None,
    property: Any = None,
    include_equal: bool = False,
    exclude_different: bool = False,
    pass_thru: bool = False,
    case_sensitive: bool = False,
    sync_window: int | None = None,
) -> list[Any]:
    if reference_object is None:
        raise ParameterError("Compare-Object", "ReferenceObject", "is $null")
    diff_src = ctx.input if ctx.input is not None else difference_object
    if diff_src is None:
        raise ParameterError("Compare-Object", "DifferenceObject", "is $null")
    ref = await _as_items(reference_object)
    diff = await _as_items(diff_src)
    props = (
        [to_string(p) for p in (property if isinstance(property, list) else [property])]
        if property is not None
        else []
    )
    pairs = _match(ref, diff, props, case_sensitive)
    include_equal = include_equal or exclude_different
    out: list[Any] = []
    for side, item in pairs:
        if (side == "==" and include_equal) or (side != "==" and not exclude_different):
            out.append(_compare_result(item, side, props, pass_thru))
    return out


async def _as_items(value: Any) -> list[Any]:
    if is_relation(value) or hasattr(value, "__aiter__"):
        return await collect(value)
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _match(ref: list[Any], diff: list[Any], props: list[str], case: bool) -> list[tuple[str, Any]]:
    """PowerShell's algorithm with an unlimited sync window: each difference object is tried
    against the reference object at the same position, then against the backlogs of unmatched
    objects; a match is reported as the reference object. Unmatched objects come last:
    difference ones (=>), then reference ones (<=)."""
    out: list[tuple[str, Any]] = []
    ref_backlog: list[Any] = []
    diff_backlog: list[Any] = []
    for pos in range(max(len(ref), len(diff))):
        r = ref[pos] if pos < len(ref) else _NONE
        d = diff[pos] if pos < len(diff) else _NONE
        if r is not _NONE and d is not _NONE and _same(r, d, props, case):
            out.append(("==", r))
            continue
        if d is not _NONE and _take(ref_backlog, d, props, case, out):
            d = _NONE
        if r is not _NONE and _take(diff_backlog, r, props, case, None):
            out.append(("==", r))
            r = _NONE
        if d is not _NONE:
            diff_backlog.append(d)
        if r is not _NONE:
            ref_backlog.append(r)
    return out + [("=>", d) for d in diff_backlog] + [("<=", r) for r in ref_backlog]


_NONE = object()


def _take(
    backlog: list[Any], item: Any, props: list[str], case: bool, out: list[tuple[str, Any]] | None
) -> bool:
    """Remove the first backlog entry equal to ``item``; report it as a match when ``out``."""
    for i, entry in enumerate(backlog):
        if _same(entry, item, props, case):
            del backlog[i]
            if out is not None:
                out.append(("==", entry))
            return True
    return False


def _same(a: Any, b: Any, props: list[str], case: bool) -> bool:
    op = "ceq" if case else "eq"
    if props:
        return all(_same(get_property(a, p), get_property(b, p), [], case) for p in props)
    if is_record(a) or is_record(b) or isinstance(a, list) or isinstance(b, list):
        ka, kb = value_text(a), value_text(b)
        return ka == kb if case else ka.casefold() == kb.casefold()
    return bool(compare(op, a, b))


def _compare_result(item: Any, side: str, props: list[str], pass_thru: bool) -> Any:
    if pass_thru:
        if isinstance(item, Mapping):
            return {**item, "SideIndicator": side}
        return item
    if props:
        rec = {p: get_property(item, p) for p in props}
        rec["SideIndicator"] = side
        return rec
    return {"InputObject": item, "SideIndicator": side}


# ---- Get-Unique ----------------------------------------------------------------------------


@cmdlet(
    "Get-Unique",
    aliases=("gu",),
    synopsis="Drop adjacent duplicates from sorted input (compare case-sensitively).",
    description="As in PowerShell, only neighbours are compared, so sort first "
    "(Sort-Object | Get-Unique); Sort-Object -Unique does both.",
    params=[
        Param("AsString", bool, help="Compare the objects as strings."),
        Param("OnType", bool, help="Keep one object of each type."),
        Param("CaseInsensitive", bool, help="Compare strings ignoring case."),
        Param("InputObject", "any", pipeline=BY_VALUE),
    ],
    examples=[
        ("1,1,2,3,3 | Get-Unique", "1 2 3."),
        ("'b','a','B','a' | Sort-Object | Get-Unique", "a B b (case-sensitive)."),
    ],
    stream=True,
)
async def get_unique(
    ctx: Invocation,
    *,
    as_string: bool = False,
    on_type: bool = False,
    case_insensitive: bool = False,
    input_object: Any = None,
) -> list[Any]:
    items = await collect(ctx.input if ctx.input is not None else input_object)
    out: list[Any] = []
    for item in items:
        if not out or not _same_as_last(out[-1], item, as_string, on_type, case_insensitive):
            out.append(item)
    return out


def _same_as_last(last: Any, item: Any, as_string: bool, on_type: bool, fold: bool) -> bool:
    """Get-Unique's test against the last object written: by type, as strings, or as objects
    (the new one converted to the last one's type, as PowerShell compares)."""
    if on_type:
        return full_type(last) == full_type(item)
    if as_string or is_record(item) or isinstance(item, list) or is_record(last):
        a, b = value_text(last), value_text(item)
        return a.casefold() == b.casefold() if fold else a == b
    try:
        return bool(compare("eq" if fold else "ceq", last, item))
    except OperatorError:
        return False


# ---- Get-Random and New-Guid ---------------------------------------------------------------

#: Get-Random's default bound: [0, Int32.MaxValue).
INT32_MAX = 2**31 - 1


RANDOM_PARAMS = [
    Param("Maximum", "any", position=0, help="The bound numbers stay below."),
    Param("Minimum", "any", help="The smallest number returned."),
    Param("InputObject", "any", pipeline=BY_VALUE, help="Items to pick from."),
    Param("Count", int, help="How many numbers or items (items are not repeated)."),
    Param("Shuffle", bool, help="Every item, in random order."),
    Param("SetSeed", int, help="Seed the session's random generator."),
]


@cmdlet(
    "Get-Random",
    synopsis="A random number, or random items of the input.",
    description="Numbers: from -Minimum (0) up to but not including -Maximum (Int32.MaxValue); "
    "a double when either bound is one, else an integer. Items: -Count of them (1) without "
    "repeats, or every item in random order with -Shuffle. -SetSeed makes this and the "
    "session's later results repeatable.",
    params=RANDOM_PARAMS,
    examples=[
        ("Get-Random -Maximum 100", "An integer from 0 to 99."),
        ("Get-Node | Get-Random", "One node at random."),
        ("1..10 | Get-Random -Count 3", "Three different numbers of 1..10."),
    ],
    stream=True,
)
async def get_random(
    ctx: Invocation,
    *,
    maximum: Any = None,
    minimum: Any = None,
    input_object: Any = None,
    count: int | None = None,
    shuffle: bool = False,
    set_seed: int | None = None,
) -> list[Any]:
    rng = ctx.state.random(set_seed)
    return await _random(ctx, rng, maximum, minimum, input_object, count, shuffle)


@cmdlet(
    "Get-SecureRandom",
    synopsis="A random number, or random items of the input, from the system's "
    "cryptographically secure generator (PowerShell 7.4).",
    description="As Get-Random, without -SetSeed: tokens, passwords and keys that must not "
    "be guessed.",
    params=[p for p in RANDOM_PARAMS if p.name != "SetSeed"],
    examples=[
        ("Get-SecureRandom -Maximum 1000000", "A number nobody can predict."),
        ("-join ('a'..'z' | Get-SecureRandom -Count 12)", "A 12-letter token."),
    ],
    stream=True,
)
async def get_secure_random(
    ctx: Invocation,
    *,
    maximum: Any = None,
    minimum: Any = None,
    input_object: Any = None,
    count: int | None = None,
    shuffle: bool = False,
) -> list[Any]:
    import random

    rng = random.SystemRandom()
    return await _random(ctx, rng, maximum, minimum, input_object, count, shuffle)


async def _random(
    ctx: Invocation,
    rng: Any,
    maximum: Any,
    minimum: Any,
    input_object: Any,
    count: int | None,
    shuffle: bool,
) -> list[Any]:
    """Get-Random's work with ``rng``: numbers between bounds, or items of the input."""
    name = ctx.name
    if count is not None and count < 1:
        raise ParameterError(name, "Count", f"{count} is less than 1")
    listed = isinstance(maximum, list)  # Get-Random 1,2,3: the list is the items
    if ctx.input is not None or input_object is not None or listed:
        if minimum is not None or (maximum is not None and not listed):
            raise ParameterError(name, None, "give items or -Minimum/-Maximum, not both")
        source = ctx.input if ctx.input is not None else input_object
        items = await collect(maximum if source is None else source)
        return list(rng.sample(items, len(items) if shuffle else min(count or 1, len(items))))
    if shuffle:
        raise ParameterError(name, "Shuffle", "needs items to shuffle")
    low, high = _bounds(name, minimum, maximum)
    pick = rng.randrange if isinstance(low, int) else rng.uniform
    return [pick(low, high) for _ in range(count or 1)]


def _bounds(name: str, minimum: Any, maximum: Any) -> tuple[int | float, int | float]:
    """Get-Random's [low, high) with PowerShell's message when it is empty."""
    from fayshell.lang.ops import to_number

    try:
        low = 0 if minimum is None else to_number(minimum)
        high = INT32_MAX if maximum is None else to_number(maximum)
    except OperatorError as exc:
        raise ParameterError(name, None, str(exc)) from None
    if low >= high:
        raise ParameterError(
            name,
            None,
            f"The Minimum value ({to_string(low)}) cannot be greater than or equal to the "
            f"Maximum value ({to_string(high)}).",
        )
    if isinstance(low, int) and isinstance(high, int):
        return low, high
    return float(low), float(high)  # a double (or decimal) bound: doubles


@cmdlet(
    "New-Guid",
    synopsis="A new random GUID (version 4).",
    examples=[("(New-Guid).Guid", "The GUID's text, e.g. for a unique session name.")],
)
def new_guid(ctx: Invocation) -> list[Guid]:
    return [Guid.new()]


# ---- Tee-Object ----------------------------------------------------------------------------


@cmdlet(
    "Tee-Object",
    aliases=("tee",),
    synopsis="Pass the input on and also save it in a variable or a file.",
    description="-Variable stores the input the way an assignment does ($null, one item or an "
    "array) in the session's global scope; -FilePath writes it as it would be "
    "shown.",
    params=[
        Param("FilePath", str, position=0, aliases=("Path",), complete="files"),
        Param("Variable", str, complete="variables", help="Variable name, without $."),
        Param("Append", bool, help="Add to the end of the file."),
        ENCODING_PARAM,
        Param("InputObject", "any", pipeline=BY_VALUE),
    ],
    examples=[
        (
            "Get-Node | Tee-Object -Variable nodes | Select-Object name",
            "Shows the names and keeps the full records in $nodes.",
        ),
        (
            "Get-Syscall | Tee-Object -FilePath calls.txt | Measure-Object",
            "Saves the table to a file and counts it.",
        ),
    ],
    stream=True,
)
async def tee_object(
    ctx: Invocation,
    *,
    file_path: str | None = None,
    variable: str | None = None,
    append: bool = False,
    encoding: str | None = None,
    input_object: Any = None,
) -> list[Any]:
    if (file_path is None) == (variable is None):
        raise ParameterError("Tee-Object", None, "give one of -FilePath or -Variable")
    items = await collect(ctx.input if ctx.input is not None else input_object)
    if variable is not None:
        ctx.state.globals.set(variable.lstrip("$"), single_or_list(list(items)))
    else:
        from fayshell.render import render_plain

        text = render_plain(items)
        try:
            target = ctx.state.resolve_path(str(file_path))
            write_text(target, text + ("\n" if text else ""), encoding, append)
        except OSError as exc:
            raise CommandError("Tee-Object", f"{file_path}: {exc.strerror}") from None
    return items
