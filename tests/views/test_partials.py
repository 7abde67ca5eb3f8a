"""The views' main tables from node rollups (fayshell/views/queries/partials.py) against the same
views over the raw rows, on the known store: each node's rows rolled up in two rowid ranges as
two refreshes would, appended to a partials database, then compared (counts, totals, maxima,
top column and errors exactly; percentiles within the histogram's bound)."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

from fayshell.views.filters import parse_filter
from fayshell.views.model import NS, Query, Scope
from fayshell.views.queries import logs as lq
from fayshell.views.queries import partials
from fayshell.views.queries import spans as spq
from fayshell.views.queries import syscalls as sq
from fayshell.views.rollfeed import inline_params
from tests.fixtures.store_data import LOGS, NODES, NOW, SESSION

WIDTH = NS


def rolled(con: Any, kind: partials.Kind) -> Any:
    """A partials database filled from ``con``'s rows, two rowid ranges per node."""
    parts = duckdb.connect(":memory:")
    partials.create_tables(parts, kind)
    ((hi,),) = con.execute(f"SELECT max(rowid) + 1 FROM {kind.table}").fetchall()
    mid = int(hi) // 2
    for node in NODES:
        for lo, up in ((0, mid), (mid, int(hi))):
            sql = partials.node_rollup_sql(kind, SESSION, WIDTH, lo, up, node=node)
            partials.add_parts(parts, kind, SESSION, node, con.sql(sql).to_arrow_table())
    return parts


def q_for(view_grouping: str, sort: str) -> Query:
    return Query(
        now_ns=NOW,
        window="session",
        grouping=view_grouping,
        scope=Scope(SESSION),
        sort=sort,
        limit=10_000,
    )


def close_to(a: float | None, b: float | None, alpha: float) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= alpha * abs(b) + 1e-9


@pytest.mark.parametrize("grouping", list(sq.GROUPINGS))
def test_syscalls_from_partials_match_the_raw_rows(con: Any, grouping: str) -> None:
    parts = rolled(con, partials.KINDS["syscalls"])
    q = q_for(grouping, "total_ns")
    raw = {r.key: r for r in sq.syscall_stats(con, q)}
    got = {r.key: r for r in partials.syscall_stats(parts, q, WIDTH)}
    assert raw and set(got) == set(raw)
    for key, r in raw.items():
        g = got[key]
        assert (g.calls, g.total_ns, g.max_ns, g.top) == (r.calls, r.total_ns, r.max_ns, r.top)
        assert g.avg_ns == pytest.approx(r.avg_ns)
        assert g.approx and not r.approx
        assert close_to(g.p95_ns, r.p95_ns, partials.HIST.alpha), (key, g.p95_ns, r.p95_ns)


@pytest.mark.parametrize("grouping", list(spq.GROUPINGS))
def test_spans_from_partials_match_the_raw_rows(con: Any, grouping: str) -> None:
    parts = rolled(con, partials.KINDS["spans"])
    q = q_for(grouping, "p95_ns")
    raw = {r.key: r for r in spq.span_stats(con, q)}
    got = {r.key: r for r in partials.span_stats(parts, q, WIDTH)}
    assert raw and set(got) == set(raw)
    for key, r in raw.items():
        g = got[key]
        assert (g.count, g.max_ns, g.errors) == (r.count, r.max_ns, r.errors)
        for attr in ("p50_ns", "p95_ns", "p99_ns"):
            assert close_to(getattr(g, attr), getattr(r, attr), partials.HIST.alpha), (key, attr)


def test_header_and_rates_from_partials(con: Any) -> None:
    kind = partials.KINDS["syscalls"]
    parts = rolled(con, kind)
    q = q_for("syscall", "total_ns")
    h = partials.header(parts, q, kind, WIDTH)
    (newest,) = con.execute(
        "SELECT max(ts_exit) FROM syscalls WHERE session = ?", [SESSION]
    ).fetchall()[0]
    assert h.newest_ns == newest and h.lag_ns == NOW - newest
    rates = partials.node_rates(parts, q, kind, WIDTH)
    with_calls = {n for (n,) in con.execute("SELECT DISTINCT node FROM syscalls").fetchall()}
    assert {r.node for r in rates} == with_calls


def test_a_window_takes_every_bucket_it_overlaps(con: Any) -> None:
    """Windows in rollup mode are whole buckets: the minute window's calls are those of the
    buckets from the one holding now - 60 s to the one holding now."""
    parts = rolled(con, partials.KINDS["syscalls"])
    q = q_for("syscall", "total_ns").but(window="minute")
    lo = (NOW - 60 * NS) // WIDTH * WIDTH
    (want,) = con.execute(
        "SELECT count(*) FROM syscalls WHERE session = ? AND ts_entry >= ? AND ts_entry <= ?",
        [SESSION, lo, NOW // WIDTH * WIDTH + WIDTH - 1],
    ).fetchall()[0]
    got = sum(r.calls for r in partials.syscall_stats(parts, q, WIDTH))
    assert got == want > 0


def test_inline_params_writes_literals() -> None:
    sql = inline_params("SELECT ? AS a, ? AS b, ? AS c WHERE x IN (?)", ["it's", 3, None, 1.5])
    assert sql == "SELECT 'it''s' AS a, 3 AS b, NULL AS c WHERE x IN (1.5)"
    assert duckdb.sql(sql.replace(" WHERE x IN (1.5)", "")).fetchall() == [("it's", 3, None)]
    with pytest.raises(Exception, match="2 placeholders for 1 parameters"):
        inline_params("? ?", [1])


# ---- the logs view -------------------------------------------------------------------------------


def rolled_logs(con: Any, width: int) -> Any:
    """The logs partials of ``con``'s rows at bucket ``width``, two rowid ranges per node."""
    kind = partials.KINDS["logs"]
    parts = duckdb.connect(":memory:")
    partials.create_tables(parts, kind)
    ((hi,),) = con.execute("SELECT max(rowid) + 1 FROM logs").fetchall()
    for node in NODES:
        for lo, up in ((0, int(hi) // 2), (int(hi) // 2, int(hi))):
            sql = partials.node_rollup_sql(kind, SESSION, width, lo, up, node=node)
            partials.add_parts(parts, kind, SESSION, node, con.sql(sql).to_arrow_table())
    return parts


def logs_q(window: str, now: int, text: str = "") -> Query:
    flt = parse_filter(text, lq.FILTER_ALIASES)
    return Query(
        now_ns=now, interval_ns=7 * NS // 2, window=window, scope=Scope(SESSION), filter=flt
    )


@pytest.mark.parametrize("width", [NS, 3 * NS, 7 * NS // 2, 60 * NS])
@pytest.mark.parametrize("window", ["interval", "minute", "session"])
@pytest.mark.parametrize("text", ["", "node:web01,db01", "logger:storage.*"])
def test_log_counts_from_partials_and_edges_are_exact(
    con: Any, width: int, window: str, text: str
) -> None:
    """Whole buckets from the partials plus the window's ends counted on the rows equal the
    counts over the rows, for windows that start and end inside a bucket or on its edge."""
    parts = rolled_logs(con, width)
    for now in (NOW, NOW - NS, NOW - 1_300_000_000, NOW - 57 * NS - 1):
        q = logs_q(window, now, text)
        assert partials.logs_filter_in_parts(q, lq.FIELDS)
        split = partials.log_split(q, width)
        got = partials.add_counts(
            partials.log_counts(parts, q, split), lq.severity_counts(con, q, list(split.edges))
        )
        assert got == lq.severity_counts(con, q), (now, split)
    assert sum(lq.severity_counts(con, logs_q("session", NOW)).values()) == len(LOGS)


def test_a_log_split_covers_the_window_once() -> None:
    for width in (NS, 3 * NS, 7 * NS // 2):
        for now in (NOW, NOW - 1, NOW - 1_300_000_000):
            for window in ("interval", "minute"):
                q = logs_q(window, now)
                s = partials.log_split(q, width)
                lo = q.lo_ns
                assert lo is not None
                spans = (
                    [(s.first * width, s.last * width - 1)]
                    if s.first is not None and s.first < s.last
                    else []
                )
                spans += list(s.edges)
                spans.sort()
                assert spans[0][0] == lo and spans[-1][1] == now, (width, now, window, s)
                for (_, b), (a, _) in zip(spans, spans[1:], strict=False):
                    assert a == b + 1, (width, now, window, s)


def test_only_node_and_logger_filters_are_counted_from_partials() -> None:
    def inparts(text: str, eq: tuple[tuple[str, Any], ...] = ()) -> bool:
        q = logs_q("session", NOW, text).but(where_eq=eq)
        return partials.logs_filter_in_parts(q, lq.FIELDS)

    assert inparts("") and inparts("node:web01 logger:api.*") and inparts("", (("node", "web01"),))
    assert not inparts("timeout")  # a bare word also looks in the message
    assert not inparts("msg:timeout") and not inparts("proc:nginx")
    assert not inparts("", (("procname", "app"),))


@pytest.mark.parametrize("limit", [1, 3, 7, 1000])
@pytest.mark.parametrize("severity", ["Error", "Debug"])
def test_log_page_merged_from_each_nodes_newest_equals_the_page(
    con: Any, limit: int, severity: str
) -> None:
    """Each node's newest ``limit`` records, merged and cut at ``limit``, are the page over
    every node's rows, ties on the timestamp (across nodes, and identical records) included."""
    ((ts,),) = con.execute("SELECT max(ts) FROM logs WHERE severity = 'Error'").fetchall()
    for node in ("web02", "web01", "db01", "web01"):
        con.execute(
            "INSERT INTO logs (node, session, ts, logger, severity, msg) VALUES (?, ?, ?, ?, ?, ?)",
            [node, SESSION, ts, "b.tie", "Error", "same instant"],
        )
    q = logs_q("session", NOW)
    want = lq.log_page(con, q, severity, limit)
    merged: list[Any] = []
    for node in NODES:
        merged += lq.newest_records(con, q.but(scope=Scope(SESSION, (node,))), severity, limit)
    merged = sorted(merged, key=lq.page_key)[:limit]
    got = lq.make_page(lq.severity_counts(con, q), merged, severity)
    assert got == want and len(got.records) == min(limit, got.total)
    # the page is cut at its limit-th newest timestamp first: the same as every record sorted
    everything = lq.newest_records(con, q, severity, 1 << 30)
    assert len(everything) == got.total
    cut = lq.newest_records(con, q, severity, limit)
    assert cut == sorted(everything, key=lq.page_key)[:limit]


def totals_by_key(parts: Any, kind: partials.Kind) -> list[tuple[Any, ...]]:
    """Every value column added up per key (histograms merged per bucket index)."""
    keys = ", ".join(["session", "node", *kind.keys])
    sums = ", ".join(
        f"sum({c})" if c not in ("m", "last") else f"max({c})"
        for c in partials.value_columns(kind)
        if c != "h"
    )
    rows = parts.execute(f"SELECT {keys}, {sums} FROM {kind.parts} GROUP BY ALL").fetchall()
    if kind.durations:
        rows += parts.execute(
            f"SELECT {keys}, u.e.key, sum(u.e.value) FROM {kind.parts}, "
            "unnest(map_entries(h)) AS u(e) GROUP BY ALL"
        ).fetchall()
    return sorted(rows, key=repr)


@pytest.mark.parametrize("name", list(partials.KINDS))
def test_folded_buckets_keep_every_total(con: Any, name: str) -> None:
    """Buckets folded behind the last minute: the same totals per key, the same minute and
    whole-session tables, and far fewer rows."""
    kind = partials.KINDS[name]
    parts = rolled(con, kind)
    stats = {"syscalls": partials.syscall_stats, "spans": partials.span_stats}.get(name)
    grouping = next(iter(sq.GROUPINGS if name == "syscalls" else spq.GROUPINGS))
    queries = [q_for(grouping, "total_ns")]
    queries.append(queries[0].but(window="minute"))
    before = [stats(parts, x, WIDTH) for x in queries] if stats else []
    totals = totals_by_key(parts, kind)
    [(rows,)] = parts.execute(f"SELECT count(*) FROM {kind.parts}").fetchall()
    partials.fold_old(parts, kind, WIDTH, keep_ns=61 * NS, every_ns=0)
    [(left,)] = parts.execute(f"SELECT count(*) FROM {kind.parts}").fetchall()
    assert left < rows, (rows, left)  # rows of several old buckets became one per key
    assert totals_by_key(parts, kind) == totals
    assert [stats(parts, x, WIDTH) for x in queries] == before if stats else True
