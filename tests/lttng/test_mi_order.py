"""The same session on two real daemons parses to the same channels and events, whatever order
each daemon lists them in.

LTTng lists channels (and agent domains) from hash tables seeded with the daemon's start time
in seconds (``lttng_ht_seed = time(NULL)``): two nodes whose sessionds started in different
seconds list the same session in different orders. Get-TraceSession compared those lists as strings and flagged
one of two identical nodes ``diverged`` (the flaky test_severity_exactness_and_kernel_error:
seen when the cluster's sessionds started across a second boundary on a loaded machine).
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest

from fayshell.lttng import CreateSession, EnableChannel, EnableEvent, ListSessions
from fayshell.lttng.mi import NS, SessionInfo, parse_session
from fayshell.tracing.records import TraceSessionStatus
from fayshell.tracing.status import _channels, _events, mark_divergence
from tests.lttng.harness import PrivateSessiond

SESSION = "order"


def _next_second() -> None:
    """Return once the wall clock has entered a new second (a new hash seed for a daemon)."""
    now = int(time.time())
    while int(time.time()) == now:
        time.sleep(0.01)


def _raw_channel_order(xml: str) -> list[str]:
    return [c.findtext(f"{{{NS}}}name") or "" for c in ET.fromstring(xml).iter(f"{{{NS}}}channel")]


def _session_on(d: PrivateSessiond) -> tuple[list[str], SessionInfo]:
    """Create the same session on ``d``; its channels as listed, and the parsed session."""
    d.ok(CreateSession(SESSION, output=str(d.output_dir(SESSION))).argv())
    d.ok(EnableEvent(SESSION, "user", ("zipkin:*",), severity="Warning").argv())
    d.ok(EnableEvent(SESSION, "python", ("storage.*",), severity="Warning").argv())
    d.ok(EnableEvent(SESSION, "jul", ("org.app.*",)).argv())
    d.ok(EnableEvent(SESSION, "log4j", ("app", "db"), severity="Error").argv())
    for i in range(5):
        d.ok(EnableChannel(SESSION, f"extra{i}", "user").argv())
    d.ok(EnableEvent(SESSION, "user", ("app:*",), channel="extra3").argv())
    xml = d.ok(ListSessions(SESSION).argv()).stdout
    return _raw_channel_order(xml), parse_session(xml, SESSION)


@pytest.fixture
def daemons() -> Iterator[list[PrivateSessiond]]:
    started: list[PrivateSessiond] = []
    try:
        yield started
    finally:
        for d in started:
            d.stop()


def test_listing_order_of_the_daemon_does_not_matter(daemons: list[PrivateSessiond]) -> None:
    seen: list[tuple[list[str], SessionInfo]] = []
    while len(daemons) < 4 and len({tuple(raw) for raw, _ in seen}) < 2:
        _next_second()  # each daemon gets another hash seed
        daemons.append(PrivateSessiond())
        daemons[-1].start()
        seen.append(_session_on(daemons[-1]))
    assert len({tuple(raw) for raw, _ in seen}) == 2, "every daemon listed the same order"
    (_, first), (_, other) = seen[0], seen[-1]
    assert first.domains == other.domains  # domains, channels and event rules, in one order
    assert [d.name for d in first.domains] == ["user", "jul", "log4j", "python"]
    assert [c.name for c in first.channels] == sorted(c.name for c in first.channels)
    rows = [
        TraceSessionStatus(f"n{i}", SESSION, s.state, s.mode, s.path, _channels(s), _events(s), 0)
        for i, s in enumerate((first, other))
    ]
    assert [r.diverged for r in mark_divergence(rows, {})] == [False, False]
