"""One severity vocabulary, mapped to each LTTng domain's log levels and back.

Words, most severe first: Emergency, Alert, Critical, Error, Warning, Notice, Info, Debug.

* user (LTTng-UST): TRACE_EMERG(0) … TRACE_DEBUG(14); lower number = more severe. The seven
  TRACE_DEBUG_* levels (7–13) and TRACE_DEBUG are all "Debug".
* python: CRITICAL 50, ERROR 40, WARNING 30, INFO 20, DEBUG 10; higher = more severe.
* jul: SEVERE 1000 (Error), WARNING 900, INFO 800, CONFIG 700 / FINE 500 / FINER 400 /
  FINEST 300 (Debug).
* log4j: FATAL 50000 (Critical), ERROR 40000, WARN 30000, INFO 20000, DEBUG 10000 / TRACE 5000.
* kernel: no log levels at all; asking for one is an error, never a silent no-op.

``-Severity W`` means "W and more severe": LTTng's ``--loglevel=L`` with L the least severe native
level whose word is at least as severe as W. ``-Exact`` means ``--loglevel-only=L`` with L the
domain's canonical level for exactly W (LTTng can select only one native level: ``-Exact Debug``
is TRACE_DEBUG, JUL_FINE, LOG4J_DEBUG). A word a domain cannot express is a clear error.
"""

from __future__ import annotations

from dataclasses import dataclass

from fayshell.errors import ParameterError
from fayshell.lttng.names import normalize_domain
from fayshell.vocabulary import SEVERITIES, Severity

WORDS = SEVERITIES
_RANK = {w: i for i, w in enumerate(WORDS)}  # 0 = most severe


@dataclass(frozen=True)
class NativeLevel:
    """One log level of a domain: LTTng's CLI name, its number, and its vocabulary word."""

    name: str  # as `lttng list` and --mi xml show it
    value: int
    word: Severity
    canonical: bool = True  # the level `-Exact WORD` selects when several share a word
    cli: str = ""  # what to pass to --loglevel when it differs from `name`

    @property
    def option_value(self) -> str:
        """The spelling the lttng client accepts."""
        return self.cli or self.name


@dataclass(frozen=True)
class LevelOption:
    """The `lttng enable-event` option a severity request becomes."""

    option: str  # "--loglevel" or "--loglevel-only"
    level: NativeLevel

    def argv(self) -> list[str]:
        """The option as one argv element."""
        return [f"{self.option}={self.level.option_value}"]


_UST = (
    NativeLevel("TRACE_EMERG", 0, "Emergency"),
    NativeLevel("TRACE_ALERT", 1, "Alert"),
    NativeLevel("TRACE_CRIT", 2, "Critical"),
    NativeLevel("TRACE_ERR", 3, "Error"),
    NativeLevel("TRACE_WARNING", 4, "Warning"),
    NativeLevel("TRACE_NOTICE", 5, "Notice"),
    NativeLevel("TRACE_INFO", 6, "Info"),
    NativeLevel("TRACE_DEBUG_SYSTEM", 7, "Debug", False),
    NativeLevel("TRACE_DEBUG_PROGRAM", 8, "Debug", False),
    NativeLevel("TRACE_DEBUG_PROCESS", 9, "Debug", False),
    NativeLevel("TRACE_DEBUG_MODULE", 10, "Debug", False),
    NativeLevel("TRACE_DEBUG_UNIT", 11, "Debug", False),
    NativeLevel("TRACE_DEBUG_FUNCTION", 12, "Debug", False),
    NativeLevel("TRACE_DEBUG_LINE", 13, "Debug", False),
    NativeLevel("TRACE_DEBUG", 14, "Debug"),
)
# The 2.13.9 client refuses "PYTHON_DEBUG" (while listing rules with that name): pass the plain
# Python names, which it accepts for every level.
_PYTHON = (
    NativeLevel("PYTHON_CRITICAL", 50, "Critical", cli="CRITICAL"),
    NativeLevel("PYTHON_ERROR", 40, "Error", cli="ERROR"),
    NativeLevel("PYTHON_WARNING", 30, "Warning", cli="WARNING"),
    NativeLevel("PYTHON_INFO", 20, "Info", cli="INFO"),
    NativeLevel("PYTHON_DEBUG", 10, "Debug", cli="DEBUG"),
)
_JUL = (
    NativeLevel("JUL_SEVERE", 1000, "Error"),
    NativeLevel("JUL_WARNING", 900, "Warning"),
    NativeLevel("JUL_INFO", 800, "Info"),
    NativeLevel("JUL_CONFIG", 700, "Debug", False),
    NativeLevel("JUL_FINE", 500, "Debug"),
    NativeLevel("JUL_FINER", 400, "Debug", False),
    NativeLevel("JUL_FINEST", 300, "Debug", False),
)
_LOG4J = (
    NativeLevel("LOG4J_FATAL", 50000, "Critical"),
    NativeLevel("LOG4J_ERROR", 40000, "Error"),
    NativeLevel("LOG4J_WARN", 30000, "Warning"),
    NativeLevel("LOG4J_INFO", 20000, "Info"),
    NativeLevel("LOG4J_DEBUG", 10000, "Debug"),
    NativeLevel("LOG4J_TRACE", 5000, "Debug", False),
)

# Levels per domain, most severe first.
LEVELS: dict[str, tuple[NativeLevel, ...]] = {
    "user": _UST,
    "python": _PYTHON,
    "jul": _JUL,
    "log4j": _LOG4J,
}


def severity_word(word: str, command: str = "lttng", parameter: str = "Severity") -> Severity:
    """The canonical spelling of a vocabulary word (case-insensitive; a few aliases)."""
    aliases: dict[str, Severity] = {
        "emerg": "Emergency",
        "crit": "Critical",
        "err": "Error",
        "warn": "Warning",
        "information": "Info",
        "informational": "Info",
    }
    key = str(word).strip().lower()
    for w in WORDS:
        if w.lower() == key:
            return w
    if key in aliases:
        return aliases[key]
    raise ParameterError(
        command, parameter, f"unknown severity {word!r}; use one of {', '.join(WORDS)}"
    )


def _levels(domain: str, command: str, parameter: str) -> tuple[NativeLevel, ...]:
    dom = normalize_domain(domain, command)
    if dom == "kernel":
        raise ParameterError(
            command,
            parameter,
            "the kernel domain has no log levels; drop -Severity or pick another domain",
        )
    return LEVELS[dom]


def level_option(
    domain: str, word: str, exact: bool = False, command: str = "lttng", parameter: str = "Severity"
) -> LevelOption:
    """`--loglevel=` (word and more severe) or `--loglevel-only=` (exactly word) for a domain."""
    levels = _levels(domain, command, parameter)
    w = severity_word(word, command, parameter)
    dom = normalize_domain(domain, command)
    if exact:
        for lv in levels:
            if lv.word == w and lv.canonical:
                return LevelOption("--loglevel-only", lv)
        have = ", ".join(dict.fromkeys(lv.word for lv in levels))
        raise ParameterError(
            command, parameter, f"the {dom} domain has no {w} level (it has {have})"
        )
    at_least = [lv for lv in levels if _RANK[lv.word] <= _RANK[w]]
    if not at_least:
        top = levels[0]
        raise ParameterError(
            command,
            parameter,
            f"the {dom} domain has nothing as severe as {w}; its most severe level is {top.name} ({top.word})",
        )
    return LevelOption("--loglevel", at_least[-1])


def native_level(domain: str, name: str) -> NativeLevel:
    """Look up a native level by LTTng's name (``TRACE_WARNING``, ``PYTHON_ERROR``, ``JUL_INFO``…)."""
    levels = _levels(domain, "severity", "Level")
    for lv in levels:
        if lv.name == name.upper():
            return lv
    raise ParameterError(
        "severity", "Level", f"{name!r} is not a {normalize_domain(domain)} log level"
    )


def severity_of(domain: str, level: int) -> str:
    """The vocabulary word for a record's numeric level in a domain (for `logs.severity`).

    Agent levels may be custom numbers (Python allows any int): they take the word of the nearest
    standard level at or below them, e.g. python 35 -> Warning, 5 -> Debug.
    """
    levels = _levels(domain, "severity_of", "Level")
    dom = normalize_domain(domain)
    if dom == "user":
        if not 0 <= level <= 14:
            raise ParameterError(
                "severity_of", "Level", f"LTTng-UST log levels are 0-14, not {level}"
            )
        return _UST[level].word
    for lv in levels:  # most severe (highest number) first
        if level >= lv.value:
            return lv.word
    return "Debug"


def severity_sql(domain: str, level: str) -> str:
    """A SQL expression giving :func:`severity_of`'s word for the integer SQL expression
    ``level`` (what ``logs.severity`` stores), built from the same level tables."""
    levels = _levels(domain, "severity_sql", "Level")
    if normalize_domain(domain) == "user":  # lower is more severe; 7-14 are all Debug
        whens = [
            f"WHEN {level} <= {lv.value} THEN '{lv.word}'" for lv in levels if lv.word != "Debug"
        ]
    else:  # higher is more severe; custom numbers take the standard level at or below them
        whens = [f"WHEN {level} >= {lv.value} THEN '{lv.word}'" for lv in levels]
    return f"CASE {' '.join(whens)} ELSE 'Debug' END"


def matches(domain: str, level: int, word: str, exact: bool = False) -> bool:
    """Would a record at `level` pass `-Severity word [-Exact]`? (What LTTng will keep.)"""
    opt = level_option(domain, word, exact)
    dom = normalize_domain(domain)
    if exact:
        return level == opt.level.value
    if dom == "user":
        return level <= opt.level.value
    return level >= opt.level.value
