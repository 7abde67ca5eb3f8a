"""The interactive shell: prompt-toolkit on the process's one asyncio loop.

Only input handling lives here (highlighting, completion, history, multi-line, toolbar, Ctrl-C);
what a line means is the interpreter's business and how output looks is the console's.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import History
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.lexers import PygmentsLexer

from fayshell.completion import complete
from fayshell.console import ConsoleHost
from fayshell.editor import Editor, LineHistory
from fayshell.errors import IncompleteInput, ParseError, RuntimeFayError
from fayshell.errors_report import CrashLog, report
from fayshell.lang.highlight import FayLexer
from fayshell.lang.interp import ExitSignal, Interpreter
from fayshell.lang.ops import to_string
from fayshell.lang.values import UNSET
from fayshell.memory import give_back
from fayshell.state import ShellState

PROMPT = "PS fay> "
#: The prompt when the user's prompt function fails or returns nothing (PowerShell's).
FALLBACK_PROMPT = "PS> "


class FayCompleter(Completer):
    """Adapts :func:`fayshell.completion.complete` to prompt-toolkit."""

    def __init__(self, state: ShellState) -> None:
        self.state = state

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Any:
        for cand in complete(self.state, document.text_before_cursor):
            yield Completion(cand.text, start_position=-cand.start, display_meta=cand.meta)


class Repl:
    """One interactive session; ``run`` returns the exit code when the user leaves."""

    def __init__(
        self,
        state: ShellState,
        host: ConsoleHost,
        *,
        input: Any = None,
        output: Any = None,
        history: History | None = None,
        crash_log: CrashLog | None = None,
    ) -> None:
        self.state = state
        self.host = host
        self.crash_log = crash_log or CrashLog()
        self.interp = Interpreter(state)
        self.running: asyncio.Task[Any] | None = None
        base = KeyBindings()
        base.add("enter")(self._enter)
        self.editor = Editor(state.readline, self._enter, base)
        self.session: PromptSession[str] = PromptSession(
            lexer=PygmentsLexer(FayLexer),
            completer=FayCompleter(state),
            complete_while_typing=False,
            history=history or LineHistory(state.readline.options),
            multiline=True,
            key_bindings=base,
            bottom_toolbar=self.toolbar,
            prompt_continuation=self.editor.continuation,
            input=input,
            output=output,
            enable_history_search=False,
        )

    def _enter(self, event: KeyPressEvent) -> None:
        """AcceptLine: run the input, or go on to a new line while it is incomplete."""
        buf = event.current_buffer
        if self.needs_more(buf.text):
            buf.insert_text("\n")
        else:
            buf.validate_and_handle()

    def needs_more(self, text: str) -> bool:
        """True while braces, parentheses or quotes are open or a line ends with '|'."""
        if not text.strip():
            return False
        try:
            self.interp.parse(text, "<repl>")
        except IncompleteInput:
            return True
        except ParseError:
            return False
        return False

    def toolbar(self) -> str:
        parts = [f"db: {self.state.database_label}"]
        cluster = self.state._cluster
        if cluster is not None:
            names = getattr(cluster, "node_names", None)
            if callable(names):
                parts.append(f"nodes: {len(list(names()))}")
        else:
            parts.append("nodes: localhost")
        parts += [f"{k}: {v}" for k, v in sorted(self.state.status.items()) if v]
        return "  |  ".join(parts)

    async def run(self) -> int:
        try:
            return await self._loop()
        finally:
            history = self.session.default_buffer.history
            if isinstance(history, LineHistory):
                history.save_at_exit()  # -HistorySaveStyle SaveAtExit

    async def _loop(self) -> int:
        while True:
            self.editor.apply(self.session)
            prompt = self.editor.message(await self.prompt_text())
            try:
                text = await self.session.prompt_async(prompt)
            except KeyboardInterrupt:
                continue
            except EOFError:
                return 0
            await self.to_history(text)
            if text.strip():
                self.host.typed(text)
                code = await self.execute(text)
                if code is not None:
                    return code
                self.state.close_progress()
                self.state.release_writes()  # an import's write runs while the prompt waits
                give_back()  # the command's peak is not kept while the prompt waits

    async def to_history(self, text: str) -> None:
        """Ask -AddToHistoryHandler whether the input goes into the history (and its file);
        a handler that fails keeps it, and its error is in $Error."""
        history = self.session.default_buffer.history
        handler = self.state.readline.options.AddToHistoryHandler
        if not isinstance(history, LineHistory) or history.undecided != text:
            return
        answer: Any = True
        try:
            out = await self.interp.invoke_block(handler, [text], UNSET, None)
            answer = out[-1] if out else True
        except RuntimeFayError as exc:
            self.state.remember_error(Interpreter.error_value(exc))
        history.decide(text, answer)

    async def prompt_text(self) -> str:
        """PROMPT, or what the user's ``prompt`` function returns (about_Prompts; a profile
        usually defines it). When it fails or returns nothing: 'PS> ', as PowerShell shows;
        its error is kept in $Error, not shown."""
        if "prompt" not in self.state.functions:
            return PROMPT
        try:
            out = await self.interp.run("prompt", "<prompt>")
        except RuntimeFayError as exc:  # the user's function failed
            self.state.remember_error(Interpreter.error_value(exc))
            return FALLBACK_PROMPT
        except Exception as exc:  # a bug: an internal error, with its traceback in the log
            report(exc, self.host, self.crash_log)
            return FALLBACK_PROMPT
        return "".join(to_string(v) for v in out) or FALLBACK_PROMPT

    async def execute(self, text: str) -> int | None:
        """Run one input; Ctrl-C cancels it and returns to the prompt. An ``exit N`` -> N."""
        loop = asyncio.get_running_loop()
        self.running = asyncio.ensure_future(
            self.state.history.track(
                text,
                self.interp.run(text, "<repl>", on_output=self.host.show),
                self.state.history_count,
            )
        )
        cancelled_by_user = False

        def on_sigint() -> None:
            nonlocal cancelled_by_user
            cancelled_by_user = True
            if self.running is not None:
                self.running.cancel()

        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            await self.running
            self._end_output()
        except asyncio.CancelledError as exc:
            if not cancelled_by_user:
                raise
            self._end_output()
            report(exc, self.host, self.crash_log)
        except ExitSignal as exc:
            self._end_output()
            return exc.code
        except Exception as exc:  # a user's mistake, Ctrl-C in a query, or a bug: never the end
            self._end_output()
            report(exc, self.host, self.crash_log)
        finally:
            self.running = None
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signal.SIGINT)
            self.state.received(text)
        return None

    def _end_output(self) -> None:
        """The input's last table or list, which the console keeps open until the input ends."""
        getattr(self.host, "end_output", lambda: None)()
