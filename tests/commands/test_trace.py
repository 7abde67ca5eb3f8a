"""The trace cmdlets on the real cluster: validation before sending, confirmation, partial
failure, Ctrl-C cleanup during New-TraceSession, divergence, and sessiond start-up."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fayshell.commands.invocation import Invocation
from fayshell.commands.trace import new_trace_session
from fayshell.errors import ParameterError, RuntimeFayError
from fayshell.tracing.records import TraceResult
from tests.fixtures.cluster import LocalCluster, start_cluster
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import shell_on

HOSTILE = [
    "x; rm -rf ~",
    "../../etc",
    "-rf",
    "a b",
    "tab\tname",
    "new\nline",
    "$(id)",
    "auto",
    "`id`",
    "x" * 300,
    "",
]


async def _sessions(shell: Shell, nodes: str) -> dict[str, str]:
    """``lttng list`` per node, as raw text (for cross-checks independent of the cmdlets)."""
    out = {}
    for r in await shell.state.cluster.run_all(nodes, ["lttng", "list"], timeout=30):
        out[r.node] = getattr(r, "stdout", "")
    return out


@pytest.mark.parametrize("name", HOSTILE)
async def test_hostile_session_names_rejected_before_sending(
    cluster_shell: Shell, name: str
) -> None:
    sh = cluster_shell
    sh.state.globals.set_local("n", name)
    for cmd in (
        "New-TraceSession $n",
        "Enable-Tracepoint -Session $n -Domain user",
        "Start-Trace $n",
        "Remove-TraceSession $n -Force",
        "Receive-Trace $n",
        "Invoke-TraceRotation $n",
        "Get-TraceSession $n",
    ):
        with pytest.raises(ParameterError):
            await sh.run(cmd)
    assert sh.state.cluster.connects == {}, "something was sent to a node"


@pytest.mark.parametrize(
    "cmd, words",
    [
        ("Enable-Tracepoint -Session s -Domain kernel -Severity Warning", "no log levels"),
        ("Enable-Tracepoint -Session s -Domain python -Filter 'a ==' ", "Filter"),
        ("Enable-Tracepoint -Session s -Domain user -Name 'bad name'", "Name"),
        ("Enable-Tracepoint -Session s -Domain python -Exact", "-Exact needs -Severity"),
        ("New-TraceSession s -Snapshot -Rotate 1s", "cannot rotate"),
        ("New-TraceSession s -BufferSize 3000", "power of two"),
    ],
)
async def test_invalid_requests_fail_before_sending(
    cluster_shell: Shell, cmd: str, words: str
) -> None:
    with pytest.raises(RuntimeFayError, match=words):
        await cluster_shell.run(cmd)
    assert cluster_shell.state.cluster.connects == {}


async def test_whatif_confirm_and_divergence(cluster_shell: Shell) -> None:
    sh = cluster_shell
    made = await sh.run("New-TraceSession div -Node 'node[06-07]'")
    assert sorted((r.node, r.action) for r in made) == [
        ("node06", "created"),
        ("node07", "created"),
    ]
    assert sh.state.status["sessions"] == "div"
    await sh.run("$ErrorActionPreference = 'Continue'")
    assert await sh.run("New-TraceSession div -Node node06") == []  # exists: left alone
    assert "node06: lttng: a session named 'div' already exists" in sh.host.errors[-1]
    what = await sh.run("Remove-TraceSession div -WhatIf")
    assert sorted((r.node, r.action) for r in what) == [
        ("node06", "would destroy"),
        ("node07", "would destroy"),
    ]
    assert await sh.run("Remove-TraceSession div") == []  # the host says no
    assert "not confirmed" in sh.host.warnings[-1]
    assert all("div" in text for text in (await _sessions(sh, "node[06-07]")).values())

    await sh.run("Enable-Tracepoint -Session div -Domain user -Name 'zipkin:*' -Node node07")
    status = await sh.run("Get-TraceSession div")
    assert [(s.node, s.diverged) for s in status] == [("node06", False), ("node07", True)] or [
        (s.node, s.diverged) for s in status
    ] == [("node06", True), ("node07", False)]
    await sh.run("Remove-TraceSession div -Force -Node node07")
    status = await sh.run("Get-TraceSession div")
    assert [(s.node, s.state, s.diverged) for s in status] == [
        ("node06", "inactive", False),
        ("node07", "missing", True),
    ]
    sh.host.answer = True
    gone = await sh.run("Remove-TraceSession div -Node node06")
    assert [(r.node, r.action) for r in gone] == [("node06", "destroyed")]
    assert all("div" not in text for text in (await _sessions(sh, "node[06-07]")).values())
    assert "sessions" not in sh.state.status


async def test_import_without_the_loader_says_so(
    cluster_shell: Shell, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "fayshell.store.loader", None)  # as if not installed
    with pytest.raises(RuntimeFayError, match=r"-Import needs the DuckDB loader"):
        await cluster_shell.run("Receive-Trace s -Import")
    assert cluster_shell.state.cluster.connects == {}


async def test_partial_failure_names_the_node(
    cluster_shell: Shell, real_cluster: LocalCluster
) -> None:
    sh = cluster_shell
    real_cluster.kill_sshd("node08")
    try:
        await sh.run("$ErrorActionPreference = 'Continue'")
        made = await sh.run("New-TraceSession part -Node 'node[07-08]'")
        assert [(r.node, r.action) for r in made] == [("node07", "created")]
        assert len(sh.host.errors) == 1 and "node08: connect:" in sh.host.errors[0]
        await sh.run("Enable-Tracepoint -Session part -Domain user -Name 'zipkin:*'")
        started = await sh.run("Start-Trace part")
        assert [r.node for r in started] == ["node07"], sh.host.errors  # only where it was created
    finally:
        real_cluster.start_sshd("node08")
    sh.host.errors.clear()
    again = await sh.run("Start-Trace part -Node 'node[07-08]'")
    assert [(r.node, r.action) for r in again] == [("node07", "already started")]
    assert len(sh.host.errors) == 1 and sh.host.errors[0].startswith(
        "Start-Trace: node08: lttng: lttng start: no such recording session on the node"
    )
    await sh.run("Remove-TraceSession part -Force")


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A TCP port that accepts connections and never speaks (an SSH handshake hangs)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]


async def test_ctrl_c_during_new_session_leaves_no_orphans(
    cluster_shell: Shell, silent_port: int
) -> None:
    sh = cluster_shell
    await sh.run(f"Add-Node hang -HostName 127.0.0.1 -Port {silent_port} -User nobody")
    spec = sh.state.registry.resolve("New-TraceSession")
    assert spec is not None
    ctx = Invocation(sh.state, spec, error_action="Continue")
    got: list[TraceResult] = []

    async def consume() -> None:
        async for rec in new_trace_session(
            ctx, name="orphan", node="node[01-04],hang", rotate="1s"
        ):
            got.append(rec)

    task = asyncio.ensure_future(consume())
    for _ in range(200):
        if len(got) == 4:
            break
        await asyncio.sleep(0.05)
    assert len(got) == 4 and not task.done(), "node[01-04] should be done, 'hang' still pending"
    task.cancel()  # what Ctrl-C does to the running statement
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()
    assert "was removed from every node" in sh.host.warnings[-1]
    assert all("orphan" not in text for text in (await _sessions(sh, "node[01-04]")).values())


async def test_starts_sessiond_when_none_runs(tmp_path: Path) -> None:
    lc = start_cluster(1, sessiond=False)
    sh = shell_on(lc, tmp_path / "db.duckdb")
    try:
        made = await sh.run("New-TraceSession boot")
        assert [(r.node, r.action) for r in made] == [("node01", "created")]
        assert any(
            "node01: no lttng-sessiond ran for the SSH user; started one" in w
            for w in sh.host.warnings
        )
        assert "boot" in (await _sessions(sh, "node01"))["node01"]
        again = await sh.run("New-TraceSession boot2")
        assert [r.node for r in again] == ["node01"]
        assert len([w for w in sh.host.warnings if "started one" in w]) == 1
    finally:
        await sh.state.aclose()
        lc.close()
