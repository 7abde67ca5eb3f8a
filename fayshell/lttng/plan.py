"""Cmdlet-level plans: the ordered lttng requests one cmdlet sends to every node.

`New-TraceSession` is several lttng commands (create, the channel, the rotation schedule); the
remote layer runs a plan in order on each node and stops at the first failure, and on Ctrl-C or
failure sends :func:`cleanup_requests` so no half-made session is left behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from fayshell.errors import ParameterError
from fayshell.lttng import names
from fayshell.lttng.argv import (
    DEFAULT_CHANNEL,
    CreateSession,
    Destroy,
    EnableChannel,
    EnableRotation,
    Request,
    SessionMode,
)

CMDLET = "New-TraceSession"


@dataclass(frozen=True)
class NewSessionOptions:
    """The parameters of `New-TraceSession`, as the cmdlet binds them."""

    name: str
    output: str | None = None
    snapshot: bool = False
    live: str | None = None  # relay URL
    live_delay_us: int | None = None
    rotate: str | None = None  # "2s", "500ms", "64MB", ...
    buffer_size: str | int | None = None  # per sub-buffer, e.g. "4MB"
    buffer_count: int | None = None
    overwrite: bool = False
    per_uid: bool = False
    per_pid: bool = False


def new_session_requests(opts: NewSessionOptions) -> list[Request]:
    """Validate everything up front, then: create, the user-space channel, the rotation."""
    if opts.snapshot and opts.live:
        raise ParameterError(CMDLET, "Snapshot", "a session is either -Snapshot or -Live, not both")
    if opts.per_uid and opts.per_pid:
        raise ParameterError(CMDLET, "PerPid", "choose -PerUid or -PerPid")
    mode: SessionMode = "snapshot" if opts.snapshot else "live" if opts.live else "normal"
    if opts.rotate is not None and mode != "normal":
        raise ParameterError(CMDLET, "Rotate", f"LTTng cannot rotate {mode} sessions; drop -Rotate")
    out: list[Request] = [
        CreateSession(
            opts.name,
            output=opts.output,
            mode=mode,
            url=opts.live,
            live_delay_us=opts.live_delay_us,
        )
    ]
    size = (
        None
        if opts.buffer_size is None
        else names.parse_size(opts.buffer_size, CMDLET, "BufferSize")
    )
    channel_opts = (
        size,
        opts.buffer_count,
        opts.overwrite or None,
        opts.per_uid or opts.per_pid or None,
    )
    if any(v is not None for v in channel_opts):
        out.append(
            EnableChannel(
                opts.name,
                DEFAULT_CHANNEL,
                "user",
                subbuf_size=size,
                num_subbuf=opts.buffer_count,
                overwrite=opts.overwrite,
                buffers="pid" if opts.per_pid else "uid" if opts.per_uid else None,
            )
        )
    if opts.rotate is not None:
        out.append(EnableRotation.parse(opts.name, opts.rotate))
    return out


def cleanup_requests(name: str) -> list[Request]:
    """What undoes a (possibly half-made) session on a node."""
    return [Destroy(name)]
