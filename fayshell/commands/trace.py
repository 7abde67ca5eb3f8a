"""LTTng across the cluster: sessions, tracepoints by severity, rotation, snapshots, pulling chunks.

Every cmdlet validates its whole request (names, patterns, severities, filters, sizes) before
anything is sent, then fans out to ``-Node`` (default: the nodes the session was created on, else
every node). A node that fails becomes an error record naming it and LTTng's reason; the others
go on. Orchestration lives in :mod:`fayshell.tracing`; this module only declares and binds.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.commands.remote import NODE_PARAM, node_specs, seconds
from fayshell.tracing.records import ReceivedChunk, TraceResult, TraceSessionStatus
from fayshell.vocabulary import DOMAINS, SEVERITIES

if TYPE_CHECKING:
    from fayshell.lttng import Request
    from fayshell.remote.inventory import NodeSpec
    from fayshell.remote.transport import Transport
    from fayshell.tracing.receive import Importer

T = TypeVar("T")
SESSION_PARAM = Param(
    "Session",
    str,
    mandatory=True,
    position=0,
    aliases=("Name",),
    complete="sessions",
    help="The recording session.",
)
#: For cmdlets that also have -Name (event patterns).
SESSION_ONLY = Param(
    "Session", str, mandatory=True, position=0, complete="sessions", help="The recording session."
)
CHANNEL_PARAM = Param("Channel", str, help="Kernel/user channel (default channel0).")


def _check_session(ctx: Invocation, name: str, parameter: str = "Session") -> str:
    """Reject a session name LTTng would refuse (or a shell/path would misread), up front."""
    from fayshell.lttng.names import session_name

    return session_name(name, ctx.name, parameter)


def _targets(ctx: Invocation, session: str, node: Any) -> list[NodeSpec]:
    """``-Node``, else the nodes the session was created on, else every node."""
    from fayshell.tracing.sessions import memos

    if node is not None:
        return node_specs(ctx, node)
    memo = memos(ctx.state).get(session)
    return ctx.state.cluster.resolve(memo.nodes if memo else None)


async def _fan(
    ctx: Invocation,
    specs: list[NodeSpec],
    fn: Callable[[Transport], Awaitable[T]],
    timeout: float | None = None,
) -> AsyncIterator[T]:
    """Run ``fn`` per node; yield each value, report each failed node as an error record."""
    from fayshell.remote.results import NodeError

    async for rec in ctx.state.cluster.map(specs, fn, timeout=timeout):
        if isinstance(rec, NodeError):
            ctx.write_error(ErrorRecord(rec.node, rec.stage, rec.message))
        else:
            yield rec.value


async def _each(
    ctx: Invocation,
    session: str,
    node: Any,
    req: Request,
    action: str,
    timeout: float | None = None,
    already: str = "",
) -> AsyncIterator[TraceResult]:
    """Send one already-validated request to the session's nodes; one record per success.

    ``already``: LTTng's words for "that is the state already" (e.g. tracing already started),
    which is a success, so re-running a command after a partial failure repairs it.
    """
    from fayshell.errors import RemoteError
    from fayshell.tracing.lttngrun import COMMAND_TIMEOUT, run_request

    async def one(t: Transport) -> TraceResult:
        try:
            await run_request(t, req, timeout or COMMAND_TIMEOUT)
        except RemoteError as exc:
            if not already or already.lower() not in exc.message.lower():
                raise
            return TraceResult(t.node, session, f"already {action}")
        return TraceResult(t.node, session, action, " ".join(req.args()[1:]))

    async for rec in _fan(ctx, _targets(ctx, session, node), one):
        yield rec


@cmdlet(
    "New-TraceSession",
    synopsis="Create a recording session (and its channel) on every node.",
    description="Starts lttng-sessiond for the SSH user on nodes where none runs (and says so). "
    "A node where part of the setup fails is cleaned up and reported; Ctrl-C "
    "destroys whatever was already created.",
    params=[
        Param("Name", str, mandatory=True, position=0, aliases=("Session",)),
        NODE_PARAM,
        Param("Output", str, help="Absolute output directory on the nodes."),
        Param("Snapshot", bool, help="Flight-recorder session (Save-TraceSnapshot)."),
        Param("Live", str, help="Live session streaming to this relay URL (net://HOST)."),
        Param("Rotate", "dursize", help="Rotate every period (2s) or size (64MB)."),
        Param("BufferSize", "size", help="Sub-buffer size (power of two)."),
        Param("BufferCount", int, help="Sub-buffers per stream (power of two)."),
        Param("Overwrite", bool, help="Overwrite oldest data when full (flight recorder)."),
        Param("PerUid", bool, help="Per-user buffers (needed by python/jul/log4j)."),
        Param("PerPid", bool, help="Per-process buffers."),
    ],
    examples=[
        (
            "New-TraceSession incident -Node 'web[01-16]' -Rotate 2s",
            "A session rotating every 2 s on sixteen nodes.",
        )
    ],
)
async def new_trace_session(
    ctx: Invocation,
    *,
    name: str,
    node: Any = None,
    output: str | None = None,
    snapshot: bool = False,
    live: str | None = None,
    rotate: Any = None,
    buffer_size: Any = None,
    buffer_count: int | None = None,
    overwrite: bool = False,
    per_uid: bool = False,
    per_pid: bool = False,
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng import NewSessionOptions, new_session_requests
    from fayshell.tracing.records import SessionMemo
    from fayshell.tracing.sessions import Created, cleanup, create_on_node, remember

    _check_session(ctx, name, "Name")
    plan = new_session_requests(
        NewSessionOptions(
            name,
            output=output,
            snapshot=snapshot,
            live=live,
            rotate=_rotate_spec(rotate),
            buffer_size=None if buffer_size is None else int(buffer_size),
            buffer_count=buffer_count,
            overwrite=overwrite,
            per_uid=per_uid,
            per_pid=per_pid,
        )
    )
    specs = node_specs(ctx, node)
    pending: set[str] = set()
    made: list[Created] = []
    try:
        async for done in _fan(ctx, specs, lambda t: create_on_node(t, name, plan, pending)):
            made.append(done)
            if done.sessiond_started:
                ctx.write_warning(
                    f"{done.node}: no lttng-sessiond ran for the SSH user; started one"
                )
            yield TraceResult(done.node, name, "created", done.output)
    except BaseException:  # Ctrl-C (cancel), or the consumer dropped us (GeneratorExit)
        await _cleanup_after_cancel(ctx, cleanup(ctx.state.cluster, pending, name), name)
        raise
    if made:
        mode = "snapshot" if snapshot else "live" if live else "normal"
        remember(
            ctx.state,
            SessionMemo(
                name,
                [m.node for m in made],
                mode,
                {m.node: output or m.output for m in made},
                rotate_timer_ns=_timer_ns(name, rotate),
            ),
        )


def _timer_ns(session: str, rotate: Any) -> int | None:
    """The rotation period -Rotate sets (None for none, or for a size)."""
    from fayshell.lttng import EnableRotation

    spec = _rotate_spec(rotate)
    timer_us = EnableRotation.parse(session, spec).timer_us if spec else None
    return None if timer_us is None else timer_us * 1000


def _rotate_spec(value: Any) -> str | None:
    """-Rotate as lttng understands it: a Duration becomes microseconds, a Size bytes."""
    from fayshell.lang.values import Duration, Size

    if value is None:
        return None
    if isinstance(value, Duration):
        return f"{max(1, int(value) // 1000)}us"
    if isinstance(value, Size):
        return f"{int(value)}b"
    return str(value)


async def _cleanup_after_cancel(ctx: Invocation, work: Awaitable[list[str]], name: str) -> None:
    """Finish the cleanup even when Ctrl-C is pressed again; list what could not be removed."""
    task = asyncio.ensure_future(work)
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            continue
    left = task.result() if not task.cancelled() and task.exception() is None else []
    if left:
        ctx.write_warning(
            f"interrupted: session {name!r} is left on {', '.join(left)}; "
            f"run Remove-TraceSession {name} -Force"
        )
    else:
        ctx.write_warning(f"interrupted: session {name!r} was removed from every node")


@cmdlet(
    "Enable-Tracepoint",
    synopsis="Enable events in a domain, by name pattern, severity and filter.",
    description="-Severity Warning keeps Warning and more severe (LTTng --loglevel); -Exact only "
    "that level (--loglevel-only). The kernel domain has no severities.",
    params=[
        SESSION_ONLY,
        Param("Domain", str, mandatory=True, choices=DOMAINS),
        Param("Name", "strings", help="Event name patterns (default: all)."),
        Param("Severity", str, choices=SEVERITIES),
        Param("Exact", bool, help="Only the -Severity level, not the more severe ones."),
        Param("Filter", str, help="LTTng filter expression."),
        Param("Syscall", bool, help="System calls (kernel domain)."),
        Param(
            "SampleEvery",
            int,
            help="Keep 1 BlkKin trace in N (N a power of two), whole "
            "traces by trace_id, filtered in the traced process.",
        ),
        CHANNEL_PARAM,
        NODE_PARAM,
    ],
    examples=[
        (
            "Enable-Tracepoint -Session incident -Domain python -Name 'storage.*' "
            "-Severity Warning",
            "Python log records of storage.* at WARNING and above.",
        ),
        (
            "Enable-Tracepoint -Session prod -Domain user -Name 'zipkin:*' -SampleEvery 16",
            "1 request in 16, every span of it (Get-Span -Estimate scales the counts).",
        ),
    ],
)
async def enable_tracepoint(
    ctx: Invocation,
    *,
    session: str,
    domain: str,
    name: list[str] | None = None,
    severity: str | None = None,
    exact: bool = False,
    filter: str | None = None,
    syscall: bool = False,
    sample_every: int | None = None,
    channel: str | None = None,
    node: Any = None,
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng import EnableEvent

    _check_session(ctx, session)
    req = EnableEvent(
        session,
        domain,
        tuple(name) if name else None,
        channel=channel,
        severity=severity,
        exact=exact,
        filter=filter,
        syscall=syscall,
        sample_every=sample_every,
    )
    done: list[str] = []
    async for rec in _each(ctx, session, node, req, "enabled"):
        done.append(rec.node)
        yield rec
    if sample_every is not None and done:
        from fayshell.store.sampling import record_sampling

        record_sampling(ctx.state.database, session, done, sample_every, req.full_filter or "")


@cmdlet(
    "Disable-Tracepoint",
    synopsis="Disable events in a domain (by name pattern, or all).",
    params=[
        SESSION_ONLY,
        Param("Domain", str, mandatory=True, choices=DOMAINS),
        Param("Name", "strings", help="Event name patterns (default: all)."),
        Param("Syscall", bool),
        CHANNEL_PARAM,
        NODE_PARAM,
    ],
    examples=[
        (
            "Disable-Tracepoint -Session incident -Domain python -Name 'storage.net'",
            "Stop recording one logger.",
        )
    ],
)
async def disable_tracepoint(
    ctx: Invocation,
    *,
    session: str,
    domain: str,
    name: list[str] | None = None,
    syscall: bool = False,
    channel: str | None = None,
    node: Any = None,
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng import DisableEvent

    _check_session(ctx, session)
    req = DisableEvent(
        session, domain, tuple(name) if name else None, channel=channel, syscall=syscall
    )
    async for rec in _each(ctx, session, node, req, "disabled"):
        yield rec


@cmdlet(
    "Add-TraceContext",
    synopsis="Record extra context fields with every event (vpid, vtid, procname...).",
    params=[
        SESSION_ONLY,
        Param("Type", "strings", mandatory=True),
        Param("Domain", str, default="user", choices=DOMAINS),
        CHANNEL_PARAM,
        NODE_PARAM,
    ],
    examples=[
        (
            "Add-TraceContext -Session incident -Type vpid,vtid,procname",
            "Every user-space event carries the process, thread and program name.",
        )
    ],
)
async def add_trace_context(
    ctx: Invocation,
    *,
    session: str,
    type: list[str],
    domain: str = "user",
    channel: str | None = None,
    node: Any = None,
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng import AddContext

    _check_session(ctx, session)
    req = AddContext(session, tuple(type), domain=domain, channel=channel)
    async for rec in _each(ctx, session, node, req, "context added"):
        yield rec


@cmdlet(
    "Start-Trace",
    synopsis="Start recording on every node of the session.",
    params=[SESSION_PARAM, NODE_PARAM],
    examples=[("Start-Trace incident", "Start on the nodes the session was created on.")],
)
async def start_trace(
    ctx: Invocation,
    *,
    session: str,
    node: Any = None,
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng import Start

    _check_session(ctx, session)
    async for rec in _each(
        ctx, session, node, Start(session), "started", already="already started"
    ):
        yield rec


@cmdlet(
    "Stop-Trace",
    synopsis="Stop recording (data flushed and readable) on every node.",
    params=[SESSION_PARAM, NODE_PARAM],
    examples=[("Stop-Trace incident -Node web03", "Stop one node only.")],
)
async def stop_trace(
    ctx: Invocation,
    *,
    session: str,
    node: Any = None,
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng import Stop

    _check_session(ctx, session)
    async for rec in _each(ctx, session, node, Stop(session), "stopped", already="already stopped"):
        yield rec


@cmdlet(
    "Remove-TraceSession",
    synopsis="Destroy the session on its nodes (asks first unless -Force).",
    description="A rotating session archives its last chunk when destroyed; Receive-Trace can "
    "still pull it afterwards (the shell remembers the output directories).",
    params=[
        SESSION_PARAM,
        NODE_PARAM,
        Param("Force", bool, help="Do not ask."),
        Param("WhatIf", bool, help="Only show what would be destroyed."),
    ],
    examples=[
        ("Remove-TraceSession incident -WhatIf", "The nodes it would be destroyed on."),
        ("Remove-TraceSession incident -Force", "Destroy without asking."),
    ],
)
async def remove_trace_session(
    ctx: Invocation,
    *,
    session: str,
    node: Any = None,
    force: bool = False,
    what_if: bool = False,
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng import Destroy
    from fayshell.tracing.sessions import mark_removed

    _check_session(ctx, session)
    specs = _targets(ctx, session, node)
    where = ctx.state.cluster.fold(s.name for s in specs)
    if what_if:
        for s in specs:
            yield TraceResult(s.name, session, "would destroy", "lttng destroy " + session)
        return
    if not force and not ctx.state.host.confirm(f"Destroy session {session!r} on {where}?"):
        ctx.write_warning(f"not confirmed: session {session!r} left as it is")
        return
    done = []
    try:
        async for rec in _each(
            ctx, session, [s.name for s in specs], Destroy(session), "destroyed"
        ):
            done.append(rec.node)
            yield rec
    finally:
        mark_removed(ctx.state, session, done)


@cmdlet(
    "Get-TraceSession",
    synopsis="Sessions per node: state, channels, events, output, chunks produced.",
    description="Nodes whose session differs from the majority (or lost it) have diverged=True.",
    params=[Param("Session", str, position=0, aliases=("Name",), complete="sessions"), NODE_PARAM],
    examples=[
        (
            "Get-TraceSession incident | Where-Object { $_.diverged }",
            "Nodes whose session is not like the others (or lost it).",
        )
    ],
)
async def get_trace_session(
    ctx: Invocation,
    *,
    session: str | None = None,
    node: Any = None,
) -> AsyncIterator[TraceSessionStatus]:
    from fayshell.tracing.sessions import memos
    from fayshell.tracing.status import mark_divergence, node_status

    if session is not None:
        _check_session(ctx, session)
    specs = _targets(ctx, session, node) if session else node_specs(ctx, node)
    names = {s.name for s in specs}
    found: list[TraceSessionStatus] = []
    async for recs in _fan(ctx, specs, lambda t: node_status(t, session)):
        found += recs
    expected = {
        n: [x for x in m.nodes if x in names]
        for n, m in memos(ctx.state).items()
        if not m.removed and (session is None or n == session)
    }
    for rec in mark_divergence(found, expected):
        yield rec


@cmdlet(
    "Save-TraceSnapshot",
    synopsis="Write the flight-recorder buffers as a new chunk.",
    params=[SESSION_PARAM, NODE_PARAM],
    examples=[
        (
            "Save-TraceSnapshot flight; Receive-Trace flight",
            "Record the ring buffers now and pull the snapshot.",
        )
    ],
)
async def save_trace_snapshot(
    ctx: Invocation,
    *,
    session: str,
    node: Any = None,
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng import SnapshotRecord

    _check_session(ctx, session)
    # while a flight-recorder watch runs, a snapshot named like a trigger's would read as a firing
    watched = any(w.spec.session == session for w in ctx.state.trace_triggers.values())
    req = SnapshotRecord(session, "manual" if watched else None)
    async for rec in _each(ctx, session, node, req, "snapshot recorded"):
        yield rec


@cmdlet(
    "Invoke-TraceRotation",
    synopsis="Archive the current chunk now on every node.",
    params=[SESSION_PARAM, NODE_PARAM],
    examples=[("Invoke-TraceRotation incident", "Close the current chunk so it can be pulled.")],
)
async def invoke_trace_rotation(
    ctx: Invocation,
    *,
    session: str,
    node: Any = None,
) -> AsyncIterator[TraceResult]:
    _check_session(ctx, session)
    async for rec in _rotate(ctx, session, _targets(ctx, session, node)):
        yield rec


async def _rotate(
    ctx: Invocation,
    session: str,
    specs: list[NodeSpec],
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng import Rotate, parse_rotation
    from fayshell.tracing.lttngrun import ROTATE_TIMEOUT, run_request

    async def one(t: Transport) -> TraceResult:
        res = await run_request(t, Rotate(session), ROTATE_TIMEOUT)  # can hang on 2.13.9
        rot = parse_rotation(res.stdout)
        return TraceResult(t.node, session, "rotated", rot.path or rot.state)

    async for rec in _fan(ctx, specs, one, timeout=ROTATE_TIMEOUT + 5):
        yield rec


@cmdlet(
    "Receive-Trace",
    synopsis="Pull every complete chunk of a session from its nodes into DIR/<session>/<node>/.",
    description="Incremental (chunks already here are skipped), atomic (written under a "
    "temporary name, sizes verified, then renamed) and resumable. -Import loads each "
    "chunk into the database as it lands; -Watch rotates and pulls every -Interval "
    "until Ctrl-C.",
    params=[
        SESSION_PARAM,
        NODE_PARAM,
        Param("Destination", str, complete="files", help="Local directory (default: .)."),
        Param("Import", bool, help="Load each received chunk into the DuckDB store."),
        Param("Watch", bool, help="Keep rotating and pulling until Ctrl-C."),
        Param("Interval", "duration", help="-Watch period (default 2s)."),
        Param("Timeout", "duration", help="Per-node limit for one pull."),
    ],
    examples=[
        (
            "Receive-Trace incident -Destination ~/traces -Import",
            "Pull what the nodes archived so far and load it.",
        )
    ],
)
async def receive_trace(
    ctx: Invocation,
    *,
    session: str,
    node: Any = None,
    destination: str | None = None,
    watch: bool = False,
    interval: int | None = None,
    timeout: int | None = None,
    import_: bool = False,
) -> AsyncIterator[ReceivedChunk]:
    _check_session(ctx, session)
    importer = _importer(ctx) if import_ else None
    dest = ctx.state.resolve_path(destination or ".")
    specs = _targets(ctx, session, node)
    period = seconds(interval) or 2.0
    while True:
        if watch:  # archive what was recorded since the last round, then pull it
            async for _ in _rotate(ctx, session, specs):
                pass
        async for rec in _receive_once(ctx, session, specs, dest, importer, seconds(timeout)):
            yield rec
        if not watch:
            return
        await asyncio.sleep(period)


async def _receive_once(
    ctx: Invocation,
    session: str,
    specs: list[NodeSpec],
    dest: Path,
    importer: Importer | None,
    timeout: float | None,
) -> AsyncIterator[ReceivedChunk]:
    """One incremental pull from every node, with a byte progress bar and a rate summary."""
    import time

    from fayshell.remote.results import NodeError
    from fayshell.tracing.receive import ByteProgress, NodeReceipt, receive
    from fayshell.tracing.sessions import memos

    memo = memos(ctx.state).get(session)
    task = ctx.progress(f"Receive-Trace {session}", None, unit="bytes")
    progress = ByteProgress(task)
    start = time.perf_counter()
    received = skipped = empty = 0
    try:
        async for rec in receive(
            ctx.state.cluster,
            specs,
            session,
            dest,
            memo.outputs if memo else {},
            progress,
            importer,
            timeout,
        ):
            if isinstance(rec, NodeError):
                ctx.write_error(ErrorRecord(rec.node, rec.stage, rec.message))
            elif isinstance(rec, NodeReceipt):
                received += rec.received
                skipped += rec.skipped
                empty += rec.empty
            else:
                yield rec
    finally:
        task.close()
    secs = time.perf_counter() - start
    ctx.write_verbose(
        f"Receive-Trace {session}: {received} chunk(s), {progress.done} bytes in "
        f"{secs:.2f}s ({progress.done / max(secs, 1e-9) / 1e6:.1f} MB/s); "
        f"{skipped} already here, {empty} empty"
    )


def _importer(ctx: Invocation) -> Importer:
    """Load each chunk with the store loader, one at a time, off the event loop."""
    try:
        from fayshell.store.loader import import_trace
    except ImportError as exc:
        raise ctx.fail(
            f"-Import needs the DuckDB loader (fayshell.store.loader), which cannot "
            f"be imported here: {exc}"
        ) from None
    db = ctx.state.database
    lock = asyncio.Lock()

    async def load(path: Path, node: str, session: str) -> int:
        async with lock:
            res = await asyncio.to_thread(import_trace, db, path, node=node, session=session)
        for err in res.errors:
            ctx.write_error(ErrorRecord(node, "import", err.one_line()))
        return res.events

    return load
