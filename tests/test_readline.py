"""PSReadLine's options and chords as fayshell keeps them (fayshell/readline.py): pure checks,
and every key name a chord becomes is one prompt-toolkit binds."""

from __future__ import annotations

import pytest
from prompt_toolkit.key_binding import KeyBindings

from fayshell.lang.values import NetException
from fayshell.readline import (
    DEFAULT_KEYS,
    ReadLine,
    ReadLineOptions,
    parse_chord,
    sgr_style,
    vt_color,
)


@pytest.mark.parametrize(
    ("chord", "keys"),
    [
        ("Ctrl+d", ("c-d",)),
        ("Ctrl+D", ("c-d",)),
        ("Alt+f", ("escape", "f")),
        ("Ctrl+x,Ctrl+e", ("c-x", "c-e")),
        ("UpArrow", ("up",)),
        ("Ctrl+LeftArrow", ("c-left",)),
        ("Shift+Tab", ("s-tab",)),
        ("Ctrl+Spacebar", ("c-space",)),
        ("F7", ("f7",)),
        ("Ctrl+F7", ("c-f7",)),
        ("Shift+a", ("A",)),
        ("D5", ("5",)),
        ("Ctrl+]", ("c-]",)),
        ("Alt+Backspace", ("escape", "backspace")),
        ("+", ("+",)),
        ("Alt++", ("escape", "+")),
        (",", (",",)),
        ("Ctrl+Shift+RightArrow", ("c-s-right",)),
    ],
)
def test_chords_become_prompt_toolkits_keys(chord: str, keys: tuple[str, ...]) -> None:
    assert parse_chord(chord) == keys
    KeyBindings().add(*keys)(lambda event: None)  # prompt-toolkit knows every name


@pytest.mark.parametrize(
    ("chord", "says"),
    [
        ("Ctrl+Enter", "a terminal sends it as it sends another key"),
        ("Ctrl+Shift+d", "a terminal sends it"),
        ("Ctrl+1", "a terminal sends it"),
        ("Hyper+x", "modifiers are Ctrl, Alt and Shift"),
        ("Bogus", "Unrecognized key 'Bogus'"),
    ],
)
def test_chords_a_terminal_cannot_send_are_errors(chord: str, says: str) -> None:
    with pytest.raises(NetException, match=says):
        parse_chord(chord)


def test_every_default_key_parses_and_binds() -> None:
    kb = KeyBindings()
    for chord, _ in DEFAULT_KEYS:
        kb.add(*parse_chord(chord))(lambda event: None)
    assert len(kb.bindings) == len(DEFAULT_KEYS)


@pytest.mark.parametrize(
    ("sequence", "style"),
    [
        ("\x1b[93m", "fg:ansibrightyellow"),
        ("\x1b[30;47m", "fg:ansiblack bg:ansigray"),
        ("\x1b[38;5;238m", "fg:#444444"),
        ("\x1b[48;5;21m", "bg:#0000ff"),
        ("\x1b[38;5;9m", "fg:ansibrightred"),
        ("\x1b[38;2;129;129;247m", "fg:#8181f7"),
        ("\x1b[1;4;31m", "bold underline fg:ansired"),
        ("\x1b[0m", ""),
    ],
)
def test_vt_sequences_become_styles(sequence: str, style: str) -> None:
    assert sgr_style(sequence) == style


def test_colors_are_console_colors_rgb_or_sequences() -> None:
    assert vt_color("DarkGray") == "\x1b[90m"
    assert vt_color("#8181f7") == "\x1b[38;2;129;129;247m"
    assert vt_color("\x1b[32;47m") == "\x1b[32;47m"
    with pytest.raises(NetException, match="not a valid color value"):
        vt_color("chartreuse-ish")


def test_options_take_their_enum_names_and_refuse_others() -> None:
    options = ReadLineOptions()
    options.change("EditMode", "vi")
    assert options.EditMode == "Vi"
    options.set_colors({"Command": "Yellow", "DefaultTokenColor": "Red"})
    assert (options.CommandColor, options.DefaultTokenColor) == ("\x1b[93m", "\x1b[91m")
    with pytest.raises(NetException, match=r"Microsoft\.PowerShell\.EditMode"):
        options.change("EditMode", "Nano")
    with pytest.raises(NetException, match="cannot be negative"):
        options.change("MaximumHistoryCount", -1)
    with pytest.raises(NetException, match="not a color PSReadLine knows"):
        options.set_colors({"Sparkle": "Red"})
    with pytest.raises(NetException, match="ScriptBlock"):
        options.change("AddToHistoryHandler", "not a block")


def test_a_new_edit_mode_drops_the_key_handlers() -> None:
    readline = ReadLine()
    readline.bind("Ctrl+k", "beginningofline", "", None)
    assert [(h.Key, h.Function) for h in readline.handlers.values()] == [
        ("Ctrl+k", "BeginningOfLine")
    ]
    bound = {h.Key: h.Function for h in readline.bound()}
    assert bound["Ctrl+k"] == "BeginningOfLine"  # over the mode's own KillLine
    assert bound["Ctrl+a"] == "BeginningOfLine"
    readline.set_edit_mode("Emacs")
    assert readline.handlers == {}
    assert {h.Key: h.Function for h in readline.bound()}["Ctrl+k"] == "KillLine"


async def test_the_options_show_as_a_list_with_colors_as_their_sequences(shell) -> None:
    text = await shell.text(
        "Set-PSReadLineOption -Colors @{ Command = 'Magenta' }; Get-PSReadLineOption"
    )
    lines = text.splitlines()
    assert lines[1].split() == ["EditMode", ":", "Windows"]
    assert 'CommandColor                  : "`e[95m"' in lines
    assert "\x1b" not in text


def test_every_function_the_editor_lists_has_a_key_action() -> None:
    """Set-PSReadLineKeyHandler -Function takes FUNCTIONS' names: each one is an action of
    the editor (a name without one would fail only when the key is pressed)."""
    from fayshell.editor import Editor
    from fayshell.readline import FUNCTIONS

    editor = Editor(ReadLine(), lambda event: None, KeyBindings())
    assert all(callable(editor.action(name)) for name in FUNCTIONS)
