"""The filter box language and the SQL WHERE clauses built from a query.

The filter box takes whitespace-separated terms: ``node:web0*``, ``proc=nginx,postgres``,
``sys:open*`` or a bare glob, which applies to the view's default field. Globs are matched
case-insensitively; several globs after one field (comma-separated) mean "any of them". Values
always travel as SQL parameters, never spliced into the SQL text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fayshell.lang.ops import has_wildcard
from fayshell.views.model import Filter, Query


@dataclass(frozen=True)
class FieldDef:
    """A filterable field: the SQL expression and whether a bare word means a substring."""

    sql: str
    contains: bool = False


#: Default-field key in a field map: the fields a bare term is matched against.
BARE = ""


def parse_filter(text: str, fields: Mapping[str, tuple[str, ...]]) -> Filter:
    """Parse the filter box text; ``fields`` maps each alias to the canonical field names.

    Unknown field names raise ValueError so the box can show what went wrong.
    """
    globs: dict[str, list[str]] = {}
    for term in text.split():
        name, sep, value = _split_term(term)
        if not sep:
            name, value = BARE, term
        key = name.lower()
        if key not in fields:
            known = ", ".join(sorted(k for k in fields if k))
            raise ValueError(f"unknown filter field {name!r} (known: {known})")
        values = [v for v in value.split(",") if v]
        if not values:
            raise ValueError(f"filter term {term!r} has no value")
        for canon in fields[key]:
            globs.setdefault(canon, []).extend(values)
    return Filter(text=text.strip(), globs=tuple((k, tuple(v)) for k, v in globs.items()))


def _split_term(term: str) -> tuple[str, str, str]:
    for sep in (":", "="):
        name, found, value = term.partition(sep)
        if found and name.isidentifier():
            return name, found, value
    return term, "", ""


@dataclass
class Where:
    """A conjunction of SQL conditions with their positional parameters."""

    parts: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, sql: str, *params: Any) -> None:
        self.parts.append(sql)
        self.params.extend(params)

    def sql(self) -> str:
        return " AND ".join(self.parts) if self.parts else "TRUE"


def query_where(
    q: Query,
    ts: str,
    defs: Mapping[str, FieldDef],
    *,
    window: bool = True,
    node_col: str = "node",
    session_col: str = "session",
) -> Where:
    """Conditions for the scope, the window on ``ts``, the filter box and exact matches."""
    w = Where()
    if q.scope.session is not None:
        w.add(f"{session_col} = ?", q.scope.session)
    if q.scope.nodes:
        w.add(f"{node_col} IN ({', '.join('?' for _ in q.scope.nodes)})", *q.scope.nodes)
    if window:
        lo = q.lo_ns
        if lo is not None:
            w.add(f"{ts} >= ?", lo)
        w.add(f"{ts} <= ?", q.now_ns)
    add_filter(w, q.filter, defs)
    for col, value in q.where_eq:
        if col in defs:
            w.add(f"{defs[col].sql} = ?", value)
    return w


def add_filter(w: Where, flt: Filter, defs: Mapping[str, FieldDef]) -> None:
    """One condition per field of the filter; a bare term's fields are OR-ed together.

    Fields ``defs`` does not know are left out: the header narrows by node only.
    """
    bare = [
        (name, values) for name, values in flt.globs if name.startswith("*") and name[1:] in defs
    ]
    for name, values in flt.globs:
        if name.startswith("*") or name not in defs:
            continue
        _add_field(w, defs[name], values)
    if bare:
        ors: list[str] = []
        params: list[Any] = []
        for name, values in bare:
            part, ps = _field_sql(defs[name[1:]], values)
            ors.append(part)
            params.extend(ps)
        w.add("(" + " OR ".join(ors) + ")", *params)


def _add_field(w: Where, fd: FieldDef, values: tuple[str, ...]) -> None:
    sql, params = _field_sql(fd, values)
    w.add(sql, *params)


def _field_sql(fd: FieldDef, values: tuple[str, ...]) -> tuple[str, list[Any]]:
    expr = f"lower(CAST({fd.sql} AS VARCHAR)) GLOB ?"
    pats = [_pattern(v, fd.contains) for v in values]
    return "(" + " OR ".join(expr for _ in pats) + ")", pats


def _pattern(value: str, contains: bool) -> str:
    low = value.lower()
    if contains and not has_wildcard(low):
        return f"*{low}*"
    return low
