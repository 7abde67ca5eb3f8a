"""Turn a failed `lttng` run (argv, exit code, stdout, stderr) into one clear line.

LTTng prints its reason on stderr as ``Error: …`` lines (also with ``--mi xml``); a few failure
modes print nothing at all, e.g. the client dying of SIGPIPE (exit 141) when a per-user
session daemon drops the connection on a kernel request. The messages below were observed on
these machines with LTTng 2.13.9.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

SIGPIPE_EXIT = 128 + int(signal.SIGPIPE)


@dataclass(frozen=True)
class _Known:
    """An lttng error message (by pattern) and what it means, in words an operator acts on."""

    pattern: re.Pattern[str]
    explanation: str


_KNOWN = (
    _Known(
        re.compile(r"Tracing the kernel requires a root lttng-sessiond", re.I),
        "kernel tracing is unavailable: it needs a root lttng-sessiond and the lttng-modules kernel "
        "tracer; this node's session daemon runs as a regular user",
    ),
    _Known(
        re.compile(r"Kernel tracer not available|kernel tracer.*not (?:available|loaded)", re.I),
        "kernel tracing is unavailable: the LTTng kernel tracer (lttng-modules) is not loaded on this node",
    ),
    _Known(
        re.compile(r"No session daemon is available", re.I),
        "no lttng-sessiond is running for this user on the node",
    ),
    _Known(
        re.compile(r"Session (?:name )?'?([^' ]+)'? not found|Session name not found", re.I),
        "no such recording session on the node",
    ),
    _Known(
        re.compile(r"Rotation feature not available for this session's creation mode", re.I),
        "rotation only works on normal or streaming sessions, not snapshot or live ones",
    ),
    _Known(
        re.compile(r"Buffer type mismatch", re.I),
        "all user-space channels of a session must use the same buffers (per-uid or per-pid)",
    ),
    _Known(
        re.compile(r"Non-default channel exists within session", re.I),
        "the session has its own channel(s): name one with -Channel",
    ),
    _Known(
        re.compile(r"channel already exist", re.I), "the channel already exists in this session"
    ),
    _Known(
        re.compile(r"Session name .* already exists|already exists", re.I),
        "a session with that name already exists on the node",
    ),
    _Known(
        re.compile(r"auto is a reserved keyword", re.I),
        "'auto' session names are reserved by LTTng",
    ),
    _Known(
        re.compile(r"Event type not available for user-space tracing", re.I),
        "that event type (e.g. a system call) only exists in the kernel domain",
    ),
    _Known(
        re.compile(r"needs to be started once|never been started|not been started", re.I),
        "the session has never been started (rotation needs one start)",
    ),
)


def _subcommand(argv: list[str]) -> str:
    rest = argv[1:]
    while rest and rest[0].startswith("-"):
        rest = rest[2:] if rest[0] in ("--mi", "-m") else rest[1:]
    if not rest:
        return "lttng"
    if rest[0] == "snapshot" and len(rest) > 1:
        return f"lttng snapshot {rest[1]}"
    return f"lttng {rest[0]}"


def _is_kernel(argv: list[str]) -> bool:
    return any(a in ("-k", "--kernel") for a in argv)


def _lttng_errors(stderr: str) -> list[str]:
    out = []
    for line in stderr.splitlines():
        line = line.strip()
        m = re.match(r"(?:Error|Warning|PERROR.*?):\s*(.*)", line)
        if m and m.group(1):
            out.append(m.group(1))
    return out


def explain_failure(argv: list[str], rc: int, stdout: str, stderr: str) -> str:
    """One line: what failed, why (in plain words), and LTTng's own message when it gave one."""
    what = _subcommand(argv)
    errors = _lttng_errors(stderr or "")
    raw = "; ".join(errors) if errors else (stderr or "").strip().replace("\n", " ")
    for known in _KNOWN:
        if raw and known.pattern.search(raw):
            return f"{what}: {known.explanation} (LTTng: {raw}; exit {rc})"
    if rc in (SIGPIPE_EXIT, -int(signal.SIGPIPE)):
        if _is_kernel(argv):
            return (
                f"{what}: kernel tracing is unavailable: the lttng client died of SIGPIPE without a "
                "message, which is how a non-root lttng-sessiond refuses kernel requests here "
                f"(it needs a root lttng-sessiond and lttng-modules; exit {rc})"
            )
        return f"{what}: the lttng client died of SIGPIPE: the session daemon closed the connection (exit {rc})"
    if rc == 127:
        return f"{what}: the lttng command is not installed on the node (exit 127)"
    if rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = f"signal {-rc}"
        return f"{what}: the lttng client was killed by {sig}"
    if raw:
        return f"{what}: {raw} (exit {rc})"
    if "<success>false</success>" in (stdout or ""):
        return f"{what}: LTTng reported failure without a reason (exit {rc})"
    return f"{what}: failed with exit {rc} and no message"


def needs_sessiond(rc: int, stderr: str) -> bool:
    """True when an lttng command failed only because no session daemon runs for the user."""
    return rc != 0 and bool(re.search(r"No session daemon is available", stderr or "", re.I))
