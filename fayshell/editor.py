"""PSReadLine's options (fayshell/readline.py) made into prompt-toolkit's: the edit mode, the
suggestions, the colors, the history file and the key bindings. Only the REPL imports this
module; it applies :func:`apply` before each prompt."""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application.current import get_app
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.cursor_shapes import ModalCursorShapeConfig
from prompt_toolkit.document import Document
from prompt_toolkit.enums import EditingMode
from prompt_toolkit.filters import Always, Condition, vi_insert_mode, vi_navigation_mode
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings
from prompt_toolkit.key_binding.bindings import search
from prompt_toolkit.key_binding.bindings.named_commands import get_by_name
from prompt_toolkit.key_binding.vi_state import InputMode
from prompt_toolkit.styles import Style

from fayshell.readline import DEFAULT_COLORS, ReadLine, ReadLineOptions, sgr_style

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

Handler = Callable[[KeyPressEvent], Any]


class LineHistory(FileHistory):
    """The history file as PSReadLine's options say: HistorySavePath, HistorySaveStyle
    (each input as it runs, all at exit, or no file), MaximumHistoryCount inputs read back,
    HistoryNoDuplicates (an input recalled once), and AddToHistoryHandler's answer (the
    shell asks it once the input is read: :meth:`decide`)."""

    def __init__(self, options: ReadLineOptions) -> None:
        self.options = options
        self.path = options.HistorySavePath
        super().__init__(self.path)
        self.unsaved: list[str] = []
        self.undecided: str | None = None

    def load_history_strings(self) -> Iterable[str]:
        if self.options.HistorySaveStyle == "SaveNothing" or not Path(self.path).exists():
            return []
        return itertools.islice(super().load_history_strings(), self.options.MaximumHistoryCount)

    async def load(self) -> AsyncGenerator[str, None]:
        seen: set[str] = set()
        async for line in super().load():
            if self.options.HistoryNoDuplicates and line in seen:
                continue
            seen.add(line)
            yield line

    def append_string(self, string: str) -> None:
        if self.options.AddToHistoryHandler is not None:
            self.undecided = string  # the handler (a script) decides: decide()
            return
        super().append_string(string)

    def decide(self, string: str, answer: Any) -> None:
        """Keep ``string`` as AddToHistoryHandler's ``answer`` says: MemoryAndFile or $true,
        MemoryOnly, SkipAdding or $false."""
        self.undecided = None
        word = str(answer).lower() if not isinstance(answer, bool) else ""
        if answer is False or word == "skipadding":
            return
        self._loaded_strings.insert(0, string)
        if word != "memoryonly":
            self.store_string(string)

    def store_string(self, string: str) -> None:
        style = self.options.HistorySaveStyle
        if style == "SaveAtExit":
            self.unsaved.append(string)
        elif style == "SaveIncrementally":
            self._write([string])

    def save_at_exit(self) -> None:
        """SaveAtExit's inputs, written as the shell ends."""
        lines, self.unsaved = self.unsaved, []
        self._write(lines)

    def _write(self, lines: list[str]) -> None:
        try:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            for line in lines:
                super().store_string(line)
        except OSError:
            pass  # no history file (read-only home): the session goes on without one


@dataclass
class Editor:
    """What the REPL's prompt session takes from the session's PSReadLine settings."""

    readline: ReadLine
    accept: Handler  # the Enter key: run the input, or a new line while it is incomplete
    base_keys: KeyBindings
    applied: int = -1
    search_state: dict[str, Any] = field(default_factory=dict)

    def apply(self, session: PromptSession[str]) -> None:
        """Options and key handlers into ``session``, before a prompt."""
        options = self.readline.options
        session.editing_mode = EditingMode.VI if options.EditMode == "Vi" else EditingMode.EMACS
        suggest = options.PredictionSource in ("History", "HistoryAndPlugin")
        session.auto_suggest = AutoSuggestFromHistory() if suggest else None
        session.cursor = ModalCursorShapeConfig() if options.ViModeIndicator == "Cursor" else None
        session.style = style_of(options)
        session.search_ignore_case = Condition(lambda: not options.HistorySearchCaseSensitive)
        history = session.default_buffer.history
        if isinstance(history, LineHistory) and history.path != options.HistorySavePath:
            fresh = LineHistory(options)
            session.history = session.default_buffer.history = fresh
        if self.applied != self.readline.changes:
            session.key_bindings = merge_key_bindings([self.base_keys, self.user_keys()])
            self.applied = self.readline.changes

    def message(self, text: str) -> Callable[[], FormattedText]:
        """The prompt, in the Error color while Vi's command mode is on when
        -ViModeIndicator Prompt asks for it."""

        def shown() -> FormattedText:
            options = self.readline.options
            command = options.ViModeIndicator == "Prompt" and _vi_command_mode()
            return FormattedText([("class:prompt.vi-command" if command else "", text)])

        return shown

    def continuation(self, width: int, line: int, wrap: int) -> FormattedText:
        prompt = self.readline.options.ContinuationPrompt
        return FormattedText([("class:continuation", prompt.rjust(width))])

    def user_keys(self) -> KeyBindings:
        """Set-PSReadLineKeyHandler's bindings (they come after, and so before, the shell's)."""
        kb = KeyBindings()
        vi = self.readline.options.EditMode == "Vi"
        for h in self.readline.handlers.values():
            when = {"Insert": vi_insert_mode, "Command": vi_navigation_mode}.get(
                h.vi_mode or ("Insert" if vi else ""), Always()
            )
            kb.add(*h.keys, filter=when)(self.action(h.Function))
        return kb

    def action(self, function: str) -> Handler:
        """What PSReadLine's function ``function`` does in prompt-toolkit."""
        own: dict[str, Handler] = {
            "AcceptLine": self.accept,
            "AddLine": lambda e: e.current_buffer.insert_text("\n"),
            "RevertLine": lambda e: setattr(e.current_buffer, "document", Document()),
            "CancelLine": lambda e: e.app.exit(exception=KeyboardInterrupt()),
            "ForwardChar": _forward_char,
            "AcceptSuggestion": lambda e: _take_suggestion(e, whole=True),
            "AcceptNextSuggestionWord": lambda e: _take_suggestion(e, whole=False),
            "HistorySearchBackward": lambda e: self.history_search(e, backward=True),
            "HistorySearchForward": lambda e: self.history_search(e, backward=False),
            "ForwardSearchHistory": search.start_forward_incremental_search.handler,
        }
        return own.get(function) or get_by_name(NAMED[function]).handler

    def history_search(self, event: KeyPressEvent, backward: bool) -> None:
        """The previous (next) input that starts like the text before the cursor, as
        PSReadLine's HistorySearchBackward: the prefix is kept while the keys repeat."""
        buf = event.current_buffer
        options = self.readline.options
        state = self.search_state
        if state.get("shown") != buf.text:
            state.update(prefix=buf.document.text_before_cursor, at=None, seen={buf.text})
        prefix, lines = state["prefix"], buf.history.get_strings()
        at = state["at"] if state["at"] is not None else len(lines)
        steps = range(at - 1, -1, -1) if backward else range(at + 1, len(lines))
        for i in steps:
            line = lines[i]
            if not _starts(line, prefix, options.HistorySearchCaseSensitive):
                continue
            if line == buf.text or (options.HistoryNoDuplicates and line in state["seen"]):
                continue
            end = len(line) if options.HistorySearchCursorMovesToEnd else len(prefix)
            buf.document = Document(line, end)
            state["seen"].add(line)
            state.update(at=i, shown=line)
            return


#: The functions prompt-toolkit has under readline's names.
NAMED: dict[str, str] = {
    "BackwardDeleteChar": "backward-delete-char",
    "DeleteChar": "delete-char",
    "BackwardKillLine": "unix-line-discard",
    "KillLine": "kill-line",
    "BackwardKillWord": "backward-kill-word",
    "UnixWordRubout": "unix-word-rubout",
    "KillWord": "kill-word",
    "Yank": "yank",
    "YankPop": "yank-pop",
    "Undo": "undo",
    "SwapCharacters": "transpose-chars",
    "CapitalizeWord": "capitalize-word",
    "UpcaseWord": "uppercase-word",
    "DowncaseWord": "downcase-word",
    "BeginningOfLine": "beginning-of-line",
    "EndOfLine": "end-of-line",
    "BackwardChar": "backward-char",
    "BackwardWord": "backward-word",
    "ShellBackwardWord": "backward-word",
    "ForwardWord": "forward-word",
    "NextWord": "forward-word",
    "ShellForwardWord": "forward-word",
    "PreviousHistory": "previous-history",
    "NextHistory": "next-history",
    "BeginningOfHistory": "beginning-of-history",
    "EndOfHistory": "end-of-history",
    "ReverseSearchHistory": "reverse-search-history",
    "Complete": "complete",
    "MenuComplete": "menu-complete",
    "TabCompleteNext": "menu-complete",
    "TabCompletePrevious": "menu-complete-backward",
    "ClearScreen": "clear-screen",
    "ViEditVisually": "edit-and-execute-command",
}

#: prompt-toolkit's style classes each -Colors key paints (the lexer's pygments tokens).
STYLE_CLASSES: dict[str, tuple[str, ...]] = {
    "Command": ("pygments.name.builtin",),
    "Parameter": ("pygments.name.attribute",),
    "Variable": ("pygments.name.variable", "pygments.literal.string.interpol"),
    "String": ("pygments.literal.string",),
    "Number": ("pygments.literal.number",),
    "Keyword": ("pygments.keyword",),
    "Comment": ("pygments.comment",),
    "Operator": ("pygments.operator",),
    "Type": ("pygments.name.class",),
    "Member": ("pygments.name.property",),
    "Default": ("pygments.text",),
    "ContinuationPrompt": ("continuation",),
    "Selection": ("selected",),
    "Emphasis": ("search.current",),
    "Error": ("prompt.vi-command",),
    "InlinePrediction": ("auto-suggestion",),
    "ListPrediction": ("completion-menu.meta.completion",),
    "ListPredictionSelected": ("completion-menu.completion.current",),
}


def style_of(options: ReadLineOptions) -> Style:
    """The colors of ``options`` as prompt-toolkit's style."""
    rules = [
        (cls, sgr_style(options.color(key))) for key in DEFAULT_COLORS for cls in STYLE_CLASSES[key]
    ]
    return Style([(cls, rule) for cls, rule in rules if rule])


def _vi_command_mode() -> bool:
    try:
        app = get_app()
    except Exception:  # no application: no mode to show
        return False
    return app.editing_mode == EditingMode.VI and app.vi_state.input_mode == InputMode.NAVIGATION


def _starts(line: str, prefix: str, case: bool) -> bool:
    return line.startswith(prefix) if case else line.lower().startswith(prefix.lower())


def _forward_char(event: KeyPressEvent) -> None:
    """Right: the suggestion at the end of the input, else one character right."""
    buf = event.current_buffer
    if buf.suggestion and buf.document.is_cursor_at_the_end:
        buf.insert_text(buf.suggestion.text)
    else:
        buf.cursor_position += buf.document.get_cursor_right_position(count=event.arg)


def _take_suggestion(event: KeyPressEvent, whole: bool) -> None:
    buf = event.current_buffer
    if buf.suggestion is None:
        return
    text = buf.suggestion.text
    if not whole:
        stripped = text.lstrip()
        word = stripped.split(" ", 1)[0]
        text = text[: len(text) - len(stripped) + len(word)]
    buf.insert_text(text)
