"""The syntax tree of the fayshell language. Every node knows where it came from (line, col)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
    value: Any


@dataclass(eq=False)
class ExpandString(Node):
    """A double-quoted string: literal text pieces and embedded expressions."""

    parts: list[str | Node]


@dataclass(eq=False)
class VarRef(Node):
    name: str


@dataclass(eq=False)
class Member(Node):
    obj: Node
    name: str
    #: ``?.`` / ``?[]``: $null when ``obj`` is $null (nothing evaluated past it)
    safe: bool = field(default=False, kw_only=True)
    #: ``$x.$name`` or ``$x."a $b"``: the name is this expression's value (``name`` is "")
    computed: Node | None = field(default=None, kw_only=True)


@dataclass(eq=False)
class Index(Node):
    obj: Node
    index: Node
    #: ``?.`` / ``?[]``: $null when ``obj`` is $null (nothing evaluated past it)
    safe: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class MethodCall(Node):
    obj: Node
    name: str
    args: list[Node]
    #: ``?.`` / ``?[]``: $null when ``obj`` is $null (nothing evaluated past it)
    safe: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class Unary(Node):
    op: str
    operand: Node


@dataclass(eq=False)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(eq=False)
class ArrayLit(Node):
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
    pairs: list[tuple[Node, Node]]


@dataclass(eq=False)
class ParamDecl(Node):
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


@dataclass(eq=False)
class ScriptBlockLit(Node):
    params: list[ParamDecl]
    body: list[Node]
    text: str
    #: ``[Alias('x')]`` before ``param()``: other names of the function.
    aliases: list[str] = field(default_factory=list, kw_only=True)
    #: ``begin``/``process``/``end`` blocks when the body is written with them (else None).
    named: dict[str, list[Node]] | None = None
    #: ``[CmdletBinding(SupportsShouldProcess)]``: it takes -WhatIf and -Confirm.
    should_process: bool = field(default=False, kw_only=True)
    #: ``[CmdletBinding()]``: an advanced function, with $PSCmdlet.
    advanced: bool = field(default=False, kw_only=True)


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
    elements: list[Node]


@dataclass(eq=False)
class Assign(Node):
    target: Node
    op: str
    value: Node
    #: ``[int]$x = …``: the types written before the variable (its value is cast to them
    #: already); the variable keeps them, so later assignments are converted too.
    types: list[str] = field(default_factory=list, kw_only=True)


@dataclass(eq=False)
class If(Node):
    clauses: list[tuple[Node, list[Node]]]
    else_body: list[Node] | None


@dataclass(eq=False)
class Foreach(Node):
    var: str
    iterable: Node
    body: list[Node]


@dataclass(eq=False)
class While(Node):
    cond: Node
    body: list[Node]


@dataclass(eq=False)
class For(Node):
    init: Node | None
    cond: Node | None
    step: Node | None
    body: list[Node]


@dataclass(eq=False)
class DoLoop(Node):
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
    value: Node
    flags: frozenset[str]
    clauses: list[SwitchClause]


@dataclass(eq=False)
class Catch(Node):
    types: list[str]
    body: list[Node]


@dataclass(eq=False)
class Try(Node):
    body: list[Node]
    catches: list[Catch]
    finally_body: list[Node] | None


@dataclass(eq=False)
class Trap(Node):
    types: list[str]
    body: list[Node]


@dataclass(eq=False)
class Exit(Node):
    value: Node | None


@dataclass(eq=False)
class FunctionDef(Node):
    name: str
    params: list[ParamDecl]
    body: list[Node]
    text: str
    named: dict[str, list[Node]] | None = None
    aliases: list[str] = field(default_factory=list, kw_only=True)
    should_process: bool = field(default=False, kw_only=True)
    advanced: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class Return(Node):
    value: Node | None


@dataclass(eq=False)
class Break(Node):
    target: str | None = None


@dataclass(eq=False)
class Continue(Node):
    target: str | None = None


@dataclass(eq=False)
class Throw(Node):
    value: Node | None


@dataclass(eq=False)
class Script(Node):
    statements: list[Node]
    source: str = ""
    file: str = "<input>"
    #: A script file's own ``param(...)`` block.
    params: list[ParamDecl] = field(default_factory=list)
