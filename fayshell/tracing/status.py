"""Get-TraceSession: each node's view of its sessions, and which nodes diverge from the rest."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from fayshell.lttng import find_chunks
from fayshell.lttng.mi import EventInfo, SessionInfo
from fayshell.tracing.receive import walk
from fayshell.tracing.records import TraceSessionStatus
from fayshell.tracing.sessions import list_sessions, snapshot_output

if TYPE_CHECKING:
    from fayshell.remote.transport import Transport


def _channels(info: SessionInfo) -> str:
    return ",".join(f"{c.domain}/{c.name}" for c in info.channels)


def _events(info: SessionInfo) -> str:
    def one(e: EventInfo) -> str:
        level, kind = e.loglevel, e.loglevel_type
        suffix = "" if not level or kind == "ALL" else ("=" if kind == "SINGLE" else "<=") + level
        return f"{e.domain}:{e.name}{suffix}{'' if e.enabled else ' (disabled)'}"

    return ",".join(sorted(one(e) for e in info.events))


async def node_status(t: Transport, name: str | None) -> list[TraceSessionStatus]:
    """The node's sessions (or the one named) with their complete and open chunk counts."""
    out = []
    for info in await list_sessions(t, name):
        path = info.local_path or (await snapshot_output(t, info.name) if info.snapshot else "")
        listing = find_chunks(await walk(t, path), stopped=not info.enabled) if path else None
        out.append(
            TraceSessionStatus(
                t.node,
                info.name,
                info.state,
                info.mode,
                path,
                _channels(info),
                _events(info),
                len(listing.complete) if listing else 0,
                len(listing.in_progress) if listing else 0,
            )
        )
    return out


def mark_divergence(
    records: Iterable[TraceSessionStatus], expected: dict[str, list[str]]
) -> list[TraceSessionStatus]:
    """Flag nodes whose state/channels/events differ from their session's majority, and add a
    ``missing`` record for each node expected to hold a session that it does not have."""
    recs = list(records)
    by_session: dict[str, list[TraceSessionStatus]] = {}
    for r in recs:
        by_session.setdefault(r.session, []).append(r)
    out = []
    for group in by_session.values():
        keys = Counter((r.state, r.mode, r.channels, r.events) for r in group)
        top, _ = keys.most_common(1)[0]
        out += [replace(r, diverged=(r.state, r.mode, r.channels, r.events) != top) for r in group]
    for session, nodes in expected.items():
        have = {r.node for r in by_session.get(session, [])}
        out += [
            TraceSessionStatus(n, session, "missing", "", "", "", "", 0, 0, True)
            for n in nodes
            if n not in have
        ]
    return sorted(out, key=lambda r: (r.session, r.node))
