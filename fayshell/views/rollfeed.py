"""The rollup-fed live feed: Show-Top syscalls/spans/logs from node-side rollups (Fay's in-node
aggregation) instead of pulling every chunk to the shell.

Every refresh, each node's agent (deployed and kept by a private :class:`AgentHub`, closed with
the view) is asked, in one task per node that outlives a refresh when the node is slow:

1. ``lttng rotate`` (unless the session rotates by itself often enough), so what was recorded
   until now becomes a finished chunk;
2. Import the session's finished chunks into its node-local store (incremental, idempotent);
3. one row of marks (the store table's next rowid, discarded events, newest timestamp) and the
   rollup of the rows appended since the last answer (rowid in [last mark, this mark)), per
   (refresh-interval bucket, key columns): counts, sums, maxima and a log-bucketed histogram
   (:func:`fayshell.views.queries.partials.node_rollup_sql`). That is kilobytes per node.

The shell appends the partial rows to an in-memory DuckDB the feed owns; the views' main tables
are computed from them (:mod:`fayshell.views.queries.partials`). Drill-downs (the per-node and
per-process breakdown of a syscall, a span's slowest traces, a trace's waterfall) ask the owning
node's agent with a SELECT on demand (:class:`NodeCursor`), never the shell's database. The logs
view's partial rows are counts per (bucket, severity, logger): its counts per severity are the
window's whole buckets from them plus the window's ends (inside a bucket) counted by the nodes,
or all counted by the nodes when the filter looks at the message or the process; its page, the
newest N records, is each answering node's newest N, merged here (N: what the page shows).

A node without a usable agent (no Python there, no bundle) is served, in ``Auto`` mode, by the
pull-and-import pump of :mod:`fayshell.views.live` into the shell's database; the same rollup
then runs on the shell's database for that node's rows. A node whose agent dies or does not
answer within the node timeout is shown as not answering; the others keep refreshing.

Views ask the feed ``query(fn, *args)`` with the functions they would run on a database
(:func:`fayshell.views.queries.syscalls.syscall_stats`, ``common.header`` …); this feed answers
each from the partials or from the nodes (:data:`RollupFeed.answers`) and refuses any other.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from fayshell.errors import FayError
from fayshell.store.cursors import KeptCursor, one_cursor
from fayshell.views.feeds import FeedStatus, NodeHealth
from fayshell.views.live import PumpTimes
from fayshell.views.model import (
    LogPage,
    LogRecord,
    Query,
    Scope,
    SyscallStat,
    TraceSpan,
    TraceSummary,
)
from fayshell.views.queries import common, partials
from fayshell.views.queries import logs as lq
from fayshell.views.queries import spans as spq
from fayshell.views.queries import syscalls as sq

if TYPE_CHECKING:
    import duckdb

    from fayshell.remote.agenthub import AgentHub
    from fayshell.store.database import Database
    from fayshell.tracing.sessions import OutputDir
    from fayshell.views.live import LivePump

T = TypeVar("T")


class RollupError(FayError):
    """A view asked the rollup feed for something it does not answer."""


@dataclass
class NodeAnswer:
    """One node's answer to one refresh."""

    table: Any  # pyarrow Table of partial rows, or None when nothing was new
    events: Any  # pyarrow Table of events per bucket, or None
    hi: int
    ev_hi: int
    discarded: int
    lost: int
    newest: int | None
    bytes_in: int


@dataclass
class RollTally:
    """One node's state: its cycle in flight, the rowid it has sent up to, its health."""

    node: str
    health: NodeHealth
    future: concurrent.futures.Future[NodeAnswer] | None = None
    started: float = 0.0
    started_ns: int = 0
    complete_ns: int | None = None
    rowid: int = 0
    ev_rowid: int = 0
    failures: int = 0
    retry_at: float = 0.0
    answers: int = 0
    bytes_in: list[int] = field(default_factory=list)


@dataclass
class RollupTarget:
    """What the feed follows and how."""

    session: str
    agent_nodes: tuple[str, ...]
    kind: partials.Kind
    width_ns: int
    remembered: dict[str, str] = field(default_factory=dict)
    rotate: bool = True
    timer_ns: int = 0


class RollupFeed:
    """A live feed whose main tables come from node rollups (see the module docstring)."""

    live = True

    def __init__(
        self,
        hub: AgentHub,
        target: RollupTarget,
        times: PumpTimes | None = None,
        *,
        pump: LivePump | None = None,
        db: Database | None = None,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        import duckdb

        self.hub = hub
        self.target = target
        self.times = times or PumpTimes()
        #: The pull-and-import pump of the nodes without an agent, and the shell's database
        #: it imports into (their rollups run there).
        self.pump = pump
        self.db = db
        self.clock = clock
        self.status = FeedStatus()
        self.version = 0
        self.alerts: Callable[[], list[str]] | None = None
        self.approx_percentiles = True
        self.con: duckdb.DuckDBPyConnection = duckdb.connect(":memory:")
        partials.create_tables(self.con, target.kind)
        self.lock = threading.Lock()
        self.nodes = {n: RollTally(n, NodeHealth(n, True, "starting")) for n in target.agent_nodes}
        self.pulled: dict[str, RollTally] = {}
        self._local: KeptCursor | None = None
        self.notes: list[str] = [
            f"node rollups: percentiles ≈ within {partials.HIST.alpha:.0%}, "
            "windows in whole intervals"
            if target.kind.durations
            else "node rollups: records asked of the nodes"
        ]
        self.drill_missing: dict[str, str] = {}
        #: SELECTs sent to agents for drill-downs and pages, in all and per node (for tests
        #: and measurements; the asks run in parallel threads, counted under ``_asks_lock``).
        self.node_queries = 0
        self.node_asks: dict[str, int] = {}
        self._asks_lock = threading.Lock()
        #: CPU seconds the view's queries took in worker threads (for measurements).
        self.query_cpu_s = 0.0
        self._closed = False
        #: Per node: its session output (LTTng's answer) and the background fetch of the next.
        self.outputs: dict[str, OutputDir] = {}
        self._out_tasks: dict[str, asyncio.Task[None]] = {}
        self.answers: dict[Callable[..., Any], Callable[..., Any]] = {
            common.existing_tables: lambda: {target.kind.table},
            sq.syscall_stats: self._syscall_stats,
            spq.span_stats: lambda q: self._locked(
                partials.span_stats, self.con, q, target.width_ns
            ),
            common.header: lambda q, _t, _ts: self._locked(
                partials.header, self.con, q, target.kind, target.width_ns
            ),
            common.node_rates: lambda q, _t, _ts: self._locked(
                partials.node_rates, self.con, q, target.kind, target.width_ns
            ),
            spq.slowest_traces: self._slowest_traces,
            spq.trace_spans: self._trace_spans,
            lq.log_page: self._log_page,
        }

    # ---- Feed ----------------------------------------------------------------------------

    def now_ns(self) -> int:
        return self.clock()

    def complete_ns(self) -> int | None:
        """Every answering node's data is in up to this instant (wall clock)."""
        done = [
            t.complete_ns
            for t in (*self.nodes.values(), *self.pulled.values())
            if t.health.ok and t.complete_ns is not None
        ]
        horizon = self.pump.complete_ns() if self.pump is not None else None
        if horizon is not None:
            done.append(horizon)
        return min(done) if done else None

    async def query(self, fn: Callable[..., T], *args: Any) -> T:
        answer = self.answers.get(fn)
        if answer is None:
            name = getattr(fn, "__name__", str(fn))
            raise RollupError(f"internal error: {name} is not answered from node rollups")
        return await asyncio.to_thread(self._timed, answer, *args)

    def _timed(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)``, its CPU time added to ``query_cpu_s`` (measurements)."""
        start = time.thread_time()
        try:
            return fn(*args)
        finally:
            self.query_cpu_s += time.thread_time() - start

    def _locked(self, fn: Callable[..., T], *args: Any) -> T:
        with self.lock:
            return fn(*args)

    async def refresh(self) -> FeedStatus:
        """Start a cycle on idle nodes, wait up to ``wait_s``, fold in what answered."""
        if self._closed:
            raise RuntimeError("the rollup feed is closed")
        self.version += 1
        self.status = FeedStatus("rolling up", "node rollups", nodes=self.status.nodes)
        now = time.monotonic()
        for tally in self.nodes.values():
            if tally.future is None and now >= tally.retry_at:
                tally.started, tally.started_ns = time.monotonic(), time.time_ns()
                marks = (tally.rowid, tally.ev_rowid)
                tally.future = self._on_hub(self._cycle(tally.node, marks))
        waits: list[Any] = [
            _waited(t.future) for t in self.nodes.values() if t.future is not None and t.health.ok
        ]
        pumped = asyncio.ensure_future(self._pump()) if self.pump is not None else None
        if pumped is not None:
            waits.append(pumped)
        if waits:
            await asyncio.wait(waits, timeout=self.times.wait_s)
        healths = [await self._collect(t) for t in self.nodes.values()]
        if pumped is not None:
            healths += list(await pumped)
        down = [h.node for h in healths if not h.ok]
        parts = [*self.notes]
        if down:
            parts.append(f"not answering: {', '.join(down)}")
        if self.drill_missing:
            parts.append(
                "drill-down without "
                + ", ".join(f"{n} ({m})" for n, m in sorted(self.drill_missing.items()))
            )
        self.status = FeedStatus(
            "idle", "  ".join(parts), refreshed_ns=self.clock(), nodes=tuple(healths)
        )
        return self.status

    async def _collect(self, tally: RollTally) -> NodeHealth:
        fut = tally.future
        if fut is not None and fut.done():
            tally.future = None
            tally.health = await self._fold(tally, fut)
            tally.failures = 0 if tally.health.ok else tally.failures + 1
            tally.retry_at = time.monotonic() + self.times.backoff_s(tally.failures)
        elif fut is not None:
            busy = time.monotonic() - tally.started
            if busy > self.times.stall_s:
                tally.health = NodeHealth(tally.node, False, f"no answer for {busy:.0f}s")
        return tally.health

    async def _fold(
        self, tally: RollTally, fut: concurrent.futures.Future[NodeAnswer]
    ) -> NodeHealth:
        try:
            ans = fut.result()
        except concurrent.futures.CancelledError:
            return NodeHealth(tally.node, False, "cancelled")
        except FayError as exc:
            return NodeHealth(tally.node, False, _short(tally.node, exc.one_line()))
        except Exception as exc:  # the node's problem, never the view's
            return NodeHealth(tally.node, False, f"internal error: {type(exc).__name__}: {exc}")
        await asyncio.to_thread(self._locked, self._add, tally.node, ans)
        tally.rowid = max(tally.rowid, ans.hi)
        tally.ev_rowid = max(tally.ev_rowid, ans.ev_hi)
        tally.answers += 1
        tally.bytes_in.append(ans.bytes_in)
        if self.target.rotate or self.target.timer_ns:
            tally.complete_ns = tally.started_ns - (
                0 if self.target.rotate else self.target.timer_ns
            )
        return NodeHealth(tally.node, True)

    def _add(self, node: str, ans: NodeAnswer) -> None:
        session = self.target.session
        if ans.table is not None:
            partials.add_parts(self.con, self.target.kind, session, node, ans.table)
        if ans.events is not None:
            partials.add_events(self.con, session, node, ans.events)
        partials.set_marks(self.con, session, node, ans.discarded, ans.lost, ans.newest)
        partials.fold_old(self.con, self.target.kind, self.target.width_ns)

    def close(self) -> None:
        self._closed = True
        with self.lock:
            self.con.close()
        if self._local is not None:
            self._local.close()

    async def aclose(self) -> None:
        """Stop the cycles in flight, the pull pump, and every agent this view started."""
        self._closed = True
        for tally in self.nodes.values():
            if tally.future is not None:
                tally.future.cancel()
        if self.pump is not None:
            await self.pump.aclose()
        if self.hub.loop is not None:
            with contextlib.suppress(Exception):
                await asyncio.wrap_future(self._on_hub(self._cancel_fetches()))
        await asyncio.to_thread(self.hub.close)

    # ---- the node side -------------------------------------------------------------------

    def _on_hub(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.hub._start())

    async def _cycle(self, node: str, lo: tuple[int, int]) -> NodeAnswer:
        """On the hub's loop: rotate, import, marks and rollup of one node."""
        timeout = self.times.node_timeout_s
        try:
            await self._died_since(node)
            async with asyncio.timeout(timeout):
                return await self._node_rollup(node, lo)
        except TimeoutError:
            await self.hub._drop(node)
            raise FayError(f"{node}: no answer within {timeout:g}s") from None
        except FayError as exc:
            from fayshell.remote.agentdeploy import AgentUnavailable

            if not isinstance(exc, AgentUnavailable):
                await self.hub._drop(node)  # a dead agent is restarted next time
            raise

    async def _died_since(self, node: str) -> None:
        """An agent that died between two cycles is a fault of its node, shown for one cycle
        (the hub would otherwise start a new one silently); the next cycle starts another,
        which resumes from the node store's rowid marks."""
        client = self.hub.clients.get(node)
        if client is not None and client.dead is not None:
            raise client.dead  # _cycle drops it

    async def _node_rollup(self, node: str, lo: tuple[int, int]) -> NodeAnswer:
        from fayshell.views.live import rotate_quietly

        hub, target = self.hub, self.target
        client = await hub.client(node)
        t = await hub._cluster().connect(node)
        if target.rotate:
            await rotate_quietly(t, target.session)
        out = await self._output(node)
        before = client.bytes_in
        await client.import_session(out.path, target.session, out.stopped)
        marks = (await client.query(partials.node_marks_sql(target.kind, target.session))).table()
        row = marks.to_pylist()[0]
        hi, ev_hi = int(row["hi"]), int(row["ev_hi"])
        table = events = None
        if hi > lo[0]:
            sql = partials.node_rollup_sql(target.kind, target.session, target.width_ns, lo[0], hi)
            table = (await client.query(sql)).table()
        if ev_hi > lo[1]:
            sql = partials.node_events_sql(target.session, target.width_ns, lo[1], ev_hi)
            events = (await client.query(sql)).table()
        newest = None if row["newest"] is None else int(row["newest"])
        return NodeAnswer(
            table,
            events,
            hi,
            ev_hi,
            int(row["discarded"]),
            int(row["lost"]),
            newest,
            client.bytes_in - before,
        )

    async def _output(self, node: str) -> OutputDir:
        """The session's output directory on the node. Asking LTTng (``lttng list`` over SSH)
        is kept off the refresh's path once known: the next answer is fetched in the
        background for the next refresh (it only changes when the session stops)."""
        out = self.outputs.get(node)
        if out is None:
            out = self.outputs[node] = await self._fetch_output(node)
        elif not out.stopped:
            task = self._out_tasks.get(node)
            if task is None or task.done():
                self._out_tasks[node] = asyncio.ensure_future(self._fetch_quietly(node))
        return out

    async def _fetch_output(self, node: str) -> OutputDir:
        from fayshell.tracing.sessions import output_dir

        t = await self.hub._cluster().connect(node)
        session = self.target.session
        return await output_dir(t, session, self.target.remembered.get(node, ""))

    async def _fetch_quietly(self, node: str) -> None:
        with contextlib.suppress(FayError, OSError):  # the next refresh asks again
            self.outputs[node] = await self._fetch_output(node)

    async def _cancel_fetches(self) -> None:
        tasks = [t for t in self._out_tasks.values() if not t.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ---- nodes without an agent: pulled into the shell's database ---------------------------

    def add_pulled(self, nodes: list[str], pump: LivePump, db: Database) -> None:
        """Serve ``nodes`` by pulling their chunks with ``pump`` into ``db``."""
        self.pump, self.db = pump, db
        self._local = KeptCursor(db)
        self.pulled = {n: RollTally(n, NodeHealth(n, True, "starting")) for n in nodes}
        self.notes.append(f"pulled (no agent): {', '.join(nodes)}")

    async def _pump(self) -> tuple[NodeHealth, ...]:
        assert self.pump is not None
        healths = await self.pump()
        await asyncio.to_thread(self._local_rollups)
        for h in healths:
            tally = self.pulled.get(h.node)
            if tally is not None:
                tally.health = h
        return healths

    def _local_rollups(self) -> None:
        """The pulled nodes' new rows in the shell's database, rolled up like on a node."""
        assert self._local is not None
        with self._local.use() as cur:
            self._roll_up_pulled(cur)

    def _roll_up_pulled(self, cur: Any) -> None:
        kind, session = self.target.kind, self.target.session
        hi, ev_hi = cur.execute(partials.node_marks_sql(kind, session)).fetchall()[0][:2]
        width = self.target.width_ns
        for node, tally in self.pulled.items():
            if int(hi) > tally.rowid:
                sql = partials.node_rollup_sql(kind, session, width, tally.rowid, int(hi), node)
                table = cur.sql(sql).to_arrow_table()
                with self.lock:
                    partials.add_parts(self.con, kind, session, node, table)
                tally.rowid = int(hi)
            if int(ev_hi) > tally.ev_rowid:
                sql = partials.node_events_sql(session, width, tally.ev_rowid, int(ev_hi), node)
                events = cur.sql(sql).to_arrow_table()
                with self.lock:
                    partials.add_events(self.con, session, node, events)
                tally.ev_rowid = int(ev_hi)

    # ---- drill-downs: asked of the owning node --------------------------------------------

    @contextlib.contextmanager
    def _asking(self, node: str) -> Iterator[Any]:
        """A cursor answering SELECTs with ``node``'s data: its agent, or for a pulled node
        a cursor of its own on the shell's database (fayshell.store.cursors)."""
        if node not in self.pulled or self.db is None:
            yield NodeCursor(self, node)
            return
        with one_cursor(self.db) as cur:
            yield cur

    def count_ask(self, node: str) -> None:
        with self._asks_lock:
            self.node_queries += 1
            self.node_asks[node] = self.node_asks.get(node, 0) + 1

    def _all_nodes(self) -> list[str]:
        return [*self.nodes, *self.pulled]

    def _ask_nodes(
        self, nodes: list[str], fn: Callable[[Any, Query], list[T]], q: Query
    ) -> list[T]:
        """``fn(cursor, q)`` on each node at once (q's scope narrowed to it), the answers in
        the order of ``nodes``; a node that fails is left out and named in the status line."""

        def one(node: str) -> list[T]:
            scoped = q.but(scope=Scope(q.scope.session or self.target.session, (node,)))
            with self._asking(node) as cur:
                return fn(cur, scoped)

        with concurrent.futures.ThreadPoolExecutor(max(1, len(nodes))) as pool:
            asked = [(node, pool.submit(one, node)) for node in nodes]
        out: list[T] = []
        for node, fut in asked:
            try:
                out.extend(fut.result())
                self.drill_missing.pop(node, None)
            except FayError as exc:
                self.drill_missing[node] = _short(node, exc.one_line())
            except concurrent.futures.TimeoutError:
                self.drill_missing[node] = "no answer"
        return out

    def _owners(self, q: Query) -> list[str]:
        eq = dict(q.where_eq)
        node = eq.get("node")
        nodes = self._all_nodes()
        return [str(node)] if node is not None and str(node) in nodes else nodes

    def _syscall_stats(self, q: Query) -> list[SyscallStat]:
        if not q.where_eq:
            return self._locked(partials.syscall_stats, self.con, q, self.target.width_ns)
        g = sq.GROUPINGS[q.grouping or "syscall"]
        owners = self._owners(q)
        if "node" not in g.keys and len(owners) > 1:
            raise RollupError(f"internal error: a {g.name} breakdown over several nodes")
        rows = self._ask_nodes(
            owners, lambda cur, sq_q: sq.syscall_stats(cur, sq_q, rollup_min=1 << 62), q
        )
        return sort_rows_limit(rows, q.sort or "total_ns", q.descending, q.limit)

    def _slowest_traces(
        self,
        q: Query,
        service: str | None,
        name: str | None,
        node: str | None = None,
        limit: int = 50,
    ) -> list[TraceSummary]:
        """Phase 1: every owning node's slowest traces through the span; phase 2: those
        traces' spans summarised on every node (a trace may cross nodes), merged here."""
        owners = [node] if node is not None else self._all_nodes()

        def hits(cur: Any, nq: Query) -> list[tuple[int, int]]:
            return node_hits(cur, nq, service, name, limit)

        best: dict[int, int] = {}
        for tid, dur in self._ask_nodes(owners, hits, q):
            best[tid] = max(best.get(tid, 0), dur)
        top = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        ids = [tid for tid, _ in top]
        parts = self._ask_nodes(self._all_nodes(), lambda cur, nq: trace_parts(cur, nq, ids), q)
        return merge_traces(top, parts)

    def _log_page(self, q: Query, severity: str, limit: int = 1000) -> LogPage:
        """The newest ``limit`` records: each node's newest ``limit`` (asked of it), merged;
        the counts per severity from the partials and the nodes (:meth:`_log_counts`)."""
        owners = self._in_scope(q)

        def newest(cur: Any, nq: Query) -> list[LogRecord]:
            return lq.newest_records(cur, nq, severity, limit)

        records = sorted(self._ask_nodes(owners, newest, q), key=lq.page_key)[:limit]
        return lq.make_page(self._log_counts(q, owners), records, severity)

    def _log_counts(self, q: Query, owners: list[str]) -> dict[str, int]:
        """Exact counts per severity: the window's whole buckets from the partials, its ends
        inside a bucket counted by the nodes; all by the nodes when the filter looks at what
        the partials do not keep (the message, the process)."""
        if not partials.logs_filter_in_parts(q, lq.FIELDS):
            asked = self._ask_nodes(owners, lambda cur, nq: [lq.severity_counts(cur, nq)], q)
            return partials.add_counts(*asked)
        split = partials.log_split(q, self.target.width_ns)
        inner = self._locked(partials.log_counts, self.con, q, split)
        edges = list(split.edges)
        asked = self._ask_nodes(owners, lambda cur, nq: [lq.severity_counts(cur, nq, edges)], q)
        return partials.add_counts(inner, *asked)

    def _in_scope(self, q: Query) -> list[str]:
        """The feed's nodes in ``q``'s scope that answer (one marked as not answering is not
        asked: every refresh would wait for it; its rows come back with it)."""
        tallies = {**self.nodes, **self.pulled}
        nodes = [n for n, t in tallies.items() if t.health.ok]
        return [n for n in nodes if n in q.scope.nodes] if q.scope.nodes else nodes

    def _trace_spans(self, trace_id: int, session: str | None = None) -> list[TraceSpan]:
        q = Query(0, scope=Scope(session or self.target.session))
        spans = self._ask_nodes(
            self._all_nodes(), lambda cur, nq: node_trace_spans(cur, nq, trace_id), q
        )
        spans.sort(key=lambda s: (s.start_ns, s.span_id))
        return spq.waterfall_order(spans)


class NodeCursor:
    """The little of a DuckDB cursor the views' query functions use (``execute`` with ``?``
    parameters, ``fetchall``, ``fetchone``, ``description``), answered by a node's agent: the
    parameters are written into the SQL as literals and the agent runs the one SELECT."""

    def __init__(self, feed: RollupFeed, node: str) -> None:
        self.feed = feed
        self.node = node
        self.rows: list[tuple[Any, ...]] = []
        self.description: list[tuple[str, ...]] = []

    def execute(self, sql: str, params: list[Any] | None = None) -> NodeCursor:
        text = inline_params(sql, list(params or []))
        self.feed.count_ask(self.node)
        fut = self.feed._on_hub(self._ask(text))
        table = fut.result(self.feed.times.node_timeout_s)
        self.description = [(name,) for name in table.column_names]
        cols = [table.column(i).to_pylist() for i in range(table.num_columns)]
        self.rows = list(zip(*cols, strict=True)) if cols else []
        return self

    async def _ask(self, sql: str) -> Any:
        client = await self.feed.hub.client(self.node)
        return (await client.query(sql)).table()

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self.rows)

    def fetchone(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None


def inline_params(sql: str, params: list[Any]) -> str:
    """``sql`` with each ``?`` placeholder replaced by its parameter as a SQL literal (the view
    queries put every value in a parameter, so a ``?`` in their text is always one)."""
    pieces = sql.split("?")
    if len(pieces) - 1 != len(params):
        raise RollupError(
            f"internal error: {len(pieces) - 1} placeholders for {len(params)} parameters"
        )
    out = [pieces[0]]
    for value, rest in zip(params, pieces[1:], strict=True):
        out.append(_lit(value))
        out.append(rest)
    return "".join(out)


def _lit(value: Any) -> str:
    from fayshell.store.relation import quote_literal

    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_lit(v) for v in value) + "]"
    return quote_literal(str(value))


def _waited(fut: concurrent.futures.Future[T]) -> asyncio.Future[T]:
    """An asyncio future to wait on ``fut`` with; the cycle's outcome is read from ``fut``
    itself, so the wrapper's error is marked as seen (a failed node's cycle is not logged
    by asyncio as "exception was never retrieved" when the wrapper is collected)."""
    wrapper = asyncio.wrap_future(fut)
    wrapper.add_done_callback(lambda w: w.cancelled() or w.exception())
    return wrapper


def _short(node: str, text: str) -> str:
    return text[len(node) + 2 :] if text.startswith(f"{node}: ") else text


def sort_rows_limit(rows: list[T], sort: str, descending: bool, limit: int) -> list[T]:
    from fayshell.views.model import sort_rows

    return sort_rows(rows, sort, descending)[:limit]


def node_hits(
    cur: Any, q: Query, service: str | None, name: str | None, limit: int
) -> list[tuple[int, int]]:
    """One node's slowest traces through (service, name) in the window: (trace_id, span dur)."""
    from fayshell.views.filters import query_where

    w = query_where(q, "ts_start", spq.FIELDS)
    for col, value in (("service", service), ("name", name)):
        if value is not None:
            w.add(f"{col} = ?", value)
    rows = cur.execute(
        "SELECT trace_id, max(dur_ns) AS span_dur FROM spans "
        f"WHERE {w.sql()} GROUP BY trace_id ORDER BY span_dur DESC, trace_id LIMIT ?",
        [*w.params, limit],
    ).fetchall()
    return [(int(r[0]), int(r[1] or 0)) for r in rows]


def trace_parts(cur: Any, q: Query, ids: list[int]) -> list[tuple[Any, ...]]:
    """One node's part of each trace: first start, last end, spans, services, nodes, error."""
    if not ids:
        return []
    rows = cur.execute(
        "SELECT trace_id, min(ts_start), max(ts_end), count(*), "
        "list(DISTINCT service ORDER BY service), list(DISTINCT node ORDER BY node), "
        "bool_or(coalesce(error, false)) FROM spans WHERE session = ? AND node = ? "
        f"AND trace_id IN ({', '.join('?' for _ in ids)}) GROUP BY trace_id",
        [q.scope.session, q.scope.nodes[0], *ids],
    ).fetchall()
    return [tuple(r) for r in rows]


def merge_traces(top: list[tuple[int, int]], parts: list[tuple[Any, ...]]) -> list[TraceSummary]:
    """The trace summaries of ``top`` from every node's parts."""
    acc: dict[int, list[Any]] = {}
    for tid, start, end, n, services, nodes, error in parts:
        a = acc.setdefault(int(tid), [start, end, 0, set(), set(), False])
        a[0], a[1] = min(a[0], start), max(a[1], end)
        a[2] += int(n)
        a[3].update(s for s in services if s is not None)
        a[4].update(x for x in nodes if x is not None)
        a[5] = a[5] or bool(error)
    out = []
    for tid, dur in top:
        if tid not in acc:
            continue
        a = acc[tid]
        out.append(
            TraceSummary(
                tid,
                dur,
                int(a[0]),
                int((a[1] or a[0]) - a[0]),
                a[2],
                tuple(sorted(a[3])),
                tuple(sorted(a[4])),
                a[5],
            )
        )
    return out


def node_trace_spans(cur: Any, q: Query, trace_id: int) -> list[TraceSpan]:
    """One node's spans of a trace (the waterfall is ordered once all nodes answered)."""
    rows = cur.execute(
        "SELECT span_id, parent_span_id, service, node, name, ip, port, ts_start, dur_ns, "
        "client_dur_ns, server_dur_ns, coalesce(error, false), map_entries(keyvals), "
        "annotations FROM spans WHERE trace_id = ? AND session = ? AND node = ? "
        "ORDER BY ts_start, span_id",
        [trace_id, q.scope.session, q.scope.nodes[0]],
    ).fetchall()
    return [spq._span(r) for r in rows]


async def probe_agents(hub: AgentHub, nodes: list[str]) -> dict[str, str]:
    """Start (installing when needed) every node's agent; the nodes where none can run, with
    the reason (no usable Python, no bundle). A node that cannot be reached at all is not in
    the answer: it is an agent node that does not answer (yet)."""
    from fayshell.remote.agentbundle import BundleError
    from fayshell.remote.agentdeploy import AgentUnavailable

    async def start_all() -> list[Any]:
        return await asyncio.gather(*(hub.client(n) for n in nodes), return_exceptions=True)

    results = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(start_all(), hub._start()))
    out: dict[str, str] = {}
    for node, res in zip(nodes, results, strict=True):
        if isinstance(res, (AgentUnavailable, BundleError)):
            out[node] = _short(node, res.one_line())
    return out
