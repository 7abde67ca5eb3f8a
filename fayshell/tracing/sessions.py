"""Per-node session operations and the shell's memory of where each session lives.

The shell remembers, per session it created, the nodes and their output directories in
``ShellState.trace_sessions`` (name -> :class:`SessionMemo`), so later commands default to those
nodes and Receive-Trace still finds the traces after the session was destroyed.
"""

from __future__ import annotations

import asyncio
import contextlib
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fayshell.errors import FayError, RemoteError
from fayshell.lttng import CreateSession, Destroy, ListSessions, Request, parse_sessions
from fayshell.lttng.mi import NS, SessionInfo
from fayshell.lttng.names import session_name
from fayshell.tracing.lttngrun import LTTNG, ensure_sessiond, run_argv, run_request
from fayshell.tracing.records import SessionMemo

if TYPE_CHECKING:
    from fayshell.remote.cluster import Cluster
    from fayshell.remote.transport import Transport
    from fayshell.state import ShellState

# -- memory ------------------------------------------------------------------------------------


def memos(state: ShellState) -> dict[str, SessionMemo]:
    """The sessions this shell created."""
    return state.trace_sessions


def remember(state: ShellState, memo: SessionMemo) -> None:
    """Record a session's nodes and outputs; publish the session names on the toolbar."""
    memos(state)[memo.name] = memo
    _publish(state)


def mark_removed(state: ShellState, name: str, nodes: Iterable[str]) -> None:
    """A remembered session was destroyed on ``nodes``: its outputs stay (for Receive-Trace);
    once it is gone from all its nodes it leaves the toolbar."""
    memo = memos(state).get(name)
    if memo is not None:
        memo.destroyed |= set(nodes)
    _publish(state)


def _publish(state: ShellState) -> None:
    names = sorted(n for n, m in memos(state).items() if not m.removed)
    if names:
        state.status["sessions"] = " ".join(names)
    else:
        state.status.pop("sessions", None)


# -- per node ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Created:
    """A session made on one node: its output directory and whether a sessiond was started."""

    node: str
    output: str
    sessiond_started: bool


async def create_on_node(
    t: Transport, name: str, plan: list[Request], pending: set[str]
) -> Created:
    """Run the New-TraceSession plan in order; undo a half-made session on failure.

    ``pending`` collects the nodes where ``create`` was sent, so a cancelled command can clean
    them up. A session already present is refused before anything is created.
    """
    started, listing = await ensure_sessiond(t)
    if any(s.name == name for s in parse_sessions(listing)):
        raise RemoteError(t.node, LTTNG, f"a session named {name!r} already exists on the node")
    output = ""
    pending.add(t.node)
    try:
        for req in plan:
            res = await run_request(t, req)
            if isinstance(req, CreateSession):
                output = next((s.path for s in parse_sessions(res.stdout)), "") or ""
                if req.mode == "snapshot" and not output:  # `create` does not say where
                    output = req.output or await snapshot_output(t, name)
    except RemoteError:
        await asyncio.shield(destroy_quietly(t, name))
        pending.discard(t.node)
        raise
    return Created(t.node, output, started)


async def destroy_quietly(t: Transport, name: str) -> bool:
    """Destroy a session, ignoring failure (it may not exist); True when it was destroyed."""
    try:
        await run_request(t, Destroy(name))
        return True
    except FayError:
        return False


async def cleanup(cluster: Cluster, nodes: Iterable[str], name: str) -> list[str]:
    """Destroy ``name`` on ``nodes``; return the nodes where the session still exists after."""
    names = sorted(set(nodes))
    if not names:
        return []

    async def undo(t: Transport) -> bool:
        await destroy_quietly(t, name)
        return await session_info(t, name) is not None

    left = []
    async for rec in cluster.map(names, undo, timeout=30):
        if getattr(rec, "value", True):
            left.append(rec.node)
    return sorted(left)


async def session_info(t: Transport, name: str) -> SessionInfo | None:
    """The session as `lttng list` shows it on the node, or None when the node has none."""
    res = await run_request(t, ListSessions())
    return next((s for s in parse_sessions(res.stdout) if s.name == name), None)


async def list_sessions(t: Transport, name: str | None) -> list[SessionInfo]:
    """Every session on the node (or the one named), with domains, channels and events."""
    res = await run_request(t, ListSessions())
    names = [s.name for s in parse_sessions(res.stdout) if name is None or s.name == name]
    out = []
    for n in names:
        with contextlib.suppress(RemoteError):  # destroyed between the two calls
            detail = await run_request(t, ListSessions(n))
            out += [s for s in parse_sessions(detail.stdout) if s.name == n]
    return out


async def snapshot_output(t: Transport, name: str) -> str:
    """The local directory snapshots of a snapshot session are written to (`list-output`)."""
    argv = ["lttng", "--mi", "xml", "snapshot", "list-output", f"--session={session_name(name)}"]
    res = await run_argv(t, argv)
    root = ET.fromstring(res.stdout)
    for url in root.iter(f"{{{NS}}}ctrl_url"):
        text = (url.text or "").removeprefix("file://")
        if text.startswith("/"):
            return text
    return ""


@dataclass(frozen=True)
class OutputDir:
    """Where a session's trace is on a node, and whether the session is still recording."""

    path: str
    stopped: bool
    mode: str


async def output_dir(t: Transport, name: str, remembered: str = "") -> OutputDir:
    """The session's output directory: from LTTng while it exists, else what the shell recorded."""
    info = await session_info(t, name)
    if info is None:
        if remembered:
            return OutputDir(remembered, True, "gone")
        raise RemoteError(t.node, LTTNG, f"no session {name!r} on the node and no recorded output")
    path = info.local_path or ""
    if info.snapshot:
        path = await snapshot_output(t, name) or remembered
    if not path:
        raise RemoteError(t.node, LTTNG, f"session {name!r} has no local output (streamed?)")
    return OutputDir(path, not info.enabled, info.mode)
