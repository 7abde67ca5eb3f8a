"""``[System.Text.Encoding]`` and ``[Convert]``'s Base64 methods, as scripts use them to turn
text into bytes and back (a token, a header). Bytes are arrays of numbers 0 to 255, as
PowerShell shows a ``byte[]``; text that an encoding cannot hold becomes '?', as .NET's
replacement fallback makes it."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

from fayshell.lang.dotnet import composite_format
from fayshell.lang.ops import OperatorError, to_number, to_string
from fayshell.lang.values import OUT_OF_RANGE, NetException


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
TYPES = ("text.encoding", "encoding", "text.stringbuilder", "stringbuilder")


def static(type_name: str, name: str, args: list[Any] | None) -> Any:
    """``[Text.Encoding]::UTF8`` (and ASCII, Unicode, ...), ``::GetEncoding('utf-8')``,
    ``[Text.StringBuilder]::new()``; NotImplemented for anything else."""
    low = name.lower()
    if type_name.endswith("stringbuilder"):
        return StringBuilder.new(args) if low == "new" and args is not None else NotImplemented
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


class StringBuilder:
    """``[System.Text.StringBuilder]``: text built in place. Its methods return the builder, as
    .NET's do (scripts write ``[void]$sb.Append(x)``); shown, it is its Capacity, MaxCapacity
    and Length, as PowerShell shows one; in a string, its text."""

    MEMBERS = ("Capacity", "MaxCapacity", "Length")
    VIEW = "table"
    TYPE_NAME = "System.Text.StringBuilder"
    MaxCapacity = 2**31 - 1

    def __init__(self, text: str = "", capacity: int = 16) -> None:
        self._text = text
        self._capacity = max(capacity, 16)

    @classmethod
    def new(cls, args: list[Any]) -> StringBuilder:
        """``::new()``, ``::new('text')``, ``::new(capacity)``, ``::new('text', capacity)``."""
        if len(args) > 2:
            raise OperatorError(
                f'Cannot find an overload for "new" and the argument count: "{len(args)}".'
            )
        first = args[0] if args else ""
        if isinstance(first, int) and not isinstance(first, bool):
            return cls(capacity=first)
        capacity = int(to_number(args[1])) if len(args) == 2 else 16
        return cls(to_string(first), capacity)

    def _grown(self, text: str) -> StringBuilder:
        self._text = text
        while self._capacity < len(text):
            self._capacity *= 2
        return self

    @property
    def Capacity(self) -> int:  # noqa: N802 - .NET property name
        return self._capacity

    @property
    def Length(self) -> int:  # noqa: N802 - .NET property name
        return len(self._text)

    @Length.setter
    def Length(self, value: Any) -> None:  # noqa: N802 - .NET property name
        size = _index(value, 0, self.MaxCapacity, "value")
        self._grown(self._text[:size].ljust(size, "\0"))

    def Append(self, value: Any, *more: Any) -> StringBuilder:  # noqa: N802 - .NET method name
        """``Append(x)``; ``Append(char, count)`` repeats; ``Append(text, start, count)``."""
        text = to_string(value)
        if len(more) == 1:
            return self._grown(
                self._text + text * _index(more[0], 0, self.MaxCapacity, "repeatCount")
            )
        if len(more) == 2:
            start = _index(more[0], 0, len(text), "startIndex")
            count = _index(more[1], 0, len(text) - start, "count")
            text = text[start : start + count]
        return self._grown(self._text + text)

    def AppendLine(self, value: Any = None) -> StringBuilder:  # noqa: N802 - .NET method name
        return self._grown(self._text + to_string(value) + "\n")

    def AppendFormat(self, fmt: Any, *args: Any) -> StringBuilder:  # noqa: N802 - .NET method name
        items = list(args[0]) if len(args) == 1 and isinstance(args[0], list) else list(args)
        return self._grown(self._text + composite_format(to_string(fmt), items, to_string))

    def AppendJoin(self, separator: Any, *values: Any) -> StringBuilder:  # noqa: N802
        items = values[0] if len(values) == 1 and isinstance(values[0], list) else values
        joined = to_string(separator).join(to_string(v) for v in items)
        return self._grown(self._text + joined)

    def Insert(self, index: Any, value: Any, count: Any = 1) -> StringBuilder:  # noqa: N802
        at = _index(index, 0, len(self._text), "index")
        text = to_string(value) * _index(count, 0, self.MaxCapacity, "count")
        return self._grown(self._text[:at] + text + self._text[at:])

    def Remove(self, start: Any, length: Any) -> StringBuilder:  # noqa: N802 - .NET method name
        at = _index(start, 0, len(self._text), "startIndex")
        size = _index(length, 0, len(self._text) - at, "length")
        return self._grown(self._text[:at] + self._text[at + size :])

    def Replace(self, old: Any, new: Any, *span: Any) -> StringBuilder:  # noqa: N802
        """``Replace(old, new)``, or only within ``(startIndex, count)``; case-sensitive."""
        find = to_string(old)
        if not find:
            raise OperatorError('Exception calling "Replace": "String cannot be of zero length."')
        start = _index(span[0], 0, len(self._text), "startIndex") if span else 0
        end = start + _index(span[1], 0, len(self._text) - start, "count") if span else None
        part = self._text[start:end].replace(find, to_string(new))
        return self._grown(
            self._text[:start] + part + (self._text[end:] if end is not None else "")
        )

    def Clear(self) -> StringBuilder:  # noqa: N802 - .NET method name
        return self._grown("")

    def EnsureCapacity(self, capacity: Any) -> int:  # noqa: N802 - .NET method name
        self._capacity = max(self._capacity, int(to_number(capacity)))
        return self._capacity

    def ToString(self, start: Any = None, length: Any = None) -> str:  # noqa: N802
        if start is None:
            return self._text
        at = _index(start, 0, len(self._text), "startIndex")
        return self._text[at : at + _index(length, 0, len(self._text) - at, "length")]

    def Equals(self, other: Any) -> bool:  # noqa: N802 - .NET method name
        return isinstance(other, StringBuilder) and other._text == self._text

    def __str__(self) -> str:
        return self._text


def _index(value: Any, low: int, high: int, name: str) -> int:
    """An index or count argument; out of range, .NET's ArgumentOutOfRangeException in its
    words (the method call's error names the method)."""
    number = int(to_number(value))
    if not low <= number <= high:
        raise NetException(OUT_OF_RANGE.format(name), "System.ArgumentOutOfRangeException")
    return number
