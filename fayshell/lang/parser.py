"""Parser for the fayshell language: source text -> :mod:`fayshell.lang.ast`, or a ParseError.

Like PowerShell, the language has two lexical modes: *argument mode* for a command's arguments
(barewords are strings, ``-Name`` is a parameter, ``2s`` is a duration) and *expression mode*
everywhere else (``-eq`` is an operator, ``1..10`` a range). That context dependence is why this
is a scanner-less recursive-descent parser working directly on the source text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import TypedDict, TypeVar

from fayshell.errors import IncompleteInput, ParseError, SourceSpan
from fayshell.lang import ast, integers
from fayshell.lang.netnumerics import BigInteger
from fayshell.lang.preferences import IMPACTS, ConfirmImpact
from fayshell.lang.values import parse_unit_number

T = TypeVar("T")

KEYWORDS = frozenset(
    {
        "if",
        "elseif",
        "else",
        "foreach",
        "while",
        "function",
        "return",
        "break",
        "continue",
        "throw",
        "param",
        "in",
        "for",
        "do",
        "until",
        "switch",
        "try",
        "catch",
        "finally",
        "trap",
        "exit",
        "filter",
        "enum",
        "class",
    }
)
#: Keywords that start a statement with its own parser (the rest are handled inline).
STATEMENT_KEYWORDS = (
    "if",
    "foreach",
    "while",
    "function",
    "filter",
    "for",
    "do",
    "switch",
    "try",
    "trap",
    "enum",
    "class",
)
NAMED_BLOCKS = ("begin", "process", "end", "dynamicparam")
LOGICAL_OPS = ("and", "or", "xor")
COMPARISON_OPS = (
    "eq",
    "ne",
    "gt",
    "ge",
    "lt",
    "le",
    "like",
    "notlike",
    "match",
    "notmatch",
    "in",
    "notin",
    "contains",
    "notcontains",
    "replace",
    "split",
    "join",
    "is",
    "isnot",
    "as",
)
CASE_PREFIXED = tuple(p + op for p in ("c", "i") for op in COMPARISON_OPS[:16])
ASSIGN_OPS = ("??=", "+=", "-=", "*=", "/=", "%=", "=")
#: After ``(expr)``: members and indexes, then an assignment operator (not ``==``).
AFTER_PAREN_ASSIGN = re.compile(
    r"(?:\s*(?:\??\.(?:[\w$]+|'[^']*'|\"[^\"]*\")|\??\[[^\]]*\]))+\s*(?:\?\?|[-+*/%])?=(?!=)"
)
UNICODE_ESCAPE = re.compile(r"`u\{([0-9A-Fa-f]{1,6})\}")
LABEL = re.compile(r":([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?=\r?\n|[A-Za-z])")
#: ``>``, ``>>``, ``2>``, ``2>&1``, ``*>``, ``3>>`` ...
REDIRECT = re.compile(r"([1-6*]?)(>>|>)(&[12])?")
#: Where an operand starts after a ``[type]``: then it is a cast, else a type literal.
CAST_OPERAND = re.compile(r"[$(@'\"\[{0-9]|[-+][0-9.$('\"]")

NUMBER = re.compile(
    r"(?i)(?:0x(?P<hex>[0-9a-f]+)(?P<hexsuffix>ul|uy|u|l|n|y)?|0b(?P<bin>[01]+)|(?P<num>\d+(?:\.\d+)?|\.\d+)"
    r"(?:(?P<unit>ns|us|ms|s|m|h|kb|mb|gb|tb)|(?P<exp>e[+-]?\d+)?(?P<suffix>ul|uy|u|d|l|n|y)?))(?![\w])"
)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A type's name with its namespace: ``System.Collections.Hashtable``.
DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
#: ``[Flags()]`` (or ``[System.FlagsAttribute()]``) before an ``enum`` statement.
FLAGS_ENUM = re.compile(r"(?i)\[\s*(?:system\.)?flags(?:attribute)?\s*(?:\(\s*\))?\s*\]\s*enum\b")
DASH_WORD = re.compile(r"-([A-Za-z][A-Za-z0-9_]*)")
VAR_NAME = re.compile(r"[A-Za-z0-9_?^]+(?::[A-Za-z0-9_]+)?")
COMMAND_NAME = re.compile(r"[^\s|;(){}\"',]+")
#: A statement that starts with a path runs the script (or program) there: ./x.fay, ~/x, /x.
PATH_COMMAND = re.compile(r"(?:\.{1,2}[/\\]|~[/\\]|/)[^\s|;(){}\"',]")
#: ``using namespace X``, ``using module X``, ``using assembly X`` (about_Using), to the end of
#: its line or statement.
USING = re.compile(r"(?i)using[ \t]+(namespace|module|assembly)[ \t]+[^\s;]+[ \t]*;?")
#: What peek() returns past the end: never equal to, or contained in, any one-character string.
EOF_MARK = "<end of input>"
#: Where an argument-mode word ends (quotes join it instead: a"b" is one word).
ARG_END = set(" \t\r\n|;,(){}") | {EOF_MARK}


class Loc(TypedDict):
    """Where a node starts, as keyword arguments for the node's constructor."""

    line: int
    col: int


class Parser:
    """One parse of one source text. Use :func:`parse` instead of this class directly."""

    def __init__(
        self, src: str, file: str = "<input>", raw_commands: frozenset[str] = frozenset()
    ) -> None:
        self.src = src
        self.file = file
        self.pos = 0
        self.raw_commands = raw_commands
        self.no_comma = 0
        self.line_starts = [0] + [i + 1 for i, ch in enumerate(src) if ch == "\n"]
        self._closing: dict[int, int] | None = None  # see assigns_after_paren

    # ---- positions and errors -------------------------------------------------------------

    def location(self, pos: int) -> tuple[int, int]:
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, pos - self.line_starts[lo] + 1

    def span(self, pos: int) -> SourceSpan:
        line, col = self.location(pos)
        start = self.line_starts[line - 1]
        end = self.src.find("\n", start)
        text = self.src[start : end if end >= 0 else len(self.src)]
        return SourceSpan(self.file, line, col, text)

    def error(self, message: str, expected: str = "", pos: int | None = None) -> ParseError:
        at = self.pos if pos is None else pos
        if at >= len(self.src):
            return IncompleteInput(message, self.span(len(self.src)), expected)
        return ParseError(message, self.span(at), expected)

    def incomplete(self, message: str, expected: str, pos: int) -> IncompleteInput:
        return IncompleteInput(message, self.span(pos), expected)

    def at(self, pos: int) -> Loc:
        line, col = self.location(pos)
        return Loc(line=line, col=col)

    def describe_here(self) -> str:
        if self.pos >= len(self.src):
            return "end of input"
        ch = self.src[self.pos]
        if ch == "\n":
            return "end of line"
        m = COMMAND_NAME.match(self.src, self.pos)
        return repr(m.group(0)[:20]) if m else repr(ch)

    # ---- low-level scanning ---------------------------------------------------------------

    def peek(self, offset: int = 0) -> str:
        i = self.pos + offset
        return self.src[i] if i < len(self.src) else EOF_MARK

    def eof(self) -> bool:
        return self.pos >= len(self.src)

    def skip_ws(self, newlines: bool = False) -> None:
        """Skip blanks, comments and backtick line continuations (and newlines if asked)."""
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if ch in " \t\r" or (newlines and ch == "\n"):
                self.pos += 1
            elif ch == "`" and self.peek(1) in ("\n", "\r"):
                self.pos += 2
            elif ch == "<" and self.peek(1) == "#":
                end = src.find("#>", self.pos + 2)
                if end < 0:
                    raise self.incomplete("unclosed block comment", "'#>'", self.pos)
                self.pos = end + 2
            elif ch == "#":
                end = src.find("\n", self.pos)
                self.pos = len(src) if end < 0 else end
            else:
                return

    def expect(self, text: str, what: str | None = None) -> None:
        if not self.src.startswith(text, self.pos):
            raise self.error(f"unexpected {self.describe_here()}", what or repr(text))
        self.pos += len(text)

    def word_at(self) -> str:
        m = IDENT.match(self.src, self.pos)
        return m.group(0) if m else ""

    def keyword_at(self) -> str:
        """The keyword starting here (followed by a non-word char), lower-cased, or ''."""
        w = self.word_at().lower()
        end = self.pos + len(w)
        if w in KEYWORDS and (
            end >= len(self.src) or self.src[end] not in "-_.\\/" and not self.src[end].isalnum()
        ):
            return w
        return ""

    def dash_op(self, ops: tuple[str, ...]) -> str:
        """If a ``-op`` from ``ops`` starts here, consume and return it (lower-case)."""
        m = DASH_WORD.match(self.src, self.pos)
        if m and m.group(1).lower() in ops:
            self.pos = m.end()
            return m.group(1).lower()
        return ""

    # ---- statements -----------------------------------------------------------------------

    def parse_script(self) -> ast.Script:
        while self.using_statement() is not None:  # about_Using: before everything else
            pass
        params = self.script_params()
        body = self.statements(end="")
        if not self.eof():
            raise self.error(f"unexpected {self.describe_here()}")
        return ast.Script(body, source=self.src, file=self.file, params=params, line=1, col=1)

    def using_statement(self) -> ast.Node | None:
        """``using namespace System.Text``: accepted (fayshell finds types by their short
        names anyway); ``using module`` and ``using assembly`` are errors, fayshell has neither.
        None (nothing read) when no using statement starts here."""
        save = self.pos
        self.skip_ws(newlines=True)
        m = USING.match(self.src, self.pos)
        if m is None:
            self.pos = save
            return None
        start, kind = self.pos, m.group(1).lower()
        if kind != "namespace":
            raise self.error(
                f"using {kind}: fayshell has no modules or assemblies; dot-source a script "
                "instead (. ./lib.fay)",
                pos=start,
            )
        self.pos = m.end()
        return ast.Literal(None, **self.at(start))

    def script_params(self) -> list[ast.ParamDecl]:
        """A script's leading ``[CmdletBinding()] param(...)``, if it has one."""
        save = self.pos
        self.skip_ws(newlines=True)
        while self.peek() == "[":
            try:
                self.type_literal()
            except ParseError:
                break
            self.skip_ws(newlines=True)
        if self.keyword_at() != "param":
            self.pos = save
            return []
        self.pos += len("param")
        self.skip_ws()
        return self.param_list()

    def statements(self, end: str) -> list[ast.Node]:
        """Statements up to ``end`` (a closing ``)`` or ``}``) or the end of input."""
        saved, self.no_comma = self.no_comma, 0  # commas make arrays again inside @( ) { }
        try:
            return self.statement_list(end)
        finally:
            self.no_comma = saved

    def statement_list(self, end: str) -> list[ast.Node]:
        out: list[ast.Node] = []
        while True:
            self.skip_ws(newlines=True)
            while self.peek() == ";":
                self.pos += 1
                self.skip_ws(newlines=True)
            if self.eof() or (end and self.peek() == end):
                return out
            if self.peek() in ")}":
                raise self.error(f"unexpected {self.peek()!r}", "a statement")
            out.append(self.statement())
            self.skip_ws()
            if not (self.eof() or self.peek() in "\n;" or (end and self.peek() == end)):
                raise self.error(
                    f"unexpected {self.describe_here()}", "end of statement (newline or ';')"
                )

    def statement(self) -> ast.Node:
        start = self.pos
        if USING.match(self.src, self.pos):  # typed at the prompt, as PowerShell allows
            made = self.using_statement()
            assert made is not None
            return made
        label = LABEL.match(self.src, self.pos)
        if label:  # :outer foreach (...) { ... }
            self.pos = label.end()
            self.skip_ws(newlines=True)
            loop = self.statement()
            if not isinstance(loop, (ast.Foreach, ast.While, ast.For, ast.DoLoop, ast.Switch)):
                raise self.error("a label must be followed by a loop or switch", pos=start)
            loop.label = label.group(1).lower()
            return loop
        flags = FLAGS_ENUM.match(self.src, self.pos)
        if flags:  # [Flags()] enum Name { ... }
            self.pos = flags.end()
            return self.enum_statement(start, flags=True)
        kw = self.keyword_at()
        handlers: dict[str, Callable[[int], ast.Node]] = {
            "if": self.if_statement,
            "foreach": self.foreach_statement,
            "while": self.while_statement,
            "function": self.function_statement,
            "filter": self.function_statement,
            "for": self.for_statement,
            "do": self.do_statement,
            "switch": self.switch_statement,
            "try": self.try_statement,
            "trap": self.trap_statement,
            "enum": self.enum_statement,
            "class": self.class_statement,
        }
        if kw in handlers:
            self.pos += len(kw)
            return handlers[kw](start)
        if kw in ("return", "throw", "exit"):
            self.pos += len(kw)
            self.skip_ws()
            value = None if self.eof() or self.peek() in "\n;})" else self.chain()
            cls = {"return": ast.Return, "throw": ast.Throw, "exit": ast.Exit}[kw]
            return cls(value, **self.at(start))
        if kw in ("break", "continue"):
            self.pos += len(kw)
            save = self.pos
            self.skip_ws()
            target = IDENT.match(self.src, self.pos)
            if target and self.keyword_at() == "":
                self.pos = target.end()
                name: str | None = target.group(0).lower()
            else:
                self.pos, name = save, None
            return (ast.Break if kw == "break" else ast.Continue)(name, **self.at(start))
        if kw:
            raise self.error(f"unexpected keyword '{kw}'", "a statement")
        if self.peek() in "$[(":
            assign = self.try_assignment()
            if assign is not None:
                return assign
        return self.chain()

    def chain(self) -> ast.Node:
        """Pipelines joined by ``&&`` / ``||`` (left-associative)."""
        start = self.pos
        left = self.pipeline()
        while True:
            save = self.pos
            self.skip_ws()
            op = self.src[self.pos : self.pos + 2]
            if op not in ("&&", "||"):
                self.pos = save
                return left
            self.pos += 2
            self.skip_ws(newlines=True)
            left = ast.Chain(left, op, self.pipeline(), **self.at(start))

    def try_assignment(self) -> ast.Node | None:
        start = self.pos
        types: list[str] = []
        try:
            if self.peek() == "(":  # (Get-Item x).LastWriteTime = ..., (expr)[0] = ...
                if not self.assigns_after_paren():
                    return None
                target = self.postfix(self.paren())
                if not isinstance(target, (ast.Member, ast.Index)):
                    self.pos = start
                    return None
                return self.assignment_to(target, [], start)
            while self.peek() == "[":  # [int]$x = ... (a typed variable)
                types.append(self.type_literal())
                self.skip_ws()
            if len(types) == 1 and self.src.startswith("::", self.pos):  # [T]::Count = 1
                self.pos = start
                target = self.unary()
                static = isinstance(target, ast.StaticMember) and target.args is None
                if not static and not isinstance(target, (ast.Member, ast.Index)):
                    self.pos = start
                    return None
                return self.assignment_to(target, [], start)
            if self.peek() != "$":
                self.pos = start
                return None
            target = self.postfix(self.variable())
            targets = [target]
            while True:  # $a, $b = 1, 2
                save = self.pos
                self.skip_ws()
                if self.peek() != "," or self.peek(1) == EOF_MARK:
                    self.pos = save
                    break
                self.pos += 1
                self.skip_ws()
                if self.peek() != "$":
                    self.pos = start
                    return None
                targets.append(self.postfix(self.variable()))
        except ParseError:
            self.pos = start
            return None
        if len(targets) > 1:
            target = ast.ArrayLit(targets, **self.at(start))
        return self.assignment_to(target, types, start)

    def assigns_after_paren(self) -> bool:
        """Is the ``( ... )`` here followed by members or indexes and an assignment operator?
        A look at the text (parenthesis pairs found once per source), so that a statement
        starting with '(' is parsed twice only when it assigns: nested parentheses would
        otherwise be parsed again at every level."""
        if self._closing is None:
            self._closing = _paren_pairs(self.src)
        close = self._closing.get(self.pos)
        return close is not None and AFTER_PAREN_ASSIGN.match(self.src, close + 1) is not None

    def assignment_to(self, target: ast.Node, types: list[str], start: int) -> ast.Node | None:
        """``target = value`` (or ``+=`` ...) from here; None (and back at ``start``) when no
        assignment operator follows."""
        self.skip_ws()
        for op in ASSIGN_OPS:
            if self.src.startswith(op, self.pos) and not self.src.startswith("==", self.pos):
                self.pos += len(op)
                self.skip_ws(newlines=True)
                if self.eof():
                    raise self.incomplete("assignment has no value", "a value", self.pos)
                value = self.statement_value()
                for type_name in reversed(types):
                    value = ast.Cast(type_name, value, **self.at(start))
                return ast.Assign(target, op, value, types=types, **self.at(start))
        self.pos = start
        return None

    def statement_value(self) -> ast.Node:
        """Right side of an assignment: a control statement or a pipeline."""
        kw = self.keyword_at()
        if kw in STATEMENT_KEYWORDS:
            return self.statement()
        if self.peek() in "$[":
            assign = self.try_assignment()
            if assign is not None:
                return assign
        return self.chain()

    def block(self) -> list[ast.Node]:
        self.skip_ws(newlines=True)
        start = self.pos
        if self.peek() != "{":
            raise self.error(f"unexpected {self.describe_here()}", "'{'")
        self.pos += 1
        body = self.statements(end="}")
        if self.eof():
            raise self.incomplete("missing closing '}'", "'}'", start)
        self.pos += 1
        return body

    def condition(self) -> ast.Node:
        self.skip_ws()
        start = self.pos
        self.expect("(", "'(' after the keyword")
        self.skip_ws(newlines=True)
        cond = self.pipeline()
        self.skip_ws(newlines=True)
        if self.eof():
            raise self.incomplete("missing closing ')'", "')'", start)
        self.expect(")")
        return cond

    def if_statement(self, start: int) -> ast.Node:
        clauses = [(self.condition(), self.block())]
        else_body = None
        while True:
            save = self.pos
            self.skip_ws(newlines=True)
            kw = self.keyword_at()
            if kw == "elseif":
                self.pos += len(kw)
                clauses.append((self.condition(), self.block()))
            elif kw == "else":
                self.pos += len(kw)
                else_body = self.block()
                break
            else:
                self.pos = save
                break
        return ast.If(clauses, else_body, **self.at(start))

    def foreach_statement(self, start: int) -> ast.Node:
        self.skip_ws()
        paren = self.pos
        self.expect("(", "'(' after foreach")
        self.skip_ws()
        var = self.variable()
        self.skip_ws()
        if self.keyword_at() != "in":
            raise self.error(f"unexpected {self.describe_here()}", "'in'")
        self.pos += 2
        self.skip_ws(newlines=True)
        iterable = self.pipeline()
        self.skip_ws(newlines=True)
        if self.eof():
            raise self.incomplete("missing closing ')'", "')'", paren)
        self.expect(")")
        assert isinstance(var, ast.VarRef)
        return ast.Foreach(var.name, iterable, self.block(), **self.at(start))

    def while_statement(self, start: int) -> ast.Node:
        return ast.While(self.condition(), self.block(), **self.at(start))

    def for_statement(self, start: int) -> ast.Node:
        """``for (init; cond; step) { body }``; each part may be empty."""
        self.skip_ws()
        paren = self.pos
        self.expect("(", "'(' after for")
        parts: list[ast.Node | None] = []
        for closer in (";", ";", ")"):
            self.skip_ws(newlines=True)
            parts.append(None if self.peek() in ";)" else self.statement())
            self.skip_ws(newlines=True)
            if self.eof():
                raise self.incomplete("missing closing ')'", "')'", paren)
            self.expect(closer, f"{closer!r} in for (init; condition; step)")
        return ast.For(parts[0], parts[1], parts[2], self.block(), **self.at(start))

    def do_statement(self, start: int) -> ast.Node:
        """``do { } while (cond)`` or ``do { } until (cond)``."""
        body = self.block()
        self.skip_ws(newlines=True)
        kw = self.keyword_at()
        if kw not in ("while", "until"):
            raise self.error(f"unexpected {self.describe_here()}", "'while' or 'until' after do")
        self.pos += len(kw)
        return ast.DoLoop(body, self.condition(), kw == "until", **self.at(start))

    SWITCH_FLAGS = ("regex", "wildcard", "exact", "casesensitive", "file")

    def switch_statement(self, start: int) -> ast.Node:
        flags: set[str] = set()
        while True:
            self.skip_ws()
            m = DASH_WORD.match(self.src, self.pos)
            if not m:
                break
            flag = next((f for f in self.SWITCH_FLAGS if f.startswith(m.group(1).lower())), "")
            if not flag:
                raise self.error(
                    f"unknown switch option -{m.group(1)}",
                    "-Regex, -Wildcard, -Exact or -CaseSensitive",
                )
            flags.add(flag)
            self.pos = m.end()
        if "file" in flags:  # switch -File path { ... }
            self.skip_ws()
            value = self.arg_atom()
        else:
            value = self.condition()
        self.skip_ws(newlines=True)
        brace = self.pos
        self.expect("{", "'{' after switch (...)")
        clauses: list[ast.SwitchClause] = []
        while True:
            self.skip_ws(newlines=True)
            while self.peek() == ";":
                self.pos += 1
                self.skip_ws(newlines=True)
            if self.eof():
                raise self.incomplete("missing closing '}'", "'}'", brace)
            if self.peek() == "}":
                self.pos += 1
                return ast.Switch(value, frozenset(flags), clauses, **self.at(start))
            clauses.append(self.switch_clause())

    def switch_clause(self) -> ast.SwitchClause:
        cstart = self.pos
        pattern: ast.Node | None
        if (
            self.word_at().lower() == "default"
            and not self.src[self.pos + 7 : self.pos + 8].isalnum()
        ):
            self.pos += 7
            pattern = None
        elif self.peek() == "{":
            pattern = self.script_block()
        else:
            pattern = self.arg_atom()
        return ast.SwitchClause(pattern, self.block(), **self.at(cstart))

    def try_statement(self, start: int) -> ast.Node:
        body = self.block()
        catches: list[ast.Catch] = []
        finally_body = None
        while True:
            save = self.pos
            self.skip_ws(newlines=True)
            kw = self.keyword_at()
            cstart = self.pos
            if kw == "catch" and finally_body is None:
                self.pos += len(kw)
                catches.append(ast.Catch(self.type_list(), self.block(), **self.at(cstart)))
            elif kw == "finally" and finally_body is None:
                self.pos += len(kw)
                finally_body = self.block()
            else:
                self.pos = save
                break
        if not catches and finally_body is None:
            raise self.error(f"unexpected {self.describe_here()}", "'catch' or 'finally'")
        return ast.Try(body, catches, finally_body, **self.at(start))

    def type_list(self) -> list[str]:
        """``[T1], [T2]`` before a catch or trap block."""
        types: list[str] = []
        while True:
            self.skip_ws()
            if self.peek() != "[":
                return types
            types.append(self.type_literal())
            self.skip_ws()
            if self.peek() == ",":
                self.pos += 1
                self.skip_ws(newlines=True)

    def enum_statement(self, start: int, flags: bool = False) -> ast.Node:
        """``enum Name [: type] { Member [= value] ... }`` (the underlying integer type is read
        and not kept: values are integers)."""
        self.skip_ws()
        name = self.plain_name("an enum name")
        self.bases("an integer type")
        members = self.member_block(
            lambda: (self.plain_name("an enum member name"), self.default_value())
        )
        return ast.EnumDef(name, members, flags, **self.at(start))

    def class_statement(self, start: int) -> ast.Node:
        """``class Name [: Base [, Interface ...]] { members }`` (the first name may be an
        interface too: the class declares no base then)."""
        self.skip_ws()
        name = self.plain_name("a class name")
        bases = self.bases("a base class name")
        members = self.member_block(lambda: self.class_member(name))
        return ast.ClassDef(
            name,
            bases[0] if bases else None,
            [m for m in members if isinstance(m, ast.ClassProperty)],
            [m for m in members if isinstance(m, ast.ClassMethod)],
            interfaces=bases[1:],
            **self.at(start),
        )

    def bases(self, what: str) -> list[str]:
        """``: Name [, Name ...]`` after an enum's or a class's name (none: [])."""
        self.skip_ws()
        if self.peek() != ":":
            return []
        names = []
        while self.peek() in ":,":
            self.pos += 1
            self.skip_ws()
            names.append(self.dotted_word(what))
            self.skip_ws()
        return names

    def member_block(self, member: Callable[[], T]) -> list[T]:
        """``{ member ... }``: an enum's or a class's members, on lines of their own or after
        ';'."""
        self.skip_ws(newlines=True)
        open_at = self.pos
        self.expect("{")
        out: list[T] = []
        while True:
            self.skip_ws(newlines=True)
            if self.eof():
                raise self.incomplete("missing closing '}'", "'}'", open_at)
            if self.peek() == ";":
                self.pos += 1
            elif self.peek() == "}":
                self.pos += 1
                return out
            else:
                out.append(member())

    def class_member(self, class_name: str) -> ast.ClassProperty | ast.ClassMethod:
        """A property or a method (or constructor), after its ``static``/``hidden`` words and
        its attributes and type."""
        start = self.pos
        static, hidden, ptype = False, False, None
        checks: list[tuple[str, list[ast.Node]]] = []
        while True:
            self.skip_ws(newlines=True)
            if self.peek() == "[":
                attr_at = self.pos
                text = self.type_literal()
                if text.startswith("validate"):  # [ValidateRange(1, 10)]: checked when set
                    checks.append(self.attribute(attr_at))
                elif "(" not in text:  # other attributes are not kept
                    ptype = text
                continue
            word = IDENT.match(self.src, self.pos)
            if word and word.group(0).lower() in ("static", "hidden"):
                self.pos = word.end()
                static = static or word.group(0).lower() == "static"
                hidden = hidden or word.group(0).lower() == "hidden"
                continue
            break
        if self.peek() == "$":
            var = self.variable()
            assert isinstance(var, ast.VarRef)
            default = self.default_value(commas=True)
            return ast.ClassProperty(
                var.name, ptype, default, static, hidden=hidden, checks=checks, **self.at(start)
            )
        name = self.plain_name("a property ($name) or a method name")
        self.skip_ws()
        if self.peek() != "(":
            raise self.error(f"unexpected {self.describe_here()}", "'(' and the parameters")
        params = self.param_list()
        self.skip_ws()
        base_args = None
        if self.peek() == ":":
            self.pos += 1
            self.skip_ws()
            if self.plain_name("base").lower() != "base":
                raise self.error("a constructor calls its base class as : base(...)", pos=start)
            self.skip_ws()
            base_args = self.call_args()
        self.skip_ws(newlines=True)
        body = self.script_block().body
        constructor = name.lower() == class_name.lower() and not static
        return ast.ClassMethod(
            name, ptype, params, body, static, constructor, base_args, **self.at(start)
        )

    def dotted_word(self, what: str) -> str:
        m = DOTTED_NAME.match(self.src, self.pos)
        if not m:
            raise self.error(f"unexpected {self.describe_here()}", what)
        self.pos = m.end()
        return m.group(0)

    def plain_name(self, what: str) -> str:
        m = IDENT.match(self.src, self.pos)
        if not m:
            raise self.error(f"unexpected {self.describe_here()}", what)
        self.pos = m.end()
        return m.group(0)

    def default_value(self, commas: bool = False) -> ast.Node | None:
        """``= value`` after a parameter's, a property's or an enum member's name, if there is
        one (``commas``: ``= 1, 2`` is an array, as a class property's may be; a parameter's
        comma ends it)."""
        self.skip_ws()
        if self.peek() != "=":
            return None
        self.pos += 1
        self.skip_ws()
        held = 0 if commas else 1
        self.no_comma += held
        try:
            return self.expression()
        finally:
            self.no_comma -= held

    def trap_statement(self, start: int) -> ast.Node:
        return ast.Trap(self.type_list(), self.block(), **self.at(start))

    def function_statement(self, start: int) -> ast.Node:
        self.skip_ws()
        m = COMMAND_NAME.match(self.src, self.pos)
        if not m:
            raise self.error(f"unexpected {self.describe_here()}", "a function name")
        name = m.group(0)
        self.pos = m.end()
        self.skip_ws()
        params: list[ast.ParamDecl] = []
        if self.peek() == "(":
            params = self.param_list()
        self.skip_ws(newlines=True)
        body_start = self.pos
        lit = self.script_block()
        text = self.src[body_start + 1 : self.pos - 1]
        named = lit.named
        if named is None and self.src[start : start + 6].lower() == "filter":
            named = {"process": lit.body}
        return ast.FunctionDef(
            name,
            params or lit.params,
            lit.body,
            text,
            named,
            aliases=lit.aliases,
            should_process=lit.should_process,
            confirm_impact=lit.confirm_impact,
            positional=lit.positional,
            advanced=lit.advanced,
            default_set=lit.default_set,
            **self.at(start),
        )

    def param_list(self) -> list[ast.ParamDecl]:
        """``( [type]$a = default, $b )`` -- after ``param`` or a function name."""
        start = self.pos
        self.expect("(")
        out: list[ast.ParamDecl] = []
        while True:
            self.skip_ws(newlines=True)
            if self.eof():
                raise self.incomplete("missing closing ')'", "')'", start)
            if self.peek() == ")":
                self.pos += 1
                return out
            pstart = self.pos
            ptype = None
            flags: set[str] = set()
            checks: list[tuple[str, list[ast.Node]]] = []
            aliases: list[str] = []
            sets: list[tuple[str, bool]] = []
            position: int | None = None
            while self.peek() == "[":
                attr_at = self.pos
                text = self.type_literal()
                kind = text.partition("(")[0].strip()
                if kind == "alias" or kind.startswith("validate"):
                    name, args = self.attribute(attr_at)
                    if name == "alias":
                        aliases += [a.value for a in args if isinstance(a, ast.Literal)]
                    else:
                        checks.append((name, args))
                elif "(" in text:
                    given = attribute_flags(text)
                    place = re.search(r"(?<![a-z])position\s*=\s*(\d+)", text)
                    position = int(place.group(1)) if place else position
                    named = set_name(self.src[attr_at : self.pos])
                    if named:  # Mandatory in a set is mandatory there only
                        sets.append((named, "mandatory" in given))
                        given -= {"mandatory", "parametersetname"}
                    flags |= given
                else:
                    ptype = text
                self.skip_ws(newlines=True)
            var = self.variable()
            assert isinstance(var, ast.VarRef)
            default = self.default_value()
            out.append(
                ast.ParamDecl(
                    var.name,
                    ptype,
                    default,
                    "mandatory" in flags,
                    "valuefrompipeline" in flags,
                    "valuefrompipelinebypropertyname" in flags,
                    checks,
                    aliases,
                    remaining="valuefromremainingarguments" in flags,
                    sets=sets,
                    position=position,
                    **self.at(pstart),
                )
            )
            self.skip_ws(newlines=True)
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != ")" and not self.eof():
                raise self.error(f"unexpected {self.describe_here()}", "',' or ')'")

    # ---- pipelines and commands -----------------------------------------------------------

    def pipeline(self) -> ast.Node:
        start = self.pos
        elements = [self.element()]
        while True:
            self.skip_ws()
            if self.peek() == "|" and self.peek(1) != "|":
                bar = self.pos
                self.pos += 1
                self.skip_ws(newlines=True)
                if self.eof():
                    raise self.incomplete("the pipeline continues after '|'", "a command", bar)
                elements.append(self.element())
            else:
                break
        if len(elements) == 1 and not isinstance(elements[0], ast.Command):
            return elements[0]
        return ast.Pipeline(elements, **self.at(start))

    def element(self) -> ast.Node:
        ch = self.peek()
        start = self.pos
        if (ch == "&" and self.peek(1) != "&") or (ch == "." and self.peek(1) in " \t"):
            self.pos += 1
            self.skip_ws()
            if ch == "&" and (self.peek().isalpha() or self.peek() == "_"):
                return self.command()
            callee = self.arg_atom()  # & $PSScriptRoot/x.fay: the whole word
            args, redirects = self.command_args()
            return ast.Command(ch, args, callee=callee, redirects=redirects, **self.at(start))
        if (
            ch.isalpha()
            or ch == "_"
            or (ch in "?%" and (self.peek(1) in " \t\n{" or self.peek(1) == EOF_MARK))
            or PATH_COMMAND.match(self.src, self.pos)
        ):
            return self.command()
        if ch == EOF_MARK or ch in "|;)}":
            raise self.error(f"unexpected {self.describe_here()}", "a command or expression")
        expr = self.expression()
        redirects = self.redirections()
        return ast.Redirected(expr, redirects, **self.at(start)) if redirects else expr

    def redirections(self) -> list[tuple[str, str, ast.Node | None]]:
        out: list[tuple[str, str, ast.Node | None]] = []
        while True:
            save = self.pos
            self.skip_ws()
            redirect = self.redirection()
            if redirect is None:
                self.pos = save
                return out
            out.append(redirect)

    def redirection(self) -> tuple[str, str, ast.Node | None] | None:
        """One ``2>&1`` / ``> file`` / ``>> file`` here, or None."""
        m = REDIRECT.match(self.src, self.pos)
        if not m or (m.group(1) == "" and self.peek() != ">"):
            return None
        self.pos = m.end()
        stream = m.group(1) or "1"
        if m.group(3):
            return stream, ">&", ast.Literal(m.group(3)[1], **self.at(m.start()))
        self.skip_ws()
        if self.eof() or self.peek() in "\n;|)}":
            raise self.error("a redirection needs a target", "a file name or $null")
        return stream, m.group(2), self.arg_atom()

    def command(self) -> ast.Command:
        start = self.pos
        if self.peek() in "\"'":
            name_node = self.string()
            name = name_node.value if isinstance(name_node, ast.Literal) else ""
        else:
            m = COMMAND_NAME.match(self.src, self.pos)
            if not m:
                raise self.error(f"unexpected {self.describe_here()}", "a command name")
            name = m.group(0)
            self.pos = m.end()
        if name.lower() in self.raw_commands and not self.quoted_tail():
            return ast.Command(name, [], raw_tail=self.raw_tail(), **self.at(start))
        args, redirects = self.command_args()
        return ast.Command(name, args, redirects=redirects, **self.at(start))

    def command_args(self) -> tuple[list[ast.Node], list[tuple[str, str, ast.Node | None]]]:
        """Arguments (and redirections) up to the end of the pipeline element."""
        args: list[ast.Node] = []
        redirects: list[tuple[str, str, ast.Node | None]] = []
        while True:
            word_end = self.pos
            self.skip_ws()
            ch = self.peek()
            if ch == EOF_MARK or ch in "\n;|)}" or self.src.startswith("&&", self.pos):
                break
            redirect = self.redirection()
            if redirect is not None:
                redirects.append(redirect)
            elif (
                ch == "-"
                and IDENT.match(self.src, self.pos + 1) is not None  # '-µ' is a bare word
                and (self.pos > word_end or not args)  # $a.Length-more: "-more" is text
            ):
                args.append(self.param_arg())
            elif ch == "@" and (m := IDENT.match(self.src, self.pos + 1)) is not None:
                # a splat names a variable (ASCII identifier); '@À' is a bare word
                args.append(ast.Splat(m.group(0), **self.at(self.pos)))
                self.pos = m.end()
            else:
                args.append(self.argument())
        return args, redirects

    def quoted_tail(self) -> bool:
        """A raw command's text that starts as a string or a variable (``sql "SELECT …
        $x"``, ``sql $q``): its arguments, parsed as any command's. No SQL statement starts
        with a quote or ``$``, so the text is the query's value, with ``$x`` expanded."""
        self.skip_ws()
        return self.peek() in "\"'$" or self.src.startswith(("@'", '@"'), self.pos)

    def raw_tail(self) -> str:
        """The rest of the line as raw text (SQL), up to a newline, ';' or a lone '|'.

        Quotes, parentheses and braces are respected, so ``'a|b'``, ``x || y`` and a newline
        inside an open parenthesis do not end it; an unmatched ``)`` or ``}`` closes the
        enclosing ``@( … )`` or ``{ … }``.
        """
        self.skip_ws()
        start, depth, src = self.pos, 0, self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if ch in "'\"":
                end = src.find(ch, self.pos + 1)
                if end < 0:
                    raise self.incomplete("unclosed quote in SQL", repr(ch), self.pos)
                self.pos = end + 1
                continue
            if ch in "({":
                depth += 1
            elif ch in ")}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and ch in "\n;":
                break
            elif ch == "|" and depth == 0:
                if self.peek(1) == "|":
                    self.pos += 2
                    continue
                break
            self.pos += 1
        if depth > 0:
            raise self.incomplete("missing closing ')' in SQL", "')'", start)
        return src[start : self.pos].strip()

    def param_arg(self) -> ast.ParamArg:
        start = self.pos
        self.pos += 1
        m = IDENT.match(self.src, self.pos)
        assert m is not None  # command_args saw a name here
        self.pos = m.end()
        value = None
        if self.peek() == ":" and self.peek(1) not in " \t\n":
            self.pos += 1
            value = self.argument()
        return ast.ParamArg(m.group(0), value, **self.at(start))

    def argument(self) -> ast.Node:
        """One argument in argument mode; ``a,b`` makes an array."""
        return self.comma_list(self.arg_atom)

    def comma_list(self, item: Callable[[], ast.Node]) -> ast.Node:
        """``a, b, c`` (newlines allowed after a comma) as an array; a lone item as itself."""
        start = self.pos
        items = [item()]
        while True:
            save = self.pos
            self.skip_ws()
            if self.peek() != ",":
                self.pos = save
                break
            self.pos += 1
            self.skip_ws(newlines=True)
            items.append(item())
        return items[0] if len(items) == 1 else ast.ArrayLit(items, **self.at(start))

    def arg_atom(self) -> ast.Node:
        ch = self.peek()
        start = self.pos
        if ch == "$" or ch in "\"'({" or self.src.startswith(("@(", "@{", "@'", '@"'), self.pos):
            node = self.postfix(self.primary())
            if isinstance(node, ast.VarRef) and self.peek() not in ARG_END | {">"}:
                return self.bareword(start, [node])  # $HOME/logs: one argument
            return node
        if ch == EOF_MARK or ch in "\n;|)}":
            raise self.error(f"unexpected {self.describe_here()}", "an argument")
        return self.bareword(start, [])

    def bareword(self, start: int, parts: list[str | ast.Node]) -> ast.Node:
        """An argument-mode word: an expandable string (about_Parsing), so ``a$x``,
        ``$HOME/logs``, ``a$(1+1)`` and ``a"$x"b`` are one argument each; plain text that
        is a number is that number."""
        src = self.src
        buf: list[str] = []
        while self.pos < len(src) and (src[self.pos] not in ARG_END or src[self.pos] in "\"'"):
            ch = src[self.pos]
            if ch in "\"'" or (ch == "$" and self.dynamic_at(self.pos)):
                parts += ["".join(buf)] if buf else []
                buf = []
                parts.append(self.string() if ch in "\"'" else self.dollar_part())
                continue
            if ch == "`" and self.pos + 1 < len(src):
                buf.append(self.ESCAPES.get(src[self.pos + 1], src[self.pos + 1]))
                self.pos += 2
                continue
            buf.append(ch)
            self.pos += 1
        parts += ["".join(buf)] if buf else []
        if not parts:  # a,,b: an empty word
            return ast.Literal("", **self.at(start))
        if len(parts) == 1 and isinstance(parts[0], str):
            number = self.number_value(parts[0])
            return ast.Literal(parts[0] if number is None else number, **self.at(start))
        if len(parts) == 1 and isinstance(parts[0], ast.Node):
            return parts[0]  # 'quoted' or "quoted" alone
        return ast.ExpandString(parts, **self.at(start))

    def dynamic_at(self, pos: int) -> bool:
        """A ``$`` that starts a variable or ``$(…)`` (else it is a plain character)."""
        nxt = self.src[pos + 1 : pos + 2]
        return nxt in ("(", "{") or bool(VAR_NAME.match(self.src, pos + 1))

    def dollar_part(self) -> ast.Node:
        """``$name``, ``${name}`` or ``$(…)`` inside a word."""
        if self.peek(1) == "(":
            start = self.pos
            self.pos += 1
            return ast.SubExpr(self.enclosed("(", ")"), **self.at(start))
        return self.variable()

    @staticmethod
    def number_value(word: str) -> object | None:
        """A bareword that is entirely a number (with optional unit), else None."""
        text = word[1:] if word.startswith("-") else word
        m = NUMBER.fullmatch(text)
        if not m:
            return None
        try:
            value = number_from_match(m)
        except ValueError:  # too large for its suffix's type: a word
            return None
        return -value if word.startswith("-") else value  # type: ignore[operator]

    # ---- expressions ----------------------------------------------------------------------

    def expression(self) -> ast.Node:
        """An expression, ending with PowerShell 7's ternary ``cond ? a : b``."""
        start = self.pos
        cond = self.binary_level(0)
        save = self.pos
        self.skip_ws()
        if self.peek() == "?" and self.peek(1) in " \t\r\n":
            self.pos += 1
            self.skip_ws(newlines=True)
            then = self.expression()
            self.skip_ws(newlines=True)
            self.expect(":", "':' of the ternary operator")
            self.skip_ws(newlines=True)
            return ast.Ternary(cond, then, self.expression(), **self.at(start))
        self.pos = save
        return cond

    BITWISE = ("band", "bor", "bxor", "shl", "shr")

    LEVELS: tuple[tuple[str, ...], ...] = (
        tuple("-" + op for op in LOGICAL_OPS),
        tuple("-" + op for op in COMPARISON_OPS + CASE_PREFIXED),
    )

    def binary_level(self, level: int) -> ast.Node:
        """Logical (level 0) and comparison (level 1) operators, left-associative."""
        if level == 3:
            return self.additive()
        left = self.binary_level(level + 1)
        ops = (LOGICAL_OPS, COMPARISON_OPS + CASE_PREFIXED, self.BITWISE)[level]
        while True:
            save = self.pos
            self.skip_ws()
            start = self.pos
            op = self.dash_op(ops)
            if not op:
                self.pos = save
                return left
            self.skip_ws(newlines=True)
            right = self.binary_level(level + 1)
            left = ast.Binary(op, left, right, **self.at(start))

    def additive(self) -> ast.Node:
        return self.symbol_binary("+-", self.multiplicative)

    def multiplicative(self) -> ast.Node:
        return self.symbol_binary("*/%", self.format_expr)

    def symbol_binary(self, symbols: str, operand: Callable[[], ast.Node]) -> ast.Node:
        """Left-associative one-character operators; ``-x`` words and ``+=`` are not ours."""
        left = operand()
        while True:
            save = self.pos
            self.skip_ws()
            ch, nxt = self.peek(), self.peek(1)
            if ch in symbols and nxt != "=" and not (ch == "-" and nxt.isalpha()):
                start = self.pos
                self.pos += 1
                self.skip_ws(newlines=True)
                left = ast.Binary(ch, left, operand(), **self.at(start))
            else:
                self.pos = save
                return left

    def format_expr(self) -> ast.Node:
        left = self.coalesce()
        while True:
            save = self.pos
            self.skip_ws()
            start = self.pos
            if not self.dash_op(("f",)):
                self.pos = save
                return left
            self.skip_ws(newlines=True)
            left = ast.Binary("f", left, self.coalesce(), **self.at(start))

    def coalesce(self) -> ast.Node:
        """``a ?? b`` (right-associative)."""
        left = self.range_expr()
        save = self.pos
        self.skip_ws()
        if self.src.startswith("??", self.pos) and self.peek(2) != "=":
            start = self.pos
            self.pos += 2
            self.skip_ws(newlines=True)
            return ast.Binary("??", left, self.coalesce(), **self.at(start))
        self.pos = save
        return left

    def range_expr(self) -> ast.Node:
        left = self.array_expr()
        save = self.pos
        self.skip_ws()
        if self.src.startswith("..", self.pos):
            start = self.pos
            self.pos += 2
            self.skip_ws()
            return ast.Binary("..", left, self.array_expr(), **self.at(start))
        self.pos = save
        return left

    def array_expr(self) -> ast.Node:
        return self.unary() if self.no_comma else self.comma_list(self.unary)

    def unary(self) -> ast.Node:
        self.skip_ws()
        start = self.pos
        ch = self.peek()
        if ch == "!":
            self.pos += 1
            return ast.Unary("-not", self.unary(), **self.at(start))
        if self.dash_op(("not",)):
            self.skip_ws()
            return ast.Unary("-not", self.unary(), **self.at(start))
        word = self.dash_op(("split", "join", "isplit", "csplit", "bnot"))
        if word:
            self.skip_ws()
            return ast.Unary("-" + word, self.unary(), **self.at(start))
        if self.src.startswith(("++", "--"), self.pos) and self.peek(2) == "$":
            op = self.src[self.pos : self.pos + 2]
            self.pos += 2
            return ast.IncDec(op, self.postfix(self.variable()), True, **self.at(start))
        if ch in "-+" and self.peek(1) and self.peek(1) in "$([\"'":
            self.pos += 1  # unary - and + (about_Operators): -$x, +'7', -(1 + 2)
            return ast.Unary(ch, self.unary(), **self.at(start))
        if ch == "," and not self.no_comma:
            self.pos += 1
            return ast.ArrayLit([self.unary()], **self.at(start))
        if ch == "[":
            type_name = self.type_literal()
            if self.src.startswith("::", self.pos):
                self.pos += 2
                name = self.word_at()
                if not name:
                    raise self.error(
                        f"unexpected {self.describe_here()}", "a member name after '::'"
                    )
                self.pos += len(name)
                args = self.call_args() if self.peek() == "(" else None
                written = self.src[start + 1 : self.src.index("::", start)].strip()[:-1].strip()
                return self.postfix(ast.StaticMember(written, name, args, **self.at(start)))
            save = self.pos
            self.skip_ws()
            if not CAST_OPERAND.match(self.src, self.pos):
                self.pos = save
                written = self.src[start:save].strip()[1:-1].strip()  # [IO.Path] as typed
                return self.postfix(ast.TypeLit(written, **self.at(start)))
            return ast.Cast(type_name, self.unary(), **self.at(start))
        return self.postfix(self.primary())

    def attribute(self, at: int) -> tuple[str, list[ast.Node]]:
        """The attribute written at ``at`` (``[ValidateRange(1, 10)]``): its lower-case name
        and its positional arguments, parsed as expressions where they are."""
        sub = Parser(self.src, self.file, self.raw_commands)
        sub.pos = at + 1
        name = sub.word_at()
        sub.pos += len(name)
        sub.skip_ws()
        args: list[ast.Node] = []
        if sub.peek() == "(":
            sub.pos += 1
            sub.no_comma += 1
            while True:
                sub.skip_ws(newlines=True)
                if sub.peek() in (")", EOF_MARK):
                    break
                arg = sub.expression()
                sub.skip_ws(newlines=True)
                if sub.peek() == "=":  # Name=value: a named argument, not checked here
                    sub.pos += 1
                    sub.expression()
                else:
                    args.append(arg)
                sub.skip_ws(newlines=True)
                if sub.peek() != ",":
                    break
                sub.pos += 1
        return name.lower(), args

    def type_literal(self) -> str:
        """``[name]`` with nested brackets (``[string[]]``, ``[ValidateSet('a')]``), lower-cased."""
        start = self.pos
        self.expect("[")
        depth, i = 1, self.pos
        while i < len(self.src) and depth:
            depth += {"[": 1, "]": -1}.get(self.src[i], 0)
            i += 1
        if depth:
            raise self.incomplete("missing closing ']'", "']'", start)
        name = self.src[self.pos : i - 1].strip()
        self.pos = i
        return name.lower()

    def postfix(self, node: ast.Node) -> ast.Node:
        while True:
            start = self.pos
            # ?. and ?[ (PowerShell 7's null-conditional access) right after the operand
            safe = self.src.startswith(("?.", "?["), self.pos)
            self.pos += safe
            ch = self.peek()
            if ch == "." and (self.peek(1) in "\"'" or self.peek(1) == "$"):
                self.pos += 1  # $x.'a b', $x."$k", $x.$name
                name_node = self.string() if self.peek() in "\"'" else self.dollar_part()
                if isinstance(name_node, ast.Literal):
                    node = ast.Member(node, str(name_node.value), safe=safe, **self.at(start))
                else:
                    node = ast.Member(node, "", safe=safe, computed=name_node, **self.at(start))
            elif (
                ch == "."
                and self.peek(1) != "."
                and (self.peek(1).isalpha() or self.peek(1) == "_")
            ):
                self.pos += 1
                name = self.word_at()
                self.pos += len(name)
                if self.peek() == "(":
                    args = self.call_args()
                    node = ast.MethodCall(node, name, args, safe=safe, **self.at(start))
                else:
                    node = ast.Member(node, name, safe=safe, **self.at(start))
            elif self.src.startswith(("++", "--"), self.pos) and (
                isinstance(node, (ast.VarRef, ast.Member, ast.Index))
                or (isinstance(node, ast.StaticMember) and node.args is None)
            ):
                self.pos += 2
                return ast.IncDec(
                    self.src[start : start + 2], node, False, line=node.line, col=node.col
                )
            elif ch == "[":
                self.pos += 1
                self.skip_ws(newlines=True)
                index = self.expression()
                self.skip_ws(newlines=True)
                if self.eof():
                    raise self.incomplete("missing closing ']'", "']'", start)
                self.expect("]")
                node = ast.Index(node, index, safe=safe, **self.at(start))
            else:
                self.pos -= safe
                return node

    def call_args(self) -> list[ast.Node]:
        start = self.pos
        self.expect("(")
        args: list[ast.Node] = []
        self.no_comma += 1
        try:
            while True:
                self.skip_ws(newlines=True)
                if self.eof():
                    raise self.incomplete("missing closing ')'", "')'", start)
                if self.peek() == ")":
                    self.pos += 1
                    return args
                args.append(self.expression())
                self.skip_ws(newlines=True)
                if self.peek() == ",":
                    self.pos += 1
                elif self.peek() != ")" and not self.eof():
                    raise self.error(f"unexpected {self.describe_here()}", "',' or ')'")
        finally:
            self.no_comma -= 1

    def primary(self) -> ast.Node:
        start = self.pos
        ch = self.peek()
        src = self.src
        if src.startswith("$(", self.pos):
            self.pos += 1
            return ast.SubExpr(self.enclosed("(", ")"), **self.at(start))
        if ch == "$":
            return self.variable()
        if src.startswith(("@'", '@"'), self.pos):
            return self.here_string()
        if src.startswith("@(", self.pos):
            self.pos += 1
            return ast.ArraySubExpr(self.enclosed("(", ")"), **self.at(start))
        if src.startswith("@{", self.pos):
            return self.hash_literal()
        if ch == "(":
            return self.paren()
        if ch == "{":
            return self.script_block()
        if ch in "\"'":
            return self.string()
        m = NUMBER.match(src, self.pos)
        if m and (ch.isdigit() or (ch == "." and self.peek(1).isdigit())):
            return self.number_literal(m, start, False)
        if ch in "-+" and (
            self.peek(1).isdigit() or (self.peek(1) == "." and self.peek(2).isdigit())
        ):
            m = NUMBER.match(src, self.pos + 1)
            if m:
                return self.number_literal(m, start, ch == "-")
        if self.eof():
            raise self.incomplete("the expression is not finished", "an expression", self.pos)
        raise self.error(f"unexpected {self.describe_here()}", "an expression")

    def number_literal(self, m: re.Match[str], start: int, negated: bool) -> ast.Literal:
        """The number ``m`` matched (after a ``-`` when ``negated``); a constant its suffix's
        type cannot hold is PowerShell's parse error there."""
        try:
            value = number_from_match(m)
        except ValueError as exc:
            raise self.error(str(exc), pos=start) from None
        self.pos = m.end()
        return ast.Literal(-value if negated else value, **self.at(start))  # type: ignore[operator]

    def enclosed(self, open_: str, close: str) -> list[ast.Node]:
        start = self.pos
        self.expect(open_)
        body = self.statements(end=close)
        if self.eof():
            raise self.incomplete(f"missing closing {close!r}", repr(close), start)
        self.pos += 1
        return body

    def paren(self) -> ast.Node:
        start = self.pos
        self.pos += 1
        self.skip_ws(newlines=True)
        saved_comma = self.no_comma
        self.no_comma = 0
        try:
            kw = self.keyword_at()
            inner = self.statement_value() if kw else self.statement()
        finally:
            self.no_comma = saved_comma
        self.skip_ws(newlines=True)
        if self.eof():
            raise self.incomplete("missing closing ')'", "')'", start)
        self.expect(")")
        return ast.Paren(inner, **self.at(start))

    def variable(self) -> ast.Node:
        start = self.pos
        self.expect("$", "a variable")
        if self.peek() == "{":
            end = self.src.find("}", self.pos)
            if end < 0:
                raise self.incomplete("missing closing '}'", "'}'", start)
            name = self.src[self.pos + 1 : end]
            self.pos = end + 1
            return ast.VarRef(name, **self.at(start))
        if self.peek() == "$":  # $$: the last token of the last line typed
            self.pos += 1
            return ast.VarRef("$", **self.at(start))
        m = VAR_NAME.match(self.src, self.pos)
        if not m:
            raise self.error(
                "'$' is not followed by a variable name", "a variable name", pos=self.pos
            )
        self.pos = m.end()
        return ast.VarRef(m.group(0), **self.at(start))

    def hash_literal(self) -> ast.Node:
        start = self.pos
        self.pos += 2
        pairs: list[tuple[ast.Node, ast.Node]] = []
        while True:
            self.skip_ws(newlines=True)
            while self.peek() == ";":
                self.pos += 1
                self.skip_ws(newlines=True)
            if self.eof():
                raise self.incomplete("missing closing '}'", "'}'", start)
            if self.peek() == "}":
                self.pos += 1
                return ast.HashLit(pairs, **self.at(start))
            key = self.hash_key()
            self.skip_ws()
            self.expect("=", "'=' after the key")
            self.skip_ws(newlines=True)
            pairs.append((key, self.statement_value()))
            self.skip_ws()
            if not (self.eof() or self.peek() in "\n;}"):
                raise self.error(f"unexpected {self.describe_here()}", "';', newline or '}'")

    def hash_key(self) -> ast.Node:
        start = self.pos
        ch = self.peek()
        if ch in "\"'":
            return self.string()
        if ch in "($":
            return self.postfix(self.primary())
        m = re.compile(r"[A-Za-z0-9_\-.]+").match(self.src, self.pos)
        if not m:
            raise self.error(f"unexpected {self.describe_here()}", "a key")
        self.pos = m.end()
        number = self.number_value(m.group(0))  # @{1 = 'a'}: the key is the number 1
        key = number if type(number) in (int, float) else m.group(0)
        return ast.Literal(key, **self.at(start))

    def confirm_impact(self, at: int) -> ConfirmImpact:
        """``ConfirmImpact = 'High'`` of the ``[CmdletBinding(...)]`` from ``at`` to here,
        spelled as the enum spells it; Medium when it is not given."""
        m = re.search(r"confirmimpact\s*=\s*['\"]?([\w.]+)", self.src[at : self.pos], re.I)
        if m is None:
            return "Medium"
        word = m.group(1).rsplit(".", 1)[-1].lower()
        for name in IMPACTS:
            if name.lower() == word:
                return name
        raise self.error(
            f"ConfirmImpact {m.group(1)!r} is not one of None, Low, Medium, High", pos=at
        )

    def script_block(self) -> ast.ScriptBlockLit:
        start = self.pos
        self.expect("{")
        self.skip_ws(newlines=True)
        params: list[ast.ParamDecl] = []
        aliases: list[str] = []
        should_process = advanced = False
        default_set = ""
        impact: ConfirmImpact = "Medium"
        positional = True
        save = self.pos
        while self.peek() == "[":  # [CmdletBinding()] and other attributes before param()
            attr_at = self.pos
            attr = self.type_literal()
            if attr.startswith("cmdletbinding("):
                default_set = set_name(self.src[attr_at : self.pos], "DefaultParameterSetName")
                impact = self.confirm_impact(attr_at)
                positional = re.search(r"positionalbinding\s*=\s*\$?(false|0)\b", attr) is None
            if attr.startswith("alias("):
                aliases += [
                    a.value for a in self.attribute(attr_at)[1] if isinstance(a, ast.Literal)
                ]
            should_process = should_process or supports_should_process(attr)
            advanced = advanced or attr.startswith("cmdletbinding")
            self.skip_ws(newlines=True)
        if self.keyword_at() == "param":
            self.pos += len("param")
            self.skip_ws()
            params = self.param_list()
        else:
            self.pos = save
            aliases, should_process, advanced, default_set = [], False, False, ""
            impact, positional = "Medium", True
        named = self.named_blocks(start)
        body = named.get("end", []) if named is not None else self.statements(end="}")
        if self.eof():
            raise self.incomplete("missing closing '}'", "'}'", start)
        self.pos += 1
        text = self.src[start + 1 : self.pos - 1]
        return ast.ScriptBlockLit(
            params,
            body,
            text,
            named,
            aliases=aliases,
            should_process=should_process,
            confirm_impact=impact,
            positional=positional,
            advanced=advanced,
            default_set=default_set,
            **self.at(start),
        )

    def named_block_word(self) -> str:
        """``begin``/``process``/``end`` when one starts here followed by '{', else ''."""
        word = self.word_at().lower()
        if word not in NAMED_BLOCKS:
            return ""
        i = self.pos + len(word)
        while i < len(self.src) and self.src[i] in " \t\r\n":
            i += 1
        return word if self.src[i : i + 1] == "{" else ""

    def named_blocks(self, start: int) -> dict[str, list[ast.Node]] | None:
        """A body written as ``begin { } process { } end { }``, or None for a plain body."""
        self.skip_ws(newlines=True)
        if not self.named_block_word():
            return None
        named: dict[str, list[ast.Node]] = {}
        while True:
            self.skip_ws(newlines=True)
            if self.eof():
                raise self.incomplete("missing closing '}'", "'}'", start)
            if self.peek() == "}":
                return named
            word = self.named_block_word()
            if not word:
                raise self.error(
                    f"unexpected {self.describe_here()}", "begin, process or end block"
                )
            self.pos += len(word)
            named[word] = self.block()

    # ---- strings --------------------------------------------------------------------------

    def string(self) -> ast.Node:
        return self.single_quoted() if self.peek() == "'" else self.double_quoted()

    def single_quoted(self) -> ast.Node:
        start = self.pos
        self.pos += 1
        out: list[str] = []
        src = self.src
        while True:
            end = src.find("'", self.pos)
            if end < 0:
                raise self.incomplete("unclosed string", 'a closing "\'"', start)
            out.append(src[self.pos : end])
            self.pos = end + 1
            if self.peek() == "'":
                out.append("'")
                self.pos += 1
            else:
                return ast.Literal("".join(out), **self.at(start))

    def here_string(self) -> ast.Node:
        """``@"`` newline ... newline ``"@`` (expanding) or the ``@'`` literal form."""
        start = self.pos
        quote = self.peek(1)
        self.pos += 2
        self.skip_ws()
        if self.peek() not in ("\n", EOF_MARK):
            raise self.error(
                "a here-string's opening quote must end its line", "a newline after @" + quote
            )
        body_start = self.pos + 1
        end_m = re.compile(r"\r?\n" + quote + "@").search(self.src, self.pos)
        empty = self.src.startswith(quote + "@", body_start)
        if end_m is None and not empty:
            raise self.incomplete("unclosed here-string", quote + "@ at the start of a line", start)
        end = body_start if empty else end_m.start()  # type: ignore[union-attr]
        after = body_start + 2 if empty else end_m.end()  # type: ignore[union-attr]
        if quote == "'":
            self.pos = after
            return ast.Literal(self.src[body_start:end], **self.at(start))
        self.pos = body_start
        node = self.expanding(end, start, here=True)
        self.pos = after
        return node

    ESCAPES = {
        "n": "\n",
        "t": "\t",
        "r": "\r",
        "0": "\0",
        "a": "\a",
        "e": "\x1b",
        "`": "`",
        '"': '"',
        "$": "$",
        "'": "'",
    }

    def double_quoted(self) -> ast.Node:
        start = self.pos
        self.pos += 1
        return self.expanding(len(self.src), start, here=False)

    def expanding(self, limit: int, start: int, here: bool) -> ast.Node:
        """The text of an expanding string up to its closing quote (or ``limit``)."""
        parts: list[str | ast.Node] = []
        buf: list[str] = []
        src = self.src
        while True:
            if here and self.pos >= limit:
                break
            if self.pos >= len(src):
                raise self.incomplete("unclosed string", "a closing '\"'", start)
            ch = src[self.pos]
            if ch == '"' and not here:
                if self.peek(1) == '"':
                    buf.append('"')
                    self.pos += 2
                    continue
                self.pos += 1
                break
            if ch == "`" and self.pos + 1 < len(src):
                code = UNICODE_ESCAPE.match(src, self.pos)
                if code:  # `u{263A}
                    buf.append(chr(int(code.group(1), 16)))
                    self.pos = code.end()
                    continue
                buf.append(self.ESCAPES.get(src[self.pos + 1], src[self.pos + 1]))
                self.pos += 2
                continue
            if ch == "$" and (
                self.peek(1) == "(" or self.peek(1) == "{" or VAR_NAME.match(src, self.pos + 1)
            ):
                if buf:
                    parts.append("".join(buf))
                    buf = []
                vstart = self.pos
                if self.peek(1) == "(":
                    self.pos += 1
                    parts.append(ast.SubExpr(self.enclosed("(", ")"), **self.at(vstart)))
                else:
                    parts.append(self.variable())
                continue
            buf.append(ch)
            self.pos += 1
        if buf:
            parts.append("".join(buf))
        if all(isinstance(p, str) for p in parts):
            return ast.Literal("".join(p for p in parts if isinstance(p, str)), **self.at(start))
        return ast.ExpandString(parts, **self.at(start))


def attribute_flags(text: str) -> set[str]:
    """``Parameter(Mandatory, ValueFromPipeline=$true)`` -> {"mandatory", "valuefrompipeline"}."""
    if not text.startswith("parameter"):
        return set()
    inner = text[text.find("(") + 1 : text.rfind(")")]
    flags = set()
    for part in inner.split(","):
        name, _, value = part.partition("=")
        if value.strip() not in ("$false", "0"):
            flags.add(name.strip())
    return flags


def number_from_match(m: re.Match[str]) -> object:
    """The value of a NUMBER match: int, float, Decimal (``1.5d``), Duration or Size."""
    if m.group("hex"):
        return hex_literal(int(m.group("hex"), 16), (m.group("hexsuffix") or "").lower())
    if m.group("bin"):  # PowerShell 7's 0b1010
        return int(m.group("bin"), 2)
    digits, unit, exp = m.group("num"), m.group("unit"), m.group("exp")
    digits = "0" + digits if digits.startswith(".") else digits  # .5 is 0.5
    if unit:
        value = parse_unit_number(digits + unit)
        assert value is not None  # NUMBER only admits units parse_unit_number knows
        return value
    suffix = (m.group("suffix") or "").lower()
    if suffix == "d":
        return Decimal(digits + (exp or ""))
    if suffix == "n" and not exp and "." not in digits:  # about_Numeric_Literals: BigInteger
        return BigInteger(int(digits))
    if suffix in SUFFIX_KINDS:  # 1.5L is the [long] 2, rounded to even as .NET rounds
        whole = round(Decimal(digits + (exp or "")))
        return sized_literal(int(whole), suffix, m.group(0))
    if exp or "." in digits:
        return float(digits + (exp or ""))
    return integer_literal(int(digits))


#: The integer type a literal's suffix names (about_Numeric_Literals): ``u`` is a UInt32, or a
#: UInt64 when the value needs it. PowerShell's ``s`` and ``us`` (Int16, UInt16) are
#: fayshell's seconds and microseconds here.
SUFFIX_KINDS = {
    "l": integers.INT64,
    "u": integers.UINT32,
    "ul": integers.UINT64,
    "y": integers.SBYTE,
    "uy": integers.BYTE,
}


def hex_literal(n: int, suffix: str) -> object:
    """``0xFFFFFFFF`` as about_Numeric_Literals reads it: the bit pattern of the smallest of
    [int] and [long] that holds it, so a set top bit makes it negative (-1); a signed suffix
    (``l``, ``y``) reads the pattern in its type, an unsigned one keeps it unsigned, ``n``
    makes it a [bigint]."""
    if suffix == "n":
        return BigInteger(n)
    kind = SUFFIX_KINDS.get(suffix)
    if kind is not None and not kind.signed:
        return sized_literal(n, suffix, f"0x{n:X}{suffix}")
    for fits in (kind,) if kind is not None else (integers.INT32, integers.INT64):
        if n >> fits.bits == 0:
            return integers.make(fits, fits.wrap(n))
    if kind is not None:
        raise ValueError(f"The numeric constant 0x{n:X}{suffix} is not valid.")
    return integer_literal(n)


def sized_literal(n: int, suffix: str, text: str) -> int:
    """A decimal literal with a type suffix: its value as that type, when the type holds it
    (``5u`` is a [uint32], ``5000000000u`` a [uint64])."""
    kind = SUFFIX_KINDS[suffix]
    if kind is integers.UINT32 and n > kind.hi:
        kind = integers.UINT64
    if not kind.holds(n):
        raise ValueError(f"The numeric constant {text} is not valid.")
    return integers.make(kind, n)


#: The largest [decimal].
DECIMAL_MAX = 79228162514264337593543950335


def integer_literal(n: int) -> int | Decimal | float:
    """An integer literal's value as about_Numeric_Literals types it: [int] or [long] when it
    fits, else [decimal], else [double]."""
    if -(2**63) <= n < 2**63:
        return n
    return Decimal(n) if n <= DECIMAL_MAX else float(n)


def parse(
    src: str, file: str = "<input>", raw_commands: frozenset[str] = frozenset({"sql"})
) -> ast.Script:
    """Parse a whole script. Raises ParseError (IncompleteInput when more input could fix it)."""
    parser = Parser(src, file, raw_commands)
    try:
        return parser.parse_script()
    except RecursionError:
        raise parser.error("the input is nested too deeply", pos=0) from None


def set_name(attribute: str, key: str = "ParameterSetName") -> str:
    """The parameter set an attribute's source names (``[Parameter(ParameterSetName='X')]``,
    ``[CmdletBinding(DefaultParameterSetName='X')]``), as written; "" when none."""
    m = re.search(rf"(?<![A-Za-z]){key}\s*=\s*(['\"])(.*?)\1", attribute, re.IGNORECASE)
    return m.group(2) if m else ""


def supports_should_process(attribute: str) -> bool:
    """Does ``[CmdletBinding(...)]`` (lower-cased) declare SupportsShouldProcess (not =$false)?"""
    if not attribute.startswith("cmdletbinding("):
        return False
    m = re.search(r"supportsshouldprocess\s*(=\s*\$?(\w+))?", attribute)
    return m is not None and (m.group(2) or "true") not in ("false", "0")


def _paren_pairs(src: str) -> dict[int, int]:
    """Where each '(' of ``src`` closes (quoted text and comments skipped; unbalanced ones
    left out)."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    quote = ""
    i = 0
    while i < len(src):
        ch = src[i]
        if quote:
            if ch == quote and src[i - 1] != "`":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif src.startswith("<#", i):  # to the closing #>
            end = src.find("#>", i + 2)
            i = len(src) if end < 0 else end + 1
        elif ch == "#" and (i == 0 or src[i - 1] in " \t\n;"):  # to the end of the line
            end = src.find("\n", i)
            i = len(src) if end < 0 else end
        elif ch == "(":
            opened.append(i)
        elif ch == ")" and opened:
            pairs[opened.pop()] = i
        i += 1
    return pairs
