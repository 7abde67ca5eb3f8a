"""The shell's agents: one per node, started on first use and kept warm, run from a thread.

Relations are fetched synchronously (rendering, ``records()``) while the shell's event loop is
busy calling them, so the hub runs its own event loop in a background thread with its own SSH
connections (a :class:`Cluster` built from the same options: same inventory, same host-key
checking). :meth:`AgentHub.call` blocks the caller until a coroutine finished there; a
KeyboardInterrupt cancels it on every node (Cancel frames) and closes the agents, so nothing is
left running.

A node whose agent cannot run (no usable Python, no bundle) is served by pulling its finished
chunks over SFTP into a node store on this machine (:class:`PulledNode`), said as a warning.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from fayshell.errors import FayError, RemoteError
from fayshell.remote.agentbundle import Bundle, default_root
from fayshell.remote.agentclient import AgentClient
from fayshell.remote.agentdeploy import AgentSettings, AgentUnavailable, ensure_installed, start

if TYPE_CHECKING:
    from fayshell.agent.nodestore import NodeStore
    from fayshell.remote.cluster import Cluster
    from fayshell.state import Options
    from fayshell.tracing.sessions import OutputDir

T = TypeVar("T")


@dataclass(frozen=True)
class HubSettings:
    """Where the bundle is, how agents are deployed, and the per-node time limit."""

    deploy: AgentSettings = field(default_factory=AgentSettings)
    bundle_root: Path = field(default_factory=default_root)
    node_timeout: float = 600.0


@dataclass
class NodeAnswers:
    """Per node query part, the Arrow tables of the nodes that answered; who did not, and why;
    which nodes were served by pulling chunks instead of an agent."""

    tables: list[list[Any]]
    missing: dict[str, str] = field(default_factory=dict)
    pulled: dict[str, str] = field(default_factory=dict)


@dataclass
class PulledNode:
    """A node without an agent: its chunks pulled here and loaded into a local node store."""

    store: NodeStore
    dir: Path


class AgentHub:
    """See the module docstring."""

    def __init__(self, options: Options, settings: HubSettings | None = None) -> None:
        self.options = options
        self.settings = settings or HubSettings()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.cluster: Cluster | None = None
        self.clients: dict[str, AgentClient] = {}
        self.installed: set[str] = set()
        self.pulled: dict[str, PulledNode] = {}
        self.unavailable: dict[str, str] = {}
        self.outputs: dict[tuple[str, str], OutputDir] = {}
        self.template: Any = None  # empty copies of the store's tables (scratch_connection)
        self.lock = threading.Lock()

    # ---- the thread ----

    def _start(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None:
                loop = asyncio.new_event_loop()
                self.thread = threading.Thread(
                    target=loop.run_forever, name="fay-agents", daemon=True
                )
                self.thread.start()
                self.loop = loop
            return self.loop

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the hub's loop and wait; Ctrl-C cancels it and stops the agents."""
        fut = asyncio.run_coroutine_threadsafe(coro, self._start())
        try:
            return fut.result()
        except KeyboardInterrupt:
            fut.cancel()
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._close_agents(), self._start()).result(30)
            raise

    def scratch_connection(self) -> Any:
        """A new connection to an in-memory database of empty copies of the store's tables,
        made once per hub (-OnNode queries parse, type and merge there)."""
        with self.lock:
            if self.template is None:
                import duckdb

                from fayshell.store.database import Database
                from fayshell.store.schema import ensure_schema

                db = Database(":memory:", duckdb.connect())
                ensure_schema(db)
                self.template = db.con
            return self.template.cursor()

    def close(self) -> None:
        """Stop every agent, close the connections and the thread."""
        with self.lock:
            self.template = None  # (not closed: relations made from it may still be read)
        if self.loop is None:
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._aclose(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        if self.thread is not None:
            self.thread.join(10)
        self.loop = None

    async def _close_agents(self) -> None:
        clients, self.clients = list(self.clients.values()), {}
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)

    async def _aclose(self) -> None:
        await self._close_agents()
        for pulled in self.pulled.values():
            pulled.store.close()
        self.pulled.clear()
        if self.cluster is not None:
            await self.cluster.aclose()
            self.cluster = None

    # ---- agents ----

    def _cluster(self) -> Cluster:
        if self.cluster is None:
            from fayshell.remote.cluster import Cluster

            self.cluster = Cluster.from_options(self.options)
        return self.cluster

    async def client(self, node: str) -> AgentClient:
        """The node's running agent (installed and started when needed)."""
        client = self.clients.get(node)
        if client is not None and client.dead is None:
            return client
        if client is not None:
            self.clients.pop(node, None)
            await client.close(timeout=2.0)
        if node in self.unavailable:  # found out once per hub: no re-probing
            raise AgentUnavailable(node, self.unavailable[node])
        bundle = Bundle.load(self.settings.bundle_root)
        t = await self._cluster().connect(node)
        if node not in self.installed:
            try:
                await ensure_installed(t, bundle, self.settings.deploy)
            except AgentUnavailable as exc:
                self.unavailable[node] = exc.one_line().removeprefix(f"{node}: agent: ")
                raise
            self.installed.add(node)
        client = await start(t, bundle, self.settings.deploy)
        self.clients[node] = client
        return client

    async def run_parts(
        self, nodes: list[str], session: str, remembered: dict[str, str], node_sql: tuple[str, ...]
    ) -> NodeAnswers:
        """Import the session's new chunks on every node, then run each node query there."""
        answers = NodeAnswers([[] for _ in node_sql])
        results = await asyncio.gather(
            *(self._on_node(n, session, remembered.get(n, ""), node_sql, answers) for n in nodes),
            return_exceptions=True,
        )
        for node, res in zip(nodes, results, strict=True):
            if isinstance(res, BaseException):
                if isinstance(res, asyncio.CancelledError):
                    raise res
                answers.missing[node] = _reason(node, res)
                continue
            for i, table in enumerate(res):
                answers.tables[i].append(table)
        return answers

    async def _on_node(
        self,
        node: str,
        session: str,
        remembered: str,
        node_sql: tuple[str, ...],
        answers: NodeAnswers,
    ) -> list[Any]:
        try:
            async with asyncio.timeout(self.settings.node_timeout):
                return await self._agent_parts(node, session, remembered, node_sql)
        except (AgentUnavailable, FayError) as exc:
            if not isinstance(exc, AgentUnavailable) and not _bundle_missing(exc):
                await self._drop(node)
                raise
            answers.pulled[node] = exc.one_line()
        except TimeoutError:
            await self._drop(node)
            raise RemoteError(
                node, "timeout", f"no answer within {self.settings.node_timeout:g}s"
            ) from None
        async with asyncio.timeout(self.settings.node_timeout):
            return await self._pulled_parts(node, session, remembered, node_sql)

    async def _agent_parts(
        self, node: str, session: str, remembered: str, node_sql: tuple[str, ...]
    ) -> list[Any]:
        from fayshell.tracing.sessions import output_dir

        client = await self.client(node)
        out = self.outputs.get((node, session))
        if out is None:
            out = await output_dir(await self._cluster().connect(node), session, remembered)
            if out.stopped:  # a stopped session's output stays put
                self.outputs[(node, session)] = out
        _, results = await client.import_and_query(out.path, session, out.stopped, node_sql)
        return [r.table() for r in results]

    async def _drop(self, node: str) -> None:
        client = self.clients.pop(node, None)
        if client is not None:
            await client.close(timeout=2.0)

    async def _pulled_parts(
        self, node: str, session: str, remembered: str, node_sql: tuple[str, ...]
    ) -> list[Any]:
        """Pull the node's finished chunks (once each) and answer from a local node store."""
        from fayshell.agent.nodestore import NodeStore
        from fayshell.tracing.receive import ByteProgress, chunk_listing, pull_chunk

        pulled = self.pulled.get(node)
        if pulled is None:
            where = Path(tempfile.mkdtemp(prefix=f"fay-pulled-{node}-"))
            pulled = self.pulled[node] = PulledNode(NodeStore.open(where / "store.duckdb"), where)
        t = await self._cluster().connect(node)
        root, listing = await chunk_listing(t, session, remembered)
        files = await t.files()
        node_dir = pulled.dir / session / node
        node_dir.mkdir(parents=True, exist_ok=True)
        limit = asyncio.Semaphore(4)
        for chunk in listing.complete:
            if chunk.empty or (node_dir / chunk.chunk_id).is_dir():
                continue
            final = await pull_chunk(files, root, chunk, node_dir, ByteProgress(None), limit)
            if final is not None:
                await asyncio.to_thread(_import_dir, pulled.store, Path(final), node, session)
        return [await asyncio.to_thread(pulled.store.query, sql) for sql in node_sql]


def _import_dir(store: NodeStore, path: Path, node: str, session: str) -> None:
    from fayshell.store.loader import import_trace

    import_trace(store.db, path, node=node, session=session)


def _bundle_missing(exc: FayError) -> bool:
    from fayshell.remote.agentbundle import BundleError

    return isinstance(exc, BundleError)


def _reason(node: str, exc: BaseException) -> str:
    if isinstance(exc, FayError):
        text = exc.one_line()
        return text[len(node) + 2 :] if text.startswith(f"{node}: ") else text
    return f"internal error: {type(exc).__name__}: {exc}"
