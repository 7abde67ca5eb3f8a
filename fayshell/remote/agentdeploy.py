"""Install the agent bundle on a node and start the agent there, over the node's SSH connection.

On a node everything lives under ``~/.cache/fayshell/agent/`` (relative to the SSH user's home):
``<digest>/`` is one bundle, ``<digest>/store/`` its node-local DuckDB. The steps:

1. *Probe*: the node's Python (``AgentSettings.python``) runs a short program sent by the shell
   (the shell's code, never the bundle's: a tampered bundle cannot vouch for itself). It reports
   the Python version, ABI and machine, and checks ``<digest>/MANIFEST`` against the digest and
   every listed file against its sha256.
2. *Install* when the bundle is missing or does not match: every other bundle (an older fayshell,
   a damaged copy) is removed, the tarball goes over SFTP, the node's Python unpacks it (refusing
   paths outside the bundle), and the probe runs again.
3. *Start*: ``python3 -I -B <digest>/agent.py`` on its own SSH channel; frames on stdin/stdout.

A node without a usable Python gets :class:`AgentUnavailable` naming the node and what is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fayshell.errors import AGENT, RemoteError
from fayshell.remote.agentbundle import Bundle
from fayshell.remote.agentclient import (
    AgentClient,
    LocalAgentProcess,
    SSHAgentProcess,
)
from fayshell.remote.quoting import quote_argv

PROBE = r"""
import hashlib, json, os, platform, sys
root, digest = os.path.join(os.path.expanduser("~"), sys.argv[1]), sys.argv[2]
out = {"python": platform.python_version(), "abi": sys.implementation.cache_tag,
       "arch": platform.machine(), "state": "missing", "detail": "", "others": []}
if os.path.isdir(root):
    out["others"] = sorted(n for n in os.listdir(root) if n != digest)
man = os.path.join(root, digest, "MANIFEST")
if os.path.isfile(man):
    with open(man, "rb") as fh:
        text = fh.read()
    out["state"] = "ok"
    if hashlib.sha256(text).hexdigest()[:len(digest)] != digest:
        out["state"], out["detail"] = "tampered", "MANIFEST does not match the digest"
    for line in text.decode().splitlines():
        if out["state"] != "ok":
            break
        want, size, rel = line.split(" ", 2)
        path = os.path.join(root, digest, rel)
        h = hashlib.sha256()
        try:
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
        except OSError as exc:
            out["state"], out["detail"] = "tampered", rel + ": " + exc.strerror
            break
        if h.hexdigest() != want:
            out["state"], out["detail"] = "tampered", rel + ": content differs"
print(json.dumps(out))
"""

INSTALL = r"""
import os, shutil, sys, tarfile
home = os.path.expanduser("~")
root, digest, tar = (os.path.join(home, sys.argv[1]), sys.argv[2],
                     os.path.join(home, sys.argv[3]))
for name in os.listdir(root):
    path = os.path.join(root, name)
    if path != tar:
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
part = os.path.join(root, digest + ".part")
with tarfile.open(tar) as tf:
    for m in tf.getmembers():
        if not m.isfile() or m.name.startswith("/") or ".." in m.name.split("/"):
            sys.exit("refusing bundle member " + repr(m.name))
    tf.extractall(part)
os.rename(part, os.path.join(root, digest))
os.remove(tar)
"""


@dataclass(frozen=True)
class AgentSettings:
    """How the shell finds Python on nodes and where the agent lives there."""

    python: str = "python3"
    root: str = ".cache/fayshell/agent"  # relative to the SSH user's home
    timeout: float = 120.0  # probe/install commands

    def bundle_dir(self, bundle: Bundle) -> str:
        return f"{self.root}/{bundle.digest}"


class AgentUnavailable(RemoteError):
    """The agent cannot run on a node (no usable Python, incompatible Python, install failed)."""

    def __init__(self, node: str, message: str) -> None:
        super().__init__(node, AGENT, message)


@dataclass(frozen=True)
class Probe:
    """What the probe found on a node."""

    node: str
    python: str
    abi: str
    arch: str
    state: str  # ok, missing, tampered
    detail: str
    others: list[str]


@dataclass(frozen=True)
class AgentInstall:
    """An agent ready to start on a node: its bundle and what the install did."""

    node: str
    python: str
    digest: str
    action: str  # reused, installed, replaced


async def probe(transport: Any, bundle: Bundle, settings: AgentSettings) -> Probe:
    """Run the probe; a missing or broken Python raises AgentUnavailable."""
    node = transport.node
    cmd = quote_argv([settings.python, "-I", "-B", "-c", PROBE, settings.root, bundle.digest])
    res = await transport.run(cmd, timeout=settings.timeout)
    if res.exit_status != 0 or not res.stdout.strip():
        why = (res.stderr.strip().splitlines() or [f"exit status {res.exit_status}"])[-1]
        missing = res.exit_status == 127 or "not found" in why or "No such file" in why
        what = "not found" if missing else "did not run"
        raise AgentUnavailable(
            node,
            f"no usable Python: {settings.python!r} {what} on the "
            f"node ({why}); the agent needs Python "
            f"{bundle.abi}/{bundle.arch}",
        )
    try:
        got = json.loads(res.stdout.strip().splitlines()[-1])
        return Probe(
            node,
            got["python"],
            got["abi"],
            got["arch"],
            got["state"],
            got["detail"],
            list(got["others"]),
        )
    except (ValueError, KeyError, TypeError):
        raise AgentUnavailable(node, f"the agent probe answered {res.stdout[:80]!r}") from None


STATUS = r"""
import json, os, platform, sys
root = os.path.join(os.path.expanduser("~"), sys.argv[1])
found = []
if os.path.isdir(root):
    for name in sorted(os.listdir(root)):
        try:
            with open(os.path.join(root, name, "BUNDLE.json")) as fh:
                meta = json.load(fh)
            found.append([name, str(meta.get("fayshell", "?"))])
        except (OSError, ValueError):
            found.append([name, "?"])
print(json.dumps({"python": platform.python_version(), "abi": sys.implementation.cache_tag,
                  "arch": platform.machine(), "bundles": found}))
"""


@dataclass(frozen=True)
class AgentStatus:
    """What Test-Node says about a node's agent: its Python and the bundles installed."""

    python: str  # "" when the configured interpreter does not run
    abi: str
    arch: str
    bundles: list[tuple[str, str]]  # (digest, fayshell version)
    error: str = ""


async def status(transport: Any, settings: AgentSettings) -> AgentStatus:
    """A cheap look (no hashing): the node's Python and which bundles are there."""
    cmd = quote_argv([settings.python, "-I", "-B", "-c", STATUS, settings.root])
    res = await transport.run(cmd, timeout=settings.timeout)
    if res.exit_status != 0:
        why = (res.stderr.strip().splitlines() or [f"exit status {res.exit_status}"])[-1]
        return AgentStatus("", "", "", [], f"no usable Python ({settings.python!r}: {why})")
    try:
        got = json.loads(res.stdout.strip().splitlines()[-1])
        return AgentStatus(
            got["python"], got["abi"], got["arch"], [(d, v) for d, v in got["bundles"]]
        )
    except (ValueError, KeyError, TypeError):
        return AgentStatus("", "", "", [], f"the agent status probe answered {res.stdout[:80]!r}")


async def ensure_installed(transport: Any, bundle: Bundle, settings: AgentSettings) -> AgentInstall:
    """Probe, install or replace the bundle when needed, and verify it."""
    node = transport.node
    found = await probe(transport, bundle, settings)
    if (found.abi, found.arch) != (bundle.abi, bundle.arch):
        raise AgentUnavailable(
            node,
            f"no usable Python: {settings.python!r} is Python "
            f"{found.python} ({found.abi}/{found.arch}); the agent "
            f"bundle is for {bundle.abi}/{bundle.arch}",
        )
    if found.state == "ok" and not found.others:
        return AgentInstall(node, found.python, bundle.digest, "reused")
    if found.state != "ok":
        await _upload(transport, bundle, settings)
    else:
        await _run_checked(
            transport,
            [settings.python, "-I", "-B", "-c", _CLEAN, settings.root, bundle.digest],
            settings,
            "clean up",
        )
    again = await probe(transport, bundle, settings)
    if again.state != "ok":
        raise AgentUnavailable(
            node, f"the agent bundle is still damaged after install: {again.detail}"
        )
    action = "installed" if found.state == "missing" and not found.others else "replaced"
    return AgentInstall(node, found.python, bundle.digest, action)


_CLEAN = r"""
import os, shutil, sys
root, digest = os.path.join(os.path.expanduser("~"), sys.argv[1]), sys.argv[2]
for name in os.listdir(root):
    path = os.path.join(root, name)
    if name != digest:
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
"""


async def _upload(transport: Any, bundle: Bundle, settings: AgentSettings) -> None:
    tar = f"{settings.root}/{bundle.digest}.tar"
    files = await transport.files()
    await _put(files, str(bundle.tar), tar, settings.root)
    await _run_checked(
        transport,
        [settings.python, "-I", "-B", "-c", INSTALL, settings.root, bundle.digest, tar],
        settings,
        "install",
    )


async def _put(files: Any, local: str, remote: str, root: str) -> None:
    sftp = getattr(files, "sftp", None)
    if sftp is None:  # the local node: plain file copies
        import os
        import shutil

        home = os.path.expanduser("~")
        os.makedirs(os.path.join(home, root), exist_ok=True)
        shutil.copyfile(local, os.path.join(home, remote))
        return
    await sftp.makedirs(root, exist_ok=True)
    await sftp.put(local, remote)


async def _run_checked(transport: Any, argv: list[str], settings: AgentSettings, what: str) -> None:
    res = await transport.run(quote_argv(argv), timeout=settings.timeout)
    if res.exit_status != 0:
        why = (res.stderr.strip().splitlines() or [f"exit status {res.exit_status}"])[-1]
        raise AgentUnavailable(transport.node, f"agent {what} failed: {why}")


def agent_argv(bundle: Bundle, settings: AgentSettings) -> list[str]:
    return [settings.python, "-I", "-B", f"{settings.bundle_dir(bundle)}/agent.py"]


async def start(transport: Any, bundle: Bundle, settings: AgentSettings) -> AgentClient:
    """Start the installed agent on its own channel and say Hello."""
    argv = agent_argv(bundle, settings)
    conn = getattr(transport, "connection", None)
    if conn is None:
        import os

        proc: Any = await LocalAgentProcess.start(
            ["/bin/sh", "-c", "cd && " + quote_argv(argv)], dict(os.environ)
        )
    else:
        proc = SSHAgentProcess(await conn.create_process(quote_argv(argv), encoding=None))
    client = AgentClient(transport.node, proc)
    try:
        await client.hello()
    except BaseException:
        await client.close(timeout=2.0)
        raise
    return client
