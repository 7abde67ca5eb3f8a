"""The plan splitter on its own: every split query, run over rows spread across several DuckDB
"nodes" and merged, gives the answer of the original query over all the rows."""

from __future__ import annotations

import math
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fayshell.lang.plansplit import PART, SplitOptions, SplitPlan, Unsplittable, split_query

SCHEMA = (
    "CREATE TABLE syscalls (node VARCHAR, name VARCHAR, procname VARCHAR, tid BIGINT, "
    "dur_ns BIGINT, ret BIGINT)"
)
NAMES = ("read", "write", "openat", "futex", "Close")


def rows_for(node: str, n: int, seed: int) -> list[tuple[Any, ...]]:
    out = []
    x = seed
    for i in range(n):
        x = (x * 1103515245 + 12345) % (1 << 31)
        name = NAMES[x % len(NAMES)]
        dur = (x >> 3) % 2_000_000 + (i % 7)
        out.append((node, name, f"p{x % 3}", 100 + x % 11, dur, None if i % 13 == 0 else x % 5))
    return out


def cluster(sizes: list[int]) -> tuple[duckdb.DuckDBPyConnection, list[duckdb.DuckDBPyConnection]]:
    """One database with every row, and one per node with that node's rows."""
    whole = duckdb.connect()
    whole.execute(SCHEMA)
    nodes = []
    for k, n in enumerate(sizes):
        con = duckdb.connect()
        con.execute(SCHEMA)
        rows = rows_for(f"node{k + 1:02d}", n, seed=k + 7)
        if rows:
            con.executemany("INSERT INTO syscalls VALUES (?, ?, ?, ?, ?, ?)", rows)
            whole.executemany("INSERT INTO syscalls VALUES (?, ?, ?, ?, ?, ?)", rows)
        nodes.append(con)
    return whole, nodes


def run_split(plan: SplitPlan, nodes: list[duckdb.DuckDBPyConnection]) -> list[tuple[Any, ...]]:
    import pyarrow as pa

    merge = duckdb.connect()
    for i, sql in enumerate(plan.node_sql):
        table = pa.concat_tables([n.sql(sql).to_arrow_table() for n in nodes])
        merge.register(f"{PART}{i}_arrow", table)
        merge.execute(f"CREATE TABLE {PART}{i} AS SELECT * FROM {PART}{i}_arrow")
    return merge.execute(plan.merge_sql).fetchall()


WHOLE, NODES = cluster([400, 0, 250, 333])

EXACT = [
    "SELECT name, count(*) AS n, sum(dur_ns) AS total, min(dur_ns) AS lo, max(dur_ns) AS hi "
    "FROM syscalls GROUP BY name ORDER BY name",
    "SELECT node, name, count(*), avg(dur_ns) FROM syscalls GROUP BY ALL ORDER BY 1, 2",
    "SELECT count(*) AS n, count(ret) AS with_ret, sum(ret) FILTER (WHERE ret > 2) AS big "
    "FROM syscalls WHERE dur_ns > 1000",
    "SELECT lower(name) AS k, count(*) AS c FROM syscalls GROUP BY lower(name) "
    "HAVING count(*) > 100 ORDER BY c DESC, k",
    "SELECT name, procname, max(dur_ns) - min(dur_ns) AS spread FROM syscalls "
    "GROUP BY 1, 2 ORDER BY spread DESC LIMIT 4",
    "SELECT * FROM syscalls ORDER BY dur_ns DESC, node, tid LIMIT 7",
    "SELECT node, name, dur_ns FROM syscalls WHERE name = 'read' ORDER BY dur_ns LIMIT 5 OFFSET 3",
    "SELECT DISTINCT name, procname FROM syscalls ORDER BY name, procname",
    "SELECT name, dur_ns / 1e3 AS us FROM syscalls WHERE dur_ns < 20000 ORDER BY us, name",
    "SELECT count(*) FROM syscalls WHERE name = 'nothing'",
    "SELECT min(dur_ns) FROM syscalls WHERE name = 'nothing'",
    # the shapes the pipeline cmdlets generate (see fayshell/commands/core.py)
    'SELECT * FROM (SELECT coalesce(CAST(min("name") AS VARCHAR), \'\') AS "Name", count(*) '
    'AS "Count", [coalesce(CAST(min("name") AS VARCHAR), \'\')] AS "Values" FROM (SELECT * '
    'FROM (SELECT *, dur_ns / 1e6 AS dur_ms FROM syscalls) AS _r WHERE ("dur_ms" > 0.5)) AS _r '
    'GROUP BY lower("name")) AS _r ORDER BY lower("Name"), "Name"',
    'SELECT "name" AS "name", "dur_ns" AS "dur_ns" FROM (SELECT * FROM (SELECT * FROM '
    'syscalls) AS _r ORDER BY "dur_ns" DESC NULLS LAST) AS _r LIMIT 5',
    'SELECT \'dur_ns\' AS "Property", count("dur_ns") AS "Count", sum("dur_ns") AS "Sum", '
    'avg("dur_ns") AS "Average" FROM (SELECT * FROM syscalls) AS _m UNION ALL SELECT \'ret\' '
    'AS "Property", count("ret") AS "Count", sum("ret") AS "Sum", avg("ret") AS '
    '"Average" FROM (SELECT * FROM syscalls) AS _m',
]


def same(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]], ordered: bool) -> bool:
    def norm(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        out = [tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in rows]
        return out if ordered else sorted(out, key=repr)

    return norm(a) == norm(b)


@pytest.mark.parametrize("sql", EXACT)
def test_split_equals_the_whole(sql: str) -> None:
    plan = split_query(sql)
    ordered = "ORDER BY" in sql
    assert same(run_split(plan, NODES), WHOLE.execute(sql).fetchall(), ordered), plan.describe()
    assert plan.approximations == ()


def test_filters_run_on_nodes_and_top_n_is_per_node() -> None:
    plan = split_query(
        "SELECT name, dur_ns FROM syscalls WHERE name = 'read' "
        "ORDER BY dur_ns DESC LIMIT 3 OFFSET 2"
    )
    (node_sql,) = plan.node_sql
    assert "WHERE" in node_sql and "LIMIT 5" in node_sql
    assert plan.merge_sql == f"SELECT * FROM {PART}0 ORDER BY dur_ns DESC LIMIT 3 OFFSET 2"


def test_aggregates_travel_as_partials() -> None:
    plan = split_query("SELECT name, avg(dur_ns) AS a FROM syscalls GROUP BY name")
    (node_sql,) = plan.node_sql
    assert "sum(dur_ns)" in node_sql and "count(dur_ns)" in node_sql
    assert 'GROUP BY "name"' in node_sql or "GROUP BY name" in node_sql
    rows = sum(len(n.sql(node_sql).fetchall()) for n in NODES)
    assert rows <= len(NAMES) * len(NODES)  # a handful of rows, not 983


QUANTILE_SQL = (
    "SELECT name, quantile_cont(dur_ns, {q}) AS qc, quantile_disc(dur_ns, {q}) AS qd, "
    "median(dur_ns) AS med, count(*) AS n FROM syscalls GROUP BY name ORDER BY name"
)


@pytest.mark.parametrize("q", [0.0, 0.5, 0.9, 0.99, 1.0])
def test_exact_quantiles_when_asked(q: float) -> None:
    sql = QUANTILE_SQL.format(q=q)
    plan = split_query(sql, SplitOptions(exact_quantiles=True))
    assert run_split(plan, NODES) == WHOLE.execute(sql).fetchall()


def within(got: float, want: float, alpha: float) -> bool:
    return abs(got - want) <= alpha * abs(want) * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("q", [0.0, 0.25, 0.5, 0.95, 0.99, 1.0])
def test_histogram_quantiles_are_within_the_stated_bound(q: float) -> None:
    sql = QUANTILE_SQL.format(q=q)
    plan = split_query(sql)
    assert len(plan.approximations) == 3 and "relative error <= 1.00%" in plan.approximations[0]
    got, want = run_split(plan, NODES), WHOLE.execute(sql).fetchall()
    for g, w in zip(got, want, strict=True):
        assert g[0] == w[0] and g[4] == w[4]
        for a, b in zip(g[1:4], w[1:4], strict=True):
            assert within(a, b, 0.01), (g, w)


@given(
    values=st.lists(
        st.one_of(st.integers(0, 10**12), st.floats(1e-6, 1e9)), min_size=1, max_size=60
    ),
    cuts=st.lists(st.integers(0, 60), max_size=3),
    q=st.floats(0, 1),
    alpha=st.sampled_from([0.01, 0.005, 0.05]),
)
@settings(max_examples=60, deadline=None)
def test_histogram_bound_holds_for_any_data_and_spread(
    values: list[float], cuts: list[int], q: float, alpha: float
) -> None:
    bounds = sorted({0, len(values), *[min(c, len(values)) for c in cuts]})
    nodes = []
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        con = duckdb.connect()
        con.execute("CREATE TABLE t (x DOUBLE)")
        con.executemany("INSERT INTO t VALUES (?)", [(v,) for v in values[lo:hi]])
        nodes.append(con)
    sql = f"SELECT quantile_cont(x, {q!r}) AS c, quantile_disc(x, {q!r}) AS d FROM t"
    whole = duckdb.connect()
    whole.execute("CREATE TABLE t (x DOUBLE)")
    whole.executemany("INSERT INTO t VALUES (?)", [(v,) for v in values])
    (want,) = whole.execute(sql).fetchall()
    (got,) = run_split(split_query(sql, SplitOptions(alpha=alpha)), nodes)
    assert within(got[0], want[0], alpha) and within(got[1], want[1], alpha), (got, want)


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("SELECT * FROM syscalls a JOIN syscalls b USING (tid)", "join"),
        ("SELECT name, row_number() OVER () FROM syscalls", "window functions"),
        ("WITH x AS (SELECT 1) SELECT * FROM x", "WITH"),
        ("SELECT count(DISTINCT name) FROM syscalls", "DISTINCT"),
        ("SELECT string_agg(name, ',') FROM syscalls", "string_agg"),
        ("SELECT name FROM syscalls ORDER BY dur_ns LIMIT 3", "'dur_ns', which is not selected"),
        ("SELECT name, count(*) FROM syscalls GROUP BY ROLLUP (name)", "GROUPING SETS"),
        ("SELECT quantile_cont(dur_ns, [0.5, 0.9]) FROM syscalls", "one constant fraction"),
    ],
)
def test_what_cannot_be_split_is_named(sql: str, why: str) -> None:
    with pytest.raises(Unsplittable, match=why.replace("(", r"\(")):
        split_query(sql)


def test_bucket_representatives_are_shared_across_nodes() -> None:
    """Equal values fall into the same bucket on every node, so counts add up per bucket."""
    plan = split_query("SELECT quantile_cont(dur_ns, 0.5) FROM syscalls")
    hist = next(s for s in plan.node_sql if "fay_v" in s)
    vals = [set(r[0] for r in n.sql(hist).fetchall()) for n in NODES if n.sql(hist).fetchall()]
    gamma = SplitOptions().gamma
    for v in set().union(*vals):
        assert v == 0 or math.isclose(
            math.log(v * (gamma + 1) / 2, gamma),
            round(math.log(v * (gamma + 1) / 2, gamma)),
            abs_tol=1e-6,
        )


@pytest.mark.parametrize("sign", [1, -1])
def test_histogram_keeps_zeros_exact_and_holds_the_bound_for_either_sign(sign: int) -> None:
    """Zero is its own bucket (no logarithm taken of it); negative values mirror positive."""
    spread = [[0, 0, 0, 7, 12.5], [0, 1e9, 3], [], [250_000, 0.25, 0.25]]
    nodes, whole = [], duckdb.connect()
    whole.execute("CREATE TABLE t (g VARCHAR, x DOUBLE)")
    for values in spread:
        con = duckdb.connect()
        con.execute("CREATE TABLE t (g VARCHAR, x DOUBLE)")
        for db in (con, whole):
            for v in values:
                db.execute("INSERT INTO t VALUES (?, ?)", ["a" if v else "z", sign * v])
        nodes.append(con)
    for q in (0.0, 0.3, 0.5, 0.8, 1.0):
        sql = (
            f"SELECT g, quantile_cont(x, {q}) AS c, quantile_disc(x, {q}) AS d, count(*) AS n "
            "FROM t GROUP BY g ORDER BY g"
        )
        got, want = run_split(split_query(sql), nodes), whole.execute(sql).fetchall()
        assert [(r[0], r[3]) for r in got] == [(r[0], r[3]) for r in want]
        for g, w in zip(got, want, strict=True):
            assert within(g[1], w[1], 0.01) and within(g[2], w[2], 0.01), (q, g, w)
        assert got[-1][1:3] == (0.0, 0.0)  # the zeros' group: exactly zero


def test_first_takes_one_nodes_first() -> None:
    """Group-Object names a string group by first(spelling): some spelling of the group."""
    sql = (
        'SELECT count(*) AS "Count", coalesce(first(name), \'\') AS "Name" FROM syscalls '
        "GROUP BY lower(name) ORDER BY lower(name) ASC NULLS FIRST"
    )
    got = run_split(split_query(sql), NODES)
    assert [(c, n.lower()) for c, n in got] == [
        (c, n.lower()) for c, n in WHOLE.execute(sql).fetchall()
    ]
