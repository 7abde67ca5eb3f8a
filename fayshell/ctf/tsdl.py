"""TSDL (CTF 1.8 metadata) parser: text -> :class:`fayshell.ctf.types.Metadata`.

Covers what LTTng 2.x writes: trace/env/clock/stream/event/callsite blocks, typealias and typedef,
integer, floating_point, string, struct, variant, enum (ranges, auto-numbered), arrays and
sequences. Errors are :class:`TsdlError` with the line number.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import NamedTuple

from fayshell.ctf.types import (
    ArrayType,
    Clock,
    CtfType,
    EnumMapping,
    EnumType,
    EventClass,
    Field,
    FloatType,
    IntType,
    Metadata,
    SequenceType,
    StreamClass,
    StringType,
    StructType,
    VariantType,
)


class TsdlError(Exception):
    """The metadata text is not valid TSDL (or uses something we do not understand)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"metadata line {line}: {message}")
        self.line = line


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|/\*.*?\*/|//[^\n]*)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<chr>'(?:[^'\\]|\\.)*')
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)
  | (?P<int>integer\s*\{[^{}"'/]*\})
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>:=|\.\.\.|->|[{}\[\]();,=:<>.+\-*])
  | (?P<bad>.)
""",
    re.VERBOSE | re.DOTALL,
)


class Tok(NamedTuple):
    """One token: kind (str, chr, num, int, id, op), text and offset in the metadata text (a
    real kernel trace's metadata has about 80,000 tokens: lines are counted only for an error).

    ``int`` is a whole ``integer { ... }`` type without comments or quotes, kept as one token:
    a real kernel trace declares about 2,000 of them, mostly the same few texts, so each text
    is split and parsed once (:meth:`Parser.integer_type`)."""

    kind: str
    text: str
    pos: int


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[Tok]:
    """Split ``text[start:end]`` into tokens (offsets in ``text``), dropping blanks and
    comments."""
    end = len(text) if end is None else end
    make = Tok._make  # a tuple built in C: Tok(...) runs Python code per token
    toks = [
        make((m.lastgroup, m.group(), m.start()))
        for m in _TOKEN.finditer(text, start, end)
        if m.lastgroup != "ws"
    ]
    bad = next((t for t in toks if t.kind == "bad"), None)
    if bad is not None:
        raise TsdlError(line_at(text, bad.pos), f"unexpected character {bad.text!r}")
    toks.append(Tok("eof", "", end))
    return toks


def line_at(text: str, pos: int) -> int:
    """The line (from 1) of offset ``pos`` in ``text``."""
    return text.count("\n", 0, pos) + 1


def parse_int(text: str) -> int:
    """A TSDL integer literal (decimal, hex or octal, with optional u/l suffixes)."""
    t = text.rstrip("uUlL")
    if t.lower().startswith("0x"):
        return int(t, 16)
    if len(t) > 1 and t.startswith("0"):
        return int(t, 8)
    return int(t)


def _unquote(s: str) -> str:
    body = s[1:-1]
    return (
        body.encode("latin-1", "backslashreplace").decode("unicode_escape")
        if "\\" in body
        else body
    )


_NATIVE_BO = re.compile(r"trace\s*\{[^}]*?byte_order\s*=\s*(\w+)", re.DOTALL)
#: A trace's uuid as TSDL writes it (CTF 1.8 section 7.1): hex digits 8-4-4-4-12, the hyphens
#: where RFC 4122 puts them.
UUID_TEXT = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


class Parser:
    """Recursive-descent parser over the token list; builds the metadata as it goes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        m = _NATIVE_BO.search(text)
        self.native_be = bool(m and m.group(1) in ("be", "network"))
        self.aliases: dict[str, CtfType] = {}
        self.structs: dict[str, StructType] = {}
        self.enums: dict[str, EnumType] = {}
        self.variants: dict[str, VariantType] = {}
        self.integers: dict[str, IntType] = {}  # integer type texts already parsed
        self.meta = Metadata(big_endian=self.native_be)
        self.pending_events: list[EventClass] = []

    # -- token helpers -------------------------------------------------------------------
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def line(self, t: Tok) -> int:
        return line_at(self.text, t.pos)

    def error(self, message: str) -> TsdlError:
        return TsdlError(
            self.line(self.tok), f"{message} (at {self.tok.text or 'end of metadata'!r})"
        )

    def expect(self, text: str) -> Tok:
        if self.tok.text != text or self.tok.kind in ("str", "chr"):
            raise self.error(f"expected {text!r}")
        return self.next()

    def accept(self, text: str) -> bool:
        if self.tok.text == text and self.tok.kind not in ("str", "chr"):
            self.i += 1
            return True
        return False

    def ident(self) -> str:
        if self.tok.kind != "id":
            raise self.error("expected a name")
        return self.next().text

    # -- top level -----------------------------------------------------------------------
    def parse(self) -> Metadata:
        while self.tok.kind != "eof":
            self.top_decl()
        for ev in self.pending_events:
            stream = self.meta.streams.get(ev.stream_id)
            if stream is None:
                if ev.stream_id == 0 and not self.meta.streams:
                    stream = self.meta.streams.setdefault(0, StreamClass(0))
                else:
                    raise TsdlError(0, f"event {ev.name!r} names unknown stream {ev.stream_id}")
            if ev.id in stream.events:
                raise TsdlError(0, f"two events with id {ev.id} in stream {ev.stream_id}")
            stream.events[ev.id] = ev
        return self.meta

    def top_decl(self) -> None:
        t = self.tok.text
        if (
            t in ("trace", "env", "clock", "stream", "event", "callsite")
            and self.peek().text == "{"
        ):
            self.next()
            attrs = self.block()
            getattr(self, f"on_{t}")(attrs)
        elif t == "typealias":
            self.typealias()
        elif t == "typedef":
            self.typedef()
        elif self.tok.kind == "int" or t in (
            "struct",
            "enum",
            "variant",
            "floating_point",
            "string",
        ):
            self.type_spec()
            self.expect(";")
        else:
            raise self.error("expected a declaration")

    def typealias(self) -> None:
        self.expect("typealias")
        target = self.type_spec()
        self.expect(":=")
        names: list[str] = []
        while self.tok.kind == "id" or self.tok.text == "*":
            names.append(self.next().text)
        if not names:
            raise self.error("expected the alias name")
        self.expect(";")
        self.aliases[" ".join(names)] = target

    def typedef(self) -> None:
        self.expect("typedef")
        base = self.type_spec()
        name, t = self.declarator(base)
        self.expect(";")
        self.aliases[name] = t

    def block(self) -> dict[str, object]:
        """``{ key = value; key := type; ... };`` as a dict (types under their dotted key)."""
        self.expect("{")
        attrs: dict[str, object] = {}
        while not self.accept("}"):
            if self.tok.text in ("typealias", "typedef"):
                self.typealias() if self.tok.text == "typealias" else self.typedef()
                continue
            key = [self.ident()]
            while self.accept("."):
                key.append(self.ident())
            if self.accept(":="):
                attrs[".".join(key)] = self.type_spec()
            else:
                self.expect("=")
                attrs[".".join(key)] = self.value()
            self.expect(";")
        self.expect(";")
        return attrs

    def value(self) -> object:
        """A number, string, or (dotted) identifier on the right of ``=``."""
        neg = self.accept("-")
        t = self.next()
        if t.kind == "num":
            return -parse_int(t.text) if neg else parse_int(t.text)
        if t.kind == "str":
            return _unquote(t.text)
        if t.kind == "id":
            parts = [t.text]
            while self.accept("."):
                parts.append(self.ident())
            return ".".join(parts)
        if t.kind == "chr":
            return ord(_unquote(t.text)[0])
        raise TsdlError(self.line(t), f"expected a value, got {t.text!r}")

    # -- blocks --------------------------------------------------------------------------
    def on_trace(self, a: dict[str, object]) -> None:
        if "uuid" in a:
            if not UUID_TEXT.fullmatch(str(a["uuid"])):
                raise TsdlError(0, f"bad trace uuid {a['uuid']!r}")
            self.meta.uuid = bytes.fromhex(str(a["uuid"]).replace("-", ""))
        if "byte_order" in a:
            self.meta.big_endian = a["byte_order"] in ("be", "network")
        ph = a.get("packet.header")
        if ph is not None:
            self.meta.packet_header = self.as_struct(ph, "trace packet.header")
        if a.get("major", 1) != 1:
            raise TsdlError(0, f"CTF major version {a.get('major')} is not supported")

    def on_env(self, a: dict[str, object]) -> None:
        self.meta.env.update({k: v for k, v in a.items() if isinstance(v, (int, str))})

    def on_clock(self, a: dict[str, object]) -> None:
        name = str(a.get("name", "clock"))
        self.meta.clocks[name] = Clock(
            name=name,
            freq=int(a.get("freq", 1_000_000_000)),  # type: ignore[call-overload]
            offset_s=int(a.get("offset_s", 0)),  # type: ignore[call-overload]
            offset=int(a.get("offset", 0)),  # type: ignore[call-overload]
            uuid=str(a["uuid"]) if "uuid" in a else None,
        )
        if self.meta.clocks[name].freq <= 0:
            raise TsdlError(0, f"clock {name} has frequency {self.meta.clocks[name].freq}")

    def on_stream(self, a: dict[str, object]) -> None:
        sid = int(a.get("id", 0))  # type: ignore[call-overload]
        s = StreamClass(sid)
        for key, attr in (
            ("packet.context", "packet_context"),
            ("event.header", "event_header"),
            ("event.context", "event_context"),
        ):
            if key in a:
                setattr(s, attr, self.as_struct(a[key], f"stream {key}"))
        if sid in self.meta.streams:
            raise TsdlError(0, f"stream {sid} declared twice")
        self.meta.streams[sid] = s

    def on_event(self, a: dict[str, object]) -> None:
        ev = EventClass(
            name=str(a.get("name", "")),
            id=int(a.get("id", 0)),  # type: ignore[call-overload]
            stream_id=int(a.get("stream_id", 0)),  # type: ignore[call-overload]
        )
        if "loglevel" in a:
            ev.loglevel = int(a["loglevel"])  # type: ignore[call-overload]
        if "context" in a:
            ev.context = self.as_struct(a["context"], f"event {ev.name} context")
        if "fields" in a:
            ev.fields = self.as_struct(a["fields"], f"event {ev.name} fields")
        self.pending_events.append(ev)

    def on_callsite(self, a: dict[str, object]) -> None:
        """Callsite blocks carry source locations only; nothing to decode."""

    def as_struct(self, t: object, what: str) -> StructType:
        if not isinstance(t, StructType):
            raise TsdlError(self.line(self.tok), f"{what} must be a struct")
        return t

    # -- types ---------------------------------------------------------------------------
    def type_spec(self) -> CtfType:
        t = self.tok.text
        if self.tok.kind == "int":
            return self.integer_type(self.next())
        if self.tok.kind != "id":
            raise self.error("expected a type")
        if t == "integer":  # one with a comment or a quote inside: tokens one by one
            self.next()
            return self.integer(self.attr_block())
        if t == "floating_point":
            self.next()
            return self.floating(self.attr_block())
        if t == "string":
            self.next()
            enc = "UTF8"
            if self.tok.text == "{":
                enc = str(self.attr_block().get("encoding", "UTF8"))
            return StringType(enc)
        if t == "struct":
            return self.struct()
        if t == "enum":
            return self.enum()
        if t == "variant":
            return self.variant()
        return self.named_type()

    def named_type(self) -> CtfType:
        """A typealias/typedef name, possibly several words (``unsigned long``)."""
        words: list[str] = []
        j = self.i
        best: tuple[int, CtfType] | None = None
        while self.toks[j].kind == "id":
            words.append(self.toks[j].text)
            j += 1
            found = self.aliases.get(" ".join(words))
            if found is not None:
                best = (j, found)
        if best is None:
            raise self.error("unknown type")
        self.i = best[0]
        return best[1]

    def integer_type(self, tok: Tok) -> IntType:
        """The type of an ``int`` token: its text's tokens parsed the first time it is seen."""
        known = self.integers.get(tok.text)
        if known is not None:
            return known
        toks, i = self.toks, self.i
        self.toks, self.i = (
            tokenize(self.text, tok.pos + len("integer"), tok.pos + len(tok.text)),
            0,
        )
        try:
            known = self.integers[tok.text] = self.integer(self.attr_block())
        finally:
            self.toks, self.i = toks, i
        return known

    def attr_block(self) -> dict[str, object]:
        self.expect("{")
        attrs: dict[str, object] = {}
        while not self.accept("}"):
            key = self.ident()
            self.expect("=")
            attrs[key] = self.value()
            self.expect(";")
        return attrs

    def byte_order(self, a: dict[str, object]) -> bool:
        bo = str(a.get("byte_order", "native"))
        if bo in ("be", "network"):
            return True
        if bo == "le":
            return False
        return self.native_be

    def integer(self, a: dict[str, object]) -> IntType:
        size = a.get("size")
        if not isinstance(size, int) or not 0 < size <= 64:
            raise self.error(f"integer size {size!r} is not in 1..64")
        align = a.get("align", 8 if size % 8 == 0 else 1)
        if not isinstance(align, int) or align <= 0 or align & (align - 1):
            raise self.error(f"integer align {align!r} is not a power of two")
        signed = a.get("signed", False)
        base = a.get("base", 10)
        base = (
            {
                "decimal": 10,
                "dec": 10,
                "d": 10,
                "i": 10,
                "u": 10,
                "hexadecimal": 16,
                "hex": 16,
                "x": 16,
                "X": 16,
                "p": 16,
                "octal": 8,
                "oct": 8,
                "o": 8,
                "binary": 2,
                "b": 2,
            }.get(base, base)
            if isinstance(base, str)
            else base
        )
        clock = None
        m = a.get("map")
        if isinstance(m, str) and m.startswith("clock."):
            clock = m.split(".")[1]
        return IntType(
            size=size,
            align=align,
            signed=signed in (1, True, "true", "TRUE"),
            big_endian=self.byte_order(a),
            base=int(base),  # type: ignore[call-overload]
            encoding=str(a.get("encoding", "none")),
            clock=clock,
        )

    def floating(self, a: dict[str, object]) -> FloatType:
        exp, mant = a.get("exp_dig"), a.get("mant_dig")
        if (exp, mant) not in ((8, 24), (11, 53)):
            raise self.error(f"floating point exp_dig={exp} mant_dig={mant} is not supported")
        align = a.get("align", 8)
        return FloatType(
            int(exp),  # type: ignore[call-overload]
            int(mant),  # type: ignore[call-overload]
            int(align),  # type: ignore[call-overload]
            self.byte_order(a),
        )

    def struct(self) -> StructType:
        self.expect("struct")
        name = self.ident() if self.tok.kind == "id" else None
        if self.tok.text != "{":
            if name is None or name not in self.structs:
                raise self.error(f"unknown struct {name!r}")
            st = self.structs[name]
        else:
            st = StructType(tuple(self.body()))
            if name:
                self.structs[name] = st
        if self.tok.text == "align" and self.peek().text == "(":
            self.next()
            self.expect("(")
            n = parse_int(self.next().text)
            self.expect(")")
            st = replace(st, min_align=n)
            if name:
                self.structs[name] = st
        return st

    def body(self) -> list[Field]:
        """``{ type name; ... }`` of a struct or variant (typealias allowed inside)."""
        self.expect("{")
        fields: list[Field] = []
        while not self.accept("}"):
            if self.tok.text in ("typealias", "typedef"):
                self.typealias() if self.tok.text == "typealias" else self.typedef()
                continue
            base = self.type_spec()
            while True:
                name, t = self.declarator(base)
                fields.append(Field(name, t))
                if not self.accept(","):
                    break
            self.expect(";")
        return fields

    def declarator(self, base: CtfType) -> tuple[str, CtfType]:
        """``name``, ``name[4]``, ``name[len_field]`` (applied right to left)."""
        name = self.ident()
        dims: list[int | str] = []
        while self.accept("["):
            if self.tok.kind == "num":
                dims.append(parse_int(self.next().text))
            else:
                parts = [self.ident()]
                while self.accept("."):
                    parts.append(self.ident())
                dims.append(".".join(parts))
            self.expect("]")
        t = base
        for d in reversed(dims):
            t = ArrayType(t, d) if isinstance(d, int) else SequenceType(t, d)
        return name, t

    def enum(self) -> EnumType:
        self.expect("enum")
        name = self.ident() if self.tok.kind == "id" else None
        container: CtfType | None = None
        if self.accept(":"):
            container = self.type_spec()
        if self.tok.text != "{":
            if name is None or name not in self.enums:
                raise self.error(f"unknown enum {name!r}")
            return self.enums[name]
        if container is None:
            container = self.aliases.get("int")
        if not isinstance(container, IntType):
            raise self.error("enum container must be an integer")
        e = EnumType(container, tuple(self.enum_body()))
        if name:
            self.enums[name] = e
        return e

    def enum_body(self) -> list[EnumMapping]:
        self.expect("{")
        out: list[EnumMapping] = []
        nxt = 0
        while not self.accept("}"):
            t = self.next()
            if t.kind not in ("id", "str"):
                raise TsdlError(self.line(t), f"expected an enum label, got {t.text!r}")
            label = _unquote(t.text) if t.kind == "str" else t.text
            low = high = nxt
            if self.accept("="):
                low = high = self.signed_num()
                if self.accept("..."):
                    high = self.signed_num()
            out.append(EnumMapping(label, low, high))
            nxt = high + 1
            if not self.accept(","):
                self.expect("}")
                break
        return out

    def signed_num(self) -> int:
        neg = self.accept("-")
        t = self.next()
        if t.kind != "num":
            raise TsdlError(self.line(t), f"expected a number, got {t.text!r}")
        return -parse_int(t.text) if neg else parse_int(t.text)

    def variant(self) -> VariantType:
        self.expect("variant")
        name = self.ident() if self.tok.kind == "id" else None
        tag: str | None = None
        if self.accept("<"):
            parts = [self.ident()]
            while self.accept("."):
                parts.append(self.ident())
            tag = ".".join(parts)
            self.expect(">")
        if self.tok.text != "{":
            if name is None or name not in self.variants:
                raise self.error(f"unknown variant {name!r}")
            v = self.variants[name]
            return replace(v, tag=tag or v.tag)
        v = VariantType(tag, tuple(self.body()))
        if name:
            self.variants[name] = v
        return v


def parse_tsdl(text: str) -> Metadata:
    """Parse TSDL metadata text."""
    return Parser(text).parse()
