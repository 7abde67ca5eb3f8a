"""The cluster a shell talks to: inventory + node sets + connection pool + fan-out.

Typical use (inside the shell's one event loop)::

    cluster = Cluster.from_options(options, host)         # ShellState.cluster does this
    async for rec in cluster.run("web[01-16]", ["lttng", "list", "--mi", "xml"], timeout=30):
        if isinstance(rec, NodeError): ...                # rec.node, rec.stage, rec.message
        else: ...                                         # CommandResult: node, exit_status, ...
    results = await cluster.run_all("@web", "uname -r")   # collected, sorted by node

    async def pull(t: Transport) -> int:                  # anything per node, e.g. SFTP
        files = await t.files()
        await files.get("/srv/trace/archives", "/tmp/x/" + t.node, recurse=True)
        return 1
    async for rec in cluster.map("@web", pull, timeout=120): ...   # NodeOutcome | NodeError

Node arguments (``NodesArg``) are a node-set expression (``web[01-03]``, ``@group``,
``a,b!c``), a list of names/expressions, records with a ``node`` (``Get-Node`` output,
results) or ``nodes`` attribute (gathered results), NodeSpecs, or ``None`` for the default set
(every inventory node, else ``localhost``).

Commands are argv lists (each element ``shlex.quote``-d) or a str taken as a shell command line
the operator typed. Every per-node operation yields exactly one record as soon as that node is
done; a failing node becomes a :class:`NodeError` and never blocks the others. Breaking out of
the iteration or cancelling the consuming task cancels every pending node (remote commands get
SIGTERM); use ``contextlib.aclosing`` when breaking out early.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from fayshell.errors import InventoryError, RemoteError
from fayshell.remote import nodeset
from fayshell.remote.files import FileAccess
from fayshell.remote.inventory import Inventory, NodeSpec, SSHConfig
from fayshell.remote.pool import ConnectionPool, PoolSettings
from fayshell.remote.quoting import UnsafeArgument, command_line
from fayshell.remote.results import (
    COMMAND,
    TIMEOUT,
    CommandResult,
    NodeError,
    NodeOutcome,
    OutputLine,
)
from fayshell.remote.transport import StaleConnection, Transport

if TYPE_CHECKING:
    from fayshell.host import Host
    from fayshell.state import Options

T = TypeVar("T")
NodesArg = str | NodeSpec | Iterable[Any] | None
Command = str | Sequence[str | int | float]
#: One command for all nodes, or a command per node name.
Commands = Command | Mapping[str, Command]
Emit = Callable[[Any], None]
_DONE = object()


class Cluster:
    """See the module docstring. ``pool.connects`` counts SSH handshakes per node."""

    def __init__(
        self, inventory: Inventory, settings: PoolSettings | None = None, host: Host | None = None
    ) -> None:
        self.inventory = inventory
        self.pool = ConnectionPool(settings)
        self.host = host

    @classmethod
    def from_options(cls, options: Options, host: Host | None = None) -> Cluster:
        """The cluster of ``--inventory`` / ``--ssh-config`` (or their defaults)."""
        ssh_config = SSHConfig.from_option(options.ssh_config)
        return cls(Inventory.load(options.inventory, ssh_config), host=host)

    # -- addressing --------------------------------------------------------------------------

    def default_names(self) -> list[str]:
        """Every inventory node, or ``localhost`` when the inventory is empty."""
        return self.inventory.all_names() or ["localhost"]

    def names(self, nodes: NodesArg = None) -> list[str]:
        """Node names of a :data:`NodesArg`, deduplicated, in order."""
        if nodes is None:
            return self.default_names()
        items = [nodes] if isinstance(nodes, str | NodeSpec) else list(nodes)
        out: dict[str, None] = {}
        for item in items:
            if isinstance(item, NodeSpec):
                out[item.name] = None
                continue
            name = getattr(item, "node", None) or getattr(item, "nodes", item)
            if not isinstance(name, str):
                raise InventoryError(f"not a node or node set: {item!r}")
            out.update(dict.fromkeys(self.inventory.expand(name)))
        return list(out)

    def resolve(self, nodes: NodesArg = None) -> list[NodeSpec]:
        """How to reach each node of ``nodes`` (inventory + ssh_config, see inventory.py)."""
        if isinstance(nodes, NodeSpec):
            return [nodes]
        try:
            return [self.inventory.resolve(n) for n in self.names(nodes)]
        except UnsafeArgument as exc:
            raise InventoryError(exc.message) from None

    def node_names(self) -> list[str]:
        """Names to offer for completion: inventory nodes, then ssh_config host aliases."""
        names = self.inventory.all_names()
        extra = [h for h in self.inventory.ssh_config.host_aliases() if h not in set(names)]
        return names + extra

    def group_names(self) -> list[str]:
        """Inventory group names (without ``@``), ``all`` included."""
        return sorted(self.inventory.group_exprs())

    @staticmethod
    def fold(names: Iterable[str]) -> str:
        """Names folded into a node set: ``web[01-03,07]``."""
        return nodeset.fold(names)

    # -- one node ----------------------------------------------------------------------------

    async def connect(
        self,
        node: str | NodeSpec,
        *,
        accept_new_host_key: bool = False,
        connect_timeout: float | None = None,
    ) -> Transport:
        """The node's (persistent) transport; raises RemoteError when it cannot be reached."""
        specs = self.resolve(node)
        if len(specs) != 1:
            raise InventoryError(f"one node expected, {node!r} names {len(specs)}")
        spec = specs[0]
        return await self.pool.get(
            spec, accept_new_host_key=accept_new_host_key, connect_timeout=connect_timeout
        )

    async def files(self, node: str | NodeSpec) -> FileAccess:
        """File access (SFTP) on one node, over its pooled connection."""
        return await (await self.connect(node)).files()

    # -- fan-out -----------------------------------------------------------------------------

    def run(
        self,
        nodes: NodesArg,
        command: Commands,
        *,
        timeout: float | None = None,
        input: str | None = None,
        accept_new_host_key: bool = False,
        connect_timeout: float | None = None,
    ) -> AsyncIterator[CommandResult | NodeError]:
        """Run ``command`` on every node; yields one record per node as each finishes.

        ``command``: argv list (quoted), str (a command line as typed), or a mapping from
        node name to either. ``timeout`` (s) bounds the command, ``connect_timeout`` (s) the
        handshake; ``input`` is sent to the command's stdin."""
        specs = self.resolve(nodes)
        cmds = _command_lines(command, [s.name for s in specs])

        async def one(spec: NodeSpec, emit: Emit) -> CommandResult:
            return await self._run_on(
                spec, cmds[spec.name], timeout, input, accept_new_host_key, connect_timeout, None
            )

        return self._fan_out(specs, one)

    def stream(
        self,
        nodes: NodesArg,
        command: Commands,
        *,
        timeout: float | None = None,
        accept_new_host_key: bool = False,
        connect_timeout: float | None = None,
    ) -> AsyncIterator[OutputLine | CommandResult | NodeError]:
        """Like :meth:`run`, but also yields each output line (:class:`OutputLine`) as it
        arrives; each node still ends with its CommandResult or NodeError."""
        specs = self.resolve(nodes)
        cmds = _command_lines(command, [s.name for s in specs])

        async def one(spec: NodeSpec, emit: Emit) -> CommandResult:
            def on_line(stream: str, line: str) -> None:
                emit(OutputLine(spec.name, stream, line))

            return await self._run_on(
                spec, cmds[spec.name], timeout, None, accept_new_host_key, connect_timeout, on_line
            )

        return self._fan_out(specs, one)

    async def run_all(
        self,
        nodes: NodesArg,
        command: Command,
        **kw: Any,
    ) -> list[CommandResult | NodeError]:
        """:meth:`run`, collected and sorted by node name."""
        return sorted([r async for r in self.run(nodes, command, **kw)], key=lambda r: r.node)

    def map(
        self,
        nodes: NodesArg,
        fn: Callable[[Transport], Awaitable[T]],
        *,
        timeout: float | None = None,
        accept_new_host_key: bool = False,
        connect_timeout: float | None = None,
    ) -> AsyncIterator[NodeOutcome | NodeError]:
        """Run ``await fn(transport)`` for every node concurrently (connecting as needed);
        yields a NodeOutcome with its return value, or a NodeError (a RemoteError raised by
        ``fn`` keeps its stage; ``timeout`` covers ``fn`` only, not the handshake)."""

        async def one(spec: NodeSpec, emit: Emit) -> NodeOutcome:
            transport = await self.pool.get(
                spec, accept_new_host_key=accept_new_host_key, connect_timeout=connect_timeout
            )
            start = time.perf_counter()
            try:
                async with asyncio.timeout(timeout):
                    value = await fn(transport)
            except TimeoutError:
                raise RemoteError(
                    spec.name, TIMEOUT, f"did not finish within {timeout:g}s"
                ) from None
            return NodeOutcome(spec.name, value, round((time.perf_counter() - start) * 1e3, 3))

        return self._fan_out(self.resolve(nodes), one)

    def pull(
        self,
        nodes: NodesArg,
        remote: str,
        local_dir: str,
        *,
        timeout: float | None = None,
    ) -> AsyncIterator[NodeOutcome | NodeError]:
        """Copy ``remote`` (a file or directory, recursively) from every node into
        ``local_dir/<node>/``; each NodeOutcome's value is that local directory."""
        import os

        from fayshell.remote.quoting import check_path

        check_path(remote)

        async def one(transport: Transport) -> str:
            dest = os.path.join(local_dir, transport.node)
            os.makedirs(dest, exist_ok=True)
            await (await transport.files()).get(remote, dest, recurse=True)
            return dest

        return self.map(nodes, one, timeout=timeout)

    async def _run_on(
        self,
        spec: NodeSpec,
        cmd: str,
        timeout: float | None,
        input: str | None,
        accept_new: bool,
        connect_timeout: float | None,
        on_line: Any,
    ) -> CommandResult:
        """Run on one node; a connection found dead before the command started is reopened
        once (the command cannot have run, so retrying is safe)."""
        for attempt in (1, 2):
            transport = await self.pool.get(
                spec, accept_new_host_key=accept_new, connect_timeout=connect_timeout
            )
            try:
                return await transport.run(cmd, timeout=timeout, input=input, on_line=on_line)
            except StaleConnection as exc:
                self.pool.drop(spec)
                if attempt == 2:
                    raise RemoteError(spec.name, COMMAND, f"connection lost: {exc}") from None
        raise AssertionError("unreachable")

    async def _fan_out(
        self, specs: list[NodeSpec], worker: Callable[[NodeSpec, Emit], Awaitable[Any]]
    ) -> AsyncIterator[Any]:
        queue: asyncio.Queue[Any] = asyncio.Queue()

        async def one(spec: NodeSpec) -> None:
            try:
                queue.put_nowait(await worker(spec, queue.put_nowait))
            except RemoteError as exc:
                prefix = f"{exc.node}: {exc.stage}: "
                queue.put_nowait(NodeError(spec.name, exc.stage, exc.message.removeprefix(prefix)))
            except Exception as exc:  # a bug or surprise on one node must not sink the others
                queue.put_nowait(NodeError(spec.name, COMMAND, f"{type(exc).__name__}: {exc}"))
            finally:
                queue.put_nowait(_DONE)

        tasks = [asyncio.ensure_future(one(s)) for s in specs]
        try:
            remaining = len(tasks)
            while remaining:
                item = await queue.get()
                if item is _DONE:
                    remaining -= 1
                else:
                    yield item
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- lifetime ----------------------------------------------------------------------------

    @property
    def connects(self) -> dict[str, int]:
        """SSH handshakes done so far, per node name."""
        return dict(self.pool.connects)

    async def aclose(self) -> None:
        """Close every connection."""
        await self.pool.aclose()


def _command_lines(command: Commands, names: list[str]) -> dict[str, str]:
    """Quote/validate the command(s) up front, so a bad one fails before anything runs."""
    if isinstance(command, Mapping):
        missing = [n for n in names if n not in command]
        if missing:
            raise InventoryError(f"no command given for {nodeset.fold(missing)}")
        return {n: command_line(command[n]) for n in names}
    line = command_line(command)
    return dict.fromkeys(names, line)
