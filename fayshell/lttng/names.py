"""Validation of every value fayshell puts on an `lttng` command line.

Two layers of rules, both checked before anything is sent to a node:

* LTTng's own (2.13, verified against the real CLI): session names may not contain '/', may not be
  ``auto`` or start with ``auto-`` and fit in 254 bytes; channel names may not start with '.' or
  contain '/' and fit in 254 bytes; event names fit in 255 bytes (longer ones are silently cut by
  the CLI); in event name patterns ``*`` matches anything (anywhere) and ``,`` separates patterns.
* fayshell's (stricter, for safety over a remote shell): printable ASCII only (no control
  characters, no newlines, no unicode look-alikes or bidi tricks), names from a small character
  set that never needs shell quoting, no leading '-' (it would read as an option). Values that are
  legitimately free-form (filter expressions, paths) are validated for shape and always passed as
  one argv element, quoted with ``shlex.quote`` when a shell line is made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fayshell.errors import ParameterError
from fayshell.vocabulary import DOMAINS, Domain

NAME_MAX_BYTES = 254  # session and channel names (LTTNG_NAME_MAX minus the NUL)
EVENT_NAME_MAX_BYTES = 255  # event names and patterns (LTTNG_SYMBOL_NAME_MAX minus the NUL)
FILTER_MAX_BYTES = 65535  # LTTNG_FILTER_MAX_LEN minus the NUL
PATH_MAX_BYTES = 4095

AGENT_DOMAINS: tuple[Domain, ...] = ("jul", "log4j", "python")
_DOMAIN_ALIASES: dict[str, Domain] = {
    "kernel": "kernel",
    "k": "kernel",
    "user": "user",
    "userspace": "user",
    "ust": "user",
    "u": "user",
    "jul": "jul",
    "j": "jul",
    "log4j": "log4j",
    "l": "log4j",
    "python": "python",
    "p": "python",
}

_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+:@=-]*")
_PATTERN_RE = re.compile(r"[A-Za-z0-9_$*][A-Za-z0-9_.:$*-]*")
_SYSCALL_RE = re.compile(r"[A-Za-z0-9_*]+")
_PATH_RE = re.compile(r"/[A-Za-z0-9_./+@%=,:-]*")
_HOST_RE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]")

RESERVED_CHANNEL_NAMES = frozenset({"metadata"})


def _describe(value: str) -> str:
    """A safe, one-line rendering of a hostile value for an error message."""
    shown = value if len(value) <= 40 else value[:37] + "..."
    return ascii(shown)


def check_printable(command: str, parameter: str, value: str, what: str) -> None:
    """Reject control characters, newlines and anything outside printable ASCII."""
    for ch in value:
        if ch == "\n" or ch == "\r":
            raise ParameterError(
                command, parameter, f"{what} {_describe(value)} contains a newline"
            )
        if not (" " <= ch <= "~"):
            raise ParameterError(
                command,
                parameter,
                f"{what} {_describe(value)} contains {ascii(ch)}: only printable ASCII is accepted",
            )


def normalize_domain(domain: str, command: str = "lttng", parameter: str = "Domain") -> Domain:
    """Canonical domain name (kernel, user, jul, log4j, python) for a user spelling."""
    key = domain.strip().lower() if isinstance(domain, str) else ""
    if key not in _DOMAIN_ALIASES:
        raise ParameterError(
            command,
            parameter,
            f"unknown domain {_describe(str(domain))}; use one of {', '.join(DOMAINS)}",
        )
    return _DOMAIN_ALIASES[key]


def _check_name(command: str, parameter: str, value: str, what: str, max_bytes: int) -> str:
    if not isinstance(value, str) or value == "":
        raise ParameterError(command, parameter, f"{what} must not be empty")
    check_printable(command, parameter, value, what)
    if "/" in value:
        raise ParameterError(command, parameter, f"{what} {_describe(value)} must not contain '/'")
    if len(value.encode()) > max_bytes:
        raise ParameterError(
            command,
            parameter,
            f"{what} is {len(value.encode())} bytes long; LTTng allows at most {max_bytes}",
        )
    if value[0] in "-.":
        raise ParameterError(
            command, parameter, f"{what} {_describe(value)} must not start with {value[0]!r}"
        )
    if not _NAME_RE.fullmatch(value):
        bad = next(ch for ch in value if not re.fullmatch(r"[A-Za-z0-9_.+:@=-]", ch))
        raise ParameterError(
            command,
            parameter,
            f"{what} {_describe(value)} contains {bad!r}; use letters, digits and _ . + : @ = -",
        )
    return value


def session_name(value: str, command: str = "lttng", parameter: str = "Session") -> str:
    """Validate a recording session name; return it unchanged."""
    _check_name(command, parameter, value, "session name", NAME_MAX_BYTES)
    if value == "auto" or value.startswith("auto-"):
        raise ParameterError(
            command, parameter, f"session name {value!r}: 'auto' and 'auto-…' are reserved by LTTng"
        )
    return value


def channel_name(value: str, command: str = "lttng", parameter: str = "Channel") -> str:
    """Validate a channel name; return it unchanged."""
    _check_name(command, parameter, value, "channel name", NAME_MAX_BYTES)
    if value in RESERVED_CHANNEL_NAMES:
        raise ParameterError(
            command,
            parameter,
            f"channel name {value!r} is reserved (it would collide with the metadata stream)",
        )
    return value


def snapshot_name(value: str, command: str = "lttng", parameter: str = "Name") -> str:
    """Validate a snapshot output name (becomes a directory name on the node)."""
    return _check_name(command, parameter, value, "snapshot name", NAME_MAX_BYTES)


def event_pattern(
    value: str,
    domain: str = "user",
    syscall: bool = False,
    command: str = "lttng",
    parameter: str = "Name",
) -> str:
    """Validate one event name pattern for a domain; ``*`` matches anything, anywhere."""
    if not isinstance(value, str) or value == "":
        raise ParameterError(command, parameter, "event name pattern must not be empty")
    check_printable(command, parameter, value, "event name pattern")
    if "," in value:
        raise ParameterError(
            command,
            parameter,
            f"event name pattern {_describe(value)} contains ','; pass several names as a list",
        )
    if "\\" in value:
        raise ParameterError(
            command,
            parameter,
            f"event name pattern {_describe(value)}: escapes ('\\') are not supported",
        )
    if len(value.encode()) > EVENT_NAME_MAX_BYTES:
        raise ParameterError(
            command,
            parameter,
            f"event name pattern is {len(value.encode())} bytes long; LTTng allows at most {EVENT_NAME_MAX_BYTES}",
        )
    if value.startswith("-"):
        raise ParameterError(
            command, parameter, f"event name pattern {_describe(value)} must not start with '-'"
        )
    if syscall or domain == "kernel":
        if not _SYSCALL_RE.fullmatch(value):
            what = "system call name" if syscall else "kernel event name"
            raise ParameterError(
                command, parameter, f"{what} {_describe(value)}: use letters, digits, '_' and '*'"
            )
        return value
    if not _PATTERN_RE.fullmatch(value):
        if value[0] in ".:":
            raise ParameterError(
                command,
                parameter,
                f"event name pattern {_describe(value)} must not start with {value[0]!r}",
            )
        bad = next(ch for ch in value if not re.fullmatch(r"[A-Za-z0-9_.:$*-]", ch))
        raise ParameterError(
            command,
            parameter,
            f"event name pattern {_describe(value)} contains {bad!r}; use letters, digits, _ . : $ - and '*'",
        )
    if domain == "user" and "*" not in value and ":" not in value:
        raise ParameterError(
            command,
            parameter,
            f"user-space tracepoint {_describe(value)} needs its provider: 'provider:event' (or a '*' pattern)",
        )
    return value


def event_patterns(
    values: str | list[str] | tuple[str, ...],
    domain: str = "user",
    syscall: bool = False,
    command: str = "lttng",
    parameter: str = "Name",
) -> tuple[str, ...]:
    """Validate a list of patterns (a single string is one pattern); duplicates are dropped."""
    items = [values] if isinstance(values, str) else list(values)
    if not items:
        raise ParameterError(command, parameter, "at least one event name pattern is required")
    seen: dict[str, None] = {}
    for v in items:
        seen[event_pattern(v, domain, syscall, command, parameter)] = None
    return tuple(seen)


def absolute_path(value: str, command: str = "lttng", parameter: str = "Output") -> str:
    """Validate an absolute path on a node: no '..' components, conservative characters."""
    if not isinstance(value, str) or value == "":
        raise ParameterError(command, parameter, "path must not be empty")
    check_printable(command, parameter, value, "path")
    if not value.startswith("/"):
        raise ParameterError(
            command, parameter, f"path {_describe(value)} must be absolute (start with '/')"
        )
    if len(value.encode()) > PATH_MAX_BYTES:
        raise ParameterError(command, parameter, f"path is longer than {PATH_MAX_BYTES} bytes")
    if not _PATH_RE.fullmatch(value):
        bad = next(ch for ch in value if not re.fullmatch(r"[A-Za-z0-9_./+@%=,:-]", ch))
        raise ParameterError(command, parameter, f"path {_describe(value)} contains {bad!r}")
    if ".." in value.split("/"):
        raise ParameterError(command, parameter, f"path {_describe(value)} must not contain '..'")
    return value


@dataclass(frozen=True)
class NetUrl:
    """A parsed ``net://HOST[:CTRL[:DATA]]`` (or tcp/net6/tcp6) relay daemon URL."""

    scheme: str
    host: str
    control_port: int | None = None
    data_port: int | None = None

    def __str__(self) -> str:
        ports = ""
        if self.control_port is not None:
            ports = f":{self.control_port}"
            if self.data_port is not None:
                ports += f":{self.data_port}"
        return f"{self.scheme}://{self.host}{ports}"


def relay_url(value: str, command: str = "lttng", parameter: str = "Live") -> NetUrl:
    """Validate a relay daemon URL for streaming/live sessions."""
    if not isinstance(value, str) or value == "":
        raise ParameterError(command, parameter, "URL must not be empty")
    check_printable(command, parameter, value, "URL")
    m = re.fullmatch(
        r"(net|net6|tcp|tcp6)://(\[[^\]]+\]|[^:/\[\]]+)(?::(\d{1,5}))?(?::(\d{1,5}))?/?", value
    )
    if not m:
        raise ParameterError(
            command,
            parameter,
            f"URL {_describe(value)} must look like net://HOST[:CTRL_PORT[:DATA_PORT]]",
        )
    scheme, host, ctrl, data = m.groups()
    if not _HOST_RE.fullmatch(host):
        raise ParameterError(
            command, parameter, f"host {_describe(host)} is not a valid host name or address"
        )
    ports = [int(p) for p in (ctrl, data) if p is not None]
    for p in ports:
        if not 1 <= p <= 65535:
            raise ParameterError(command, parameter, f"port {p} is out of range 1-65535")
    return NetUrl(scheme, host, int(ctrl) if ctrl else None, int(data) if data else None)


_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "k": 1024,
    "kb": 1024,
    "kib": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mib": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
    "gib": 1024**3,
}
_TIME_UNITS_US = {
    "us": 1,
    "ms": 1000,
    "s": 1_000_000,
    "m": 60_000_000,
    "min": 60_000_000,
    "h": 3_600_000_000,
}


def parse_size(value: str | int, command: str = "lttng", parameter: str = "Size") -> int:
    """Bytes for ``4096``, ``64K``, ``4MB``, ``1GiB`` (binary multiples, as LTTng uses)."""
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    else:
        m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(value))
        if not m or m.group(2).lower() not in _SIZE_UNITS:
            raise ParameterError(
                command, parameter, f"size {_describe(str(value))}: use a number with K, M or G"
            )
        n = int(m.group(1)) * _SIZE_UNITS[m.group(2).lower()]
    if n <= 0:
        raise ParameterError(command, parameter, "size must be positive")
    return n


def parse_duration_us(value: str | int, command: str = "lttng", parameter: str = "Timer") -> int:
    """Microseconds for ``500ms``, ``2s``, ``1m``, ``1h`` or a bare number of microseconds."""
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    else:
        m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(value))
        if not m or m.group(2).lower() not in {"", *_TIME_UNITS_US}:
            raise ParameterError(
                command, parameter, f"duration {_describe(str(value))}: use us, ms, s, m or h"
            )
        n = int(m.group(1)) * _TIME_UNITS_US.get(m.group(2).lower(), 1)
    if n <= 0:
        raise ParameterError(command, parameter, "duration must be positive")
    return n


def is_power_of_two(n: int) -> bool:
    """True for 1, 2, 4, 8, …"""
    return n > 0 and n & (n - 1) == 0


# Context types (`lttng add-context --list`, LTTng 2.13). perf counters are matched by pattern.
USER_CONTEXT_TYPES = frozenset(
    {
        "vpid",
        "vtid",
        "procname",
        "pthread_id",
        "ip",
        "cgroup_ns",
        "ipc_ns",
        "mnt_ns",
        "net_ns",
        "pid_ns",
        "time_ns",
        "user_ns",
        "uts_ns",
        "vuid",
        "veuid",
        "vsuid",
        "vgid",
        "vegid",
        "vsgid",
    }
)
KERNEL_CONTEXT_TYPES = frozenset(
    {
        "pid",
        "procname",
        "prio",
        "nice",
        "vpid",
        "tid",
        "vtid",
        "ppid",
        "vppid",
        "hostname",
        "interruptible",
        "preemptible",
        "need_reschedule",
        "migratable",
        "callstack-kernel",
        "callstack-user",
        "cgroup_ns",
        "ipc_ns",
        "mnt_ns",
        "net_ns",
        "pid_ns",
        "time_ns",
        "user_ns",
        "uts_ns",
        "uid",
        "euid",
        "suid",
        "gid",
        "egid",
        "sgid",
        "vuid",
        "veuid",
        "vsuid",
        "vgid",
        "vegid",
        "vsgid",
    }
)
_PERF_NAME = r"[A-Za-z0-9][A-Za-z0-9_-]*"
_USER_PERF_RE = re.compile(rf"perf:thread:(?:{_PERF_NAME}|raw:r[0-9A-Fa-f]+:[A-Za-z0-9_]+)")
_KERNEL_PERF_RE = re.compile(
    rf"perf:(?:cpu|thread):(?:{_PERF_NAME}|raw:r[0-9A-Fa-f]+:[A-Za-z0-9_]+)"
)
_APP_CONTEXT_RE = re.compile(r"\$app\.[A-Za-z_][A-Za-z0-9_]*:[A-Za-z_][A-Za-z0-9_]*")


def context_type(
    value: str, domain: str = "user", command: str = "lttng", parameter: str = "Type"
) -> str:
    """Validate one context type for the kernel or user domain."""
    if not isinstance(value, str) or value == "":
        raise ParameterError(command, parameter, "context type must not be empty")
    check_printable(command, parameter, value, "context type")
    if domain == "kernel":
        ok = value in KERNEL_CONTEXT_TYPES or bool(_KERNEL_PERF_RE.fullmatch(value))
    elif domain == "user":
        ok = value in USER_CONTEXT_TYPES or bool(_USER_PERF_RE.fullmatch(value))
    else:
        # Agent events are recorded in user-space channels: contexts apply there, and `$app.` too.
        ok = value in USER_CONTEXT_TYPES or bool(_USER_PERF_RE.fullmatch(value))
    ok = ok or (domain != "kernel" and bool(_APP_CONTEXT_RE.fullmatch(value)))
    if not ok:
        known = sorted(KERNEL_CONTEXT_TYPES if domain == "kernel" else USER_CONTEXT_TYPES)
        raise ParameterError(
            command,
            parameter,
            f"{_describe(value)} is not a {domain} context type; known: {', '.join(known[:8])}, … "
            "(see `lttng add-context --list`)",
        )
    return value
