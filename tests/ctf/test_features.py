"""TSDL features beyond what the real traces use, checked against babeltrace2: plain-text
metadata, typedef, named enums with ranges and auto values, bit-fields of both byte orders,
floats, sequences, text sequences, variants in the payload, invalid UTF-8, clock offset_s."""

from __future__ import annotations

from pathlib import Path

import pytest

from fayshell.ctf.tsdl import TsdlError, parse_tsdl
from fayshell.ctf.types import EnumType, IntType, SequenceType, VariantType
from tests.ctf.minitrace import METADATA, write_mini
from tests.ctf.reference import bt2_view, fay_view
from tests.ctf.test_differential import assert_same


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_mini(tmp_path_factory.mktemp("mini") / "trace")


def test_mini_trace_matches_babeltrace2(mini: Path, prefer_c: bool) -> None:
    ref = bt2_view(str(mini))
    assert len(ref.lines) == 60
    assert_same(ref, fay_view(str(mini), prefer_c))


def test_parse_mini_metadata() -> None:
    meta = parse_tsdl(METADATA)
    assert meta.uuid is not None and not meta.big_endian
    assert meta.clock().offset_ns() == 1_600_000_000_000_000_005
    ev = meta.streams[0].events[0]
    assert ev.name == "t:misc" and ev.loglevel == 4 and ev.fields is not None
    f = {x.name: x.type for x in ev.fields.fields}
    kind = f["_kind"]
    assert isinstance(kind, EnumType)
    assert [(m.label, m.low, m.high) for m in kind.mappings] == [
        ("A", 0, 0),
        ("B", 5, 5),
        ("C", 7, 9),
        ("quoted label", 10, 10),
    ]
    assert isinstance(f["_be13"], IntType) and f["_be13"].big_endian and f["_be13"].size == 13
    assert isinstance(f["_vals"], SequenceType) and f["_vals"].length_path == "_n"
    assert isinstance(f["_v"], VariantType) and f["_v"].tag == "_kind"
    assert ev.fields.align == 64


def test_native_byte_order_follows_trace() -> None:
    text = (
        "typealias integer { size = 32; align = 8; signed = false; } := u32;\n"
        "trace { major = 1; minor = 8; byte_order = be; };\n"
        "event { name = e; fields := struct { u32 _a; integer { size = 8; byte_order = le; }"
        " _b; }; };"
    )
    meta = parse_tsdl(text)
    a, b = (x.type for x in meta.streams[0].events[0].fields.fields)  # type: ignore[union-attr]
    assert isinstance(a, IntType) and a.big_endian
    assert isinstance(b, IntType) and not b.big_endian


@pytest.mark.parametrize(
    "text, where",
    [
        ("trace { major = 1; ", "expected"),
        ("event { name = x; fields := struct { nosuchtype _a; }; };", "unknown type"),
        ("typealias integer { size = 99; } := big;", "size"),
        ("trace { byte_order = le; } ; @", "unexpected character"),
        (
            "event { name = x; fields := struct { integer { size = 8; } _a[_nolen]; }; }; "
            "stream { id = 0; };",
            None,
        ),
    ],
)
def test_bad_tsdl(text: str, where: str | None) -> None:
    if where is None:
        meta = parse_tsdl(text)  # parses; the missing length field is a compile error
        from fayshell.ctf import program as P

        with pytest.raises(P.CompileError, match="_nolen"):
            P.compile_stream(None, None, {0: (None, meta.streams[0].events[0].fields)})
        return
    with pytest.raises(TsdlError, match=where):
        parse_tsdl(text)
