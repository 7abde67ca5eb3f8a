"""The query layer over the known store (tests/fixtures/store_data.py).

Hand-checked facts (now = T0 + 120 s, interval 1 s):
* whole session by total time: futex 25 ms, epoll_wait 12 ms, read 4.6 ms (91 calls, top
  python3 with one 2.5 ms call), openat 2 ms, write 1 ms;
* last minute: read 46 calls 3.55 ms, openat 10 calls, write 20 calls; futex and epoll gone;
* last interval: only web02's 2.5 ms read at 119.5 s;
* nodes reporting (data in the last 5 s): web01, web02, db01 of 4; lag 0.4975 s; 7 discarded.
"""

from __future__ import annotations

from typing import Any

import pytest

from fayshell.views.filters import parse_filter
from fayshell.views.model import Query, Scope
from fayshell.views.queries import common, logs, spans, syscalls
from tests.fixtures.store_data import LOGS, MS, NOW, NS, SYSCALLS, T0, US


def q(**kw: Any) -> Query:
    return Query(now_ns=NOW, **kw)


def names(rows: list[Any]) -> list[Any]:
    return [r.name for r in rows]


def test_now_is_the_newest_timestamp(con: Any) -> None:
    assert common.newest_ts(con) == NOW


def test_whole_session_by_total_time(con: Any) -> None:
    rows = syscalls.syscall_stats(con, q(window="session"))
    assert names(rows) == ["futex", "epoll_wait", "read", "openat", "write"]
    read = rows[2]
    assert (read.calls, read.total_ns, read.max_ns, read.top) == (
        91,
        4600 * US,
        2500 * US,
        "python3",
    )
    assert read.rate == 1.0
    assert not read.approx
    expected = sum(s.count for s in SYSCALLS if s.name == "read")
    assert read.calls == expected


def test_last_minute_and_last_interval(con: Any) -> None:
    minute = syscalls.syscall_stats(con, q(window="minute"))
    assert [(r.name, r.calls, r.total_ns) for r in minute] == [
        ("read", 46, 3550 * US),
        ("openat", 10, 2000 * US),
        ("write", 20, 500 * US),
    ]
    last = syscalls.syscall_stats(con, q(window="interval"))
    assert [(r.name, r.calls, r.total_ns) for r in last] == [("read", 1, 2500 * US)]


def test_groupings(con: Any) -> None:
    per_node = syscalls.syscall_stats(con, q(window="session", grouping="syscall_node"))
    assert [(r.name, r.node) for r in per_node[:3]] == [
        ("futex", "db01"),
        ("epoll_wait", "web03"),
        ("read", "web02"),
    ]
    per_proc = syscalls.syscall_stats(con, q(window="session", grouping="process"))
    assert [(r.node, r.pid, r.procname, r.top) for r in per_proc] == [
        ("db01", 201, "postgres", "futex"),
        ("web03", 103, "nginx", "epoll_wait"),
        ("web02", 301, "python3", "read"),
        ("web01", 101, "nginx", "read"),
        ("web02", 102, "nginx", "write"),
    ]


def test_sort_and_limit(con: Any) -> None:
    rows = syscalls.syscall_stats(con, q(window="session", sort="calls", descending=False, limit=2))
    assert [(r.name, r.calls) for r in rows] == [("futex", 5), ("openat", 10)]
    by_name = syscalls.syscall_stats(con, q(window="session", sort="name", descending=False))
    assert names(by_name) == sorted(names(by_name))


def test_filter_box(con: Any) -> None:
    f = parse_filter("node:web0* proc:nginx", syscalls.FILTER_ALIASES)
    rows = syscalls.syscall_stats(con, q(window="session", filter=f))
    assert [(r.name, r.calls) for r in rows] == [("epoll_wait", 12), ("write", 40), ("read", 60)]
    bare = parse_filter("re* open*", syscalls.FILTER_ALIASES)
    assert set(names(syscalls.syscall_stats(con, q(window="session", filter=bare)))) == {
        "read",
        "openat",
    }
    with pytest.raises(ValueError, match="unknown filter field"):
        parse_filter("colour:red", syscalls.FILTER_ALIASES)


def test_filter_values_are_parameters(con: Any) -> None:
    f = parse_filter("sys:x';DROP_TABLE_syscalls;--", syscalls.FILTER_ALIASES)
    assert syscalls.syscall_stats(con, q(window="session", filter=f)) == []
    assert syscalls.syscall_stats(con, q(window="session"))


def test_scope_session_and_nodes(con: Any) -> None:
    scoped = q(window="session", scope=Scope("incident", ("db01",)))
    assert names(syscalls.syscall_stats(con, scoped)) == ["futex", "read"]
    assert syscalls.syscall_stats(con, q(window="session", scope=Scope("other"))) == []


def test_sampled_pass_is_marked_approximate(con: Any) -> None:
    rows = syscalls.syscall_stats(con, q(window="session"), exact_limit=10)
    assert all(r.approx for r in rows)
    exact = {r.name: r.calls for r in syscalls.syscall_stats(con, q(window="session"))}
    assert {r.name: r.calls for r in rows} == exact  # counts stay exact


def test_header(con: Any) -> None:
    h = common.header(con, q(), "syscalls", "ts_exit")
    assert (h.nodes_reporting, h.nodes_total) == (3, 4)
    assert h.lag_ns == NOW - (T0 + 119 * NS + NS // 2 + 2500 * US)
    assert (h.discarded, h.lost_packets) == (7, 1)
    # events in [119 s, 120 s]: the read's entry and exit, the critical log, the heartbeat
    assert h.events_per_s == 4.0


def test_node_rates_spread_chunk_events(con: Any) -> None:
    rates = {r.node: r for r in common.node_rates(con, q(), "syscalls", "ts_entry")}
    assert sorted(rates) == ["db01", "web01", "web02", "web03"]
    assert rates["web03"].last_seen_ns is not None
    assert sum(rates["web03"].rates) == 0  # silent for the whole last minute
    web01_events = con.execute(
        "SELECT sum(events) FROM chunks WHERE node = 'web01' AND first_ts >= ?", [NOW - 60 * NS]
    ).fetchone()[0]
    assert sum(rates["web01"].rates) == pytest.approx(web01_events, rel=0.05)


def test_span_stats(con: Any) -> None:
    rows = spans.span_stats(con, q(window="session"))
    assert [(r.service, r.name) for r in rows] == [
        ("frontend", "GET /page"),
        ("api", "get_user"),
        ("storage", "db.query"),
        ("api", "get_cart"),
    ]
    root = rows[0]
    assert (root.count, root.p50_ns, root.max_ns, root.errors) == (10, 55 * MS, 100 * MS, 0)
    assert rows[2].errors == 1
    minute = spans.span_stats(con, q(window="minute", grouping="service"))
    assert {(r.service, r.count) for r in minute} == {("frontend", 5), ("api", 10), ("storage", 5)}


def test_slowest_traces_and_waterfall(con: Any) -> None:
    traces = spans.slowest_traces(con, q(window="session"), "storage", "db.query")
    assert [t.trace_id for t in traces[:3]] == [1010, 1009, 1008]
    assert next(t for t in traces if t.trace_id == 1007).error
    assert traces[0].services == ("api", "frontend", "storage")
    wf = spans.trace_spans(con, 1010)
    assert [(s.name, s.depth) for s in wf] == [
        ("GET /page", 0),
        ("get_user", 1),
        ("db.query", 2),
        ("get_cart", 1),
    ]
    assert dict(wf[0].keyvals) == {"http.path": "/page", "user": "u10"}
    assert [v for _, v in wf[0].annotations] == ["sr", "ss"]


def test_log_page(con: Any) -> None:
    page = logs.log_page(con, q(window="session"), "Warning")
    wanted = [
        r for r in LOGS if r.severity in ("Emergency", "Alert", "Critical", "Error", "Warning")
    ]
    assert [r.msg for r in page.records] == [r.msg for r in sorted(wanted, key=lambda r: r.t_ns)]
    assert dict(page.counts) == {
        "Emergency": 0,
        "Alert": 0,
        "Critical": 1,
        "Error": 4,
        "Warning": 4,
        "Notice": 4,
        "Info": 9,
        "Debug": 4,
    }
    f = parse_filter("node:web01 storage.*", logs.FILTER_ALIASES)
    narrowed = logs.log_page(con, q(window="session", filter=f), "Error")
    assert {(r.node, r.logger, r.severity) for r in narrowed.records} == {
        ("web01", "storage.disk", "Error")
    }
    assert len(logs.log_page(con, q(window="session"), "Debug", limit=5).records) == 5


@pytest.mark.parametrize("window", ["minute", "session"])
@pytest.mark.parametrize("grouping", ["syscall", "syscall_node", "process"])
def test_rollup_path_equals_the_raw_path(con: Any, window: str, grouping: str) -> None:
    f = parse_filter("node:web0*,db01", syscalls.FILTER_ALIASES)
    for query in (
        q(window=window, grouping=grouping),
        q(window=window, grouping=grouping, filter=f, scope=Scope("incident")),
    ):
        raw = syscalls.syscall_stats(con, query, rollup_min=10**12)
        rolled = syscalls.syscall_stats(con, query, rollup_min=0)
        assert rolled == raw


def test_rollup_follows_appends_and_deletes(con: Any) -> None:
    minute = q(window="minute")
    before = syscalls.syscall_stats(con, minute, rollup_min=0)
    ts = NOW - 7 * NS - 1  # inside a whole bucket of the window
    con.execute(
        "INSERT INTO syscalls VALUES ('web01', 'incident', 0, 9, 9, 'late', 'read', "
        "?, ?, 1000000, 0)",
        [ts, ts + MS],
    )
    after = syscalls.syscall_stats(con, minute, rollup_min=0)
    assert after == syscalls.syscall_stats(con, minute, rollup_min=10**12)
    read = {r.name: r for r in after}["read"]
    assert read.calls == {r.name: r for r in before}["read"].calls + 1
    con.execute("DELETE FROM syscalls WHERE name = 'openat'")
    gone = syscalls.syscall_stats(con, minute, rollup_min=0)
    assert "openat" not in names(gone)
    assert gone == syscalls.syscall_stats(con, minute, rollup_min=10**12)


@pytest.mark.parametrize("grouping", ["syscall", "syscall_node", "process"])
def test_folded_old_buckets_answer_the_same(con: Any, grouping: str) -> None:
    """Buckets folded behind a minute and a bit stay exact for the minute and the session."""
    from fayshell.views.queries import rollup

    queries = [q(window=w, grouping=grouping) for w in ("minute", "session")]
    before = [syscalls.syscall_stats(con, x, rollup_min=0) for x in queries]
    built = {t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    rolls = [r for r in rollup.ROLLUPS if r.table in built]
    assert len(rolls) == 1  # the grouping's rollup
    for r in rolls:
        buckets = f"SELECT count(DISTINCT b) FROM {r.table}"
        [(n_before,)] = con.execute(buckets).fetchall()
        rollup.fold_old(con, r, keep=60 * NS // rollup.BUCKET_NS + 1, every=0)
        [(n_after,)] = con.execute(buckets).fetchall()
        assert n_after <= n_before - 20, (r.name, n_before, n_after)
    after = [syscalls.syscall_stats(con, x, rollup_min=0) for x in queries]
    assert after == before
    assert after == [syscalls.syscall_stats(con, x, rollup_min=10**12) for x in queries]


def test_split_window_edges() -> None:
    from fayshell.views.queries.rollup import BUCKET_NS, split_window

    span = split_window(10 * BUCKET_NS + 5, 20 * BUCKET_NS + 7)
    assert (span.first_bucket, span.last_bucket) == (11, 19)
    assert span.raw == (
        (10 * BUCKET_NS + 5, 11 * BUCKET_NS - 1),
        (20 * BUCKET_NS, 20 * BUCKET_NS + 7),
    )
    assert split_window(None, 3 * BUCKET_NS - 1).raw == ((3 * BUCKET_NS, 3 * BUCKET_NS - 1),)
    tiny = split_window(BUCKET_NS + 1, BUCKET_NS + 9)
    assert tiny.first_bucket is None and tiny.raw == ((BUCKET_NS + 1, BUCKET_NS + 9),)


def _recent_calls(con: Any, lo: int, hi: int) -> dict[str, int]:
    rows = con.execute(
        "SELECT name, count(*) FROM syscalls WHERE ts_entry > ? AND ts_entry <= ? GROUP BY name",
        [lo, hi],
    ).fetchall()
    return {n: int(c) for n, c in rows}


@pytest.mark.parametrize("end_s", [5, 30, 61])
def test_live_rates_end_where_the_data_is_complete(con: Any, end_s: int) -> None:
    """Live, the last interval of the wall clock is still arriving: rates are measured over
    the interval ending where every node's data is in (``rate_end_ns``)."""
    end = NOW - end_s * NS
    base = q(window="session", interval_ns=10 * NS)
    live = base.but(rate_end_ns=end)
    want = _recent_calls(con, end - 10 * NS, end)
    assert sum(want.values()) > 0, "the case must have calls in that interval"
    got = {r.name: round(r.rate * 10) for r in syscalls.syscall_stats(con, live)}
    assert {k: v for k, v in got.items() if v} == want
    counts = {r.name: r.calls for r in syscalls.syscall_stats(con, live)}
    assert counts == {r.name: r.calls for r in syscalls.syscall_stats(con, base)}
    [(events,)] = con.execute(
        "SELECT count(*) FROM events WHERE ts >= ? AND ts <= ?", [end - 10 * NS, end]
    ).fetchall()
    assert common.header(con, live, "syscalls", "ts_entry").events_per_s == events / 10
    span_rates = {(r.service, r.name): round(r.rate * 10) for r in spans.span_stats(con, live)}
    ref = con.execute(
        "SELECT service, name, count(*) FROM spans WHERE ts_start > ? AND "
        "ts_start <= ? GROUP BY ALL",
        [end - 10 * NS, end],
    ).fetchall()
    assert {k: v for k, v in span_rates.items() if v} == {(s, n): int(c) for s, n, c in ref}
