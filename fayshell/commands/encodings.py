"""Text encodings of the file cmdlets' -Encoding (PowerShell 7's names), and reading and
writing text in one: a byte order mark is written where the encoding has one and, when no
encoding is given, read to pick the encoding."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from fayshell.commands.registry import Param

ENCODINGS: dict[str, tuple[str, bytes]] = {
    "utf8": ("utf-8", b""),
    "utf8nobom": ("utf-8", b""),
    "utf8bom": ("utf-8", b"\xef\xbb\xbf"),
    "ascii": ("ascii", b""),
    "ansi": ("latin-1", b""),
    "oem": ("latin-1", b""),
    "latin1": ("latin-1", b""),
    "unicode": ("utf-16-le", b"\xff\xfe"),
    "bigendianunicode": ("utf-16-be", b"\xfe\xff"),
    "utf32": ("utf-32-le", b"\xff\xfe\x00\x00"),
    "bigendianutf32": ("utf-32-be", b"\x00\x00\xfe\xff"),
    "utf7": ("utf-7", b""),
}
BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
ENCODING_PARAM = Param(
    "Encoding",
    str,
    choices=tuple(
        (
            "UTF8",
            "UTF8NoBOM",
            "UTF8BOM",
            "ASCII",
            "Ansi",
            "OEM",
            "Latin1",
            "Unicode",
            "BigEndianUnicode",
            "UTF32",
            "BigEndianUTF32",
            "UTF7",
        )
    ),
    help="The text encoding (default UTF8 without a byte order mark).",
)


def _codec(encoding: str | None) -> tuple[str, bytes]:
    return ENCODINGS[(encoding or "utf8").lower()]


def codec_name(encoding: str | None) -> str:
    """Python's codec for an -Encoding value (UTF-8 when none is given)."""
    return _codec(encoding)[0]


def read_text(path: Path, encoding: str | None) -> str:
    data = path.read_bytes()
    if encoding is None:
        for bom, codec in BOMS:
            if data.startswith(bom):
                return data[len(bom) :].decode(codec, errors="replace")
        return data.decode("utf-8", errors="replace")
    codec, bom = _codec(encoding)
    if bom and data.startswith(bom):
        data = data[len(bom) :]
    return data.decode(codec, errors="replace")


def write_text(path: Path, text: str, encoding: str | None, append: bool) -> None:
    with text_writer(path, encoding, append) as write:
        write(text)


@contextlib.contextmanager
def text_writer(
    path: Path, encoding: str | None, append: bool
) -> Iterator[Callable[[str], object]]:
    """Write text to ``path`` piece by piece in ``encoding`` (its byte order mark first,
    unless appending to a file that has text)."""
    codec, bom = _codec(encoding)
    fresh = not append or not path.exists() or path.stat().st_size == 0
    with path.open("ab" if append else "wb") as fh:
        fh.write(bom if fresh else b"")
        yield lambda text: fh.write(text.encode(codec, errors="replace"))
