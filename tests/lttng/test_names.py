"""Name, pattern, path and URL validation: hostile values never reach a shell; what fayshell
accepts, the real LTTng accepts too; what LTTng refuses, fayshell refuses first."""

from __future__ import annotations

import subprocess

import pytest

from fayshell.errors import ParameterError
from fayshell.lttng import (
    AddContext,
    CreateSession,
    EnableChannel,
    EnableEvent,
    names,
    to_command_line,
)
from tests.lttng.harness import PrivateSessiond

HOSTILE = [
    "; rm -rf /",
    "$(id)",
    "`id`",
    "a\nb",
    "a\rb",
    "a b",
    "a\tb",
    "é",
    "a\u200bb",
    "a\u202eb",
    "ａ",
    "a\x00b",
    "a'b",
    'a"b',
    "a|b",
    "a&b",
    "a>b",
    "a<b",
    "a\\b",
    "*",
    "~root",
    "-x",
    "--help",
    ".",
    "..",
    "",
]


@pytest.mark.parametrize("value", HOSTILE, ids=ascii)
def test_hostile_session_and_channel_names_are_rejected(value: str) -> None:
    with pytest.raises(ParameterError) as exc:
        names.session_name(value)
    assert "\n" not in exc.value.one_line() and "\r" not in exc.value.one_line()
    with pytest.raises(ParameterError):
        names.channel_name(value)


@pytest.mark.parametrize("value", [v for v in HOSTILE if v not in ("*",)], ids=ascii)
def test_hostile_event_patterns_are_rejected(value: str) -> None:
    with pytest.raises(ParameterError):
        names.event_pattern(value, "user")
    with pytest.raises(ParameterError):
        names.event_pattern(value, "python")


@pytest.mark.parametrize(
    "value",
    [
        "relative/dir",
        "/tmp/../etc",
        "/tmp/a b",
        "/tmp/$(id)",
        "/tmp/`id`",
        "/tmp/a;b",
        "/tmp/\u00e9",
        "/tmp/a\nb",
        "~/traces",
        "",
    ],
    ids=ascii,
)
def test_bad_paths_are_rejected(value: str) -> None:
    with pytest.raises(ParameterError):
        names.absolute_path(value)


def test_event_pattern_rules() -> None:
    assert names.event_patterns(["zipkin:*", "zipkin:*", "a*b:c*"], "user") == (
        "zipkin:*",
        "a*b:c*",
    )
    assert names.event_pattern("storage.*", "python") == "storage.*"
    assert names.event_pattern("org.acme.Foo$Inner", "jul") == "org.acme.Foo$Inner"
    assert names.event_pattern("sched_*", "kernel") == "sched_*"
    assert names.event_pattern("e" * 255, "python")
    for bad, domain, why in [
        ("a,b", "user", "several names as a list"),
        ("a\\*b", "user", "escapes"),
        ("e" * 256, "python", "at most 255"),
        ("ev1", "user", "provider"),
        ("sched:switch", "kernel", "kernel event name"),
    ]:
        with pytest.raises(ParameterError, match=why):
            names.event_pattern(bad, domain)
    with pytest.raises(ParameterError, match="system call"):
        EnableEvent("s", "kernel", ("open.at",), syscall=True)


def test_context_types() -> None:
    assert names.context_type("vpid", "user") == "vpid"
    assert names.context_type("perf:thread:instructions", "user")
    assert names.context_type("perf:cpu:cycles", "kernel")
    assert names.context_type("$app.myprov:myctx", "python")
    for bad, domain in [
        ("pid", "user"),
        ("perf:cpu:cycles", "user"),
        ("vpid;id", "user"),
        ("$app.p:c", "kernel"),
        ("nope", "kernel"),
    ]:
        with pytest.raises(ParameterError, match="context type|printable"):
            names.context_type(bad, domain)
    assert AddContext("s", ("vpid",), domain="python").args() == [
        "add-context",
        "--userspace",
        "--session=s",
        "--channel=lttng_python_channel",
        "--type=vpid",
    ]


def test_relay_urls() -> None:
    assert str(names.relay_url("net://127.0.0.1:5342:5343")) == "net://127.0.0.1:5342:5343"
    assert names.relay_url("tcp://relay.example").host == "relay.example"
    assert names.relay_url("net6://[::1]:5342").control_port == 5342
    for bad in [
        "net://h;id",
        "file:///x",
        "net://h:70000",
        "net://h:1:2:3",
        "net://$(id)",
        "http://h",
    ]:
        with pytest.raises(ParameterError):
            names.relay_url(bad)


def test_sizes_and_durations() -> None:
    assert names.parse_size("64K") == 65536 and names.parse_size("4MB") == 4 << 20
    assert (
        names.parse_duration_us("2s") == 2_000_000 and names.parse_duration_us("500ms") == 500_000
    )
    for bad in ["", "4XB", "-1", "0", "1.5M"]:
        with pytest.raises(ParameterError):
            names.parse_size(bad)
    with pytest.raises(ParameterError, match="ambiguous"):
        from fayshell.lttng import EnableRotation

        EnableRotation.parse("s", "1m")


ARGS_THAT_NEED_QUOTING = [
    '--filter=msg == "a\'b" && $ctx.vpid > 0',
    "a b",
    "'",
    '"',
    "$(id)",
    "`id`",
    "a;b",
    "*",
    "~",
    "line\nbreak",
    "",
    "-n",
    "tab\there",
    "back\\slash",
    "\u00e9",
]


def test_command_line_round_trips_through_a_real_shell() -> None:
    argv = ["printf", "%s\\0", *ARGS_THAT_NEED_QUOTING]
    line = to_command_line(argv)
    out = subprocess.run(["/bin/sh", "-c", line], capture_output=True, timeout=10).stdout
    assert out.decode().split("\0")[:-1] == ARGS_THAT_NEED_QUOTING


def test_command_line_refuses_nul() -> None:
    with pytest.raises(ParameterError):
        to_command_line(["echo", "a\x00b"])


ACCEPTED = ["automobile", "a:b", "x" * 254, "a.b-c+d@e=f", "A_1", "2026-incident"]
REFUSED_BY_LTTNG = ["auto", "auto-x", "a/b", "x" * 255]


def test_what_we_accept_lttng_accepts(sessiond: PrivateSessiond) -> None:
    for i, name in enumerate(ACCEPTED):
        req = CreateSession(name, output=str(sessiond.output_dir(f"names-{i}")))
        sessiond.ok(req.argv())
        sessiond.ok(EnableChannel(name, name[:254] if ":" not in name else "chan-1").argv())
        sessiond.ok(["lttng", "destroy", name])


def test_what_lttng_refuses_we_refuse_first(sessiond: PrivateSessiond) -> None:
    for name in REFUSED_BY_LTTNG:
        assert (
            sessiond.lttng(["lttng", "create", name, f"--output={sessiond.home}/refused"]).rc != 0
        )
        with pytest.raises(ParameterError):
            CreateSession(name)
    sessiond.ok(CreateSession("names-chan", output=str(sessiond.output_dir("names-chan"))).argv())
    for chan in [".a", "a/b", "c" * 255]:
        assert sessiond.lttng(["lttng", "enable-channel", "-u", "-s", "names-chan", chan]).rc != 0
        with pytest.raises(ParameterError):
            EnableChannel("names-chan", chan)
    sessiond.ok(["lttng", "destroy", "names-chan"])
