"""Show-Top syscalls and spans fed by node rollups, on the real cluster, against pull+import.

Each test follows one real session twice in the same shell: once with ``-Source Pull`` (rotate →
pull → import into the shell's database, the reference) and once with ``-Source Agent`` (each
node's agent, deployed over SSH, imports its own chunks and sends per-interval partial rows).
Both views must show the same counts, totals and maxima (percentiles within the histogram's
bound); the drill-downs are answered by the nodes' agents; closing the view leaves no agent
process on the nodes. Syscalls come from generated kernel-layout chunks placed as finished
rotation archives (the kernel tracer cannot load here); spans from the BlkKin C program.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fayshell.commands.store import set_agent_hub
from fayshell.remote.agentbundle import Bundle
from fayshell.remote.agentdeploy import AgentSettings
from fayshell.remote.agenthub import AgentHub, HubSettings
from fayshell.views.feeds import Feed, LiveFeed
from fayshell.views.live import PumpTimes, close_feed
from fayshell.views.model import NS, Query, Scope
from fayshell.views.queries import partials
from fayshell.views.queries import spans as spq
from fayshell.views.queries import syscalls as sq
from fayshell.views.rollfeed import RollupFeed, RollupTarget
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import run_on
from tests.views.helpers import make_app, press, settle, text_of
from tests.views.live_helpers import (
    agent_pids,
    live_feed,
    place_archive,
    removed_session,
    resume_node,
    started_session,
    stop_node,
    tick_until,
    until_no_agents,
)
from tests.views.test_live_syscalls import generate

A, B = "node07", "node08"


def the_query(feed: Feed, grouping: str, session: str, sort: str) -> Query:
    return Query(
        now_ns=feed.now_ns(),
        interval_ns=NS // 2,
        window="session",
        grouping=grouping,
        scope=Scope(session),
        sort=sort,
        limit=10_000,
    )


def close_to(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= partials.HIST.alpha * abs(b) + 1e-6


async def shown_until(
    pilot: Any, app: Any, done: Callable[[dict[str, int]], bool], what: str
) -> dict[str, int]:
    def rows() -> dict[str, int]:
        return {r.key: getattr(r, "calls", getattr(r, "count", 0)) for r in app.screen.rows}

    await tick_until(pilot, lambda: done(rows()), what=what, timeout=120)
    return rows()


async def test_syscalls_from_rollups_equal_pull_and_import(
    roll_shell: Shell, real_cluster: LocalCluster, tmp_path: Path
) -> None:
    sh, session = roll_shell, "rsys"
    await started_session(sh, session, "-Domain user -Name 'fay_none:*'", (A, B))
    outputs = sh.state.trace_sessions[session].outputs
    first = generate(tmp_path / "g1", seed=21, events=60_000)
    place_archive(real_cluster.node(A), outputs[A], first.dirs[0], 2001)
    second = generate(tmp_path / "g2", seed=22, events=40_000)
    place_archive(real_cluster.node(B), outputs[B], second.dirs[0], 2002)

    # the reference: pull + import into the shell's database, shown by the same view
    run, pulled = await live_feed(sh, "syscalls", session, source="Pull")
    app = make_app(pulled, "syscalls", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            ref = await shown_until(
                pilot,
                app,
                lambda rows: all_pulled_shown(sh, session, rows),
                "both nodes pulled and shown",
            )
            await pilot.press("q")
    finally:
        await close_feed(pulled)

    run, feed = await live_feed(sh, "syscalls", session, source="Agent")
    assert isinstance(feed, RollupFeed) and not isinstance(feed, LiveFeed)
    assert sorted(feed.nodes) == [A, B] and not feed.pulled
    assert agent_pids(real_cluster, A) and agent_pids(real_cluster, B)
    app = make_app(feed, "syscalls", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            got = await shown_until(pilot, app, lambda rows: rows == ref, "the pulled counts")
            assert got == ref and sum(got.values()) > 10_000
            assert "P95≈" in " ".join(str(c.label) for c in app.screen.columns())
            for grouping in sq.GROUPINGS:  # every grouping: the same rows as pull + import
                q = the_query(feed, grouping, session, "total_ns")
                key = group_key(grouping)
                want = {key(r): r for r in sq.syscall_stats(sh.state.database.con.cursor(), q)}
                have = {key(r): r for r in await feed.query(sq.syscall_stats, q)}
                assert set(have) == set(want), grouping
                for key, r in want.items():
                    h = have[key]
                    assert (h.calls, h.total_ns, h.max_ns, h.top) == (
                        r.calls,
                        r.total_ns,
                        r.max_ns,
                        r.top,
                    ), (grouping, key)
                    assert close_to(h.p95_ns, r.p95_ns), (grouping, key, h.p95_ns, r.p95_ns)

            # only the new rows cross the network: an idle refresh is the marks row
            answers = {n: t.answers for n, t in feed.nodes.items()}
            await tick_until(
                pilot,
                lambda: all(t.answers > answers[n] for n, t in feed.nodes.items()),
                what="one more answer from each node",
            )
            assert all(t.bytes_in[-1] < 4096 for t in feed.nodes.values()), {
                n: t.bytes_in for n, t in feed.nodes.items()
            }
            assert max(max(t.bytes_in) for t in feed.nodes.values()) < 200_000

            # drill-down: the breakdown of the top syscall, answered by the nodes' agents
            top = app.screen.rows[0]
            asked = feed.node_queries
            await press(pilot, "enter")
            screen = app.screen
            assert type(screen).__name__ == "BreakdownScreen"
            await settle(pilot)
            assert feed.node_queries > asked, "the breakdown must be asked of the nodes"
            for grouping, shown in screen.results.items():  # type: ignore[attr-defined]
                q = screen.q.but(grouping=grouping, sort="total_ns")  # type: ignore[attr-defined]
                want_rows = sq.syscall_stats(sh.state.database.con.cursor(), q)
                key = group_key(grouping)
                assert [(key(r), r.calls, r.total_ns, r.p95_ns, r.top) for r in shown] == [
                    (key(r), r.calls, r.total_ns, r.p95_ns, r.top) for r in want_rows
                ], grouping
                assert sum(r.calls for r in shown) == top.calls
            await press(pilot, "escape", "q")
        assert app.return_code == 0
    finally:
        await close_feed(feed)
    await removed_session(sh, session, real_cluster, (A, B))


def group_key(grouping: str) -> Callable[[Any], tuple[Any, ...]]:
    """A row's grouping key (not the carried process name: any of a pid's names, on either
    side)."""
    keys = sq.GROUPINGS[grouping].keys
    return lambda r: tuple(getattr(r, k) for k in keys)


def all_pulled_shown(sh: Shell, session: str, rows: dict[str, int]) -> bool:
    """Both nodes' chunks are in the shell's database and the screen shows all its calls
    (not a query that ran between the two imports)."""
    if pulled_nodes(sh, session) != {A, B}:
        return False
    ((calls,),) = sh.state.database.execute(
        "SELECT count(*) FROM syscalls WHERE session = ?", [session]
    )
    return sum(rows.values()) == calls > 0


def pulled_nodes(sh: Shell, session: str) -> set[str]:
    if "syscalls" not in sh.state.database.table_columns():
        return set()
    rows = sh.state.database.execute(
        "SELECT DISTINCT node FROM syscalls WHERE session = ?", [session]
    )
    return {r[0] for r in rows}


async def test_spans_from_rollups_equal_pull_and_import(
    roll_shell: Shell, real_cluster: LocalCluster, blkkin_binary: Path
) -> None:
    sh, session, requests = roll_shell, "rspan", 40
    await started_session(sh, session, "-Domain user -Name 'zipkin:*'", (A, B))
    done = await asyncio.gather(
        *(
            run_on(
                sh,
                node,
                [str(blkkin_binary), "--requests", str(requests), "--interval-ms", "5"]
                + ["--seed", str(k + 3)],
            )
            for k, node in enumerate((A, B))
        )
    )
    total = sum(d[n]["spans_per_request"] * requests for d, n in zip(done, (A, B), strict=True))

    run, pulled = await live_feed(sh, "spans", session, source="Pull")
    app = make_app(pulled, "spans", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            ref = await shown_until(
                pilot, app, lambda rows: sum(rows.values()) == total, f"{total} spans pulled"
            )
            await pilot.press("q")
    finally:
        await close_feed(pulled)

    run, feed = await live_feed(sh, "spans", session, source="Auto")
    assert isinstance(feed, RollupFeed) and sorted(feed.nodes) == [A, B]
    app = make_app(feed, "spans", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            got = await shown_until(pilot, app, lambda rows: rows == ref, "the pulled counts")
            assert got == ref
            labels = " ".join(str(c.label) for c in app.screen.columns())
            assert "P50≈" in labels and "P99≈" in labels
            db = sh.state.database.con.cursor()
            for grouping in spq.GROUPINGS:
                q = the_query(feed, grouping, session, "p95_ns")
                want = {r.key: r for r in spq.span_stats(db, q)}
                have = {r.key: r for r in await feed.query(spq.span_stats, q)}
                assert set(have) == set(want), grouping
                for key, r in want.items():
                    h = have[key]
                    assert (h.count, h.max_ns, h.errors) == (r.count, r.max_ns, r.errors)
                    for attr in ("p50_ns", "p95_ns", "p99_ns"):
                        assert close_to(getattr(h, attr), getattr(r, attr)), (key, attr)

            # drill-down: the slowest traces through the top span, then one waterfall, from
            # the nodes' agents, equal to the same queries on the pulled database
            row = app.screen.rows[0]
            asked = feed.node_queries
            await press(pilot, "enter")
            traces = app.screen.traces  # type: ignore[attr-defined]
            q = app.screen.q  # type: ignore[attr-defined]
            assert feed.node_queries > asked and traces
            assert traces == spq.slowest_traces(db, q, row.service, row.name, row.node)
            await press(pilot, "enter")
            spans = app.screen.spans  # type: ignore[attr-defined]
            assert spans == spq.trace_spans(db, traces[0].trace_id, session)
            assert text_of(app, "#header")
            await press(pilot, "escape", "escape", "q")
        assert app.return_code == 0
    finally:
        await close_feed(feed)
    await removed_session(sh, session, real_cluster, (A, B))


async def test_frozen_node_is_marked_and_the_other_keeps_refreshing(
    roll_shell: Shell, real_cluster: LocalCluster, tmp_path: Path
) -> None:
    sh, session = roll_shell, "rfault"
    await started_session(sh, session, "-Domain user -Name 'fay_none:*'", (A, B))
    outputs = sh.state.trace_sessions[session].outputs
    run, feed = await live_feed(sh, "syscalls", session, source="Agent")
    assert isinstance(feed, RollupFeed)
    feed.times = PumpTimes(wait_s=2.0, stall_s=1.5, node_timeout_s=6.0)
    app = make_app(feed, "syscalls", window="session", interval_ns=run.config.interval_ns)
    frozen: list[int] = []
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            first = generate(tmp_path / "g1", seed=31, events=20_000)
            place_archive(real_cluster.node(A), outputs[A], first.dirs[0], 3001)
            before = await shown_until(pilot, app, bool, "the first chunk")
            frozen = stop_node(real_cluster.node(B))
            second = generate(tmp_path / "g2", seed=32, events=20_000)
            place_archive(real_cluster.node(A), outputs[A], second.dirs[0], 3002)
            await tick_until(
                pilot,
                lambda: (
                    f"not answering: {B}" in text_of(app, "#header")
                    and {r.key: r.calls for r in app.screen.rows} != before
                ),
                what=f"{B} marked, {A} refreshed",
                timeout=60,
            )
            assert feed.nodes[A].health.ok and not feed.nodes[B].health.ok
            resume_node(frozen)
            frozen = []
            await tick_until(
                pilot,
                lambda: f"not answering: {B}" not in text_of(app, "#header"),
                what=f"{B} back",
                timeout=60,
            )
            await pilot.press("q")
    finally:
        resume_node(frozen)
        await close_feed(feed)
    until_no_agents(real_cluster, (A, B))
    await removed_session(sh, session)


async def test_auto_pulls_nodes_without_python_and_says_so(
    roll_shell: Shell, real_cluster: LocalCluster, agent_bundle: Bundle
) -> None:
    sh, session = roll_shell, "rnopy"
    settings = HubSettings(
        deploy=AgentSettings(python="/nonexistent/bin/python3"), bundle_root=agent_bundle.root
    )
    set_agent_hub(sh.state, AgentHub(sh.state.options, settings))
    await started_session(sh, session, "-Domain user -Name 'fay_none:*'", (A, B))
    _, feed = await live_feed(sh, "syscalls", session, source="Auto")
    try:
        assert isinstance(feed, LiveFeed), "no agent anywhere: the pull path"
        said = [str(w) for w in sh.host.warnings]
        for node in (A, B):
            (line,) = [w for w in said if f"{node}: no agent" in w]
            assert "no usable Python" in line and "pulling its chunks instead" in line
    finally:
        await close_feed(feed)
    sh.host.warnings.clear()
    run, feed = await live_feed(sh, "syscalls", session, source="Agent")
    app = make_app(feed, "syscalls", window="session", interval_ns=run.config.interval_ns)
    try:
        assert isinstance(feed, RollupFeed)
        async with app.run_test(size=(150, 40)) as pilot:
            await tick_until(
                pilot,
                lambda: f"not answering: {A}, {B}" in text_of(app, "#header"),
                what="both nodes marked",
            )
            assert "no usable Python" in feed.nodes[A].health.message
            await pilot.press("q")
    finally:
        await close_feed(feed)
    assert any("not shown" in str(w) for w in sh.host.warnings)
    await removed_session(sh, session)


async def test_a_pulled_node_and_an_agent_node_in_one_view(
    roll_shell: Shell, real_cluster: LocalCluster, tmp_path: Path
) -> None:
    """Auto mode with one node served by its agent and one pulled into the shell's database
    (as for a node without a usable Python): one view over both, equal to pull + import of
    both; the pulled node's drill-down comes from the shell's database."""
    from fayshell.views.live import LivePump, LiveTarget, chunk_home

    sh, session = roll_shell, "rmix"
    await started_session(sh, session, "-Domain user -Name 'fay_none:*'", (A, B))
    outputs = sh.state.trace_sessions[session].outputs
    for k, node in enumerate((A, B)):
        gen = generate(tmp_path / f"g{k}", seed=41 + k, events=30_000)
        place_archive(real_cluster.node(node), outputs[node], gen.dirs[0], 4001 + k)

    run, pulled = await live_feed(sh, "syscalls", session, source="Pull")
    app = make_app(pulled, "syscalls", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            ref = await shown_until(
                pilot, app, lambda rows: all_pulled_shown(sh, session, rows), "pull"
            )
            await pilot.press("q")
    finally:
        await close_feed(pulled)

    run, feed = await live_feed(sh, "syscalls", session, source="Agent")
    assert isinstance(feed, RollupFeed)
    await close_feed(feed)  # what Auto builds when B has no agent, made by hand below
    hub = AgentHub(sh.state.options, roll_hub_settings(sh))
    width = run.config.interval_ns
    target = RollupTarget(session, (A,), partials.KINDS["syscalls"], width, dict(outputs))
    feed = RollupFeed(hub, target)
    specs = tuple(sh.state.cluster.resolve([B]))
    sub = LiveTarget(session, specs, chunk_home(sh.state.database.path), dict(outputs))
    feed.add_pulled([B], LivePump(sh.state.cluster, sub, sh.state.database), sh.state.database)
    app = make_app(feed, "syscalls", window="session", interval_ns=width)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            got = await shown_until(pilot, app, lambda rows: rows == ref, "the pulled counts")
            assert got == ref
            assert f"pulled (no agent): {B}" in text_of(app, "#status")
            asked = feed.node_queries
            q = the_query(feed, "process", session, "total_ns")
            top = app.screen.rows[0]
            q = q.but(where_eq=(("name", top.name),))
            rows = await feed.query(sq.syscall_stats, q)
            want = sq.syscall_stats(sh.state.database.con.cursor(), q)
            key = group_key("process")
            assert sorted((key(r), r.calls, r.total_ns) for r in rows) == sorted(
                (key(r), r.calls, r.total_ns) for r in want
            )
            assert {r.node for r in rows} == {A, B} and feed.node_queries > asked
            await pilot.press("q")
    finally:
        await close_feed(feed)
    until_no_agents(real_cluster, (A, B))
    await removed_session(sh, session)


def roll_hub_settings(sh: Shell) -> HubSettings:
    from fayshell.commands.store import agent_hub

    settings: HubSettings = agent_hub(sh.state).settings
    return settings
