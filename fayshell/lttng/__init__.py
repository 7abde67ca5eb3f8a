"""Driving the `lttng` CLI safely: validation, severity mapping, argv building, MI parsing, chunks.

Transport-independent: nothing here opens a connection. The remote layer runs the argv lists this
package builds (quoted with :func:`to_command_line` for a remote shell) and feeds the answers back
to the parsers. The names below are loaded on first use: the store imports only the severity
ladder, which should not cost it the argv builders and the MI parser (~40 ms of a fresh start).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fayshell.lttng.argv import (
        AddContext,
        CreateSession,
        Destroy,
        DisableEvent,
        DisableRotation,
        EnableChannel,
        EnableEvent,
        EnableRotation,
        ListSessions,
        Request,
        Rotate,
        SnapshotRecord,
        Start,
        StartSessiond,
        Stop,
        Version,
        to_command_line,
    )
    from fayshell.lttng.chunks import (
        ChunkFile,
        ChunkInfo,
        ChunkListing,
        RemoteEntry,
        find_chunks,
        list_local,
    )
    from fayshell.lttng.explain import explain_failure, needs_sessiond
    from fayshell.lttng.filter import filter_expression
    from fayshell.lttng.mi import (
        ChannelInfo,
        ContextResult,
        DomainInfo,
        EventInfo,
        MiCommand,
        RotationInfo,
        SessionInfo,
        VersionInfo,
        parse_channels,
        parse_command,
        parse_contexts,
        parse_events,
        parse_rotation,
        parse_session,
        parse_sessions,
        parse_version,
    )
    from fayshell.lttng.plan import NewSessionOptions, cleanup_requests, new_session_requests
    from fayshell.lttng.severity import WORDS, LevelOption, NativeLevel, level_option, severity_of

#: The submodule that defines each name of the package.
_WHERE = {
    "AddContext": "fayshell.lttng.argv",
    "ChannelInfo": "fayshell.lttng.mi",
    "ChunkFile": "fayshell.lttng.chunks",
    "ChunkInfo": "fayshell.lttng.chunks",
    "ChunkListing": "fayshell.lttng.chunks",
    "ContextResult": "fayshell.lttng.mi",
    "CreateSession": "fayshell.lttng.argv",
    "Destroy": "fayshell.lttng.argv",
    "DisableEvent": "fayshell.lttng.argv",
    "DisableRotation": "fayshell.lttng.argv",
    "DomainInfo": "fayshell.lttng.mi",
    "EnableChannel": "fayshell.lttng.argv",
    "EnableEvent": "fayshell.lttng.argv",
    "EnableRotation": "fayshell.lttng.argv",
    "EventInfo": "fayshell.lttng.mi",
    "LevelOption": "fayshell.lttng.severity",
    "ListSessions": "fayshell.lttng.argv",
    "MiCommand": "fayshell.lttng.mi",
    "NativeLevel": "fayshell.lttng.severity",
    "NewSessionOptions": "fayshell.lttng.plan",
    "RemoteEntry": "fayshell.lttng.chunks",
    "Request": "fayshell.lttng.argv",
    "Rotate": "fayshell.lttng.argv",
    "RotationInfo": "fayshell.lttng.mi",
    "SessionInfo": "fayshell.lttng.mi",
    "SnapshotRecord": "fayshell.lttng.argv",
    "Start": "fayshell.lttng.argv",
    "StartSessiond": "fayshell.lttng.argv",
    "Stop": "fayshell.lttng.argv",
    "Version": "fayshell.lttng.argv",
    "VersionInfo": "fayshell.lttng.mi",
    "WORDS": "fayshell.lttng.severity",
    "cleanup_requests": "fayshell.lttng.plan",
    "explain_failure": "fayshell.lttng.explain",
    "filter_expression": "fayshell.lttng.filter",
    "find_chunks": "fayshell.lttng.chunks",
    "level_option": "fayshell.lttng.severity",
    "list_local": "fayshell.lttng.chunks",
    "needs_sessiond": "fayshell.lttng.explain",
    "new_session_requests": "fayshell.lttng.plan",
    "parse_channels": "fayshell.lttng.mi",
    "parse_command": "fayshell.lttng.mi",
    "parse_contexts": "fayshell.lttng.mi",
    "parse_events": "fayshell.lttng.mi",
    "parse_rotation": "fayshell.lttng.mi",
    "parse_session": "fayshell.lttng.mi",
    "parse_sessions": "fayshell.lttng.mi",
    "parse_version": "fayshell.lttng.mi",
    "severity_of": "fayshell.lttng.severity",
    "to_command_line": "fayshell.lttng.argv",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_WHERE[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "AddContext",
    "ChannelInfo",
    "ChunkFile",
    "ChunkInfo",
    "ChunkListing",
    "ContextResult",
    "CreateSession",
    "Destroy",
    "DisableEvent",
    "DisableRotation",
    "DomainInfo",
    "EnableChannel",
    "EnableEvent",
    "EnableRotation",
    "EventInfo",
    "LevelOption",
    "ListSessions",
    "MiCommand",
    "NativeLevel",
    "NewSessionOptions",
    "RemoteEntry",
    "Request",
    "Rotate",
    "RotationInfo",
    "SessionInfo",
    "SnapshotRecord",
    "Start",
    "StartSessiond",
    "Stop",
    "Version",
    "VersionInfo",
    "WORDS",
    "cleanup_requests",
    "explain_failure",
    "filter_expression",
    "find_chunks",
    "level_option",
    "list_local",
    "needs_sessiond",
    "new_session_requests",
    "parse_channels",
    "parse_command",
    "parse_contexts",
    "parse_events",
    "parse_rotation",
    "parse_session",
    "parse_sessions",
    "parse_version",
    "severity_of",
    "to_command_line",
]
