"""A node agent killed while a live rollup view runs, on the real cluster.

The syscalls view follows two nodes through their agents. One node's agent process is killed
(SIGKILL, found by its command line under the node's user): the node is marked in the header,
the other node keeps refreshing, the agent is started again by a later cycle and the node
recovers; the view's totals then equal a pull+import reference of the same chunks (the rollup
marks are per node-store rowid: nothing counted twice, nothing lost, even when the agent died
while importing a chunk). Closing the view leaves no agent process on any node.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fayshell.errors import FayError
from fayshell.remote.agentbundle import Bundle
from fayshell.remote.agentdeploy import AgentSettings
from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.views.live import PumpTimes, close_feed
from fayshell.views.model import NS, Query, Scope
from fayshell.views.queries import syscalls as sq
from fayshell.views.rollfeed import RollupFeed, _waited
from tests.fixtures.cluster import LocalCluster, _user_pids
from tests.fixtures.shell import Shell
from tests.views.helpers import make_app, text_of
from tests.views.live_helpers import (
    live_feed,
    place_archive,
    removed_session,
    started_session,
    until_no_agents,
)
from tests.views.live_helpers import tick_until as _tick_until
from tests.views.test_live_rollups import A, B
from tests.views.test_live_syscalls import generate


async def tick_until(
    pilot: Any, feed: RollupFeed, done: Callable[[], bool], what: str, timeout: float = 30
) -> None:
    """Refresh until ``done()``; on a timeout, say what the feed saw."""
    try:
        await _tick_until(pilot, done, timeout=timeout, what=what)
    except AssertionError as exc:
        state = {n: (t.health, t.answers, t.rowid) for n, t in feed.nodes.items()}
        raise AssertionError(
            f"{exc}; header {text_of(pilot.app, '#header')!r}; {state}; {calls_by_node(feed)}"
        ) from None


def agent_processes(lc: LocalCluster, node: str) -> list[int]:
    """The pids of the node's live agent interpreters (its user's python running agent.py)."""
    pids = []
    for pid, comm in _user_pids(lc.node(node).uid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if (
            comm.startswith("python")
            and state != "Z"
            and any(a.endswith(b"/agent.py") for a in argv)
        ):
            pids.append(pid)
    return pids


def kill_agents(lc: LocalCluster, node: str) -> int:
    """SIGKILL every agent process of the node; how many there were."""
    pids = agent_processes(lc, node)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
    return len(pids)


@contextmanager
def agents_keep_dying(lc: LocalCluster, node: str) -> Iterator[list[int]]:
    """While inside: every agent that starts on ``node`` is killed (a crashing agent).
    Yields the running count of kills."""
    stop = threading.Event()
    kills = [0]
    errors: list[Exception] = []

    def killer() -> None:
        while not stop.wait(0.02):
            try:
                kills[0] += kill_agents(lc, node)
            except Exception as exc:  # said by the test, not lost in a thread
                errors.append(exc)

    thread = threading.Thread(target=killer, name="agent-killer", daemon=True)
    thread.start()
    try:
        yield kills
    finally:
        stop.set()
        thread.join(5)
    assert not errors, errors


def store_bytes(store: Path) -> int:
    """The node store's size on disk: its DuckDB file and write-ahead log."""
    wal = store.with_name(store.name + ".wal")
    return sum(f.stat().st_size for f in (store, wal) if f.exists())


def kill_while_importing(lc: LocalCluster, node: str, store: Path, done: threading.Event) -> None:
    """Kill the node's agent once its store has grown by a first committed flush of a chunk
    (a chunk over one flush is committed in parts; it counts only with its last one)."""
    base = store_bytes(store)
    while store_bytes(store) < base + (4 << 20) and not done.wait(0.01):
        pass
    kill_agents(lc, node)
    done.set()


def calls_by_node(feed: RollupFeed) -> dict[str, int]:
    """Syscalls the feed holds per node (its partial rows)."""
    parts = feed.target.kind.parts
    rows = feed._locked(
        lambda: feed.con.execute(f"SELECT node, sum(c) FROM {parts} GROUP BY node").fetchall()
    )
    return {str(n): int(c) for n, c in rows}


def reference(tmp: Path, session: str, chunks: dict[str, list[Path]]) -> Database:
    """The pull+import reference: every placed chunk imported into a fresh store here."""
    db = Database.open(str(tmp / "reference.duckdb"))
    for node, dirs in chunks.items():
        for d in dirs:
            import_trace(db, d, node=node, session=session)
    return db


def ref_calls_by_node(db: Database, session: str) -> dict[str, int]:
    rows = db.execute(
        "SELECT node, count(*) FROM syscalls WHERE session = ? GROUP BY node", [session]
    )
    return {str(n): int(c) for n, c in rows}


def the_query(feed: RollupFeed, grouping: str, session: str) -> Query:
    return Query(
        now_ns=feed.now_ns(),
        interval_ns=NS // 2,
        window="session",
        grouping=grouping,
        scope=Scope(session),
        sort="total_ns",
        limit=10_000,
    )


async def assert_equal_to_reference(feed: RollupFeed, db: Database, session: str) -> None:
    """Every grouping: the same calls, total and maximum time per key as the reference."""
    for grouping, g in sq.GROUPINGS.items():
        q = the_query(feed, grouping, session)
        want = {
            tuple(getattr(r, k) for k in g.keys): (r.calls, r.total_ns, r.max_ns)
            for r in sq.syscall_stats(db.con.cursor(), q)
        }
        have = {
            tuple(getattr(r, k) for k in g.keys): (r.calls, r.total_ns, r.max_ns)
            for r in await feed.query(sq.syscall_stats, q)
        }
        assert have == want, grouping


async def test_killed_agent_is_marked_restarted_and_counts_stay_exact(
    roll_shell: Shell, real_cluster: LocalCluster, tmp_path: Path, agent_bundle: Bundle
) -> None:
    sh, session = roll_shell, "rdeath"
    await started_session(sh, session, "-Domain user -Name 'fay_none:*'", (A, B))
    outputs = sh.state.trace_sessions[session].outputs
    placed: dict[str, list[Path]] = {A: [], B: []}
    index = [5000]

    def place(node: str, seed: int, events: int) -> None:
        index[0] += 1
        gen = generate(tmp_path / f"g{seed}", seed=seed, events=events)
        place_archive(real_cluster.node(node), outputs[node], gen.dirs[0], index[0])
        placed[node].append(gen.dirs[0])

    def marked() -> bool:
        return f"not answering: {B}" in text_of(app, "#header")

    place(A, 51, 20_000)
    place(B, 52, 20_000)
    run, feed = await live_feed(sh, "syscalls", session, source="Agent")
    assert isinstance(feed, RollupFeed)
    feed.times = PumpTimes(wait_s=2.0, stall_s=5.0, node_timeout_s=30.0, backoff_max_s=2.0)
    app = make_app(feed, "syscalls", window="session", interval_ns=run.config.interval_ns)
    db: Database | None = None
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            db = reference(tmp_path, session, placed)
            want = ref_calls_by_node(db, session)
            await tick_until(
                pilot,
                feed,
                lambda: calls_by_node(feed) == want,
                what="both nodes' first chunk",
                timeout=120,
            )

            # B's agent crashes (and crashes again on every restart) while B's big chunk is
            # being imported: B is marked, A keeps refreshing
            a_before = calls_by_node(feed)[A]
            with agents_keep_dying(real_cluster, B) as kills:
                place(B, 53, 150_000)
                place(A, 54, 20_000)
                await tick_until(
                    pilot,
                    feed,
                    lambda: marked() and calls_by_node(feed)[A] > a_before,
                    what=f"{B} marked while {A} refreshed",
                    timeout=120,
                )
                assert feed.nodes[A].health.ok and not feed.nodes[B].health.ok
                assert kills[0] >= 1
            db.close()
            db = reference(tmp_path, session, placed)
            want = ref_calls_by_node(db, session)
            await tick_until(
                pilot,
                feed,
                lambda: not marked() and calls_by_node(feed) == want,
                what=f"{B} restarted and caught up",
                timeout=180,
            )
            await assert_equal_to_reference(feed, db, session)

            # killed once after an answer: marked by the next cycle (not silently restarted), then
            # restarted by the one after
            answers = feed.nodes[B].answers
            await tick_until(
                pilot, feed, lambda: feed.nodes[B].answers > answers, what=f"one more answer of {B}"
            )
            assert kill_agents(real_cluster, B) == 1
            place(B, 55, 20_000)
            await tick_until(
                pilot, feed, marked, what=f"{B} marked after its agent died", timeout=60
            )
            db.close()
            db = reference(tmp_path, session, placed)
            want = ref_calls_by_node(db, session)
            await tick_until(
                pilot,
                feed,
                lambda: not marked() and calls_by_node(feed) == want,
                what=f"{B} back with its new chunk",
                timeout=120,
            )
            await assert_equal_to_reference(feed, db, session)
            assert len(agent_processes(real_cluster, B)) == 1, "one agent per node, not more"

            # killed while importing a chunk larger than one flush: the restarted agent drops
            # the chunk's committed part and loads it again; counted once
            killed = threading.Event()
            store = real_cluster.node(B).home / AgentSettings().bundle_dir(agent_bundle)
            store = store / "store" / "store.duckdb"
            assert store.exists(), store
            watcher = threading.Thread(
                target=kill_while_importing, args=(real_cluster, B, store, killed), daemon=True
            )
            watcher.start()
            place(B, 56, 1_100_000)
            try:
                await tick_until(
                    pilot, feed, killed.is_set, what=f"{B}'s store growing", timeout=120
                )
            finally:
                killed.set()
                watcher.join(5)
            await tick_until(
                pilot, feed, marked, what=f"{B} marked after its agent died", timeout=60
            )
            db.close()
            db = reference(tmp_path, session, placed)
            want = ref_calls_by_node(db, session)
            await tick_until(
                pilot,
                feed,
                lambda: not marked() and calls_by_node(feed) == want,
                what=f"{B} back with its big chunk",
                timeout=240,
            )
            await assert_equal_to_reference(feed, db, session)
            await pilot.press("q")
    finally:
        await close_feed(feed)
        if db is not None:
            db.close()
    until_no_agents(real_cluster, (A, B))
    await removed_session(sh, session)


async def test_a_failed_cycle_is_not_reported_as_never_retrieved() -> None:
    """The wrapper a refresh waits on carries the node's error; the feed reads it from the
    cycle's own future, so the wrapper's error must count as retrieved (else asyncio reports
    "Future exception was never retrieved", with a traceback, when it is collected)."""
    cycle: concurrent.futures.Future[int] = concurrent.futures.Future()
    wrapper = _waited(cycle)
    cycle.set_exception(FayError("node08: the agent ended"))
    await asyncio.sleep(0)  # the wrapper is completed on this loop
    assert wrapper.done() and isinstance(wrapper.exception(), FayError)
    fresh: concurrent.futures.Future[int] = concurrent.futures.Future()
    unread = _waited(fresh)
    fresh.set_exception(FayError("node08: the agent ended"))
    for _ in range(10):  # loop iterations: completed, then its done callbacks run
        await asyncio.sleep(0)
    assert unread.done()
    assert not unread._log_traceback  # type: ignore[attr-defined]
