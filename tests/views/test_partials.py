"""The views' main tables from node rollups (fayshell/views/queries/partials.py) against the same
views over the raw rows, on the known store: each node's rows rolled up in two rowid ranges as
two refreshes would, appended to a partials database, then compared (counts, totals, maxima,
top column and errors exactly; percentiles within the histogram's bound)."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

from fayshell.views.model import NS, Query, Scope
from fayshell.views.queries import partials
from fayshell.views.queries import spans as spq
from fayshell.views.queries import syscalls as sq
from fayshell.views.rollfeed import inline_params
from tests.fixtures.store_data import NODES, NOW, SESSION

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
