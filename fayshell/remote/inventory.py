"""Where nodes are and how to reach them: the inventory TOML plus OpenSSH client config.

Inventory file (``--inventory FILE``, else ``$XDG_CONFIG_HOME/fayshell/inventory.toml``)::

    [defaults]                 # fallbacks, used when ssh_config says nothing
    user = "trace"
    identity_file = "~/.ssh/id_ed25519"

    [groups]                   # a node-set expression or a list of them
    web = "web[01-16]"
    db = ["db1", "db2"]

    [nodes.web03]              # per-node overrides (win over ssh_config)
    host = "10.0.0.13"
    port = 2222
    groups = ["canary"]

Per-node keys (also valid in ``[defaults]``): ``host``, ``port``, ``user``, ``identity_file``
(str or list), ``known_hosts`` (str or list), ``proxy_jump``. A name resolves as ``ssh NAME``
would through the ssh_config (``--ssh-config``, default ``~/.ssh/config``): HostName, Port, User,
IdentityFile, IdentitiesOnly, UserKnownHostsFile, GlobalKnownHostsFile, ProxyJump, ConnectTimeout,
ServerAliveInterval. Precedence: inventory node entry > ssh_config > inventory defaults > OpenSSH
defaults. ``localhost`` (unless the inventory lists it) is the local transport: no SSH at all.
"""

from __future__ import annotations

import getpass
import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fayshell.errors import InventoryError
from fayshell.remote import nodeset
from fayshell.remote.quoting import UnsafeArgument, check_node_name
from fayshell.remote.sshconfig import SSHConfigFile

LOCAL_NAMES = ("localhost",)
NODE_KEYS = ("host", "port", "user", "identity_file", "known_hosts", "proxy_jump", "groups")
DEFAULT_KNOWN_HOSTS = ("~/.ssh/known_hosts", "~/.ssh/known_hosts2")
DEFAULT_GLOBAL_KNOWN_HOSTS = ("/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2")


@dataclass(frozen=True)
class NodeSpec:
    """Everything needed to reach one node. ``jump`` is the previous ProxyJump hop, if any."""

    name: str
    host: str
    port: int = 22
    user: str = ""
    identity_files: tuple[str, ...] = ()
    identities_only: bool = False
    known_hosts: tuple[str, ...] = DEFAULT_KNOWN_HOSTS
    global_known_hosts: tuple[str, ...] = DEFAULT_GLOBAL_KNOWN_HOSTS
    jump: NodeSpec | None = None
    connect_timeout: float | None = None
    keepalive_interval: float | None = None
    local: bool = False
    source: str = "ssh_config"

    @property
    def key(self) -> tuple[Any, ...]:
        """Identity of the connection this spec opens (nodes sharing a bastion share it)."""
        return (self.local, self.user, self.host, self.port, self.jump.key if self.jump else None)

    @property
    def address(self) -> str:
        """``user@host:port`` (and ``via`` the jump host), for messages."""
        if self.local:
            return "local"
        via = f" via {self.jump.address}" if self.jump else ""
        return f"{self.user}@{self.host}:{self.port}{via}"


def _as_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


def _expand(path: str) -> str:
    return os.path.expanduser(path)


class SSHConfig:
    """OpenSSH client config files, read once, looked up per host name (see sshconfig.py)."""

    OPTIONS = (
        "Hostname",
        "Port",
        "User",
        "IdentityFile",
        "IdentitiesOnly",
        "UserKnownHostsFile",
        "GlobalKnownHostsFile",
        "ProxyJump",
        "ConnectTimeout",
        "ServerAliveInterval",
    )

    def __init__(self, paths: list[str]) -> None:
        self.paths = [p for p in paths if os.path.exists(p)]
        self._file: SSHConfigFile | None = None

    @classmethod
    def from_option(cls, path: str | None) -> SSHConfig:
        if path is not None:
            if not os.path.exists(path):
                raise InventoryError(f"ssh config {path} does not exist")
            return cls([path])
        return cls([_expand("~/.ssh/config")])

    def lookup(self, name: str) -> dict[str, Any]:
        """The options ssh_config sets for ``ssh NAME`` (only the ones fayshell honours)."""
        if not self.paths:
            return {}
        if self._file is None:
            self._file = SSHConfigFile(self.paths)
        if not self._file.has_match:
            return self._file.lookup(name)
        return self._asyncssh_lookup(name)

    def host_aliases(self) -> list[str]:
        """Plain names in ``Host`` lines (no wildcards or negations), in file order."""
        if not self.paths:
            return []
        if self._file is None:
            self._file = SSHConfigFile(self.paths)
        found: dict[str, None] = {}
        for key, args, _, _ in self._file.tokens:
            if key == "host":
                found.update(
                    (a, None)
                    for arg in args
                    for a in arg.split(",")
                    if not any(c in a for c in "*?!")
                )
        return list(found)

    def _asyncssh_lookup(self, name: str) -> dict[str, Any]:
        """asyncssh's parser (slower: it re-reads the files), for configs with ``Match``."""
        from asyncssh.config import SSHClientConfig

        try:
            cfg = SSHClientConfig.load(
                None, self.paths, False, False, False, getpass.getuser(), (), name, ()
            )
        except (OSError, ValueError) as exc:
            raise InventoryError(f"ssh config {', '.join(self.paths)}: {exc}") from None
        return {k: cfg.get(k) for k in self.OPTIONS if cfg.get(k) is not None}


@dataclass
class Inventory:
    """Nodes and groups known to the shell; resolves names to :class:`NodeSpec`."""

    ssh_config: SSHConfig = field(default_factory=lambda: SSHConfig([]))
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    _specs: dict[str, NodeSpec] = field(default_factory=dict, repr=False)
    _names: list[str] | None = field(default=None, repr=False)

    # -- loading ---------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | None, ssh_config: SSHConfig) -> Inventory:
        """Read an inventory file (``None``: the XDG default if it exists, else empty)."""
        if path is None:
            base = os.environ.get("XDG_CONFIG_HOME") or _expand("~/.config")
            default = Path(base) / "fayshell" / "inventory.toml"
            if not default.exists():
                return cls(ssh_config=ssh_config)
            path = str(default)
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError:
            raise InventoryError(f"inventory {path} does not exist") from None
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise InventoryError(f"inventory {path}: {exc}") from None
        inv = cls(ssh_config=ssh_config, path=path)
        inv._read(data)
        return inv

    def _read(self, data: dict[str, Any]) -> None:
        unknown = set(data) - {"defaults", "groups", "nodes"}
        if unknown:
            raise InventoryError(f"inventory {self.path}: unknown section(s) {sorted(unknown)}")
        self.defaults = self._check_entry("defaults", data.get("defaults", {}))
        for name, entry in data.get("nodes", {}).items():
            self.add_node(name, **self._check_entry(name, entry))
        for group, members in data.get("groups", {}).items():
            self.set_group(group, list(_as_tuple(members)))

    def _check_entry(self, where: str, entry: Any) -> dict[str, Any]:
        if not isinstance(entry, dict):
            raise InventoryError(f"inventory {self.path}: [{where}] must be a table")
        bad = set(entry) - set(NODE_KEYS)
        if bad:
            raise InventoryError(f"inventory {self.path}: [{where}]: unknown key(s) {sorted(bad)}")
        return dict(entry)

    # -- editing ---------------------------------------------------------------------------

    def add_node(self, name: str, **entry: Any) -> None:
        """Add or update a node entry (keys from ``NODE_KEYS``; ``groups`` adds memberships)."""
        try:
            check_node_name(name)
        except UnsafeArgument as exc:
            raise InventoryError(exc.message) from None
        self._changed()
        groups = _as_tuple(entry.pop("groups", None))
        current = self.nodes.setdefault(name, {})
        current.update({k: v for k, v in entry.items() if v is not None})
        for group in groups:
            members = self.groups.setdefault(group, [])
            if name not in self.expand_group(group):
                members.append(name)

    def remove_node(self, name: str) -> bool:
        """Forget a node (its entry and its group memberships). True if it was known."""
        known = name in self.all_names()
        self._changed()
        self.nodes.pop(name, None)
        for group in list(self.groups):
            names = [n for n in self.expand_group(group) if n != name]
            self.groups[group] = [nodeset.fold(names)] if names else []
        return known

    def set_group(self, group: str, members: list[str]) -> None:
        self._changed()
        self.groups[group] = list(members)
        for name in self.expand_group(group):
            check_node_name(name)

    def _changed(self) -> None:
        self._specs.clear()
        self._names = None

    def to_toml(self) -> str:
        """The inventory as TOML text (what :meth:`save` writes)."""
        out = ["# fayshell inventory"]
        if self.defaults:
            out += ["[defaults]", *(_toml_kv(k, v) for k, v in self.defaults.items()), ""]
        if self.groups:
            out += ["[groups]", *(_toml_kv(g, m) for g, m in self.groups.items()), ""]
        for name, entry in self.nodes.items():
            out += [f"[nodes.{_toml_str(name)}]", *(_toml_kv(k, v) for k, v in entry.items()), ""]
        return "\n".join(out) + "\n"

    def save(self, path: str | None = None) -> str:
        """Write the inventory to ``path`` (default: the file it was loaded from, else XDG)."""
        target = (
            path
            or self.path
            or str(
                Path(os.environ.get("XDG_CONFIG_HOME") or _expand("~/.config"))
                / "fayshell"
                / "inventory.toml"
            )
        )
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        tmp = f"{target}.tmp"
        Path(tmp).write_text(self.to_toml())
        os.replace(tmp, target)
        self.path = target
        return target

    # -- queries ---------------------------------------------------------------------------

    def group_exprs(self) -> dict[str, str]:
        """Group name -> node-set expression (``all`` = every inventory node unless defined)."""
        exprs = {g: ",".join(m) for g, m in self.groups.items()}
        if "all" not in exprs:
            exprs["all"] = ",".join(
                list(self.nodes) + [",".join(m) for m in self.groups.values() if m]
            )
        return exprs

    def expand_group(self, group: str) -> list[str]:
        members = self.groups.get(group, [])
        return nodeset.expand(",".join(members), {}) if members else []

    def all_names(self) -> list[str]:
        """Every node the inventory lists (entries and group members), sorted."""
        if self._names is None:
            expr = self.group_exprs()["all"]
            self._names = nodeset.expand(expr, {}) if expr else []
        return self._names

    def groups_of(self, name: str) -> list[str]:
        return sorted(g for g in self.groups if name in self.expand_group(g))

    def expand(self, expr: str | list[str]) -> list[str]:
        """Node names of a node-set expression, with ``@group`` from this inventory."""
        names = nodeset.expand(expr, self.group_exprs())
        for name in names:
            try:
                check_node_name(name)
            except UnsafeArgument as exc:
                raise InventoryError(exc.message) from None
        return names

    # -- resolution ------------------------------------------------------------------------

    def resolve(self, name: str) -> NodeSpec:
        """How to reach ``name``: see the module docstring for precedence."""
        cached = self._specs.get(name)
        if cached is None:
            cached = self._specs[name] = self._resolve(name)
        return cached

    def _resolve(self, name: str) -> NodeSpec:
        try:
            check_node_name(name)
        except UnsafeArgument as exc:
            raise InventoryError(exc.message) from None
        entry = self.nodes.get(name, {})
        if name in LOCAL_NAMES and not entry:
            return NodeSpec(name=name, host=name, local=True, source="local")
        cfg = self.ssh_config.lookup(name)
        d = self.defaults
        source = "inventory" if name in self.all_names() else "ssh_config"
        spec = NodeSpec(
            name=name,
            host=str(entry.get("host") or cfg.get("Hostname") or d.get("host") or name),
            port=int(entry.get("port") or cfg.get("Port") or d.get("port") or 22),
            user=str(entry.get("user") or cfg.get("User") or d.get("user") or getpass.getuser()),
            identity_files=tuple(
                _expand(p)
                for p in (
                    _as_tuple(entry.get("identity_file"))
                    or _as_tuple(cfg.get("IdentityFile"))
                    or _as_tuple(d.get("identity_file"))
                )
            ),
            identities_only=bool(cfg.get("IdentitiesOnly", False)),
            known_hosts=tuple(
                _expand(p)
                for p in (
                    _as_tuple(entry.get("known_hosts"))
                    or _as_tuple(cfg.get("UserKnownHostsFile"))
                    or _as_tuple(d.get("known_hosts"))
                    or DEFAULT_KNOWN_HOSTS
                )
            ),
            global_known_hosts=_as_tuple(cfg.get("GlobalKnownHostsFile"))
            or DEFAULT_GLOBAL_KNOWN_HOSTS,
            connect_timeout=cfg.get("ConnectTimeout"),
            keepalive_interval=cfg.get("ServerAliveInterval"),
            source=source,
        )
        jump = entry.get("proxy_jump") or cfg.get("ProxyJump") or d.get("proxy_jump")
        if jump and str(jump).lower() != "none":
            spec = replace(spec, jump=self._resolve_jumps(str(jump), name))
        return spec

    def _resolve_jumps(self, hops: str, target: str) -> NodeSpec:
        """ProxyJump ``a,b,c``: ``c`` is reached through ``b``, ``b`` through ``a``."""
        prev: NodeSpec | None = None
        for hop in hops.split(","):
            user, host, port = _parse_hop(hop.strip())
            if host == target:
                raise InventoryError(f"{target}: ProxyJump loops back to itself")
            spec = self.resolve(host) if prev is None else replace(self.resolve(host), jump=prev)
            spec = replace(
                spec, user=user or spec.user, port=port or spec.port, name=f"{host}(jump)"
            )
            prev = spec
        assert prev is not None
        return prev


def _toml_str(value: str) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _toml_kv(key: str, value: Any) -> str:
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, list | tuple):
        text = "[" + ", ".join(_toml_str(str(v)) for v in value) + "]"
    else:
        text = _toml_str(str(value))
    return f"{_toml_str(key)} = {text}"


def _parse_hop(hop: str) -> tuple[str, str, int]:
    """``[user@]host[:port]`` (or ``ssh://[user@]host[:port]``) -> (user, host, port or 0)."""
    hop = hop.removeprefix("ssh://")
    user, _, hostport = hop.rpartition("@")
    host, _, port = hostport.partition(":")
    try:
        check_node_name(host)
        return user, host, int(port) if port else 0
    except (UnsafeArgument, ValueError):
        raise InventoryError(f"bad ProxyJump hop {hop!r}") from None
