"""[Text.Encoding] and [Convert]'s Base64 methods: against Python's codecs, and in a shell."""

from __future__ import annotations

import base64

import pytest

from fayshell.errors import FayError
from fayshell.lang import nettext
from fayshell.lang.ops import OperatorError


@pytest.mark.parametrize("name", sorted(nettext.ENCODINGS))
def test_each_encoding_round_trips_what_it_can_hold(name: str) -> None:
    enc = nettext.static("encoding", name, None)
    assert isinstance(enc, nettext.Encoding)
    text = {"ascii": "ok 42", "latin1": "hé"}.get(name, "hé ✓")
    assert enc.GetString(enc.GetBytes(text)) == text


def test_bytes_are_numbers_and_ascii_replaces_what_it_cannot_hold() -> None:
    utf8 = nettext.static("encoding", "UTF8", None)
    assert utf8.GetBytes("hé") == [104, 195, 169]
    assert nettext.static("encoding", "ascii", None).GetBytes("é") == [63]  # '?'
    assert nettext.static("encoding", "Unicode", None).GetBytes("A") == [65, 0]
    assert utf8.GetString([104, 105, 33], 1, 2) == "i!"
    assert nettext.static("encoding", "GetEncoding", ["UTF-16"]).WebName == "utf-16"
    with pytest.raises(OperatorError, match="not a supported encoding name"):
        nettext.static("encoding", "GetEncoding", ["klingon"])
    with pytest.raises(OperatorError, match="0 to 255"):
        utf8.GetString([300])


def test_base64_both_ways() -> None:
    data = list(range(256))
    text = nettext.to_base64(data)
    assert text == base64.b64encode(bytes(data)).decode()
    assert nettext.from_base64(text[:40] + "\n " + text[40:]) == data
    with pytest.raises(OperatorError, match="not a valid Base-64 string"):
        nettext.from_base64("@@")


async def test_scripts_encode_and_decode(shell) -> None:
    out = await shell.run(
        "$t = [Convert]::ToBase64String([System.Text.Encoding]::UTF8.GetBytes('user:pw')); $t; "
        "[Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($t))"
    )
    assert out == [base64.b64encode(b"user:pw").decode(), "user:pw"]
    with pytest.raises(FayError, match="FromBase64String"):
        await shell.run("[Convert]::FromBase64String('not base64!')")


def test_string_builder_methods_return_the_builder_and_check_their_ranges() -> None:
    sb = nettext.StringBuilder.new(["xyz"])
    assert sb.Insert(0, ">").Replace("y", "Y").Remove(1, 1) is sb
    assert str(sb) == ">Yz"
    assert str(sb.Append("-", 3).Append("abcdef", 1, 2).AppendLine()) == ">Yz---bc\n"
    assert sb.ToString(1, 2) == "Yz" and sb.Length == 9
    sb.Length = 2
    assert str(sb) == ">Y" and sb.Clear().Length == 0
    assert nettext.StringBuilder.new([100]).Capacity == 100
    grown = nettext.StringBuilder.new([])
    grown.Append("x" * 40)
    assert grown.Capacity >= 40 and grown.MaxCapacity == 2**31 - 1
    with pytest.raises(ValueError, match="Parameter 'startIndex'"):
        sb.Remove(5, 1)
    assert nettext.static("encoding", "new", []) is NotImplemented


async def test_scripts_build_text_with_a_string_builder(shell) -> None:
    out = await shell.run(
        "$sb = [System.Text.StringBuilder]::new(); [void]$sb.Append('ab'); "
        "[void]$sb.AppendLine('c'); $sb.Append('-', 2).AppendFormat('{0:N1}|{1}', 3.14159, 'z') "
        '| Out-Null; "[$sb]"; $sb.Length; $sb -is [System.Text.StringBuilder]; '
        "$sb.GetType().FullName; (New-Object Text.StringBuilder('q')).ToString()"
    )
    assert out == ["[abc\n--3.1|z]", 11, True, "System.Text.StringBuilder", "q"]
    text = await shell.text("[Text.StringBuilder]::new('abc')")
    assert text.split() == ["Capacity", "MaxCapacity", "Length"] + ["-" * 8, "-" * 11, "-" * 6] + [
        "16",
        "2147483647",
        "3",
    ]
    with pytest.raises(FayError, match='Exception calling "Remove" with "2" argument'):
        await shell.run("[Text.StringBuilder]::new().Remove(5, 1)")
    with pytest.raises(FayError, match='Exception setting "Length"'):
        await shell.run("$sb = [Text.StringBuilder]::new(); $sb.Length = -1")
