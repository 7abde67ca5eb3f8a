"""Trace store cmdlets: Import-Trace, and the query cmdlets over the store's tables.

Query cmdlets return relations, so Where-Object, Sort-Object, Group-Object... extend the same
DuckDB query. Heavy modules (duckdb, pyarrow, the CTF decoder) load inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.store.relation import quote_literal
from fayshell.vocabulary import SEVERITIES

if TYPE_CHECKING:
    from fayshell.store.database import Database
    from fayshell.store.relation import Relation


_NODE = Param("Node", "strings", help="Only these nodes (wildcards allowed).", complete="nodes")
_SESSION = Param(
    "Session", "strings", help="Only these sessions (wildcards allowed).", complete="sessions"
)
_ON_NODE = (
    Param(
        "OnNode",
        bool,
        help="Run on every node's agent over the node's own store "
        "(needs -Session NAME; -Node narrows). Only partial "
        "results cross the network (-Verbose shows the SQL).",
    ),
    Param(
        "ExactPercentile",
        bool,
        help="With -OnNode: exact percentiles (nodes send values) instead of histograms within 1%.",
    ),
)


@dataclass(frozen=True)
class ImportSummary:
    """What Import-Trace loaded from one path."""

    Path: str
    Chunks: int
    Skipped: int
    Events: int
    Discarded: int
    LostPackets: int
    Errors: int


def _match(column: str, patterns: list[str] | str | None) -> str | None:
    """A SQL condition: the column equals (or, with * and ?, is LIKE) one of the patterns."""
    if patterns is None:
        return None
    pats = [patterns] if isinstance(patterns, str) else list(patterns)
    if not pats:
        return None
    conds = []
    for p in pats:
        if "*" in p or "?" in p:
            like = p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            like = like.replace("*", "%").replace("?", "_")
            conds.append(f"{column} ILIKE {quote_literal(like)} ESCAPE '\\'")
        else:
            conds.append(f"{column} = {quote_literal(p)}")
    return "(" + " OR ".join(conds) + ")"


def _where(*conds: str | None) -> str:
    used = [c for c in conds if c]
    return (" WHERE " + " AND ".join(used)) if used else ""


def _store(ctx: Invocation) -> Database:
    from fayshell.store.schema import ensure_schema

    db = ctx.state.database
    ensure_schema(db)
    return db


def _relation(ctx: Invocation, sql: str) -> Relation:
    rel = _store(ctx).relation(sql)
    ctx.write_verbose(sql)
    return rel


# ---- -OnNode -------------------------------------------------------------------------------


def on_node_relation(
    ctx: Invocation, sql: str, session: list[str] | str | None, node: list[str] | None, exact: bool
) -> Relation:
    """A relation over the stores of the session's nodes (see fayshell.remote.agentquery)."""
    from fayshell.lang.plansplit import SplitOptions
    from fayshell.remote.agentquery import NodeDatabase
    from fayshell.remote.agentquery import Relation as NodeRelation
    from fayshell.tracing.sessions import memos

    name = _one_session(ctx, session)
    memo = memos(ctx.state).get(name)
    nodes = ctx.state.cluster.names(node if node else (memo.nodes if memo else None))
    db = NodeDatabase.scratch(
        hub=agent_hub(ctx.state),
        session=name,
        nodes=nodes,
        remembered=dict(memo.outputs) if memo else {},
        split_options=SplitOptions(exact_quantiles=exact),
        verbose=ctx.write_verbose,
        warn=ctx.write_warning,
    )
    if ctx.verbose:  # (folding 64 names into a node set costs more than the rest here)
        ctx.write_verbose(f"on {ctx.state.cluster.fold(nodes)}: {sql}")
    return NodeRelation(db, sql)


def _one_session(ctx: Invocation, session: list[str] | str | None) -> str:
    names = [session] if isinstance(session, str) else list(session or [])
    if len(names) != 1 or any(c in names[0] for c in "*?"):
        raise ctx.fail("-OnNode needs -Session with one session name (no wildcards)")
    return names[0]


_HUBS: dict[int, Any] = {}


def agent_hub(state: Any) -> Any:
    """The shell's AgentHub (agents kept warm between queries; stopped with the shell)."""
    import weakref

    from fayshell.remote.agenthub import AgentHub

    hub = _HUBS.get(id(state))
    if hub is None:
        hub = _HUBS[id(state)] = AgentHub(state.options)
        weakref.finalize(state, _close_hub, id(state))
    return hub


def set_agent_hub(state: Any, hub: Any) -> None:
    """Use ``hub`` for this shell (tests: a hub with its own bundle or settings)."""
    import weakref

    old = _HUBS.get(id(state))
    if old is not None and old is not hub:
        old.close()
    _HUBS[id(state)] = hub
    weakref.finalize(state, _close_hub, id(state))


def _close_hub(key: int) -> None:
    hub = _HUBS.pop(key, None)
    if hub is not None:
        hub.close()


@cmdlet(
    "Import-Trace",
    synopsis="Load CTF trace chunks (LTTng) into the DuckDB store.",
    description="PATH is a trace directory, an LTTng session output, or a tree laid out "
    "DIR/<session>/<node>/<chunk>/ (as Receive-Trace writes it). Each chunk is "
    "loaded once: importing it again is a no-op. Damaged stream files are reported "
    "as errors naming the file and byte offset; the events before the damage are "
    "kept. A chunk's rows can be queried as soon as it is decoded: it is written to "
    "the file in the background (the shell waits for that before it exits; an "
    "interrupted write imports the chunk again next time). See Get-Help about_Tables "
    "for the tables.",
    params=[
        Param(
            "Path",
            "strings",
            mandatory=True,
            position=0,
            complete="files",
            help="Trace directories or trees of chunks.",
        ),
        Param(
            "Node", str, help="Node name (default: from the tree layout or the trace's hostname)."
        ),
        Param("Session", str, help="Session name (default: from the layout or the trace)."),
        Param(
            "Database",
            str,
            complete="files",
            help="Load into this DuckDB file instead of the session's.",
        ),
    ],
    examples=[
        ("Import-Trace ./lttng-traces/incident-20250101", "Load one LTTng session."),
        (
            "Import-Trace ./pulled -Database incident.duckdb",
            "Load every pulled chunk into incident.duckdb.",
        ),
    ],
)
def import_trace_cmd(
    ctx: Invocation,
    *,
    path: list[str],
    node: str | None = None,
    session: str | None = None,
    database: str | None = None,
) -> list[ImportSummary]:
    from fayshell.errors import FayError, Interrupted, TraceFormatError
    from fayshell.store.database import Database
    from fayshell.store.loader import import_trace, start_first_chunk
    from fayshell.store.settings import ANSWER_FIRST

    fulls = [str(ctx.state.resolve_path(p)) for p in path]  # relative to the shell's location
    # the first chunk decodes while the database opens (in a fresh shell, before any answer)
    started = start_first_chunk(fulls[0], ANSWER_FIRST) if fulls else None
    own = database is not None and database != ctx.state.database_label
    db: Database | None = None
    out: list[ImportSummary] = []
    try:
        db = (
            Database.open(str(ctx.state.resolve_path(database)))
            if own and database
            else ctx.state.database
        )
        for k, (p, full) in enumerate(zip(path, fulls, strict=True)):
            task = ctx.progress(f"Import-Trace {p}", _size(full), "B")
            try:
                res = import_trace(
                    db,
                    full,
                    node=node,
                    session=session,
                    progress=task,
                    settings=ANSWER_FIRST,
                    started=started if k == 0 else None,
                )
            except Interrupted:
                raise  # Ctrl-C: exit 130, the chunk imports again next time
            except FayError as exc:
                raise ctx.fail(exc.message) from None
            finally:
                task.close()
            for err in res.errors:
                target = err.path if isinstance(err, TraceFormatError) else p
                ctx.write_error(ErrorRecord(target, "decode", err.message))
            out.append(
                ImportSummary(
                    p,
                    res.chunks_loaded,
                    res.chunks_skipped,
                    res.events,
                    res.discarded,
                    res.lost_packets,
                    len(res.errors),
                )
            )
    finally:
        if started is not None:
            started.close()  # not used, or used and stopped already: stopped either way
        if own and db is not None:
            db.close()
    return out


def _size(path: str) -> float | None:
    """Total bytes of the stream files under ``path`` (for the progress bar)."""
    from pathlib import Path

    root = Path(path).expanduser()
    if not root.exists():
        return None
    try:
        return float(
            sum(f.stat().st_size for f in root.rglob("*") if f.is_file() and f.name != "metadata")
        )
    except OSError:
        return None


@cmdlet(
    "Get-Event",
    synopsis="Events of the store (common columns), optionally by name, node or session.",
    params=[
        Param("Name", "strings", position=0, help="Event names (wildcards allowed)."),
        _NODE,
        _SESSION,
        Param("Chunk", str, help="Only events of this chunk id."),
        *_ON_NODE,
    ],
    examples=[
        ("Get-Event sched_switch | Measure-Object", "How many context switches."),
        ("Get-Event 'zipkin:*' -Node web01 | Select-Object -First 5", "BlkKin events."),
    ],
)
def get_event(
    ctx: Invocation,
    *,
    name: list[str] | None = None,
    node: list[str] | None = None,
    session: list[str] | None = None,
    chunk: str | None = None,
    on_node: bool = False,
    exact_percentile: bool = False,
) -> Relation:
    cond = _match("name", name)
    if on_node:
        return on_node_relation(
            ctx,
            "SELECT * FROM events"
            + _where(
                cond,
                _match("session", session),
                f"chunk_id = {quote_literal(chunk)}" if chunk else None,
            )
            + " ORDER BY ts, node, eid",
            session,
            node,
            exact_percentile,
        )
    return _relation(
        ctx,
        "SELECT * FROM events"
        + _where(
            cond,
            _match("node", node),
            _match("session", session),
            f"chunk_id = {quote_literal(chunk)}" if chunk else None,
        )
        + " ORDER BY ts, node, eid",
    )


@cmdlet(
    "Get-Syscall",
    synopsis="System calls (entry/exit pairs) with their duration, per thread.",
    params=[
        Param("Name", "strings", position=0, help="System call names, e.g. read, open*."),
        _NODE,
        _SESSION,
        Param("ProcessId", int, aliases=("Pid",), help="Only this process."),
        Param("ThreadId", int, aliases=("Tid",), help="Only this thread."),
        Param("MinDuration", "duration", help="Only calls lasting at least this long."),
        *_ON_NODE,
    ],
    examples=[
        (
            "Get-Syscall read -MinDuration 1ms | Sort-Object dur_ns -Descending",
            "Slow reads, slowest first.",
        ),
        (
            "Get-Syscall | Group-Object name | Sort-Object Count -Descending",
            "The most frequent system calls.",
        ),
        (
            "Get-Syscall -OnNode -Session incident | Group-Object name",
            "Counted on every node, merged here: only the counts cross the network.",
        ),
    ],
)
def get_syscall(
    ctx: Invocation,
    *,
    name: list[str] | None = None,
    node: list[str] | None = None,
    session: list[str] | None = None,
    process_id: int | None = None,
    thread_id: int | None = None,
    min_duration: Any = None,
    on_node: bool = False,
    exact_percentile: bool = False,
) -> Relation:
    if on_node:
        return on_node_relation(
            ctx,
            "SELECT *, dur_ns / 1e6 AS dur_ms FROM syscalls"
            + _where(
                _match("name", name),
                _match("session", session),
                f"pid = {int(process_id)}" if process_id is not None else None,
                f"tid = {int(thread_id)}" if thread_id is not None else None,
                f"dur_ns >= {int(min_duration)}" if min_duration is not None else None,
            ),
            session,
            node,
            exact_percentile,
        )
    return _relation(
        ctx,
        "SELECT *, dur_ns / 1e6 AS dur_ms FROM syscalls"
        + _where(
            _match("name", name),
            _match("node", node),
            _match("session", session),
            f"pid = {int(process_id)}" if process_id is not None else None,
            f"tid = {int(thread_id)}" if thread_id is not None else None,
            f"dur_ns >= {int(min_duration)}" if min_duration is not None else None,
        ),
    )


@cmdlet(
    "Get-Span",
    synopsis="BlkKin/Zipkin spans with durations, annotations and key/values.",
    params=[
        Param("Service", "strings", help="Service names (wildcards allowed)."),
        Param("Name", "strings", position=0, help="Span (trace) names."),
        _NODE,
        _SESSION,
        Param("TraceId", int, help="Only spans of this trace."),
        Param("MinDuration", "duration", help="Only spans lasting at least this long."),
        Param("ErrorOnly", bool, help="Only spans with an 'error' key/value."),
        Param(
            "Estimate",
            bool,
            help="Counts per node, service and name scaled by the "
            "1/N sampling rate (Enable-Tracepoint -SampleEvery) "
            "the spans were recorded at.",
        ),
        *_ON_NODE,
    ],
    examples=[
        (
            "Get-Span -Service vlmcd | Where-Object { $_.dur_ms -gt 50 }",
            "Slow spans of one service.",
        ),
        ("Get-Span -TraceId 42 | Sort-Object ts_start", "One trace, in order."),
        ("Get-Span -Estimate", "Kept and estimated spans and traces under sampling."),
    ],
)
def get_span(
    ctx: Invocation,
    *,
    service: list[str] | None = None,
    name: list[str] | None = None,
    node: list[str] | None = None,
    session: list[str] | None = None,
    trace_id: int | None = None,
    min_duration: Any = None,
    error_only: bool = False,
    estimate: bool = False,
    on_node: bool = False,
    exact_percentile: bool = False,
) -> Relation:
    if estimate:
        from fayshell.store.sampling import ensure_sampling, estimate_sql

        if on_node:
            raise ctx.fail("-Estimate works on the shell's database, not with -OnNode")
        ensure_sampling(_store(ctx))
        return _relation(
            ctx,
            estimate_sql(
                get_span(
                    ctx,
                    service=service,
                    name=name,
                    node=node,
                    session=session,
                    trace_id=trace_id,
                    min_duration=min_duration,
                    error_only=error_only,
                ).sql
            ),
        )
    conds = (
        f"trace_id = {int(trace_id)}" if trace_id is not None else None,
        f"dur_ns >= {int(min_duration)}" if min_duration is not None else None,
        "error" if error_only else None,
    )
    if on_node:
        return on_node_relation(
            ctx,
            "SELECT *, dur_ns / 1e6 AS dur_ms FROM spans"
            + _where(
                _match("service", service), _match("name", name), _match("session", session), *conds
            ),
            session,
            node,
            exact_percentile,
        )
    return _relation(
        ctx,
        "SELECT *, dur_ns / 1e6 AS dur_ms FROM spans"
        + _where(
            _match("service", service),
            _match("name", name),
            _match("node", node),
            _match("session", session),
            *conds,
        ),
    )


@cmdlet(
    "Get-Log",
    synopsis="Log records (python/JUL/log4j agents and UST events with log levels).",
    params=[
        Param("Severity", str, choices=SEVERITIES, help="This severity and more severe ones."),
        Param("Exact", bool, help="With -Severity: only that severity."),
        Param("Logger", "strings", position=0, help="Logger names (wildcards allowed)."),
        Param("Domain", "strings", help="python, jul, log4j or ust."),
        Param("Message", str, help="Only messages containing this text (wildcards allowed)."),
        _NODE,
        _SESSION,
        *_ON_NODE,
    ],
    examples=[
        ("Get-Log -Severity Warning", "Warnings and worse."),
        (
            "Get-Log 'storage.*' -Severity Error -Exact | Group-Object node",
            "Errors of the storage loggers per node.",
        ),
    ],
)
def get_log(
    ctx: Invocation,
    *,
    severity: str | None = None,
    exact: bool = False,
    logger: list[str] | None = None,
    domain: list[str] | None = None,
    message: str | None = None,
    node: list[str] | None = None,
    session: list[str] | None = None,
    on_node: bool = False,
    exact_percentile: bool = False,
) -> Relation:
    sev = None
    if severity is not None:
        word = next(w for w in SEVERITIES if w.lower() == severity.lower())
        allowed = [word] if exact else list(SEVERITIES[: SEVERITIES.index(word) + 1])
        sev = "severity IN (" + ", ".join(quote_literal(w) for w in allowed) + ")"
    elif exact:
        raise ctx.fail("-Exact needs -Severity")
    msg = None
    if message is not None:
        msg = _match("msg", message if any(c in message for c in "*?") else f"*{message}*")
    if on_node:
        return on_node_relation(
            ctx,
            "SELECT * FROM logs"
            + _where(
                sev,
                _match("logger", logger),
                _match("domain", domain),
                msg,
                _match("session", session),
            ),
            session,
            node,
            exact_percentile,
        )
    return _relation(
        ctx,
        "SELECT * FROM logs"
        + _where(
            sev,
            _match("logger", logger),
            _match("domain", domain),
            msg,
            _match("node", node),
            _match("session", session),
        ),
    )


@cmdlet(
    "Get-TraceChunk",
    synopsis="The trace chunks loaded in the store, with event and loss counts.",
    params=[_NODE, _SESSION],
    examples=[
        ("Get-TraceChunk | Sort-Object first_ts", "What was loaded, oldest first."),
        ("Get-TraceChunk | Where-Object { $_.discarded -gt 0 }", "Chunks with losses."),
    ],
)
def get_trace_chunk(
    ctx: Invocation, *, node: list[str] | None = None, session: list[str] | None = None
) -> Relation:
    return _relation(
        ctx, "SELECT * FROM chunks" + _where(_match("node", node), _match("session", session))
    )
