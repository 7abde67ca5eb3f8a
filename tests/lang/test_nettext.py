"""[Text.Encoding] and [Convert]'s Base64 methods: against Python's codecs, and in a shell."""

from __future__ import annotations

import base64

import pytest

from fayshell.errors import FayError
from fayshell.lang import nettext
from fayshell.lang.ops import OperatorError


@pytest.mark.parametrize("name", sorted(nettext.ENCODINGS))
def test_each_encoding_round_trips_what_it_can_hold(name: str) -> None:
    enc = nettext.static(name, None)
    assert isinstance(enc, nettext.Encoding)
    text = {"ascii": "ok 42", "latin1": "hé"}.get(name, "hé ✓")
    assert enc.GetString(enc.GetBytes(text)) == text


def test_bytes_are_numbers_and_ascii_replaces_what_it_cannot_hold() -> None:
    utf8 = nettext.static("UTF8", None)
    assert utf8.GetBytes("hé") == [104, 195, 169]
    assert nettext.static("ascii", None).GetBytes("é") == [63]  # '?'
    assert nettext.static("Unicode", None).GetBytes("A") == [65, 0]
    assert utf8.GetString([104, 105, 33], 1, 2) == "i!"
    assert nettext.static("GetEncoding", ["UTF-16"]).WebName == "utf-16"
    with pytest.raises(OperatorError, match="not a supported encoding name"):
        nettext.static("GetEncoding", ["klingon"])
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
