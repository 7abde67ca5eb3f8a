"""The filter check agrees with the real lttng client on every expression below."""

from __future__ import annotations

import pytest

from fayshell.errors import ParameterError
from fayshell.lttng import CreateSession, EnableEvent, filter_expression
from tests.lttng.harness import PrivateSessiond

VALID = [
    "a == 1",
    "a==1&&b!=2",
    "(a > 3) || !(b < 4)",
    'msg == "slow*"',
    "$ctx.vpid == 42",
    '$ctx.procname == "blk*"',
    "$app.myprov:myctx > 0",
    "x[2] == 3",
    "a.b == 1",
    "-a < ~b",
    "a << 2 >= 8",
    "a & 0xff ^ 3 | 1",
    "1.5e3 < f",
    "0x10 == 16",
    "017 == 15",
    "'c' == a",
    "a->b == 1",
    "!a",
    'm == "a\\*b"',
    'm == "a\\\\b"',
    'm == "a\'b"',
    'm == ""',
    'service_name == "vlmcd" && trace_id > 0',
]
MALFORMED = [
    "a ==",
    "== 1",
    "(a == 1",
    "a == 1)",
    "a === 1",
    'msg == "unterminated',
    "$ctx == 1",
    "$foo.bar == 1",
    "a ; b",
    "a == `id`",
    "$(id) == 1",
    "a = 1",
    "x[] == 1",
    "a == 1 2",
    "a,b",
    "a ? b : c",
    " ",
    "a @ b",
    'm == "a\\nb"',
    'm == "\\""',
    'm == "a\\qb"',
]


@pytest.fixture(scope="module")
def scratch(sessiond: PrivateSessiond) -> str:
    name = "filter-scratch"
    sessiond.ok(CreateSession(name, output=str(sessiond.output_dir(name))).argv())
    return name


def _lttng_accepts(sessiond: PrivateSessiond, session: str, expr: str, n: int) -> bool:
    # Raw argv on purpose: the point is to ask LTTng itself, bypassing fayshell's check.
    argv = [
        "lttng",
        "enable-event",
        "--userspace",
        f"--session={session}",
        "--channel=channel0",
        f"--filter={expr}",
        f"fx:e{n}",
    ]
    return sessiond.lttng(argv).rc == 0


def test_valid_filters_are_accepted_by_both(sessiond: PrivateSessiond, scratch: str) -> None:
    for n, expr in enumerate(VALID):
        assert filter_expression(expr) == expr
        assert _lttng_accepts(sessiond, scratch, expr, n), expr


def test_malformed_filters_are_rejected_by_both(sessiond: PrivateSessiond, scratch: str) -> None:
    for n, expr in enumerate(MALFORMED, start=100):
        with pytest.raises(ParameterError, match="malformed filter at column"):
            filter_expression(expr)
        assert not _lttng_accepts(sessiond, scratch, expr, n), expr


def test_builder_passes_filter_as_one_argument(sessiond: PrivateSessiond, scratch: str) -> None:
    req = EnableEvent(
        scratch, "user", ("zipkin:*",), filter='service_name == "vlmcd" && port_no > 1'
    )
    assert '--filter=service_name == "vlmcd" && port_no > 1' in req.argv()
    sessiond.ok(req.argv())


@pytest.mark.parametrize("bad", ["a == 1\nb == 2", "a == 1\x00", 'm == "\u202e"', "a\r== 1"])
def test_control_and_unicode_rejected(bad: str) -> None:
    with pytest.raises(ParameterError) as exc:
        filter_expression(bad)
    assert "\n" not in exc.value.one_line()


def test_error_names_the_cmdlet_parameter() -> None:
    with pytest.raises(ParameterError) as exc:
        EnableEvent("s", "user", ("zipkin:*",), filter="a ==")
    assert (
        exc.value.one_line()
        == "Enable-Tracepoint -Filter: malformed filter at column 5: expression ends too early"
    )
