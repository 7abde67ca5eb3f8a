"""The spans view: latency per (service, span name), its slowest traces, one trace's waterfall."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fayshell.views.filters import FieldDef, query_where
from fayshell.views.model import Query, SpanStat, TraceSpan, TraceSummary, sort_rows
from fayshell.views.queries.common import Con

FIELDS: dict[str, FieldDef] = {
    "service": FieldDef("service"),
    "name": FieldDef("name"),
    "node": FieldDef("node"),
}
FILTER_ALIASES: dict[str, tuple[str, ...]] = {
    "": ("*service", "*name"),
    "service": ("service",),
    "svc": ("service",),
    "name": ("name",),
    "span": ("name",),
    "node": ("node",),
}


@dataclass(frozen=True)
class Grouping:
    """Key columns of a spans grouping."""

    name: str
    label: str
    keys: tuple[str, ...]


GROUPINGS: dict[str, Grouping] = {
    "span": Grouping("span", "per service × span", ("service", "name")),
    "span_node": Grouping("span_node", "per service × span × node", ("service", "name", "node")),
    "service": Grouping("service", "per service", ("service",)),
}


def span_stats(con: Con, q: Query) -> list[SpanStat]:
    """Count, rate, p50/p95/p99/max and errors per group in the window."""
    g = GROUPINGS[q.grouping or "span"]
    w = query_where(q, "ts_start", FIELDS)
    keys = ", ".join(g.keys)
    sql = (
        f"SELECT {keys}, count(*) AS count, count(*) FILTER (ts_start > ? AND ts_start <= ?) AS recent, "
        "quantile_cont(dur_ns, [0.5, 0.95, 0.99]) AS qs, coalesce(max(dur_ns), 0) AS max_ns, "
        "count(*) FILTER (error) AS errors "
        f"FROM spans WHERE {w.sql()} GROUP BY {keys}"
    )
    cur = con.execute(sql, [q.rate_lo_ns, q.rate_hi_ns, *w.params])
    names = [d[0] for d in cur.description or []]
    rows = [_stat(dict(zip(names, r, strict=True)), q.rate_s) for r in cur.fetchall()]
    return sort_rows(rows, q.sort or "p95_ns", q.descending)[: q.limit]


def _stat(r: dict[str, Any], interval_s: float) -> SpanStat:
    qs = r["qs"] or [None, None, None]
    return SpanStat(
        service=r.get("service"),
        name=r.get("name"),
        node=r.get("node"),
        count=int(r["count"]),
        rate=int(r["recent"]) / interval_s,
        p50_ns=qs[0],
        p95_ns=qs[1],
        p99_ns=qs[2],
        max_ns=int(r["max_ns"]),
        errors=int(r["errors"]),
    )


def slowest_traces(
    con: Con,
    q: Query,
    service: str | None,
    name: str | None,
    node: str | None = None,
    limit: int = 50,
) -> list[TraceSummary]:
    """Traces with a span of (service, name) in the window, slowest such span first."""
    w = query_where(q, "ts_start", FIELDS)
    for col, value in (("service", service), ("name", name), ("node", node)):
        if value is not None:
            w.add(f"{col} = ?", value)
    sess, extra = ("WHERE s.session = ? ", [q.scope.session]) if q.scope.session else ("", [])
    sql = (
        "WITH hit AS (SELECT trace_id, max(dur_ns) AS span_dur FROM spans "
        f"WHERE {w.sql()} GROUP BY trace_id ORDER BY span_dur DESC, trace_id LIMIT ?) "
        "SELECT h.trace_id, h.span_dur, min(s.ts_start), max(s.ts_end) - min(s.ts_start), "
        "count(*), list(DISTINCT s.service ORDER BY s.service), "
        "list(DISTINCT s.node ORDER BY s.node), bool_or(coalesce(s.error, false)) "
        f"FROM hit h JOIN spans s USING (trace_id) {sess}"
        "GROUP BY h.trace_id, h.span_dur ORDER BY h.span_dur DESC, h.trace_id"
    )
    rows = con.execute(sql, [*w.params, limit, *extra]).fetchall()
    return [
        TraceSummary(
            int(r[0]),
            int(r[1] or 0),
            int(r[2]),
            int(r[3] or 0),
            int(r[4]),
            tuple(r[5]),
            tuple(r[6]),
            bool(r[7]),
        )
        for r in rows
    ]


def trace_spans(con: Con, trace_id: int, session: str | None = None) -> list[TraceSpan]:
    """Every span of one trace, in waterfall order: depth-first, children by start time."""
    params: list[Any] = [trace_id]
    cond = "trace_id = ?"
    if session is not None:
        cond += " AND session = ?"
        params.append(session)
    sql = (
        "SELECT span_id, parent_span_id, service, node, name, ip, port, ts_start, dur_ns, "
        "client_dur_ns, server_dur_ns, coalesce(error, false), "
        "map_entries(keyvals), annotations "
        f"FROM spans WHERE {cond} ORDER BY ts_start, span_id"
    )
    rows = con.execute(sql, params).fetchall()
    return waterfall_order([_span(r) for r in rows])


def _span(r: tuple[Any, ...]) -> TraceSpan:
    kv = tuple(sorted((str(e["key"]), str(e["value"])) for e in (r[12] or [])))
    ann = tuple(sorted((int(a["ts"]), str(a["value"])) for a in (r[13] or [])))
    return TraceSpan(
        span_id=int(r[0]),
        parent_span_id=None if r[1] is None else int(r[1]),
        depth=0,
        service=r[2] or "",
        node=r[3] or "",
        name=r[4] or "",
        ip=r[5],
        port=r[6],
        start_ns=int(r[7]),
        dur_ns=int(r[8] or 0),
        client_dur_ns=r[9],
        server_dur_ns=r[10],
        error=bool(r[11]),
        keyvals=kv,
        annotations=ann,
    )


def waterfall_order(spans: list[TraceSpan]) -> list[TraceSpan]:
    """Depth-first from the roots (spans whose parent is absent), each with its depth."""
    ids = {s.span_id for s in spans}
    children: dict[int | None, list[TraceSpan]] = {}
    for s in spans:
        parent = (
            s.parent_span_id if s.parent_span_id in ids and s.parent_span_id != s.span_id else None
        )
        children.setdefault(parent, []).append(s)
    out: list[TraceSpan] = []
    stack = [(s, 0) for s in reversed(children.get(None, []))]
    seen: set[int] = set()
    while stack:
        span, depth = stack.pop()
        if span.span_id in seen:
            continue
        seen.add(span.span_id)
        out.append(TraceSpan(**{**span.__dict__, "depth": depth}))
        stack.extend((c, depth + 1) for c in reversed(children.get(span.span_id, [])))
    out.extend(s for s in spans if s.span_id not in seen)
    return out
