"""Deploying the agent over SSH on the real test cluster: install, reuse, tamper, replace, refuse."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fayshell.remote.agentbundle import Bundle
from fayshell.remote.agentdeploy import (
    AgentSettings,
    AgentUnavailable,
    ensure_installed,
    probe,
    start,
)
from fayshell.remote.cluster import Cluster
from tests.fixtures.cluster import LocalCluster, agent_pids

SETTINGS = AgentSettings()


def node_root(lc: LocalCluster, name: str) -> Path:
    return lc.node(name).home / SETTINGS.root


async def test_fresh_node_gets_the_agent_then_reuses_it(
    real_cluster: LocalCluster, fay_cluster: Cluster, agent_bundle: Bundle
) -> None:
    shutil.rmtree(node_root(real_cluster, "node01"), ignore_errors=True)
    t = await fay_cluster.connect("node01")
    first = await ensure_installed(t, agent_bundle, SETTINGS)
    assert (first.action, first.digest, first.python) == (
        "installed",
        agent_bundle.digest,
        "3.11.2",
    )
    again = await ensure_installed(t, agent_bundle, SETTINGS)
    assert again.action == "reused"
    client = await start(t, agent_bundle, SETTINGS)
    try:
        assert client.welcome is not None and client.welcome.python == "3.11.2"
        assert client.welcome.store.endswith(
            f"{SETTINGS.root}/{agent_bundle.digest}/store/store.duckdb"
        )
        res = await client.query("SELECT 6 * 7 AS answer")
        assert res.table().column("answer").to_pylist() == [42]
        assert agent_pids(real_cluster, "node01")
    finally:
        await client.close()
    assert agent_pids(real_cluster, "node01") == []
    home = real_cluster.node("node01").home
    assert sorted(p.name for p in (home / SETTINGS.root).iterdir()) == [agent_bundle.digest]
    assert not list((home / SETTINGS.root / agent_bundle.digest).glob("*.tar"))


async def test_tampered_bundle_is_refused_and_replaced(
    real_cluster: LocalCluster, fay_cluster: Cluster, agent_bundle: Bundle
) -> None:
    t = await fay_cluster.connect("node02")
    await ensure_installed(t, agent_bundle, SETTINGS)
    target = (
        node_root(real_cluster, "node02")
        / agent_bundle.digest
        / "lib"
        / "fayshell"
        / "agent"
        / "server.py"
    )
    target.write_text(target.read_text() + "\nimport os; os.system('echo owned')\n")
    found = await probe(t, agent_bundle, SETTINGS)
    assert found.state == "tampered"
    assert "lib/fayshell/agent/server.py: content differs" in found.detail
    fixed = await ensure_installed(t, agent_bundle, SETTINGS)
    assert fixed.action == "replaced"
    assert "owned" not in target.read_text()
    assert (await probe(t, agent_bundle, SETTINGS)).state == "ok"


async def test_agents_of_another_fayshell_are_removed(
    real_cluster: LocalCluster, fay_cluster: Cluster, agent_bundle: Bundle
) -> None:
    t = await fay_cluster.connect("node03")
    await ensure_installed(t, agent_bundle, SETTINGS)
    old = node_root(real_cluster, "node03") / "0ld0ld0ld0ld0ld0ld0ld0ld"
    (old / "lib").mkdir(parents=True)
    (old / "MANIFEST").write_text("x\n")
    shutil.chown(old, real_cluster.node("node03").user)
    result = await ensure_installed(t, agent_bundle, SETTINGS)
    assert result.action == "replaced"
    assert not old.exists()


async def test_node_without_usable_python_is_named(
    fay_cluster: Cluster, agent_bundle: Bundle
) -> None:
    t = await fay_cluster.connect("node04")
    bad = AgentSettings(python="/nonexistent/bin/python3")
    with pytest.raises(AgentUnavailable) as err:
        await ensure_installed(t, agent_bundle, bad)
    msg = err.value.one_line()
    assert msg.startswith("node04: agent: no usable Python: '/nonexistent/bin/python3' not found")
    assert agent_bundle.abi in msg
