"""-SampleEvery and the filter check: what LTTng 2.13.9 accepts, checked against the real client.

Found on this machine (a private lttng-sessiond, ``lttng enable-event --filter``): bitwise
``& | ^ << >> ~`` on integer fields compile; the binary arithmetic ``* / % + -`` are refused
when the client generates the bytecode ("binary operation '%' not supported"). So 1/N sampling
is ``(trace_id & (N-1)) == 0`` and N must be a power of two.
"""

from __future__ import annotations

import pytest

from fayshell.errors import ParameterError
from fayshell.lttng import CreateSession, EnableEvent, filter_expression
from fayshell.lttng.filter import sample_filter
from tests.lttng.harness import PrivateSessiond

ARITHMETIC = [
    "trace_id % 16 == 0",
    "trace_id * 2 > 0",
    "trace_id / 2 > 0",
    "trace_id + 1 > 0",
    "trace_id - 1 > 0",
]
BITWISE = [
    "(trace_id & 15) == 0",
    "(trace_id ^ 3) == 0",
    "(trace_id | 3) == 0",
    "(trace_id >> 4 << 4) == trace_id",
    "-trace_id < 0",
    "~trace_id < 0",
]


def test_sample_filter_masks_the_low_bits() -> None:
    assert sample_filter(16) == "(trace_id & 15) == 0"
    assert sample_filter(2) == "(trace_id & 1) == 0"
    assert sample_filter(1 << 32) == f"(trace_id & {(1 << 32) - 1}) == 0"
    for bad in (0, 1, 3, 12, -4, 1 << 33, True):
        with pytest.raises(ParameterError, match="power of two"):
            sample_filter(bad, "Enable-Tracepoint")  # type: ignore[arg-type]


def test_enable_event_with_sampling_builds_one_filter() -> None:
    req = EnableEvent("s", "user", ("zipkin:*",), sample_every=16)
    assert req.args()[-2:] == ["--filter=(trace_id & 15) == 0", "zipkin:*"]
    both = EnableEvent(
        "s", "user", ("zipkin:timestamp",), filter='service_name == "vlmcd"', sample_every=4
    )
    assert both.args()[-2] == '--filter=(service_name == "vlmcd") && (trace_id & 3) == 0'
    filter_expression(both.full_filter or "")  # the combination passes our own check


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"domain": "python", "patterns": ("zipkin:*",)}, "-Domain user -Name 'zipkin:*'"),
        ({"domain": "user", "patterns": None}, "zipkin"),
        ({"domain": "user", "patterns": ("zipkin:*", "other:*")}, "zipkin"),
        ({"domain": "user", "patterns": ("zipkin:*",), "sample_every": 10}, "power of two"),
    ],
)
def test_sampling_refused_where_it_cannot_work(kw: dict, words: str) -> None:
    kw = {"sample_every": 16, **kw}
    with pytest.raises(ParameterError) as info:
        EnableEvent("s", **kw)
    assert words in info.value.one_line()
    assert info.value.one_line().startswith("Enable-Tracepoint -SampleEvery: ")


def test_arithmetic_refused_like_the_real_client(
    sessiond: PrivateSessiond, session_name: str
) -> None:
    out = sessiond.output_dir(session_name)
    sessiond.ok(CreateSession(session_name, output=str(out)).argv())
    argv = ["lttng", "enable-event", "-u", f"--session={session_name}", "--channel=channel0"]
    for expr in ARITHMETIC:
        with pytest.raises(ParameterError, match="LTTng 2.13 filters have no binary"):
            filter_expression(expr)
        real = sessiond.lttng([*argv, f"--filter={expr}", "zipkin:*"])
        assert real.rc != 0 and "not supported" in real.stderr, expr
    for expr in [*BITWISE, sample_filter(64)]:
        assert filter_expression(expr) == expr
        sessiond.ok([*argv, f"--filter={expr}", "zipkin:*"])


async def test_estimate_uses_the_rate_in_force_when_each_span_started(shell) -> None:
    """A node sampled at 1/4 from t=100, then 1/2 added at t=200 (the smaller N wins: the
    masks nest); another node never sampled. Kept spans count N each."""
    from fayshell.store.sampling import record_sampling

    await shell.run("Get-Span")  # creates the store's tables
    rows = [("n1", 1, 50), ("n1", 2, 150), ("n1", 3, 160), ("n1", 4, 250), ("n2", 5, 150)]
    values = ", ".join(
        f"('{n}', 's', {t}, {t}, 0, 'svc', 'op', {ts}, {ts + 10}, 10)" for n, t, ts in rows
    )
    await shell.run(
        "sql INSERT INTO spans (node, session, trace_id, span_id, parent_span_id, "
        f"service, name, ts_start, ts_end, dur_ns) VALUES {values}"
    )
    db = shell.state.database
    record_sampling(db, "s", ["n1"], 4, "(trace_id & 3) == 0", since_ns=100)
    record_sampling(db, "s", ["n1"], 8, "(trace_id & 7) == 0", since_ns=200)
    est = {r["node"]: r for r in await shell.run("Get-Span -Estimate")}
    assert est["n1"]["kept_spans"] == 4 and est["n1"]["est_spans"] == 1 + 4 + 4 + 4
    assert est["n1"]["sample_every"] == 4 and est["n1"]["est_traces"] == 13
    assert est["n1"]["est_traces_stddev"] == round((3 * 4 * 3) ** 0.5, 1)
    assert est["n2"]["est_spans"] == 1 and est["n2"]["sample_every"] == 1
