"""Translate script blocks into DuckDB SQL expressions.

``{ $_.k -eq 3 }`` over a relation with column ``k`` becomes ``("k" = 3)``. Only what has the same
meaning in SQL as in the evaluator is translated (PowerShell's case-insensitive string
comparison becomes ``lower()`` on both sides, ``-like`` becomes ``ILIKE``); anything else raises
:class:`Untranslatable` and the cmdlet falls back to row-wise evaluation.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields, replace
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


#: What a ``Sql`` that is no constant holds in ``const``.
NOT_CONST: tuple[()] = ()


@dataclass(frozen=True)
class Sql:
    """A translated expression and what is known of its type.

    SQL's NULL is PowerShell's ``$null`` in a column, but a test in PowerShell is never
    unknown: ``$null -lt 5`` is True (``$null`` orders as 0 or ""), ``-not ($null -eq 3)`` is
    True. ``nullable`` marks an expression that may be NULL; ``test`` one whose NULL means
    False (a comparison with a NULL column), which :func:`truth` makes FALSE wherever the
    result is consumed (``-not``, ``-xor``, a comparison). A WHERE drops a NULL row as it
    drops a FALSE one, so top-level tests stay plain and DuckDB still pushes them into scans.
    """

    text: str
    kind: str  # "string", "number", "bool", "null", "other"
    nullable: bool = False
    test: bool = False
    const: tuple[Any, ...] = NOT_CONST  # (value,) for a literal


def truth(sql: Sql) -> Sql:
    """A test that is never NULL (NULL read as False)."""
    if not (sql.nullable and sql.test):
        return sql
    return Sql(f"coalesce({sql.text}, FALSE)", "bool")


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
        """A value expression for calculated properties and sort keys (a test is never
        NULL: ``$null -gt 5`` is False)."""
        self.check_members()
        return truth(self.expr(self.single_expression()))

    def expr(self, node: ast.Node) -> Sql:
        if isinstance(node, ast.Literal):
            return literal(node.value)
        if isinstance(node, ast.Paren):
            if isinstance(node.pipeline, (ast.Pipeline, ast.Command, ast.Assign)):
                raise Untranslatable("a command inside the script block")
            inner = self.expr(node.pipeline)
            return replace(inner, text=f"({inner.text})")
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
        return Sql(quote_ident(found[0]), found[1], nullable=True)

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
            return Sql(f"(NOT {_truthy(inner)})", "bool")  # -not $null is True
        if inner.kind != "number":
            raise Untranslatable("arithmetic on a non-number")
        return Sql(f"({node.op}{inner.text})", "number")

    def binary(self, node: ast.Binary) -> Sql:
        op = node.op
        if op in ("and", "or", "xor"):
            left, right = self.expr(node.left), self.expr(node.right)
            if left.kind != "bool" or right.kind != "bool":
                raise Untranslatable(f"-{op} of non-boolean operands")
            if op == "xor":
                return Sql(f"({_truthy(left)} <> {_truthy(right)})", "bool")
            sql_op = {"and": "AND", "or": "OR"}[op]
            # NULL AND/OR x is as true as FALSE AND/OR x: only a consumer makes it FALSE
            nullable = left.nullable or right.nullable
            return Sql(f"({left.text} {sql_op} {right.text})", "bool", nullable, test=True)
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
        if left.kind == "string" and node.op == "+":  # $null + 'a' is 'a'
            text = f"(coalesce({left.text}, '') || coalesce(CAST({right.text} AS VARCHAR), ''))"
            return Sql(text, "string")
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
        if left.kind == "bool" and right.kind != "bool":
            raise Untranslatable("comparison of a boolean with a non-boolean")
        texts = left.kind == "string" and right.kind == "string"
        if texts and case and op not in ("eq", "ne"):  # culture order: 'a' -clt 'B'
            raise Untranslatable("case-sensitive ordering of text")
        left, right = truth(left), truth(right)
        lt, rt = left.text, right.text
        if left.kind == "string" and right.kind == "number":
            rt = f"CAST({rt} AS VARCHAR)"
        if texts and not case:
            lt, rt = f"lower({lt})", f"lower({rt})"
        if op == "ne":
            return Sql(f"({lt} IS DISTINCT FROM {rt})", "bool")
        if op == "eq" and left.nullable and right.nullable:  # $null -eq $null is True
            return Sql(f"({lt} IS NOT DISTINCT FROM {rt})", "bool")
        text = f"({lt} {CMP[op]} {rt})"
        if op == "eq" or not (left.nullable or right.nullable):
            return Sql(text, "bool", left.nullable or right.nullable, test=True)
        return _ordered(op, text, left, right, case)

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
        """``item -in list`` as -eq against each value: ``$null`` only matches ``$null``."""
        values = self.constant(collection_node)
        items = values if isinstance(values, list) else [values]
        lits = [literal(v) for v in items if v is not None]
        item = truth(item)
        subject = item.text
        if item.kind == "string" and all(v.kind == "string" for v in lits):
            subject, lits = f"lower({subject})", [Sql(f"lower({v.text})", "string") for v in lits]
        found = [f"{subject} IN ({', '.join(v.text for v in lits)})"] if lits else []
        if len(lits) < len(items):
            found.append(f"{item.text} IS NULL")
        test = Sql(f"({' OR '.join(found) or 'FALSE'})", "bool", item.nullable, test=True)
        return Sql(f"(NOT {truth(test).text})", "bool") if negate else test

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


def _truthy(sql: Sql) -> str:
    """A boolean that is never NULL: a NULL test or a NULL column read as False."""
    return f"coalesce({sql.text}, FALSE)" if sql.nullable else sql.text


#: What ``$null`` orders as against a value of each kind (as ops._order converts it).
_NULL_AS = {"number": "0", "string": "''", "bool": "FALSE"}


def _ordered(op: str, text: str, left: Sql, right: Sql, case: bool) -> Sql:
    """``text`` (``left op right``, either side a column that may be NULL) with PowerShell's
    answer for a NULL side: ``$null`` orders as the other side's 0 or "" (ops._order)."""
    from fayshell.lang.ops import compare

    if left.const or right.const:
        value, column = (left.const[0], right) if left.const else (right.const[0], left)
        args = (None, value) if column is left else (value, None)
        if not compare(("c" if case else "i") + op, *args):
            return Sql(text, "bool", nullable=True, test=True)  # NULL rows fail either way
        return Sql(f"({text} OR {column.text} IS NULL)", "bool")
    if left.kind != right.kind:
        raise Untranslatable("ordering of columns of different kinds")
    zero = _NULL_AS[left.kind]
    lt, rt = f"coalesce({left.text}, {zero})", f"coalesce({right.text}, {zero})"
    if left.kind == "string" and not case:
        lt, rt = f"lower({lt})", f"lower({rt})"
    return Sql(f"({lt} {CMP[op]} {rt})", "bool")


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
        return Sql("NULL", "null", nullable=True, const=(None,))
    if isinstance(value, bool):
        return Sql("TRUE" if value else "FALSE", "bool", const=(value,))
    if isinstance(value, int):
        return Sql(str(int(value)), "number", const=(value,))
    if isinstance(value, float):  # a [float]'s exact value, not the 7 digits it shows
        return Sql(repr(float(value)), "number", const=(value,))
    if isinstance(value, str):
        return Sql(quote_literal(value), "string", const=(value,))
    raise Untranslatable(f"a {type(value).__name__} value cannot be a SQL literal")


def wildcard_to_like(pattern: str) -> str:
    """PowerShell wildcard (``*``, ``?``, a backtick before a literal one) to a LIKE pattern
    with ``\\`` as escape."""
    out = []
    escaped = False
    for ch in pattern:
        if ch == "`" and not escaped:
            escaped = True
            continue
        if ch in "%_\\":
            out.append("\\" + ch)
        elif ch == "*" and not escaped:
            out.append("%")
        elif ch == "?" and not escaped:
            out.append("_")
        else:
            out.append(ch)
        escaped = False
    return "".join(out)
