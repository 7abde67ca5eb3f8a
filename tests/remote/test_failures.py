"""Broken nodes on a private 3-node cluster: dead sshd, silent port, host keys, wrong key."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fayshell.remote.cluster import Cluster
from fayshell.remote.results import CommandResult, NodeError
from fayshell.state import Options
from tests.fixtures.cluster import LocalCluster, start_cluster


@pytest.fixture(scope="module")
def small_cluster() -> Iterator[LocalCluster]:
    cluster = start_cluster(3, sessiond=False)
    try:
        yield cluster
    finally:
        cluster.close()


def _by_node(records: list) -> dict:
    return {r.node: r for r in records}


def _inventory(tmp_path: Path, lc: LocalCluster, **nodes: dict) -> Options:
    """An inventory adding ``nodes`` (name -> overrides) on top of the cluster's ssh_config."""
    lines = []
    for name, entry in nodes.items():
        lines.append(f"[nodes.{name}]")
        lines += [
            f"{k} = {v!r}" if isinstance(v, int) else f'{k} = "{v}"' for k, v in entry.items()
        ]
    inv = tmp_path / "inventory.toml"
    inv.write_text("\n".join(lines) + "\n")
    return Options(inventory=str(inv), ssh_config=str(lc.ssh_config))


async def test_sshd_killed_mid_command(small_cluster: LocalCluster) -> None:
    cluster = Cluster.from_options(small_cluster.options())
    try:
        run = asyncio.ensure_future(cluster.run_all("@all", "sleep 1.5; echo done"))
        await asyncio.sleep(0.5)
        small_cluster.kill_sshd("node02")
        results = _by_node(await run)
        assert results["node02"].stage == "command"
        assert "connection lost" in results["node02"].message
        assert results["node01"].stdout == results["node03"].stdout == "done\n"
        # while it is down: a connect error, quickly
        [err] = await cluster.run_all("node02", "true")
        assert isinstance(err, NodeError) and err.stage == "connect"
        small_cluster.start_sshd("node02")
        [res] = await cluster.run_all("node02", "hostname")  # reconnects by itself
        assert isinstance(res, CommandResult) and res.stdout == "node02\n"
        assert cluster.connects["node02"] == 2 and cluster.connects["node01"] == 1
    finally:
        await cluster.aclose()
        if not small_cluster.node("node02").sshd_pid:
            small_cluster.start_sshd("node02")


async def test_silent_tcp_port_times_out(small_cluster: LocalCluster, tmp_path: Path) -> None:
    with socket.socket() as silent:  # accepts TCP (kernel backlog), never says a word of SSH
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        opts = _inventory(tmp_path, small_cluster, mute={"host": "127.0.0.1", "port": port})
        cluster = Cluster.from_options(opts)
        cluster.pool.settings.connect_timeout = 1.0
        try:
            start = time.monotonic()
            order = [r async for r in cluster.run("mute,node01,node03", "echo hi")]
            assert time.monotonic() - start < 2.5
            assert [r.node for r in order][-1] == "mute"
            err = _by_node(order)["mute"]
            assert err.stage == "timeout" and f"127.0.0.1:{port}" in err.message
            assert _by_node(order)["node01"].stdout == "hi\n"
        finally:
            await cluster.aclose()


async def test_refused_port_is_a_connect_error(small_cluster: LocalCluster, tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cluster = Cluster.from_options(
        _inventory(tmp_path, small_cluster, gone={"host": "127.0.0.1", "port": port})
    )
    try:
        [err] = await cluster.run_all("gone", "true")
        assert err.stage == "connect" and "refused" in err.message.lower()
    finally:
        await cluster.aclose()


async def test_changed_host_key_is_refused_loudly(small_cluster: LocalCluster) -> None:
    old = small_cluster.replace_host_key("node03")
    try:
        for accept in (False, True):  # -AcceptNewHostKey never overrides a changed key
            cluster = Cluster.from_options(small_cluster.options())
            try:
                results = _by_node(
                    await cluster.run_all("@all", "true", accept_new_host_key=accept)
                )
            finally:
                await cluster.aclose()
            err = results["node03"]
            assert isinstance(err, NodeError) and err.stage == "hostkey"
            assert "HOST KEY CHANGED" in err.message and "ssh-keygen -R" in err.message
            assert results["node01"].exit_status == 0
    finally:
        small_cluster.restore_host_key("node03", old)


async def test_unknown_host_key_and_accept_new(small_cluster: LocalCluster, tmp_path: Path) -> None:
    kh = tmp_path / "known_hosts"
    n1 = small_cluster.node("node01")
    opts = _inventory(
        tmp_path,
        small_cluster,
        fresh={
            "host": "127.0.0.1",
            "port": n1.port,
            "user": n1.user,
            "identity_file": str(small_cluster.client_key),
            "known_hosts": str(kh),
        },
    )
    cluster = Cluster.from_options(opts)
    try:
        [err] = await cluster.run_all("fresh", "true")
        assert err.stage == "hostkey" and "unknown host key" in err.message
        assert "-AcceptNewHostKey" in err.message and "SHA256:" in err.message
        assert not kh.exists()
        [res] = await cluster.run_all("fresh", "hostname", accept_new_host_key=True)
        assert res.stdout == "node01\n"
        pub = Path(str(n1.host_key) + ".pub").read_text().split()[1]
        assert kh.read_text() == f"[127.0.0.1]:{n1.port} ssh-ed25519 {pub}\n"
    finally:
        await cluster.aclose()
    cluster = Cluster.from_options(opts)  # a new shell: now known, strict check passes
    try:
        [res] = await cluster.run_all("fresh", "true")
        assert isinstance(res, CommandResult)
    finally:
        await cluster.aclose()


async def test_wrong_key_is_an_auth_error(small_cluster: LocalCluster, tmp_path: Path) -> None:
    import subprocess

    key = tmp_path / "other_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    n1 = small_cluster.node("node01")
    opts = _inventory(
        tmp_path,
        small_cluster,
        wrongkey={
            "host": "127.0.0.1",
            "port": n1.port,
            "user": n1.user,
            "identity_file": str(key),
            "known_hosts": str(small_cluster.known_hosts),
        },
    )
    cluster = Cluster.from_options(opts)
    try:
        results = _by_node(await cluster.run_all("wrongkey,node02", "true"))
        err = results["wrongkey"]
        assert err.stage == "auth" and "permission denied" in err.message
        assert str(key) in err.message and "PRIVATE" not in err.message
        assert results["node02"].exit_status == 0
    finally:
        await cluster.aclose()


async def test_handshakes_are_bounded(small_cluster: LocalCluster, tmp_path: Path) -> None:
    """With max_handshakes=2, a 6-node burst never has more than 2 handshakes in flight."""
    active, peak = 0, 0

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        try:
            await reader.read()  # never answer; the client gives up (timeout) and closes
        finally:
            active -= 1
            writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    nodes = {f"mute{i}": {"host": "127.0.0.1", "port": port, "user": f"u{i}"} for i in range(6)}
    cluster = Cluster.from_options(_inventory(tmp_path, small_cluster, **nodes))
    cluster.pool.settings.max_handshakes = 2
    try:
        async with server:
            results = await cluster.run_all("mute[0-5]", "true", connect_timeout=0.3)
        assert [r.stage for r in results] == ["timeout"] * 6
        assert peak == 2
    finally:
        await cluster.aclose()


async def test_encrypted_key_is_an_auth_error_without_secrets(
    small_cluster: LocalCluster, tmp_path: Path
) -> None:
    import subprocess

    key = tmp_path / "locked_key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "s3cret-passphrase", "-f", str(key)], check=True
    )
    n1 = small_cluster.node("node01")
    opts = _inventory(
        tmp_path,
        small_cluster,
        locked={
            "host": "127.0.0.1",
            "port": n1.port,
            "user": n1.user,
            "identity_file": str(key),
            "known_hosts": str(small_cluster.known_hosts),
        },
    )
    cluster = Cluster.from_options(opts)
    try:
        [err] = await cluster.run_all("locked", "true")
        assert err.stage == "auth" and "ssh-agent" in err.message
        assert "s3cret" not in err.message and "PRIVATE" not in err.message
    finally:
        await cluster.aclose()


def _descendants(pid: int) -> list[int]:
    """Pids of every process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


async def test_keepalive_detects_a_hung_connection_and_reconnects(
    small_cluster: LocalCluster,
) -> None:
    import os
    import signal

    cluster = Cluster.from_options(small_cluster.options())
    cluster.pool.settings.keepalive_interval = 0.2
    cluster.pool.settings.keepalive_count_max = 2
    frozen: list[int] = []
    try:
        await cluster.run_all("node01", "true")
        frozen = _descendants(small_cluster.node("node01").sshd_pid)
        assert frozen  # the per-connection sshd processes
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)  # the peer hangs: no FIN, no RST, just silence
        await asyncio.sleep(1.2)
        assert cluster.pool.cached(cluster.resolve("node01")[0]) is None  # keepalive gave up
        [res] = await cluster.run_all("node01", "hostname")
        assert isinstance(res, CommandResult) and res.stdout == "node01\n"
        assert cluster.connects["node01"] == 2
    finally:
        for pid in frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        await cluster.aclose()
