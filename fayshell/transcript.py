"""Start-Transcript's record of a session: everything the console shows (output, host text,
warnings, errors) and the lines typed at the prompt, as plain text in a file, framed by
PowerShell's header and footer.

A host records by writing its two streams through :class:`Tee` (see ``ConsoleHost.start_
transcript``); colours and cursor moves are left out of the file. Secrets typed at Read-Host
-MaskInput are not shown, so they are not recorded either.
"""

from __future__ import annotations

import datetime as dt
import getpass
import io
import os
import re
import socket
from pathlib import Path
from typing import Any, TextIO

#: ANSI escape sequences (colours, cursor moves) a terminal obeys and a file should not hold.
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
RULE = "*" * 22


def _stamp() -> str:
    return dt.datetime.now().strftime("%Y%m%d%H%M%S")


def default_path() -> Path:
    """PowerShell's name for a transcript nobody named, in the home directory."""
    host = socket.gethostname().split(".")[0]
    return Path.home() / f"PowerShell_transcript.{host}.{os.urandom(4).hex()}.{_stamp()}.txt"


class Transcript:
    """An open transcript file."""

    def __init__(self, path: Path, append: bool = False) -> None:
        self.path = path
        self.file = open(path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115
        user = getpass.getuser()
        uname = os.uname()
        self.file.write(
            f"{RULE}\nPowerShell transcript start\nStart time: {_stamp()}\nUsername: {user}\n"
            f"RunAs User: {user}\nConfiguration Name: \n"
            f"Machine: {socket.gethostname()} ({uname.sysname} {uname.release})\n"
            f"Host Application: fayshell\nProcess ID: {os.getpid()}\n"
            f"PSVersion: 7.4.0\n{RULE}\n"
        )
        self.file.flush()

    def write(self, text: str) -> None:
        """What the console showed, without its escape sequences."""
        if not self.file.closed:
            self.file.write(ANSI.sub("", text).replace("\r\n", "\n"))
            self.file.flush()

    def typed(self, line: str) -> None:
        """A line the user typed at the prompt."""
        self.write(f"PS fay> {line}\n")

    def attach(self, host: Any) -> None:
        """Record what ``host`` writes to its ``out`` and ``err`` streams from now on."""
        host.out, host.err = Tee(host.out, self), Tee(host.err, self)

    def detach(self, host: Any) -> None:
        """``host``'s streams as they were; the file closed."""
        for name in ("out", "err"):
            stream = getattr(host, name)
            if isinstance(stream, Tee) and stream.transcript is self:
                setattr(host, name, stream.inner)
        self.close()

    def close(self) -> None:
        if not self.file.closed:
            self.file.write(f"{RULE}\nPowerShell transcript end\nEnd time: {_stamp()}\n{RULE}\n")
            self.file.close()


class Tee(io.TextIOBase):
    """A console stream that also writes to the transcript."""

    def __init__(self, inner: TextIO, transcript: Transcript) -> None:
        self.inner = inner
        self.transcript = transcript

    def write(self, text: str) -> int:
        written = self.inner.write(text)
        self.transcript.write(text)
        return written

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8")
