"""Node sets, inventory, ssh_config resolution and quoting (no network)."""

from __future__ import annotations

import os
import shlex
import subprocess

import pytest

from fayshell.errors import InventoryError
from fayshell.remote import nodeset
from fayshell.remote.cluster import Cluster
from fayshell.remote.inventory import Inventory, SSHConfig
from fayshell.remote.quoting import UnsafeArgument, command_line, quote_argv
from fayshell.state import Options

HOSTILE = ["; rm -rf /", "$(touch /tmp/x)", "`id`", "a\nb", "ünï ✓", "'", '"', "\\", "*", "-n"]


def test_nodeset_expand_and_fold() -> None:
    groups = {"web": "web[01-16]", "db": "db1,db2"}
    assert nodeset.expand("node[1-9]!node6", groups) == [
        f"node{i}" for i in (1, 2, 3, 4, 5, 7, 8, 9)
    ]
    assert nodeset.expand("@db,a", groups) == ["a", "db1", "db2"]
    assert len(nodeset.expand("@web", groups)) == 16
    assert nodeset.fold(["web01", "web02", "web03", "web07"]) == "web[01-03,07]"
    with pytest.raises(InventoryError, match="unknown node group @nope"):
        nodeset.expand("@nope", groups)
    with pytest.raises(InventoryError):
        nodeset.expand("web[01-", groups)


def test_quote_argv_round_trips_through_a_real_shell() -> None:
    line = quote_argv(["printf", "%s\\n", *HOSTILE])
    out = subprocess.run(["/bin/sh", "-c", line], capture_output=True, text=True, check=True)
    assert out.stdout == "".join(f"{h}\n" for h in HOSTILE)
    assert shlex.split(line)[2:] == HOSTILE
    with pytest.raises(UnsafeArgument):
        quote_argv(["echo", "nul\x00byte"])
    assert command_line("uname -r") == "uname -r"
    with pytest.raises(UnsafeArgument):
        command_line("   ")


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_inventory_and_ssh_config_precedence(tmp_path) -> None:
    cfg = _write(
        tmp_path,
        "ssh_config",
        """
Host web*
    HostName 10.0.0.%h
    User fromcfg
    Port 2200
    IdentityFile /keys/web
    UserKnownHostsFile /kh/web
Host web02
    HostName 10.0.0.2
Host db1
    ProxyJump bastion
Host bastion
    HostName 192.0.2.1
    User jump
""".replace("10.0.0.%h", "10.0.0.99"),
    )
    inv_path = _write(
        tmp_path,
        "inv.toml",
        """
[defaults]
user = "fallback"
port = 2022
[groups]
web = "web[01-03]"
db = ["db1"]
[nodes.web03]
host = "10.9.9.3"
port = 22
groups = ["canary"]
""",
    )
    inv = Inventory.load(inv_path, SSHConfig.from_option(cfg))
    assert inv.all_names() == ["db1", "web01", "web02", "web03"]
    assert inv.expand("@canary") == ["web03"]
    w1, w2, w3 = (inv.resolve(n) for n in ("web01", "web02", "web03"))
    assert (w1.host, w1.port, w1.user, w1.identity_files) == (
        "10.0.0.99",
        2200,
        "fromcfg",
        ("/keys/web",),
    )
    assert w1.known_hosts == ("/kh/web",)
    assert w2.host == "10.0.0.99"  # first matching HostName wins, as in OpenSSH
    assert (w3.host, w3.port, w3.user) == ("10.9.9.3", 22, "fromcfg")
    db1 = inv.resolve("db1")
    assert db1.port == 2022 and db1.user == "fallback"
    assert db1.jump is not None and (db1.jump.host, db1.jump.user) == ("192.0.2.1", "jump")
    # a name no inventory lists resolves through ssh_config like `ssh NAME`
    other = inv.resolve("bastion")
    assert (other.host, other.source) == ("192.0.2.1", "ssh_config")


def test_inventory_edit_and_save_round_trip(tmp_path) -> None:
    inv = Inventory(ssh_config=SSHConfig([]))
    inv.add_node("web01", host="10.0.0.1", port=2222, groups=["web"])
    inv.add_node("web02", groups=["web", "canary"])
    path = inv.save(str(tmp_path / "inv.toml"))
    again = Inventory.load(path, SSHConfig([]))
    assert again.expand("@web") == ["web01", "web02"] and again.expand("@canary") == ["web02"]
    assert again.resolve("web01").port == 2222
    assert again.remove_node("web01") and again.expand("@web") == ["web02"]
    with pytest.raises(InventoryError):
        inv.add_node("bad;name")
    with pytest.raises(InventoryError):
        Inventory.load(_write(tmp_path, "bad.toml", "[nodes.x]\nhostname='a'\n"), SSHConfig([]))


@pytest.mark.parametrize(
    "name", ["a;rm -rf /", "$(touch /tmp/x)", "`id`", "a\nb", "nœud", "-oProxyCommand=x"]
)
def test_hostile_node_names_are_refused(name: str, tmp_path) -> None:
    cluster = Cluster.from_options(Options(ssh_config=_write(tmp_path, "cfg", "")))
    with pytest.raises(InventoryError):
        cluster.resolve(name)


def test_localhost_is_the_embedded_default(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    cluster = Cluster.from_options(Options(ssh_config=_write(tmp_path, "cfg", "")))
    [spec] = cluster.resolve(None)
    assert spec.name == "localhost" and spec.local


async def test_local_transport_runs_without_sshd(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    cluster = Cluster.from_options(Options(ssh_config=_write(tmp_path, "cfg", "")))
    [res] = await cluster.run_all("localhost", ["printf", "%s|", *HOSTILE])
    assert res.exit_status == 0 and res.stdout == "".join(f"{h}|" for h in HOSTILE)
    [res] = await cluster.run_all("localhost", "echo out; echo err >&2; exit 4")
    assert (res.exit_status, res.stdout, res.stderr) == (4, "out\n", "err\n")
    [err] = await cluster.run_all("localhost", "sleep 5", timeout=0.2)
    assert err.stage == "timeout"
    (tmp_path / "f.txt").write_text("hello")
    files = await cluster.files("localhost")
    assert await files.read_bytes(str(tmp_path / "f.txt")) == b"hello"
    await cluster.aclose()


def test_ssh_config_reader_agrees_with_asyncssh(tmp_path) -> None:
    inc = _write(tmp_path, "extra.conf", "Host db*\n  User=dbuser\n  Port = 2201\n")
    cfg = _write(
        tmp_path,
        "ssh_config",
        f"""
# comment
Include {inc}
Host web* !web13
    HostName %h.example.test
    IdentityFile ~/.ssh/id_%r_%h
    IdentityFile /keys/second
Host web13
    HostName 192.0.2.13
    UserKnownHostsFile /kh/a /kh/b
Host *
    User everyone
    Port 2222
    ServerAliveInterval 5
    ConnectTimeout 3
    IdentitiesOnly yes
""",
    )
    mine = SSHConfig([cfg])

    def norm(opts: dict) -> dict:  # asyncssh leaves ~ for later; fayshell expands it at once
        return {
            k: [os.path.expanduser(p) for p in v] if isinstance(v, list) else v
            for k, v in opts.items()
        }

    for name in ("web01", "web13", "db1", "other"):
        assert norm(mine.lookup(name)) == norm(mine._asyncssh_lookup(name)), name
    assert mine.lookup("web01")["Hostname"] == "web01.example.test"
    assert mine.lookup("db1")["User"] == "dbuser"


def test_completion_sources(tmp_path) -> None:
    cfg = _write(tmp_path, "cfg", "Host alpha beta\n  Port 1\nHost web* !web3\n  User x\n")
    inv = _write(tmp_path, "inv.toml", '[groups]\nweb = "web[1-2]"\n')
    cluster = Cluster.from_options(Options(inventory=inv, ssh_config=cfg))
    assert cluster.node_names() == ["web1", "web2", "alpha", "beta"]
    assert cluster.group_names() == ["all", "web"]
