"""Driving the `lttng` CLI safely: validation, severity mapping, argv building, MI parsing, chunks.

Transport-independent: nothing here opens a connection. The remote layer runs the argv lists this
package builds (quoted with :func:`to_command_line` for a remote shell) and feeds the answers back
to the parsers.
"""

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
from fayshell.lttng.explain import explain_failure
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
from fayshell.lttng.severity import WORDS, LevelOption, NativeLevel, level_option, severity_of

__all__ = [
    "WORDS", "AddContext", "ChannelInfo", "ChunkFile", "ChunkInfo", "ChunkListing", "ContextResult",
    "CreateSession", "Destroy", "DisableEvent", "DisableRotation", "DomainInfo", "EnableChannel",
    "EnableEvent", "EnableRotation", "EventInfo", "LevelOption", "ListSessions", "MiCommand",
    "NativeLevel", "RemoteEntry", "Request", "Rotate", "RotationInfo", "SessionInfo", "SnapshotRecord",
    "Start", "Stop", "Version", "VersionInfo", "explain_failure", "filter_expression", "find_chunks",
    "level_option", "list_local", "parse_channels", "parse_command", "parse_contexts", "parse_events",
    "parse_rotation", "parse_session", "parse_sessions", "parse_version", "severity_of",
    "to_command_line",
]
