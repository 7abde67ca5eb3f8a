"""Kernel domain on these machines: LTTng refuses, fayshell says why in one line, and the other
domains of the same session keep working."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fayshell.errors import ParameterError
from fayshell.lttng import (
    AddContext,
    CreateSession,
    EnableChannel,
    EnableEvent,
    ListSessions,
    Start,
    Stop,
    explain_failure,
    parse_command,
    parse_session,
)
from fayshell.lttng.explain import SIGPIPE_EXIT
from tests.lttng.harness import PrivateSessiond, bt2_events

KERNEL_REQUESTS = {
    "tracepoint": lambda s: EnableEvent(s, "kernel", ("sched_switch", "sched_wakeup*")),
    "syscalls": lambda s: EnableEvent(s, "kernel", ("open*", "read", "write"), syscall=True),
    "all": lambda s: EnableEvent(s, "kernel"),
    "channel": lambda s: EnableChannel(s, "kchan", domain="kernel", subbuf_size=262144),
    "context": lambda s: AddContext(s, ("tid", "prio"), domain="kernel"),
}


@pytest.mark.parametrize("kind", list(KERNEL_REQUESTS))
def test_kernel_request_is_refused_with_a_clear_reason(
    sessiond: PrivateSessiond, session_name: str, kind: str
) -> None:
    sessiond.ok(CreateSession(session_name, output=str(sessiond.output_dir(session_name))).argv())
    r = sessiond.lttng(KERNEL_REQUESTS[kind](session_name).argv())
    assert r.rc != 0
    if r.stdout.strip():
        assert parse_command(r.stdout).success is False
    line = explain_failure(r.argv, r.rc, r.stdout, r.stderr)
    assert "\n" not in line
    assert "kernel tracing is unavailable" in line
    assert "root lttng-sessiond" in line


def test_other_domains_still_work_after_the_refusal(
    sessiond: PrivateSessiond, session_name: str, blkkin_binary: Path, bt2_dump: Path
) -> None:
    out = sessiond.output_dir(session_name)
    sessiond.ok(CreateSession(session_name, output=str(out)).argv())
    assert sessiond.lttng(EnableEvent(session_name, "kernel", ("sched_switch",)).argv()).rc != 0
    sessiond.ok(EnableEvent(session_name, "user", ("zipkin:timestamp",), severity="Warning").argv())
    sessiond.ok(Start(session_name).argv())
    info = parse_session(sessiond.ok(ListSessions(session_name).argv()).stdout, session_name)
    assert [d.name for d in info.domains] == ["user"]
    blk = sessiond.workload([str(blkkin_binary), "--requests", "5"])
    sessiond.ok(Stop(session_name).argv())
    got = Counter(e["name"] for e in bt2_events(bt2_dump, out))
    assert (
        got
        == Counter({"zipkin:timestamp": blk["events"]["zipkin:timestamp"]})
        == Counter({"zipkin:timestamp": 60})
    )


def test_severity_on_kernel_fails_before_sending() -> None:
    with pytest.raises(ParameterError, match="kernel domain has no log levels"):
        EnableEvent("s", "kernel", ("sched_switch",), severity="Warning")
    with pytest.raises(ParameterError, match="Syscall"):
        EnableEvent("s", "python", ("x",), syscall=True)


def test_silent_sigpipe_death_is_explained() -> None:
    """The client sometimes dies of SIGPIPE (exit 141) printing nothing on a kernel request."""
    argv = EnableEvent("s", "kernel", ("sched_switch",)).argv()
    for rc in (SIGPIPE_EXIT, -13):
        line = explain_failure(argv, rc, "", "")
        assert line.startswith("lttng enable-event: kernel tracing is unavailable")
        assert "SIGPIPE" in line
    user = explain_failure(EnableEvent("s", "user", ("a:b",)).argv(), SIGPIPE_EXIT, "", "")
    assert "kernel" not in user and "SIGPIPE" in user
