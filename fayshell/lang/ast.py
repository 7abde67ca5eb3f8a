"""The syntax tree of the fayshell language. Every node knows where it came from (line, col)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fayshell.lang.preferences import ConfirmImpact


@dataclass(eq=False)
class Node:
    """Base node: 1-based line and column of its first character."""

    line: int = field(default=0, kw_only=True)
    col: int = field(default=0, kw_only=True)
    #: A loop's ``:label`` (lower-case), for ``break label`` / ``continue label``.
    label: str | None = field(default=None, kw_only=True)


# ---- expressions ----------------------------------------------------------------------------


@dataclass(eq=False)
class Literal(Node):
    """A number, a single-quoted string, ``$true``/``$false``/``$null``: its value."""

    value: Any


@dataclass(eq=False)
class ExpandString(Node):
    """A double-quoted string: literal text pieces and embedded expressions."""

    parts: list[str | Node]


@dataclass(eq=False)
class VarRef(Node):
    """``$name`` (``name`` as written, without the ``$``)."""

    name: str


@dataclass(eq=False)
class Member(Node):
    """``obj.name``: a property (or ``obj.$name``, computed)."""

    obj: Node
    name: str
    #: ``?.`` / ``?[]``: $null when ``obj`` is $null (nothing evaluated past it)
    safe: bool = field(default=False, kw_only=True)
    #: ``$x.$name`` or ``$x."a $b"``: the name is this expression's value (``name`` is "")
    computed: Node | None = field(default=None, kw_only=True)


@dataclass(eq=False)
class Index(Node):
    """``obj[index]``."""

    obj: Node
    index: Node
    #: ``?.`` / ``?[]``: $null when ``obj`` is $null (nothing evaluated past it)
    safe: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class MethodCall(Node):
    """``obj.name(args)``."""

    obj: Node
    name: str
    args: list[Node]
    #: ``?.`` / ``?[]``: $null when ``obj`` is $null (nothing evaluated past it)
    safe: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class Unary(Node):
    """``-x``, ``+x``, ``-not x`` (and ``!x``), ``-bnot x``, ``-split x``, ``-join x``."""

    op: str
    operand: Node


@dataclass(eq=False)
class Binary(Node):
    """``left op right``: arithmetic, comparison, logical, range and format operators."""

    op: str
    left: Node
    right: Node


@dataclass(eq=False)
class ArrayLit(Node):
    """``a, b, c`` (and unary ``,a``): the comma operator's array."""

    items: list[Node]


@dataclass(eq=False)
class SubExpr(Node):
    """``$( ... )``: statements whose output becomes a value."""

    body: list[Node]


@dataclass(eq=False)
class ArraySubExpr(Node):
    """``@( ... )``: statements whose output is always an array."""

    body: list[Node]


@dataclass(eq=False)
class Paren(Node):
    """``( pipeline )``."""

    pipeline: Node


@dataclass(eq=False)
class HashLit(Node):
    """``@{ key = value; ... }``: its key and value expressions in order."""

    pairs: list[tuple[Node, Node]]


@dataclass(eq=False)
class ParamDecl(Node):
    """One parameter of ``param(...)`` or of a function: type, default and attributes."""

    name: str
    type: str | None = None
    default: Node | None = None
    #: From ``[Parameter(Mandatory)]`` and ``[Parameter(ValueFromPipeline)]``.
    mandatory: bool = False
    from_pipeline: bool = False
    #: ``[Parameter(ValueFromPipelineByPropertyName)]``: bound from the input's property.
    by_property: bool = False
    #: ``[ValidateSet('a','b')]``, ``[ValidateRange(1,10)]`` ...: the attribute's name
    #: (lower-case) and its argument expressions, checked when a value is bound.
    checks: list[tuple[str, list[Node]]] = field(default_factory=list)
    #: ``[Alias('n')]``: other names of the parameter.
    aliases: list[str] = field(default_factory=list)
    #: ``[Parameter(ValueFromRemainingArguments)]``: the arguments no other parameter takes.
    remaining: bool = field(default=False, kw_only=True)
    #: ``[Parameter(ParameterSetName = 'X', Mandatory)]``: the sets it belongs to, each with
    #: whether it is mandatory there (none: it belongs to every set).
    sets: list[tuple[str, bool]] = field(default_factory=list, kw_only=True)
    #: ``[Parameter(Position = 0)]``: its place among positional arguments.
    position: int | None = field(default=None, kw_only=True)


@dataclass(eq=False)
class ScriptBlockLit(Node):
    """``{ ... }``: a script block's parameters, body and source text."""

    params: list[ParamDecl]
    body: list[Node]
    text: str
    #: ``[Alias('x')]`` before ``param()``: other names of the function.
    aliases: list[str] = field(default_factory=list, kw_only=True)
    #: ``begin``/``process``/``end`` blocks when the body is written with them (else None).
    named: dict[str, list[Node]] | None = None
    #: ``[CmdletBinding(SupportsShouldProcess)]``: it takes -WhatIf and -Confirm.
    should_process: bool = field(default=False, kw_only=True)
    #: ``[CmdletBinding(ConfirmImpact = 'High')]``, as ConfirmImpact spells it.
    confirm_impact: ConfirmImpact = field(default="Medium", kw_only=True)
    #: ``[CmdletBinding(PositionalBinding = $false)]``: only explicit positions.
    positional: bool = field(default=True, kw_only=True)
    #: ``[CmdletBinding()]``: an advanced function, with $PSCmdlet.
    advanced: bool = field(default=False, kw_only=True)
    #: ``[CmdletBinding(DefaultParameterSetName = 'X')]``.
    default_set: str = field(default="", kw_only=True)


@dataclass(eq=False)
class TypeLit(Node):
    """``[int]`` standing alone, as in ``$x -is [int]`` or ``[math]::PI``."""

    name: str


@dataclass(eq=False)
class StaticMember(Node):
    """``[type]::Name`` or ``[type]::Name(args)`` (``args`` is None for a property)."""

    type: str
    name: str
    args: list[Node] | None = None


@dataclass(eq=False)
class Ternary(Node):
    """``cond ? then : other``."""

    cond: Node
    then: Node
    other: Node


@dataclass(eq=False)
class IncDec(Node):
    """``$i++``, ``++$i``, ``$i--``, ``--$i``."""

    op: str
    target: Node
    prefix: bool


@dataclass(eq=False)
class Splat(Node):
    """``@params`` in a command's arguments."""

    name: str


@dataclass(eq=False)
class Cast(Node):
    """``[type] operand``."""

    type: str
    operand: Node


# ---- commands and statements ----------------------------------------------------------------


@dataclass(eq=False)
class ParamArg(Node):
    """``-Name`` or ``-Name:value`` in a command's arguments."""

    name: str
    value: Node | None = None


@dataclass(eq=False)
class Command(Node):
    """A command in a pipeline: its name (or callee) and arguments as written."""

    name: str
    args: list[Node]
    raw_tail: str | None = None
    #: ``& expr`` / ``. expr``: the callee expression (then ``name`` is ``&`` or ``.``).
    callee: Node | None = None
    #: Redirections: (stream, operator, target) as in ``2>&1``, ``>> file``, ``2>$null``.
    redirects: list[tuple[str, str, Node | None]] = field(default_factory=list)


@dataclass(eq=False)
class Redirected(Node):
    """An expression statement with redirections: ``'x' > file``."""

    expr: Node
    redirects: list[tuple[str, str, Node | None]]


@dataclass(eq=False)
class Chain(Node):
    """Pipeline chains ``a && b`` / ``a || b``."""

    left: Node
    op: str
    right: Node


@dataclass(eq=False)
class Pipeline(Node):
    """``a | b | c``: its commands and expressions in order."""

    elements: list[Node]


@dataclass(eq=False)
class Assign(Node):
    """``target op value``: ``=``, ``+=``, ``-=``, ``*=``, ``/=``, ``%=``, ``??=``."""

    target: Node
    op: str
    value: Node
    #: ``[int]$x = …``: the types written before the variable (its value is cast to them
    #: already); the variable keeps them, so later assignments are converted too.
    types: list[str] = field(default_factory=list, kw_only=True)


@dataclass(eq=False)
class If(Node):
    """``if (c) { } elseif (c) { } else { }``: each condition with its body."""

    clauses: list[tuple[Node, list[Node]]]
    else_body: list[Node] | None


@dataclass(eq=False)
class Foreach(Node):
    """``foreach ($var in iterable) { body }``."""

    var: str
    iterable: Node
    body: list[Node]


@dataclass(eq=False)
class While(Node):
    """``while (cond) { body }``."""

    cond: Node
    body: list[Node]


@dataclass(eq=False)
class For(Node):
    """``for (init; cond; step) { body }`` (each part may be missing)."""

    init: Node | None
    cond: Node | None
    step: Node | None
    body: list[Node]


@dataclass(eq=False)
class DoLoop(Node):
    """``do { body } while (cond)``, or ``until (cond)`` when ``until``."""

    body: list[Node]
    cond: Node
    until: bool


@dataclass(eq=False)
class SwitchClause(Node):
    """One ``pattern { body }``; ``pattern`` None is ``default``."""

    pattern: Node | None
    body: list[Node]


@dataclass(eq=False)
class Switch(Node):
    """``switch -flags (value) { clauses }``."""

    value: Node
    flags: frozenset[str]
    clauses: list[SwitchClause]


@dataclass(eq=False)
class Catch(Node):
    """``catch [types] { body }`` (no types: every error)."""

    types: list[str]
    body: list[Node]


@dataclass(eq=False)
class Try(Node):
    """``try { } catch { } finally { }``."""

    body: list[Node]
    catches: list[Catch]
    finally_body: list[Node] | None


@dataclass(eq=False)
class Trap(Node):
    """``trap [types] { body }``: runs when a terminating error reaches its scope."""

    types: list[str]
    body: list[Node]


@dataclass(eq=False)
class Exit(Node):
    """``exit [value]``."""

    value: Node | None


@dataclass(eq=False)
class FunctionDef(Node):
    """``function name { ... }`` (or ``filter``): what a call of it runs."""

    name: str
    params: list[ParamDecl]
    body: list[Node]
    text: str
    named: dict[str, list[Node]] | None = None
    aliases: list[str] = field(default_factory=list, kw_only=True)
    should_process: bool = field(default=False, kw_only=True)
    confirm_impact: ConfirmImpact = field(default="Medium", kw_only=True)
    positional: bool = field(default=True, kw_only=True)
    advanced: bool = field(default=False, kw_only=True)
    default_set: str = field(default="", kw_only=True)


@dataclass(eq=False)
class EnumDef(Node):
    """``enum Name { Member [= value] ... }`` (``[Flags()]`` before it: ``flags``)."""

    name: str
    members: list[tuple[str, Node | None]]
    flags: bool = False


@dataclass(eq=False)
class ClassProperty(Node):
    """``[type] $Name = default`` in a class (``static``: the class's own, not each object's)."""

    name: str
    type: str | None
    default: Node | None
    static: bool = False
    #: ``hidden``: not shown by the formatters, Select-Object * or Get-Member.
    hidden: bool = field(default=False, kw_only=True)
    #: ``[ValidateRange(1, 10)]`` ...: checked when the property is set (as ParamDecl.checks).
    checks: list[tuple[str, list[Node]]] = field(default_factory=list, kw_only=True)


@dataclass(eq=False)
class ClassMethod(Node):
    """``[type] Name($a, $b) { body }`` in a class; a constructor (``Name`` the class's) may
    call its base class's with ``: base(args)``."""

    name: str
    return_type: str | None
    params: list[ParamDecl]
    body: list[Node]
    static: bool = False
    constructor: bool = False
    base_args: list[Node] | None = None


@dataclass(eq=False)
class ClassDef(Node):
    """``class Name [: Base] { properties and methods }``."""

    name: str
    base: str | None
    properties: list[ClassProperty]
    methods: list[ClassMethod]
    #: The names after the base class (``: Base, IComparable``): .NET interfaces.
    interfaces: list[str] = field(default_factory=list, kw_only=True)


@dataclass(eq=False)
class Return(Node):
    """``return [value]``."""

    value: Node | None


@dataclass(eq=False)
class Break(Node):
    """``break [label]``."""

    target: str | None = None


@dataclass(eq=False)
class Continue(Node):
    """``continue [label]``."""

    target: str | None = None


@dataclass(eq=False)
class Throw(Node):
    """``throw [value]``."""

    value: Node | None


@dataclass(eq=False)
class Script(Node):
    """A whole script: its statements, source text, file name and ``param()`` block."""

    statements: list[Node]
    source: str = ""
    file: str = "<input>"
    #: A script file's own ``param(...)`` block.
    params: list[ParamDecl] = field(default_factory=list)
