"""Trigger requests: validated on construction, argv as `lttng add-trigger` expects."""

from __future__ import annotations

import pytest

from fayshell.errors import ParameterError
from fayshell.lttng.triggers import (
    RemoveTrigger,
    TriggerSpec,
    parse_triggers,
    trigger_requests,
)


def test_user_threshold_is_one_range_rule() -> None:
    [req] = trigger_requests(TriggerSpec("flight", "t1", "ust", "zipkin:*", "Warning"))
    assert req.argv(mi=False) == [
        "lttng",
        "add-trigger",
        "--name=fay-flight-t1",
        "--condition=event-rule-matches",
        "--type=user:tracepoint",
        "--name=zipkin:*",
        "--log-level=TRACE_WARNING..",
        "--action=snapshot-session",
        "flight",
        "--rate-policy=every:1",
    ]


def test_agent_threshold_is_one_exact_rule_per_level() -> None:
    reqs = trigger_requests(TriggerSpec("flight", "t1", "python", "storage.*", "Error"))
    assert [(r.name, r.level, r.at_least) for r in reqs] == [
        ("fay-flight-t1-50", "CRITICAL", False),
        ("fay-flight-t1-40", "ERROR", False),
    ]


def test_exact_filter_and_count() -> None:
    [req] = trigger_requests(
        TriggerSpec("s", "x", "python", "a.b", "Warning", exact=True, filter='msg == "x"', every=3)
    )
    assert "--log-level=WARNING" in req.args() and '--filter=msg == "x"' in req.args()
    assert req.args()[-1] == "--rate-policy=every:3"


@pytest.mark.parametrize(
    ("kw", "why"),
    [
        ({"session": "bad name"}, "Session"),
        ({"label": "-x"}, "Label"),
        ({"domain": "kernel", "pattern": "sched_*", "severity": "Error"}, "no log levels"),
        ({"pattern": "a;rm -rf"}, "Name"),
        ({"every": 0}, "at least 1"),
        ({"exact": True}, "-Exact needs -Severity"),
    ],
)
def test_bad_requests_name_the_parameter(kw: dict[str, object], why: str) -> None:
    args: dict[str, object] = {
        "session": "s",
        "label": "t1",
        "domain": "python",
        "pattern": "a.*",
    } | kw
    with pytest.raises(ParameterError) as err:
        TriggerSpec(**args)  # type: ignore[arg-type]
    assert why in str(err.value)


def test_remove_validates_the_name() -> None:
    assert RemoveTrigger("fay-s-t1").argv(mi=False) == ["lttng", "remove-trigger", "fay-s-t1"]
    with pytest.raises(ParameterError):
        RemoveTrigger("x y")


def test_parse_list_triggers() -> None:
    xml = (
        '<command xmlns="https://lttng.org/xml/ns/lttng-mi"><name>list-trigger</name><output>'
        "<triggers><trigger><name>fay-fr-t1-40</name><owner_uid>1</owner_uid><condition>"
        "<condition_event_rule_matches><event_rule><event_rule_python_logging>"
        "<name_pattern>fire.*</name_pattern></event_rule_python_logging></event_rule>"
        "</condition_event_rule_matches><error_query_results><error_query_result>"
        "<error_query_result_counter><value>2</value></error_query_result_counter>"
        "</error_query_result></error_query_results></condition><action><action_list><action>"
        "<action_snapshot_session><session_name>fr</session_name></action_snapshot_session>"
        "</action></action_list></action></trigger></triggers></output></command>"
    )
    [t] = parse_triggers(xml)
    assert (t.name, t.session, t.rule, t.errors) == ("fay-fr-t1-40", "fr", "fire.*", 2)
