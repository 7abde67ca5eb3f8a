"""The severity vocabulary per domain: exact mapping tables, the reverse mapping, and the real
lttng client accepting every option fayshell produces."""

from __future__ import annotations

import pytest

from fayshell.errors import ParameterError
from fayshell.lttng import (
    WORDS,
    CreateSession,
    EnableEvent,
    ListSessions,
    level_option,
    parse_session,
    severity_of,
)
from fayshell.lttng.severity import LEVELS, matches
from tests.lttng.harness import PrivateSessiond

RANGE = {  # -Severity WORD -> --loglevel=
    "user": [
        "TRACE_EMERG",
        "TRACE_ALERT",
        "TRACE_CRIT",
        "TRACE_ERR",
        "TRACE_WARNING",
        "TRACE_NOTICE",
        "TRACE_INFO",
        "TRACE_DEBUG",
    ],
    "python": [None, None, "CRITICAL", "ERROR", "WARNING", "WARNING", "INFO", "DEBUG"],
    "jul": [None, None, None, "JUL_SEVERE", "JUL_WARNING", "JUL_WARNING", "JUL_INFO", "JUL_FINEST"],
    "log4j": [
        None,
        None,
        "LOG4J_FATAL",
        "LOG4J_ERROR",
        "LOG4J_WARN",
        "LOG4J_WARN",
        "LOG4J_INFO",
        "LOG4J_TRACE",
    ],
}
EXACT = {  # -Severity WORD -Exact -> --loglevel-only=
    "user": [
        "TRACE_EMERG",
        "TRACE_ALERT",
        "TRACE_CRIT",
        "TRACE_ERR",
        "TRACE_WARNING",
        "TRACE_NOTICE",
        "TRACE_INFO",
        "TRACE_DEBUG",
    ],
    "python": [None, None, "CRITICAL", "ERROR", "WARNING", None, "INFO", "DEBUG"],
    "jul": [None, None, None, "JUL_SEVERE", "JUL_WARNING", None, "JUL_INFO", "JUL_FINE"],
    "log4j": [
        None,
        None,
        "LOG4J_FATAL",
        "LOG4J_ERROR",
        "LOG4J_WARN",
        None,
        "LOG4J_INFO",
        "LOG4J_DEBUG",
    ],
}


@pytest.mark.parametrize("domain", list(RANGE))
def test_mapping_tables(domain: str) -> None:
    for word, want_range, want_exact in zip(WORDS, RANGE[domain], EXACT[domain], strict=True):
        for exact, want, opt in (
            (False, want_range, "--loglevel"),
            (True, want_exact, "--loglevel-only"),
        ):
            if want is None:
                with pytest.raises(ParameterError, match=f"{domain} domain"):
                    level_option(domain, word, exact)
            else:
                assert level_option(domain, word, exact).argv() == [f"{opt}={want}"]


def test_kernel_and_unknown_words() -> None:
    with pytest.raises(ParameterError, match="kernel domain has no log levels"):
        level_option("kernel", "Warning")
    with pytest.raises(ParameterError, match="unknown severity"):
        level_option("user", "Loud")
    assert level_option("ust", "warn").level.name == "TRACE_WARNING"


def test_reverse_mapping() -> None:
    assert [severity_of("user", n) for n in range(15)] == [
        "Emergency",
        "Alert",
        "Critical",
        "Error",
        "Warning",
        "Notice",
        "Info",
    ] + ["Debug"] * 8
    assert [severity_of("python", n) for n in (50, 60, 45, 40, 35, 30, 25, 20, 10, 5, 0)] == [
        "Critical",
        "Critical",
        "Error",
        "Error",
        "Warning",
        "Warning",
        "Info",
        "Info",
        "Debug",
        "Debug",
        "Debug",
    ]
    assert [severity_of("jul", n) for n in (1000, 900, 800, 700, 500, 400, 300)] == [
        "Error",
        "Warning",
        "Info",
        "Debug",
        "Debug",
        "Debug",
        "Debug",
    ]
    assert [severity_of("log4j", n) for n in (50000, 40000, 30000, 20000, 10000, 5000)] == [
        "Critical",
        "Error",
        "Warning",
        "Info",
        "Debug",
        "Debug",
    ]
    for bad in (-1, 15):
        with pytest.raises(ParameterError):
            severity_of("user", bad)
    with pytest.raises(ParameterError):
        severity_of("kernel", 3)


@pytest.mark.parametrize("domain", list(LEVELS))
def test_range_keeps_exactly_the_words_at_least_as_severe(domain: str) -> None:
    for word in WORDS:
        try:
            level_option(domain, word)
        except ParameterError:
            continue
        for lv in LEVELS[domain]:
            kept = matches(domain, lv.value, word)
            assert kept == (WORDS.index(severity_of(domain, lv.value)) <= WORDS.index(word)), (
                word,
                lv,
            )


def test_real_lttng_accepts_every_level_option(sessiond: PrivateSessiond) -> None:
    name = "severity-options"
    sessiond.ok(CreateSession(name, output=str(sessiond.output_dir(name))).argv())
    n = 0
    for domain in RANGE:
        for word in WORDS:
            for exact in (False, True):
                try:
                    req = EnableEvent(
                        name,
                        domain,
                        (f"sev{n}:e" if domain == "user" else f"sev{n}",),
                        severity=word,
                        exact=exact,
                    )
                except ParameterError:
                    continue
                sessiond.ok(req.argv())
                n += 1
    assert n == 16 + 11 + 9 + 11
    # LTTng lists each rule with the level fayshell meant (names differ from the CLI's for python).
    info = parse_session(sessiond.ok(ListSessions(name).argv()).stdout, name)
    listed = {(e.domain, e.loglevel, e.loglevel_type) for e in info.events}
    for domain in RANGE:
        for word in WORDS:
            for exact in (False, True):
                try:
                    lv = level_option(domain, word, exact).level
                except ParameterError:
                    continue
                assert (domain, lv.name, "SINGLE" if exact else "RANGE") in listed
    sessiond.ok(["lttng", "destroy", name])


@pytest.mark.parametrize(
    ("domain", "levels"),
    [
        ("user", range(0, 15)),
        ("python", range(-5, 80)),
        ("jul", range(0, 1300, 25)),
        ("log4j", range(0, 70000, 2500)),
    ],
)
def test_the_stores_sql_gives_the_same_word_as_severity_of(domain: str, levels: range) -> None:
    """logs.severity is computed in DuckDB by severity_sql: one mapping, in Python and SQL
    (the store had its own CASE tables, and called JUL CONFIG 'Notice' where LTTng's is Debug)."""
    import duckdb

    from fayshell.lttng.severity import severity_sql

    con = duckdb.connect()
    got = dict(
        con.execute(
            f"SELECT l, {severity_sql(domain, 'l')} FROM unnest(?) AS t(l)", [list(levels)]
        ).fetchall()
    )
    assert got == {lv: severity_of(domain, lv) for lv in levels}
    if domain == "jul":
        assert got[700] == "Debug"  # CONFIG, less severe than INFO
