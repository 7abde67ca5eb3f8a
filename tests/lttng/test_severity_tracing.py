"""-Severity on real sessions: what LTTng records is exactly what the vocabulary promises.

One run of each workload feeds several sessions at once (each with its own event rules), so the
expensive part (starting traced programs) happens once.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fayshell.lttng import AddContext, CreateSession, EnableEvent, Start, Stop, severity_of
from fayshell.lttng.severity import matches
from tests.lttng.harness import SYSTEM_PYTHON, PrivateSessiond, bt2_events

PY_LEVELS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}
RULES = {
    # session suffix: (domain, patterns, severity, exact)
    "py-warn": ("python", ("storage.*",), "Warning", False),
    "py-exact": ("python", None, "Error", True),
    "py-all": ("python", None, None, False),
    "ust-warn": ("user", ("zipkin:*",), "Warning", False),
    "ust-debug-only": ("user", ("zipkin:*",), "Debug", True),
    "ust-all": ("user", ("zipkin:*",), None, False),
}


@pytest.fixture(scope="module")
def traced(sessiond: PrivateSessiond, pylog_script: Path, blkkin_binary: Path, bt2_dump: Path):
    """Create one session per rule, run both workloads once, stop, decode each session's trace."""
    outputs = {}
    for key, (domain, patterns, severity, exact) in RULES.items():
        name = f"sev-{key}"
        out = sessiond.output_dir(name)
        sessiond.ok(CreateSession(name, output=str(out)).argv())
        sessiond.ok(EnableEvent(name, domain, patterns, severity=severity, exact=exact).argv())
        ctx_domain = "python" if domain == "python" else "user"
        sessiond.ok(AddContext(name, ("vpid", "procname"), domain=ctx_domain).argv())
        sessiond.ok(Start(name).argv())
        outputs[key] = out
    py = sessiond.workload([SYSTEM_PYTHON, str(pylog_script), "--count", "4"])
    blk = sessiond.workload([str(blkkin_binary), "--requests", "12"])
    for key in RULES:
        sessiond.ok(Stop(f"sev-{key}").argv())
    events = {key: bt2_events(bt2_dump, out) for key, out in outputs.items()}
    return py, blk, events


def _py_counts(events: list[dict]) -> Counter[tuple[str, int]]:
    return Counter((e["fields"]["logger_name"], e["fields"]["int_loglevel"]) for e in events)


def test_python_warning_keeps_exactly_warning_and_above(traced) -> None:
    py, _, events = traced
    got = _py_counts(events["py-warn"])
    want = Counter(
        {
            (logger, PY_LEVELS[level]): n
            for logger, per in py["records"].items()
            if logger.startswith("storage.")
            for level, n in per.items()
            if level in ("WARNING", "ERROR", "CRITICAL")
        }
    )
    assert got == want
    assert sum(got.values()) == 2 * 3 * 4  # 2 storage loggers x 3 levels x 4 records
    assert all(severity_of("python", lvl) in ("Warning", "Error", "Critical") for _, lvl in got)


def test_python_exact_keeps_one_level(traced) -> None:
    py, _, events = traced
    got = _py_counts(events["py-exact"])
    assert {lvl for _, lvl in got} == {40}
    assert sum(got.values()) == py["per_level"]["ERROR"] == 3 * 4


def test_python_without_severity_keeps_everything(traced) -> None:
    py, _, events = traced
    assert len(events["py-all"]) == py["total"] == 3 * 5 * 4
    assert Counter(
        severity_of("python", e["fields"]["int_loglevel"]) for e in events["py-all"]
    ) == Counter({"Debug": 12, "Info": 12, "Warning": 12, "Error": 12, "Critical": 12})


def test_python_records_carry_the_added_context(traced) -> None:
    py, _, events = traced
    assert {e["context"].get("vpid") for e in events["py-warn"]} == {py["pid"]}


def test_ust_warning_keeps_zipkin_drops_debug(traced) -> None:
    _, blk, events = traced
    got = Counter(e["name"] for e in events["ust-warn"])
    want = {k: v for k, v in blk["events"].items() if k != "zipkin:debug_note"}
    assert got == Counter(want)
    assert got["zipkin:timestamp"] == 12 * 3 * 4  # 12 requests x 3 spans x cs/sr/ss/cr
    assert "zipkin:debug_note" not in got
    assert {severity_of("user", e["loglevel"]) for e in events["ust-warn"]} == {"Warning"}
    assert {e["context"].get("vpid") for e in events["ust-warn"]} == {blk["pid"]}
    procnames = {e["context"].get("procname") for e in events["ust-warn"]}
    assert len(procnames) == 1 and procnames.pop().startswith("blkkin_sim")


def test_ust_debug_event_fires_without_severity(traced) -> None:
    _, blk, events = traced
    got = Counter(e["name"] for e in events["ust-all"])
    assert got == Counter(blk["events"])
    assert got["zipkin:debug_note"] == 12


def test_ust_exact_debug_keeps_only_debug_event(traced) -> None:
    _, blk, events = traced
    got = Counter(e["name"] for e in events["ust-debug-only"])
    assert got == Counter({"zipkin:debug_note": blk["events"]["zipkin:debug_note"]})


@pytest.mark.parametrize("key", [k for k, rule in RULES.items() if rule[2] is not None])
def test_matches_predicts_what_lttng_kept(traced, key: str) -> None:
    """fayshell.lttng.severity.matches agrees with LTTng on every decoded record."""
    domain, _, severity, exact = RULES[key]
    assert severity is not None
    assert traced[2][key], "the session recorded nothing"
    for e in traced[2][key]:
        level = e["fields"]["int_loglevel"] if domain == "python" else e["loglevel"]
        assert matches(domain, level, severity, exact)
