"""Faults under a live view, on the real cluster: a node's sshd killed and started again.

The view keeps refreshing the other node, marks the dead one as not answering (its reconnect
attempts spaced out by the pump's backoff), and once sshd is back the pool connects again,
the node is shown as answering and the chunk it archived meanwhile reaches the screen.
"""

from __future__ import annotations

from pathlib import Path

from fayshell.views.feeds import LiveFeed
from fayshell.views.live import LivePump, PumpTimes, close_feed
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.shell import Shell
from tests.views.helpers import make_app, text_of
from tests.views.live_helpers import live_feed, place_archive, tick, tick_until
from tests.views.test_live_syscalls import generate, shown

SESSION = "kfault"
A, B = "node05", "node06"


def calls_in_db(sh: Shell) -> dict[str, int]:
    rows = sh.state.database.execute(
        "SELECT name, count(*) FROM syscalls WHERE session = ? GROUP BY name", [SESSION]
    )
    return {name: int(n) for name, n in rows}


def test_backoff_doubles_up_to_its_ceiling() -> None:
    times = PumpTimes(backoff_max_s=4.0)
    assert [times.backoff_s(n) for n in range(6)] == [0.0, 0.5, 1.0, 2.0, 4.0, 4.0]


async def test_sshd_killed_and_restarted_mid_view(
    cluster_shell: Shell, real_cluster: LocalCluster, tmp_path: Path
) -> None:
    sh = cluster_shell
    await sh.run(f"New-TraceSession {SESSION} -Node {A},{B}")
    await sh.run(f"Enable-Tracepoint -Session {SESSION} -Domain user -Name 'fay_none:*'")
    await sh.run(f"Start-Trace {SESSION}")
    outputs = sh.state.trace_sessions[SESSION].outputs
    run, feed = await live_feed(sh, "syscalls", SESSION)
    assert isinstance(feed, LiveFeed) and isinstance(feed.pump, LivePump)
    feed.pump.times = PumpTimes(wait_s=2.0, stall_s=3.0, node_timeout_s=6.0, backoff_max_s=2.0)
    app = make_app(feed, "syscalls", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await tick(pilot)
            first = generate(tmp_path / "g1", seed=21, events=20_000)
            place_archive(real_cluster.node(A), outputs[A], first.dirs[0], 2001)
            await tick_until(pilot, lambda: bool(shown(app)), what="first chunk")
            before = shown(app)

            real_cluster.kill_sshd(B)
            try:
                second = generate(tmp_path / "g2", seed=22, events=20_000)
                place_archive(real_cluster.node(B), outputs[B], second.dirs[0], 2002)
                await tick_until(
                    pilot,
                    lambda: f"not answering: {B}" in text_of(app, "#header"),
                    what=f"{B} marked",
                )
                assert feed.pump.nodes[A].health.ok
                assert feed.pump.nodes[B].failures >= 1
                assert "connect" in feed.pump.nodes[B].health.message
                assert shown(app) == before, "nothing of the dead node was shown"
            finally:
                real_cluster.start_sshd(B)
            await tick_until(
                pilot,
                lambda: (
                    f"not answering: {B}" not in text_of(app, "#header") and shown(app) != before
                ),
                what=f"{B} back with its chunk",
            )
            assert feed.pump.nodes[B].failures == 0
            assert feed.pump.nodes[B].chunks == 1
            assert shown(app) == calls_in_db(sh) != before
            await pilot.press("q")
    finally:
        await close_feed(feed)
        if not real_cluster.node(B).sshd_pid:
            real_cluster.start_sshd(B)
    await sh.run(f"Remove-TraceSession {SESSION} -Force")
