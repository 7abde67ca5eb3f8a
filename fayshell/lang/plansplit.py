"""Split one query into a node part (runs on every node's agent) and a merge part (at the shell).

This is Fay's query-plan derivation for fayshell: the pipeline's SQL (what ``Get-Syscall |
Where-Object … | Group-Object …`` or ``sql SELECT …`` compiled to) is parsed by DuckDB itself
(``json_serialize_sql``), walked from the tables outwards, and cut where rows stop being
independent of other nodes:

* filters and projections run on the nodes;
* aggregates become partial aggregates on the nodes and a merge at the shell: count, sum, min,
  max, bool_and/bool_or exactly, avg as sum + count, first/any_value as the first of the nodes'
  answers (without ORDER BY, "first" is any row on one database too); percentiles (quantile_cont, quantile_disc,
  median) from a mergeable histogram: each node sends ``(keys, value, count)`` rows where value
  is the representative of a logarithmic bucket of ratio ``γ = (1 + α) / (1 − α)``, so every
  value the merge sees is within a relative error α of the true one (α = 1% by default), and a
  percentile interpolated between two of them is too (for data of one sign; durations are).
  ``exact_quantiles`` sends the distinct values themselves (with their counts): exact, bigger;
* ``ORDER BY … LIMIT N`` (``Sort-Object | Select-Object -First N``) becomes a per-node top N
  and a final top N; DISTINCT a per-node DISTINCT and a final one;
* everything after the cut runs at the shell over the union of the nodes' partial rows.

Node queries are numbered: the shell loads the union of every node's answer to query *i* as
table ``fay_part<i>`` and runs the merge SQL over those tables. What cannot be split with the
same meaning (joins, window functions, CTEs, DISTINCT aggregates, GROUPING SETS, …) raises
:class:`Unsplittable` naming it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from fayshell.errors import FayError

PART = "fay_part"

#: Aggregates merged by applying another aggregate to the partial column.
REMERGE = {
    "count_star": "count",
    "count": "count",
    "sum": "sum",
    "min": "min",
    "max": "max",
    "bool_and": "bool_and",
    "bool_or": "bool_or",
    "any_value": "any_value",
    "first": "first",
    "arbitrary": "first",  # some node's first (as unordered)
    "avg": "avg",
    "mean": "avg",
    "quantile_cont": "quantile_cont",
    "median": "quantile_cont",
    "quantile_disc": "quantile_disc",
    "quantile": "quantile_disc",
}
QUANTILES = ("quantile_cont", "quantile_disc")


class Unsplittable(FayError):  # noqa: N818 - a reason the query cannot run split
    """The query uses something that cannot be split into node and merge parts."""


@dataclass(frozen=True)
class SplitOptions:
    """How to split: the percentile histogram's relative error, or exact percentiles."""

    alpha: float = 0.01
    exact_quantiles: bool = False

    @property
    def gamma(self) -> float:
        return (1 + self.alpha) / (1 - self.alpha)


@dataclass(frozen=True)
class SplitPlan:
    """Node queries (``fay_part<i>`` at the shell) and the merge query over them."""

    node_sql: tuple[str, ...]
    merge_sql: str
    approximations: tuple[str, ...] = ()

    def describe(self) -> list[str]:
        lines = [f"node SQL {i}: {s}" for i, s in enumerate(self.node_sql)]
        lines.append(f"merge SQL: {self.merge_sql}")
        return lines + [f"approximate: {a}" for a in self.approximations]


@dataclass
class Local:
    """A query every node can run on its own rows; the union of the answers is its result.
    ``order``: an ORDER BY (over its output columns) the merge must still apply."""

    node: dict[str, Any]
    order: dict[str, Any] | None = None


@dataclass
class Merged:
    """A query that needs the shell: node parts (their indexes) and the merge query's AST."""

    merge: dict[str, Any]


@dataclass
class Splitter:
    """Splits queries with a DuckDB connection used only to parse and print SQL."""

    con: Any
    options: SplitOptions = field(default_factory=SplitOptions)

    #: What every split asks again: DuckDB's aggregate names and the parse trees of the fixed
    #: holder queries (both depend only on this process's DuckDB, so they are read once).
    known: ClassVar[dict[str, Any]] = {}

    def __post_init__(self) -> None:
        self.aggregates = self.remembered("aggregates", self.aggregate_names)
        self.parts: list[str] = []
        self.approx: list[str] = []

    def remembered(self, key: str, compute: Callable[[], Any]) -> Any:
        if key not in self.known:
            self.known[key] = compute()
        return self.known[key]

    def aggregate_names(self) -> frozenset[str]:
        rows = self.con.execute(
            "SELECT DISTINCT function_name FROM duckdb_functions() "
            "WHERE function_type = 'aggregate'"
        ).fetchall()
        return frozenset({r[0] for r in rows} | {"count_star"})

    # ---- DuckDB's parser and printer ----

    def holder(self, sql: str) -> dict[str, Any]:
        """The parse tree of a fixed holder query (a fresh copy: callers fill it in)."""
        text = self.remembered(f"parse:{sql}", lambda: json.dumps(self.parse(sql)))
        tree: dict[str, Any] = json.loads(text)
        return tree

    def parse(self, sql: str) -> dict[str, Any]:
        text = self.con.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()[0][0]
        doc = json.loads(text)
        if doc.get("error"):
            raise Unsplittable(f"cannot parse the query: {doc.get('error_message', '')}")
        stmts = doc["statements"]
        if len(stmts) != 1:
            raise Unsplittable("one query statement expected")
        node: dict[str, Any] = stmts[0]["node"]
        return node

    def render(self, node: dict[str, Any]) -> str:
        doc = {"error": False, "statements": [{"node": node, "named_param_map": []}]}
        text: str = self.con.execute(
            "SELECT json_deserialize_sql(?)", [json.dumps(doc)]
        ).fetchall()[0][0]
        return text

    def expr_sql(self, expr: dict[str, Any]) -> str:
        holder = self.holder("SELECT 1")
        holder["select_list"] = [dict(expr, alias="")]
        return self.render(holder)[len("SELECT ") :]

    def from_sql(self, table: dict[str, Any]) -> str:
        holder = self.holder("SELECT * FROM fay_x")
        holder["from_table"] = table
        return self.render(holder)[len("SELECT * FROM ") :]

    # ---- the split ----

    def split(self, sql: str) -> SplitPlan:
        self.parts, self.approx = [], []
        top = self.walk(self.parse(sql))
        merge = self.to_merged(top).merge
        return SplitPlan(tuple(self.parts), self.render(merge), tuple(self.approx))

    def add_part(self, node_sql: str) -> str:
        self.parts.append(node_sql)
        return f"{PART}{len(self.parts) - 1}"

    def to_merged(self, res: Local | Merged) -> Merged:
        if isinstance(res, Merged):
            return res
        name = self.add_part(self.render(res.node))
        tail = f" ORDER BY {self.order_sql(res.order)}" if res.order else ""
        return Merged(self.parse(f"SELECT * FROM {name}{tail}"))

    def order_sql(self, order: dict[str, Any] | None) -> str:
        holder = self.holder("SELECT * FROM fay_x")
        holder["modifiers"] = [order]
        return self.render(holder).split(" ORDER BY ", 1)[1]

    def walk(self, node: dict[str, Any]) -> Local | Merged:
        if node.get("cte_map", {}).get("map"):
            raise Unsplittable("WITH (common table expressions) is not split yet")
        if node["type"] == "SET_OPERATION_NODE":
            return self.set_operation(node)
        if node["type"] != "SELECT_NODE":
            raise Unsplittable(f"{node['type']} is not split")
        for what in ("qualify", "sample"):
            if node.get(what):
                raise Unsplittable(f"{what.upper()} is not split")
        src = self.source(node["from_table"])
        for e in self.expressions(node):
            self.check_expr(e)
        if isinstance(src, Merged):
            return Merged(dict(node, from_table=self.subquery(src.merge, node["from_table"])))
        if self.is_aggregate(node):
            return self.aggregate(node, src)
        return self.row_level(node, src)

    def source(self, table: dict[str, Any]) -> Local | Merged:
        kind = table["type"]
        if kind in ("BASE_TABLE", "EMPTY", "TABLE_FUNCTION"):  # evaluated on each node
            holder = self.holder("SELECT * FROM fay_x")
            holder["from_table"] = table
            return Local(holder)
        if kind == "SUBQUERY":
            return self.walk(table["subquery"]["node"])
        if kind == "JOIN":
            raise Unsplittable(
                "a join is not split (on the shell it could pair rows of different nodes)"
            )
        raise Unsplittable(f"{kind.lower().replace('_', ' ')} in FROM is not split")

    def subquery(self, node: dict[str, Any], like: dict[str, Any]) -> dict[str, Any]:
        holder = self.holder("SELECT * FROM (SELECT 1) AS _r")
        table = holder["from_table"]
        table["subquery"]["node"] = node
        table["alias"] = like.get("alias") or "_r"
        result: dict[str, Any] = table
        return result

    def set_operation(self, node: dict[str, Any]) -> Local | Merged:
        if node.get("modifiers"):
            raise Unsplittable("ORDER BY/LIMIT on a set operation is not split")
        kids = [self.walk(k) for k in node["children"]]
        local = [k for k in kids if isinstance(k, Local) and k.order is None]
        if node["setop_type"] == "UNION" and node["setop_all"] and len(local) == len(kids):
            return Local(dict(node, children=[k.node for k in local]))
        merged = [self.to_merged(k).merge for k in kids]
        return Merged(dict(node, children=merged))

    # ---- expressions ----

    def expressions(self, node: dict[str, Any]) -> list[dict[str, Any]]:
        out = list(node["select_list"])
        out += [e for e in (node.get("where_clause"), node.get("having")) if e]
        out += node.get("group_expressions") or []
        for mod in node.get("modifiers", []):
            if mod["type"] == "ORDER_MODIFIER":
                out += [o["expression"] for o in mod["orders"]]
        return out

    def check_expr(self, e: Any) -> None:
        for sub in walk_json(e):
            cls = sub.get("class")
            if cls == "WINDOW":
                raise Unsplittable("window functions (OVER) are not split")
            if cls == "SUBQUERY":
                raise Unsplittable("subqueries inside expressions are not split")

    def is_agg_call(self, e: dict[str, Any]) -> bool:
        return e.get("class") == "FUNCTION" and e.get("function_name") in self.aggregates

    def agg_calls(self, e: Any) -> list[dict[str, Any]]:
        """Aggregate calls in an expression (not looking inside them)."""
        if not isinstance(e, (dict, list)):
            return []
        if isinstance(e, dict) and self.is_agg_call(e):
            return [e]
        items = e.values() if isinstance(e, dict) else e
        return [c for v in items for c in self.agg_calls(v)]

    def is_aggregate(self, node: dict[str, Any]) -> bool:
        if node.get("group_expressions") or node["aggregate_handling"] == "FORCE_AGGREGATES":
            return True
        return any(self.agg_calls(e) for e in self.expressions(node))

    # ---- row-level queries, top N, DISTINCT ----

    def row_level(self, node: dict[str, Any], src: Local) -> Local | Merged:
        mods = {m["type"]: m for m in node.get("modifiers", [])}
        unknown = set(mods) - {"ORDER_MODIFIER", "LIMIT_MODIFIER", "DISTINCT_MODIFIER"}
        if unknown:
            raise Unsplittable(f"{sorted(unknown)[0]} is not split")
        order, limit, distinct = (
            mods.get(k) for k in ("ORDER_MODIFIER", "LIMIT_MODIFIER", "DISTINCT_MODIFIER")
        )
        if distinct is not None:
            return self.distinct(node, src, distinct)
        base = dict(node, from_table=self.subquery(src.node, node["from_table"]), modifiers=[])
        if order is not None:
            self.check_order(order, node)
        if limit is None:
            if order is not None:
                return Local(base, order)
            if src.order is None:
                return Local(base)
            if is_star(node):
                return Local(base, src.order)
            merged = self.to_merged(src)  # a projection of ordered rows: order at
            return Merged(
                dict(
                    node,
                    from_table=self.subquery(
                        merged.merge,  # the shell
                        node["from_table"],
                    ),
                )
            )
        return self.top_n(node, src, order, limit, base)

    def top_n(
        self,
        node: dict[str, Any],
        src: Local,
        order: dict[str, Any] | None,
        limit: dict[str, Any],
        base: dict[str, Any],
    ) -> Merged:
        n, skip = const_int(limit.get("limit")), const_int(limit.get("offset"), 0)
        if n is None or skip is None:
            raise Unsplittable("LIMIT/OFFSET must be constant integers to be split")
        keep = limit_modifier(self, n + skip)
        tail = f" LIMIT {n}" + (f" OFFSET {skip}" if skip else "")
        if order is not None or src.order is None:
            part = dict(base, modifiers=[m for m in (order, keep) if m])
            ordered = f" ORDER BY {self.order_sql(order)}" if order else ""
            return Merged(
                self.parse(f"SELECT * FROM {self.add_part(self.render(part))}{ordered}{tail}")
            )
        rows = dict(
            base, select_list=self.holder("SELECT *")["select_list"], modifiers=[src.order, keep]
        )
        name = self.add_part(self.render(rows))
        inner = self.parse(f"SELECT * FROM {name} ORDER BY {self.order_sql(src.order)}")
        outer = dict(node, from_table=self.subquery(inner, node["from_table"]), where_clause=None)
        outer["modifiers"] = [self.parse(f"SELECT 1{tail}")["modifiers"][0]]
        return Merged(outer)

    def distinct(self, node: dict[str, Any], src: Local, distinct: dict[str, Any]) -> Merged:
        if distinct.get("distinct_on_targets"):
            raise Unsplittable("DISTINCT ON is not split")
        part = dict(
            node, from_table=self.subquery(src.node, node["from_table"]), modifiers=[distinct]
        )
        name = self.add_part(self.render(part))
        rest = [m for m in node["modifiers"] if m["type"] != "DISTINCT_MODIFIER"]
        merge = self.parse(f"SELECT DISTINCT * FROM {name}")
        merge["modifiers"] += rest
        return Merged(merge)

    def check_order(self, order: dict[str, Any], node: dict[str, Any]) -> None:
        """ORDER BY keys must be output columns (or positions) for the merge to re-sort."""
        if is_star(node):
            return
        names = {(e.get("alias") or col_name(e) or "").lower() for e in node["select_list"]}
        for o in order["orders"]:
            for ref in walk_json(o["expression"]):
                if (
                    ref.get("class") == "COLUMN_REF"
                    and ref["column_names"][-1].lower() not in names
                ):
                    raise Unsplittable(
                        f"ORDER BY {ref['column_names'][-1]!r}, which is not selected, is not split"
                    )

    # ---- aggregates ----

    def aggregate(self, node: dict[str, Any], src: Local) -> Merged:
        if node.get("group_sets") and len(node["group_sets"]) > 1:
            raise Unsplittable("GROUPING SETS/ROLLUP/CUBE are not split")
        groups = self.group_keys(node)
        calls: dict[str, dict[str, Any]] = {}
        for e in self.expressions(node):
            if e is node.get("where_clause"):
                continue
            for c in self.agg_calls(e):
                calls.setdefault(canon(c), c)
        agg = AggSplit(self, node, src, groups, list(calls.values()))
        return agg.build()

    def group_keys(self, node: dict[str, Any]) -> list[dict[str, Any]]:
        sel = node["select_list"]
        if node["aggregate_handling"] == "FORCE_AGGREGATES":
            return [strip_alias(e) for e in sel if not self.agg_calls(e)]
        keys = []
        for g in node.get("group_expressions") or []:
            pos = const_int(g)
            keys.append(strip_alias(sel[pos - 1]) if pos is not None and 0 < pos <= len(sel) else g)
        return keys


@dataclass
class AggSplit:
    """One aggregating SELECT split into partial aggregates and their merge."""

    sp: Splitter
    node: dict[str, Any]
    src: Local
    groups: list[dict[str, Any]]
    calls: list[dict[str, Any]]

    def build(self) -> Merged:
        keys = [f"fay_k{i}" for i in range(len(self.groups))]
        partials: list[str] = []
        merged: dict[str, str] = {}  # canon(call) -> merge SQL over the partials
        joins: list[str] = []
        for i, call in enumerate(self.calls):
            merged[canon(call)] = self.partial(i, call, partials, joins, keys)
        part = self.add_node_part(keys, partials)
        inner = [f"_a.{k}" for k in keys] + [
            f"{m} AS fay_m{j}" for j, m in enumerate(merged.values())
        ]
        group = f" GROUP BY {', '.join(f'_a.{k}' for k in keys)}" if keys else ""
        inner_sql = f"SELECT {', '.join(inner) or 'NULL'} FROM {part} AS _a{''.join(joins)}{group}"
        slots = {c: f"fay_m{j}" for j, c in enumerate(merged)}
        return Merged(self.outer(self.sp.parse(inner_sql), keys, slots))

    def where_sql(self, extra: str | None = None) -> str:
        conds = [self.sp.expr_sql(w) for w in [self.node.get("where_clause")] if w]
        conds += [extra] if extra else []
        return f" WHERE {' AND '.join(f'({c})' for c in conds)}" if conds else ""

    def from_sql(self) -> str:
        alias = self.node["from_table"].get("alias") or "_r"
        return f"({self.sp.render(self.src.node)}) AS {alias}"

    def add_node_part(self, keys: list[str], partials: list[str]) -> str:
        gk = [self.sp.expr_sql(g) for g in self.groups]
        cols = [f"{g} AS {k}" for g, k in zip(gk, keys, strict=True)] + partials
        group = f" GROUP BY {', '.join(gk)}" if gk else ""
        return self.sp.add_part(
            f"SELECT {', '.join(cols) or 'count(*) AS fay_rows'} FROM "
            f"{self.from_sql()}{self.where_sql()}{group}"
        )

    def partial(
        self, i: int, call: dict[str, Any], partials: list[str], joins: list[str], keys: list[str]
    ) -> str:
        name = call["function_name"]
        if name not in REMERGE:
            raise Unsplittable(
                f"the aggregate {name}() is not split (count, sum, min, max, "
                "avg, bool_and, bool_or, first, any_value and percentiles are)"
            )
        if call.get("distinct"):
            raise Unsplittable(f"{name}(DISTINCT …) is not split")
        if call.get("order_bys", {}).get("orders"):
            raise Unsplittable(f"{name}(… ORDER BY …) is not split")
        if REMERGE[name] in QUANTILES:
            return self.quantile(i, call, joins, keys)
        text = self.sp.expr_sql(call)
        col = f"fay_a{i}"
        if REMERGE[name] == "avg":
            arg = self.sp.expr_sql(call["arguments"][0]["expression"])
            filt = self.filter_sql(call)
            partials += [f"sum({arg}){filt} AS {col}s", f"count({arg}){filt} AS {col}c"]
            return f"CAST(sum(_a.{col}s) AS DOUBLE) / sum(_a.{col}c)"
        partials.append(f"{text} AS {col}")
        if REMERGE[name] == "count":
            return f"CAST(coalesce(sum(_a.{col}), 0) AS BIGINT)"
        return f"{REMERGE[name]}(_a.{col})"

    def filter_sql(self, call: dict[str, Any]) -> str:
        f = call.get("filter")
        return f" FILTER (WHERE {self.sp.expr_sql(f)})" if f else ""

    def quantile(self, i: int, call: dict[str, Any], joins: list[str], keys: list[str]) -> str:
        args = [a["expression"] for a in call["arguments"]]
        disc = REMERGE[call["function_name"]] == "quantile_disc"
        q = (
            0.5
            if call["function_name"] == "median"
            else const_float(args[1] if len(args) > 1 else None)
        )
        if q is None or not 0 <= q <= 1:
            raise Unsplittable(
                f"{call['function_name']}() needs one constant fraction in 0..1 to be split"
            )
        x = self.sp.expr_sql(args[0])
        if not self.sp.options.exact_quantiles:
            self.sp.approx.append(
                f"{self.sp.expr_sql(call)}: log-bucketed histogram, relative "
                f"error <= {self.sp.options.alpha:.2%}"
            )
        gk = [self.sp.expr_sql(g) for g in self.groups]
        cols = [f"{g} AS {k}" for g, k in zip(gk, keys, strict=True)]
        filt = call.get("filter")
        cond = f"({x}) IS NOT NULL" + (f" AND ({self.sp.expr_sql(filt)})" if filt else "")
        part = self.sp.add_part(self.histogram(cols, keys, x, cond))
        alias = f"_q{i}"
        on = " AND ".join(f"_a.{k} IS NOT DISTINCT FROM {alias}.{k}" for k in keys) or "TRUE"
        joins.append(f" LEFT JOIN ({weighted_quantile(part, keys, q, disc)}) AS {alias} ON {on}")
        return f"any_value({alias}.fay_q)"

    def histogram(self, cols: list[str], keys: list[str], x: str, cond: str) -> str:
        """The node query of a percentile: ``(keys, fay_v, fay_n)``, each value of ``x``
        counted as itself (exact) or as the representative ``sign(x)·2γ^e/(γ+1)`` of its
        bucket ``e = ⌈ln|x| / ln γ⌉`` (0 has sign 0, so it stays 0). Rows are grouped by sign
        and bucket number, each expression computed once per row, the representative once
        per bucket."""
        where = f"{self.from_sql()}{self.where_sql(cond)} GROUP BY ALL"
        if self.sp.options.exact_quantiles:
            return f"SELECT {', '.join([*cols, f'{x} AS fay_v', 'count(*) AS fay_n'])} FROM {where}"
        g = repr(self.sp.options.gamma)
        sign, exp = f"sign({x}) AS fay_s", f"ceil(ln(abs({x})) / ln({g})) AS fay_e"
        inner = f"SELECT {', '.join([*cols, sign, exp, 'count(*) AS fay_n'])} FROM {where}"
        value = f"fay_s * (2 * pow({g}, fay_e) / ({g} + 1)) AS fay_v"
        return f"SELECT {', '.join([*keys, value, 'fay_n'])} FROM ({inner}) AS _b"

    def outer(
        self, inner: dict[str, Any], keys: list[str], slots: dict[str, str]
    ) -> dict[str, Any]:
        """The original SELECT over the merged rows: group expressions and aggregate calls
        replaced by the merged columns; HAVING becomes WHERE."""
        gmap = {canon(g): k for g, k in zip(self.groups, keys, strict=True)}

        def sub(e: Any) -> Any:
            if isinstance(e, list):
                return [sub(v) for v in e]
            if not isinstance(e, dict):
                return e
            key = canon(e)
            name = slots.get(key) if self.sp.is_agg_call(e) else gmap.get(key)
            if name is not None:
                return column_ref(name, e.get("alias", ""))
            return {k: sub(v) for k, v in e.items()}

        out = copy.deepcopy(self.node)
        out["select_list"] = [keep_name(sub(e), e) for e in self.node["select_list"]]
        out["where_clause"] = sub(self.node.get("having"))
        out["having"] = None
        out["group_expressions"], out["group_sets"] = [], []
        out["aggregate_handling"] = "STANDARD_HANDLING"
        out["modifiers"] = sub(self.node.get("modifiers", []))
        out["from_table"] = self.sp.subquery(inner, {"alias": "_m"})
        return out


def weighted_quantile(part: str, keys: list[str], q: float, disc: bool) -> str:
    """Per key, the quantile of ``(fay_v, fay_n)`` rows (value, count): DuckDB's definitions,
    quantile_cont interpolating between ranks floor/ceil of (N−1)·q, quantile_disc taking rank
    ceil(N·q)−1 (0-based)."""
    part_by = f"PARTITION BY {', '.join(keys)} " if keys else ""
    ks = "".join(f"{k}, " for k in keys)
    rows = (
        f"SELECT {ks}fay_v, sum(fay_n) OVER ({part_by}ORDER BY fay_v ROWS UNBOUNDED "
        f"PRECEDING) AS fay_cum, sum(fay_n) OVER ({part_by.strip()}) AS fay_total FROM "
        f"(SELECT {ks}fay_v, sum(fay_n) AS fay_n FROM {part} GROUP BY ALL) AS _h"
    )
    if disc:
        rank = f"greatest(ceil(fay_total * {q!r}) - 1, 0)"
        value = f"min(fay_v) FILTER (WHERE fay_cum > {rank})"
    else:
        pos = f"(CAST(fay_total - 1 AS DOUBLE) * {q!r})"
        lo = f"CAST(min(fay_v) FILTER (WHERE fay_cum > floor({pos})) AS DOUBLE)"
        hi = (
            f"CAST(min(fay_v) FILTER (WHERE fay_cum > least(floor({pos}) + 1, fay_total - 1)) "
            "AS DOUBLE)"
        )
        frac = f"any_value({pos} - floor({pos}))"
        value = f"{lo} + ({hi} - {lo}) * {frac}"
    group = f" GROUP BY {', '.join(keys)}" if keys else ""
    return f"SELECT {ks}{value} AS fay_q FROM ({rows}) AS _c{group}"


# ---- small AST helpers ----------------------------------------------------------------------


def walk_json(e: Any) -> list[dict[str, Any]]:
    """Every dict inside a JSON value (the value itself first)."""
    out: list[dict[str, Any]] = []
    stack = [e]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            out.append(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def canon(e: Any) -> str:
    """An expression's identity: its JSON without source positions and aliases."""

    def clean(v: Any) -> Any:
        if isinstance(v, dict):
            return {
                k: clean(x)
                for k, x in v.items()
                if k not in ("query_location", "query_location_length", "alias")
            }
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v

    return json.dumps(clean(e), sort_keys=True)


def column_ref(name: str, alias: str = "") -> dict[str, Any]:
    return {
        "class": "COLUMN_REF",
        "type": "COLUMN_REF",
        "alias": alias,
        "query_location": 18446744073709551615,
        "query_location_length": 0,
        "column_names": [name],
    }


def col_name(e: dict[str, Any]) -> str | None:
    return e["column_names"][-1] if e.get("class") == "COLUMN_REF" else None


def keep_name(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """A rewritten select item keeps the output name the original had (when it was a column)."""
    if not new.get("alias") and col_name(old) and col_name(new) != col_name(old):
        return dict(new, alias=col_name(old))
    return new


def strip_alias(e: dict[str, Any]) -> dict[str, Any]:
    return dict(e, alias="")


def is_star(node: dict[str, Any]) -> bool:
    sel = node["select_list"]
    return (
        len(sel) == 1
        and sel[0].get("class") == "STAR"
        and not sel[0].get("exclude_list")
        and not sel[0].get("replace_list")
        and not sel[0].get("expr")
    )


def const_int(e: dict[str, Any] | None, default: int | None = None) -> int | None:
    if e is None:
        return default
    if e.get("class") == "CONSTANT" and e["literal"]["kind"] in ("INTEGER", "BIGINT"):
        return int(e["literal"]["text"])
    return None


def const_float(e: dict[str, Any] | None) -> float | None:
    if e is None or e.get("class") != "CONSTANT":
        return None
    try:
        return float(e["literal"]["text"])
    except (KeyError, TypeError, ValueError):
        return None


def limit_modifier(sp: Splitter, n: int) -> dict[str, Any]:
    mod: dict[str, Any] = sp.parse(f"SELECT 1 LIMIT {n}")["modifiers"][0]
    return mod


def split_query(sql: str, options: SplitOptions | None = None, con: Any = None) -> SplitPlan:
    """Split ``sql`` (see the module docstring); ``con``: a DuckDB connection to parse with."""
    import duckdb

    return Splitter(con or duckdb.connect(), options or SplitOptions()).split(sql)
