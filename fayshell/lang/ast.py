"""The syntax tree of the fayshell language. Every node knows where it came from (line, col)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Node:
    """Base node: 1-based line and column of its first character."""

    line: int = field(default=0, kw_only=True)
    col: int = field(default=0, kw_only=True)


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


@dataclass(eq=False)
class Index(Node):
    obj: Node
    index: Node


@dataclass(eq=False)
class MethodCall(Node):
    obj: Node
    name: str
    args: list[Node]


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


@dataclass(eq=False)
class ScriptBlockLit(Node):
    params: list[ParamDecl]
    body: list[Node]
    text: str


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


@dataclass(eq=False)
class Pipeline(Node):
    elements: list[Node]


@dataclass(eq=False)
class Assign(Node):
    target: Node
    op: str
    value: Node


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
class FunctionDef(Node):
    name: str
    params: list[ParamDecl]
    body: list[Node]
    text: str


@dataclass(eq=False)
class Return(Node):
    value: Node | None


@dataclass(eq=False)
class Break(Node):
    pass


@dataclass(eq=False)
class Continue(Node):
    pass


@dataclass(eq=False)
class Throw(Node):
    value: Node | None


@dataclass(eq=False)
class Script(Node):
    statements: list[Node]
    source: str = ""
    file: str = "<input>"
