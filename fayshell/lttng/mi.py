"""Parse `lttng --mi xml …` answers (MI schema 4.x, LTTng 2.13) into dataclasses.

Every answer is ``<command><name>…</name><output>…</output>[<success>…</success>]</command>`` in
the ``https://lttng.org/xml/ns/lttng-mi`` namespace. ``list`` has no ``<success>`` element; a
failed command has ``<success>false</success>`` and LTTng's reason on stderr (see
:func:`fayshell.lttng.explain.explain_failure`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field

from fayshell.errors import CommandError
from fayshell.vocabulary import DOMAINS

NS = "https://lttng.org/xml/ns/lttng-mi"
_DOMAIN_NAMES = {
    "KERNEL": "kernel",
    "UST": "user",
    "JUL": "jul",
    "LOG4J": "log4j",
    "PYTHON": "python",
}
_BUFFER_NAMES = {"PER_UID": "uid", "PER_PID": "pid", "GLOBAL": "global"}


@dataclass(frozen=True)
class MiCommand:
    """The envelope of one MI answer."""

    name: str
    success: bool | None  # None when the command has no <success> element (list, version)
    output: ET.Element | None


@dataclass(frozen=True)
class EventInfo:
    """One event rule of a channel (or of an agent domain)."""

    name: str
    domain: str
    channel: str | None
    type: str  # TRACEPOINT, SYSCALL, PROBE, FUNCTION, ...
    enabled: bool
    loglevel: str | None = None  # TRACE_WARNING, PYTHON_ERROR, ...; None = every level
    loglevel_type: str = "ALL"  # ALL, RANGE (this level and more severe) or SINGLE
    filter: str | None = None
    exclusions: tuple[str, ...] = ()
    success: bool | None = None  # per-event result of enable-event/disable-event


@dataclass(frozen=True)
class ChannelInfo:
    """One channel with its ring-buffer attributes and event rules."""

    name: str
    domain: str
    enabled: bool
    overwrite: bool
    subbuf_size: int
    subbuf_count: int
    switch_timer_us: int = 0
    read_timer_us: int = 0
    monitor_timer_us: int = 0
    live_timer_us: int = 0
    output_type: str = ""
    tracefile_size: int = 0
    tracefile_count: int = 0
    discarded_events: int = 0
    lost_packets: int = 0
    events: tuple[EventInfo, ...] = ()


@dataclass(frozen=True)
class DomainInfo:
    """One tracing domain of a session."""

    name: str  # kernel, user, jul, log4j, python
    buffer_type: str  # uid, pid, global
    channels: tuple[ChannelInfo, ...] = ()
    events: tuple[EventInfo, ...] = ()  # agent domains list their rules here


@dataclass(frozen=True)
class SessionInfo:
    """A recording session as `lttng list` shows it."""

    name: str
    path: str  # local output path; empty for snapshot sessions and for network outputs
    enabled: bool
    snapshot: bool = False
    live_timer_us: int = 0
    rotation_timer_us: int | None = None
    rotation_size_bytes: int | None = None
    domains: tuple[DomainInfo, ...] = ()

    @property
    def state(self) -> str:
        """``active`` (tracing) or ``inactive``."""
        return "active" if self.enabled else "inactive"

    @property
    def local_path(self) -> str | None:
        """The output directory on the node, or None (snapshot sessions, relay/network outputs)."""
        return self.path if self.path.startswith("/") else None

    @property
    def live(self) -> bool:
        """True for a live session (streams to lttng-relayd with a live timer)."""
        return self.live_timer_us > 0

    @property
    def mode(self) -> str:
        """``snapshot``, ``live`` or ``normal``."""
        return "snapshot" if self.snapshot else "live" if self.live else "normal"

    def domain(self, name: str) -> DomainInfo | None:
        """The domain named ``kernel``, ``user``, ``jul``, ``log4j`` or ``python``, if present."""
        return next((d for d in self.domains if d.name == name), None)

    @property
    def channels(self) -> tuple[ChannelInfo, ...]:
        """All channels of all domains."""
        return tuple(c for d in self.domains for c in d.channels)

    @property
    def events(self) -> tuple[EventInfo, ...]:
        """All event rules: those in channels and those of agent domains."""
        out: list[EventInfo] = []
        for d in self.domains:
            out += d.events
            for c in d.channels:
                out += c.events
        return tuple(out)


@dataclass(frozen=True)
class RotationInfo:
    """Result of `lttng rotate`: state and where the archived chunk is."""

    session: str
    state: str  # COMPLETED, ...
    path: str | None  # absolute path of the archive on the node (local outputs)
    relay: dict[str, str] = field(default_factory=dict)  # host/ports/relative path when streamed


@dataclass(frozen=True)
class ContextResult:
    """One context of `lttng add-context` with its per-item success."""

    type: str
    symbol: str
    success: bool


@dataclass(frozen=True)
class VersionInfo:
    """`lttng version` of a node."""

    string: str
    major: int
    minor: int
    patch: int
    name: str = ""


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(elem: ET.Element | None, name: str) -> ET.Element | None:
    if elem is None:
        return None
    for c in elem:
        if _local(c.tag) == name:
            return c
    return None


def _children(elem: ET.Element | None, name: str) -> list[ET.Element]:
    return [] if elem is None else [c for c in elem if _local(c.tag) == name]


def _text(elem: ET.Element | None, name: str, default: str = "") -> str:
    c = _child(elem, name)
    return default if c is None or c.text is None else c.text


def _int(elem: ET.Element | None, name: str, default: int = 0) -> int:
    t = _text(elem, name)
    try:
        return int(t) if t else default
    except ValueError as exc:
        raise CommandError("lttng", f"unexpected --mi xml value <{name}>{t}</{name}>") from exc


def _bool(elem: ET.Element | None, name: str, default: bool = False) -> bool:
    t = _text(elem, name)
    return default if not t else t.strip().lower() in ("true", "1")


def parse_command(xml: str | bytes) -> MiCommand:
    """The envelope of an MI answer; a CommandError when it is not MI XML."""
    if not xml or not str(xml if isinstance(xml, str) else xml.decode(errors="replace")).strip():
        raise CommandError("lttng", "empty --mi xml output (did the lttng client die?)")
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise CommandError("lttng", f"unreadable --mi xml output: {exc}") from exc
    if _local(root.tag) != "command":
        raise CommandError("lttng", f"unexpected --mi xml root <{_local(root.tag)}>")
    succ = _child(root, "success")
    success = None if succ is None else (succ.text or "").strip().lower() == "true"
    return MiCommand(_text(root, "name"), success, _child(root, "output"))


def _event(elem: ET.Element, domain: str, channel: str | None) -> EventInfo:
    excl = _child(elem, "exclusions")
    succ = _child(elem, "success")
    return EventInfo(
        name=_text(elem, "name"),
        domain=domain,
        channel=channel,
        type=_text(elem, "type", "TRACEPOINT"),
        enabled=_bool(elem, "enabled"),
        loglevel=_text(elem, "loglevel") or None,
        loglevel_type=_text(elem, "loglevel_type", "ALL"),
        filter=_text(elem, "filter_expression") or None,
        exclusions=tuple(c.text or "" for c in (excl if excl is not None else [])),
        success=None if succ is None else (succ.text or "").strip().lower() == "true",
    )


def _channel(elem: ET.Element, domain: str) -> ChannelInfo:
    name = _text(elem, "name")
    attrs = _child(elem, "attributes")
    return ChannelInfo(
        name=name,
        domain=domain,
        enabled=_bool(elem, "enabled"),
        overwrite=_text(attrs, "overwrite_mode") == "OVERWRITE",
        subbuf_size=_int(attrs, "subbuffer_size"),
        subbuf_count=_int(attrs, "subbuffer_count"),
        switch_timer_us=_int(attrs, "switch_timer_interval"),
        read_timer_us=_int(attrs, "read_timer_interval"),
        monitor_timer_us=_int(attrs, "monitor_timer_interval"),
        live_timer_us=_int(attrs, "live_timer_interval"),
        output_type=_text(attrs, "output_type"),
        tracefile_size=_int(attrs, "tracefile_size"),
        tracefile_count=_int(attrs, "tracefile_count"),
        discarded_events=_int(attrs, "discarded_events"),
        lost_packets=_int(attrs, "lost_packets"),
        events=_in_order(
            _event(e, domain, name) for e in _children(_child(elem, "events"), "event")
        ),
    )


def _domain(elem: ET.Element) -> DomainInfo:
    raw = _text(elem, "type")
    name = _DOMAIN_NAMES.get(raw, raw.lower())
    return DomainInfo(
        name=name,
        buffer_type=_BUFFER_NAMES.get(
            _text(elem, "buffer_type"), _text(elem, "buffer_type").lower()
        ),
        channels=tuple(
            sorted(
                (_channel(c, name) for c in _children(_child(elem, "channels"), "channel")),
                key=lambda c: c.name,
            )
        ),
        events=_in_order(_event(e, name, None) for e in _children(_child(elem, "events"), "event")),
    )


def _domain_rank(d: DomainInfo) -> int:
    """Domains in lttng's own order (agent domains come from a seeded hash table too)."""
    return DOMAINS.index(d.name) if d.name in DOMAINS else len(DOMAINS)


def _in_order(events: Iterable[EventInfo]) -> tuple[EventInfo, ...]:
    """Event rules sorted by what identifies them.

    LTTng lists channels and event rules in the order of its hash tables, whose seed is the
    daemon's start time (``lttng_ht_seed = time(NULL)``): two nodes list the same session in
    different orders. Sorted here (channels by name), equal sessions compare equal."""
    return tuple(
        sorted(
            events,
            key=lambda e: (
                e.name,
                e.type,
                e.loglevel_type,
                e.loglevel or "",
                e.filter or "",
                e.exclusions,
            ),
        )
    )


def _session(elem: ET.Element) -> SessionInfo:
    sched = _child(elem, "rotation_schedules")
    periodic = _child(sched, "periodic")
    size = _child(sched, "size_threshold")
    return SessionInfo(
        name=_text(elem, "name"),
        path=_text(elem, "path"),
        enabled=_bool(elem, "enabled"),
        snapshot=_int(elem, "snapshot_mode") == 1,
        live_timer_us=_int(elem, "live_timer_interval"),
        rotation_timer_us=None if periodic is None else _int(periodic, "time_us"),
        rotation_size_bytes=None if size is None else _int(size, "bytes"),
        domains=tuple(
            sorted(
                (_domain(d) for d in _children(_child(elem, "domains"), "domain")), key=_domain_rank
            )
        ),
    )


def parse_sessions(xml: str | bytes) -> list[SessionInfo]:
    """Sessions in the answer of list, list S, create, start, stop or destroy."""
    cmd = parse_command(xml)
    out = cmd.output
    sessions = _child(out, "sessions")
    if sessions is not None:
        return [_session(s) for s in _children(sessions, "session")]
    return [_session(s) for s in _children(out, "session")]  # `create` puts one session directly


def parse_session(xml: str | bytes, name: str) -> SessionInfo:
    """The one session named `name` in a `list NAME` answer; CommandError if it is absent."""
    for s in parse_sessions(xml):
        if s.name == name:
            return s
    raise CommandError("Get-TraceSession", f"session {name!r} not found")


def parse_events(xml: str | bytes) -> list[EventInfo]:
    """Per-event results of enable-event / disable-event (domain and channel unknown here)."""
    cmd = parse_command(xml)
    return [_event(e, "", None) for e in _children(_child(cmd.output, "events"), "event")]


def parse_channels(xml: str | bytes) -> list[ChannelInfo]:
    """Channels in an enable-channel / disable-channel answer.

    Caveat (LTTng 2.13.9, observed): the enable-channel answer says OVERWRITE whenever
    ``--overwrite`` was *not* given (the client prints its "default" sentinel); only the
    ``overwrite`` of a `list` answer is trustworthy.
    """
    cmd = parse_command(xml)
    return [_channel(c, "") for c in _children(_child(cmd.output, "channels"), "channel")]


def parse_contexts(xml: str | bytes) -> list[ContextResult]:
    """Per-context results of add-context."""
    cmd = parse_command(xml)
    return [
        ContextResult(_text(c, "type"), _text(c, "symbol"), _bool(c, "success"))
        for c in _children(_child(cmd.output, "contexts"), "context")
    ]


def parse_rotation(xml: str | bytes) -> RotationInfo:
    """The rotation of a `rotate` answer; CommandError when it failed (no <rotation>)."""
    cmd = parse_command(xml)
    rot = _child(cmd.output, "rotation")
    if rot is None:
        raise CommandError("Invoke-TraceRotation", "lttng rotate did not rotate (see its error)")
    loc = _child(rot, "location")
    local = _child(loc, "local")
    relay = _child(loc, "relay")
    return RotationInfo(
        session=_text(rot, "session_name"),
        state=_text(rot, "state"),
        path=_text(local, "absolute_path") or None if local is not None else None,
        relay={_local(c.tag): c.text or "" for c in relay} if relay is not None else {},
    )


def parse_version(xml: str | bytes) -> VersionInfo:
    """`lttng version` → VersionInfo."""
    cmd = parse_command(xml)
    v = _child(cmd.output, "version")
    if v is None:
        raise CommandError("lttng", "version answer without <version>")
    return VersionInfo(
        _text(v, "string"),
        _int(v, "major"),
        _int(v, "minor"),
        _int(v, "patchLevel"),
        _text(v, "name"),
    )
