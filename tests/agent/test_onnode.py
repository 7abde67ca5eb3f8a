"""-OnNode on the real cluster: the same pipelines give the same answers on the nodes' agents as
after Receive-Trace + Import-Trace (a differential test over logs, spans and syscalls)."""

from __future__ import annotations

import _thread
import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from fayshell.commands.store import set_agent_hub
from fayshell.remote.agentbundle import Bundle
from fayshell.remote.agentdeploy import AgentSettings
from fayshell.remote.agenthub import AgentHub, HubSettings
from tests.agent.conftest import make_session_dir
from tests.fixtures.cluster import LocalCluster, agent_pids
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import SYSTEM_PYTHON, run_on, shell_on

NODES = ("node05", "node06")
NODESET = "node[05-06]"
ALPHA = 0.01


def add_kernel_archives(lc: LocalCluster, node: str, output: Path, seed: int) -> None:
    """Kernel-layout rotation archives (the kernel tracer cannot load here) in the session's
    output directory, owned by the node's user like LTTng's own."""
    gen = make_session_dir(output.parent / f"gen-{node}", chunks=2, events=30_000, seed=seed)
    for chunk in sorted((gen / "archives").iterdir()):
        name = chunk.name.replace("20261124T05", "20261124T04")  # before LTTng's own
        shutil.move(str(chunk), output / "archives" / name)
    shutil.rmtree(gen)
    subprocess.run(["chown", "-R", lc.node(node).user, str(output / "archives")], check=True)


@pytest.fixture(scope="module")
def traced(
    real_cluster: LocalCluster,
    tmp_path_factory: pytest.TempPathFactory,
    pylog_script: Path,
    blkkin_binary: Path,
) -> dict[str, Any]:
    """A stopped session on two nodes with real python logs, BlkKin spans and kernel chunks."""
    tmp = tmp_path_factory.mktemp("onnode")

    async def record() -> dict[str, Any]:
        sh = shell_on(real_cluster, tmp / "setup.duckdb")
        try:
            await sh.run(f"New-TraceSession onn -Node '{NODESET}' -Rotate 1s")
            await sh.run("Enable-Tracepoint -Session onn -Domain python")
            await sh.run("Enable-Tracepoint -Session onn -Domain user -Name 'zipkin:*'")
            await sh.run("Start-Trace onn")
            await asyncio.gather(
                run_on(
                    sh,
                    NODESET,
                    [
                        SYSTEM_PYTHON,
                        str(pylog_script),
                        "--count",
                        "3",
                        "--rounds",
                        "4",
                        "--interval",
                        "0.3",
                    ],
                ),
                *(
                    run_on(
                        sh,
                        node,
                        [
                            str(blkkin_binary),
                            "--requests",
                            "30",
                            "--interval-ms",
                            "50",
                            "--seed",
                            str(k + 5),
                        ],
                    )  # ids differ per node
                    for k, node in enumerate(NODES)
                ),
            )
            await sh.run("Stop-Trace onn")
            return dict(sh.state.trace_sessions)
        finally:
            await sh.state.aclose()

    memos = asyncio.run(record())
    for k, node in enumerate(NODES):
        add_kernel_archives(real_cluster, node, Path(memos["onn"].outputs[node]), seed=11 + k)
    return memos


@pytest.fixture
async def both(
    real_cluster: LocalCluster, traced: dict[str, Any], tmp_path: Path, agent_bundle: Bundle
) -> AsyncIterator[Shell]:
    """A shell that knows the session, with the pulled copy imported into its own database."""
    sh = shell_on(real_cluster, tmp_path / "pulled.duckdb")
    sh.state.trace_sessions.update(traced)
    set_agent_hub(sh.state, AgentHub(sh.state.options, HubSettings(bundle_root=agent_bundle.root)))
    await sh.run(f"Receive-Trace onn -Destination '{tmp_path / 'pull'}' -Import")
    try:
        yield sh
    finally:
        await sh.state.aclose()
        from fayshell.commands.store import _close_hub

        _close_hub(id(sh.state))


def close(a: Any, b: Any, alpha: float = 0.0) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return abs(float(a) - float(b)) <= max(alpha, 1e-9) * abs(float(b)) + 1e-9
    return bool(a == b)


def rows(items: list[Any]) -> list[dict[str, Any]]:
    return [dict(i) if isinstance(i, dict) else dict(vars(i)) for i in items]


async def check_same(sh: Shell, pipeline: str, approx: tuple[str, ...] = ()) -> list[Any]:
    here = rows(await sh.run(pipeline.replace("{on}", "")))
    there = rows(await sh.run(pipeline.replace("{on}", "-OnNode")))
    assert here, f"no rows: {pipeline}"
    assert len(here) == len(there), (here, there)
    for h, t in zip(here, there, strict=True):
        assert list(h) == list(t)
        for k in h:
            assert close(t[k], h[k], ALPHA if k in approx else 0.0), (k, h, t)
    return there


async def test_same_answers_on_the_nodes_as_after_pull_and_import(
    both: Shell, real_cluster: LocalCluster
) -> None:
    sh = both
    logs = await check_same(
        sh, "Get-Log -Session onn {on} | Group-Object node, severity | Select-Object Name, Count"
    )
    assert {r["Name"].split(",")[0] for r in logs} == set(NODES)
    await check_same(
        sh,
        "sql {on} -Session onn SELECT node, count(*) AS spans, "
        "min(trace_id) AS t0, max(ts_end) AS last FROM spans GROUP BY node ORDER BY node",
    )
    await check_same(
        sh,
        "Get-Span -Session onn {on} | Measure-Object dur_ns -Sum -Minimum "
        "-Maximum -Average -Percentile 50,99",
        approx=("P50", "P99"),
    )
    await check_same(
        sh,
        "Get-Syscall -Session onn {on} | Where-Object { $_.name -like 'r*' -or "
        "$_.dur_ns -gt 100000 } | Group-Object node, name | "
        "Sort-Object Count -Descending | Select-Object Name, Count -First 6",
    )
    top = await check_same(
        sh,
        "sql {on} -Session onn SELECT node, name, count(*) AS calls, sum(dur_ns) AS total, "
        "quantile_cont(dur_ns, 0.99) AS p99 FROM syscalls GROUP BY ALL "
        "ORDER BY total DESC LIMIT 10",
        approx=("p99",),
    )
    assert {r["node"] for r in top} == set(NODES)
    await check_same(
        sh,
        "Get-Syscall -Session onn {on} | Sort-Object dur_ns -Descending | "
        "Select-Object node, name, tid, dur_ns -First 5",
    )
    assert not sh.host.errors


async def test_verbose_shows_node_and_merge_sql(both: Shell) -> None:
    await both.run("Get-Span -Session onn -OnNode -Verbose | Measure-Object dur_ns -Percentile 99")
    shown = "\n".join(both.host.verbose_lines)  # type: ignore[attr-defined]
    assert "node SQL 0:" in shown and "merge SQL:" in shown and "relative error" in shown


async def test_exact_percentiles_on_request(both: Shell) -> None:
    pipeline = "Get-Span -Session onn {on} | Measure-Object dur_ns -Percentile 50,90,99"
    here = rows(await both.run(pipeline.replace("{on}", "")))
    there = rows(await both.run(pipeline.replace("{on}", "-OnNode -ExactPercentile")))
    # the same interpolation, done by two engines on the same values: equal to the last few
    # bits of a double (one run in five differed by one unit in the last place at P99)
    near = [
        {k: pytest.approx(v, rel=1e-12) if isinstance(v, float) else v for k, v in r.items()}
        for r in here
    ]
    assert near == there


async def test_missing_node_is_named_and_agents_leave_nothing(
    both: Shell, real_cluster: LocalCluster
) -> None:
    out = rows(
        await both.run("Get-Log -Session onn -OnNode -Node node05,node99 | Group-Object node")
    )
    assert [r["Name"] for r in out] == ["node05"]
    warned = " ".join(str(w) for w in both.host.warnings)
    assert "node99: missing from the result" in warned
    assert agent_pids(real_cluster, "node05")  # kept warm between queries
    from fayshell.commands.store import _close_hub

    _close_hub(id(both.state))
    assert agent_pids(real_cluster, "node05") == []


async def test_test_node_reports_the_agent(
    both: Shell, real_cluster: LocalCluster, agent_bundle: Bundle
) -> None:
    await both.run("Get-Log -Session onn -OnNode -Node node05 | Measure-Object")  # installs
    # node07 without an agent, whatever ran on it before in this cluster
    shutil.rmtree(real_cluster.node("node07").home / ".cache/fayshell/agent", ignore_errors=True)
    recs = {r.node: r for r in await both.run("Test-Node node05,node07")}
    assert (recs["node05"].agent, recs["node05"].agent_python) == ("current", "3.11.2")
    assert (recs["node07"].agent, recs["node07"].agent_python) == ("absent", "3.11.2")


async def test_node_without_python_falls_back_to_pulling(
    both: Shell, real_cluster: LocalCluster, agent_bundle: Bundle
) -> None:
    settings = HubSettings(
        deploy=AgentSettings(python="/nonexistent/bin/python3"), bundle_root=agent_bundle.root
    )
    set_agent_hub(both.state, AgentHub(both.state.options, settings))
    pipeline = "Get-Log -Session onn {on} -Node node06 | Group-Object severity"
    here = rows(await both.run(pipeline.replace("{on}", "")))
    there = rows(await both.run(pipeline.replace("{on}", "-OnNode")))
    assert [(r["Name"], r["Count"]) for r in here] == [(r["Name"], r["Count"]) for r in there]
    (warning,) = both.host.warnings
    assert (
        "node06: no agent (node06: agent: no usable Python: '/nonexistent/bin/python3' not found"
        in warning
        and "pulled its chunks instead" in warning
    )
    test = {r.node: r for r in await both.run("Test-Node node06")}
    assert test["node06"].agent.startswith("no usable Python ('/nonexistent/bin/python3'")
    assert agent_pids(real_cluster, "node06") == []


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def agent_pid(lc: LocalCluster, node: str) -> int:
    (line,) = agent_pids(lc, node)
    return int(line.split()[0])


LONG = "SELECT sum(range % 7) AS s FROM range(1500000000)"


def when_busy(pid: int, then: Any) -> threading.Thread:
    """Once process ``pid`` has used 0.3 s more CPU (it is running the query), call ``then``."""
    start = cpu_ticks(pid)

    def watch() -> None:
        with contextlib.suppress(FileNotFoundError):
            while cpu_ticks(pid) - start < 30:
                time.sleep(0.02)
            then()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


async def test_node_killed_mid_query_is_named(both: Shell, real_cluster: LocalCluster) -> None:
    await both.run("sql -OnNode -Session onn SELECT count(*) FROM logs")  # agents warm
    victim = agent_pid(real_cluster, "node06")
    killed = threading.Event()

    def kill() -> None:
        os.kill(victim, signal.SIGKILL)
        killed.set()

    watcher = when_busy(victim, kill)
    (rel,) = await both.raw(f"sql -OnNode -Session onn {LONG}")
    got = rel.records()
    watcher.join(30)
    assert killed.is_set()
    assert got == [
        {
            "s": sum(i % 7 for i in range(7)) * (1500000000 // 7)
            + sum(i % 7 for i in range(1500000000 % 7))
        }
    ]
    assert list(rel.missing) == ["node06"]
    assert "the agent ended" in rel.missing["node06"]
    assert any("node06: missing from the result" in w for w in both.host.warnings)


def test_ctrl_c_cancels_on_every_node_and_leaves_no_agent(
    real_cluster: LocalCluster, traced: dict[str, Any], agent_bundle: Bundle
) -> None:
    hub = AgentHub(real_cluster.options(), HubSettings(bundle_root=agent_bundle.root))
    outputs = traced["onn"].outputs
    try:
        hub.call(hub.run_parts(list(NODES), "onn", outputs, ("SELECT 1 AS one",)))
        pids = [agent_pid(real_cluster, n) for n in NODES]
        watcher = when_busy(pids[0], _thread.interrupt_main)
        # Ctrl-C as at a terminal (a runner in the background passes SIGINT on ignored, and
        # interrupt_main then does nothing)
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            with pytest.raises(KeyboardInterrupt):
                hub.call(hub.run_parts(list(NODES), "onn", outputs, (LONG,)))
        finally:
            signal.signal(signal.SIGINT, previous)
        watcher.join(30)
        for node in NODES:
            assert agent_pids(real_cluster, node) == [], node
    finally:
        hub.close()


async def test_export_csv_writes_the_merged_answer(both: Shell, tmp_path: Path) -> None:
    pipeline = (
        "Get-Syscall -Session onn {on} | Group-Object name | Select-Object Name, Count | "
        "Export-Csv '{path}'"
    )
    await both.run(pipeline.replace("{on}", "").replace("{path}", str(tmp_path / "here.csv")))
    await both.run(
        pipeline.replace("{on}", "-OnNode").replace("{path}", str(tmp_path / "there.csv"))
    )
    here = (tmp_path / "here.csv").read_text()
    assert here.count("\n") > 3
    assert (tmp_path / "there.csv").read_text() == here
