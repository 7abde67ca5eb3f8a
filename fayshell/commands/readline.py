"""PSReadLine's cmdlets for fayshell's line editor: Set-/Get-PSReadLineOption and
Set-/Get-/Remove-PSReadLineKeyHandler, so a PowerShell profile's editing lines work (the shell
applies them at its next prompt; fayshell/readline.py keeps them)."""

from __future__ import annotations

from typing import Any, get_args

from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.lang.ops import wildcard_match
from fayshell.lang.values import NetException
from fayshell.readline import CHOICES, FUNCTIONS, KeyHandler, ReadLineOptions, ViMode

#: Set-PSReadLineOption's parameters that take a value, by the option each sets.
_VALUE_PARAMS: tuple[tuple[str, Any, str], ...] = (
    ("ContinuationPrompt", str, "The text before each further line of an input (default '>> ')."),
    ("MaximumHistoryCount", int, "The most inputs the history file keeps (4096)."),
    ("HistorySavePath", str, "The history file (default $XDG_STATE_HOME/fayshell/history)."),
    (
        "AddToHistoryHandler",
        "scriptblock",
        "A script block given each input: $false or "
        "'SkipAdding' keeps it out of the history, 'MemoryOnly' out of the file.",
    ),
    ("PromptText", "strings", "Kept, as PowerShell keeps it."),
    ("WordDelimiters", str, "Kept; words end at whitespace and punctuation."),
    ("ExtraPromptLineCount", int, "Kept."),
    ("MaximumKillRingCount", int, "Kept."),
    ("CompletionQueryItems", int, "Kept."),
    ("DingTone", int, "Kept."),
    ("DingDuration", int, "Kept."),
    ("AnsiEscapeTimeout", int, "Kept."),
    ("ViModeChangeHandler", "scriptblock", "Kept; the mode is shown by -ViModeIndicator Cursor."),
)
_SWITCHES: tuple[tuple[str, str], ...] = (
    ("HistoryNoDuplicates", "Up and Down skip an input already recalled (on by default)."),
    ("HistorySearchCursorMovesToEnd", "A history search leaves the cursor at the end."),
    ("HistorySearchCaseSensitive", "History searches tell upper from lower case."),
    ("ShowToolTips", "Kept (completions show what each is)."),
    ("TerminateOrphanedConsoleApps", "Kept (Windows only in PowerShell)."),
)
_CHOICE_HELP = {
    "EditMode": "Windows (the default keys), Emacs, or Vi (Escape for command mode); a new "
    "mode drops the key handlers set before.",
    "HistorySaveStyle": "SaveIncrementally (each input as it runs), SaveAtExit, SaveNothing.",
    "PredictionSource": "History: the rest of a matching earlier input is shown after the "
    "cursor (RightArrow takes it); None: nothing; Plugin: nothing (fayshell has no predictor "
    "plugins).",
    "PredictionViewStyle": "Kept; suggestions are shown inline.",
    "BellStyle": "Kept; the editor does not ring.",
    "ViModeIndicator": "Cursor: a block in command mode, a bar in insert mode; Prompt: "
    "the prompt is [cmd] in command mode; None and Script: nothing shown.",
}


@cmdlet(
    "Set-PSReadLineOption",
    synopsis="Change how the shell's line editor behaves: keys (Windows, Emacs, Vi), the "
    "suggestions from history, the history file, the continuation prompt, colors.",
    description="The options apply from the next prompt, in this session; put the line in "
    "your profile ($PROFILE) to keep it. Options fayshell's editor has no use for are kept "
    "and shown by Get-PSReadLineOption (their help says 'Kept').",
    params=[
        *(
            Param(name, str, choices=CHOICES[name], help=text)
            for name, text in _CHOICE_HELP.items()
        ),
        *(Param(name, kind, help=text) for name, kind, text in _VALUE_PARAMS),
        *(Param(name, bool, help=text) for name, text in _SWITCHES),
        Param(
            "Colors",
            "hashtable",
            help="Token -> color: Command, Parameter, String, Number, Variable, Keyword, "
            "Comment, Operator, Default, ContinuationPrompt, Selection, InlinePrediction ... "
            'as a ConsoleColor name, #rrggbb or an escape sequence ("`e[32m").',
        ),
    ],
    examples=[
        ("Set-PSReadLineOption -EditMode Vi", "Vi's keys: Escape for command mode."),
        ("Set-PSReadLineOption -PredictionSource None", "No suggestions from the history."),
        (
            "Set-PSReadLineOption -Colors @{ Command = 'Yellow'; String = '#8181f7' }",
            "Cmdlet names yellow, strings a shade of blue.",
        ),
        (
            "Set-PSReadLineOption -AddToHistoryHandler { param($line) $line -notmatch 'password' }",
            "Inputs that mention a password stay out of the history.",
        ),
    ],
)
def set_psreadline_option(ctx: Invocation, **given: Any) -> None:
    readline = ctx.state.readline
    options = readline.options
    by_py = {p.pyname: p.name for p in ctx.spec.params}
    try:
        for pyname, value in given.items():
            name = by_py[pyname]
            if name == "Colors":
                options.set_colors(dict(value.items()) if hasattr(value, "items") else {})
            elif name == "EditMode":
                readline.set_edit_mode(value)
            else:
                options.change(name, value)
    except NetException as exc:
        raise ctx.fail(str(exc)) from None
    readline.changes += 1


@cmdlet(
    "Get-PSReadLineOption",
    synopsis="The line editor's options (what Set-PSReadLineOption changes); setting a "
    "property of the object changes the option.",
    examples=[
        ("Get-PSReadLineOption", "Every option and its value."),
        ("(Get-PSReadLineOption).EditMode", "Windows, Emacs or Vi."),
        ("(Get-PSReadLineOption).HistoryNoDuplicates = $false", "Recall every input again."),
    ],
)
def get_psreadline_option(ctx: Invocation) -> ReadLineOptions:
    return ctx.state.readline.options


_CHORD_HELP = (
    "Keys as PSReadLine writes them: Ctrl+d, Alt+f, Shift+Tab, UpArrow, F7, a sequence as "
    "'Ctrl+x,Ctrl+e'."
)


@cmdlet(
    "Set-PSReadLineKeyHandler",
    synopsis="Bind keys of the line editor to one of its functions (Get-PSReadLineKeyHandler "
    "lists them), as PSReadLine's Set-PSReadLineKeyHandler does.",
    description="A script block as the handler (-ScriptBlock) is refused with a clear error: "
    "fayshell's editor runs its own functions only.",
    params=[
        Param("Chord", "strings", position=0, mandatory=True, aliases=("Key",), help=_CHORD_HELP),
        Param("Function", str, position=1, help="The function: " + ", ".join(FUNCTIONS) + "."),
        Param("ScriptBlock", "scriptblock", help="Refused: no script runs on a key."),
        Param("BriefDescription", str, help="Kept as the binding's description."),
        Param("Description", str, aliases=("LongDescription",), help="The binding's description."),
        Param("ViMode", str, choices=get_args(ViMode), help="Only in Vi's insert or command mode."),
    ],
    examples=[
        (
            "Set-PSReadLineKeyHandler -Key UpArrow -Function HistorySearchBackward",
            "Up recalls the inputs that start like what is typed.",
        ),
        ("Set-PSReadLineKeyHandler -Chord Tab -Function MenuComplete", "Tab opens a menu."),
    ],
)
def set_psreadline_key_handler(
    ctx: Invocation,
    *,
    chord: list[str],
    function: str | None = None,
    script_block: Any = None,
    brief_description: str | None = None,
    description: str | None = None,
    vi_mode: str | None = None,
) -> None:
    if script_block is not None or function is None:
        raise ctx.fail(
            "a script block cannot be bound to a key in fayshell's editor; bind one of its "
            "functions with -Function (Get-PSReadLineKeyHandler lists them)"
        )
    readline = ctx.state.readline
    try:
        for one in chord:
            readline.bind(one, function, description or brief_description or "", vi_mode)
    except NetException as exc:
        raise ctx.fail(str(exc)) from None


@cmdlet(
    "Get-PSReadLineKeyHandler",
    synopsis="The line editor's key bindings: the edit mode's own (Windows and Emacs) and "
    "those Set-PSReadLineKeyHandler made; -Chord for some keys.",
    params=[
        Param("Chord", "strings", position=0, aliases=("Key",), help=_CHORD_HELP),
        Param("Bound", bool, help="The bound keys (what is listed anyway)."),
        Param("Unbound", bool, help="The functions no key is bound to."),
    ],
    examples=[
        ("Get-PSReadLineKeyHandler", "Every key and what it does."),
        ("Get-PSReadLineKeyHandler -Chord Ctrl+r", "What Ctrl+r does."),
    ],
)
def get_psreadline_key_handler(
    ctx: Invocation,
    *,
    chord: list[str] | None = None,
    bound: bool = False,
    unbound: bool = False,
) -> list[KeyHandler]:
    handlers = ctx.state.readline.bound()
    if unbound:
        used = {h.Function for h in handlers}
        return [
            KeyHandler("Unbound", name, text, group, ())
            for name, (group, text) in FUNCTIONS.items()
            if name not in used
        ]
    if chord:
        handlers = [h for h in handlers if any(_same_chord(h.Key, c) for c in chord)]
    return handlers


def _same_chord(key: str, wanted: str) -> bool:
    return key.lower() == wanted.lower() or wildcard_match(key, wanted)


@cmdlet(
    "Remove-PSReadLineKeyHandler",
    synopsis="Undo Set-PSReadLineKeyHandler for keys (the edit mode's own binding, if any, "
    "comes back).",
    params=[
        Param("Chord", "strings", position=0, mandatory=True, aliases=("Key",), help=_CHORD_HELP),
        Param("ViMode", str, choices=get_args(ViMode), help="The Vi mode it was set for."),
    ],
    examples=[("Remove-PSReadLineKeyHandler -Chord Ctrl+k", "Ctrl+k does what it did before.")],
)
def remove_psreadline_key_handler(
    ctx: Invocation, *, chord: list[str], vi_mode: str | None = None
) -> None:
    try:
        for one in chord:
            ctx.state.readline.unbind(one, vi_mode)
    except NetException as exc:
        raise ctx.fail(str(exc)) from None
