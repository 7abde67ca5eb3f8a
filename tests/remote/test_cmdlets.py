"""Get-Node, Add-Node, Remove-Node, Test-Node and Invoke-Command on the real cluster."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fayshell.commands.invocation import Invocation
from fayshell.commands.nodes import NodeInfo, add_node, get_node, remove_node
from fayshell.commands.nodes import test_node as run_test_node
from fayshell.commands.remote import invoke_command
from fayshell.errors import CommandError
from fayshell.host import CaptureHost
from fayshell.remote.readiness import NodeReadiness
from fayshell.remote.results import CommandResult, GatheredResult
from fayshell.state import ShellState
from tests.fixtures.cluster import LocalCluster


@pytest.fixture
async def state(real_cluster: LocalCluster):
    st = ShellState(options=real_cluster.options(), host=CaptureHost())
    try:
        yield st
    finally:
        await st.aclose()


def _ctx(state: ShellState, name: str, error_action: str = "Continue") -> Invocation:
    return Invocation(state, state.registry.resolve(name), error_action=error_action)


async def _all(agen) -> list:
    return [r async for r in agen]


async def test_get_node_lists_inventory_and_groups(
    state: ShellState, real_cluster: LocalCluster
) -> None:
    nodes = await _all(get_node(_ctx(state, "Get-Node")))
    assert [n.node for n in nodes] == real_cluster.names
    n1 = nodes[0]
    assert (n1.host, n1.port, n1.user, n1.source) == (
        "127.0.0.1",
        real_cluster.node("node01").port,
        real_cluster.node("node01").user,
        "inventory",
    )
    assert n1.groups == "all,odd"
    even = await _all(get_node(_ctx(state, "Get-Node"), group="even"))
    assert [n.node for n in even] == ["node02", "node04", "node06", "node08"]
    some = await _all(get_node(_ctx(state, "Get-Node"), name="node[01-08]!node[02-07]"))
    assert [n.node for n in some] == ["node01", "node08"]


async def test_add_and_remove_node(state: ShellState, tmp_path: Path) -> None:
    ctx = _ctx(state, "Add-Node")
    added = await _all(add_node(ctx, name="extra[1-2]", port=2222, user="u", group=["extras"]))
    assert [(n.node, n.port, n.user, n.groups) for n in added] == [
        ("extra1", 2222, "u", "extras"),
        ("extra2", 2222, "u", "extras"),
    ]
    await remove_node(_ctx(state, "Remove-Node"), name="extra1")
    assert [n.node for n in await _all(get_node(_ctx(state, "Get-Node"), group="extras"))] == [
        "extra2"
    ]
    rctx = _ctx(state, "Remove-Node")
    await remove_node(rctx, name="nosuch")
    assert rctx.errors and rctx.errors[0].target == "nosuch"
    with pytest.raises(CommandError):
        await _all(add_node(_ctx(state, "Add-Node"), name="bad$(x)"))


async def test_test_node_reports_readiness(state: ShellState, real_cluster: LocalCluster) -> None:
    recs = await _all(run_test_node(_ctx(state, "Test-Node"), node="node0[1-2],localhost"))
    by = {r.node: r for r in recs}
    for name in ("node01", "node02"):
        r = by[name]
        assert isinstance(r, NodeReadiness) and r.reachable and r.hostname == name
        assert r.sessiond and r.python_agent and r.lttng_version.startswith("2.")
        assert r.kernel == os.uname().release and r.rtt_ms is not None and r.rtt_ms > 0
        assert r.kernel_tracer is False  # lttng-modules cannot load on these machines
    assert by["localhost"].reachable


async def test_invoke_command_records_gather_and_errors(state: ShellState) -> None:
    ctx = _ctx(state, "Invoke-Command")
    recs = await _all(invoke_command(ctx, node="@all", command="uname -r"))
    assert len(recs) == 8 and all(isinstance(r, CommandResult) and r.exit_status == 0 for r in recs)
    cmd = 'case "$(hostname)" in node0[1-3]) echo A;; *) echo B;; esac'
    gathered = await _all(invoke_command(ctx, node="@all", command=cmd, gather=True))
    assert [(g.nodes, g.count, g.stdout) for g in gathered] == [
        ("node[04-08]", 5, "B\n"),
        ("node[01-03]", 3, "A\n"),
    ]
    assert all(isinstance(g, GatheredResult) for g in gathered)
    ctx = _ctx(state, "Invoke-Command")
    recs = await _all(
        invoke_command(ctx, node="node0[1-2]", command="sleep 5", timeout=200_000_000)
    )
    assert recs == [] and sorted(e.target for e in ctx.errors) == ["node01", "node02"]
    assert {e.stage for e in ctx.errors} == {"timeout"}


async def test_invoke_command_stream(state: ShellState) -> None:
    ctx = _ctx(state, "Invoke-Command")
    recs = await _all(
        invoke_command(ctx, node="node0[1-2]", stream=True, command="echo a; echo b >&2; exit 3")
    )
    assert recs == []  # lines go to the host as they arrive
    host = state.host
    assert sorted(host.lines) == ["node01: a", "node01: b", "node02: a", "node02: b"]  # type: ignore[attr-defined]
    assert any("node01: exit status 3" in w for w in host.warnings)  # type: ignore[attr-defined]


async def test_invoke_command_takes_nodes_from_the_pipeline(state: ShellState) -> None:
    ctx = _ctx(state, "Invoke-Command")
    ctx.input = [NodeInfo("node03", "", None, "", "", ""), "node04"]
    recs = await _all(invoke_command(ctx, command="hostname"))
    assert sorted(r.stdout for r in recs) == ["node03\n", "node04\n"]


def _interp(state: ShellState):
    interp_mod = pytest.importorskip("fayshell.lang.interp")
    return interp_mod.Interpreter(state)


async def test_through_the_interpreter(state: ShellState) -> None:
    interp = _interp(state)
    out = await interp.run(
        "$web = Get-Node 'node0[1-3]'\n"
        "Invoke-Command -Node $web -Command 'hostname' | "
        "Sort-Object node | ForEach-Object { $_.stdout.Trim() }"
    )
    assert out == ["node01", "node02", "node03"]
    out = await interp.run(
        "Invoke-Command -Node 'node0[1-2]' -ScriptBlock { 'printf', '%s', "
        '"$_; touch /tmp/fz-icm-$_" }'
    )
    assert sorted(r.stdout for r in out) == [
        "node01; touch /tmp/fz-icm-node01",
        "node02; touch /tmp/fz-icm-node02",
    ]
    assert not list(Path("/tmp").glob("fz-icm-*"))
    out = await interp.run('Invoke-Command -Node node01 { "echo $_" }')
    assert out[0].stdout == "node01\n"
    out = await interp.run(
        "Invoke-Command -Node node01 -ScriptBlock { param($w) 'echo', $w } -ArgumentList there"
    )
    assert out[0].stdout == "there\n"


async def test_a_script_block_without_a_node_runs_in_the_shell(state: ShellState) -> None:
    """PowerShell's Invoke-Command without -ComputerName: the block runs here, with
    -ArgumentList; no node is asked (it was sent as a command line to every node)."""
    interp = _interp(state)
    out = await interp.run(
        "Invoke-Command -ScriptBlock { 1 + 1 }; "
        "Invoke-Command { param($x) $x * 2 } -ArgumentList 21; icm { $args -join '+' } -Args 1, 2"
    )
    assert out == [2, 42, "1+2"]


async def test_failed_nodes_stop_a_script_unless_continue(
    state: ShellState, tmp_path: Path
) -> None:
    interp = _interp(state)
    with pytest.raises(CommandError, match="1 failure"):
        await interp.run("Invoke-Command -Node 'node01' 'sleep 3' -Timeout 100ms\n'after'")
    out = await interp.run(
        "Invoke-Command -Node 'node01' 'sleep 3' -Timeout 100ms -ErrorAction Continue\n'after'"
    )
    assert out == ["after"]


async def test_remove_node_from_the_pipeline(state: ShellState) -> None:
    interp = _interp(state)
    await interp.run("Get-Node -Group even | Remove-Node")
    out = await interp.run("Get-Node | ForEach-Object { $_.node }")
    assert out == ["node01", "node03", "node05", "node07"]


def test_fayshell_script_exit_status(real_cluster: LocalCluster, tmp_path: Path) -> None:
    """`fayshell --inventory --ssh-config -c`: failed nodes make the script exit non-zero."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    inv = tmp_path / "inv.toml"
    inv.write_text(
        real_cluster.inventory.read_text() + '[nodes.gone]\nhost = "127.0.0.1"\nport = 1\n'
    )

    def fay(code: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "fayshell",
                "--inventory",
                str(inv),
                "--ssh-config",
                str(real_cluster.ssh_config),
                "-c",
                code,
            ],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
        )

    ok = fay("Invoke-Command -Node 'node0[1-3]' -Command 'hostname' -Gather")
    assert ok.returncode == 0, ok.stderr
    assert "node01" in ok.stdout and "node03" in ok.stdout
    bad = fay("Invoke-Command -Node 'node01,gone' -Command 'true'; 'after'")
    assert bad.returncode != 0 and "gone: connect:" in bad.stderr and "after" not in bad.stdout
    cont = fay("Invoke-Command -Node 'node01,gone' -Command 'true' -ErrorAction Continue; 'after'")
    assert cont.returncode == 0 and "after" in cont.stdout
