"""LTTng triggers that take a flight-recorder snapshot: `lttng add-trigger` and friends.

A trigger here is always "an event rule matches → snapshot the session" (LTTng 2.13's
``event-rule-matches`` condition with the ``snapshot-session`` action). The same validation as
for `enable-event` applies (names, patterns, severities, filters) before anything is sent.

LTTng 2.13.9 quirk, reproduced: the client refuses the "at least" log-level form
(``--log-level=ERROR..``) for the python, jul and log4j types while it accepts an exact level.
For those domains a severity threshold therefore becomes one trigger per native level at or
above it, each exact; user-space tracepoints take the ``LEVEL..`` form.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import ClassVar

from fayshell.errors import ParameterError
from fayshell.lttng import names
from fayshell.lttng.argv import Request
from fayshell.lttng.filter import filter_expression
from fayshell.lttng.severity import LEVELS, level_option

CMDLET = "Register-TraceTrigger"
#: The event-rule type of each domain (lttng-event-rule(7)).
RULE_TYPES = {
    "kernel": "kernel:tracepoint",
    "user": "user:tracepoint",
    "python": "python:logging",
    "jul": "jul:logging",
    "log4j": "log4j:logging",
}
#: Every trigger fayshell adds is named PREFIX<session>-<trigger>[-<level>].
PREFIX = "fay-"


@dataclass(frozen=True)
class AddTrigger(Request):
    """``lttng add-trigger``: when the rule matches, snapshot ``session`` (every ``every``-th
    match). ``level`` is a native level spelling, ``at_least`` appends LTTng's ``..``."""

    CMDLET: ClassVar[str] = CMDLET
    name: str
    session: str
    domain: str
    pattern: str
    level: str | None = None
    at_least: bool = False
    filter: str | None = None
    every: int = 1

    def args(self) -> list[str]:
        out = [
            "add-trigger",
            f"--name={self.name}",
            "--condition=event-rule-matches",
            f"--type={RULE_TYPES[self.domain]}",
            f"--name={self.pattern}",
        ]
        if self.level is not None:
            out.append(f"--log-level={self.level}{'..' if self.at_least else ''}")
        if self.filter is not None:
            out.append(f"--filter={self.filter}")
        return out + [
            "--action=snapshot-session",
            self.session,
            f"--rate-policy=every:{self.every}",
        ]


@dataclass(frozen=True)
class RemoveTrigger(Request):
    """``lttng remove-trigger NAME``."""

    CMDLET: ClassVar[str] = "Unregister-TraceTrigger"
    name: str

    def __post_init__(self) -> None:
        trigger_name(self.name, self.CMDLET)

    def args(self) -> list[str]:
        return ["remove-trigger", self.name]


@dataclass(frozen=True)
class ListTriggers(Request):
    """``lttng list-triggers`` — parse with :func:`parse_triggers`."""

    def args(self) -> list[str]:
        return ["list-triggers"]


@dataclass(frozen=True)
class TriggerSpec:
    """What the user asked for, validated: see :func:`trigger_requests`."""

    session: str
    label: str
    domain: str
    pattern: str
    severity: str | None = None
    exact: bool = False
    filter: str | None = None
    every: int = 1

    def __post_init__(self) -> None:
        names.session_name(self.session, CMDLET, "Session")
        trigger_name(self.label, CMDLET, "Label")
        trigger_name(self.base_name, CMDLET, "Label")
        dom = names.normalize_domain(self.domain, CMDLET)
        object.__setattr__(self, "domain", dom)
        names.event_pattern(self.pattern, dom, False, CMDLET, "Name")
        if self.severity is not None:
            level_option(dom, self.severity, self.exact, CMDLET)  # validates word and domain
        elif self.exact:
            raise ParameterError(CMDLET, "Exact", "-Exact needs -Severity")
        if self.filter is not None:
            filter_expression(self.filter, CMDLET, "Filter")
        if self.every < 1:
            raise ParameterError(CMDLET, "Count", f"must be at least 1, not {self.every}")

    @property
    def base_name(self) -> str:
        """The name shared by this spec's triggers (each may add a level suffix)."""
        return f"{PREFIX}{self.session}-{self.label}"


def trigger_requests(spec: TriggerSpec) -> list[AddTrigger]:
    """The `add-trigger` requests that implement ``spec`` (several for an agent-domain
    threshold: see the module docstring)."""

    def one(name: str, level: str | None, at_least: bool) -> AddTrigger:
        return AddTrigger(
            name, spec.session, spec.domain, spec.pattern, level, at_least, spec.filter, spec.every
        )

    if spec.severity is None:
        return [one(spec.base_name, None, False)]
    opt = level_option(spec.domain, spec.severity, spec.exact, CMDLET)
    if spec.exact or spec.domain == "user":
        return [one(spec.base_name, opt.level.option_value, not spec.exact)]
    levels = LEVELS[spec.domain]
    upto = levels[: levels.index(opt.level) + 1]
    return [one(f"{spec.base_name}-{lv.value}", lv.option_value, False) for lv in upto]


def trigger_name(value: str, command: str = CMDLET, parameter: str = "Name") -> str:
    """A trigger name: the same safe character set as session names."""
    return names.session_name(value, command, parameter)


@dataclass(frozen=True)
class TriggerInfo:
    """One trigger as `lttng --mi xml list-triggers` shows it."""

    name: str
    session: str
    rule: str
    errors: int


def parse_triggers(xml: str | bytes) -> list[TriggerInfo]:
    """Triggers in a list-triggers answer (only those whose action snapshots a session)."""
    root = ET.fromstring(xml)
    out = []
    for trig in root.iter():
        if _local(trig.tag) != "trigger":
            continue
        name = _text(trig, "name")
        session = _text(trig, "session_name")
        pattern = _text(trig, "name_pattern")
        errors = sum(int(v.text or 0) for v in trig.iter() if _local(v.tag) == "value")
        out.append(TriggerInfo(name, session, pattern, errors))
    return out


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _text(elem: ET.Element, tag: str) -> str:
    for e in elem.iter():
        if _local(e.tag) == tag:
            return (e.text or "").strip()
    return ""
