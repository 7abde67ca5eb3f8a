"""Node inventory cmdlets: Get-Node, Add-Node, Remove-Node, Test-Node.

The inventory is the session's (``--inventory``/``--ssh-config``); Add-Node and Remove-Node
change it for the session, and ``-Save`` writes it back to the inventory file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.commands.remote import (
    ACCEPT_PARAM,
    CONNECT_TIMEOUT_PARAM,
    NODE_PARAM,
    PROGRESS_MIN_NODES,
    THROTTLE_PARAM,
    TIMEOUT_PARAM,
    node_specs,
    seconds,
    throttle,
)
from fayshell.commands.store import agent_hub
from fayshell.errors import FayError
from fayshell.remote.readiness import NodeReadiness
from fayshell.remote.results import NodeError


@dataclass(frozen=True)
class NodeInfo:
    """One node as the shell would reach it. ``source``: inventory, ssh_config or local."""

    node: str
    host: str
    port: int | None
    user: str
    groups: str
    source: str
    via: str = ""
    connected: bool = False


def _info(ctx: Invocation, spec: Any) -> NodeInfo:
    cluster = ctx.state.cluster
    return NodeInfo(
        node=spec.name,
        host="" if spec.local else spec.host,
        port=None if spec.local else spec.port,
        user="" if spec.local else spec.user,
        groups=",".join(cluster.inventory.groups_of(spec.name)),
        source=spec.source,
        via=spec.jump.address if spec.jump else "",
        connected=cluster.pool.cached(spec) is not None,
    )


def _names(ctx: Invocation, name: Any) -> list[str]:
    try:
        return ctx.state.cluster.names(name)
    except FayError as exc:
        raise ctx.fail(exc.message) from None


@cmdlet(
    "Get-Node",
    synopsis="List nodes and how they are reached (inventory + ssh_config).",
    params=[
        Param(
            "Name",
            "any",
            position=0,
            complete="nodes",
            help="Node set; names outside the inventory resolve through ssh_config.",
        ),
        Param("Group", str, complete="groups", help="Only the nodes of this group."),
    ],
    examples=[
        ("$web = Get-Node 'web[01-16]'", "Keep a node set to pass to -Node later."),
        ("Get-Node -Group db", "The nodes of the @db group."),
    ],
)
async def get_node(
    ctx: Invocation,
    *,
    name: Any = None,
    group: str | None = None,
) -> AsyncIterator[NodeInfo]:
    cluster = ctx.state.cluster
    names = _names(ctx, name) if name is not None else None
    if group is not None:
        members = _names(ctx, f"@{group.lstrip('@')}")
        names = members if names is None else [n for n in names if n in set(members)]
    for spec in cluster.resolve(names):
        yield _info(ctx, spec)


@cmdlet(
    "Add-Node",
    synopsis="Add nodes to the session's inventory (and with -Save, to the file).",
    params=[
        Param("Name", str, position=0, mandatory=True, help="Node set to add: web[01-04]."),
        Param("HostName", str, help="Address to connect to (default: ssh_config / the name)."),
        Param("Port", int, help="SSH port."),
        Param("User", str, help="Remote user."),
        Param("IdentityFile", str, help="Private key file."),
        Param("ProxyJump", str, help="Jump host(s): [user@]host[:port][,...]."),
        Param("Group", "strings", complete="groups", help="Groups the nodes join."),
        Param("Save", bool, help="Write the inventory file too."),
    ],
    examples=[
        (
            "Add-Node 'web[01-04]' -Group web -User trace -Save",
            "Four nodes in @web, reached as user trace, saved to the inventory.",
        )
    ],
)
async def add_node(
    ctx: Invocation,
    *,
    name: str,
    host_name: str | None = None,
    port: int | None = None,
    user: str | None = None,
    identity_file: str | None = None,
    proxy_jump: str | None = None,
    group: list[str] | None = None,
    save: bool = False,
) -> AsyncIterator[NodeInfo]:
    cluster = ctx.state.cluster
    names = _names(ctx, name)
    if host_name is not None and len(names) > 1:
        raise ctx.fail("-HostName needs a single node")
    try:
        for n in names:
            cluster.inventory.add_node(
                n,
                host=host_name,
                port=port,
                user=user,
                identity_file=identity_file,
                proxy_jump=proxy_jump,
                groups=group or [],
            )
        if save:
            ctx.write_verbose(f"inventory saved to {cluster.inventory.save()}")
    except (FayError, OSError) as exc:
        raise ctx.fail(getattr(exc, "message", str(exc))) from None
    for spec in cluster.resolve(names):
        yield _info(ctx, spec)


@cmdlet(
    "Remove-Node",
    synopsis="Remove nodes from the session's inventory (and with -Save, from the file).",
    params=[
        Param(
            "Name",
            "any",
            position=0,
            mandatory=True,
            complete="nodes",
            aliases=("Node",),
            pipeline="value",
            help="Node set, or Get-Node records piped in.",
        ),
        Param("Save", bool, help="Write the inventory file too."),
    ],
    examples=[
        ("Remove-Node web03 -Save", "Forget web03 and save the inventory."),
        ("Get-Node -Group canary | Remove-Node", "Forget every node of @canary."),
    ],
)
async def remove_node(ctx: Invocation, *, name: Any, save: bool = False) -> None:
    cluster = ctx.state.cluster
    for n in _names(ctx, name if not hasattr(name, "node") else name.node):
        spec = cluster.inventory.resolve(n)
        if cluster.inventory.remove_node(n):
            cluster.pool.drop(spec)
        else:
            ctx.write_error(ErrorRecord(n, "inventory", "not in the inventory"))
    if save:
        try:
            ctx.write_verbose(f"inventory saved to {cluster.inventory.save()}")
        except OSError as exc:
            raise ctx.fail(str(exc)) from None


@dataclass(frozen=True)
class NodeCheck(NodeReadiness):
    """Test-Node's record: readiness plus the fayshell agent (``agent``: current, outdated,
    absent, or the digest when this shell has no bundle; ``agent_python``: the version of the
    node's Python the agent would run on, empty when there is none)."""

    agent: str = ""
    agent_python: str = ""


async def _check(t: Any, limit: float | None, hub: Any) -> NodeCheck:
    from fayshell.remote.agentbundle import Bundle, BundleError
    from fayshell.remote.agentdeploy import status
    from fayshell.remote.readiness import probe

    ready = await probe(t, limit)
    st = await status(t, hub.settings.deploy)
    try:
        digest = Bundle.load(hub.settings.bundle_root).digest
    except BundleError:
        digest = ""
    installed = [d for d, _ in st.bundles]
    if st.error:
        agent = st.error
    elif not installed:
        agent = "absent"
    elif digest:
        agent = "current" if installed == [digest] else "outdated"
    else:
        agent = ",".join(installed)
    return NodeCheck(**dataclasses.asdict(ready), agent=agent, agent_python=st.python)


@cmdlet(
    "Test-Node",
    synopsis="Check nodes for tracing: reachable, round trip, kernel, LTTng, sessiond, agents.",
    description="One readiness record per node. An unreachable node is a record with "
    "reachable=False and the reason in 'error' (not an error of the command). "
    "'agent' tells whether the fayshell node agent (for -OnNode queries) is "
    "installed and current, 'agent_python' the node Python it runs on.",
    params=[
        dataclasses.replace(NODE_PARAM, position=0),
        TIMEOUT_PARAM,
        CONNECT_TIMEOUT_PARAM,
        ACCEPT_PARAM,
        THROTTLE_PARAM,
    ],
    examples=[
        (
            "Test-Node @web | Where-Object { -not $_.sessiond }",
            "Web nodes whose lttng-sessiond is not running.",
        )
    ],
    stream=True,
)
async def test_node(
    ctx: Invocation,
    *,
    node: Any = None,
    timeout: int | None = None,
    connect_timeout: int | None = None,
    accept_new_host_key: bool = False,
    throttle_limit: int | None = None,
) -> AsyncIterator[NodeReadiness]:
    cluster = ctx.state.cluster
    specs = node_specs(ctx, node)
    throttle(ctx, throttle_limit)
    limit = seconds(timeout)
    task = (
        ctx.progress(f"Test-Node on {cluster.fold(s.name for s in specs)}", len(specs), "nodes")
        if len(specs) >= PROGRESS_MIN_NODES
        else None
    )
    try:
        hub = agent_hub(ctx.state)
        async for rec in cluster.map(
            specs,
            lambda t: _check(t, limit, hub),
            timeout=limit,
            connect_timeout=seconds(connect_timeout),
            accept_new_host_key=accept_new_host_key,
        ):
            if task is not None:
                task.advance()
            if isinstance(rec, NodeError):
                yield NodeCheck(rec.node, False, error=f"{rec.stage}: {rec.message}")
            else:
                yield rec.value
    finally:
        if task is not None:
            task.close()
