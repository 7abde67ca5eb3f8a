"""PSReadLine's options and key handlers as fayshell's line editor keeps them: what
Set-PSReadLineOption and Set-PSReadLineKeyHandler change (a PowerShell profile's usual lines)
and the interactive shell (fayshell/repl.py) applies before each prompt.

Headless: chords are checked and turned into prompt-toolkit's key names here, without
importing it, so a bad chord is an error of the command that gave it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args

from fayshell.lang.values import NetException, ScriptBlock

EditMode = Literal["Windows", "Emacs", "Vi"]
HistorySaveStyle = Literal["SaveIncrementally", "SaveAtExit", "SaveNothing"]
BellStyle = Literal["None", "Visual", "Audible"]
PredictionSource = Literal["None", "History", "Plugin", "HistoryAndPlugin"]
PredictionViewStyle = Literal["InlineView", "ListView"]
ViModeStyle = Literal["None", "Prompt", "Cursor", "Script"]
ViMode = Literal["Insert", "Command"]

#: The options that take one of PSReadLine's enum names, and those names.
CHOICES: dict[str, tuple[str, ...]] = {
    "EditMode": get_args(EditMode),
    "HistorySaveStyle": get_args(HistorySaveStyle),
    "BellStyle": get_args(BellStyle),
    "PredictionSource": get_args(PredictionSource),
    "PredictionViewStyle": get_args(PredictionViewStyle),
    "ViModeIndicator": get_args(ViModeStyle),
}

#: ConsoleColor names as the VT sequences PSReadLine turns them into.
CONSOLE_COLORS: dict[str, str] = {
    "black": "30",
    "darkred": "31",
    "darkgreen": "32",
    "darkyellow": "33",
    "darkblue": "34",
    "darkmagenta": "35",
    "darkcyan": "36",
    "gray": "37",
    "darkgray": "90",
    "red": "91",
    "green": "92",
    "yellow": "93",
    "blue": "94",
    "magenta": "95",
    "cyan": "96",
    "white": "97",
}

#: -Colors' keys and PSReadLine's default for each (a VT sequence).
DEFAULT_COLORS: dict[str, str] = {
    "Command": "\x1b[93m",
    "Comment": "\x1b[32m",
    "ContinuationPrompt": "\x1b[37m",
    "Default": "\x1b[37m",
    "Emphasis": "\x1b[96m",
    "Error": "\x1b[91m",
    "InlinePrediction": "\x1b[38;5;238m",
    "Keyword": "\x1b[92m",
    "ListPrediction": "\x1b[33m",
    "ListPredictionSelected": "\x1b[48;5;238m",
    "Member": "\x1b[37m",
    "Number": "\x1b[97m",
    "Operator": "\x1b[90m",
    "Parameter": "\x1b[90m",
    "Selection": "\x1b[30;47m",
    "String": "\x1b[36m",
    "Type": "\x1b[37m",
    "Variable": "\x1b[92m",
}


def history_path() -> Path:
    """Where the shell's history file is unless -HistorySavePath says otherwise."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "fayshell" / "history"


@dataclass
class ReadLineOptions:
    """Get-PSReadLineOption's object: setting a property changes the option, as PowerShell's
    PSConsoleReadLineOptions does (an enum option takes only its names). The colors are
    VT sequences (``"`e[93m"``), one property per -Colors key (``CommandColor``)."""

    TYPE_NAME = "Microsoft.PowerShell.PSConsoleReadLineOptions"

    EditMode: str = "Windows"
    AddToHistoryHandler: Any = None
    HistoryNoDuplicates: bool = True
    HistorySavePath: str = field(default_factory=lambda: str(history_path()))
    HistorySaveStyle: str = "SaveIncrementally"
    HistorySearchCaseSensitive: bool = False
    HistorySearchCursorMovesToEnd: bool = False
    MaximumHistoryCount: int = 4096
    ContinuationPrompt: str = ">> "
    ExtraPromptLineCount: int = 0
    PromptText: list[str] = field(default_factory=lambda: ["> "])
    BellStyle: str = "Audible"
    DingDuration: int = 50
    DingTone: int = 1221
    CompletionQueryItems: int = 100
    MaximumKillRingCount: int = 10
    ShowToolTips: bool = True
    ViModeIndicator: str = "None"
    ViModeChangeHandler: Any = None
    WordDelimiters: str = ";:,.[]{}()/\\|^&*-=+'\"\u2013\u2014\u2015"
    AnsiEscapeTimeout: int = 100
    PredictionSource: str = "History"
    PredictionViewStyle: str = "InlineView"
    TerminateOrphanedConsoleApps: bool = False
    CommandColor: str = DEFAULT_COLORS["Command"]
    CommentColor: str = DEFAULT_COLORS["Comment"]
    ContinuationPromptColor: str = DEFAULT_COLORS["ContinuationPrompt"]
    DefaultTokenColor: str = DEFAULT_COLORS["Default"]
    EmphasisColor: str = DEFAULT_COLORS["Emphasis"]
    ErrorColor: str = DEFAULT_COLORS["Error"]
    InlinePredictionColor: str = DEFAULT_COLORS["InlinePrediction"]
    KeywordColor: str = DEFAULT_COLORS["Keyword"]
    ListPredictionColor: str = DEFAULT_COLORS["ListPrediction"]
    ListPredictionSelectedColor: str = DEFAULT_COLORS["ListPredictionSelected"]
    MemberColor: str = DEFAULT_COLORS["Member"]
    NumberColor: str = DEFAULT_COLORS["Number"]
    OperatorColor: str = DEFAULT_COLORS["Operator"]
    ParameterColor: str = DEFAULT_COLORS["Parameter"]
    SelectionColor: str = DEFAULT_COLORS["Selection"]
    StringColor: str = DEFAULT_COLORS["String"]
    TypeColor: str = DEFAULT_COLORS["Type"]
    VariableColor: str = DEFAULT_COLORS["Variable"]

    @classmethod
    def block_lines(cls, run: list[ReadLineOptions]) -> list[str]:
        """The list PowerShell shows: one option a line, a color as the sequence it is
        (``"`e[93m"``), not the color itself."""
        names = [f.name for f in fields(cls)]
        width = max(map(len, names))
        lines = [""]
        for options in run:
            lines += [f"{n.ljust(width)} : {_shown(getattr(options, n))}".rstrip() for n in names]
            lines.append("")
        return lines

    def ps_set(self, name: str, value: Any) -> bool:
        """``(Get-PSReadLineOption).EditMode = 'Vi'``: the value checked as Set-PSReadLineOption
        checks it."""
        self.change(name, value)
        return True

    def change(self, name: str, value: Any) -> None:
        """Set option ``name`` (its property's spelling) to ``value``, converted and checked;
        a bad value is a NetException in .NET's words."""
        kind = _KINDS.get(name)
        if kind is None:
            raise NetException(f"The property '{name}' cannot be set.", "ArgumentException")
        object.__setattr__(self, name, kind(name, value))

    def set_colors(self, colors: dict[str, Any]) -> None:
        """-Colors: each key a color's name (``Command``, or ``CommandColor``), each value a
        ConsoleColor, a VT sequence or ``#rrggbb``."""
        for key, value in colors.items():
            name = color_property(str(key))
            object.__setattr__(self, name, vt_color(value))

    def color(self, key: str) -> str:
        """The VT sequence of -Colors key ``key``."""
        return str(getattr(self, color_property(key)))


def _shown(value: Any) -> str:
    """An option's value as the list shows it."""
    if isinstance(value, str) and value.startswith("\x1b"):
        return '"' + value.replace("\x1b", "`e") + '"'
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, list):
        return "{" + ", ".join(value) + "}"
    return "" if value is None else str(value)


def _color_field(key: str) -> str:
    """The option of -Colors key ``key`` as DEFAULT_COLORS spells it: ``CommandColor``, and
    ``DefaultTokenColor`` for ``Default``."""
    return "DefaultTokenColor" if key == "Default" else f"{key}Color"


def color_property(key: str) -> str:
    """The property of -Colors key ``key`` (``Default`` is DefaultTokenColor)."""
    low = key.lower().removesuffix("color")
    if low == "defaulttoken":
        low = "default"
    for name in DEFAULT_COLORS:
        if name.lower() == low:
            return _color_field(name)
    raise NetException(
        f"'{key}' is not a color PSReadLine knows; use one of: {', '.join(DEFAULT_COLORS)}.",
        "ArgumentException",
    )


HEX = re.compile(r"#([0-9a-fA-F]{6})")


def vt_color(value: Any) -> str:
    """A color as a VT sequence: ConsoleColor names, ``#rrggbb`` and escape sequences, as
    PSReadLine takes them."""
    text = str(value)
    if text.startswith("\x1b["):
        return text
    named = CONSOLE_COLORS.get(text.lower())
    if named is not None:
        return f"\x1b[{named}m"
    if m := HEX.fullmatch(text):
        r, g, b = (int(m.group(1)[i : i + 2], 16) for i in (0, 2, 4))
        return f"\x1b[38;2;{r};{g};{b}m"
    raise NetException(
        f"'{text}' is not a valid color value. It must be a ConsoleColor, an RGB value "
        "(#rrggbb) or an escape sequence.",
        "ArgumentException",
    )


def _choice(name: str, value: Any) -> str:
    text = str(value)
    for option in CHOICES[name]:
        if option.lower() == text.lower():
            return option
    raise NetException(
        f'Cannot convert value "{text}" to type "Microsoft.PowerShell.{_ENUM[name]}". Error: '
        f'"Unable to match the identifier name {text} to a valid enumerator name. Specify one '
        f'of the following enumerator names and try again: {", ".join(CHOICES[name])}"',
        "InvalidCastException",
    )


def _flag(name: str, value: Any) -> bool:
    return bool(value)


def _count(name: str, value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise NetException(
            f'Cannot convert value "{value}" to type "System.Int32".', "InvalidCastException"
        ) from None
    if number < 0:
        raise NetException(f"{name} cannot be negative.", "ArgumentOutOfRangeException")
    return number


def _text(name: str, value: Any) -> str:
    return "" if value is None else str(value)


def _texts(name: str, value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [str(v) for v in items]


def _handler(name: str, value: Any) -> Any:
    """A script block (or $null): what the shell runs with the input line."""
    if value is None or isinstance(value, ScriptBlock):
        return value
    raise NetException(
        f'Cannot convert value "{value}" to type "System.Management.Automation.ScriptBlock".',
        "InvalidCastException",
    )


def _color(name: str, value: Any) -> str:
    return vt_color(value)


#: PSReadLine's enum type of each choice option (for its cast error): the option's own name,
#: but ViModeIndicator's.
_ENUM = {option: option for option in CHOICES} | {"ViModeIndicator": "ViModeStyle"}

_BY_TYPE = {"bool": _flag, "int": _count, "str": _text, "list[str]": _texts, "Any": _handler}

#: How each property converts a value given to it.
_KINDS: dict[str, Any] = {
    f.name: _choice if f.name in CHOICES else _BY_TYPE[str(f.type)] for f in fields(ReadLineOptions)
}
_KINDS.update({_color_field(k): _color for k in DEFAULT_COLORS})


@dataclass(frozen=True)
class KeyHandler:
    """A key binding as Get-PSReadLineKeyHandler lists it."""

    Key: str
    Function: str
    Description: str
    Group: str
    #: prompt-toolkit's keys for the chord (one tuple item per key of a sequence).
    keys: tuple[str, ...] = field(repr=False, compare=False)
    #: Vi's mode the binding is for (None: every mode).
    vi_mode: str | None = field(default=None, repr=False, compare=False)


#: PSReadLine's functions the line editor has: name -> (group, what it does).
FUNCTIONS: dict[str, tuple[str, str]] = {
    "AcceptLine": ("Basic editing", "Run the input, or go on to a new line while it is incomplete"),
    "AddLine": ("Basic editing", "Start a new line of the input without running it"),
    "BackwardDeleteChar": ("Basic editing", "Delete the character before the cursor"),
    "DeleteChar": ("Basic editing", "Delete the character under the cursor"),
    "BackwardKillLine": ("Basic editing", "Delete from the start of the line to the cursor"),
    "KillLine": ("Basic editing", "Delete from the cursor to the end of the line"),
    "BackwardKillWord": ("Basic editing", "Delete the word before the cursor"),
    "UnixWordRubout": ("Basic editing", "Delete back to the previous whitespace"),
    "KillWord": ("Basic editing", "Delete to the end of the word"),
    "Yank": ("Basic editing", "Insert the text deleted last"),
    "YankPop": ("Basic editing", "Replace the text just yanked with the one deleted before"),
    "Undo": ("Basic editing", "Undo the last edit"),
    "RevertLine": ("Basic editing", "Clear the whole input"),
    "CancelLine": ("Basic editing", "Abandon the input and start a new prompt"),
    "SwapCharacters": (
        "Basic editing",
        "Swap the character before the cursor with the one under it",
    ),
    "CapitalizeWord": ("Basic editing", "Capitalize the next word"),
    "UpcaseWord": ("Basic editing", "Upper-case the next word"),
    "DowncaseWord": ("Basic editing", "Lower-case the next word"),
    "BeginningOfLine": ("Cursor movement", "Move to the start of the line"),
    "EndOfLine": ("Cursor movement", "Move to the end of the line"),
    "BackwardChar": ("Cursor movement", "Move one character left"),
    "ForwardChar": (
        "Cursor movement",
        "Move one character right, or take the suggestion at the end",
    ),
    "BackwardWord": ("Cursor movement", "Move to the start of the word"),
    "ForwardWord": ("Cursor movement", "Move past the end of the word"),
    "NextWord": ("Cursor movement", "Move past the end of the word"),
    "ShellBackwardWord": ("Cursor movement", "Move to the start of the word"),
    "ShellForwardWord": ("Cursor movement", "Move past the end of the word"),
    "PreviousHistory": ("History", "The previous input in the history"),
    "NextHistory": ("History", "The next input in the history"),
    "BeginningOfHistory": ("History", "The first input in the history"),
    "EndOfHistory": ("History", "Back to the input being typed"),
    "HistorySearchBackward": (
        "History",
        "The previous input that starts like the text before the cursor",
    ),
    "HistorySearchForward": (
        "History",
        "The next input that starts like the text before the cursor",
    ),
    "ReverseSearchHistory": ("History", "Search the history backward as you type"),
    "ForwardSearchHistory": ("History", "Search the history forward as you type"),
    "Complete": ("Completion", "Complete the word (all the choices when several)"),
    "MenuComplete": ("Completion", "Complete the word, choosing from a menu"),
    "TabCompleteNext": ("Completion", "The next completion"),
    "TabCompletePrevious": ("Completion", "The previous completion"),
    "AcceptSuggestion": ("Prediction", "Take the whole suggestion shown after the cursor"),
    "AcceptNextSuggestionWord": ("Prediction", "Take the suggestion's next word"),
    "ClearScreen": ("Miscellaneous", "Clear the screen, keeping the input"),
    "ViEditVisually": ("Miscellaneous", "Edit the input in $env:EDITOR"),
}

#: The keys bound in the Windows and Emacs modes before any Set-PSReadLineKeyHandler:
#: (chord, function), prompt-toolkit's Emacs keys named as PSReadLine names them.
DEFAULT_KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "AcceptLine"),
    ("Backspace", "BackwardDeleteChar"),
    ("Delete", "DeleteChar"),
    ("Ctrl+k", "KillLine"),
    ("Ctrl+u", "BackwardKillLine"),
    ("Ctrl+w", "UnixWordRubout"),
    ("Alt+d", "KillWord"),
    ("Alt+Backspace", "BackwardKillWord"),
    ("Ctrl+y", "Yank"),
    ("Alt+y", "YankPop"),
    ("Ctrl+_", "Undo"),
    ("Ctrl+t", "SwapCharacters"),
    ("Alt+c", "CapitalizeWord"),
    ("Alt+u", "UpcaseWord"),
    ("Alt+l", "DowncaseWord"),
    ("Home", "BeginningOfLine"),
    ("Ctrl+a", "BeginningOfLine"),
    ("End", "EndOfLine"),
    ("Ctrl+e", "EndOfLine"),
    ("LeftArrow", "BackwardChar"),
    ("RightArrow", "ForwardChar"),
    ("Alt+b", "BackwardWord"),
    ("Ctrl+LeftArrow", "BackwardWord"),
    ("Alt+f", "ForwardWord"),
    ("Ctrl+RightArrow", "ForwardWord"),
    ("UpArrow", "PreviousHistory"),
    ("DownArrow", "NextHistory"),
    ("Alt+<", "BeginningOfHistory"),
    ("Alt+>", "EndOfHistory"),
    ("Ctrl+r", "ReverseSearchHistory"),
    ("Ctrl+s", "ForwardSearchHistory"),
    ("Tab", "TabCompleteNext"),
    ("Shift+Tab", "TabCompletePrevious"),
    ("Ctrl+l", "ClearScreen"),
    ("Ctrl+x,Ctrl+e", "ViEditVisually"),
)


def function_named(name: str) -> str:
    """PSReadLine's spelling of function ``name`` (any case); an error naming the choices."""
    for known in FUNCTIONS:
        if known.lower() == name.lower():
            return known
    raise NetException(
        f"'{name}' is not a function fayshell's line editor has; it has: {', '.join(FUNCTIONS)}.",
        "ArgumentException",
    )


#: ConsoleKey names (and a few spellings PSReadLine takes) -> prompt-toolkit's key.
NAMED_KEYS: dict[str, str] = {
    "uparrow": "up",
    "downarrow": "down",
    "leftarrow": "left",
    "rightarrow": "right",
    "home": "home",
    "end": "end",
    "pageup": "pageup",
    "pagedown": "pagedown",
    "insert": "insert",
    "delete": "delete",
    "backspace": "backspace",
    "tab": "tab",
    "enter": "enter",
    "escape": "escape",
    "spacebar": " ",
    **{f"f{n}": f"f{n}" for n in range(1, 25)},
}

#: Keys a terminal sends differently with Ctrl or Shift held (prompt-toolkit names them).
_CTRL_NAMED = {
    "up",
    "down",
    "left",
    "right",
    "home",
    "end",
    "pageup",
    "pagedown",
    "insert",
    "delete",
}
_CTRL_NAMED |= {f"f{n}" for n in range(1, 25)}
_CTRL_CHARS = set("@\\]^_")
_SHIFT_NAMED = _CTRL_NAMED | {"tab"}


def parse_chord(chord: str) -> tuple[str, ...]:
    """``Ctrl+x,Ctrl+e`` as prompt-toolkit's keys (``("c-x", "c-e")``); Alt is Escape first,
    as a terminal sends it. A key a terminal cannot tell apart (``Ctrl+Enter``) is an error
    naming it."""
    keys: list[str] = []
    for part in chord.split(",") if chord not in (",", "Ctrl+,") else [chord]:
        keys.extend(_one_key(part.strip(), chord))
    if not keys:
        raise NetException(f"The chord '{chord}' names no key.", "ArgumentException")
    return tuple(keys)


def _one_key(part: str, chord: str) -> list[str]:
    mods, key = _split_modifiers(part, chord)
    base = NAMED_KEYS.get(key.lower()) if len(key) > 1 else key
    if base is None and re.fullmatch(r"D[0-9]", key):
        base = key[1]
    if base is None:
        raise NetException(
            f"Unrecognized key '{key}' in '{chord}'. Use a character or a key name such as "
            "UpArrow, Enter, Tab, F1 (System.ConsoleKey's names).",
            "ArgumentException",
        )
    out = _with_ctrl_shift(base, "ctrl" in mods, "shift" in mods, chord)
    return ["escape", out] if "alt" in mods else [out]


def _split_modifiers(part: str, chord: str) -> tuple[set[str], str]:
    """The modifiers of one key (``Ctrl+Alt+x``) and the key; ``+`` alone is the key."""
    if part.endswith("++") or part == "+":
        head, key = part[:-1], "+"
    else:
        head, _, key = part.rpartition("+")
    mods = {m.strip().lower() for m in head.split("+") if m.strip()}
    unknown = mods - {"ctrl", "alt", "shift"}
    if unknown or not key:
        raise NetException(
            f"Unrecognized key '{part}' in '{chord}': modifiers are Ctrl, Alt and Shift.",
            "ArgumentException",
        )
    return mods, key


def _with_ctrl_shift(base: str, ctrl: bool, shift: bool, chord: str) -> str:
    """prompt-toolkit's name of ``base`` with Ctrl and Shift."""
    if len(base) == 1 and base != " ":
        if ctrl and shift:
            raise _indistinct(chord)
        if ctrl and (base.isalpha() or base in _CTRL_CHARS):
            return f"c-{base.lower()}"
        if ctrl:
            raise _indistinct(chord)
        return base.upper() if shift and base.isalpha() else base
    if base == " " and (ctrl or shift):
        if shift:
            raise _indistinct(chord)
        return "c-space"
    if ctrl and shift and base in _CTRL_NAMED - {"insert", "pageup", "pagedown"}:
        return f"c-s-{base}"
    if ctrl and base in _CTRL_NAMED:
        return f"c-{base}"
    if shift and not ctrl and base in _SHIFT_NAMED:
        return "s-tab" if base == "tab" else f"s-{base}"
    if ctrl or shift:
        raise _indistinct(chord)
    return base


def _indistinct(chord: str) -> NetException:
    return NetException(
        f"'{chord}' cannot be bound: a terminal sends it as it sends another key.",
        "ArgumentException",
    )


@dataclass
class ReadLine:
    """The session's line-editor settings: options and the key handlers set, counted so the
    shell knows when to apply them again."""

    options: ReadLineOptions = field(default_factory=ReadLineOptions)
    handlers: dict[tuple[tuple[str, ...], str | None], KeyHandler] = field(default_factory=dict)
    changes: int = 0

    def bind(self, chord: str, function: str, description: str, vi_mode: str | None) -> None:
        name = function_named(function)
        keys = parse_chord(chord)
        group, said = FUNCTIONS[name]
        handler = KeyHandler(chord, name, description or said, group, keys, vi_mode)
        self.handlers[(keys, vi_mode)] = handler
        self.changes += 1

    def unbind(self, chord: str, vi_mode: str | None) -> bool:
        """Remove the handler of ``chord``; False when none was set."""
        removed = self.handlers.pop((parse_chord(chord), vi_mode), None)
        self.changes += 1
        return removed is not None

    def set_edit_mode(self, mode: str) -> None:
        """A new edit mode drops the key handlers set before (PSReadLine's rule)."""
        self.options.change("EditMode", mode)
        self.handlers.clear()
        self.changes += 1

    def bound(self) -> list[KeyHandler]:
        """The keys bound now: the mode's own (Windows and Emacs) under those set."""
        mine = list(self.handlers.values())
        if self.options.EditMode == "Vi":
            return mine
        taken = {h.keys for h in mine}
        own = [
            KeyHandler(chord, name, FUNCTIONS[name][1], FUNCTIONS[name][0], parse_chord(chord))
            for chord, name in DEFAULT_KEYS
        ]
        return [h for h in own if h.keys not in taken] + mine


#: prompt-toolkit's names of the 16 ANSI colors, by SGR foreground code (30-37, 90-97).
_ANSI_NAMES = [
    "ansiblack",
    "ansired",
    "ansigreen",
    "ansiyellow",
    "ansiblue",
    "ansimagenta",
    "ansicyan",
    "ansigray",
    "ansibrightblack",
    "ansibrightred",
    "ansibrightgreen",
    "ansibrightyellow",
    "ansibrightblue",
    "ansibrightmagenta",
    "ansibrightcyan",
    "ansiwhite",
]
_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_CUBE = (0, 95, 135, 175, 215, 255)


def sgr_style(sequence: str) -> str:
    """A VT color sequence (``"\\x1b[38;5;238m"``) as a prompt-toolkit style (``fg:#444444``):
    16, 256 and 24-bit colors, foreground and background, bold, italic, underline and reverse;
    what it does not say is left to the default."""
    parts: list[str] = []
    for m in _SGR.finditer(sequence):
        codes = [int(c) for c in m.group(1).split(";") if c] or [0]
        parts += _sgr_parts(codes)
    return " ".join(parts)


def _sgr_parts(codes: list[int]) -> list[str]:
    out: list[str] = []
    flags = {1: "bold", 3: "italic", 4: "underline", 7: "reverse"}
    i = 0
    while i < len(codes):
        c = codes[i]
        if c in flags:
            out.append(flags[c])
        elif 30 <= c <= 37 or 90 <= c <= 97 or 40 <= c <= 47 or 100 <= c <= 107:
            where = "bg" if c in range(40, 48) or c >= 100 else "fg"
            out.append(f"{where}:{_ANSI_NAMES[(c % 10) + (8 if c >= 90 else 0)]}")
        elif c in (38, 48) and i + 1 < len(codes):
            color, used = _extended(codes[i + 1 :])
            if color:
                out.append(f"{'fg' if c == 38 else 'bg'}:{color}")
            i += used
        i += 1
    return out


def _extended(rest: list[int]) -> tuple[str, int]:
    """``5;n`` (256 colors) or ``2;r;g;b`` after 38/48: the color and the codes it took."""
    if rest[0] == 5 and len(rest) > 1:
        return _palette(rest[1]), 2
    if rest[0] == 2 and len(rest) > 3:
        r, g, b = (min(max(v, 0), 255) for v in rest[1:4])
        return f"#{r:02x}{g:02x}{b:02x}", 4
    return "", 1


def _palette(n: int) -> str:
    """Color ``n`` of the 256-color palette."""
    if n < 16:
        return _ANSI_NAMES[n]
    if n < 232:
        n -= 16
        r, g, b = _CUBE[n // 36], _CUBE[n // 6 % 6], _CUBE[n % 6]
    else:
        r = g = b = min(8 + 10 * (n - 232), 255)
    return f"#{r:02x}{g:02x}{b:02x}"
