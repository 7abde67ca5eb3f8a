"""The cluster-wide flight recorder on the real cluster.

Four nodes record python logging in snapshot mode. A trigger on `fire.*` errors is registered on
all of them; a traced program on one node logs the error: that node's LTTng snapshots itself,
the shell snapshots the other three, and Wait-TraceTrigger returns the firing (node, event, time
and the set). Receive-Trace -Import then loads every node's snapshot. A node frozen with SIGSTOP
is named as having missed the set while the others still snapshot.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from fayshell.commands.views import firing_banners
from fayshell.tracing.recorder import Firing
from fayshell.views.feeds import OfflineFeed
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import SYSTEM_PYTHON, run_on
from tests.views.helpers import make_app, text_of
from tests.views.live_helpers import resume_node, stop_node, tick

NODES = ["node01", "node02", "node03", "node04"]
NODESET = "node[01-04]"
EMITTER = '''\
"""Log routine records, then (when asked) one error on fire.app; print when it was logged."""
import json, logging, sys, time
import lttngust  # noqa: F401
log = logging.getLogger("fire.app")
log.setLevel(logging.DEBUG)
time.sleep(0.5)
for i in range(int(sys.argv[1])):
    log.info("routine %d", i)
t = time.time_ns()
if sys.argv[3] == "fire":
    log.error("boom %s", sys.argv[2])
time.sleep(0.5)
print(json.dumps({"error_ns": t}))
'''


@pytest.fixture(scope="module")
def emitter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.fixtures.workloads.build import install_script

    src = tmp_path_factory.mktemp("recorder") / "fire_emitter.py"
    src.write_text(EMITTER)
    return install_script(src)


async def start_flight(sh: Shell, session: str) -> None:
    await sh.run(f"New-TraceSession {session} -Node '{NODESET}' -Snapshot")
    await sh.run(f"Enable-Tracepoint -Session {session} -Domain python")
    await sh.run(f"Start-Trace {session}")
    added = await sh.run(
        f"Register-TraceTrigger {session} -Domain python -Name 'fire.*' -Severity Error"
    )
    assert sorted(r.node for r in added) == NODES, sh.host.errors


async def test_one_node_fires_every_node_snapshots(
    cluster_shell: Shell, emitter: Path, tmp_path: Path
) -> None:
    sh = cluster_shell
    await start_flight(sh, "fr1")
    triggers = await sh.run("Get-TraceTrigger fr1")
    assert {t.node for t in triggers} == set(NODES) and all(t.watched for t in triggers)
    # python thresholds are one exact-level trigger per level (LTTng 2.13.9 refuses ERROR..)
    assert {t.name for t in triggers} == {"fay-fr1-t1-50", "fay-fr1-t1-40"}

    await run_on(sh, "node[01,03-04]", [SYSTEM_PYTHON, str(emitter), "20", "first", "quiet"])
    sent = await run_on(sh, "node02", [SYSTEM_PYTHON, str(emitter), "20", "first", "fire"])
    [firing] = await sh.run("Wait-TraceTrigger fr1 -Timeout 30s")
    assert isinstance(firing, Firing)
    assert firing.node == "node02" and firing.event == "python:fire.* Error+"
    assert sorted(firing.snapshots) == NODES and firing.missed == {}
    assert abs(firing.time_ns - sent["node02"]["error_ns"]) < 2_000_000_000
    print(f"firing → last node's snapshot: {firing.latency_ms:.0f} ms")

    got = await sh.run(f"Receive-Trace fr1 -Destination '{tmp_path}' -Import")
    assert not sh.host.errors, sh.host.errors
    assert {c.node for c in got} == set(NODES)
    routine = dict(
        sh.state.database.execute(
            "SELECT node, count(*) FROM logs WHERE session = 'fr1' AND severity = 'Info' GROUP BY 1"
        )
    )
    assert routine == dict.fromkeys(NODES, 20), "every node's last seconds are in its snapshot"
    [[node, msg]] = sh.state.database.execute(
        "SELECT node, msg FROM logs WHERE session = 'fr1' AND severity = 'Error'"
    )
    assert node == "node02" and msg == "boom first"
    # a dashboard over the session shows the firing as a banner
    feed = OfflineFeed(sh.state.database)
    feed.alerts = lambda: firing_banners(sh.state.trace_triggers.values(), "fr1")
    app = make_app(feed, "logs", severity="Debug")
    async with app.run_test(size=(160, 40)) as pilot:
        await tick(pilot)
        banner = text_of(app, "#header")
        assert "FIRED node02 python:fire.* Error+" in banner and "on 4 nodes" in banner
        await pilot.press("q")
    feed.close()
    # one firing allowed (the default): the triggers are gone from every node
    for _ in range(100):
        if not await sh.run("Get-TraceTrigger fr1"):
            break
        await asyncio.sleep(0.1)
    assert await sh.run("Get-TraceTrigger fr1") == [], sh.host.warnings
    await sh.run("Remove-TraceSession fr1 -Force")


async def test_frozen_node_is_named_as_missed(
    cluster_shell: Shell, real_cluster: LocalCluster, emitter: Path
) -> None:
    sh = cluster_shell
    await start_flight(sh, "fr2")
    watch = sh.state.trace_triggers["fay-fr2-t1"]
    watch.settings.snapshot_timeout_s = 3.0
    frozen = stop_node(real_cluster.node("node04"))
    try:
        await run_on(sh, "node01", [SYSTEM_PYTHON, str(emitter), "5", "second", "fire"])
        [firing] = await sh.run("Wait-TraceTrigger fr2 -Timeout 30s")
    finally:
        resume_node(frozen)
    assert firing.node == "node01"
    assert sorted(firing.snapshots) == ["node01", "node02", "node03"]
    assert list(firing.missed) == ["node04"] and "timeout" in firing.missed["node04"]
    await sh.run("Unregister-TraceTrigger fr2")
    assert await sh.run("Get-TraceTrigger fr2") == []
    await sh.run("Remove-TraceSession fr2 -Force")


async def test_no_firing_is_a_warning_not_a_result(cluster_shell: Shell) -> None:
    sh = cluster_shell
    await start_flight(sh, "fr3")
    assert await sh.run("Wait-TraceTrigger fr3 -Timeout 300ms") == []
    assert any("no firing of fr3 within 0.3s" in w for w in sh.host.warnings), sh.host.warnings
    assert json.dumps([t.node for t in await sh.run("Unregister-TraceTrigger fr3")])
    await sh.run("Remove-TraceSession fr3 -Force")
