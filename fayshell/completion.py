"""What tab completion offers at the cursor, computed from the tokens and the cmdlet declarations.

Pure logic (no prompt-toolkit): the REPL wraps :func:`complete` in a prompt-toolkit Completer,
and tests call it directly. The text before the cursor is tokenized by the language's lexer
(:class:`fayshell.lang.highlight.FayLexer`) and scanned into nested frames (script blocks,
parentheses, hashtables) and pipeline elements, which tells what the cursor is on:

* a command name (at the start of an element, after ``|``, ``;``, ``=`` or ``{``);
* a parameter name after ``-`` (names and aliases, from the declaration the binder reads);
* a parameter value: after ``-Name``, ``-Name:`` or in a positional slot (choices, nodes,
  sessions, files, and the *columns of the relation flowing in* for property parameters such
  as ``Sort-Object dur<Tab>``);
* a member after ``$_.`` inside a script block (the columns of the relation flowing into the
  block's cmdlet) or after ``$var.`` (the value's properties);
* a variable after ``$``; SQL words, tables and columns in a ``sql`` tail.

Columns of an upstream relation come from DuckDB without running the query (``con.sql`` of a
read-only SELECT is lazy), or from building a relation with a store cmdlet's literal arguments.
Each candidate carries its kind (command, parameter, column, value, variable, file, ...).
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fayshell.commands.binding import NamedArg, bind, common_params
from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import Cmdlet, Param
from fayshell.lang import ast
from fayshell.lang.streams import is_relation
from fayshell.records import is_record, property_names
from fayshell.state import ShellState

SQL_WORDS = (
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP BY",
    "ORDER BY",
    "LIMIT",
    "JOIN",
    "COUNT",
    "DESC",
    "HAVING",
    "quantile_cont",
    "DISTINCT",
)
WORD_AT_END = re.compile(r"[^\s|;(){}=,]*$")
#: The type names casts and -is understand (fayshell.lang.ops.convert, interp.is_type).
TYPE_NAMES = (
    "int",
    "long",
    "double",
    "decimal",
    "string",
    "bool",
    "array",
    "hashtable",
    "ordered",
    "pscustomobject",
    "scriptblock",
    "datetime",
    "timespan",
    "version",
    "semver",
    "object",
)
#: A variable being typed inside a double-quoted string: ``"on $no<Tab>``.
INTERPOLATED = re.compile(r"\$[A-Za-z0-9_]*$")
#: The same rule the lexer uses for ``sql`` and the rest of the line.
SQL_TAIL = re.compile(r"(?i)(\bsql\b)([ \t]+)((?:'[^']*'|\"[^\"]*\"|\|\||[^|\n;])+)")
READ_ONLY_SQL = re.compile(r"(?is)^\s*(select|with|from|table|values)\b")
WRITING_SQL = re.compile(
    r"(?i)\b(insert|update|delete|create|drop|alter|copy|attach|detach|"
    r"install|load|pragma|set|call|export|import|checkpoint|vacuum)\b"
)
#: Parameters whose values are property (column) names.
PROPERTY_PARAMS = frozenset(
    {"property", "expandproperty", "excludeproperty", "membername", "filterscript", "process"}
)
#: Keys of a calculated property (``Select-Object @{Name = ...; Expression = {...}}``).
HASH_KEYS = (
    "Name",
    "Expression",
    "Label",
    "Ascending",
    "Descending",
    "Width",
    "Alignment",
    "FormatString",
)
LOCATION_COMMANDS = frozenset({"Set-Location", "Push-Location"})
PATH_PARAMS = frozenset({"path", "literalpath", "filepath", "destination"})
#: Output columns of the object cmdlets that reshape records.
GROUP_COLUMNS = ["Count", "Name", "Group"]
MEASURE_COLUMNS = ["Count", "Average", "Sum", "Maximum", "Minimum", "Property"]


@dataclass(frozen=True)
class Candidate:
    """One completion: replace the last ``start`` characters with ``text``; ``meta`` is its kind."""

    text: str
    start: int
    meta: str = ""


# ---- where the cursor is ----------------------------------------------------------------------


@dataclass(frozen=True)
class Tok:
    """One token of the line as the highlighter lexes it, at ``pos``."""

    pos: int
    kind: str  # the pygments token type's name, e.g. "Name.Attribute", or "Block"
    text: str

    @property
    def end(self) -> int:
        return self.pos + len(self.text)


@dataclass
class Element:
    """One pipeline element: its significant tokens and where it starts in the text."""

    start: int
    tokens: list[Tok] = field(default_factory=list)
    end: int = -1
    sql: tuple[int, int] | None = None  # the span of a ``sql`` tail

    def command(self) -> str | None:
        first = self.tokens[0] if self.tokens else None
        if (
            first is None
            or first.kind in ("Block", "Name.Variable")
            or first.kind.startswith(("Literal", "Punctuation"))
        ):
            return None
        return first.text


@dataclass
class Frame:
    """Statements at one nesting level: the script, a ``{ }`` block, ``( )`` or ``@{ }``."""

    kind: str
    owner: Element | None = None
    upstream: list[Element] = field(default_factory=list)
    elements: list[Element] = field(default_factory=list)
    current: Element = field(default_factory=lambda: Element(0))

    def new_statement(self, pos: int) -> None:
        self.elements, self.current = [], Element(pos)


def tokens_of(text: str) -> list[Tok]:
    from fayshell.lang.highlight import FayLexer

    return [
        Tok(pos, str(tt).removeprefix("Token."), value)
        for pos, tt, value in FayLexer().get_tokens_unprocessed(text)
    ]


def scan(text: str) -> list[Frame]:
    """The frames open at the end of ``text``, outermost first."""
    tails = [(m.start(3), m.end(3), m.start(1)) for m in SQL_TAIL.finditer(text)]
    stack = [Frame("root")]
    for tok in tokens_of(text):
        frame = stack[-1]
        tail = next((t for t in tails if t[0] <= tok.pos < t[1]), None)
        if tail is not None:
            if frame.current.tokens and frame.current.tokens[0].pos == tail[2]:
                frame.current.sql = (tail[0], tail[1])
            continue
        _feed(stack, frame, tok)
    return stack


def _feed(stack: list[Frame], frame: Frame, tok: Tok) -> None:
    kind, value = tok.kind, tok.text
    if kind.startswith("Comment") or (kind.endswith("Whitespace") and "\n" not in value):
        return
    if kind.endswith("Whitespace"):
        if frame.current.tokens and frame.current.tokens[-1].text != "|":
            frame.new_statement(tok.end)
    elif kind == "Punctuation" and value == "|":
        frame.current.end = tok.pos
        frame.elements.append(frame.current)
        frame.current = Element(tok.end)
    elif kind == "Punctuation" and value == ";":
        frame.new_statement(tok.end)
    elif kind == "Punctuation" and value in "{(":
        _open(stack, frame, tok)
    elif kind == "Punctuation" and value in "})" and len(stack) > 1:
        stack.pop()
        stack[-1].current.tokens.append(Tok(tok.pos, "Block", value))
    elif kind == "Operator" and value == "=":
        frame.current = Element(tok.end)  # a statement value: `$x = Get-No<Tab>`, `@{k = ...}`
    elif (
        kind.startswith("Literal.String")
        and frame.current.tokens
        and frame.current.tokens[-1].kind.startswith("Literal.String")
        and frame.current.tokens[-1].end == tok.pos
    ):
        last = frame.current.tokens.pop()
        frame.current.tokens.append(Tok(last.pos, last.kind, last.text + value))
    elif _glues(frame.current.tokens, tok):
        last = frame.current.tokens.pop()  # one bareword: `ForEach-Object`, `./logs/a.txt`
        kind = "Name.Builtin" if not frame.current.tokens else "Text"
        frame.current.tokens.append(Tok(last.pos, kind, last.text + value))
    else:
        frame.current.tokens.append(tok)


GLUE_KINDS = (
    "Text",
    "Operator",
    "Punctuation",
    "Literal.Number",
    "Keyword",
    "Name.Builtin",
    "Name",
)


def _glues(tokens: list[Tok], tok: Tok) -> bool:
    """True when ``tok`` continues the previous token as one bareword (argument mode reads
    `./a.txt` or `ForEach-Object` as one word where the highlighting lexer splits them)."""
    if not tokens or tokens[-1].end != tok.pos or "," in (tok.text, tokens[-1].text):
        return False
    prev = tokens[-1]
    command_name = len(tokens) == 1 and tok.kind == "Name.Attribute"  # ForEach + -Object
    if prev.kind not in GLUE_KINDS or (tok.kind not in GLUE_KINDS and not command_name):
        return False
    before = tokens[-2] if len(tokens) > 1 else None
    member = (
        prev.text == "."
        and before is not None
        and before.end == prev.pos
        and (before.kind in ("Name.Variable", "Block") or before.kind.startswith("Literal.String"))
    )
    return not member


def _open(stack: list[Frame], frame: Frame, tok: Tok) -> None:
    tokens = frame.current.tokens
    is_hash = bool(tokens) and tokens[-1].text == "@" and tokens[-1].end == tok.pos
    if is_hash:
        tokens.pop()
    kind = "hash" if is_hash else ("block" if tok.text == "{" else "paren")
    stack.append(Frame(kind, frame.current, list(frame.elements), current=Element(tok.end)))


# ---- the entry point --------------------------------------------------------------------------


@dataclass
class Cursor:
    """What the cursor is on: the frames, the element's finished tokens and the word typed."""

    state: ShellState
    text: str
    stack: list[Frame]
    tokens: list[Tok]
    partial: Tok | None

    @property
    def frame(self) -> Frame:
        return self.stack[-1]

    @property
    def word(self) -> str:
        return self.partial.text if self.partial is not None else ""


def complete(state: ShellState, text: str) -> list[Candidate]:
    """Candidates for the cursor at the end of ``text`` (the input before the cursor)."""
    try:
        stack = scan(text)
    except Exception:  # completion must never break typing
        return []
    element = stack[-1].current
    if element.sql is not None and element.sql[1] == len(text):
        at_end = WORD_AT_END.search(text)
        return _sql_candidates(state, at_end.group(0) if at_end else "")
    tokens = list(element.tokens)
    typing = bool(tokens) and tokens[-1].end == len(text) and tokens[-1].kind != "Block"
    cursor = Cursor(state, text, stack, tokens, tokens.pop() if typing else None)
    if cursor.word.startswith("[") and "]" not in cursor.word:
        return _matching([f"[{t}]" for t in TYPE_NAMES], cursor.word, "type")
    return _on_word(cursor) if cursor.tokens else _at_command_position(cursor)


def _at_command_position(cur: Cursor) -> list[Candidate]:
    word = cur.word
    if _variable_typed(word) is not None or _member_target(cur.tokens, cur.partial) is not None:
        return _on_word(cur)
    if cur.frame.kind == "hash" and _hash_key_position(cur.text, cur.frame):
        return _matching(list(HASH_KEYS), word, "key")
    if word[:1] in ("'", '"') or word[:1].isdigit():
        return []
    return _matching(cur.state.command_names(), word, "command")


def _on_word(cur: Cursor) -> list[Candidate]:
    """A member, a variable, or a parameter name or value of the element's command."""
    word = cur.word
    member = _member_target(cur.tokens, cur.partial)
    if member is not None:
        after_dot = "" if word == "." else word
        return _member_candidates(cur.state, cur.text, cur.stack, member, after_dot)
    typed = _variable_typed(word)
    if typed is not None:
        return _matching(["$" + v for v in _safe(_variables, cur.state)], typed, "variable")
    spec = _command_spec(cur.state, cur.tokens[0].text)
    if spec is None:
        return _files(cur.state, word) if word else []
    if word.startswith("-") and not word.endswith(":"):
        return _parameter_candidates(spec, word)
    return _parameter_value(cur, spec)


def _variable_typed(word: str) -> str | None:
    """The ``$name`` being typed: the word itself, or its end inside a double-quoted string."""
    if word.startswith("$"):
        return word
    found = INTERPOLATED.search(word) if word.startswith('"') else None
    return found.group(0) if found else None


def _command_spec(state: ShellState, name: str) -> Cmdlet | None:
    """The declaration of a user function (its param block) or of a cmdlet."""
    name = state.resolve_alias(name)
    func = state.functions.get(name.lower())
    spec = getattr(func, "spec", None)
    return spec if isinstance(spec, Cmdlet) else state.registry.resolve(name)


def _parameter_value(cur: Cursor, spec: Cmdlet) -> list[Candidate]:
    tokens, word = cur.tokens, cur.word
    if cur.partial is not None and cur.partial.kind == "Name.Attribute" and word.endswith(":"):
        tokens, word = [*tokens, cur.partial], ""
    param = _param_for_value(spec, tokens)
    if param is None:
        return _files(cur.state, word) if word else []
    if word.startswith("{"):
        return []
    found = _value_candidates((cur.state, cur.text, cur.frame.elements), param, word)
    if spec.name in LOCATION_COMMANDS:
        found = [c for c in found if c.text.endswith("/")]
    if spec.name == "Get-Help" and param.name == "Name":
        from fayshell.commands.help import ABOUT_TOPICS

        found += _matching(list(ABOUT_TOPICS), word, "help topic")
    return found


def _hash_key_position(text: str, frame: Frame) -> bool:
    """True at the start of a hashtable entry (after ``@{`` or ``;``), not after ``key =``."""
    before = text[: frame.current.start].rstrip()
    return (
        before.endswith(("{", ";")) or "\n" in text[frame.current.start - 1 : frame.current.start]
    )


def _member_target(tokens: list[Tok], partial: Tok | None) -> Tok | None:
    """The variable before ``.`` when the cursor is on ``$x.`` or ``$x.na``."""
    if partial is not None and partial.text == ".":
        tail = tokens[-1:] if tokens and tokens[-1].end == partial.pos else []
    elif (
        partial is not None
        and len(tokens) >= 2
        and tokens[-1].text == "."
        and tokens[-1].end == partial.pos
        and tokens[-2].end == tokens[-1].pos
    ):
        tail = tokens[-2:-1]
    else:
        return None
    return tail[0] if tail and tail[0].kind == "Name.Variable" else None


# ---- parameters -------------------------------------------------------------------------------


def _all_params(spec: Cmdlet) -> list[Param]:
    return list(spec.params) + list(common_params(spec))


def _parameter_candidates(spec: Cmdlet, word: str) -> list[Candidate]:
    names = ["-" + p.name for p in _all_params(spec)]
    aliases = ["-" + a for p in _all_params(spec) for a in p.aliases if len(a) > 2]
    return _matching(names, word, "parameter") + [
        c
        for c in _matching(aliases, word, "parameter alias")
        if c.text.lower() not in (n.lower() for n in names)
    ]


def _resolve(spec: Cmdlet, typed: str) -> Param | None:
    low = typed.lower()
    params = _all_params(spec)
    exact = [q for q in params if q.name.lower() == low or low in (a.lower() for a in q.aliases)]
    hits = exact or [q for q in params if q.name.lower().startswith(low)]
    return hits[0] if len(hits) == 1 else None


def _param_for_value(spec: Cmdlet, tokens: list[Tok]) -> Param | None:
    """The parameter whose value is being typed: after ``-Name``, else the next positional."""
    last = tokens[-1] if len(tokens) > 1 else None
    if last is not None and last.kind in ("Name.Attribute", "Operator.Word"):
        p = _resolve(spec, last.text[1:].rstrip(":"))
        if p is not None and (not p.is_switch or last.text.endswith(":")):
            return p
    positional = _count_positional(spec, tokens[1:])
    slots = sorted(
        (p for p in spec.params if p.position is not None), key=lambda p: p.position or 0
    )
    return slots[positional] if positional < len(slots) else None


def _count_positional(spec: Cmdlet, args: list[Tok]) -> int:
    count, i = 0, 0
    while i < len(args):
        tok = args[i]
        if tok.kind in ("Name.Attribute", "Operator.Word"):
            p = _resolve(spec, tok.text[1:].rstrip(":"))
            takes_value = tok.text.endswith(":") or (p is not None and not p.is_switch)
            i += 2 if takes_value else 1
        elif tok.text == ",":
            i += 2
        else:
            count, i = count + 1, i + 1
    return count


# ---- values -----------------------------------------------------------------------------------

Context = tuple[ShellState, str, list[Element]]


def _value_candidates(context: Context, param: Param, word: str) -> list[Candidate]:
    state, text, upstream = context
    if param.choices:
        return _matching(list(param.choices), word, "value")
    if param.name.lower() in PROPERTY_PARAMS or param.complete == "columns":
        return _matching(upstream_columns(state, text, upstream), word, "column")
    if param.complete == "files" or param.name.lower() in PATH_PARAMS:
        return _files(state, word)
    source = SOURCES.get(param.complete or "")
    if source is None:
        return []
    kind = (
        "variable"
        if param.complete == "variables"
        else "command"
        if param.complete == "commands"
        else "value"
    )
    return _matching(_safe(source, state), word, kind)


def _member_candidates(
    state: ShellState, text: str, stack: list[Frame], var: Tok, word: str
) -> list[Candidate]:
    name = var.text[1:].lower()
    if name in ("_", "psitem"):
        columns = upstream_columns(state, text, _block_upstream(state, stack))
    else:
        found, value = state.globals.lookup(name)
        columns = _safe(lambda s: value_members(value), state) if found else []
    return _matching(columns, word, "column" if name in ("_", "psitem") else "property")


def _block_upstream(state: ShellState, stack: list[Frame]) -> list[Element]:
    """The pipeline before the cmdlet a ``{ }`` (or ``@{ }``) around the cursor belongs to."""
    for frame in reversed(stack[1:]):
        name = frame.owner.command() if frame.owner is not None else None
        if frame.kind in ("block", "hash") and name and state.registry.resolve(name):
            return frame.upstream
    return []


def value_members(value: Any) -> list[str]:
    """Property names of a value: a relation's columns, a record's properties, or the
    PowerShell-style (capitalized) members of other values such as dates."""
    if is_relation(value):
        return list(value.columns())
    if isinstance(value, list):
        return value_members(value[0]) if value else []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [f.name for f in dataclasses.fields(value)]
    if is_record(value):
        return property_names(value)
    return sorted(a for a in dir(value) if a[:1].isupper())


# ---- the relation flowing in ------------------------------------------------------------------


def upstream_columns(state: ShellState, text: str, elements: list[Element]) -> list[str]:
    """Column names of what ``elements`` (the pipeline before the cursor's element) produce,
    found without running anything that writes or scans."""
    if not elements:
        return []
    columns = _safe(lambda s: _source_columns(s, text, elements[0]), state)
    for element in elements[1:]:
        columns = _reshape(state, element, columns)
    return columns


def _source_columns(state: ShellState, text: str, element: Element) -> list[str]:
    if element.sql is not None:
        sql = text[element.sql[0] : element.sql[1]].strip()
        if READ_ONLY_SQL.match(sql) and not WRITING_SQL.search(_no_strings(sql)) and ";" not in sql:
            return state.database.columns_of(sql)
        return []
    first = element.tokens[0] if element.tokens else None
    if first is not None and first.kind == "Name.Variable" and len(element.tokens) == 1:
        found, value = state.globals.lookup(first.text[1:])
        return value_members(value) if found else []
    name = element.command()
    spec = state.registry.resolve(name) if name else None
    if spec is None or spec.family != "store" or not spec.name.startswith("Get-"):
        return []
    return _built_relation_columns(state, spec, text[element.start : element.end])


def _no_strings(sql: str) -> str:
    return re.sub(r"'[^']*'|\"[^\"]*\"", "''", sql)


def _built_relation_columns(state: ShellState, spec: Cmdlet, source: str) -> list[str]:
    """Build (not run) the relation a store cmdlet returns, from literal arguments only."""
    from fayshell.lang.parser import parse

    script = parse(source.strip(), "<completion>")
    command = script.statements[0] if len(script.statements) == 1 else None
    if isinstance(command, ast.Pipeline) and len(command.elements) == 1:
        command = command.elements[0]
    if not isinstance(command, ast.Command):
        return []
    args: list[Any] = []
    for arg in command.args:
        value = arg.value if isinstance(arg, ast.ParamArg) else arg
        if value is not None and not isinstance(value, ast.Literal):
            return []
        literal = value.value if isinstance(value, ast.Literal) else None
        args.append(
            NamedArg(arg.name, literal)
            if isinstance(arg, ast.ParamArg) and value is not None
            else NamedArg(arg.name)
            if isinstance(arg, ast.ParamArg)
            else literal
        )
    bound = bind(spec, args)
    result = spec.func(Invocation(state, spec), **bound.values)
    return list(result.columns()) if is_relation(result) else []


def _reshape(state: ShellState, element: Element, columns: list[str]) -> list[str]:
    name = element.command()
    spec = state.registry.resolve(name) if name else None
    if spec is None:
        return []
    if spec.name == "Group-Object":
        return GROUP_COLUMNS
    if spec.name == "Measure-Object":
        return MEASURE_COLUMNS
    if spec.name == "Select-Object":
        return _selected(element, columns)
    return columns


def _selected(element: Element, columns: list[str]) -> list[str]:
    """Select-Object with plain property names keeps those; other forms keep the columns."""
    names: list[str] = []
    expecting = True
    for tok in element.tokens[1:]:
        if tok.kind in ("Name.Attribute", "Operator.Word"):
            if tok.text[1:].lower().startswith(("first", "last", "skip", "unique")):
                continue
            return [] if tok.text[1:].lower().startswith("exp") else columns
        if tok.text == ",":
            expecting = True
        elif expecting and tok.kind in ("Text", "Name", "Name.Builtin"):
            names.append(tok.text)
            expecting = False
    return names or columns


# ---- sources ----------------------------------------------------------------------------------


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
    return state.command_names()


def _sessions(state: ShellState) -> list[str]:
    return sorted(state.trace_sessions)


SOURCES: dict[str, Callable[[ShellState], list[str]]] = {
    "nodes": _nodes,
    "groups": _groups,
    "tables": _tables,
    "variables": _variables,
    "commands": _commands,
    "sessions": _sessions,
}


def _sql_candidates(state: ShellState, current: str) -> list[Candidate]:
    tables = _safe_tables(state)
    out = _matching(sorted(tables, key=str.lower), current, "table")
    columns = sorted({c for cols in tables.values() for c in cols}, key=str.lower)
    out += _matching(columns, current, "column")
    out += _matching(list(SQL_WORDS), current, "keyword")
    unique: dict[str, Candidate] = {}
    for cand in out:
        unique.setdefault(cand.text.lower(), cand)
    return list(unique.values())


def _safe_tables(state: ShellState) -> dict[str, list[str]]:
    try:
        return state.database.table_columns()
    except Exception:  # completion must never break typing
        return {}


def _safe(source: Callable[[ShellState], list[str]], state: ShellState) -> list[str]:
    try:
        return source(state)
    except Exception:  # an unreachable inventory, a closed database, a bad query: offer nothing
        return []


def _files(state: ShellState, current: str) -> list[Candidate]:
    """Paths starting with what was typed, relative to the shell's location, shown as typed."""
    typed = current.strip("'\"")
    base = str(state.resolve_path(typed)) if typed else state.location
    if typed.endswith("/") or not typed:
        base = base.rstrip("/") + "/"
    out = []
    for path in sorted(glob.glob(glob.escape(base) + "*"))[:200]:
        shown = typed + path[len(base) :] if path.startswith(base) else path
        shown += "/" if os.path.isdir(path) else ""
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
