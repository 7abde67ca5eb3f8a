"""Show-Top logs fed by node rollups, on the real cluster, against pull+import.

A session on two nodes records python logging through lttngust (the pylog workload, run on
both nodes). The same session is followed twice in one shell: with ``-Source Pull`` (rotate →
pull → import into the shell's database: the reference) and with ``-Source Agent`` (each node's
agent imports its own chunks and sends, per refresh, the counts per (interval, severity,
logger) of the records it added; the page's newest records are asked of the nodes, each its
newest, and merged). Both views must show the same counts per severity and the same page; the
same queries under other windows, filters and page sizes are compared with the pulled
database; closing the view leaves no agent process on the nodes.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fayshell.views.filters import parse_filter
from fayshell.views.live import PumpTimes, close_feed
from fayshell.views.model import NS, LogPage, Query, Scope
from fayshell.views.queries import common
from fayshell.views.queries import logs as lq
from fayshell.views.rollfeed import RollupFeed
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import SYSTEM_PYTHON, run_on
from tests.views.helpers import make_app, text_of
from tests.views.live_helpers import (
    agent_pids,
    live_feed,
    removed_session,
    resume_node,
    started_session,
    stop_node,
    tick_until,
    until_no_agents,
)

A, B = "node07", "node08"
PY_LEVELS = {
    "DEBUG": "Debug",
    "INFO": "Info",
    "WARNING": "Warning",
    "ERROR": "Error",
    "CRITICAL": "Critical",
}


def severities_shown(app: Any) -> dict[str, int]:
    return {sev: n for sev, n in app.screen.page.counts if n}


async def emit_logs(sh: Shell, pylog: str, nodes: tuple[str, ...] = (A, B)) -> dict[str, int]:
    """The pylog workload on ``nodes`` at once (different shapes); the records per severity."""
    shapes = {
        n: s
        for n, s in {
            A: ["--count", "3", "--rounds", "3"],
            B: ["--count", "2", "--rounds", "4"],
        }.items()
        if n in nodes
    }
    done = await asyncio.gather(
        *(
            run_on(sh, node, [SYSTEM_PYTHON, pylog, *shape, "--interval", "0.4"])
            for node, shape in shapes.items()
        )
    )
    want: dict[str, int] = {}
    for d, node in zip(done, shapes, strict=True):
        for level, n in d[node]["per_level"].items():
            want[PY_LEVELS[level]] = want.get(PY_LEVELS[level], 0) + n
    return want


def logs_query(feed: Any, session: str, window: str, text: str = "") -> Query:
    return Query(
        now_ns=feed.now_ns(),
        interval_ns=NS // 2,
        window=window,
        scope=Scope(session),
        filter=parse_filter(text, lq.FILTER_ALIASES),
    )


async def test_logs_from_rollups_equal_pull_and_import(
    roll_shell: Shell, real_cluster: LocalCluster, pylog_script: Any
) -> None:
    sh, session = roll_shell, "rlogs"
    await started_session(sh, session, "-Domain python", (A, B))
    want = await emit_logs(sh, str(pylog_script))

    # the reference: pull + import into the shell's database, shown by the same view
    run, pulled = await live_feed(sh, "logs", session, severity="Warning", source="Pull")
    app = make_app(pulled, "logs", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            await tick_until(
                pilot, lambda: severities_shown(app) == want, what=f"{want} pulled", timeout=120
            )
            ref: LogPage = app.screen.page  # type: ignore[attr-defined]
            await pilot.press("q")
    finally:
        await close_feed(pulled)
    assert ref.total == sum(n for s, n in want.items() if s in lq.wanted("Warning"))
    assert len(ref.records) == ref.total

    run, feed = await live_feed(sh, "logs", session, severity="Warning", source="Agent")
    assert isinstance(feed, RollupFeed) and sorted(feed.nodes) == [A, B] and not feed.pulled
    assert agent_pids(real_cluster, A) and agent_pids(real_cluster, B)
    app = make_app(feed, "logs", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            await tick_until(
                pilot, lambda: severities_shown(app) == want, what=f"{want} rolled up", timeout=120
            )
            page = app.screen.page  # type: ignore[attr-defined]
            assert page == ref
            assert f"Warn {want['Warning']}" in text_of(app, "#header")
            assert {r.node for r in page.records} == {A, B}

            # the same queries as on the pulled database: windows cut inside a bucket, filters
            # the partials count (node, logger) and ones the nodes count (message, bare word),
            # pages shorter than the records (each node's newest, merged)
            db = sh.state.database.con.cursor()
            asked = feed.node_queries
            newest = ref.records[-1].ts
            inside = [(newest - 300_000_000, NS * 13 // 10), (newest - 1_100_000_000, NS // 3)]
            for window in ("session", "minute", "interval"):
                for text in ("", f"node:{B}", "logger:storage.*", "msg:round=1", "net"):
                    for now, interval in [(feed.now_ns(), NS // 2), *inside]:
                        q = logs_query(feed, session, window, text).but(
                            now_ns=now, interval_ns=interval
                        )
                        for severity, limit in (("Warning", 1000), ("Debug", 17), ("Error", 1)):
                            have = await feed.query(lq.log_page, q, severity, limit)
                            want_page = lq.log_page(db, q, severity, limit)
                            assert have == want_page, (window, text, now, limit)
            assert feed.node_queries > asked, "the records must be asked of the nodes"
            q = logs_query(feed, session, "session").but(now_ns=feed.now_ns())
            wide = await feed.query(lq.log_page, q, "Debug", 10_000)
            assert dict(wide.counts) == {s: want.get(s, 0) for s, _ in wide.counts}

            # the header: the same nodes, newest record, lag and losses as pull + import
            h = await feed.query(common.header, q, "logs", "ts")
            r = common.header(db, q, "logs", "ts")
            assert (h.nodes_total, h.newest_ns, h.lag_ns, h.discarded, h.lost_packets) == (
                r.nodes_total,
                r.newest_ns,
                r.lag_ns,
                r.discarded,
                r.lost_packets,
            )

            # an idle refresh carries the marks row only
            answers = {n: t.answers for n, t in feed.nodes.items()}
            await tick_until(
                pilot,
                lambda: all(t.answers > answers[n] for n, t in feed.nodes.items()),
                what="one more answer from each node",
            )
            assert all(t.bytes_in[-1] < 4096 for t in feed.nodes.values()), {
                n: t.bytes_in for n, t in feed.nodes.items()
            }
            await pilot.press("q")
        assert app.return_code == 0
    finally:
        await close_feed(feed)
    await removed_session(sh, session, real_cluster, (A, B))


async def test_a_frozen_node_is_not_asked_and_the_other_keeps_refreshing(
    roll_shell: Shell, real_cluster: LocalCluster, pylog_script: Any
) -> None:
    """While B is frozen the view marks it, stops asking it for records (every refresh would
    wait for it) and keeps A's page and counts current; when B is back so are its records."""
    sh, session = roll_shell, "rlogf"
    await started_session(sh, session, "-Domain python", (A, B))
    want = await emit_logs(sh, str(pylog_script))
    run, feed = await live_feed(sh, "logs", session, severity="Debug", source="Agent")
    assert isinstance(feed, RollupFeed)
    feed.times = PumpTimes(wait_s=2.0, stall_s=1.5, node_timeout_s=6.0)
    app = make_app(feed, "logs", window="session", interval_ns=run.config.interval_ns)
    frozen: list[int] = []
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            await tick_until(
                pilot, lambda: severities_shown(app) == want, what=f"{want}", timeout=120
            )
            frozen = stop_node(real_cluster.node(B))
            more = await emit_logs(sh, str(pylog_script), (A,))
            total = {s: want.get(s, 0) + more.get(s, 0) for s in {*want, *more}}

            def a_current() -> bool:
                page = app.screen.page  # type: ignore[attr-defined]
                return (
                    f"not answering: {B}" in text_of(app, "#header")
                    and severities_shown(app) == total
                    and {r.node for r in page.records} == {A}
                )

            await tick_until(pilot, a_current, what=f"{B} marked, {A} current", timeout=60)
            asked = dict(feed.node_asks)
            await tick_until(
                pilot, lambda: feed.node_asks[A] > asked[A], what="a page asked of A again"
            )
            assert feed.node_asks[B] == asked[B], f"{B} is asked while marked not answering"
            assert not feed.nodes[B].health.ok and feed.nodes[A].health.ok
            resume_node(frozen)
            frozen = []
            await tick_until(
                pilot,
                lambda: (
                    {r.node for r in app.screen.page.records} == {A, B}  # type: ignore[attr-defined]
                    and f"not answering: {B}" not in text_of(app, "#header")
                ),
                what=f"{B} back",
                timeout=60,
            )
            assert severities_shown(app) == total
            await pilot.press("q")
    finally:
        resume_node(frozen)
        await close_feed(feed)
    until_no_agents(real_cluster, (A, B))
    await removed_session(sh, session)


async def test_a_pulled_node_and_an_agent_node_in_one_logs_view(
    roll_shell: Shell, real_cluster: LocalCluster, pylog_script: Any
) -> None:
    """Auto mode with A served by its agent and B pulled into the shell's database (as for a
    node without a usable Python): the page and counts equal pull + import of both; B's
    records and window ends come from the shell's database, A's from its agent."""
    from fayshell.commands.store import agent_hub
    from fayshell.remote.agenthub import AgentHub
    from fayshell.views.live import LivePump, LiveTarget, chunk_home
    from fayshell.views.queries import partials
    from fayshell.views.rollfeed import RollupTarget

    sh, session = roll_shell, "rlogx"
    await started_session(sh, session, "-Domain python", (A, B))
    want = await emit_logs(sh, str(pylog_script))
    outputs = sh.state.trace_sessions[session].outputs

    run, pulled = await live_feed(sh, "logs", session, severity="Info", source="Pull")
    app = make_app(pulled, "logs", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            await tick_until(pilot, lambda: severities_shown(app) == want, what="pull", timeout=120)
            await pilot.press("q")
    finally:
        await close_feed(pulled)

    width = run.config.interval_ns
    hub = AgentHub(sh.state.options, agent_hub(sh.state).settings)
    target = RollupTarget(session, (A,), partials.KINDS["logs"], width, dict(outputs))
    feed = RollupFeed(hub, target)
    specs = tuple(sh.state.cluster.resolve([B]))
    sub = LiveTarget(session, specs, chunk_home(sh.state.database.path), dict(outputs))
    feed.add_pulled([B], LivePump(sh.state.cluster, sub, sh.state.database), sh.state.database)
    app = make_app(feed, "logs", window="session", interval_ns=width)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            await tick_until(
                pilot, lambda: severities_shown(app) == want, what="both nodes", timeout=120
            )
            assert f"pulled (no agent): {B}" in text_of(app, "#status")
            db = sh.state.database.con.cursor()
            newest = app.screen.page.records[-1].ts  # type: ignore[attr-defined]
            for now, window in ((feed.now_ns(), "session"), (newest - 200_000_000, "minute")):
                for text in ("", "logger:app.*", "msg:round=2"):
                    q = logs_query(feed, session, window, text).but(now_ns=now)
                    for severity, limit in (("Info", 1000), ("Debug", 9)):
                        have = await feed.query(lq.log_page, q, severity, limit)
                        assert have == lq.log_page(db, q, severity, limit), (window, text)
            assert feed.node_asks.get(A, 0) > 0 and B not in feed.node_asks
            await pilot.press("q")
    finally:
        await close_feed(feed)
    until_no_agents(real_cluster, (A, B))
    await removed_session(sh, session)
