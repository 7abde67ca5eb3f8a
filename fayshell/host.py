"""The host: how commands talk to the person at the edge without printing themselves.

Commands report verbose notes, warnings, non-terminating errors, progress and ``Write-Host``
text through a :class:`Host`. Each front end supplies its own: the REPL and script runner a
console host (rich progress on a terminal), the TUI a status line, tests a capturing host.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from fayshell.lang.versions import Version
    from fayshell.transcript import Transcript


class ProgressTask(Protocol):
    """A running progress indicator."""

    def advance(self, amount: float = 1.0) -> None: ...

    def update(
        self,
        *,
        completed: float | None = None,
        total: float | None = None,
        description: str | None = None,
    ) -> None: ...

    def close(self) -> None: ...


class Host(Protocol):
    """What commands may ask of the front end."""

    def write_host(self, text: str, color: str | None = None, newline: bool = True) -> None: ...

    def verbose(self, message: str) -> None: ...

    def debug(self, message: str) -> None: ...

    def warning(self, message: str) -> None: ...

    def error(self, message: str) -> None: ...

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask: ...

    def confirm(self, question: str) -> bool: ...

    def read_line(self, prompt: str, secret: bool = False) -> str | None: ...

    @property
    def transcript(self) -> Transcript | None: ...

    def transcribe(self, transcript: Transcript | None) -> Transcript | None: ...


def read_stdin_line(prompt: str, secret: bool, err: TextIO) -> str | None:
    """Read-Host's line from standard input (None at its end). On a terminal the prompt is
    shown first ("prompt: ") and a secret is not echoed; piped input is read as it comes."""
    tty = sys.stdin.isatty()
    shown = f"{prompt}: " if prompt else ""
    if secret and tty:
        import getpass

        try:
            return getpass.getpass(shown, stream=err)
        except EOFError:
            return None
    if tty and shown:
        err.write(shown)
        err.flush()
    line = sys.stdin.readline()
    return line.rstrip("\r\n") if line else None


class NullProgress:
    """A progress task that shows nothing (non-interactive output, tests)."""

    def advance(self, amount: float = 1.0) -> None:
        return None

    def update(
        self,
        *,
        completed: float | None = None,
        total: float | None = None,
        description: str | None = None,
    ) -> None:
        return None

    def close(self) -> None:
        return None


@dataclass
class RecordedProgress:
    """A progress task that keeps what it was told (CaptureHost's; a console bar's state)."""

    description: str | None = None
    total: float | None = None
    completed: float = 0.0
    closed: bool = False

    def advance(self, amount: float = 1.0) -> None:
        self.completed += amount

    def update(
        self,
        *,
        completed: float | None = None,
        total: float | None = None,
        description: str | None = None,
    ) -> None:
        self.completed = self.completed if completed is None else completed
        self.total = self.total if total is None else total
        self.description = self.description if description is None else description

    def close(self) -> None:
        self.closed = True


class Transcribing:
    """Start-Transcript for a host that writes to ``out`` and ``err`` streams."""

    out: TextIO
    err: TextIO
    recording: Transcript | None = None

    @property
    def transcript(self) -> Transcript | None:
        return self.recording

    def transcribe(self, transcript: Transcript | None) -> Transcript | None:
        """Start recording into ``transcript``, or (None) stop: the transcript started or
        stopped (None: none was running)."""
        stopped = self.recording
        if transcript is not None:
            transcript.attach(self)
        elif stopped is not None:
            stopped.detach(self)
        self.recording = transcript
        return transcript or stopped


@dataclass
class StreamHost(Transcribing):
    """Plain host writing to text streams: host text to ``out``, diagnostics to ``err``.

    Used for scripts and piped output; confirmations are refused (answer "no") because
    nobody is there to answer them.
    """

    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    show_verbose: bool = True

    def write_host(self, text: str, color: str | None = None, newline: bool = True) -> None:
        self.out.write(text + ("\n" if newline else ""))
        self.out.flush()

    def verbose(self, message: str) -> None:
        if self.show_verbose:
            self.err.write(f"VERBOSE: {message}\n")

    def debug(self, message: str) -> None:
        self.err.write(f"DEBUG: {message}\n")

    def warning(self, message: str) -> None:
        self.err.write(f"WARNING: {message}\n")

    def error(self, message: str) -> None:
        self.err.write(f"ERROR: {message}\n")

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask:
        return NullProgress()

    def confirm(self, question: str) -> bool:
        return False

    def read_line(self, prompt: str, secret: bool = False) -> str | None:
        return read_stdin_line(prompt, secret, self.err)


@dataclass
class CaptureHost:
    """A host that records everything; for tests and for embedding."""

    lines: list[str] = field(default_factory=list)
    verbose_lines: list[str] = field(default_factory=list)
    debug_lines: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    progress_tasks: list[RecordedProgress] = field(default_factory=list)
    answer: bool = False
    transcript: Transcript | None = None
    #: What Read-Host reads, in order, and the prompts it showed.
    inputs: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)

    def write_host(self, text: str, color: str | None = None, newline: bool = True) -> None:
        self.lines.append(text)
        self._record(text)

    def verbose(self, message: str) -> None:
        self.verbose_lines.append(message)
        self._record(f"VERBOSE: {message}")

    def debug(self, message: str) -> None:
        self.debug_lines.append(message)
        self._record(f"DEBUG: {message}")

    def warning(self, message: str) -> None:
        self.warnings.append(message)
        self._record(f"WARNING: {message}")

    def error(self, message: str) -> None:
        self.errors.append(message)
        self._record(f"ERROR: {message}")

    def _record(self, line: str) -> None:
        if self.transcript is not None:
            self.transcript.write(line + "\n")

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask:
        task = RecordedProgress(description, total)
        self.progress_tasks.append(task)
        return task

    def confirm(self, question: str) -> bool:
        return self.answer

    def transcribe(self, transcript: Transcript | None) -> Transcript | None:
        """Host lines, warnings and errors go to ``transcript`` too (None: stop)."""
        stopped, self.transcript = self.transcript, transcript
        if transcript is None and stopped is not None:
            stopped.close()
        return transcript or stopped

    def read_line(self, prompt: str, secret: bool = False) -> str | None:
        """The next of ``inputs`` (None when they ran out); the prompt is kept in ``prompts``."""
        self.prompts.append(prompt)
        return self.inputs.pop(0) if self.inputs else None


@dataclass(frozen=True)
class HostSize:
    """A terminal size in characters (PowerShell's Host.Size)."""

    Width: int
    Height: int

    def __str__(self) -> str:
        return f"{self.Width},{self.Height}"


class RawUI:
    """``$Host.UI.RawUI``: the terminal's size now (80x24 when output is not a terminal)."""

    MEMBERS = ("WindowSize", "BufferSize", "ForegroundColor", "BackgroundColor", "WindowTitle")
    VIEW = "list"
    ForegroundColor = "Gray"
    BackgroundColor = "Black"
    WindowTitle = "fayshell"

    @property
    def WindowSize(self) -> HostSize:  # noqa: N802 - .NET property name
        size = shutil.get_terminal_size((80, 24))
        return HostSize(size.columns, size.lines)

    @property
    def BufferSize(self) -> HostSize:  # noqa: N802 - .NET property name
        return self.WindowSize


@dataclass(frozen=True)
class HostUI:
    """``$Host.UI``: its ``RawUI``, and its methods that write to the console directly (not
    to a stream: no redirection or preference stops them) and read a line."""

    RawUI: RawUI = field(default_factory=RawUI)
    #: The shell's host as it is when a method runs (a statement wraps it to keep output in
    #: order); None: not attached to a shell.
    _console: Callable[[], Host] | None = field(default=None, repr=False, compare=False)

    def WriteLine(self, *args: object) -> None:  # noqa: N802 - .NET method name
        """``()``, ``(value)`` or ``(foregroundColor, backgroundColor, value)``."""
        self._write(args, True)

    def Write(self, *args: object) -> None:  # noqa: N802 - .NET method name
        self._write(args, False)

    def WriteErrorLine(self, value: object) -> None:  # noqa: N802 - .NET method name
        self._to().error(_text(value))

    def WriteWarningLine(self, value: object) -> None:  # noqa: N802 - .NET method name
        self._to().warning(_text(value))

    def WriteVerboseLine(self, value: object) -> None:  # noqa: N802 - .NET method name
        self._to().verbose(_text(value))

    def WriteDebugLine(self, value: object) -> None:  # noqa: N802 - .NET method name
        self._to().debug(_text(value))

    def ReadLine(self) -> str | None:  # noqa: N802 - .NET method name
        return self._to().read_line("")

    def _write(self, args: tuple[object, ...], newline: bool) -> None:
        if len(args) not in (0, 1, 3):
            raise TypeError(f"takes a value, or colors and a value, not {len(args)} arguments")
        color = _text(args[0]) if len(args) == 3 else None
        self._to().write_host(_text(args[-1]) if args else "", color, newline)

    def _to(self) -> Host:
        if self._console is None:
            raise TypeError("this $Host.UI is not attached to a console")
        return self._console()


def _text(value: object) -> str:
    from fayshell.lang.ops import to_string

    return to_string(value)


@dataclass(frozen=True)
class HostInfo:
    """``$Host`` and Get-Host: PowerShell's console host, as scripts ask it."""

    Name: str = "ConsoleHost"
    Version: Version = field(default_factory=lambda: _host_version())
    CurrentCulture: str = "en-US"
    CurrentUICulture: str = "en-US"
    UI: HostUI = field(default_factory=HostUI, repr=False)


def _host_version() -> Version:
    from fayshell.lang.versions import Version

    return Version.parse("7.4.0")
