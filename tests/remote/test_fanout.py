"""Fan-out over real sshd nodes (the shared ``real_cluster`` of 8 nodes)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path

import pytest

from fayshell.remote.cluster import Cluster
from fayshell.remote.results import CommandResult, NodeError, OutputLine
from tests.fixtures.cluster import LocalCluster, _alive, _user_pids

HOSTILE = [
    "; touch {m}1",
    "$(touch {m}2)",
    "`touch {m}3`",
    "a\ntouch {m}4",
    "|| touch {m}5",
    "ünïcødé ✓ 日本",
    "'\"\\",
    "*",
    "-n",
    "&& touch {m}6 &",
]


@pytest.fixture
def cluster(fay_cluster: Cluster) -> Cluster:
    return fay_cluster


async def test_fan_out_to_eight_nodes(real_cluster: LocalCluster, cluster: Cluster) -> None:
    results = await cluster.run_all("@all", "hostname; id -un")
    assert [r.node for r in results] == real_cluster.names
    for res, node in zip(results, real_cluster.nodes, strict=True):
        assert isinstance(res, CommandResult) and res.exit_status == 0
        assert res.stdout.split() == [node.name, node.user]  # own UTS namespace, own user
        assert res.duration_ms > 0


async def test_results_stream_back_as_nodes_finish(cluster: Cluster) -> None:
    await cluster.run_all("@all", "true")  # connect first: time only the commands
    cmd = 'case "$(hostname)" in node01) sleep 1.5;; esac; hostname'
    start = time.monotonic()
    order, times = [], []
    async for rec in cluster.run("node[01-08]", cmd):
        order.append(rec.node)
        times.append(time.monotonic() - start)
    assert order[-1] == "node01" and len(order) == 8
    # the other seven did not wait for node01 (its 1.5 s sleep): measured between arrivals,
    # so a loaded machine's slower start cannot fail it
    assert times[-1] >= 1.5 and times[-1] - times[-2] > 0.7


async def test_connections_are_reused(real_cluster: LocalCluster, cluster: Cluster) -> None:
    await cluster.run_all("@all", "true")
    logins = [n.accepted_logins() for n in real_cluster.nodes]
    assert all(v == 1 for v in cluster.connects.values()) and len(cluster.connects) == 8
    for _ in range(3):
        assert all(r.exit_status == 0 for r in await cluster.run_all("@all", ["true"]))
    # the sshd logs prove it: no node authenticated a second connection
    assert [n.accepted_logins() for n in real_cluster.nodes] == logins
    assert all(v == 1 for v in cluster.connects.values())


async def test_hostile_arguments_are_not_executed(
    real_cluster: LocalCluster, cluster: Cluster, tmp_path: Path
) -> None:
    marker = f"/tmp/fz-pwned-{os.getpid()}-"
    args = [a.format(m=marker) for a in HOSTILE]
    results = await cluster.run_all("node0[1-3]", ["printf", "%s\\n", *args])
    for res in results:
        assert isinstance(res, CommandResult), res
        assert res.stdout == "".join(f"{a}\n" for a in args)
    # hostile paths: created through a quoted argv, read back over SFTP, listed via argv
    path = "x; touch pwn7 $(touch pwn8) `touch pwn9` ü"
    [made] = await cluster.run_all("node01", ["sh", "-c", 'printf hostile > "$1"', "sh", path])
    assert made.exit_status == 0, made
    assert await (await cluster.files("node01")).read_bytes(path) == b"hostile"
    [listed] = await cluster.run_all("node01", ["ls", "--", path])
    assert listed.stdout == path + "\n"
    home = real_cluster.node("node01").home
    assert not list(home.glob("pwn*")) and (home / path).read_text() == "hostile"
    await asyncio.sleep(0.2)
    assert not [p for p in Path("/tmp").glob(f"fz-pwned-{os.getpid()}-*")]


async def test_command_timeout_and_failures_do_not_block_others(cluster: Cluster) -> None:
    cmd = 'case "$(hostname)" in node02) sleep 30;; node03) exit 7;; esac; echo ok'
    start = time.monotonic()
    results = {r.node: r for r in await cluster.run_all("node0[1-4]", cmd, timeout=1.0)}
    assert time.monotonic() - start < 3
    assert isinstance(results["node02"], NodeError) and results["node02"].stage == "timeout"
    assert results["node03"].exit_status == 7  # a non-zero exit is a result, not an error
    assert results["node01"].stdout == "ok\n" and results["node04"].stdout == "ok\n"


async def test_cancellation_stops_every_remote_command(
    real_cluster: LocalCluster, cluster: Cluster
) -> None:
    await cluster.run_all("@all", "true")

    async def consume() -> list:
        return [r async for r in cluster.run("@all", "sleep 60")]

    task = asyncio.ensure_future(consume())
    await asyncio.sleep(0.5)
    start = time.monotonic()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert time.monotonic() - start < 2.0
    await asyncio.sleep(0.3)
    for node in real_cluster.nodes:  # no remote sleep left running on any node
        sleeping = [p for p, comm in _user_pids(node.uid) if comm == "sleep" and _alive(p)]
        assert sleeping == [], node.name
    results = await cluster.run_all("@all", "echo again")  # the pool is still usable
    assert all(r.stdout == "again\n" for r in results)
    assert all(v == 1 for v in cluster.connects.values())


async def test_stream_yields_lines_as_they_arrive(cluster: Cluster) -> None:
    await cluster.run_all("node0[1-2]", "true")
    seen: list[tuple[float, object]] = []
    start = time.monotonic()
    async for rec in cluster.stream("node0[1-2]", "echo first; sleep 0.6; echo second >&2"):
        seen.append((time.monotonic() - start, rec))
    lines = [(t, r) for t, r in seen if isinstance(r, OutputLine)]
    assert sorted((r.node, r.stream, r.line) for _, r in lines) == [
        ("node01", "stderr", "second"),
        ("node01", "stdout", "first"),
        ("node02", "stderr", "second"),
        ("node02", "stdout", "first"),
    ]
    # shown before the command finished: each node writes 'second' 0.6 s after 'first', so
    # streamed lines arrive that far apart (together if they were held to the end); measured
    # between one node's arrivals, not from the start, so a slow connection cannot fail it
    at = {(r.node, r.line): t for t, r in lines}
    assert all(at[(n, "second")] - at[(n, "first")] > 0.3 for n in ("node01", "node02"))
    assert sum(isinstance(r, CommandResult) for _, r in seen) == 2


async def test_sftp_and_map(real_cluster: LocalCluster, cluster: Cluster, tmp_path: Path) -> None:
    await cluster.run_all("node0[1-2]", "mkdir -p out/sub && hostname > out/sub/h.txt")

    async def pull(transport) -> str:
        files = await transport.files()
        dest = tmp_path / transport.node
        dest.mkdir()
        await files.get("out", str(dest), recurse=True)
        assert await files.listdir("out") == ["sub"]
        assert (await files.stat("out/sub/h.txt")).size == 7
        return (dest / "out" / "sub" / "h.txt").read_text().strip()

    outcomes = {o.node: o.value async for o in cluster.map("node0[1-2]", pull)}
    assert outcomes == {"node01": "node01", "node02": "node02"}
    [err] = [o async for o in cluster.map("node01", lambda t: _missing(t))]
    assert isinstance(err, NodeError) and err.stage == "command" and "nope" in err.message


async def _missing(transport) -> bytes:
    return await (await transport.files()).read_bytes("nope/none")


async def test_proxy_jump(real_cluster: LocalCluster, tmp_path: Path) -> None:
    cfg = tmp_path / "ssh_config"
    cfg.write_text(real_cluster.ssh_config.read_text() + "\nHost behind\n    ProxyJump node01\n")
    n2 = real_cluster.node("node02")
    inv = tmp_path / "inv.toml"
    inv.write_text(
        f'[nodes.behind]\nhost = "127.0.0.1"\nport = {n2.port}\nuser = "{n2.user}"\n'
        f'identity_file = "{real_cluster.client_key}"\n'
        f'known_hosts = "{real_cluster.known_hosts}"\n'
    )
    from fayshell.state import Options

    cluster = Cluster.from_options(Options(inventory=str(inv), ssh_config=str(cfg)))
    try:
        [res] = await cluster.run_all("behind", "hostname")
        assert isinstance(res, CommandResult) and res.stdout == "node02\n"
        assert cluster.connects == {"behind": 1, "node01(jump)": 1}
    finally:
        await cluster.aclose()


async def test_port_forward_through_a_node(real_cluster: LocalCluster, cluster: Cluster) -> None:
    transport = await cluster.connect("node01")
    port = await transport.forward("127.0.0.1", real_cluster.node("node02").port)
    assert port == await transport.forward("127.0.0.1", real_cluster.node("node02").port)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        assert (await reader.readline()).startswith(b"SSH-2.0-OpenSSH")
    finally:
        writer.close()


async def test_many_commands_on_one_node_share_its_connection(cluster: Cluster) -> None:
    """More concurrent commands than sshd's MaxSessions (10) queue instead of failing."""
    transport = await cluster.connect("node05")
    await (await cluster.files("node05")).listdir(".")  # an SFTP channel stays open too
    results = await asyncio.gather(*(transport.run(f"sleep 0.2; echo {i}") for i in range(12)))
    assert [r.stdout for r in results] == [f"{i}\n" for i in range(12)]
    assert cluster.connects == {"node05": 1}


async def test_unreachable_jump_host_is_the_nodes_error(
    real_cluster: LocalCluster, tmp_path: Path
) -> None:
    cfg = tmp_path / "ssh_config"
    cfg.write_text(
        real_cluster.ssh_config.read_text()
        + "\nHost behind\n    HostName 127.0.0.1\n    ProxyJump nobody@127.0.0.1:1\n"
    )
    from fayshell.state import Options

    cluster = Cluster.from_options(Options(ssh_config=str(cfg)))
    try:
        [err] = await cluster.run_all("behind", "true")
        assert err.node == "behind" and err.stage == "connect"
        assert err.message.startswith("jump host nobody@127.0.0.1:1:")
    finally:
        await cluster.aclose()


async def test_pull_a_directory_from_every_node(cluster: Cluster, tmp_path: Path) -> None:
    top = f"pulltest-{os.getpid()}"
    await cluster.run_all(
        "node0[1-3]", f"mkdir -p {top}/archives/c1 && hostname > {top}/archives/c1/x"
    )
    remote = f"{top}/archives"
    got = {o.node: o for o in [r async for r in cluster.pull("node0[1-4]", remote, str(tmp_path))]}
    for name in ("node01", "node02", "node03"):
        assert got[name].value == str(tmp_path / name)
        assert (tmp_path / name / "archives" / "c1" / "x").read_text() == f"{name}\n"
    assert isinstance(got["node04"], NodeError) and remote in got["node04"].message
