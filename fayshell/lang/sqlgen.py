"""Translate script blocks into DuckDB SQL expressions.

``{ $_.k -eq 3 }`` over a relation with column ``k`` becomes ``("k" = 3)``. Only what has the same
meaning in SQL as in the evaluator is translated (PowerShell's case-insensitive string
comparison becomes ``lower()`` on both sides, ``-like`` becomes ``ILIKE``); anything else raises
:class:`Untranslatable` and the cmdlet falls back to row-wise evaluation.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from fayshell.errors import SourceSpan, UnknownProperty
from fayshell.lang import ast
from fayshell.lang.values import ScriptBlock
from fayshell.store.relation import quote_ident, quote_literal

STRING_TYPES = ("VARCHAR", "TEXT", "STRING")
NUMERIC_WORDS = ("INT", "DOUBLE", "FLOAT", "DECIMAL", "REAL", "HUGEINT", "NUMERIC")
CMP = {"eq": "=", "ne": "<>", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}
ARITH = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%"}


class Untranslatable(Exception):  # noqa: N818 - a reason to fall back, not an error
    """The script block uses something SQL cannot express with the same meaning."""


@dataclass(frozen=True)
class Sql:
    """A translated expression and what is known of its type."""

    text: str
    kind: str  # "string", "number", "bool", "null", "other"


def column_kind(duck_type: str) -> str:
    upper = duck_type.upper()
    if upper.startswith(STRING_TYPES):
        return "string"
    if upper == "BOOLEAN":
        return "bool"
    if any(w in upper for w in NUMERIC_WORDS) and "[" not in upper and "STRUCT" not in upper:
        return "number"
    return "other"


class Translator:
    """Translates the expressions of one script block against a relation's columns."""

    def __init__(self, block: ScriptBlock, schema: Mapping[str, str]) -> None:
        self.block = block
        self.columns = {name.lower(): (name, column_kind(t)) for name, t in schema.items()}

    def single_expression(self) -> ast.Node:
        body = self.block.node.body
        if len(body) != 1 or self.block.node.params:
            raise Untranslatable("the script block is not a single expression")
        node = body[0]
        if isinstance(node, (ast.Pipeline, ast.Command, ast.Assign)):
            raise Untranslatable("the script block runs a command")
        return node

    def check_members(self) -> None:
        """Every ``$_.name`` in the block must be a column: a typo is an error, not $null rows."""
        for node in row_members(self.block.node.body):
            if node.name.lower() not in self.columns:
                raise self.unknown(node)

    def unknown(self, node: ast.Member) -> UnknownProperty:
        names = [name for name, _ in self.columns.values()]
        return UnknownProperty(node.name, names, self.span(node))

    def span(self, node: ast.Node) -> SourceSpan | None:
        interp = getattr(self.block, "interp", None)
        if interp is None or node.line <= 0:
            return None
        return interp.origin.span(node)

    def predicate(self) -> str:
        """A WHERE condition for ``Where-Object``."""
        self.check_members()
        result = self.expr(self.single_expression())
        if result.kind != "bool":
            raise Untranslatable("the script block is not a comparison or logical test")
        return result.text

    def value(self) -> Sql:
        """A value expression for calculated properties and sort keys."""
        self.check_members()
        return self.expr(self.single_expression())

    def expr(self, node: ast.Node) -> Sql:
        if isinstance(node, ast.Literal):
            return literal(node.value)
        if isinstance(node, ast.Paren):
            if isinstance(node.pipeline, (ast.Pipeline, ast.Command, ast.Assign)):
                raise Untranslatable("a command inside the script block")
            inner = self.expr(node.pipeline)
            return Sql(f"({inner.text})", inner.kind)
        if isinstance(node, ast.Member):
            return self.member(node)
        if isinstance(node, ast.VarRef):
            return self.variable(node)
        if isinstance(node, ast.Unary):
            return self.unary(node)
        if isinstance(node, ast.Binary):
            return self.binary(node)
        raise Untranslatable(f"{type(node).__name__} has no SQL translation")

    def member(self, node: ast.Member) -> Sql:
        if not (isinstance(node.obj, ast.VarRef) and node.obj.name.lower() in ("_", "psitem")):
            raise Untranslatable("only $_.column is translated")
        found = self.columns.get(node.name.lower())
        if found is None:
            raise self.unknown(node)
        return Sql(quote_ident(found[0]), found[1])

    def variable(self, node: ast.VarRef) -> Sql:
        if node.name.lower() in ("_", "psitem"):
            raise Untranslatable("$_ as a whole row")
        found, value = self.block.scope.lookup(node.name)
        if not found:
            return Sql("NULL", "null")
        return literal(value)

    def unary(self, node: ast.Unary) -> Sql:
        inner = self.expr(node.operand)
        if node.op == "-not":
            if inner.kind != "bool":
                raise Untranslatable("-not of a non-boolean")
            return Sql(f"(NOT {inner.text})", "bool")
        if inner.kind != "number":
            raise Untranslatable("arithmetic on a non-number")
        return Sql(f"({node.op}{inner.text})", "number")

    def binary(self, node: ast.Binary) -> Sql:
        op = node.op
        if op in ("and", "or", "xor"):
            left, right = self.expr(node.left), self.expr(node.right)
            if left.kind != "bool" or right.kind != "bool":
                raise Untranslatable(f"-{op} of non-boolean operands")
            sql_op = {"and": "AND", "or": "OR", "xor": "<>"}[op]
            return Sql(f"({left.text} {sql_op} {right.text})", "bool")
        if op in ARITH:
            return self.arithmetic(node)
        case = op[0] == "c" and op[1:] in CMP | {"like": 0, "notlike": 0, "match": 0, "notmatch": 0}
        base = (
            op[1:]
            if op[0] in "ci"
            and len(op) > 2
            and op[1:]
            in (
                *CMP,
                "like",
                "notlike",
                "match",
                "notmatch",
                "in",
                "notin",
                "contains",
                "notcontains",
            )
            else op
        )
        if base in CMP:
            return self.comparison(base, self.expr(node.left), self.expr(node.right), case)
        if base in ("like", "notlike", "match", "notmatch"):
            return self.pattern(base, self.expr(node.left), node.right, case)
        if base in ("in", "notin"):
            return self.membership(base == "notin", self.expr(node.left), node.right)
        if base in ("contains", "notcontains"):
            return self.membership(base == "notcontains", self.expr(node.right), node.left)
        raise Untranslatable(f"-{op} has no SQL translation")

    def arithmetic(self, node: ast.Binary) -> Sql:
        left, right = self.expr(node.left), self.expr(node.right)
        if left.kind == "string" and node.op == "+":
            return Sql(f"({left.text} || CAST({right.text} AS VARCHAR))", "string")
        if left.kind not in ("number", "null") or right.kind not in ("number", "null"):
            raise Untranslatable("arithmetic on non-numbers")
        # $null counts as 0 in arithmetic, as in the evaluator
        a, b = f"coalesce({left.text}, 0)", f"coalesce({right.text}, 0)"
        if node.op in "/%":
            return Sql(f"({a} {ARITH[node.op]} nullif({b}, 0))", "number")
        return Sql(f"({a} {ARITH[node.op]} {b})", "number")

    def comparison(self, op: str, left: Sql, right: Sql, case: bool) -> Sql:
        if right.kind == "null" or left.kind == "null":
            other = left if right.kind == "null" else right
            if op not in ("eq", "ne"):
                raise Untranslatable("ordering against $null")
            neg = "NOT " if op == "ne" else ""
            return Sql(f"({other.text} IS {neg}NULL)", "bool")
        if left.kind == "other" or right.kind == "other":
            raise Untranslatable("comparison of a column of a complex type")
        if left.kind == "string" and right.kind == "number":
            right = Sql(f"CAST({right.text} AS VARCHAR)", "string")
        if left.kind == "string" and right.kind == "string" and not case:
            left, right = (
                Sql(f"lower({left.text})", "string"),
                Sql(f"lower({right.text})", "string"),
            )
        if left.kind == "bool" and right.kind != "bool":
            raise Untranslatable("comparison of a boolean with a non-boolean")
        text = f"({left.text} {CMP[op]} {right.text})"
        if op == "ne":
            text = f"({left.text} IS DISTINCT FROM {right.text})"
        return Sql(text, "bool")

    def pattern(self, op: str, left: Sql, right_node: ast.Node, case: bool) -> Sql:
        right = self.expr(right_node)
        if not right.text.startswith("'"):
            raise Untranslatable("-like/-match with a pattern that is not a constant string")
        subject = left.text if left.kind == "string" else f"CAST({left.text} AS VARCHAR)"
        pattern_text = _unquote(right.text)
        if op.endswith("like") and "[" in pattern_text:
            raise Untranslatable("-like with a [..] character class")
        negate = op.startswith("not")
        if op.endswith("like"):
            sql_pat = wildcard_to_like(pattern_text)
            verb = "LIKE" if case else "ILIKE"
            text = f"(coalesce({subject}, '') {verb} {quote_literal(sql_pat)} ESCAPE '\\')"
        else:
            flags = "" if case else ", 'i'"
            text = f"regexp_matches(coalesce({subject}, ''), {right.text}{flags})"
        return Sql(f"(NOT {text})" if negate else text, "bool")

    def membership(self, negate: bool, item: Sql, collection_node: ast.Node) -> Sql:
        values = self.constant(collection_node)
        items = values if isinstance(values, list) else [values]
        if not items:
            return Sql("TRUE" if negate else "FALSE", "bool")
        lits = [literal(v) for v in items]
        if item.kind == "string" and all(v.kind == "string" for v in lits):
            item = Sql(f"lower({item.text})", "string")
            lits = [Sql(f"lower({v.text})", "string") for v in lits]
        word = "NOT IN" if negate else "IN"
        return Sql(f"({item.text} {word} ({', '.join(v.text for v in lits)}))", "bool")

    def constant(self, node: ast.Node) -> Any:
        """A value known before the query runs: a literal, an array of them, or a variable."""
        if isinstance(node, ast.Literal):
            return node.value
        if isinstance(node, ast.ArrayLit):
            return [self.constant(i) for i in node.items]
        if isinstance(node, ast.Paren) and not isinstance(node.pipeline, ast.Pipeline):
            return self.constant(node.pipeline)
        if isinstance(node, ast.VarRef) and node.name.lower() not in ("_", "psitem"):
            return self.block.scope.lookup(node.name)[1]
        raise Untranslatable("the collection is not a constant")


def is_row_var(node: ast.Node) -> bool:
    return isinstance(node, ast.VarRef) and node.name.lower() in ("_", "psitem")


def row_members(nodes: list[ast.Node]) -> Iterator[ast.Member]:
    """The ``$_.name`` nodes of a block body, not looking into nested script blocks
    (where ``$_`` means something else)."""
    for node in nodes:
        yield from _members(node)


def _members(node: Any) -> Iterator[ast.Member]:
    if isinstance(node, (list, tuple)):
        for item in node:
            yield from _members(item)
        return
    if not isinstance(node, ast.Node) or isinstance(node, ast.ScriptBlockLit):
        return
    if isinstance(node, ast.Member) and is_row_var(node.obj):
        yield node
    for f in fields(node):
        yield from _members(getattr(node, f.name))


def _unquote(text: str) -> str:
    return text[1:-1].replace("''", "'")


def literal(value: Any) -> Sql:
    """A Python value as a SQL literal; raises Untranslatable for records and blocks."""
    if value is None:
        return Sql("NULL", "null")
    if isinstance(value, bool):
        return Sql("TRUE" if value else "FALSE", "bool")
    if isinstance(value, int):
        return Sql(str(int(value)), "number")
    if isinstance(value, float):
        return Sql(repr(value), "number")
    if isinstance(value, str):
        return Sql(quote_literal(value), "string")
    raise Untranslatable(f"a {type(value).__name__} value cannot be a SQL literal")


def wildcard_to_like(pattern: str) -> str:
    """PowerShell wildcard (``*``, ``?``) to a LIKE pattern with ``\\`` as escape."""
    out = []
    for ch in pattern:
        if ch in "%_\\":
            out.append("\\" + ch)
        elif ch == "*":
            out.append("%")
        elif ch == "?":
            out.append("_")
        else:
            out.append(ch)
    return "".join(out)
