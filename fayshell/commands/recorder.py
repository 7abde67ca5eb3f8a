"""The cluster-wide flight recorder: triggers that snapshot every node when one node fires.

Orchestration lives in :mod:`fayshell.tracing.recorder` (the watch) and
:mod:`fayshell.lttng.triggers` (the `lttng add-trigger` requests); this module declares and binds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.commands.remote import NODE_PARAM, seconds
from fayshell.commands.trace import DOMAINS, SESSION_ONLY, SEVERITIES, _fan, _targets
from fayshell.tracing.records import TraceResult

if TYPE_CHECKING:
    from fayshell.lttng.triggers import TriggerSpec
    from fayshell.remote.transport import Transport
    from fayshell.tracing.recorder import Firing, TriggerWatch

DEFAULT_WAIT_S = 30.0


@dataclass(frozen=True)
class TriggerRecord:
    """One trigger on one node (Get-TraceTrigger)."""

    node: str
    name: str
    session: str
    rule: str
    errors: int
    watched: bool
    firings: int


def watches(ctx: Invocation) -> dict[str, TriggerWatch]:
    """The watches this shell runs, by trigger base name."""
    return ctx.state.trace_triggers


@cmdlet(
    "Register-TraceTrigger",
    synopsis="Snapshot every node of a snapshot session when one node sees an event.",
    description=(
        "Adds an LTTng trigger (event rule matches → snapshot the session) on every node of "
        "the session, which must be in snapshot mode (New-TraceSession -Snapshot) and started. "
        "The firing node snapshots itself at once; the shell watches every node and snapshots "
        "all the others within about a second, and records the firing (Wait-TraceTrigger, "
        "Receive-Trace -Import pulls the set). -Count N fires on every Nth matching event. "
        "After -MaxFirings firings (default 1; 0 = no limit) the triggers are removed. The "
        "watch lives in this shell: a script that ends stops it (the node-side triggers stay "
        "until Unregister-TraceTrigger). Save-TraceSnapshot names its snapshots 'manual' while "
        "a watch runs, so they are not taken for firings."
    ),
    params=[
        SESSION_ONLY,
        Param("Domain", str, mandatory=True, choices=DOMAINS, help="Where the event comes from."),
        Param(
            "Name",
            str,
            mandatory=True,
            position=1,
            help="Event (tracepoint or logger) name pattern, * globs.",
        ),
        Param("Severity", str, choices=SEVERITIES, help="This severity and more severe."),
        Param("Exact", bool, help="Only exactly -Severity."),
        Param("Filter", str, help="LTTng filter expression on the event's fields."),
        Param("Count", int, default=1, help="Fire on every Nth match (default 1)."),
        Param("MaxFirings", int, default=1, help="Remove the triggers after this many firings."),
        Param("Label", str, help="Name of this trigger within the session (default t1, t2…)."),
        NODE_PARAM,
    ],
    examples=[
        (
            "Register-TraceTrigger flight -Domain python -Name 'storage.*' -Severity Error",
            "the first storage error anywhere snapshots every node",
        ),
        (
            "Register-TraceTrigger flight -Domain user -Name 'zipkin:timestamp' "
            "-Filter 'event == \"timeout\"' -MaxFirings 3",
            "up to three firings",
        ),
    ],
)
async def register_trace_trigger(
    ctx: Invocation,
    *,
    session: str,
    domain: str,
    name: str,
    severity: str | None = None,
    exact: bool = False,
    filter: str | None = None,
    count: int = 1,
    max_firings: int = 1,
    label: str | None = None,
    node: Any = None,
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng.triggers import TriggerSpec

    spec = TriggerSpec(
        session, label or _next_label(ctx, session), domain, name, severity, exact, filter, count
    )
    if spec.base_name in watches(ctx):
        raise ctx.fail(f"a trigger {spec.base_name} is already watched; pick another -Label")
    outputs: dict[str, str] = {}
    async for rec in _fan(ctx, _targets(ctx, session, node), lambda t: _add(t, spec, outputs)):
        yield rec
    if not outputs:
        raise ctx.fail(f"no node took the trigger {spec.base_name}")
    await _watch(ctx, spec, outputs, max_firings)


def _next_label(ctx: Invocation, session: str) -> str:
    taken = {w.spec.label for w in watches(ctx).values() if w.spec.session == session}
    return next(f"t{k}" for k in range(1, len(taken) + 2) if f"t{k}" not in taken)


async def _add(t: Transport, spec: TriggerSpec, outputs: dict[str, str]) -> TraceResult:
    """Check the session is a snapshot session on the node, then add its triggers."""
    from fayshell.errors import RemoteError
    from fayshell.lttng.triggers import trigger_requests
    from fayshell.tracing.lttngrun import LTTNG, run_request
    from fayshell.tracing.sessions import output_dir

    out = await output_dir(t, spec.session)
    if out.mode != "snapshot":
        raise RemoteError(
            t.node,
            LTTNG,
            f"session {spec.session!r} is not in snapshot mode "
            f"(create it with New-TraceSession -Snapshot)",
        )
    reqs = trigger_requests(spec)
    for req in reqs:
        await run_request(t, req)
    outputs[t.node] = out.path
    return TraceResult(
        t.node,
        spec.session,
        "trigger added",
        f"{spec.base_name}: {len(reqs)} rule(s) → snapshot-session",
    )


async def _watch(
    ctx: Invocation, spec: TriggerSpec, outputs: dict[str, str], max_firings: int
) -> None:
    from fayshell.tracing.recorder import TriggerWatch, WatchSettings

    specs = [s for s in ctx.state.cluster.resolve(sorted(outputs))]
    cluster = ctx.state.cluster

    async def finished(w: TriggerWatch) -> None:
        await _remove_everywhere(ctx, w.spec.session, w.spec.base_name, specs)

    watch = TriggerWatch(
        cluster,
        spec,
        specs,
        outputs,
        WatchSettings(max_firings=max(0, max_firings)),
        on_done=finished,
    )
    await watch.start()
    watches(ctx)[spec.base_name] = watch


async def _remove_everywhere(
    ctx: Invocation, session: str, prefix: str, specs: list[Any]
) -> list[TraceResult]:
    """Remove this shell's triggers named ``prefix``… on ``specs``; what was removed."""
    from fayshell.remote.results import NodeError

    out = []
    async for rec in ctx.state.cluster.map(specs, lambda t: _remove(t, session, prefix)):
        if isinstance(rec, NodeError):
            ctx.write_warning(f"{rec.node}: could not remove triggers: {rec.message}")
        else:
            out += rec.value
    return out


async def _remove(t: Transport, session: str, prefix: str) -> list[TraceResult]:
    from fayshell.errors import RemoteError
    from fayshell.lttng.triggers import ListTriggers, RemoveTrigger, parse_triggers
    from fayshell.tracing.lttngrun import run_request

    async def names() -> set[str]:
        return {tr.name for tr in parse_triggers((await run_request(t, ListTriggers())).stdout)}

    gone = []
    for name in sorted(await names()):
        if name == prefix or name.startswith(prefix + "-"):
            try:
                await run_request(t, RemoveTrigger(name))
            except RemoteError:
                # LTTng 2.13.9 says "Failed to unregister trigger" for a snapshot-session
                # trigger it did remove: believe the listing, not the exit status
                if name in await names():
                    raise
            gone.append(TraceResult(t.node, session, "trigger removed", name))
    return gone


@cmdlet(
    "Unregister-TraceTrigger",
    synopsis="Remove a session's flight-recorder triggers from every node.",
    params=[
        SESSION_ONLY,
        Param("Label", str, help="Only this trigger (default: all of the session's)."),
        NODE_PARAM,
    ],
    examples=[("Unregister-TraceTrigger flight", "disarm every trigger of the session")],
)
async def unregister_trace_trigger(
    ctx: Invocation, *, session: str, label: str | None = None, node: Any = None
) -> AsyncIterator[TraceResult]:
    from fayshell.lttng.triggers import PREFIX, trigger_name

    prefix = f"{PREFIX}{session}" + (f"-{label}" if label else "")
    trigger_name(prefix, ctx.name, "Label")
    for key, w in list(watches(ctx).items()):
        if key == prefix or key.startswith(prefix + "-"):
            await w.stop()
            del watches(ctx)[key]
    async for rec in _fan(ctx, _targets(ctx, session, node), lambda t: _remove(t, session, prefix)):
        for r in rec:
            yield r


@cmdlet(
    "Get-TraceTrigger",
    synopsis="List the flight-recorder triggers on the nodes.",
    params=[
        Param(
            "Session", str, position=0, complete="sessions", help="Only this session's triggers."
        ),
        NODE_PARAM,
    ],
    examples=[("Get-TraceTrigger flight", "the session's triggers on every node")],
)
async def get_trace_trigger(
    ctx: Invocation, *, session: str | None = None, node: Any = None
) -> AsyncIterator[TriggerRecord]:
    from fayshell.commands.remote import node_specs

    specs = (
        node_specs(ctx, node)
        if node is not None or session is None
        else _targets(ctx, session, None)
    )
    async for recs in _fan(ctx, specs, lambda t: _listed(ctx, t, session)):
        for r in recs:
            yield r


async def _listed(ctx: Invocation, t: Transport, session: str | None) -> list[TriggerRecord]:
    from fayshell.lttng.triggers import ListTriggers, parse_triggers
    from fayshell.tracing.lttngrun import run_request

    out = []
    for trig in parse_triggers((await run_request(t, ListTriggers())).stdout):
        if session is not None and trig.session != session:
            continue
        base = next(
            (k for k in watches(ctx) if trig.name == k or trig.name.startswith(k + "-")), None
        )
        w = watches(ctx).get(base) if base else None
        out.append(
            TriggerRecord(
                t.node,
                trig.name,
                trig.session,
                trig.rule,
                trig.errors,
                w is not None and not w.done.is_set(),
                len(w.firings) if w else 0,
            )
        )
    return out


@cmdlet(
    "Wait-TraceTrigger",
    synopsis="Wait for a flight-recorder trigger to fire; the firing and its snapshot set.",
    description=(
        "Returns the oldest firing not yet returned (one that happened before the "
        "call counts), or nothing with a warning when -Timeout passes first."
    ),
    params=[
        SESSION_ONLY,
        Param("Label", str, help="Only this trigger."),
        Param("Timeout", "duration", help=f"How long to wait (default {DEFAULT_WAIT_S:g}s)."),
    ],
    examples=[
        (
            "$f = Wait-TraceTrigger flight -Timeout 5m; Receive-Trace flight -Import",
            "wait for the first firing, then pull and import every node's snapshot",
        )
    ],
)
async def wait_trace_trigger(
    ctx: Invocation, *, session: str, label: str | None = None, timeout: Any = None
) -> AsyncIterator[Firing]:
    import asyncio

    mine = [
        w
        for w in watches(ctx).values()
        if w.spec.session == session and (label is None or w.spec.label == label)
    ]
    if not mine:
        raise ctx.fail(
            f"no trigger of session {session!r} is watched by this shell "
            "(Register-TraceTrigger first)"
        )
    limit = seconds(timeout) if timeout is not None else DEFAULT_WAIT_S
    waits = [asyncio.ensure_future(w.next_firing(limit)) for w in mine]
    try:
        done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        got = [f for f in (t.result() for t in done) if f is not None]
    finally:
        for w in waits:
            w.cancel()
        await asyncio.gather(*waits, return_exceptions=True)
    if not got:
        ctx.write_warning(f"no firing of {session} within {limit:g}s")
    for f in got[:1]:
        yield f
