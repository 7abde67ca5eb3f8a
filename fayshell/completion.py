"""What tab completion offers at the cursor, computed from the cmdlet declarations.

Pure logic (no prompt-toolkit): the REPL wraps :func:`complete` in a prompt-toolkit Completer,
and tests call it directly. Offers cmdlets and aliases at the start of a pipeline element,
parameters after ``-``, variables after ``$``, declared value choices and completion sources
(nodes, files, tables...) for parameter values, and tables/columns after ``sql``.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fayshell.commands.binding import COMMON
from fayshell.commands.registry import Cmdlet, Param
from fayshell.state import ShellState

SQL_WORDS = ("SELECT", "FROM", "WHERE", "GROUP BY", "ORDER BY", "LIMIT", "JOIN", "COUNT",
             "DESC", "HAVING", "quantile_cont", "DISTINCT")
WORD_AT_END = re.compile(r"[^\s|;(){}=,]*$")


@dataclass(frozen=True)
class Candidate:
    """One completion: replace the last ``-start`` characters with ``text``."""

    text: str
    start: int
    meta: str = ""


def _nodes(state: ShellState) -> list[str]:
    cluster = state.cluster
    names = getattr(cluster, "node_names", None)
    return list(names()) if callable(names) else []


def _groups(state: ShellState) -> list[str]:
    groups = getattr(state.cluster, "group_names", None)
    return ["@" + g for g in groups()] if callable(groups) else []


def _tables(state: ShellState) -> list[str]:
    return list(state.database.table_columns())


def _variables(state: ShellState) -> list[str]:
    return [name for name, _ in state.globals.items()]


def _commands(state: ShellState) -> list[str]:
    return state.registry.names()


def _sessions(state: ShellState) -> list[str]:
    return sorted(state.trace_sessions)


SOURCES: dict[str, Callable[[ShellState], list[str]]] = {
    "nodes": _nodes, "groups": _groups, "tables": _tables, "variables": _variables,
    "commands": _commands, "sessions": _sessions,
}


def complete(state: ShellState, text: str) -> list[Candidate]:
    """Candidates for the cursor at the end of ``text`` (the input before the cursor)."""
    element = _current_element(text)
    word = WORD_AT_END.search(text)
    current = word.group(0) if word else ""
    tokens = element.split()
    if tokens and tokens[0].lower() == "sql" and (len(tokens) > 1 or element.endswith(" ")):
        return _sql_candidates(state, current)
    if current.startswith("$"):
        return _matching(["$" + v for v in _safe(SOURCES["variables"], state)], current, "variable")
    if not tokens or (len(tokens) == 1 and not element.endswith((" ", "\t"))):
        return _matching(state.registry.names() + [f.node.name for f in state.functions.values()],
                         current, "command")
    spec = state.registry.resolve(tokens[0])
    if spec is None:
        return []
    if current.startswith("-"):
        params = list(spec.params) + [c for c in COMMON if spec.param(c.name) is None]
        return _matching(["-" + p.name for p in params], current, "parameter")
    param = _param_for_value(spec, tokens, element)
    if param is None:
        return _files(current) if current else []
    return _value_candidates(state, param, current)


def _current_element(text: str) -> str:
    """The text of the pipeline element under the cursor (after the last | ; { or newline)."""
    depth_free = re.split(r"[|;\n{(]", text)
    return depth_free[-1].lstrip()


def _param_for_value(spec: Cmdlet, tokens: list[str], element: str) -> Param | None:
    """The parameter whose value is being typed: after ``-Name``, else the next positional."""
    typing_new = element.endswith((" ", "\t"))
    previous = tokens[-1] if typing_new else (tokens[-2] if len(tokens) > 1 else "")
    if previous.startswith("-") and len(previous) > 1:
        typed = previous[1:].rstrip(":").lower()
        params = list(spec.params) + [c for c in COMMON if spec.param(c.name) is None]
        exact = [q for q in params if q.name.lower() == typed]
        hits = exact or [q for q in params if q.name.lower().startswith(typed)]
        p = hits[0] if len(hits) == 1 else None
        return None if p is None or p.is_switch else p
    args = tokens[1:] if typing_new else tokens[1:-1]
    positional = sum(1 for a in args if not a.startswith("-"))
    slots = sorted((p for p in spec.params if p.position is not None),
                   key=lambda p: p.position or 0)
    return slots[positional] if positional < len(slots) else None


def _value_candidates(state: ShellState, param: Param, current: str) -> list[Candidate]:
    if param.choices:
        return _matching(list(param.choices), current, param.name)
    if param.complete == "files" or param.complete is None and param.type is str:
        return _files(current) if param.complete == "files" else []
    source = SOURCES.get(param.complete or "")
    if source is None:
        return []
    return _matching(_safe(source, state), current, param.complete or "")


def _sql_candidates(state: ShellState, current: str) -> list[Candidate]:
    names: list[str] = []
    for table, columns in _safe_tables(state).items():
        names.append(table)
        names.extend(columns)
    names.extend(SQL_WORDS)
    return _matching(sorted(set(names), key=str.lower), current, "sql")


def _safe_tables(state: ShellState) -> dict[str, list[str]]:
    try:
        return state.database.table_columns()
    except Exception:  # completion must never break typing
        return {}


def _safe(source: Callable[[ShellState], list[str]], state: ShellState) -> list[str]:
    try:
        return source(state)
    except Exception:  # an unreachable inventory or closed database: offer nothing
        return []


def _files(current: str) -> list[Candidate]:
    pattern = os.path.expanduser(current) + "*"
    out = []
    for path in sorted(glob.glob(pattern))[:200]:
        shown = path + ("/" if os.path.isdir(path) else "")
        out.append(Candidate(shown, len(current), "file"))
    return out


def _matching(options: list[Any], current: str, meta: str) -> list[Candidate]:
    low = current.lower()
    seen: set[str] = set()
    out = []
    for opt in options:
        text = str(opt)
        if text.lower().startswith(low) and text.lower() not in seen:
            seen.add(text.lower())
            out.append(Candidate(text, len(current), meta))
    return out
