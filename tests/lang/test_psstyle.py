"""$PSStyle (about_ANSI_Terminals): the sequences alone, then in a shell and a real console
whose output is not a terminal (sequences taken out unless OutputRendering is Ansi)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fayshell.errors import RuntimeFayError
from fayshell.lang.ops import OperatorError
from fayshell.lang.psstyle import PSStyle, plain, rendering


def test_sequences_are_select_graphic_rendition_codes() -> None:
    style = PSStyle()
    assert (style.Reset, style.Bold, style.Underline) == ("\x1b[0m", "\x1b[1m", "\x1b[4m")
    assert (style.Foreground.Red, style.Foreground.BrightCyan) == ("\x1b[31m", "\x1b[96m")
    assert (style.Background.White, style.Background.BrightBlack) == ("\x1b[47m", "\x1b[100m")
    assert style.Foreground.FromRgb(1, 2, 3) == "\x1b[38;2;1;2;3m"
    assert style.Background.FromRgb(0x0A0B0C) == "\x1b[48;2;10;11;12m"
    assert style.Formatting.TableHeader == "\x1b[32;1m"


def test_plain_takes_out_escape_sequences_only() -> None:
    style = PSStyle()
    text = f"{style.Foreground.Red}red{style.Reset} {style.FormatHyperlink('x', 'http://a')}!"
    assert plain(text) == "red x!"
    assert plain("no sequences [31m") == "no sequences [31m"


def test_output_rendering_takes_its_three_names() -> None:
    assert [rendering(v) for v in ("host", "PLAINTEXT", "Ansi")] == ["Host", "PlainText", "Ansi"]
    with pytest.raises(OperatorError, match="OutputRendering"):
        rendering("Color")


async def test_psstyle_in_a_shell(shell) -> None:
    out = await shell.run(
        '"$($PSStyle.Foreground.Green)ok$($PSStyle.Reset)".Length; '
        "$PSStyle.OutputRendering; $PSStyle.OutputRendering = 'plaintext'; "
        "[string]$PSStyle.OutputRendering"
    )
    assert out == [11, "Host", "PlainText"]
    with pytest.raises(RuntimeFayError, match="OutputRendering"):
        await shell.run("$PSStyle.OutputRendering = 'Sometimes'")


def test_a_console_that_is_not_a_terminal_gets_plain_text(tmp_path) -> None:
    script = (
        '"$($PSStyle.Foreground.Red)red$($PSStyle.Reset)"; '
        'Write-Host "$($PSStyle.Bold)bold$($PSStyle.BoldOff)"; '
        "$PSStyle.OutputRendering = 'Ansi'; "
        '"$($PSStyle.Foreground.Green)kept$($PSStyle.Reset)"'
    )
    res = subprocess.run(
        [sys.executable, "-m", "fayshell", "--no-profile", "--no-color", "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout == "red\nbold\n\x1b[32mkept\x1b[0m\n"
