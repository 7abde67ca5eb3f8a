"""``[System.Text.Encoding]`` and ``[Convert]``'s Base64 methods, as scripts use them to turn
text into bytes and back (a token, a header). Bytes are arrays of numbers 0 to 255, as
PowerShell shows a ``byte[]``; text that an encoding cannot hold becomes '?', as .NET's
replacement fallback makes it."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

from fayshell.lang.ops import OperatorError, to_number, to_string


@dataclass(frozen=True)
class Encoding:
    """One of .NET's encodings: ``[Text.Encoding]::UTF8``."""

    EncodingName: str
    WebName: str
    codec: str = field(repr=False)

    def GetBytes(self, text: Any) -> list[int]:  # noqa: N802 - .NET method name
        return list(to_string(text).encode(self.codec, errors="replace"))

    def GetByteCount(self, text: Any) -> int:  # noqa: N802 - .NET method name
        return len(self.GetBytes(text))

    def GetString(self, data: Any, index: Any = 0, count: Any = None) -> str:  # noqa: N802
        raw = as_bytes(data, "GetString")
        start = int(to_number(index))
        end = len(raw) if count is None else start + int(to_number(count))
        return raw[start:end].decode(self.codec, errors="replace")

    def __str__(self) -> str:
        return f"System.Text.{self.EncodingName}"


#: .NET's static encodings by property name: (codec, EncodingName, WebName).
ENCODINGS = {
    "utf8": ("utf-8", "Unicode (UTF-8)", "utf-8"),
    "default": ("utf-8", "Unicode (UTF-8)", "utf-8"),
    "ascii": ("ascii", "US-ASCII", "us-ascii"),
    "unicode": ("utf-16-le", "Unicode", "utf-16"),
    "bigendianunicode": ("utf-16-be", "Unicode (Big-Endian)", "utf-16BE"),
    "utf32": ("utf-32-le", "Unicode (UTF-32)", "utf-32"),
    "latin1": ("latin-1", "Western European (ISO)", "iso-8859-1"),
}
TYPES = ("text.encoding", "encoding")


def static(name: str, args: list[Any] | None) -> Any:
    """``[Text.Encoding]::UTF8`` (and ASCII, Unicode, ...), ``::GetEncoding('utf-8')``;
    NotImplemented for anything else."""
    low = name.lower()
    if args is None and low in ENCODINGS:
        codec, shown, web = ENCODINGS[low]
        return Encoding(shown, web, codec)
    if low == "getencoding" and args and len(args) == 1:
        wanted = to_string(args[0]).lower().replace("_", "-")
        for codec, shown, web in ENCODINGS.values():
            if wanted in (web.lower(), codec):
                return Encoding(shown, web, codec)
        raise OperatorError(
            f'Exception calling "GetEncoding" with "1" argument(s): "\'{args[0]}\' is not a '
            'supported encoding name."'
        )
    return NotImplemented


def as_bytes(data: Any, method: str) -> bytes:
    """A ``byte[]`` argument: numbers 0 to 255 (one number alone is an array of one)."""
    items = data if isinstance(data, (list, tuple)) else [data]
    try:
        return bytes(int(to_number(v)) for v in items)
    except (OperatorError, ValueError, TypeError):
        raise OperatorError(
            f'Exception calling "{method}": the bytes must be numbers from 0 to 255'
        ) from None


def to_base64(data: Any) -> str:
    """``[Convert]::ToBase64String($bytes)``."""
    return base64.b64encode(as_bytes(data, "ToBase64String")).decode("ascii")


def from_base64(text: Any) -> list[int]:
    """``[Convert]::FromBase64String($text)`` (white space is allowed, as in .NET)."""
    try:
        return list(base64.b64decode("".join(to_string(text).split()), validate=True))
    except (binascii.Error, ValueError):
        raise OperatorError(
            'Exception calling "FromBase64String" with "1" argument(s): "The input is not a '
            "valid Base-64 string as it contains a non-base 64 character, more than two "
            'padding characters, or an illegal character among the padding characters."'
        ) from None
