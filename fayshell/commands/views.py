"""Show-Top: the top-style dashboards (syscalls, spans, logs) over the session database.

textual loads only when the view starts; this module stays light for shell startup.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from fayshell.commands.registry import Param, cmdlet
from fayshell.lang.values import DURATION_UNITS, Duration, parse_unit_number
from fayshell.vocabulary import FEED_SOURCES, ROLLUP_VIEWS, SEVERITIES, VIEWS, FeedSource

if TYPE_CHECKING:
    from fayshell.commands.invocation import Invocation
    from fayshell.remote.inventory import NodeSpec
    from fayshell.store.database import Database
    from fayshell.views.feeds import Feed
    from fayshell.views.launch import TopConfig

NS = DURATION_UNITS["s"]


@dataclass
class TopRun:
    """A prepared view: its settings and the database it reads (closed after if ``owned``),
    and where a live view's data comes from."""

    config: TopConfig
    db: Database
    owned: bool
    source: FeedSource = "Auto"


def feed_source(value: str | None) -> FeedSource:
    """``agent`` -> ``Agent`` (None: Auto); ValueError for another word."""
    text = (value or "Auto").strip().lower()
    for word in FEED_SOURCES:
        if word.lower() == text:
            return word
    raise ValueError(f"unknown source {value!r} (one of {', '.join(FEED_SOURCES)})")


def interval_ns(value: Any) -> int:
    """A Duration (nanoseconds), a number of seconds, or ``'500ms'``-style text."""
    if value is None:
        return NS
    if isinstance(value, Duration):
        return int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return round(float(value) * NS)
    parsed = parse_unit_number(str(value).strip())
    if isinstance(parsed, Duration):
        return int(parsed)
    raise ValueError(f"not a duration: {value!r} (like 1s or 500ms)")


def prepare(
    ctx: Invocation,
    view: str,
    session: str | None,
    node: Any,
    interval: Any,
    database: str | None,
    severity: str | None,
    source: str | None = None,
) -> TopRun:
    """Check the parameters and open what the view needs, without starting textual."""
    from fayshell.views.launch import TopConfig
    from fayshell.views.model import Scope
    from fayshell.views.scope import expand_nodes

    try:
        config = TopConfig(
            view.lower(),
            Scope(session, expand_nodes(node)),
            interval_ns(interval),
            severity or "Warning",
        )
        mode = feed_source(source)
    except ValueError as exc:
        raise ctx.fail(str(exc)) from None
    if database:
        from fayshell.errors import StoreError
        from fayshell.views import open_existing

        try:
            return TopRun(config, open_existing(database), owned=True, source=mode)
        except StoreError as exc:
            raise ctx.fail(exc.message) from None
    return TopRun(config, ctx.state.database, owned=False, source=mode)


@cmdlet(
    "Show-Top",
    synopsis="Top-style live view of hot syscalls, span latencies, logs or odd nodes; q returns "
    "here.",
    params=[
        Param(
            "View",
            str,
            mandatory=True,
            position=0,
            choices=VIEWS,
            help="syscalls, spans, logs, or nodes (Compare-Node's scores, live)",
        ),
        Param("Session", str, complete="sessions", help="only this trace session"),
        Param("Node", "strings", complete="nodes", help="only these nodes (a node set)"),
        Param("Interval", "duration", help="refresh period and rate interval (default 1s)"),
        Param("Database", str, complete="files", help="another DuckDB file (post-mortem)"),
        Param(
            "Severity",
            str,
            choices=SEVERITIES,
            default="Warning",
            help="logs view: this severity and more severe",
        ),
        Param(
            "Source",
            str,
            choices=FEED_SOURCES,
            default="Auto",
            help="live syscalls/spans/logs: Agent (node rollups), Pull (pull and import every "
            "chunk), Auto (rollups where an agent runs, pulling elsewhere)",
        ),
    ],
    description=(
        "Keys: p pause, w window (last interval / last minute / whole session), g grouping, "
        "/ filter (node:, proc:, sys: globs), < > sort column, r reverse, Enter drill down, "
        "Esc back, q quit. With -Session naming a session this shell created (or one on the "
        "-Node nodes), the view is live: every interval it rotates, pulls and imports the new "
        "chunks (kept next to the database in X.chunks/ until imported) and 'now' is the wall "
        "clock; q leaves the session tracing. Live syscalls and spans views are fed by node "
        "rollups by default "
        "(-Source Auto): each node's agent imports its own chunks and sends per-interval "
        "partial aggregates (kilobytes); percentiles then come from a log-bucketed histogram "
        "(marked ≈, within 1%), windows take whole intervals, and a drill-down asks the owning "
        "node. The live logs view is fed the same way: per-interval counts per severity and logger "
        "(exact), and the page's newest records asked of the nodes (each its newest, merged). "
        "Nodes without an agent are pulled (said once); -Source Pull pulls every node, "
        "-Source Agent never pulls. Offline data: the view opens on its own data's whole time range "
        "('now' is where that data ends) and rates are over the data's time."
    ),
    examples=[
        ("Show-Top syscalls -Session incident", "hot system calls across the cluster"),
        ("Show-Top spans -Node 'web[01-04]' -Interval 2s", "span latencies of four nodes"),
        ("Show-Top logs -Severity Error -Database incident.duckdb", "errors, post-mortem"),
        ("Show-Top syscalls -Session incident -Source Pull", "live, pulling every chunk"),
    ],
)
async def show_top(
    ctx: Invocation,
    view: str,
    session: str | None = None,
    node: Any = None,
    interval: Any = None,
    database: str | None = None,
    severity: str | None = "Warning",
    source: str | None = "Auto",
) -> None:
    """Run the view on the shell's event loop until the user presses q."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise ctx.fail("needs an interactive terminal (use Get-Span, sql … in scripts)")
    run = prepare(ctx, view, session, node, interval, database, severity, source)
    from fayshell.views.launch import run_view
    from fayshell.views.live import close_feed

    try:
        feed = await open_feed(ctx, run, node)
        feed.alerts = lambda: firing_banners(
            ctx.state.trace_triggers.values(), run.config.scope.session
        )
        try:
            await run_view(feed, run.config)
        finally:
            await close_feed(feed)
    finally:
        if run.owned:
            run.db.close()


def firing_banners(watches: Any, session: str | None) -> list[str]:
    """One line per flight-recorder trigger of ``session`` (any, if None) that has fired."""
    from fayshell.tracing.recorder import banner

    return [
        banner(w) for w in watches if w.firings and (session is None or w.spec.session == session)
    ]


async def open_feed(ctx: Invocation, run: TopRun, node: Any) -> Feed:
    """A live feed when ``-Session`` names a session this shell follows (one it created, or
    one on the ``-Node`` nodes) and some node still has it; else the database as it is."""
    from fayshell.views.feeds import LiveFeed, OfflineFeed
    from fayshell.views.live import LivePump, LiveTarget, PumpTimes, chunk_home, sessions_on

    session = run.config.scope.session
    if run.owned or session is None:
        return OfflineFeed(run.db)
    candidates, outputs, timer_ns = live_candidates(ctx, session, node)
    if not candidates:
        ctx.write_warning(
            f"session {session!r} was not created by this shell: showing the "
            "database (name its nodes with -Node to follow it live)"
        )
        return OfflineFeed(run.db)
    specs = await sessions_on(ctx.state.cluster, session, candidates)
    if not specs:
        ctx.write_warning(f"no node has a session {session!r} any more: showing the database")
        return OfflineFeed(run.db)
    target = LiveTarget(session, tuple(specs), chunk_home(run.db.path), outputs)
    times = PumpTimes.for_interval(run.config.interval_ns / NS)
    # a session rotating by itself at least as often as the view refreshes needs no `lttng
    # rotate` per refresh (each costs the node 0.6-0.8 s and doubles the chunks to import)
    timer = timer_ns if timer_ns is not None and timer_ns <= run.config.interval_ns else 0
    if run.source != "Pull" and run.config.view in ROLLUP_VIEWS:
        rolled = await open_rollup_feed(ctx, run, target, times, timer)
        if rolled is not None:
            return rolled
    return LiveFeed(
        run.db,
        pump=LivePump(ctx.state.cluster, target, run.db, times, rotate=not timer, timer_ns=timer),
    )


def live_candidates(
    ctx: Invocation,
    session: str,
    node: Any,
) -> tuple[list[NodeSpec], dict[str, str], int | None]:
    """``-Node``, else the live nodes of a session this shell created; their outputs, and
    the session's own rotation period when the shell created it with one."""
    from fayshell.commands.remote import node_specs
    from fayshell.tracing.sessions import memos

    memo = memos(ctx.state).get(session)
    outputs = dict(memo.outputs) if memo else {}
    timer = memo.rotate_timer_ns if memo else None
    if node is not None:
        return node_specs(ctx, node), outputs, timer
    if memo is None or memo.removed:
        return [], outputs, timer
    live = [n for n in memo.nodes if n not in memo.destroyed]
    return ctx.state.cluster.resolve(live), outputs, timer


async def open_rollup_feed(
    ctx: Invocation, run: TopRun, target: Any, times: Any, timer: int
) -> Feed | None:
    """The rollup-fed feed over the nodes whose agent runs (their agents started now); the
    others pulled (Auto, said once) or shown as not answering (Agent). None when no node has
    an agent in Auto mode (the caller then pulls every node)."""
    from fayshell.commands.store import agent_hub
    from fayshell.remote.agenthub import AgentHub
    from fayshell.views.live import LivePump
    from fayshell.views.queries.partials import KINDS
    from fayshell.views.rollfeed import RollupFeed, RollupTarget, probe_agents

    hub = AgentHub(ctx.state.options, agent_hub(ctx.state).settings)
    names = [s.name for s in target.specs]
    missing = await probe_agents(hub, names)
    for node, why in missing.items():
        then = "pulling its chunks instead" if run.source == "Auto" else "not shown"
        ctx.write_warning(f"{node}: no agent ({why}): {then}")
    pulled = [s for s in target.specs if s.name in missing] if run.source == "Auto" else []
    if len(pulled) == len(names):
        await asyncio.to_thread(hub.close)
        return None
    roll = RollupTarget(
        target.session,
        tuple(n for n in names if n not in {s.name for s in pulled}),
        KINDS[run.config.view],
        run.config.interval_ns,
        dict(target.remembered),
        rotate=not timer,
        timer_ns=timer,
    )
    feed = RollupFeed(hub, roll, times)
    if pulled:
        sub = replace(target, specs=tuple(pulled))
        pump = LivePump(ctx.state.cluster, sub, run.db, times, rotate=not timer, timer_ns=timer)
        feed.add_pulled([s.name for s in pulled], pump, run.db)
    return feed
