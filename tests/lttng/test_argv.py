"""argv shapes for every request (the real-lttng tests run these same argv lists)."""

from __future__ import annotations

import pytest

from fayshell.errors import ParameterError
from fayshell.lttng import (
    AddContext,
    CreateSession,
    Destroy,
    DisableEvent,
    DisableRotation,
    EnableChannel,
    EnableEvent,
    EnableRotation,
    ListSessions,
    Rotate,
    SnapshotRecord,
    Start,
    Stop,
    Version,
)

MI = ["lttng", "--mi", "xml"]


def test_create_variants() -> None:
    assert CreateSession("s", output="/var/tmp/t").argv() == MI + [
        "create",
        "s",
        "--output=/var/tmp/t",
    ]
    assert CreateSession("s", mode="snapshot", output="/t").args() == [
        "create",
        "s",
        "--snapshot",
        "--output=/t",
    ]
    assert CreateSession("s", mode="live", url="net://h:1:2", live_delay_us=200000).args() == [
        "create",
        "s",
        "--live=200000",
        "--set-url=net://h:1:2",
    ]
    assert CreateSession("s", url="net://h").args() == ["create", "s", "--set-url=net://h"]
    assert CreateSession("s").argv(lttng="/usr/bin/lttng", mi=False) == [
        "/usr/bin/lttng",
        "create",
        "s",
    ]
    for kwargs in (
        {"mode": "live"},
        {"output": "/t", "url": "net://h"},
        {"live_delay_us": 5},
        {"mode": "flight"},
    ):
        with pytest.raises(ParameterError):
            CreateSession("s", **kwargs)


def test_enable_channel() -> None:
    req = EnableChannel(
        "s",
        "c",
        subbuf_size=65536,
        num_subbuf=8,
        overwrite=True,
        buffers="pid",
        switch_timer_us=100000,
    )
    assert req.args() == [
        "enable-channel",
        "--userspace",
        "--session=s",
        "--subbuf-size=65536",
        "--num-subbuf=8",
        "--overwrite",
        "--buffers-pid",
        "--switch-timer=100000",
        "c",
    ]
    assert EnableChannel("s", "k", domain="kernel").args() == [
        "enable-channel",
        "--kernel",
        "--session=s",
        "k",
    ]
    for kwargs in (
        {"subbuf_size": 1000},
        {"subbuf_size": 2048},
        {"num_subbuf": 3},
        {"num_subbuf": 1},
        {"domain": "python"},
        {"domain": "kernel", "buffers": "uid"},
        {"buffers": "global"},
    ):
        with pytest.raises(ParameterError):
            EnableChannel("s", "c", **kwargs)


def test_enable_and_disable_event() -> None:
    assert EnableEvent("s", "python", ("storage.*", "app"), severity="Warning").args() == [
        "enable-event",
        "--python",
        "--session=s",
        "--loglevel=WARNING",
        "storage.*,app",
    ]
    assert EnableEvent("s", "user", None, severity="Error", exact=True).args() == [
        "enable-event",
        "--userspace",
        "--session=s",
        "--channel=channel0",
        "--loglevel-only=TRACE_ERR",
        "--all",
    ]
    assert EnableEvent("s", "k", ("open*", "read"), syscall=True, channel="kc").args() == [
        "enable-event",
        "--kernel",
        "--session=s",
        "--channel=kc",
        "--syscall",
        "open*,read",
    ]
    assert EnableEvent("s", "jul", ("org.x",), filter='msg == "x*"').args()[-2:] == [
        '--filter=msg == "x*"',
        "org.x",
    ]
    assert DisableEvent("s", "user", ("a:b",)).args() == [
        "disable-event",
        "--userspace",
        "--session=s",
        "--channel=channel0",
        "a:b",
    ]
    assert DisableEvent("s", "python").args() == [
        "disable-event",
        "--python",
        "--session=s",
        "--all-events",
    ]
    with pytest.raises(ParameterError, match="-Exact needs -Severity"):
        EnableEvent("s", "user", ("a:b",), exact=True)
    with pytest.raises(ParameterError, match="lttng_python_channel"):
        EnableEvent("s", "python", ("a",), channel="mine")
    with pytest.raises(ParameterError, match="at least one"):
        EnableEvent("s", "user", ())


def test_session_commands_and_rotation() -> None:
    assert [r.args() for r in (Start("s"), Stop("s"), Destroy("s"), Rotate("s"))] == [
        ["start", "s"],
        ["stop", "s"],
        ["destroy", "s"],
        ["rotate", "s"],
    ]
    assert EnableRotation.parse("s", "2s").args() == [
        "enable-rotation",
        "--session=s",
        "--timer=2000000us",
    ]
    assert EnableRotation.parse("s", "500ms").timer_us == 500_000
    assert EnableRotation.parse("s", "64MB").args() == [
        "enable-rotation",
        "--session=s",
        "--size=67108864",
    ]
    assert EnableRotation("s", timer_us=1, size_bytes=2).args()[2:] == ["--timer=1us", "--size=2"]
    assert DisableRotation("s", timer=True, size=True).args() == [
        "disable-rotation",
        "--session=s",
        "--timer",
        "--size",
    ]
    assert SnapshotRecord("s", name="incident").args() == [
        "snapshot",
        "record",
        "--session=s",
        "--name=incident",
    ]
    assert ListSessions().args() == ["list"] and ListSessions("s").args() == ["list", "s"]
    assert Version().argv() == MI + ["version"] and Start("s").subcommand == "start"
    with pytest.raises(ParameterError):
        EnableRotation("s")
    with pytest.raises(ParameterError):
        SnapshotRecord("s", name="a/b")


def test_add_context() -> None:
    assert AddContext("s", ("vpid", "vtid", "vpid"), channel="c").args() == [
        "add-context",
        "--userspace",
        "--session=s",
        "--channel=c",
        "--type=vpid",
        "--type=vtid",
    ]
    assert AddContext("s", "procname").types == ("procname",)
    assert AddContext("s", ("pid", "prio"), domain="kernel").args()[1] == "--kernel"
    with pytest.raises(ParameterError, match="Add-TraceContext -Type"):
        AddContext("s", ())


def test_errors_name_the_cmdlet_and_parameter() -> None:
    with pytest.raises(ParameterError) as exc:
        EnableEvent("$(reboot)", "user", ("a:b",))
    assert exc.value.one_line().startswith("Enable-Tracepoint -Session: session name '$(reboot)'")
    with pytest.raises(ParameterError) as exc:
        CreateSession("ok", output="/tmp/`id`")
    assert exc.value.one_line().startswith("New-TraceSession -Output:")
