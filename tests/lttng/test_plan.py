"""New-TraceSession plans: validated up front, and what they create is what `lttng list` shows."""

from __future__ import annotations

import pytest

from fayshell.errors import ParameterError
from fayshell.lttng import (
    CreateSession,
    EnableChannel,
    EnableEvent,
    EnableRotation,
    ListSessions,
    NewSessionOptions,
    StartSessiond,
    cleanup_requests,
    explain_failure,
    needs_sessiond,
    new_session_requests,
    parse_session,
    parse_sessions,
)
from tests.lttng.harness import PrivateSessiond


def test_plan_shapes() -> None:
    plan = new_session_requests(
        NewSessionOptions(
            "inc", output="/t", rotate="2s", buffer_size="1MB", buffer_count=8, per_uid=True
        )
    )
    assert [type(r) for r in plan] == [CreateSession, EnableChannel, EnableRotation]
    assert plan[1].args() == [
        "enable-channel",
        "--userspace",
        "--session=inc",
        "--subbuf-size=1048576",
        "--num-subbuf=8",
        "--buffers-uid",
        "channel0",
    ]
    assert [type(r) for r in new_session_requests(NewSessionOptions("inc"))] == [CreateSession]
    snap = new_session_requests(NewSessionOptions("fr", snapshot=True, overwrite=True))
    assert snap[0].args()[2] == "--snapshot" and "--overwrite" in snap[1].args()
    for bad in (
        NewSessionOptions("x", snapshot=True, rotate="1s"),
        NewSessionOptions("x", live="net://h", rotate="1s"),
        NewSessionOptions("x", snapshot=True, live="net://h"),
        NewSessionOptions("x", per_uid=True, per_pid=True),
        NewSessionOptions("x", buffer_size="3K"),
        NewSessionOptions("x", rotate="soon"),
    ):
        with pytest.raises(ParameterError):
            new_session_requests(bad)


def test_plan_on_a_real_daemon_then_cleanup(sessiond: PrivateSessiond, session_name: str) -> None:
    out = sessiond.output_dir(session_name)
    opts = NewSessionOptions(
        session_name,
        output=str(out),
        rotate="64K",
        buffer_size="128K",
        buffer_count=4,
        overwrite=False,
        per_uid=True,
    )
    for req in new_session_requests(opts):
        sessiond.ok(req.argv())
    sessiond.ok(
        EnableEvent(session_name, "user", ("zipkin:*",)).argv()
    )  # lands in the plan's channel
    info = parse_session(sessiond.ok(ListSessions(session_name).argv()).stdout, session_name)
    (ch,) = info.channels
    assert (ch.name, ch.subbuf_size, ch.subbuf_count, ch.overwrite) == (
        "channel0",
        131072,
        4,
        False,
    )
    assert info.rotation_size_bytes == 65536 and info.domain("user").buffer_type == "uid"
    assert [e.name for e in ch.events] == ["zipkin:*"]
    for req in cleanup_requests(session_name):
        sessiond.ok(req.argv())
    assert session_name not in {
        s.name for s in parse_sessions(sessiond.ok(ListSessions().argv()).stdout)
    }


def test_missing_daemon_is_detected_and_started() -> None:
    """What New-TraceSession does on a node where the SSH user has no lttng-sessiond yet."""
    d = PrivateSessiond()  # not started
    try:
        r = d.lttng(ListSessions().argv())
        assert needs_sessiond(r.rc, r.stderr)
        assert "no lttng-sessiond is running" in explain_failure(r.argv, r.rc, r.stdout, r.stderr)
        d.ok(StartSessiond(agent_port=d.agent_port).argv())
        d.started = True
        r = d.ok(ListSessions().argv())
        assert not needs_sessiond(r.rc, r.stderr) and parse_sessions(r.stdout) == []
        with open(f"{d.home}/.lttng/agent.port") as f:
            assert int(f.read()) == d.agent_port
    finally:
        d.stop()
