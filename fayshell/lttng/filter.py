"""Syntax check of LTTng filter expressions (``--filter``), before anything is sent to a node.

The grammar follows LTTng's filter language: C-like expressions over event fields
(``size > 4096``, ``msg == "slow*"``; in strings ``*`` is a wildcard and the only escapes are
``\\*`` and ``\\\\``, as LTTng 2.13 accepts), context fields (``$ctx.vpid``, ``$app.prov:ctx``), array
indexing and member access, integer/float/string literals, unary ``! ~ + -``, and the binary
operators ``<< >> < <= > >= == != & ^ | && ||``. The binary arithmetic operators ``* / % + -``
parse but are refused: LTTng 2.13.9's client rejects them when it generates the bytecode
("binary operation '%' not supported", checked here), so ``x % 16 == 0`` must be written
``(x & 15) == 0``. The check is otherwise syntactic: LTTng still decides whether a field exists.
A rejected expression raises one clear line with a column.

:func:`sample_filter` builds the 1/N trace sampling condition of ``-SampleEvery``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fayshell.errors import ParameterError
from fayshell.lttng.names import FILTER_MAX_BYTES, check_printable, is_power_of_two

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t]+)
  | (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
  | (?P<int>0[xX][0-9a-fA-F]+|\d+)[uUlL]*
  | (?P<string>"(?:[^"\\]|\\[*\\])*")
  | (?P<char>'(?:[^'\\]|\\[*\\])+')
  | (?P<ctx>\$(?:ctx|app|container)\.[A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z_][A-Za-z0-9_]*)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>&&|\|\||<<|>>|<=|>=|==|!=|->|[-+*/%<>&^|!~()\[\].])
    """,
    re.VERBOSE,
)

# Binary operators by precedence, lowest first.
_BINARY_LEVELS: tuple[frozenset[str], ...] = (
    frozenset({"||"}),
    frozenset({"&&"}),
    frozenset({"|"}),
    frozenset({"^"}),
    frozenset({"&"}),
    frozenset({"==", "!="}),
    frozenset({"<", "<=", ">", ">="}),
    frozenset({"<<", ">>"}),
    frozenset({"+", "-"}),
    frozenset({"*", "/", "%"}),
)
_UNARY = frozenset({"!", "~", "+", "-"})
#: Binary operators LTTng 2.13 parses but cannot turn into filter bytecode.
_NO_BYTECODE = frozenset({"*", "/", "%", "+", "-"})
#: The BlkKin field that names a request's trace (every zipkin event carries it).
TRACE_ID_FIELD = "trace_id"


@dataclass(frozen=True)
class Token:
    """One lexical token of a filter expression; ``col`` is 1-based."""

    kind: str
    text: str
    col: int


class _Parser:
    def __init__(self, expr: str, command: str, parameter: str) -> None:
        self.expr = expr
        self.command = command
        self.parameter = parameter
        self.tokens = self._lex()
        self.pos = 0

    def fail(self, col: int, message: str) -> ParameterError:
        return ParameterError(
            self.command, self.parameter, f"malformed filter at column {col}: {message}"
        )

    def _lex(self) -> list[Token]:
        out: list[Token] = []
        i = 0
        while i < len(self.expr):
            m = _TOKEN_RE.match(self.expr, i)
            if not m:
                ch = self.expr[i]
                if ch in "\"'":
                    esc = re.search(r"\\[^*\\]", self.expr[i:])
                    if esc:
                        raise self.fail(
                            i + esc.start() + 1, "only \\* and \\\\ escapes are allowed in strings"
                        )
                    raise self.fail(i + 1, "unterminated string literal")
                if ch == "$":
                    raise self.fail(
                        i + 1, "context fields are written $ctx.NAME or $app.PROVIDER:NAME"
                    )
                raise self.fail(i + 1, f"unexpected character {ch!r}")
            kind = m.lastgroup or ""
            if kind != "ws":
                out.append(Token(kind, m.group(0), i + 1))
            i = m.end()
        out.append(Token("end", "", len(self.expr) + 1))
        return out

    def peek(self) -> Token:
        return self.tokens[self.pos]

    def take(self) -> Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.take()
        if tok.text != text:
            raise self.fail(
                tok.col, f"expected {text!r}, found {tok.text or 'end of expression'!r}"
            )

    def parse(self) -> None:
        if self.peek().kind == "end":
            raise self.fail(1, "empty expression")
        self.binary(0)
        tok = self.peek()
        if tok.kind != "end":
            raise self.fail(tok.col, f"unexpected {tok.text!r}")

    def binary(self, level: int) -> None:
        if level == len(_BINARY_LEVELS):
            self.unary()
            return
        self.binary(level + 1)
        while self.peek().kind == "op" and self.peek().text in _BINARY_LEVELS[level]:
            tok = self.take()
            if tok.text in _NO_BYTECODE:
                raise self.fail(
                    tok.col,
                    f"LTTng 2.13 filters have no binary {tok.text!r} "
                    "(comparisons, && || !, and bitwise & | ^ << >> ~ only; "
                    "x % 16 == 0 is (x & 15) == 0)",
                )
            self.binary(level + 1)

    def unary(self) -> None:
        tok = self.peek()
        if tok.kind == "op" and tok.text in _UNARY:
            self.take()
            self.unary()
            return
        self.postfix()

    def postfix(self) -> None:
        self.primary()
        while self.peek().text in ("[", ".", "->"):
            tok = self.take()
            if tok.text == "[":
                self.binary(0)
                self.expect("]")
            elif self.take().kind != "ident":
                raise self.fail(tok.col, f"a field name must follow {tok.text!r}")

    def primary(self) -> None:
        tok = self.take()
        if tok.kind in ("ident", "ctx", "int", "float", "string", "char"):
            return
        if tok.text == "(":
            self.binary(0)
            self.expect(")")
            return
        if tok.kind == "end":
            raise self.fail(tok.col, "expression ends too early")
        raise self.fail(tok.col, f"unexpected {tok.text!r}")


def filter_expression(expr: str, command: str = "lttng", parameter: str = "Filter") -> str:
    """Validate an LTTng filter expression; return it unchanged (it travels as one argv element)."""
    if not isinstance(expr, str):
        raise ParameterError(command, parameter, "filter must be a string")
    check_printable(command, parameter, expr, "filter")
    if len(expr.encode()) > FILTER_MAX_BYTES:
        raise ParameterError(command, parameter, f"filter is longer than {FILTER_MAX_BYTES} bytes")
    _Parser(expr, command, parameter).parse()
    return expr


def sample_filter(
    every: int, command: str = "lttng", parameter: str = "SampleEvery", field: str = TRACE_ID_FIELD
) -> str:
    """The condition keeping 1 trace in ``every`` (a power of two): ``(trace_id & (N-1)) == 0``.

    LTTng evaluates it in the traced process, so dropped requests cost no buffer space, and
    every event of a kept trace passes (they all carry the same trace id). The sets nest: a
    trace kept at 1/16 is also kept at 1/4, so several such rules keep the smallest N.
    """
    if (
        isinstance(every, bool)
        or not isinstance(every, int)
        or every < 2
        or not is_power_of_two(every)
        or every > 1 << 32
    ):
        raise ParameterError(
            command,
            parameter,
            f"{every!r} must be a power of two from 2 to 2^32 (LTTng filters "
            "have no %, so 1/N sampling masks the trace id's low bits)",
        )
    return f"({field} & {every - 1}) == 0"
