"""``$PSStyle`` (about_ANSI_Terminals): the ANSI escape sequences scripts decorate text with
(``"$($PSStyle.Foreground.Red)failed$($PSStyle.Reset)"``), and ``OutputRendering``, which says
whether they reach output that is not a terminal (Host and PlainText: they are taken out;
Ansi: they are kept)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

ESC = "\x1b"
#: An ANSI escape sequence (CSI ... final byte, or OSC ... BEL/ST), as output strips them.
ANSI_SEQUENCE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")

OutputRendering = Literal["Host", "PlainText", "Ansi"]
RENDERINGS: tuple[OutputRendering, ...] = get_args(OutputRendering)
#: The eight colors in SGR order (30 + n foreground, 40 + n background; bright: 90, 100).
COLORS = ("Black", "Red", "Green", "Yellow", "Blue", "Magenta", "Cyan", "White")


def sgr(*codes: int | str) -> str:
    """The Select Graphic Rendition sequence of ``codes``: ``sgr(31)`` is red text."""
    return f"{ESC}[{';'.join(str(c) for c in codes)}m"


class Palette:
    """``$PSStyle.Foreground`` or ``.Background``: a sequence per color, and FromRgb."""

    #: What the shell shows of it.
    MEMBERS = tuple(name for c in COLORS for name in (c, f"Bright{c}"))

    def __init__(self, base: int) -> None:
        self.base = base
        for n, name in enumerate(COLORS):
            setattr(self, name, sgr(base + n))
            setattr(self, f"Bright{name}", sgr(base + 60 + n))

    def FromRgb(self, red: Any, green: Any = None, blue: Any = None) -> str:  # noqa: N802
        """``FromRgb(r, g, b)``, or ``FromRgb(0xRRGGBB)``: a 24-bit color's sequence."""
        if green is None or blue is None:
            rgb = int(red)
            red, green, blue = (rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF
        return sgr(self.base + 8, 2, int(red), int(green), int(blue))


@dataclass
class Formatting:
    """``$PSStyle.Formatting``: the decorations PowerShell gives its own output."""

    FormatAccent: str = sgr(32, 1)
    TableHeader: str = sgr(32, 1)
    CustomTableHeaderLabel: str = sgr(32, 1, 3)
    ErrorAccent: str = sgr(36, 1)
    Error: str = sgr(31, 1)
    Warning: str = sgr(33, 1)
    Verbose: str = sgr(33, 1)
    Debug: str = sgr(33, 1)


@dataclass
class PSStyle:
    """``$PSStyle``: text decorations, the colors, and when sequences reach output."""

    Reset: str = sgr(0)
    Bold: str = sgr(1)
    BoldOff: str = sgr(22)
    Dim: str = sgr(2)
    DimOff: str = sgr(22)
    Italic: str = sgr(3)
    ItalicOff: str = sgr(23)
    Underline: str = sgr(4)
    UnderlineOff: str = sgr(24)
    Blink: str = sgr(5)
    BlinkOff: str = sgr(25)
    Reverse: str = sgr(7)
    ReverseOff: str = sgr(27)
    Hidden: str = sgr(8)
    HiddenOff: str = sgr(28)
    Strikethrough: str = sgr(9)
    StrikethroughOff: str = sgr(29)
    OutputRendering: OutputRendering = "Host"
    Formatting: Formatting = field(default_factory=Formatting, repr=False)
    Foreground: Palette = field(default_factory=lambda: Palette(30), repr=False)
    Background: Palette = field(default_factory=lambda: Palette(40), repr=False)

    TYPE_NAME = "System.Management.Automation.PSStyle"

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "OutputRendering":  # $PSStyle.OutputRendering = 'plaintext'
            value = rendering(value)
        super().__setattr__(name, value)

    def FormatHyperlink(self, text: Any, link: Any) -> str:  # noqa: N802 - .NET name
        """An OSC 8 hyperlink: ``text`` that opens ``link`` in terminals that know them."""
        return f"{ESC}]8;;{link}{ESC}\\{text}{ESC}]8;;{ESC}\\"


def rendering(value: Any) -> OutputRendering:
    """An OutputRendering value from its name (any case) or number; PowerShell's conversion
    error (the enum's) for another."""
    from fayshell.lang.enums import OUTPUT_RENDERING

    name = str(OUTPUT_RENDERING.convert(value))
    return next(r for r in RENDERINGS if r == name)


def plain(text: str) -> str:
    """``text`` without its ANSI escape sequences (output that is not a terminal)."""
    return ANSI_SEQUENCE.sub("", text) if ESC in text else text
