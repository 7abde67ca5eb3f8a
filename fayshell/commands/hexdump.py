"""What Format-Hex shows: a ByteCollection per line of up to 16 bytes, grouped under the label
of what the bytes came from (a file's path, or the type of a value), as PowerShell 7 draws
them; and the bytes of the values Format-Hex takes (.NET's little-endian layout)."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from fayshell.lang.integers import kind_of

#: Bytes per line.
WIDTH = 16
HEADER = (
    "          Offset Bytes                                           Ascii",
    "                 " + " ".join(f"{i:02X}" for i in range(WIDTH)),
    "          ------ " + "-" * (3 * WIDTH - 1) + " -----",
)


class ByteCollection:
    """One line of Format-Hex: its bytes, where they start, and what they are from."""

    MEMBERS = ("Offset64", "Offset", "Bytes", "Label", "Path", "HexOffset", "HexBytes", "Ascii")
    TYPE_NAME = "Microsoft.PowerShell.Commands.ByteCollection"

    def __init__(self, offset: int, data: bytes, label: str, path: str = "") -> None:
        self.Offset64, self.Offset = offset, offset & 0xFFFFFFFF
        self.Bytes = list(data)
        self.Label, self.Path = label, path

    @property
    def HexOffset(self) -> str:  # noqa: N802 - .NET property name
        return f"{self.Offset64:016X}"

    @property
    def HexBytes(self) -> str:  # noqa: N802 - .NET property name
        return " ".join(f"{b:02X}" for b in self.Bytes)

    @property
    def Ascii(self) -> str:  # noqa: N802 - .NET property name
        """Each byte as the character of that code; control characters as '.'."""
        return "".join(chr(b) if 0x20 <= b < 0x7F or b >= 0xA0 else "." for b in self.Bytes)

    def __str__(self) -> str:
        return f"{self.HexOffset} {self.HexBytes.ljust(3 * WIDTH - 1)} {self.Ascii}"

    @staticmethod
    def block_lines(run: list[ByteCollection]) -> list[str]:
        """The lines of a run of them: each label's lines under its header."""
        lines: list[str] = []
        for i, line in enumerate(run):
            if i == 0 or line.Label != run[i - 1].Label:
                lines += ["", f"   Label: {line.Label}", "", *HEADER]
            lines.append(str(line))
        return [*lines, ""]


def lines(data: bytes, start: int, label: str, path: str = "") -> Iterator[ByteCollection]:
    """``data`` (found at offset ``start``) cut into lines."""
    for at in range(0, len(data), WIDTH):
        yield ByteCollection(start + at, data[at : at + WIDTH], label, path)


#: .NET's name and struct layout of the value types Format-Hex takes.
LAYOUTS = {
    "Boolean": "<i",
    "SByte": "<b",
    "Byte": "<B",
    "Int16": "<h",
    "UInt16": "<H",
    "Int32": "<i",
    "UInt32": "<I",
    "Int64": "<q",
    "UInt64": "<Q",
    "Double": "<d",
}


def value_kind(value: Any) -> str:
    """The .NET type name of a number or boolean, as Format-Hex labels and lays it out."""
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, float):
        return "Double"
    return kind_of(value).net  # a file's byte is a Byte


def value_bytes(values: list[Any], kind: str) -> bytes:
    """Adjacent values of one kind, laid out one after the other."""
    layout = LAYOUTS[kind]
    return b"".join(struct.pack(layout, int(v) if kind == "Boolean" else v) for v in values)
