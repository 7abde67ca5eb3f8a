"""The syscalls and spans views computed from node rollups (partial rows) instead of raw rows.

In rollup mode every node's agent sends, per refresh, the partial aggregates of the rows it
imported since the last refresh: one row per (time bucket, key columns) with the count, the sum
and the maximum of the durations, the newest timestamp and a mergeable log-bucketed histogram
of the durations (a MAP from bucket index to count; bucket ``k`` holds durations in
``(γ^(k-1), γ^k]`` with ``γ = (1 + α) / (1 − α)``, its representative ``2γ^k / (γ + 1)`` is
within a relative error α of every value in it). The shell appends those rows, as they come, to
tables of an in-memory DuckDB the feed owns (:data:`PARTS_SCHEMA`), and the views' main tables
are computed here from them: counts, totals and maxima exactly, percentiles from the merged
histograms (within α, said in the column header), and windows on whole buckets (a bucket is one
refresh interval wide; a window takes every bucket it overlaps).

The node side of the same rollup is :func:`node_rollup_sql`: one SELECT the agent runs over the
rows of its own store appended since the last refresh (by rowid: the store only appends).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fayshell.lang.plansplit import SplitOptions
from fayshell.store.database import registered
from fayshell.store.relation import quote_literal
from fayshell.views.filters import FieldDef, Where, query_where
from fayshell.views.model import NS, Header, NodeRate, Query, SpanStat, SyscallStat, sort_rows
from fayshell.views.queries import common
from fayshell.views.queries import spans as spq
from fayshell.views.queries import syscalls as sq
from fayshell.views.queries.common import Con

#: The histogram's relative error (the same default as split -OnNode percentiles).
HIST = SplitOptions()
#: Histogram bucket of a zero duration (its representative is 0).
ZERO_BIN = -(2**31)


@dataclass(frozen=True)
class Kind:
    """One rollup: the node table, its timestamp columns, the keys kept and the part table."""

    name: str
    table: str
    ts: str
    last: str
    keys: tuple[str, ...]
    key_types: tuple[str, ...]
    extra: tuple[tuple[str, str, str], ...] = ()  # (column, node SQL, type)
    #: Whether the rows carry a duration (``dur_ns``): its sum, maximum and histogram.
    durations: bool = True

    @property
    def parts(self) -> str:
        return f"parts_{self.name}"


KINDS: dict[str, Kind] = {
    "syscalls": Kind(
        "syscalls",
        "syscalls",
        "ts_entry",
        "ts_exit",
        ("name", "pid", "procname"),
        ("VARCHAR", "BIGINT", "VARCHAR"),
    ),
    "spans": Kind(
        "spans",
        "spans",
        "ts_start",
        "ts_end",
        ("service", "name"),
        ("VARCHAR", "VARCHAR"),
        (("e", "count(*) FILTER (WHERE error)", "BIGINT"),),
    ),
    "logs": Kind(
        "logs", "logs", "ts", "ts", ("severity", "logger"), ("VARCHAR", "VARCHAR"), durations=False
    ),
}


def value_columns(kind: Kind) -> list[str]:
    """The columns of a partial row after its bucket and keys."""
    stats = ["n", "t", "m"] if kind.durations else []
    hist = ["h"] if kind.durations else []
    return ["c", *stats, "last", *(c for c, _, _ in kind.extra), *hist]


def parts_schema(kind: Kind) -> str:
    """The shell-side table of one kind's partial rows."""
    keys = ", ".join(f"{k} {t}" for k, t in zip(kind.keys, kind.key_types, strict=True))
    extra = "".join(f", {c} {t}" for c, _, t in kind.extra)
    stats = "n BIGINT, t HUGEINT, m BIGINT, " if kind.durations else ""
    hist = ", h MAP(INTEGER, UBIGINT)" if kind.durations else ""
    return (
        f"CREATE TABLE IF NOT EXISTS {kind.parts} (session VARCHAR, node VARCHAR, b BIGINT, "
        f"{keys}, c BIGINT, {stats}last BIGINT{extra}{hist})"
    )


#: Events (every event the node stored, not only the view's rows) per node and bucket: the
#: header's events/s and the per-node sparklines, as in pull mode.
EVENT_PARTS = (
    "CREATE TABLE IF NOT EXISTS parts_events (session VARCHAR, node VARCHAR, b BIGINT, c BIGINT)"
)

NODE_MARKS = (
    "CREATE TABLE IF NOT EXISTS node_marks (session VARCHAR, node VARCHAR, discarded BIGINT, "
    "lost BIGINT, newest BIGINT, PRIMARY KEY (session, node))"
)


def create_tables(con: Con, kind: Kind) -> None:
    """The partials database of a view over ``kind``: its parts, events and node marks."""
    for sql in (parts_schema(kind), EVENT_PARTS, NODE_MARKS):
        con.execute(sql)


def hist_bin(x: str) -> str:
    """The histogram bucket index of duration ``x`` (SQL)."""
    g = repr(HIST.gamma)
    return f"CASE WHEN {x} > 0 THEN CAST(ceil(ln({x}) / ln({g})) AS INTEGER) ELSE {ZERO_BIN} END"


def hist_value(k: str) -> str:
    """The representative duration of bucket index ``k`` (SQL)."""
    g = repr(HIST.gamma)
    return f"CASE WHEN {k} = {ZERO_BIN} THEN 0.0 ELSE 2 * pow({g}, {k}) / ({g} + 1) END"


def node_rollup_sql(
    kind: Kind, session: str, width_ns: int, lo_rowid: int, hi_rowid: int, node: str | None = None
) -> str:
    """What one node's agent runs per refresh: its rows with rowid in [lo, hi) rolled up
    (``node``: only that node's rows, for a store holding several)."""
    keys = ", ".join(kind.keys)
    only = "" if node is None else f"AND node = {quote_literal(node)} "
    extra = "".join(f", {sql} AS {c}" for c, sql, _ in kind.extra)
    stats = (
        "count(dur_ns) AS n, CAST(coalesce(sum(dur_ns), 0) AS BIGINT) AS t, max(dur_ns) AS m, "
        if kind.durations
        else ""
    )
    hist = (
        f", histogram({hist_bin('dur_ns')}) FILTER (WHERE dur_ns IS NOT NULL) AS h"
        if kind.durations
        else ""
    )
    return (
        f"SELECT {kind.ts} // {int(width_ns)} AS b, {keys}, count(*) AS c, {stats}"
        f"max({kind.last}) AS last{extra}{hist} "
        f"FROM {kind.table} WHERE session = {quote_literal(session)} "
        f"AND rowid >= {int(lo_rowid)} AND rowid < {int(hi_rowid)} {only}GROUP BY ALL"
    )


def node_events_sql(
    session: str, width_ns: int, lo_rowid: int, hi_rowid: int, node: str | None = None
) -> str:
    """Events per bucket among the node's event rows with rowid in [lo, hi)."""
    cond = f"session = {quote_literal(session)}"
    if node is not None:
        cond += f" AND node = {quote_literal(node)}"
    return (
        f"SELECT ts // {int(width_ns)} AS b, count(*) AS c FROM event_rows "
        f"WHERE rowid >= {int(lo_rowid)} AND rowid < {int(hi_rowid)} "
        f"AND chunk_no IN (SELECT chunk_no FROM chunks WHERE {cond}) GROUP BY ALL"
    )


def node_marks_sql(kind: Kind, session: str) -> str:
    """The next rowid of the node's table and of its event rows, and its chunks'
    discarded/lost counts and newest timestamp for the session (one row)."""
    s = quote_literal(session)
    return (
        f"SELECT (SELECT coalesce(max(rowid) + 1, 0) FROM {kind.table}) AS hi, "
        "(SELECT coalesce(max(rowid) + 1, 0) FROM event_rows) AS ev_hi, "
        f"(SELECT coalesce(sum(discarded), 0) FROM chunks WHERE session = {s}) AS discarded, "
        f"(SELECT coalesce(sum(lost_packets), 0) FROM chunks WHERE session = {s}) AS lost, "
        f"(SELECT max(last_ts) FROM chunks WHERE session = {s}) AS newest"
    )


def add_parts(con: Con, kind: Kind, session: str, node: str, table: Any) -> None:
    """Append one node's rollup (an Arrow table from :func:`node_rollup_sql`)."""
    if table.num_rows == 0:
        return
    cols = ", ".join(["b", *kind.keys, *value_columns(kind)])
    with registered(con, fay_incoming=table):
        con.execute(
            f"INSERT INTO {kind.parts} (session, node, {cols}) "
            f"SELECT ?, ?, {cols} FROM fay_incoming",
            [session, node],
        )


def add_events(con: Con, session: str, node: str, table: Any) -> None:
    """Append one node's events per bucket (an Arrow table from :func:`node_events_sql`)."""
    if table.num_rows == 0:
        return
    with registered(con, fay_incoming=table):
        con.execute("INSERT INTO parts_events SELECT ?, ?, b, c FROM fay_incoming", [session, node])


def fold_old(
    con: Con,
    kind: Kind,
    width: int,
    keep_ns: int = common.FOLD_KEEP_NS,
    every_ns: int = common.FOLD_EVERY_NS,
) -> None:
    """Fold the partial rows (and event counts) of buckets more than ``keep_ns`` behind the
    newest into one row per key just below the cutoff: counts and sums added, maxima kept,
    histograms merged, so a view open for hours keeps bounded tables and exact answers (no
    bounded window reaches the folded bucket; the whole session adds it up)."""
    keep, every = max(1, keep_ns // width), max(0, every_ns // width)
    for table, fold in ((kind.parts, _fold_parts(kind)), ("parts_events", _FOLD_EVENTS)):
        cut = common.fold_cutoff(con, table, keep, every)
        if cut is None:
            continue
        con.execute(f"CREATE OR REPLACE TEMP TABLE fay_folded AS {fold.format(cut=cut)}")
        con.execute(f"DELETE FROM {table} WHERE b < {cut}")
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM fay_folded")
        con.execute("DROP TABLE fay_folded")


_FOLD_EVENTS = (
    "SELECT session, node, {cut} - 1 AS b, sum(c)::BIGINT AS c FROM parts_events "
    "WHERE b < {cut} GROUP BY session, node"
)


def _fold_parts(kind: Kind) -> str:
    """The folding SELECT of ``kind``'s parts (``{cut}`` left to fill in): groups numbered
    by key (NULL keys equal, as GROUP BY has them), values summed per group, histogram
    counts summed per bucket index."""
    keys = ["session", "node", *kind.keys]
    sums = ["c", *(["n"] if kind.durations else []), *(c for c, _, _ in kind.extra)]
    vals = [f"sum({c})::BIGINT AS {c}" for c in sums] + ["max(last) AS last"]
    if kind.durations:
        vals += ["sum(t)::HUGEINT AS t", "max(m) AS m"]
    pick = ", ".join([*(f"any_value({k}) AS {k}" for k in keys), *vals])
    old = (
        f"SELECT *, dense_rank() OVER (ORDER BY {', '.join(keys)}) AS g "
        f"FROM {kind.parts} WHERE b < {{cut}}"
    )
    if not kind.durations:
        return f"WITH o AS ({old}) SELECT {{cut}} - 1 AS b, {pick} FROM o GROUP BY g"
    return (
        f"WITH o AS ({old}), v AS (SELECT g, {pick} FROM o GROUP BY g), "
        "e AS (SELECT g, u.e.key AS k, sum(u.e.value)::UBIGINT AS n FROM o, "
        "unnest(map_entries(h)) AS u(e) GROUP BY ALL), "
        "hm AS (SELECT g, map(list(k ORDER BY k), list(n ORDER BY k)) AS h FROM e GROUP BY g) "
        "SELECT {cut} - 1 AS b, v.* EXCLUDE (g), hm.h FROM v LEFT JOIN hm USING (g)"
    )


def counts_source(con: Con, kind: Kind) -> str:
    """Where the header and sparklines count: the events, once any node sent some; else the
    view's rows (a store without event rows)."""
    row = con.execute("SELECT EXISTS (SELECT 1 FROM parts_events)").fetchall()[0]
    return "parts_events" if row == (True,) else kind.parts


def set_marks(
    con: Con, session: str, node: str, discarded: int, lost: int, newest: int | None
) -> None:
    """The node's chunk counters as of its last answer."""
    con.execute(
        "INSERT OR REPLACE INTO node_marks VALUES (?, ?, ?, ?, ?)",
        [session, node, discarded, lost, newest],
    )


# ---- the views' main tables --------------------------------------------------------------------


def buckets(q: Query, width: int) -> tuple[int | None, int]:
    """First (None: the whole session) and last bucket of the window: every bucket it
    overlaps."""
    lo = q.lo_ns
    return (None if lo is None else lo // width), q.now_ns // width


def rate_buckets(q: Query, width: int) -> tuple[int, int, float]:
    """Buckets [lo, hi) of the rate interval (the last whole buckets ending at or before the
    rate end) and its length in seconds."""
    hi = (q.rate_hi_ns + 1) // width
    k = max(1, round(q.interval_ns / width))
    return hi - k, hi, k * width / NS


def window_where(q: Query, width: int, defs: dict[str, FieldDef]) -> Where:
    w = query_where(q, "", defs, window=False)
    first, last = buckets(q, width)
    if first is not None:
        w.add("b >= ?", first)
    w.add("b <= ?", last)
    return w


def _rows(con: Con, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description or []]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def quantiles_sql(kind: Kind, keys: tuple[str, ...], where: str, qs: tuple[float, ...]) -> str:
    """Per key, the merged histogram's quantiles ``q0``, ``q1``… (one row per key), in one
    pass: DuckDB's quantile_cont definition (interpolating between the values at ranks
    floor/ceil of (N−1)·q) over the buckets' representatives weighted by their counts, as
    :func:`fayshell.lang.plansplit.weighted_quantile` does for one quantile."""
    ks = ", ".join(keys)
    cols = []
    for i, q in enumerate(qs):
        pos = f"(CAST(tot - 1 AS DOUBLE) * {q!r})"
        lo = f"CAST(min(v) FILTER (WHERE cum > floor({pos})) AS DOUBLE)"
        hi = f"CAST(min(v) FILTER (WHERE cum > least(floor({pos}) + 1, tot - 1)) AS DOUBLE)"
        cols.append(f"{lo} + ({hi} - {lo}) * any_value({pos} - floor({pos})) AS q{i}")
    return (
        f"WITH h AS (SELECT {ks}, {hist_value('u.e.key')} AS v, sum(u.e.value) AS n "
        f"FROM {kind.parts}, unnest(map_entries(h)) AS u(e) WHERE {where} GROUP BY ALL), "
        f"c AS (SELECT {ks}, v, sum(n) OVER (PARTITION BY {ks} ORDER BY v ROWS UNBOUNDED "
        f"PRECEDING) AS cum, sum(n) OVER (PARTITION BY {ks}) AS tot FROM h) "
        f"SELECT {ks}, {', '.join(cols)} FROM c GROUP BY {ks}"
    )


def syscall_stats(con: Con, q: Query, width: int) -> list[SyscallStat]:
    """The syscalls view's rows from the partials: exact counts, totals, averages, maxima and
    top column; p95 from the merged histograms (``approx``)."""
    kind = KINDS["syscalls"]
    g = sq.GROUPINGS[q.grouping or "syscall"]
    w = window_where(q, width, sq.FIELDS)
    rlo, rhi, rate_s = rate_buckets(q, width)
    keys = ", ".join(g.keys)
    sql = (
        f"WITH p AS (SELECT * FROM {kind.parts} WHERE {w.sql()}), "
        f"m AS (SELECT {g.select()}, sum(c) AS calls, sum(c) FILTER (b >= {rlo} AND b < {rhi}) "
        "AS recent, sum(t) AS total_ns, sum(n) AS n, coalesce(max(m), 0) AS max_ns "
        f"FROM p GROUP BY {keys}), "
        f"s AS (SELECT {keys}, {g.top} AS top, sum(t) AS s FROM p GROUP BY ALL), "
        f"b AS (SELECT {keys}, first(top ORDER BY s DESC, top) AS top FROM s GROUP BY {keys}) "
        f"SELECT m.*, b.top, h.q0 AS p95 FROM m JOIN b USING ({keys}) "
        f"LEFT JOIN ({quantiles_sql(kind, g.keys, w.sql(), (0.95,))}) AS h USING ({keys})"
    )
    rows = _rows(con, sql, [*w.params, *w.params])
    out = []
    for r in rows:
        n = int(r["n"] or 0)
        out.append(
            SyscallStat(
                name=r.get("name"),
                node=r.get("node"),
                pid=r.get("pid"),
                procname=r.get("procname"),
                calls=int(r["calls"]),
                rate=int(r["recent"] or 0) / rate_s,
                total_ns=int(r["total_ns"]),
                avg_ns=int(r["total_ns"]) / n if n else 0.0,
                p95_ns=None if r["p95"] is None else float(r["p95"]),
                max_ns=int(r["max_ns"]),
                top=None if r["top"] is None else str(r["top"]),
                approx=True,
            )
        )
    return sort_rows(out, q.sort or "total_ns", q.descending)[: q.limit]


def span_stats(con: Con, q: Query, width: int) -> list[SpanStat]:
    """The spans view's rows from the partials: exact count, rate, max and errors; p50, p95
    and p99 from the merged histograms."""
    kind = KINDS["spans"]
    g = spq.GROUPINGS[q.grouping or "span"]
    w = window_where(q, width, spq.FIELDS)
    rlo, rhi, rate_s = rate_buckets(q, width)
    keys = ", ".join(g.keys)
    sql = (
        f"WITH m AS (SELECT {keys}, sum(c) AS count, sum(c) FILTER (b >= {rlo} AND b < {rhi}) "
        "AS recent, coalesce(max(m), 0) AS max_ns, sum(e) AS errors "
        f"FROM {kind.parts} WHERE {w.sql()} GROUP BY {keys}) "
        f"SELECT m.*, h.q0, h.q1, h.q2 FROM m LEFT JOIN "
        f"({quantiles_sql(kind, g.keys, w.sql(), (0.5, 0.95, 0.99))}) AS h USING ({keys})"
    )
    rows = _rows(con, sql, [*w.params, *w.params])
    out = [
        SpanStat(
            service=r.get("service"),
            name=r.get("name"),
            node=r.get("node"),
            count=int(r["count"]),
            rate=int(r["recent"] or 0) / rate_s,
            p50_ns=r["q0"],
            p95_ns=r["q1"],
            p99_ns=r["q2"],
            max_ns=int(r["max_ns"]),
            errors=int(r["errors"] or 0),
        )
        for r in rows
    ]
    return sort_rows(out, q.sort or "p95_ns", q.descending)[: q.limit]


def header(con: Con, q: Query, kind: Kind, width: int) -> Header:
    """Nodes reporting, rows/s over the rate interval, lag and discarded events."""
    w = query_where(q, "", common.NODE_FIELD, window=False)
    rlo, rhi, rate_s = rate_buckets(q, width)
    recent = q.now_ns - common.reporting_window_ns(q)
    row = con.execute(
        f"SELECT count(DISTINCT node) FILTER (last >= ?), count(DISTINCT node), max(last) "
        f"FROM {kind.parts} WHERE {w.sql()}",
        [recent, *w.params],
    ).fetchall()[0]
    reporting, total, newest = row if row else (0, 0, None)
    counted = con.execute(
        f"SELECT coalesce(sum(c), 0) FROM {counts_source(con, kind)} "
        f"WHERE {w.sql()} AND b >= {rlo} AND b < {rhi}",
        w.params,
    ).fetchall()[0]
    calls = 0 if counted is None else counted[0]
    lost = con.execute(
        "SELECT coalesce(sum(discarded), 0), coalesce(sum(lost), 0) FROM node_marks "
        f"WHERE {w.sql()}",
        w.params,
    ).fetchall()[0]
    newest = None if newest is None else int(newest)
    lag = None if newest is None else max(0, q.now_ns - newest)
    discarded, lost_packets = (0, 0) if lost is None else (int(lost[0]), int(lost[1]))
    return Header(
        int(reporting), int(total), int(calls) / rate_s, newest, lag, discarded, lost_packets
    )


def node_rates(con: Con, q: Query, kind: Kind, width: int) -> list[NodeRate]:
    """Events/s per node per sparkline bucket (each a whole number of rollup buckets)."""
    spark = max(width, (common.bucket_ns(q) // width) * width)
    lo = ((q.rate_hi_ns + 1) // width) * width - spark * common.SPARK_BUCKETS
    w = query_where(q, "", common.NODE_FIELD, window=False)
    rows = con.execute(
        f"SELECT node, (b * {width} - ?) // ? AS k, sum(c), NULL "
        f"FROM {counts_source(con, kind)} "
        f"WHERE {w.sql()} AND b * {width} >= ? AND b * {width} <= ? GROUP BY ALL",
        [lo, spark, *w.params, lo, q.now_ns],
    ).fetchall()
    nodes = {
        r[0]: None if r[1] is None else int(r[1])
        for r in con.execute(
            f"SELECT node, max(last) FROM {kind.parts} WHERE {w.sql()} GROUP BY node", w.params
        ).fetchall()
    }
    return common._rates_from_buckets(rows, nodes, spark)


# ---- the logs view -------------------------------------------------------------------------------

#: The logs filter fields a partial row keeps; a filter on any other (the message, the process,
#: a bare word, which also looks in the message) is counted by the nodes.
LOG_PART_FIELDS: dict[str, FieldDef] = {"node": FieldDef("node"), "logger": FieldDef("logger")}


def logs_filter_in_parts(q: Query, fields: dict[str, FieldDef]) -> bool:
    """Whether the partial rows can count ``q``'s filter and exact matches (``fields``: the
    logs view's filter fields)."""
    named = {name for name, _ in q.filter.globs} | {c for c, _ in q.where_eq if c in fields}
    return named <= set(LOG_PART_FIELDS)


@dataclass(frozen=True)
class LogSplit:
    """A logs window cut on bucket boundaries: whole buckets [first, last) counted from the
    partials (``first`` None: from the session's start), and the ns ranges [a, b] the nodes
    count (the window's ends inside a bucket)."""

    first: int | None
    last: int
    edges: tuple[tuple[int, int], ...]


def log_split(q: Query, width: int) -> LogSplit:
    """The window [lo, now] of ``q``: its whole buckets, and its edges asked of the nodes (the
    bucket holding now, whose rows up to now only are in the window, and the part of the
    bucket holding lo from lo on). A window inside one bucket is all edge."""
    lo, now = q.lo_ns, q.now_ns
    last = now // width
    if lo is None:
        return LogSplit(None, last, ((last * width, now),))
    first = -(-lo // width)
    if first > last:
        return LogSplit(first, first, ((lo, now),))
    head = ((lo, first * width - 1),) if lo < first * width else ()
    return LogSplit(first, last, (*head, (last * width, now)))


def log_counts(con: Con, q: Query, split: LogSplit) -> dict[str, int]:
    """Records per severity in the split's whole buckets, from the partials (exact)."""
    w = query_where(q, "", LOG_PART_FIELDS, window=False)
    if split.first is not None:
        w.add("b >= ?", split.first)
    w.add("b < ?", split.last)
    rows = con.execute(
        f"SELECT severity, sum(c) FROM {KINDS['logs'].parts} WHERE {w.sql()} GROUP BY severity",
        w.params,
    ).fetchall()
    return {str(s): int(n) for s, n in rows}


def add_counts(*parts: dict[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in parts:
        for sev, n in part.items():
            out[sev] = out.get(sev, 0) + n
    return out
