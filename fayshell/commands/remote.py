"""Invoke-Command: run a command on many nodes at once over the session's SSH pool.

Failed nodes (connect, auth, hostkey, command, timeout) are reported as non-terminating
errors, one per node; in scripts they stop the script unless ``-ErrorAction Continue``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.errors import FayError
from fayshell.lang.streams import unroll
from fayshell.remote.results import CommandResult, GatheredResult, NodeError, OutputLine

if TYPE_CHECKING:
    from fayshell.remote.cluster import Cluster
    from fayshell.remote.inventory import NodeSpec

#: Show a progress bar from this many nodes on.
PROGRESS_MIN_NODES = 8

NODE_PARAM = Param(
    "Node",
    "any",
    complete="nodes",
    aliases=("ComputerName",),
    help="Node set (web[01-16], @group, a,b!c), names, or Get-Node records; "
    "default: every inventory node, else localhost.",
)
TIMEOUT_PARAM = Param("Timeout", "duration", help="Per-node command time limit.")
CONNECT_TIMEOUT_PARAM = Param(
    "ConnectTimeout", "duration", help="Per-node SSH handshake time limit (default 10s)."
)
THROTTLE_PARAM = Param(
    "ThrottleLimit", int, help="Most SSH handshakes at once (default 64; sshd's MaxStartups)."
)
ACCEPT_PARAM = Param(
    "AcceptNewHostKey",
    bool,
    help="Trust and record host keys not yet in known_hosts (never a changed one).",
)


def seconds(value: int | None) -> float | None:
    """A Duration (int nanoseconds) as seconds, None stays None."""
    return None if value is None else int(value) / 1e9


def node_specs(ctx: Invocation, node: Any) -> list[NodeSpec]:
    """The nodes a cmdlet works on: ``-Node``, else node records/names piped in, else default."""
    cluster = ctx.state.cluster
    if node is None and ctx.input is not None:
        items = ctx.input if isinstance(ctx.input, list) else list(ctx.input)
        node = items or None
    try:
        return cluster.resolve(node)
    except FayError as exc:
        raise ctx.fail(exc.message) from None


def throttle(ctx: Invocation, limit: int | None) -> None:
    """Apply ``-ThrottleLimit`` to the session's pool (it stays for later commands)."""
    if limit is not None:
        if limit < 1:
            raise ctx.fail("-ThrottleLimit must be at least 1")
        ctx.state.cluster.pool.settings.max_handshakes = limit


def report(ctx: Invocation, err: NodeError) -> None:
    ctx.write_error(ErrorRecord(err.node, err.stage, err.message))


async def script_commands(
    ctx: Invocation, block: Any, specs: list[NodeSpec], args: list[Any]
) -> dict[str, Any]:
    """Per-node command from a script block run with ``$_`` = node name (and ``args``): one
    string is a command line; several values are an argv, each element quoted."""
    commands: dict[str, Any] = {}
    for spec in specs:
        made = await block.invoke(*(args or [spec.name]), dollar_under=spec.name)
        out = [v for v in _flatten(made) if v is not None]
        if not out:
            raise ctx.fail(f"the script block produced no command for {spec.name}")
        commands[spec.name] = str(out[0]) if len(out) == 1 else [str(v) for v in out]
    return commands


def _flatten(values: list[Any]) -> list[Any]:
    flat: list[Any] = []
    for v in values:
        flat.extend(_flatten(list(v)) if isinstance(v, list | tuple) else [v])
    return flat


def fold_results(results: list[CommandResult]) -> list[GatheredResult]:
    """Fold nodes with identical (exit status, stdout, stderr) into one record each."""
    from fayshell.remote.nodeset import fold

    groups: dict[tuple[int, str, str], list[str]] = {}
    for r in results:
        groups.setdefault((r.exit_status, r.stdout, r.stderr), []).append(r.node)
    out = [
        GatheredResult(fold(nodes), len(nodes), status, stdout, stderr)
        for (status, stdout, stderr), nodes in groups.items()
    ]
    return sorted(out, key=lambda g: (-g.count, g.nodes))


@cmdlet(
    "Invoke-Command",
    aliases=("icm",),
    synopsis="Run a command on many nodes at once; one result per node.",
    description="Runs concurrently on every node over persistent SSH connections (localhost "
    "runs locally). -Command is a shell command line run as typed (an array is an "
    "argv whose elements are quoted); with -Node (or nodes piped in) -ScriptBlock "
    "computes it per node ($_ is the node name, -ArgumentList its arguments; several values "
    "form an argv whose elements are quoted). Without a node, a script block runs here, in "
    "the shell, as PowerShell runs Invoke-Command without -ComputerName. A non-zero exit "
    "status is a result; unreachable nodes are errors.",
    params=[
        NODE_PARAM,
        Param("Command", "any", position=0, help="The remote command line (or a script block)."),
        Param("ScriptBlock", "scriptblock", help="A block producing the command, per node."),
        Param("Gather", bool, help="Fold identical outputs into node sets (like clush -b)."),
        Param(
            "Stream",
            bool,
            help="Show output lines as they arrive, prefixed by node "
            "(written to the host; no records are output).",
        ),
        TIMEOUT_PARAM,
        CONNECT_TIMEOUT_PARAM,
        ACCEPT_PARAM,
        THROTTLE_PARAM,
        Param("InputText", str, help="Text sent to the command's standard input."),
        Param(
            "ArgumentList",
            "any",
            aliases=("Args",),
            help="The script block's arguments ($args, or its param block).",
        ),
    ],
    examples=[
        (
            "Invoke-Command -Node 'web[01-16]' -Command 'uname -r' -Gather",
            "Kernel releases across the web nodes, identical answers folded together.",
        ),
        (
            "Invoke-Command -Node @db -ScriptBlock { 'du', '-sh', \"/var/log/$_\" }",
            "An argv computed per node; every element is quoted for the remote shell.",
        ),
        (
            "Get-Node -Group web | Invoke-Command 'lttng list' -Timeout 5s",
            "Nodes from the pipeline, 5 s limit per node.",
        ),
        (
            "Invoke-Command -ScriptBlock { param($n) $n * 2 } -ArgumentList 21",
            "No node: the block runs in the shell (42), as in PowerShell.",
        ),
    ],
    stream=True,
)
async def invoke_command(
    ctx: Invocation,
    *,
    node: Any = None,
    command: Any = None,
    script_block: Any = None,
    gather: bool = False,
    stream: bool = False,
    timeout: int | None = None,
    connect_timeout: int | None = None,
    accept_new_host_key: bool = False,
    throttle_limit: int | None = None,
    input_text: str | None = None,
    argument_list: Any = None,
) -> AsyncIterator[Any]:
    from fayshell.lang.values import ScriptBlock

    if isinstance(command, ScriptBlock):
        command, script_block = None, command
    if (command is None) == (script_block is None):
        raise ctx.fail("give exactly one of -Command or -ScriptBlock")
    args = [] if argument_list is None else list(unroll(argument_list))
    if script_block is not None and node is None and ctx.input is None:
        for value in await script_block.invoke(*args):  # no node: PowerShell's local run
            yield value
        return
    specs = node_specs(ctx, node)
    throttle(ctx, throttle_limit)
    cmd: Any = (
        await script_commands(ctx, script_block, specs, args)
        if script_block is not None
        else command
        if isinstance(command, list)
        else str(command)
    )
    cluster = ctx.state.cluster
    kw: dict[str, Any] = dict(
        timeout=seconds(timeout),
        connect_timeout=seconds(connect_timeout),
        accept_new_host_key=accept_new_host_key,
    )
    try:
        records = (
            cluster.stream(specs, cmd, **kw)
            if stream
            else cluster.run(specs, cmd, input=input_text, **kw)
        )
    except FayError as exc:
        raise ctx.fail(exc.message) from None
    collected: list[CommandResult] = []
    statuses: list[int] = []
    async for rec in _with_progress(ctx, cluster, specs, records):
        if isinstance(rec, CommandResult):
            statuses.append(rec.exit_status)
        if isinstance(rec, NodeError):
            report(ctx, rec)
        elif isinstance(rec, OutputLine):
            ctx.state.host.write_host(str(rec), color="red" if rec.stream == "stderr" else None)
        elif stream:
            if rec.exit_status != 0:
                ctx.write_warning(f"{rec.node}: exit status {rec.exit_status}{_sig(rec)}")
        elif gather:
            collected.append(rec)
        else:
            yield rec
    for g in fold_results(collected) if gather else []:
        yield g
    if len(statuses) == 1:  # one node: like a native command, its status is $LASTEXITCODE
        ctx.state.globals.set_local("LASTEXITCODE", statuses[0])


def _sig(rec: CommandResult) -> str:
    return f" (signal {rec.signal})" if rec.signal else ""


async def _with_progress(
    ctx: Invocation, cluster: Cluster, specs: list[NodeSpec], records: AsyncIterator[Any]
) -> AsyncIterator[Any]:
    """Pass records through, advancing a progress bar per finished node on larger fan-outs."""
    from contextlib import aclosing

    task = None
    if len(specs) >= PROGRESS_MIN_NODES:
        task = ctx.progress(
            f"{ctx.name} on {cluster.fold(s.name for s in specs)}", total=len(specs), unit="nodes"
        )
    try:
        async with aclosing(records) as recs:  # type: ignore[type-var]
            async for rec in recs:
                if task is not None and not isinstance(rec, OutputLine):
                    task.advance()
                yield rec
    finally:
        if task is not None:
            task.close()
