"""Typed requests -> argv lists for the `lttng` CLI (and a safely quoted shell line).

Every request validates itself when constructed (names, patterns, severities, filters, sizes), so
an invalid request cannot exist, and errors name the cmdlet and parameter the user typed. ``argv()``
gives a list of strings for ``exec``; ``to_command_line`` quotes each element with ``shlex.quote``
for a remote shell. Nothing is ever concatenated into a shell string unquoted.

Not offered on purpose: ``--exclude`` (listing a session whose user-space event rule has
exclusions crashes the Debian 2.13.9 lttng-sessiond here: general protection fault in its client
thread, found while writing these tests).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from fayshell.errors import ParameterError
from fayshell.lttng import names
from fayshell.lttng.filter import filter_expression, sample_filter
from fayshell.lttng.severity import LevelOption, level_option
from fayshell.remote.quoting import UnsafeArgument, quote_argv

DOMAIN_FLAGS = {
    "kernel": "--kernel",
    "user": "--userspace",
    "jul": "--jul",
    "log4j": "--log4j",
    "python": "--python",
}
PAGE_SIZE = 4096
DEFAULT_CHANNEL = "channel0"  # LTTng's default channel; named explicitly, see _event_channel

SessionMode = Literal["normal", "snapshot", "live"]
BufferOwnership = Literal["uid", "pid", "global"]


@dataclass(frozen=True)
class Request:
    """Base of all requests: ``argv()`` is ``[lttng, --mi, xml, *subcommand args]``."""

    CMDLET: ClassVar[str] = "lttng"

    def args(self) -> list[str]:
        """The subcommand and its arguments (no program name)."""
        raise NotImplementedError

    def argv(self, lttng: str = "lttng", mi: bool = True) -> list[str]:
        """Full argv; ``mi`` asks for the machine interface (``--mi xml``)."""
        head = [lttng, "--mi", "xml"] if mi else [lttng]
        return head + self.args()

    @property
    def subcommand(self) -> str:
        """The lttng subcommand, e.g. ``enable-event``."""
        return self.args()[0]


def _session(req: Request, value: str) -> None:
    names.session_name(value, req.CMDLET, "Session")


@dataclass(frozen=True)
class CreateSession(Request):
    """``lttng create``: normal (local or streamed), snapshot (flight recorder) or live."""

    CMDLET: ClassVar[str] = "New-TraceSession"
    session: str
    output: str | None = None  # absolute directory on the node
    mode: SessionMode = "normal"
    url: str | None = None  # relay daemon URL (required for live, optional streaming otherwise)
    live_delay_us: int | None = None

    def __post_init__(self) -> None:
        names.session_name(self.session, self.CMDLET, "Name")
        if self.mode not in ("normal", "snapshot", "live"):
            raise ParameterError(self.CMDLET, "Mode", f"unknown session mode {self.mode!r}")
        if self.output is not None:
            names.absolute_path(self.output, self.CMDLET, "Output")
        if self.url is not None:
            names.relay_url(self.url, self.CMDLET, "Live" if self.mode == "live" else "Url")
        if self.output is not None and self.url is not None:
            raise ParameterError(
                self.CMDLET, "Output", "give either a local output directory or a relay URL"
            )
        if self.mode == "live" and self.url is None:
            raise ParameterError(
                self.CMDLET, "Live", "a live session needs a relay daemon URL (net://HOST)"
            )
        if self.live_delay_us is not None:
            if self.mode != "live":
                raise ParameterError(
                    self.CMDLET, "LiveDelay", "only live sessions have a live timer"
                )
            if self.live_delay_us <= 0:
                raise ParameterError(self.CMDLET, "LiveDelay", "the live timer must be positive")

    def args(self) -> list[str]:
        out = ["create", self.session]
        if self.mode == "snapshot":
            out.append("--snapshot")
        if self.mode == "live":
            out.append("--live" if self.live_delay_us is None else f"--live={self.live_delay_us}")
        if self.output is not None:
            out.append(f"--output={self.output}")
        if self.url is not None:
            out.append(f"--set-url={self.url}")
        return out


@dataclass(frozen=True)
class EnableChannel(Request):
    """``lttng enable-channel`` with ring-buffer geometry, mode and buffer ownership."""

    CMDLET: ClassVar[str] = "New-TraceSession"
    session: str
    channel: str
    domain: str = "user"
    subbuf_size: int | None = None  # bytes, power of two >= page size
    num_subbuf: int | None = None  # power of two >= 2
    overwrite: bool = False  # flight-recorder mode (needed for useful snapshots)
    buffers: BufferOwnership | None = None  # uid/pid for user space; kernel is always global
    switch_timer_us: int | None = None

    def __post_init__(self) -> None:
        _session(self, self.session)
        names.channel_name(self.channel, self.CMDLET, "Channel")
        dom = names.normalize_domain(self.domain, self.CMDLET)
        object.__setattr__(self, "domain", dom)
        if dom not in ("kernel", "user"):
            raise ParameterError(
                self.CMDLET,
                "Domain",
                f"{dom} events go to LTTng's own lttng_{dom}_channel; channels are kernel or user",
            )
        if self.subbuf_size is not None and (
            not names.is_power_of_two(self.subbuf_size) or self.subbuf_size < PAGE_SIZE
        ):
            raise ParameterError(
                self.CMDLET,
                "BufferSize",
                f"{self.subbuf_size} must be a power of two of at least {PAGE_SIZE} bytes",
            )
        if self.num_subbuf is not None and (
            not names.is_power_of_two(self.num_subbuf) or self.num_subbuf < 2
        ):
            raise ParameterError(
                self.CMDLET, "BufferCount", f"{self.num_subbuf} must be a power of two, at least 2"
            )
        if self.buffers is not None:
            if self.buffers not in ("uid", "pid", "global"):
                raise ParameterError(
                    self.CMDLET, "Buffers", f"unknown buffer ownership {self.buffers!r}"
                )
            if dom == "kernel" and self.buffers != "global":
                raise ParameterError(
                    self.CMDLET, "PerUid", "kernel channels always use global buffers"
                )
            if dom == "user" and self.buffers == "global":
                raise ParameterError(
                    self.CMDLET, "Buffers", "user-space buffers are per uid or per pid"
                )
        if self.switch_timer_us is not None and self.switch_timer_us <= 0:
            raise ParameterError(self.CMDLET, "SwitchTimer", "the switch timer must be positive")

    def args(self) -> list[str]:
        out = ["enable-channel", DOMAIN_FLAGS[self.domain], f"--session={self.session}"]
        if self.subbuf_size is not None:
            out.append(f"--subbuf-size={self.subbuf_size}")
        if self.num_subbuf is not None:
            out.append(f"--num-subbuf={self.num_subbuf}")
        if self.overwrite:
            out.append("--overwrite")
        if self.buffers in ("uid", "pid"):
            out.append(f"--buffers-{self.buffers}")
        elif self.buffers == "global":
            out.append("--buffers-global")
        if self.switch_timer_us is not None:
            out.append(f"--switch-timer={self.switch_timer_us}")
        out.append(self.channel)
        return out


def _event_channel(req: Request, domain: str, channel: str | None) -> str | None:
    """The channel an event rule goes to.

    Agent domains have LTTng's own ``lttng_<domain>_channel``: naming another one is an error.
    Kernel and user rules default to LTTng's default channel, named explicitly: once a session
    has any other user-space channel (an agent domain creates one), LTTng refuses a rule without
    ``--channel``, so the result of a command would otherwise depend on what was enabled before.
    """
    if domain in names.AGENT_DOMAINS:
        if channel is not None:
            raise ParameterError(
                req.CMDLET,
                "Channel",
                f"{domain} events always go to lttng_{domain}_channel; drop -Channel",
            )
        return None
    if channel is None:
        return DEFAULT_CHANNEL
    return names.channel_name(channel, req.CMDLET, "Channel")


@dataclass(frozen=True)
class EnableEvent(Request):
    """``lttng enable-event``: patterns (or all) in a domain, by severity, with a filter."""

    CMDLET: ClassVar[str] = "Enable-Tracepoint"
    session: str
    domain: str
    patterns: tuple[str, ...] | None = None  # None = every event (--all)
    channel: str | None = None
    severity: str | None = None  # vocabulary word, see fayshell.lttng.severity
    exact: bool = False
    filter: str | None = None
    syscall: bool = False
    sample_every: int | None = None  # keep 1 BlkKin trace in N (a power of two), by trace id
    level: LevelOption | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        _session(self, self.session)
        dom = names.normalize_domain(self.domain, self.CMDLET)
        object.__setattr__(self, "domain", dom)
        if self.syscall and dom != "kernel":
            raise ParameterError(
                self.CMDLET, "Syscall", "system calls are kernel events: use -Domain kernel"
            )
        if self.patterns is not None:
            pats = names.event_patterns(self.patterns, dom, self.syscall, self.CMDLET, "Name")
            object.__setattr__(self, "patterns", pats)
        object.__setattr__(self, "channel", _event_channel(self, dom, self.channel))
        if self.exact and self.severity is None:
            raise ParameterError(self.CMDLET, "Exact", "-Exact needs -Severity")
        if self.severity is not None:
            object.__setattr__(
                self, "level", level_option(dom, self.severity, self.exact, self.CMDLET)
            )
        if self.filter is not None:
            filter_expression(self.filter, self.CMDLET, "Filter")
        if self.sample_every is not None:
            self._check_sampling()

    def _check_sampling(self) -> None:
        """-SampleEvery: only for BlkKin (zipkin:*) user-space events, whose trace_id it masks."""
        sample_filter(self.sample_every, self.CMDLET, "SampleEvery")  # type: ignore[arg-type]
        pats = self.patterns or ()
        if self.domain != "user" or not pats or not all(p.startswith("zipkin:") for p in pats):
            raise ParameterError(
                self.CMDLET,
                "SampleEvery",
                "sampling keeps whole BlkKin traces by trace_id: "
                "use it with -Domain user -Name 'zipkin:*' (events of the zipkin provider)",
            )

    @property
    def full_filter(self) -> str | None:
        """-Filter and the sampling condition, both required."""
        if self.sample_every is None:
            return self.filter
        cond = sample_filter(self.sample_every, self.CMDLET, "SampleEvery")
        return cond if self.filter is None else f"({self.filter}) && {cond}"

    def args(self) -> list[str]:
        out = ["enable-event", DOMAIN_FLAGS[self.domain], f"--session={self.session}"]
        if self.channel is not None:
            out.append(f"--channel={self.channel}")
        if self.syscall:
            out.append("--syscall")
        if self.level is not None:
            out += self.level.argv()
        if self.full_filter is not None:
            out.append(f"--filter={self.full_filter}")
        out += ["--all"] if self.patterns is None else [",".join(self.patterns)]
        return out


@dataclass(frozen=True)
class DisableEvent(Request):
    """``lttng disable-event``: patterns (or all) in a domain."""

    CMDLET: ClassVar[str] = "Disable-Tracepoint"
    session: str
    domain: str
    patterns: tuple[str, ...] | None = None
    channel: str | None = None
    syscall: bool = False

    def __post_init__(self) -> None:
        _session(self, self.session)
        dom = names.normalize_domain(self.domain, self.CMDLET)
        object.__setattr__(self, "domain", dom)
        if self.syscall and dom != "kernel":
            raise ParameterError(
                self.CMDLET, "Syscall", "system calls are kernel events: use -Domain kernel"
            )
        if self.patterns is not None:
            pats = names.event_patterns(self.patterns, dom, self.syscall, self.CMDLET, "Name")
            object.__setattr__(self, "patterns", pats)
        object.__setattr__(self, "channel", _event_channel(self, dom, self.channel))

    def args(self) -> list[str]:
        out = ["disable-event", DOMAIN_FLAGS[self.domain], f"--session={self.session}"]
        if self.channel is not None:
            out.append(f"--channel={self.channel}")
        if self.syscall:
            out.append("--syscall")
        out += ["--all-events"] if self.patterns is None else [",".join(self.patterns)]
        return out


@dataclass(frozen=True)
class AddContext(Request):
    """``lttng add-context``: extra per-event fields (vpid, vtid, procname, perf counters…)."""

    CMDLET: ClassVar[str] = "Add-TraceContext"
    session: str
    types: tuple[str, ...]
    domain: str = "user"
    channel: str | None = None

    def __post_init__(self) -> None:
        _session(self, self.session)
        dom = names.normalize_domain(self.domain, self.CMDLET)
        if dom in names.AGENT_DOMAINS:
            # Agent events are recorded in a user-space channel LTTng names after the domain.
            if self.channel is not None:
                raise ParameterError(
                    self.CMDLET, "Channel", f"{dom} contexts go to lttng_{dom}_channel"
                )
            object.__setattr__(self, "channel", f"lttng_{dom}_channel")
        elif self.channel is not None:
            names.channel_name(self.channel, self.CMDLET, "Channel")
        object.__setattr__(self, "domain", dom)
        types = (self.types,) if isinstance(self.types, str) else tuple(self.types)
        if not types:
            raise ParameterError(self.CMDLET, "Type", "at least one context type is required")
        for t in types:
            names.context_type(t, dom, self.CMDLET, "Type")
        object.__setattr__(self, "types", tuple(dict.fromkeys(types)))

    def args(self) -> list[str]:
        flag = DOMAIN_FLAGS["kernel" if self.domain == "kernel" else "user"]
        out = ["add-context", flag, f"--session={self.session}"]
        if self.channel is not None:
            out.append(f"--channel={self.channel}")
        for t in self.types:
            out.append(f"--type={t}")
        return out


@dataclass(frozen=True)
class _SessionCommand(Request):
    """An lttng command about one session (its name checked)."""

    session: str

    def __post_init__(self) -> None:
        _session(self, self.session)


@dataclass(frozen=True)
class Start(_SessionCommand):
    """``lttng start SESSION``."""

    CMDLET: ClassVar[str] = "Start-Trace"

    def args(self) -> list[str]:
        return ["start", self.session]


@dataclass(frozen=True)
class Stop(_SessionCommand):
    """``lttng stop SESSION`` (waits until the data is flushed and readable)."""

    CMDLET: ClassVar[str] = "Stop-Trace"

    def args(self) -> list[str]:
        return ["stop", self.session]


@dataclass(frozen=True)
class Destroy(_SessionCommand):
    """``lttng destroy SESSION`` (archives the last chunk of a rotating session)."""

    CMDLET: ClassVar[str] = "Remove-TraceSession"

    def args(self) -> list[str]:
        return ["destroy", self.session]


@dataclass(frozen=True)
class Rotate(_SessionCommand):
    """``lttng rotate SESSION``: archive the current chunk now (normal/streamed sessions only)."""

    CMDLET: ClassVar[str] = "Invoke-TraceRotation"

    def args(self) -> list[str]:
        return ["rotate", self.session]


@dataclass(frozen=True)
class EnableRotation(Request):
    """``lttng enable-rotation --timer=… / --size=…``."""

    CMDLET: ClassVar[str] = "New-TraceSession"
    session: str
    timer_us: int | None = None
    size_bytes: int | None = None

    def __post_init__(self) -> None:
        _session(self, self.session)
        if self.timer_us is None and self.size_bytes is None:
            raise ParameterError(self.CMDLET, "Rotate", "give a period (2s) or a size (64MB)")
        if self.timer_us is not None and self.timer_us <= 0:
            raise ParameterError(self.CMDLET, "Rotate", "the rotation period must be positive")
        if self.size_bytes is not None and self.size_bytes <= 0:
            raise ParameterError(self.CMDLET, "Rotate", "the rotation size must be positive")

    @classmethod
    def parse(cls, session: str, spec: str) -> EnableRotation:
        """From the cmdlet's ``-Rotate`` value: ``2s``/``500ms`` is a period, ``64MB``/``64K`` a size."""
        unit = str(spec).strip().lstrip("0123456789").strip().lower()
        if unit == "m":
            raise ParameterError(cls.CMDLET, "Rotate", f"{spec!r} is ambiguous: write 1min or 1MB")
        if unit in ("b", "k", "kb", "kib", "mb", "mib", "g", "gb", "gib"):
            return cls(session, size_bytes=names.parse_size(spec, cls.CMDLET, "Rotate"))
        return cls(session, timer_us=names.parse_duration_us(spec, cls.CMDLET, "Rotate"))

    def args(self) -> list[str]:
        out = ["enable-rotation", f"--session={self.session}"]
        if self.timer_us is not None:
            out.append(f"--timer={self.timer_us}us")
        if self.size_bytes is not None:
            out.append(f"--size={self.size_bytes}")
        return out


@dataclass(frozen=True)
class DisableRotation(Request):
    """``lttng disable-rotation --timer / --size``."""

    CMDLET: ClassVar[str] = "New-TraceSession"
    session: str
    timer: bool = True
    size: bool = False

    def __post_init__(self) -> None:
        _session(self, self.session)
        if not (self.timer or self.size):
            raise ParameterError(self.CMDLET, "Rotate", "nothing to disable")

    def args(self) -> list[str]:
        out = ["disable-rotation", f"--session={self.session}"]
        if self.timer:
            out.append("--timer")
        if self.size:
            out.append("--size")
        return out


@dataclass(frozen=True)
class SnapshotRecord(Request):
    """``lttng snapshot record``: write the flight-recorder buffers as a new chunk."""

    CMDLET: ClassVar[str] = "Save-TraceSnapshot"
    session: str
    name: str | None = None

    def __post_init__(self) -> None:
        _session(self, self.session)
        if self.name is not None:
            names.snapshot_name(self.name, self.CMDLET, "Name")

    def args(self) -> list[str]:
        out = ["snapshot", "record", f"--session={self.session}"]
        if self.name is not None:
            out.append(f"--name={self.name}")
        return out


@dataclass(frozen=True)
class ListSessions(Request):
    """``lttng list [SESSION]`` — parse with :func:`fayshell.lttng.mi.parse_sessions`."""

    CMDLET: ClassVar[str] = "Get-TraceSession"
    session: str | None = None

    def __post_init__(self) -> None:
        if self.session is not None:
            _session(self, self.session)

    def args(self) -> list[str]:
        return ["list"] if self.session is None else ["list", self.session]


@dataclass(frozen=True)
class Version(Request):
    """``lttng version``."""

    def args(self) -> list[str]:
        return ["version"]


@dataclass(frozen=True)
class StartSessiond(Request):
    """``lttng-sessiond --daemonize``: a per-user session daemon (returns once it is ready).

    ``agent_port``: its own agent TCP port, so that many users' daemons on one host do not
    exhaust the shared default range 5345-5354 (then agent events are silently lost).
    """

    CMDLET: ClassVar[str] = "New-TraceSession"
    agent_port: int | None = None

    def __post_init__(self) -> None:
        if self.agent_port is not None and not 1024 <= self.agent_port <= 65535:
            raise ParameterError(
                self.CMDLET, "AgentPort", f"port {self.agent_port} is out of range 1024-65535"
            )

    def args(self) -> list[str]:
        out = ["--daemonize"]
        if self.agent_port is not None:
            out.append(f"--agent-tcp-port={self.agent_port}")
        return out

    def argv(self, lttng: str = "lttng", mi: bool = True) -> list[str]:
        """``lttng-sessiond`` next to the given ``lttng`` (no machine interface here)."""
        head, sep, _ = lttng.rpartition("/")
        return [f"{head}{sep}lttng-sessiond", *self.args()]

    @property
    def subcommand(self) -> str:
        return "lttng-sessiond"


def to_command_line(argv: list[str]) -> str:
    """One shell line for a remote shell, quoted by :func:`fayshell.remote.quoting.quote_argv`."""
    if not all(isinstance(a, str) for a in argv):
        raise ParameterError("lttng", None, f"arguments must be strings: {argv!r}")
    try:
        return quote_argv(argv)
    except UnsafeArgument as exc:
        raise ParameterError("lttng", None, f"cannot be passed to a shell: {exc.message}") from None
