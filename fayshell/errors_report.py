"""The one place an exception becomes what a person sees, and an exit code.

* A user's mistake (:class:`~fayshell.errors.FayError`) is one line with its place; a syntax
  error adds the source line and a caret.
* Ctrl-C is ``interrupted``.
* Anything else is a bug: ``internal error: Type: message``, with the full traceback appended to
  a log file under ``$XDG_STATE_HOME/fayshell/`` whose path is printed once per process.

The REPL, the script runner and ``fayshell top`` all call :func:`report`; nothing else turns an
exception into output.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import traceback
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Protocol

from fayshell import __version__
from fayshell.errors import FayError, InternalError, Interrupted, ParseError, UsageError

LOG_NAME = "internal-errors.log"


class ExitCode(IntEnum):
    """The process's exit status (documented in ``fayshell --help`` and the README)."""

    OK = 0
    FAILED = 1  # a command failed, or a bug (internal error)
    USAGE = 2  # bad syntax, a bad option or argument
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)


class ErrorSink(Protocol):
    """What :func:`report` writes to (a console host)."""

    def error(self, message: str) -> None: ...

    def report(self, exc: FayError) -> None: ...


def state_dir() -> Path:
    """``$XDG_STATE_HOME/fayshell`` (default ``~/.local/state/fayshell``)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "fayshell"


@dataclass
class CrashLog:
    """Appends tracebacks of internal errors to one file; tells its path once per process."""

    path: Path = field(default_factory=lambda: state_dir() / LOG_NAME)
    announced: bool = False

    def record(self, exc: BaseException) -> str:
        """Write the traceback; the note to show after the error line (empty once told)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as log:
                log.write(self.entry(exc))
        except OSError as why:
            return f" (the traceback could not be written to {self.path}: {why.strerror})"
        if self.announced:
            return ""
        self.announced = True
        return f" (traceback in {self.path}; please attach it to a bug report)"

    @staticmethod
    def entry(exc: BaseException) -> str:
        when = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        head = f"=== {when} fayshell {__version__} pid {os.getpid()}\n"
        return head + "".join(traceback.format_exception(exc)) + "\n"


def exit_code(exc: BaseException) -> ExitCode:
    """The exit status an exception ends a script with."""
    if isinstance(exc, (ParseError, UsageError)):
        return ExitCode.USAGE
    if isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError, Interrupted)):
        return ExitCode.INTERRUPTED
    return ExitCode.FAILED


def report(exc: BaseException, sink: ErrorSink, crash_log: CrashLog) -> ExitCode:
    """Show ``exc`` as the user should see it and return the exit status it means."""
    if isinstance(exc, InternalError):
        sink.error(exc.one_line() + crash_log.record(exc.cause))
    elif isinstance(exc, FayError):
        sink.report(exc)
    elif isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError)):
        sink.error("interrupted")
    else:
        note = crash_log.record(exc)
        sink.error(f"internal error: {type(exc).__name__}: {exc}{note}")
    return exit_code(exc)
