"""The object-pipeline cmdlets: Where-, Select-, Sort-, Group-, Measure- and ForEach-Object.

Each one first tries to stay a relation (translating its arguments to SQL, so the whole
pipeline runs as one DuckDB query) and otherwise works row-wise on records, with the same
meaning. ``-Verbose`` says which path was taken and shows the SQL.
"""

from __future__ import annotations

import collections
import functools
import math
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.props import (
    PropSpec,
    column_of,
    evaluate,
    expand_wildcards,
    parse_props,
    sql_of,
)
from fayshell.commands.registry import BY_VALUE, Param, cmdlet
from fayshell.errors import ParameterError
from fayshell.lang.ops import compare, to_number, to_string, truthy
from fayshell.lang.sqlgen import Translator, Untranslatable, column_kind, sql_string
from fayshell.lang.streams import aiter_items, collect, is_relation
from fayshell.lang.values import ScriptBlock
from fayshell.records import get_property, property_names
from fayshell.store.relation import quote_ident

INPUT = Param("InputObject", "any", pipeline=BY_VALUE, help="The records to work on.")
WHERE_OPS = ("EQ", "NE", "GT", "GE", "LT", "LE", "Like", "NotLike", "Match", "NotMatch",
             "In", "NotIn", "Contains", "NotContains")


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
        Param("FilterScript", "any", position=0, mandatory=True,
              help="A script block testing $_, or a property name with -EQ/-GT/... and a value."),
        Param("Value", "any", position=1, help="The value for the simplified comparison form."),
        *(Param(op, bool, help=f"Simplified form: property -{op.lower()} value.")
          for op in WHERE_OPS),
        INPUT,
    ],
    examples=[
        ("Get-Span | Where-Object { $_.dur_ns -gt 50ms }", "Spans slower than 50 ms."),
        ("Get-Node | ? name -like 'web*'", "Simplified syntax: property, operator, value."),
    ],
    stream=True,
)
async def where_object(ctx: Invocation, *, filter_script: Any, value: Any = None,
                       input_object: Any = None, **ops: bool) -> Any:
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
        if chosen:
            raise ParameterError("Where-Object", chosen[0], "cannot be used with a script block")
        return filter_script
    if len(chosen) != 1:
        raise ParameterError("Where-Object", None,
                             "give a script block, or a property with exactly one of "
                             "-EQ -NE -GT -GE -LT -LE -Like -Match -In -Contains and a value")
    return Comparison(to_string(filter_script), chosen[0].lower().replace("_", ""), value)


def _comparison_sql(test: Comparison, schema: dict[str, str]) -> str:
    from fayshell.lang import ast

    node = ast.Binary(test.op, ast.Member(ast.VarRef("_"), test.prop), ast.Literal(test.value))
    return Translator(_expr_block(node), schema).expr(node).text


def _expr_block(node: Any) -> ScriptBlock:
    """A stand-in script block around one expression, for the translator."""
    from fayshell.lang import ast
    from fayshell.state import Scope

    lit = ast.ScriptBlockLit([], [node], "")
    return ScriptBlock(lit, Scope(), None)  # type: ignore[arg-type]


async def _where_rows(source: Any, test: ScriptBlock | Comparison) -> AsyncIterator[Any]:
    async for item in aiter_items(source):
        if isinstance(test, ScriptBlock):
            out = await test.invoke(dollar_under=item)
            keep = truthy(out[0] if len(out) == 1 else out)
        else:
            keep = truthy(compare(test.op, get_property(item, test.prop), test.value))
        if keep:
            yield item


# ---- Select-Object -----------------------------------------------------------------------------


@cmdlet(
    "Select-Object",
    aliases=("select",),
    synopsis="Pick properties (or calculated ones), or the first/last records.",
    params=[
        Param("Property", "any", position=0,
              help="Names (wildcards allowed) or @{n='name'; e={ expression }}."),
        Param("First", int, help="Only the first N records."),
        Param("Last", int, help="Only the last N records."),
        Param("Skip", int, help="Skip N records first."),
        Param("Unique", bool, help="Drop duplicate records."),
        Param("ExpandProperty", str, help="Output the values of one property instead."),
        Param("ExcludeProperty", "strings", help="Properties to leave out."),
        INPUT,
    ],
    examples=[
        ("Get-Syscall | Select-Object name, @{n='ms'; e={ $_.dur_ns / 1e6 }} -First 5",
         "A calculated column, first five rows."),
        ("Get-Node | Select-Object -ExpandProperty name", "Just the node names."),
    ],
    stream=True,
)
async def select_object(ctx: Invocation, *, property: Any = None, first: int | None = None,
                        last: int | None = None, skip: int | None = None, unique: bool = False,
                        expand_property: str | None = None,
                        exclude_property: list[str] | None = None,
                        input_object: Any = None) -> Any:
    specs = parse_props("Select-Object", _as_list(property))
    source = ctx.input if ctx.input is not None else input_object
    for name, n in (("First", first), ("Last", last), ("Skip", skip)):
        if n is not None and n < 0:
            raise ParameterError("Select-Object", name, "must not be negative")
    if _pushdown(ctx, source) and last is None:
        try:
            rel = _sql(ctx, _select_sql(source, specs, first, skip, unique, expand_property,
                                        exclude_property))
            return rel if expand_property is None else _expand_values(rel)
        except Untranslatable as why:
            _fallback(ctx, str(why))
    rows = _select_rows(source, specs, unique, expand_property, exclude_property)
    return _window(rows, first, last, skip or 0)


def _as_list(value: Any) -> list[Any] | None:
    if value is None:
        return None
    return value if isinstance(value, list) else [value]


def _select_sql(rel: Any, specs: list[PropSpec], first: int | None, skip: int | None,
                unique: bool, expand: str | None, exclude: list[str] | None) -> Any:
    schema = rel.schema()
    if expand is not None:
        specs = [PropSpec(expand, expand)]
    specs = expand_wildcards(specs, list(schema)) if specs else [
        PropSpec(n, n) for n in schema]
    excluded = {e.lower() for e in exclude or []}
    cols = [f"{sql_of(s, schema)} AS {quote_ident(_label(s, schema))}" for s in specs
            if s.label.lower() not in excluded]
    if not cols:
        raise Untranslatable("no properties left to select")
    tail = ""
    if first is not None:
        tail += f" LIMIT {first}"
    if skip:
        tail += f" OFFSET {skip}"
    distinct = "DISTINCT " if unique else ""
    return rel.wrap(distinct + ", ".join(cols), tail.strip())


def _label(spec: PropSpec, schema: dict[str, str]) -> str:
    return column_of(spec, schema) or spec.label


async def _expand_values(rel: Any) -> AsyncIterator[Any]:
    for record in rel.iter_records():
        value = next(iter(record.values()))
        if isinstance(value, list):
            for v in value:
                yield v
        else:
            yield value


async def _select_rows(source: Any, specs: list[PropSpec], unique: bool, expand: str | None,
                       exclude: list[str] | None) -> AsyncGenerator[Any, None]:
    seen: set[str] = set()
    excluded = {e.lower() for e in exclude or []}
    async for item in aiter_items(source):
        if expand is not None:
            value = get_property(item, expand)
            for v in (value if isinstance(value, list) else [value]):
                yield v
            continue
        if specs or excluded:
            names = property_names(item)
            chosen = expand_wildcards(specs, names) if specs else [PropSpec(n, n) for n in names]
            out: Any = {s.label: await evaluate(item, s) for s in chosen
                        if s.label.lower() not in excluded}
        else:
            out = item
        if unique:
            key = repr(out)
            if key in seen:
                continue
            seen.add(key)
        yield out


async def _window(rows: AsyncGenerator[Any, None], first: int | None, last: int | None,
                  skip: int) -> AsyncIterator[Any]:
    if last is not None:
        tail: collections.deque[Any] = collections.deque(maxlen=last)
        async for item in rows:
            tail.append(item)
        items = list(tail)
        for item in items[skip:] if skip else items:
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
    await rows.aclose()


# ---- Sort-Object -------------------------------------------------------------------------------


@cmdlet(
    "Sort-Object",
    aliases=("sort",),
    synopsis="Sort records by one or more properties.",
    params=[
        Param("Property", "any", position=0,
              help="Keys; @{e='name'; Descending=$true} sets the direction per key."),
        Param("Descending", bool, help="Sort in descending order."),
        Param("Unique", bool, help="Drop duplicates."),
        Param("Top", int, help="Only the first N after sorting."),
        INPUT,
    ],
    examples=[("Get-Syscall | Sort-Object dur_ns -Descending | Select-Object -First 10",
               "The ten slowest system calls.")],
    stream=True,
)
async def sort_object(ctx: Invocation, *, property: Any = None, descending: bool = False,
                      unique: bool = False, top: int | None = None,
                      input_object: Any = None) -> Any:
    specs = parse_props("Sort-Object", _as_list(property))
    source = ctx.input if ctx.input is not None else input_object
    if _pushdown(ctx, source) and specs:
        try:
            return _sql(ctx, _sort_sql(source, specs, descending, unique, top))
        except Untranslatable as why:
            _fallback(ctx, str(why))
    items = await collect(source)
    return await _sort_rows(items, specs, descending, unique, top)


def _sort_sql(rel: Any, specs: list[PropSpec], descending: bool, unique: bool,
              top: int | None) -> Any:
    schema = rel.schema()
    keys = []
    for spec in specs:
        expr = sql_of(spec, schema)
        col = column_of(spec, schema)
        if col is not None and schema[col].upper().startswith("VARCHAR"):
            expr = f"lower({expr})"
        desc = spec.descending if spec.descending is not None else descending
        keys.append(f"{expr} {'DESC' if desc else 'ASC'} NULLS {'LAST' if desc else 'FIRST'}")
    inner = rel.wrap("DISTINCT *") if unique else rel
    limit = f" LIMIT {top}" if top is not None else ""
    return inner.wrap("*", f"ORDER BY {', '.join(keys)}{limit}")


async def _sort_rows(items: list[Any], specs: list[PropSpec], descending: bool, unique: bool,
                     top: int | None) -> list[Any]:
    keyed = []
    for item in items:
        values = [await evaluate(item, s) for s in specs] if specs else [item]
        keyed.append((values, item))
    directions = [(s.descending if s.descending is not None else descending) for s in specs] \
        or [descending]
    for pos in reversed(range(len(directions))):
        keyed.sort(key=functools.partial(_key_at, pos), reverse=directions[pos])
    out = [item for _, item in keyed]
    if unique:
        seen: set[str] = set()
        out = [x for x in out if not (repr(x) in seen or seen.add(repr(x)))]  # type: ignore[func-returns-value]
    return out[:top] if top is not None else out


def _key_at(pos: int, keyed: tuple[list[Any], Any]) -> _SortKey:
    return _SortKey(keyed[0][pos])


@functools.total_ordering
class _SortKey:
    """Orders mixed values: $null first, numbers numerically, strings case-insensitively."""

    def __init__(self, value: Any) -> None:
        self.rank, self.value = _rank(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SortKey) and (self.rank, self.value) == (other.rank, other.value)

    def __lt__(self, other: _SortKey) -> bool:
        if self.rank != other.rank:
            return self.rank < other.rank
        return bool(self.value < other.value)


def _rank(value: Any) -> tuple[int, Any]:
    if value is None:
        return 0, 0
    if isinstance(value, (bool, int, float)):
        return 1, float(value) if not isinstance(value, bool) else int(value)
    if isinstance(value, str):
        return 2, value.casefold()
    return 3, to_string(value).casefold()


# ---- Group-Object ------------------------------------------------------------------------------


@dataclass
class GroupInfo:
    """One group: its name (the key values joined by ', '), size, key values and members."""

    Name: str
    Count: int
    Values: list[Any] = field(default_factory=list)
    Group: list[Any] = field(default_factory=list, repr=False)


@cmdlet(
    "Group-Object",
    aliases=("group",),
    synopsis="Group records by the values of properties; count each group.",
    description="Strings group case-insensitively and groups come out ordered by name. Over a "
                "relation this becomes GROUP BY; groups then carry Name, Count and the key "
                "values as text in Values (not the member rows: use Where-Object for those).",
    params=[
        Param("Property", "any", position=0, mandatory=True, help="The key properties."),
        Param("NoElement", bool, help="Leave the members out of each group."),
        INPUT,
    ],
    examples=[("Get-Syscall | Group-Object name | Sort-Object Count -Descending",
               "How often each system call was made.")],
    stream=True,
)
async def group_object(ctx: Invocation, *, property: Any, no_element: bool = False,
                       input_object: Any = None) -> Any:
    specs = parse_props("Group-Object", _as_list(property))
    source = ctx.input if ctx.input is not None else input_object
    if _pushdown(ctx, source):
        try:
            return _sql(ctx, _group_sql(source, specs))
        except Untranslatable as why:
            _fallback(ctx, str(why))
    return await _group_rows(source, specs, no_element)


def _group_sql(rel: Any, specs: list[PropSpec]) -> Any:
    """GROUP BY the keys, strings case-insensitively (as row-wise grouping does).

    Columns: Name, Count and Values (the key values as text) -- not the key columns under their
    own names, which could collide with Name/Count in DuckDB's case-insensitive namespace.
    """
    schema = rel.schema()
    exprs = [sql_of(s, schema) for s in specs]
    kinds = [column_kind(schema[c]) if (c := column_of(s, schema)) else "other" for s in specs]
    keys = [f"lower({e})" if k == "string" else e for e, k in zip(exprs, kinds, strict=True)]
    values = [f"coalesce(CAST({'min(' + e + ')' if k == 'string' else e} AS VARCHAR), '')"
              for e, k in zip(exprs, kinds, strict=True)]
    name = " || ', ' || ".join(values)
    select = f"{name} AS \"Name\", count(*) AS \"Count\", [{', '.join(values)}] AS \"Values\""
    grouped = rel.wrap(select, f"GROUP BY {', '.join(keys)}")
    return grouped.wrap("*", "ORDER BY lower(\"Name\"), \"Name\"")


async def _group_rows(source: Any, specs: list[PropSpec], no_element: bool) -> list[GroupInfo]:
    """Groups keyed case-insensitively; a group shows the smallest spelling of its key, and
    groups come out ordered by name -- the same as the SQL path."""
    groups: dict[tuple[Any, ...], GroupInfo] = {}
    async for item in aiter_items(source):
        values = [await evaluate(item, s) for s in specs]
        key = tuple(v.casefold() if isinstance(v, str) else repr(v) for v in values)
        group = groups.get(key)
        if group is None:
            group = groups[key] = GroupInfo("", 0, values)
        else:
            group.Values = [min(old, new) if isinstance(old, str) and isinstance(new, str) else old
                            for old, new in zip(group.Values, values, strict=True)]
        group.Count += 1
        if not no_element:
            group.Group.append(item)
    for group in groups.values():
        group.Name = ", ".join(to_string(v) for v in group.Values)
    return sorted(groups.values(), key=lambda g: (g.Name.lower(), g.Name))


# ---- Measure-Object ----------------------------------------------------------------------------


@cmdlet(
    "Measure-Object",
    aliases=("measure",),
    synopsis="Count records and compute sum, average, minimum, maximum and percentiles.",
    params=[
        Param("Property", "strings", position=0, help="The numeric properties to measure."),
        Param("Sum", bool), Param("Average", bool), Param("Minimum", bool),
        Param("Maximum", bool),
        Param("Percentile", "ints", help="Percentiles to compute, e.g. 50,95,99."),
        Param("AllStats", bool, help="Sum, average, minimum, maximum and p50/p95/p99."),
        INPUT,
    ],
    examples=[("Get-Span | Measure-Object dur_ns -Average -Percentile 50,99",
               "Mean and percentiles of span durations (in DuckDB when the input is a relation).")],
    stream=True,
)
async def measure_object(ctx: Invocation, *, property: list[str] | None = None, sum: bool = False,
                         average: bool = False, minimum: bool = False, maximum: bool = False,
                         percentile: list[int] | None = None, all_stats: bool = False,
                         input_object: Any = None) -> Any:
    stats = _wanted_stats(sum, average, minimum, maximum, percentile, all_stats)
    source = ctx.input if ctx.input is not None else input_object
    if _pushdown(ctx, source):
        try:
            return _sql(ctx, _measure_sql(source, property or [], stats))
        except Untranslatable as why:
            _fallback(ctx, str(why))
    return await _measure_rows(source, property or [], stats)


def _wanted_stats(sum_: bool, avg: bool, mn: bool, mx: bool, pct: list[int] | None,
                  all_stats: bool) -> list[str]:
    stats = [n for n, on in (("Sum", sum_), ("Average", avg), ("Minimum", mn),
                             ("Maximum", mx)) if on or all_stats]
    pcts = list(pct or ([50, 95, 99] if all_stats else []))
    for p in pcts:
        if not 0 <= p <= 100:
            raise ParameterError("Measure-Object", "Percentile", f"{p} is not within 0..100")
    return stats + [f"P{p}" for p in pcts]


SQL_AGG = {"Sum": "sum({})", "Average": "avg({})", "Minimum": "min({})", "Maximum": "max({})"}


def _measure_sql(rel: Any, props: list[str], stats: list[str]) -> Any:
    schema = rel.schema()
    if not props:
        if stats:
            raise Untranslatable("statistics need -Property over a relation's columns")
        return rel.wrap("count(*) AS \"Count\"")
    parts = []
    for prop in props:
        col = column_of(PropSpec(prop, prop), schema)
        if col is None:
            raise Untranslatable(f"no column {prop!r}")
        ident = quote_ident(col)
        cols = [f"{sql_string(col)} AS \"Property\"", f"count({ident}) AS \"Count\""]
        for stat in stats:
            if stat.startswith("P"):
                cols.append(f"quantile_cont({ident}, {int(stat[1:]) / 100}) AS \"{stat}\"")
            else:
                cols.append(f"{SQL_AGG[stat].format(ident)} AS \"{stat}\"")
        parts.append(f"SELECT {', '.join(cols)} FROM ({rel.sql}) AS _m")
    return type(rel)(rel.db, " UNION ALL ".join(parts))


async def _measure_rows(source: Any, props: list[str], stats: list[str]) -> list[dict[str, Any]]:
    items = await collect(source)
    if not props:
        if not stats:
            return [{"Count": len(items)}]
        return [_stats_record("", [to_number(v) for v in items if v is not None], stats)]
    out = []
    for prop in props:
        values = [get_property(i, prop) for i in items]
        numbers = [to_number(v) for v in values if v is not None]
        out.append(_stats_record(prop, numbers, stats))
    return out


def _stats_record(prop: str, numbers: list[int | float], stats: list[str]) -> dict[str, Any]:
    rec: dict[str, Any] = {"Property": prop, "Count": len(numbers)}
    ordered = sorted(numbers)
    for stat in stats:
        if not numbers:
            rec[stat] = None
        elif stat == "Sum":
            rec[stat] = math.fsum(numbers) if any(isinstance(n, float) for n in numbers) \
                else sum(numbers)
        elif stat == "Average":
            rec[stat] = math.fsum(numbers) / len(numbers)
        elif stat == "Minimum":
            rec[stat] = ordered[0]
        elif stat == "Maximum":
            rec[stat] = ordered[-1]
        else:
            rec[stat] = quantile(ordered, int(stat[1:]) / 100)
    return rec


def quantile(ordered: list[int | float], q: float) -> float:
    """Linear interpolation between closest ranks (DuckDB's quantile_cont)."""
    pos = (len(ordered) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))


# ---- ForEach-Object ----------------------------------------------------------------------------


@cmdlet(
    "ForEach-Object",
    aliases=("foreach-object", "%"),
    synopsis="Run a script block for each record ($_), or output one property of each.",
    params=[
        Param("Process", "any", position=0, mandatory=True,
              help="A script block run per record, or a property name."),
        Param("Begin", "scriptblock", help="Run once before the first record."),
        Param("End", "scriptblock", help="Run once after the last record."),
        INPUT,
    ],
    examples=[("1..5 | ForEach-Object { $_ * 2 }", "Doubles each number."),
              ("Get-Node | % name", "The name of each node.")],
    stream=True,
)
async def foreach_object(ctx: Invocation, *, process: Any, begin: ScriptBlock | None = None,
                         end: ScriptBlock | None = None, input_object: Any = None) -> Any:
    source = ctx.input if ctx.input is not None else input_object
    if begin is not None:
        for out in await begin.invoke():
            yield out
    async for item in aiter_items(source):
        if isinstance(process, ScriptBlock):
            for out in await process.invoke(dollar_under=item):
                yield out
        else:
            yield get_property(item, to_string(process))
    if end is not None:
        for out in await end.invoke():
            yield out
