"""The syntax tree of the fayshell language. Every node knows where it came from (line, col)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Node:
    """Base node: 1-based line and column of its first character."""

    line: int = field(default=0, kw_only=True)
    col: int = field(default=0, kw_only=True)


# ---- expressions ----------------------------------------------------------------------------


@dataclass
class Literal(Node):
    value: Any


@dataclass
class ExpandString(Node):
    """A double-quoted string: literal text pieces and embedded expressions."""

    parts: list[str | Node]


@dataclass
class VarRef(Node):
    name: str


@dataclass
class Member(Node):
    obj: Node
    name: str


@dataclass
class Index(Node):
    obj: Node
    index: Node


@dataclass
class MethodCall(Node):
    obj: Node
    name: str
    args: list[Node]


@dataclass
class Unary(Node):
    op: str
    operand: Node


@dataclass
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass
class ArrayLit(Node):
    items: list[Node]


@dataclass
class SubExpr(Node):
    """``$( ... )``: statements whose output becomes a value."""

    body: list[Node]


@dataclass
class ArraySubExpr(Node):
    """``@( ... )``: statements whose output is always an array."""

    body: list[Node]


@dataclass
class Paren(Node):
    """``( pipeline )``."""

    pipeline: Node


@dataclass
class HashLit(Node):
    pairs: list[tuple[Node, Node]]


@dataclass
class ParamDecl(Node):
    name: str
    type: str | None = None
    default: Node | None = None


@dataclass
class ScriptBlockLit(Node):
    params: list[ParamDecl]
    body: list[Node]
    text: str


@dataclass
class Cast(Node):
    type: str
    operand: Node


# ---- commands and statements ----------------------------------------------------------------


@dataclass
class ParamArg(Node):
    """``-Name`` or ``-Name:value`` in a command's arguments."""

    name: str
    value: Node | None = None


@dataclass
class Command(Node):
    name: str
    args: list[Node]
    raw_tail: str | None = None


@dataclass
class Pipeline(Node):
    elements: list[Node]


@dataclass
class Assign(Node):
    target: Node
    op: str
    value: Node


@dataclass
class If(Node):
    clauses: list[tuple[Node, list[Node]]]
    else_body: list[Node] | None


@dataclass
class Foreach(Node):
    var: str
    iterable: Node
    body: list[Node]


@dataclass
class While(Node):
    cond: Node
    body: list[Node]


@dataclass
class FunctionDef(Node):
    name: str
    params: list[ParamDecl]
    body: list[Node]
    text: str


@dataclass
class Return(Node):
    value: Node | None


@dataclass
class Break(Node):
    pass


@dataclass
class Continue(Node):
    pass


@dataclass
class Throw(Node):
    value: Node | None


@dataclass
class Script(Node):
    statements: list[Node]
    source: str = ""
    file: str = "<input>"
