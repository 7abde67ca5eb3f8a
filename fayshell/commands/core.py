"""The object-pipeline cmdlets: Where-, Select-, Sort-, Group-, Measure- and ForEach-Object.

Each one first tries to stay a relation (translating its arguments to SQL, so the whole
pipeline runs as one DuckDB query) and otherwise works row-wise on records, with the same
meaning. ``-Verbose`` says which path was taken and shows the SQL.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.objects import short_type
from fayshell.commands.props import (
    PropSpec,
    column_of,
    evaluate,
    expand_wildcards,
    parse_props,
    prop_value,
    sql_of,
)
from fayshell.commands.registry import BY_VALUE, Param, cmdlet
from fayshell.errors import ParameterError, UnknownProperty
from fayshell.lang.ops import (
    ORDERED,
    OperatorError,
    SortKey,
    compare,
    to_number,
    to_string,
    truthy,
)
from fayshell.lang.sqlgen import Translator, Untranslatable, column_kind
from fayshell.lang.streams import aiter_items, collect, is_relation, unroll
from fayshell.lang.values import NUMBERS, Hashtable, ScriptBlock
from fayshell.records import all_property_names, has_property
from fayshell.store.relation import quote_ident, quote_literal

INPUT = Param("InputObject", "any", pipeline=BY_VALUE, help="The records to work on.")
WHERE_OPS = (
    "EQ",
    "NE",
    "GT",
    "GE",
    "LT",
    "LE",
    "Like",
    "NotLike",
    "Match",
    "NotMatch",
    "In",
    "NotIn",
    "Contains",
    "NotContains",
    "CEQ",
    "CNE",
    "CGT",
    "CGE",
    "CLT",
    "CLE",
    "CLike",
    "CNotLike",
    "CMatch",
    "CNotMatch",
    "CIn",
    "CNotIn",
    "CContains",
    "CNotContains",
    "Is",
    "IsNot",
    "Not",
)
PARALLEL_PARAMS = (
    Param(
        "Parallel",
        "scriptblock",
        help="Accepted, and run sequentially in this session: the result is the same as "
        "PowerShell's (which runs the block in separate runspaces), in input order; "
        "-Verbose says so. For work on many nodes use Invoke-Command, which fans out.",
    ),
    Param("ThrottleLimit", int, help="With -Parallel: accepted, unused (runs sequentially)."),
    Param("TimeoutSeconds", int, help="With -Parallel: accepted, unused."),
)


def _pushdown(ctx: Invocation, source: Any) -> bool:
    """Whether to try SQL: the input is a relation and $FayPushdown is not $false."""
    if not is_relation(source):
        return False
    found, value = ctx.state.globals.lookup("FayPushdown")
    if found and not truthy(value):
        ctx.write_verbose("row-wise evaluation: $FayPushdown is $false")
        return False
    return True


def _fallback(ctx: Invocation, reason: str) -> None:
    ctx.write_verbose(f"row-wise evaluation: {reason}")


def _sql(ctx: Invocation, rel: Any) -> Any:
    ctx.write_verbose(f"SQL: {rel.sql}")
    return rel


# ---- Where-Object ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """The simplified form ``Where-Object Name -EQ value``."""

    prop: str
    op: str
    value: Any


@cmdlet(
    "Where-Object",
    aliases=("where", "?"),
    synopsis="Keep the records for which a script block is true.",
    description="Over a relation the test is translated to a SQL WHERE clause; script blocks "
    "SQL cannot express run row-wise with the same result.",
    params=[
        Param(
            "FilterScript",
            "any",
            position=0,
            aliases=("Property",),
            help="A script block testing $_, or a property name with -EQ/-GT/... and a value "
            "(a property alone keeps the objects where it is true).",
        ),
        Param("Value", "any", position=1, help="The value for the simplified comparison form."),
        *(
            Param(
                op,
                bool,
                help=f"Simplified form: property -{op.lower()} value."
                if op != "Not"
                else "Simplified form: objects whose property is false.",
            )
            for op in WHERE_OPS
        ),
        *PARALLEL_PARAMS,
        INPUT,
    ],
    examples=[
        ("Get-Span | Where-Object { $_.dur_ns -gt 50ms }", "Spans slower than 50 ms."),
        ("Get-Node | ? name -like 'web*'", "Simplified syntax: property, operator, value."),
        ("Get-Node | Where-Object -Property reachable", "Objects whose property is true."),
    ],
    stream=True,
)
async def where_object(
    ctx: Invocation,
    *,
    filter_script: Any = None,
    value: Any = None,
    input_object: Any = None,
    parallel: ScriptBlock | None = None,
    throttle_limit: int | None = None,
    timeout_seconds: int | None = None,
    **ops: bool,
) -> Any:
    if parallel is not None:
        if filter_script is not None:
            raise ParameterError("Where-Object", "Parallel", "cannot be used with a filter")
        ctx.write_verbose("-Parallel runs sequentially in fayshell")
        filter_script = parallel
    if filter_script is None:
        raise ParameterError(
            "Where-Object",
            None,
            "missing mandatory parameter -FilterScript (a script block or a property name)",
        )
    test = _where_test(filter_script, value, ops)
    source = ctx.input if ctx.input is not None else input_object
    if _pushdown(ctx, source):
        try:
            if isinstance(test, ScriptBlock):
                cond = Translator(test, source.schema()).predicate()
            else:
                cond = _comparison_sql(test, source.schema())
            return _sql(ctx, source.wrap("*", f"WHERE {cond}"))
        except Untranslatable as why:
            _fallback(ctx, str(why))
    return _where_rows(source, test)


def _where_test(filter_script: Any, value: Any, ops: dict[str, bool]) -> ScriptBlock | Comparison:
    chosen = [name for name, on in ops.items() if on]
    if isinstance(filter_script, ScriptBlock):
        if chosen:  # named as declared (-In arrives as in_)
            shown = next(op for op in WHERE_OPS if op.lower() == chosen[0].rstrip("_"))
            raise ParameterError("Where-Object", shown, "cannot be used with a script block")
        return filter_script
    if len(chosen) > 1:
        raise ParameterError(
            "Where-Object",
            None,
            "give a script block, or a property with exactly one of "
            "-EQ -NE -GT -GE -LT -LE -Like -Match -In -Contains and a value",
        )
    op = chosen[0].lower().replace("_", "") if chosen else "true"
    if op in ("not", "true") and value is not None:
        raise ParameterError(
            "Where-Object",
            None,
            f"unexpected value {to_string(value)!r}: "
            "give an operator such as -EQ between property and value",
        )
    return Comparison(to_string(filter_script), op, value)


def _comparison_sql(test: Comparison, schema: dict[str, str]) -> str:
    from fayshell.lang import ast

    prop = ast.Member(ast.VarRef("_"), test.prop)
    if test.op in ("is", "isnot"):
        raise Untranslatable("-Is and -IsNot test .NET types, row by row")
    if test.op in ("true", "not"):
        node: Any = prop if test.op == "true" else ast.Unary("-not", prop)
        return Translator(_expr_block(node), schema).predicate()
    node = ast.Binary(test.op, prop, ast.Literal(test.value))
    return Translator(_expr_block(node), schema).expr(node).text


def _expr_block(node: Any) -> ScriptBlock:
    """A stand-in script block around one expression, for the translator."""
    from fayshell.lang import ast
    from fayshell.state import Scope

    lit = ast.ScriptBlockLit([], [node], "")
    return ScriptBlock(lit, Scope(), None)  # type: ignore[arg-type]


def _comparison_keeps(test: Comparison, item: Any) -> bool:
    value = prop_value(item, test.prop)
    if test.op == "true":
        return truthy(value)
    if test.op == "not":
        return not truthy(value)
    if test.op in ("is", "isnot"):  # -Is [string]: the type operators
        from fayshell.lang.interp import binary_op

        kind = test.value  # a type literal, or its text as a command argument: '[string]'
        if isinstance(kind, str) and kind.startswith("[") and kind.endswith("]"):
            kind = kind[1:-1]
        return bool(binary_op(test.op, value, kind))
    return truthy(compare(test.op, value, test.value))


async def _where_rows(source: Any, test: ScriptBlock | Comparison) -> AsyncIterator[Any]:
    async for item in aiter_items(source):
        if isinstance(test, ScriptBlock):  # in the caller's scope, as PowerShell runs it
            out = await test.interp.invoke_here(test, item)
            keep = truthy(out[0] if len(out) == 1 else out)
        else:
            keep = _comparison_keeps(test, item)
        if keep:
            yield item


# ---- Select-Object -----------------------------------------------------------------------------


@cmdlet(
    "Select-Object",
    aliases=("select",),
    synopsis="Pick properties (or calculated ones), or the first/last records.",
    params=[
        Param(
            "Property",
            "any",
            position=0,
            help="Names (wildcards allowed) or @{n='name'; e={ expression }}.",
        ),
        Param("First", int, help="Only the first N records."),
        Param("Last", int, help="Only the last N records."),
        Param("Skip", int, help="Skip N records first (with -Last: skip from the end)."),
        Param("SkipLast", int, help="Leave out the last N records."),
        Param("Index", "ints", help="Only the records at these positions (0-based)."),
        Param("Unique", bool, help="Drop duplicate records (case-sensitively)."),
        Param("ExpandProperty", str, help="Output the values of one property instead."),
        Param("ExcludeProperty", "strings", help="Properties to leave out."),
        INPUT,
    ],
    examples=[
        (
            "Get-Syscall | Select-Object name, @{n='ms'; e={ $_.dur_ns / 1e6 }} -First 5",
            "A calculated column, first five rows.",
        ),
        ("Get-Node | Select-Object -ExpandProperty name", "Just the node names."),
        ("1..10 | Select-Object -Skip 2 -SkipLast 2", "3 to 8."),
        ("'a','b','c' | Select-Object -Index 0,2", "a and c."),
    ],
    stream=True,
)
async def select_object(
    ctx: Invocation,
    *,
    property: Any = None,
    first: int | None = None,
    last: int | None = None,
    skip: int | None = None,
    skip_last: int | None = None,
    index: list[int] | None = None,
    unique: bool = False,
    expand_property: str | None = None,
    exclude_property: list[str] | None = None,
    input_object: Any = None,
) -> Any:
    specs = parse_props("Select-Object", _as_list(property))
    source = ctx.input if ctx.input is not None else input_object
    for name, n in (("First", first), ("Last", last), ("Skip", skip), ("SkipLast", skip_last)):
        if n is not None and n < 0:
            raise ParameterError("Select-Object", name, "must not be negative")
    if index is not None or skip_last is not None:
        rows = _select_rows(ctx, source, specs, unique, expand_property, exclude_property)
        return _window(_positions(rows, index, skip_last or 0), first, last, skip or 0)
    if _pushdown(ctx, source) and last is None:
        try:
            rel = _sql(
                ctx,
                _select_sql(source, specs, first, skip, unique, expand_property, exclude_property),
            )
            return rel if expand_property is None else _expand_values(rel)
        except Untranslatable as why:
            _fallback(ctx, str(why))
    rows = _select_rows(ctx, source, specs, unique, expand_property, exclude_property)
    return _window(rows, first, last, skip or 0)


def _as_list(value: Any) -> list[Any] | None:
    if value is None:
        return None
    return value if isinstance(value, list) else [value]


def _select_sql(
    rel: Any,
    specs: list[PropSpec],
    first: int | None,
    skip: int | None,
    unique: bool,
    expand: str | None,
    exclude: list[str] | None,
) -> Any:
    schema = rel.schema()
    if expand is not None:
        if specs:
            raise Untranslatable("-ExpandProperty with -Property adds properties row-wise")
        specs = [PropSpec(expand, expand)]
    specs = expand_wildcards(specs, list(schema)) if specs else [PropSpec(n, n) for n in schema]
    excluded = {e.lower() for e in exclude or []}
    cols = [
        f"{sql_of(s, schema)} AS {quote_ident(_label(s, schema))}"
        for s in specs
        if s.label.lower() not in excluded
    ]
    if not cols:
        raise Untranslatable("no properties left to select")
    tail = ""
    if first is not None:
        tail += f" LIMIT {first}"
    if skip:
        tail += f" OFFSET {skip}"
    if unique:
        return _first_of_each(rel.wrap(", ".join(cols) + f", {_POS}"), tail)
    return rel.wrap(", ".join(cols), tail.strip())


#: Each row's place in its input, for the -Unique that keeps the first of equal rows.
_POS = "row_number() OVER () AS _fay_pos"


def _first_of_each(rel: Any, tail: str) -> Any:
    """The first of each set of equal rows of ``rel`` (numbered by ``_POS``), in input order
    (PowerShell's -Unique keeps input order; DISTINCT alone would not)."""
    names = ", ".join(quote_ident(n) for n in rel.schema() if n != "_fay_pos")
    keep = f"QUALIFY row_number() OVER (PARTITION BY {names} ORDER BY _fay_pos) = 1"
    return rel.wrap("* EXCLUDE (_fay_pos)", f"{keep} ORDER BY _fay_pos{tail}")


def _label(spec: PropSpec, schema: dict[str, str]) -> str:
    """A plain name takes the column's own spelling; a calculated property keeps its label."""
    if spec.label != spec.source:
        return spec.label
    return column_of(spec, schema) or spec.label


async def _expand_values(rel: Any) -> AsyncIterator[Any]:
    for record in rel.iter_records():
        for v in unroll(next(iter(record.values()))):
            yield v


async def _select_rows(
    ctx: Invocation,
    source: Any,
    specs: list[PropSpec],
    unique: bool,
    expand: str | None,
    exclude: list[str] | None,
) -> AsyncGenerator[Any, None]:
    seen: set[str] = set()
    excluded = {e.lower() for e in exclude or []}
    warned = False
    async for item in aiter_items(source):
        if expand is not None:
            extra = {s.label: await evaluate(item, s) for s in specs}
            for v in unroll(prop_value(item, expand)):  # $null expands to nothing
                if extra and not isinstance(v, Mapping) and not warned:
                    warned = True
                    ctx.write_warning(_NOT_ADDED.format(", ".join(extra), short_type(v)))
                yield {**v, **extra} if extra and isinstance(v, Mapping) else v
            continue
        if specs or excluded:
            names = all_property_names(item)
            chosen = expand_wildcards(specs, names) if specs else [PropSpec(n, n) for n in names]
            out: Any = {
                s.label: await evaluate(item, s) for s in chosen if s.label.lower() not in excluded
            }
        else:
            out = item
        if unique:
            key = repr(out)
            if key in seen:
                continue
            seen.add(key)
        yield out


#: PowerShell adds -Property's properties to expanded numbers and strings as note properties
#: of their wrapper; fayshell's values have none, so it says what it left out.
_NOT_ADDED = (
    "-Property {0} not added to the expanded {1} values (a number or string "
    "carries no properties here; expand a property that holds objects, or use "
    "ForEach-Object to make [pscustomobject]s)"
)


async def _positions(
    rows: AsyncGenerator[Any, None], index: list[int] | None, skip_last: int
) -> AsyncGenerator[Any, None]:
    """-Index (0-based positions) and -SkipLast, which need the whole input."""
    items = [item async for item in rows]
    if skip_last:
        items = items[:-skip_last] if skip_last < len(items) else []
    if index is None:
        for item in items:
            yield item
        return
    for pos in sorted({i if i >= 0 else len(items) + i for i in index}):
        if 0 <= pos < len(items):
            yield items[pos]


async def _window(
    rows: AsyncGenerator[Any, None], first: int | None, last: int | None, skip: int
) -> AsyncIterator[Any]:
    if last is not None:
        tail: collections.deque[Any] = collections.deque(maxlen=last + skip)
        async for item in rows:
            tail.append(item)
        items = list(tail)
        for item in items[: len(items) - skip] if skip else items:
            yield item
        return
    count = 0
    async for item in rows:
        if skip > 0:
            skip -= 1
            continue
        if first is not None and count >= first:
            break
        count += 1
        yield item
        if count == first:  # the input stops now, not when its next item comes (-Wait)
            break
    await rows.aclose()


# ---- Sort-Object -------------------------------------------------------------------------------


@cmdlet(
    "Sort-Object",
    aliases=("sort",),
    synopsis="Sort records by one or more properties.",
    description="Strings sort case-insensitively unless -CaseSensitive (then lowercase before "
    "uppercase, as PowerShell's culture order). -Unique keeps one object per "
    "distinct sort key (case-insensitively unless -CaseSensitive). Over a relation "
    "this becomes ORDER BY (and DISTINCT ON); a relation has no input order, so "
    "-Stable only matters row-wise, where every sort is stable.",
    params=[
        Param(
            "Property",
            "any",
            position=0,
            help="Keys; @{Expression='name'; Descending=$true} sets the direction per key.",
        ),
        Param("Descending", bool, help="Sort in descending order."),
        Param("Unique", bool, help="One object per distinct key."),
        Param("Top", int, help="Only the first N after sorting."),
        Param("Bottom", int, help="Only the last N after sorting (still in sorted order)."),
        Param(
            "Stable", bool, help="Keep the input order of equal keys (row-wise sorts always do)."
        ),
        Param("CaseSensitive", bool, help="Compare strings case-sensitively."),
        INPUT,
    ],
    examples=[
        (
            "Get-Syscall | Sort-Object dur_ns -Descending | Select-Object -First 10",
            "The ten slowest system calls.",
        ),
        ("Get-Syscall | Sort-Object dur_ns -Top 10 -Descending", "The same, shorter."),
        (
            "Get-Node | Sort-Object @{Expression='rack'; Descending=$true}, name",
            "Racks descending, names ascending within a rack.",
        ),
    ],
    stream=True,
)
async def sort_object(
    ctx: Invocation,
    *,
    property: Any = None,
    descending: bool = False,
    unique: bool = False,
    top: int | None = None,
    bottom: int | None = None,
    stable: bool = False,
    case_sensitive: bool = False,
    input_object: Any = None,
) -> Any:
    specs = parse_props("Sort-Object", _as_list(property))
    if top is not None and bottom is not None:
        raise ParameterError("Sort-Object", "Bottom", "cannot be used with -Top")
    for name, n in (("Top", top), ("Bottom", bottom)):
        if n is not None and n < 1:
            raise ParameterError("Sort-Object", name, "must be at least 1")
    order = SortOrder(specs, descending, unique, top, bottom, case_sensitive)
    source = ctx.input if ctx.input is not None else input_object
    if _pushdown(ctx, source) and specs:
        try:
            return _sql(ctx, _sort_sql(source, order))
        except Untranslatable as why:
            _fallback(ctx, str(why))
    items = await collect(source)
    return await _sort_rows(items, order, ctx.state.interpreter)


@dataclass(frozen=True)
class SortOrder:
    """What Sort-Object was asked: keys, default direction, uniqueness, top/bottom, case."""

    specs: list[PropSpec]
    descending: bool
    unique: bool
    top: int | None
    bottom: int | None
    case_sensitive: bool

    def direction(self, spec: PropSpec) -> bool:
        return spec.descending if spec.descending is not None else self.descending


def _sql_sort_keys(order: SortOrder, schema: dict[str, str]) -> tuple[list[str], list[str]]:
    """ORDER BY terms (reversed for -Bottom) and the DISTINCT ON keys of -Unique."""
    keys, distinct = [], []
    for spec in order.specs:
        expr = sql_of(spec, schema)
        col = column_of(spec, schema)
        text = col is not None and column_kind(schema[col]) == "string"
        desc = order.direction(spec) != (order.bottom is not None)
        way, nulls = ("DESC", "LAST") if desc else ("ASC", "FIRST")
        keys.append(f"{'lower(' + expr + ')' if text else expr} {way} NULLS {nulls}")
        if text and order.case_sensitive:  # lowercase first, as Sort-Object -CaseSensitive
            keys.append(f"{expr} {'ASC' if desc else 'DESC'}")
        distinct.append(f"lower({expr})" if text and not order.case_sensitive else expr)
    return keys, distinct


def _sort_sql(rel: Any, order: SortOrder) -> Any:
    keys, distinct = _sql_sort_keys(order, rel.schema())
    head = f"DISTINCT ON ({', '.join(distinct)}) *" if order.unique else "*"
    n = order.top if order.top is not None else order.bottom
    limit = f" LIMIT {n}" if n is not None else ""
    if order.unique and n is not None:
        inner = rel.wrap(head, f"ORDER BY {', '.join(keys)}")
        head, rel = "*", inner
    sorted_rel = rel.wrap(head, f"ORDER BY {', '.join(keys)}{limit}")
    if order.bottom is None:
        return sorted_rel
    forward = dataclasses.replace(order, bottom=None, unique=False)
    return _sort_sql(sorted_rel, forward)


async def _sort_rows(items: list[Any], order: SortOrder, interp: Any = None) -> list[Any]:
    specs = order.specs
    keyed = []
    for item in items:
        values = [await evaluate(item, s) for s in specs] if specs else [item]
        keyed.append((values, item))
    if interp is not None:
        await _rank_comparables(keyed, interp)
    directions = [order.direction(s) for s in specs] or [order.descending]
    keyfn = _case_key_at if order.case_sensitive else _key_at
    for pos in reversed(range(len(directions))):
        keyed.sort(key=functools.partial(keyfn, pos), reverse=directions[pos])
    if order.unique:
        seen: set[Any] = set()
        unique = []
        for values, item in keyed:
            key = tuple(_unique_part(v, order.case_sensitive) for v in values)
            if key not in seen:
                seen.add(key)
                unique.append((values, item))
        keyed = unique
    out = [item for _, item in keyed]
    if order.top is not None:
        return out[: order.top]
    if order.bottom is not None:
        return out[-order.bottom :]
    return out


async def _rank_comparables(keyed: list[tuple[list[Any], Any]], interp: Any) -> None:
    """Sort keys that are all objects of IComparable script classes become their places in
    the order their CompareTo gives (equal ones share a place), as Sort-Object orders them."""
    from fayshell.lang.classes import ClassInstance

    for pos in range(len(keyed[0][0]) if keyed else 0):
        column = [values[pos] for values, _ in keyed]
        if not all(isinstance(v, ClassInstance) and v.implements("icomparable") for v in column):
            continue
        order = await _merge_sort(list(range(len(column))), column, interp.compare_to)
        place = 0
        for n, i in enumerate(order):
            if n and await interp.compare_to(column[order[n - 1]], column[i]) != 0:
                place = n
            keyed[i][0][pos] = place


async def _merge_sort(
    idx: list[int], values: list[Any], compare: Callable[[Any, Any], Awaitable[int]]
) -> list[int]:
    """``idx`` in the (stable) order of their ``values`` by an awaited comparison."""
    if len(idx) < 2:
        return idx
    half = len(idx) // 2
    left = await _merge_sort(idx[:half], values, compare)
    right = await _merge_sort(idx[half:], values, compare)
    out: list[int] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if await compare(values[right[j]], values[left[i]]) < 0:
            out.append(right[j])
            j += 1
        else:
            out.append(left[i])
            i += 1
    return out + left[i:] + right[j:]


def _unique_part(value: Any, case: bool) -> Any:
    if isinstance(value, str):
        return value if case else value.casefold()
    if isinstance(value, NUMBERS) and not isinstance(value, bool):
        return ("n", value)
    return repr(value)


def _case_key_at(pos: int, keyed: tuple[list[Any], Any]) -> tuple[SortKey, str]:
    """Case-sensitive order: case-insensitively first, then lowercase before uppercase."""
    value = keyed[0][pos]
    return SortKey(value), value.swapcase() if isinstance(value, str) else ""


def _key_at(pos: int, keyed: tuple[list[Any], Any]) -> SortKey:
    return SortKey(keyed[0][pos])


# ---- Group-Object ------------------------------------------------------------------------------


@dataclass
class GroupInfo:
    """One group, shown as PowerShell shows it: Count, Name (the key values joined by ', ')
    and Group (the members); Values (the key values) is a property but not a column."""

    Count: int
    Name: str
    Group: list[Any] = field(default_factory=list)
    Values: list[Any] = field(default_factory=list, repr=False)

    TYPE_NAME = "Microsoft.PowerShell.Commands.GroupInfo"
    #: PowerShell's table view of a group: Count 5 wide, Name 25, Group the rest (0).
    COLUMN_WIDTHS = (5, 25, 0)


@dataclass
class GroupInfoNoElement:
    """A group without its members (-NoElement): Count and Name."""

    Count: int
    Name: str
    Values: list[Any] = field(default_factory=list, repr=False)
    Group: list[Any] = field(default_factory=list, repr=False)

    TYPE_NAME = "Microsoft.PowerShell.Commands.GroupInfoNoElement"


@cmdlet(
    "Group-Object",
    aliases=("group",),
    synopsis="Group objects by the values of properties (or by their own value); count each group.",
    description="Strings group case-insensitively unless -CaseSensitive, a group is named after "
    "the first spelling seen, and groups come out sorted by their key values (as "
    "PowerShell 6.1 and later do). Over a relation this becomes GROUP BY and each "
    "group carries Count, Name and Values (the key values) but not the member rows "
    "(Group): use Where-Object for those, or @(...) to group row-wise.",
    params=[
        Param(
            "Property",
            "any",
            position=0,
            help="The key properties or script blocks; none groups the objects themselves.",
        ),
        Param("NoElement", bool, help="Leave the members out of each group."),
        Param("AsHashTable", bool, help="One hashtable: key -> members."),
        Param("AsString", bool, help="With -AsHashTable: keys as strings."),
        Param("CaseSensitive", bool, help="Group strings case-sensitively."),
        INPUT,
    ],
    examples=[
        (
            "Get-Syscall | Group-Object name | Sort-Object Count -Descending",
            "How often each system call was made.",
        ),
        ("'a','b','a' | Group-Object -NoElement", "Count and Name of each value."),
        (
            "$byNode = Get-Node | Group-Object rack -AsHashTable -AsString",
            "A hashtable from rack to its nodes.",
        ),
    ],
    stream=True,
)
async def group_object(
    ctx: Invocation,
    *,
    property: Any = None,
    no_element: bool = False,
    as_hash_table: bool = False,
    as_string: bool = False,
    case_sensitive: bool = False,
    input_object: Any = None,
) -> Any:
    specs = parse_props("Group-Object", _as_list(property))
    source = ctx.input if ctx.input is not None else input_object
    if _pushdown(ctx, source) and specs and not as_hash_table:
        try:
            grouped = _group_sql(source, specs, case_sensitive)
            return _sql(ctx, grouped.wrap('"Count", "Name"') if no_element else grouped)
        except Untranslatable as why:
            _fallback(ctx, str(why))
    groups = await _group_rows(source, specs, no_element and not as_hash_table, case_sensitive)
    if as_hash_table:
        return [_group_table(groups, len(specs) > 1 or as_string)]
    if no_element:
        return [GroupInfoNoElement(g.Count, g.Name, g.Values) for g in groups]
    return groups


def _group_table(groups: list[GroupInfo], as_string: bool) -> Hashtable:
    """-AsHashTable: a hashtable of the key value (or its string) -> the members."""
    return Hashtable(
        ((g.Name if as_string or not g.Values else g.Values[0]), g.Group) for g in groups
    )


def _group_sql(rel: Any, specs: list[PropSpec], case: bool) -> Any:
    """GROUP BY the keys, strings case-insensitively (as row-wise grouping does), ordered by
    the keys.

    Columns: Count, Name and Values (the key values as text) -- not the key columns under their
    own names, which could collide with Name/Count in DuckDB's case-insensitive namespace.
    """
    schema = rel.schema()
    keys, texts, orders = zip(*(_group_key_sql(s, schema, case) for s in specs), strict=True)
    name = " || ', ' || ".join(texts)
    select = f'count(*) AS "Count", {name} AS "Name", [{", ".join(texts)}] AS "Values"'
    return rel.wrap(select, f"GROUP BY {', '.join(keys)} ORDER BY {', '.join(orders)}")


def _group_key_sql(spec: PropSpec, schema: dict[str, str], case: bool) -> tuple[str, str, str]:
    """One key: its GROUP BY expression, its text as the group's Name shows it (a string key
    in the first spelling seen, a test as True/False), and its ORDER BY terms."""
    expr = sql_of(spec, schema)
    kind = _sql_kind(spec, schema)
    if kind == "bool" and column_of(spec, schema) is not None:  # a NULL is its own group, ""
        text = f"CASE WHEN {expr} IS NULL THEN '' WHEN {expr} THEN 'True' ELSE 'False' END"
        return expr, text, f"{expr} ASC NULLS FIRST"
    if kind == "bool":  # a test: never $null, as row-wise
        key = f"coalesce({expr}, false)"
        return key, f"CASE WHEN {key} THEN 'True' ELSE 'False' END", f"{key} ASC"
    if kind == "string" and case:
        return expr, f"coalesce({expr}, '')", f"lower({expr}) ASC NULLS FIRST, {expr} DESC"
    if kind == "string":
        key = f"lower({expr})"
        return key, f"coalesce(first({expr}), '')", f"{key} ASC NULLS FIRST"
    return expr, f"coalesce(CAST({expr} AS VARCHAR), '')", f"{expr} ASC NULLS FIRST"


def _sql_kind(spec: PropSpec, schema: dict[str, str]) -> str:
    """What is known of a key's SQL type: string, number, bool, or other."""
    col = column_of(spec, schema)
    if col is not None:
        return column_kind(schema[col])
    if isinstance(spec.source, ScriptBlock):
        return Translator(spec.source, schema).value().kind
    return "other"


async def _group_rows(
    source: Any, specs: list[PropSpec], no_element: bool, case: bool
) -> list[GroupInfo]:
    """Groups keyed case-insensitively (unless ``case``); a group shows the first spelling of
    its key, and groups come out ordered by their key values -- the same as the SQL path."""
    groups: dict[tuple[Any, ...], GroupInfo] = {}
    async for item in aiter_items(source):
        values = [await evaluate(item, s) for s in specs] if specs else [item]
        key = tuple(_unique_part(v, case) for v in values)
        group = groups.get(key)
        if group is None:
            group = groups[key] = GroupInfo(
                0, ", ".join(to_string(v) for v in values), Values=values
            )
        group.Count += 1
        if not no_element:
            group.Group.append(item)
    if case:
        return sorted(
            groups.values(),
            key=lambda g: [_case_key_at(i, (g.Values, None)) for i in range(len(g.Values))],
        )
    return sorted(groups.values(), key=lambda g: [SortKey(v) for v in g.Values])


# ---- Measure-Object ----------------------------------------------------------------------------

#: GenericMeasureInfo's properties, in PowerShell's order; percentiles (a fayshell addition)
#: come after Property.
STATS = ("Average", "Sum", "Maximum", "Minimum", "StandardDeviation")
SQL_AGG = {
    "Sum": "CAST(sum({}) AS DOUBLE)",  # a Double, as PowerShell's GenericMeasureInfo.Sum
    "Average": "avg({})",
    "Minimum": "min({})",
    "Maximum": "max({})",
    "StandardDeviation": "stddev_samp({})",
}
TEXT_STATS = ("Lines", "Words", "Characters")


@cmdlet(
    "Measure-Object",
    aliases=("measure",),
    synopsis="Count objects; sum, average, minimum, maximum, standard deviation and "
    "percentiles of numbers; lines, words and characters of text.",
    description="Outputs PowerShell's record: Count, Average, Sum, Maximum, Minimum, "
    "StandardDeviation (sample), Property -- the statistics not asked for are "
    "$null -- plus P<n> columns for -Percentile. With -Line/-Word/-Character: "
    "Lines, Words, Characters, Property. Over a relation the statistics are "
    "computed by DuckDB and the one-row result is returned as a record.",
    params=[
        Param(
            "Property",
            "any",
            position=0,
            help="The properties (or script blocks) to measure; none measures the objects.",
        ),
        Param("Sum", bool),
        Param("Average", bool),
        Param("Minimum", bool),
        Param("Maximum", bool),
        Param("StandardDeviation", bool),
        Param("Percentile", "ints", help="Percentiles to compute, e.g. 50,95,99."),
        Param("AllStats", bool, help="Sum, average, minimum, maximum and standard deviation."),
        Param("Line", bool, help="Count lines of text."),
        Param("Word", bool, help="Count words of text."),
        Param("Character", bool, help="Count characters of text."),
        Param("IgnoreWhiteSpace", bool, help="With -Character: leave white space out."),
        INPUT,
    ],
    examples=[
        (
            "Get-Span | Measure-Object dur_ns -Average -Percentile 50,99",
            "Mean and percentiles of span durations (in DuckDB when the input is a relation).",
        ),
        ("(1..10 | Measure-Object -Sum).Sum", "55."),
        ("Get-Content notes.txt | Measure-Object -Line -Word -Character", "Like wc."),
    ],
    stream=True,
)
async def measure_object(
    ctx: Invocation,
    *,
    property: Any = None,
    sum: bool = False,
    average: bool = False,
    minimum: bool = False,
    maximum: bool = False,
    standard_deviation: bool = False,
    percentile: list[int] | None = None,
    all_stats: bool = False,
    line: bool = False,
    word: bool = False,
    character: bool = False,
    ignore_white_space: bool = False,
    input_object: Any = None,
) -> Any:
    specs = parse_props("Measure-Object", _as_list(property))
    source = ctx.input if ctx.input is not None else input_object
    if line or word or character:
        wanted = [n for n, on in zip(TEXT_STATS, (line, word, character), strict=True) if on]
        return await _measure_text(source, specs, wanted, ignore_white_space)
    stats = _wanted_stats(sum, average, minimum, maximum, standard_deviation, percentile, all_stats)
    if _pushdown(ctx, source):
        try:
            return [
                GenericMeasureInfo(r)
                for r in _sql(ctx, _measure_sql(source, specs, stats)).records()
            ]
        except Untranslatable as why:
            _fallback(ctx, str(why))
    return await _measure_rows(source, specs, stats)


def _wanted_stats(
    sum_: bool, avg: bool, mn: bool, mx: bool, sd: bool, pct: list[int] | None, all_stats: bool
) -> list[str]:
    flags = {"Sum": sum_, "Average": avg, "Minimum": mn, "Maximum": mx, "StandardDeviation": sd}
    stats = [n for n in STATS if flags[n] or all_stats]
    for p in pct or []:
        if not 0 <= p <= 100:
            raise ParameterError("Measure-Object", "Percentile", f"{p} is not within 0..100")
    return stats + [f"P{p}" for p in pct or []]


class GenericMeasureInfo(dict[str, Any]):
    """Measure-Object's record: a plain record that PowerShell shows as a list (it has seven
    properties and no format view)."""

    VIEW = "list"


def _measure_record(prop: str, count: int, values: dict[str, Any]) -> dict[str, Any]:
    rec: dict[str, Any] = GenericMeasureInfo(Count=count)
    rec.update({n: values.get(n) for n in STATS})
    rec["Property"] = prop or None
    rec.update({k: v for k, v in values.items() if k.startswith("P")})
    return rec


def _measure_sql(rel: Any, specs: list[PropSpec], stats: list[str]) -> Any:
    schema = rel.schema()
    if not specs:
        if stats:
            raise Untranslatable("statistics need -Property over a relation's columns")
        nulls = ", ".join(f'NULL AS "{n}"' for n in STATS)
        return rel.wrap(f'count(*) AS "Count", {nulls}, NULL AS "Property"')
    parts = []
    for spec in specs:
        col = column_of(spec, schema)
        if col is None and isinstance(spec.source, str) and not spec.is_wildcard:
            raise UnknownProperty(spec.source, list(schema))
        if col is None:
            raise Untranslatable(f"{spec.label!r} is not a column")
        ident = quote_ident(col)
        cols = [f'count({ident}) AS "Count"']
        if schema[col].upper().startswith("DECIMAL"):  # measured as doubles, as row-wise
            ident = f"CAST({ident} AS DOUBLE)"
        for stat in STATS:
            expr = SQL_AGG[stat].format(ident) if stat in stats else "NULL"
            cols.append(f'{expr} AS "{stat}"')
        cols.append(f'{quote_literal(spec.label)} AS "Property"')
        cols += [
            f'quantile_cont({ident}, {int(p[1:]) / 100}) AS "{p}"'
            for p in stats
            if p.startswith("P")
        ]
        parts.append(f"SELECT {', '.join(cols)} FROM ({rel.sql}) AS _m")
    return type(rel)(rel.db, " UNION ALL ".join(parts))


async def _measure_rows(source: Any, specs: list[PropSpec], stats: list[str]) -> list[Any]:
    items = await collect(source)
    if not specs:
        values = [v for v in items if v is not None]  # $null is not measured, nor counted
        return [
            _measure_record(
                "",
                len(values),
                _stats_of(_measurable(values, stats), stats),
            )
        ]
    out = []
    for spec in specs:
        if (
            isinstance(spec.source, str)
            and not spec.is_wildcard
            and items
            and not any(
                has_property(i, spec.source) or prop_value(i, spec.source) is not None
                for i in items
            )
        ):
            raise ParameterError(
                "Measure-Object",
                "Property",
                f"the property {spec.source!r} cannot be found in the input for any objects",
            )
        values = [v for v in [await evaluate(i, spec) for i in items] if v is not None]
        out.append(
            _measure_record(spec.label, len(values), _stats_of(_measurable(values, stats), stats))
        )
    return out


def _measurable(values: list[Any], stats: list[str]) -> list[Any]:
    """Numbers where they convert; for -Minimum/-Maximum, dates and versions are kept as they
    are and the rest as strings (PowerShell compares them with their own CompareTo)."""
    out: list[Any] = []
    for v in values:
        try:
            n = to_number(v)
            out.append(float(n) if isinstance(n, Decimal) else n)  # measured as doubles
        except OperatorError:
            if any(s not in ("Minimum", "Maximum") for s in stats):
                raise ParameterError(
                    "Measure-Object", None, f"input {to_string(v)[:40]!r} is not a number"
                ) from None
            out.append(v if isinstance(v, ORDERED) else to_string(v))
    return out


def _stats_of(values: list[Any], stats: list[str]) -> dict[str, Any]:
    rec: dict[str, Any] = {}
    if not values:
        return {s: (0.0 if s == "Sum" else None) for s in stats}
    ordered = sorted(values, key=SortKey)
    for stat in stats:
        rec[stat] = _stat(stat, values, ordered)
    return rec


def _stat(stat: str, values: list[Any], ordered: list[Any]) -> Any:
    if stat == "Sum":  # a Double, as PowerShell's (GenericMeasureInfo.Sum is double?)
        return math.fsum(values)
    if stat == "Average":
        return math.fsum(values) / len(values)
    if stat == "Minimum":
        return ordered[0]
    if stat == "Maximum":
        return ordered[-1]
    if stat == "StandardDeviation":
        import statistics  # lazily: it pulls in fractions, decimal and random

        return statistics.stdev(values) if len(values) > 1 else 0.0
    return quantile(ordered, int(stat[1:]) / 100)


def quantile(ordered: list[int | float], q: float) -> float:
    """Linear interpolation between closest ranks (DuckDB's quantile_cont)."""
    pos = (len(ordered) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))


async def _measure_text(
    source: Any, specs: list[PropSpec], wanted: list[str], ignore_ws: bool
) -> list[dict[str, Any]]:
    """TextMeasureInfo: Lines, Words, Characters (only those asked for), Property."""
    items = await collect(source)
    chosen: list[PropSpec | None] = list(specs) or [None]
    out = []
    for spec in chosen:
        label = spec.label if spec else ""
        texts = [to_string(await evaluate(i, spec) if spec else i) for i in items]
        counts = {
            "Lines": sum(t.count("\n") + (not t.endswith("\n")) for t in texts if t),
            "Words": sum(len(t.split()) for t in texts),
            "Characters": sum(len("".join(t.split())) if ignore_ws else len(t) for t in texts),
        }
        rec: dict[str, Any] = {n: (counts[n] if n in wanted else None) for n in TEXT_STATS}
        rec["Property"] = label or None
        out.append(rec)
    return out


# ---- ForEach-Object ----------------------------------------------------------------------------


@cmdlet(
    "ForEach-Object",
    aliases=("foreach-object", "%"),
    synopsis="Run a script block for each object ($_), or output one property (or call one "
    "method) of each.",
    description="The blocks run in the caller's scope, as in PowerShell, so variables set in "
    "-Begin or -Process are visible afterwards. Several positional blocks mean "
    "Begin, Process..., End (-RemainingScripts). -Parallel runs its block once per "
    "object, sequentially, in a child scope each time (PowerShell runs them in "
    "separate runspaces): the same results, in input order; use Invoke-Command to "
    "fan work out to nodes.",
    params=[
        Param(
            "Process",
            "any",
            position=0,
            help="A script block run per object, or a property/method name (-MemberName).",
        ),
        Param(
            "RemainingScripts",
            "any",
            rest=True,
            help="More positional script blocks: Begin Process... End (after a member name: "
            "the method's arguments).",
        ),
        Param("Begin", "scriptblock", help="Run once before the first object."),
        Param("End", "scriptblock", help="Run once after the last object."),
        Param("MemberName", str, help="A property to output, or a method to call, per object."),
        Param("ArgumentList", "any", aliases=("Args",), help="Arguments for a method call."),
        *PARALLEL_PARAMS,
        INPUT,
    ],
    examples=[
        ("1..5 | ForEach-Object { $_ * 2 }", "Doubles each number."),
        ("Get-Node | % name", "The name of each node."),
        ("1..5 | % -Begin { $sum = 0 } -Process { $sum += $_ } -End { $sum }", "15."),
        ("'a','b' | ForEach-Object ToUpper", "A and B (a method call)."),
    ],
    stream=True,
)
async def foreach_object(
    ctx: Invocation,
    *,
    process: Any = None,
    remaining_scripts: list[Any] | None = None,
    begin: ScriptBlock | None = None,
    end: ScriptBlock | None = None,
    member_name: str | None = None,
    argument_list: Any = None,
    parallel: ScriptBlock | None = None,
    throttle_limit: int | None = None,
    timeout_seconds: int | None = None,
    input_object: Any = None,
) -> Any:
    source = ctx.input if ctx.input is not None else input_object
    if ctx.input is None and input_object is None:
        source = [None]  # first in its pipeline: the block runs once, as PowerShell's does
    if parallel is not None:
        ctx.write_verbose("-Parallel runs sequentially in fayshell")
        async for item in aiter_items(source):
            for out in await parallel.invoke(dollar_under=item):
                yield out
        return
    if remaining_scripts and argument_list is None and not isinstance(process, ScriptBlock):
        # `% AddDays 1`: the words after a member name are its -ArgumentList (PowerShell's
        # ValueFromRemainingArguments)
        argument_list, remaining_scripts = remaining_scripts, None
    begin, blocks, end = _foreach_blocks(process, remaining_scripts or [], begin, end, member_name)
    if begin is not None:
        for out in await begin.interp.invoke_here(begin):
            yield out
    async for item in aiter_items(source):
        for block in blocks:
            if isinstance(block, ScriptBlock):
                for out in await block.interp.invoke_here(block, item):
                    yield out
            else:
                for out in _member_of(item, block, argument_list):
                    yield out
    if end is not None:
        for out in await end.interp.invoke_here(end):
            yield out


def _foreach_blocks(
    process: Any,
    rest: list[Any],
    begin: ScriptBlock | None,
    end: ScriptBlock | None,
    member: str | None,
) -> tuple[Any, list[Any], Any]:
    """Sort positional blocks into Begin, Process blocks and End, as PowerShell does."""
    if member is not None:
        return begin, [member], end
    if process is None:
        raise ParameterError(
            "ForEach-Object", "Process", "give a script block, or a property or method name"
        )
    if not isinstance(process, ScriptBlock):
        if rest:
            raise ParameterError("ForEach-Object", None, "only one member name can be given")
        return begin, [to_string(process)], end
    blocks = [process, *rest]
    if any(not isinstance(b, ScriptBlock) for b in blocks):
        raise ParameterError("ForEach-Object", "RemainingScripts", "expects script blocks")
    if len(blocks) == 1:
        return begin, blocks, end
    if begin is None:
        begin, blocks = blocks[0], blocks[1:]
    if len(blocks) > 1 and end is None:
        blocks, end = blocks[:-1], blocks[-1]
    return begin, blocks, end


def _member_of(item: Any, name: str, args: Any) -> list[Any]:
    """``ForEach-Object Name``: the property's value, or the result of calling the method."""
    from fayshell.lang.interp import member_or_call

    return member_or_call(item, name, unroll(args))
