"""The TSDL parser's two ways through an integer type: a whole ``integer { ... }`` text parsed
once and reused (the common case), and token by token (when a comment or a quote is inside).
Both must give the same metadata, and errors inside either name the right line."""

from __future__ import annotations

import re
import uuid

import pytest

from fayshell.ctf.metadata import metadata_text
from fayshell.ctf.tsdl import Parser, TsdlError, parse_tsdl, tokenize
from fayshell.ctf.types import IntType
from tests.ctf.conftest import shared_trace
from tests.ctf.reference import REAL_TRACES

U8 = "integer { size = 8; align = 8; signed = 0; encoding = none; base = 10; }"


def token_by_token(text: str) -> str:
    """``text`` with a comment in each integer type: the parser must take them token by token."""
    return re.sub(r"\binteger(\s*)\{", r"integer\1{ /* one by one */", text)


def test_integer_type_is_one_token_with_its_offset() -> None:
    text = f"typealias {U8} := u8;"
    kinds = [(t.kind, t.pos) for t in tokenize(text)]
    assert kinds[:2] == [("id", 0), ("int", len("typealias "))]
    assert [t.kind for t in tokenize(token_by_token(text))][1:3] == ["id", "op"]


def test_same_integer_text_parsed_once() -> None:
    text = f"typealias {U8} := a;\ntypealias {U8} := b;\ntypealias integer {{ size = 16; }} := c;"
    p = Parser(text)
    p.parse()
    assert p.aliases["a"] is p.aliases["b"]  # the second was the first's, not parsed again
    assert p.aliases["c"] == IntType(size=16)
    assert list(p.integers) == [U8, "integer { size = 16; }"]


@pytest.mark.parametrize("name", REAL_TRACES)
def test_real_metadata_same_both_ways(name: str) -> None:
    text = metadata_text(shared_trace(name) / "metadata")
    slow = token_by_token(text)
    assert slow.count("one by one") > 30  # every real trace declares dozens of integers
    assert parse_tsdl(text) == parse_tsdl(slow)


@pytest.mark.parametrize("comment", ["", " /* c */"])
def test_error_inside_integer_names_its_line(comment: str) -> None:
    text = f"trace {{ major = 1; }};\n\ntypealias integer {{{comment} size = 99; }} := big;"
    with pytest.raises(TsdlError, match="size 99") as err:
        parse_tsdl(text)
    assert err.value.line == 3


def test_integer_with_quote_or_nested_brace_is_not_one_token() -> None:
    text = 'typealias integer { size = 8; encoding = "UTF8"; } := c;'
    assert "int" not in {t.kind for t in tokenize(text)}
    assert parse_tsdl(text + "\nstream { id = 0; };").streams[0].id == 0
    assert Parser(text).toks[1].text == "integer"


@pytest.mark.parametrize("name", REAL_TRACES)
def test_real_trace_uuid_read_as_rfc_4122_bytes(name: str) -> None:
    text = metadata_text(shared_trace(name) / "metadata")
    written = re.search(r'\buuid\s*=\s*"([^"]+)"', text)
    assert written is not None
    assert parse_tsdl(text).uuid == uuid.UUID(written.group(1)).bytes


@pytest.mark.parametrize(
    "bad", ["6a5b8f4e1c2d4e3f8a9b0c1d2e3f4a5b", "6a5b8f4e-1c2d-4e3f-8a9b-0c1d2e3f4a5", "x" * 36]
)
def test_bad_trace_uuid_is_a_metadata_error(bad: str) -> None:
    with pytest.raises(TsdlError, match="bad trace uuid"):
        parse_tsdl(f'trace {{ major = 1; minor = 8; uuid = "{bad}"; }};')
