"""Building remote command lines safely: every argument validated and ``shlex.quote``-d.

No remote command line in fayshell is built by concatenating user text. Callers pass an argv
list; :func:`command_line` quotes each element. Validators reject values that must never reach a
remote shell at all (NUL bytes, names outside a character set).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from fayshell.errors import FayError

#: A node / host name: what inventories and ssh_config may name (no shell metacharacters).
NODE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,252}$")


class UnsafeArgument(FayError):
    """A value that may not be sent to a remote shell."""


def quote(arg: str | int | float) -> str:
    """One argument, quoted for a POSIX shell. NUL bytes cannot be passed and are refused."""
    text = str(arg)
    if "\x00" in text:
        raise UnsafeArgument(f"argument contains a NUL byte: {text!r}")
    return shlex.quote(text)


def quote_argv(argv: Sequence[str | int | float]) -> str:
    """An argv list as one shell command line, every element quoted."""
    if not argv:
        raise UnsafeArgument("empty command")
    return " ".join(quote(a) for a in argv)


def command_line(command: str | Sequence[str | int | float]) -> str:
    """A remote command line from an argv list (quoted) or a string the user typed as-is.

    A ``str`` is taken as a shell command line the operator wrote (``-Command 'uname -r'``);
    a list/tuple is an argv whose elements are each quoted. Programmatic callers must pass argv.
    """
    if isinstance(command, str):
        if "\x00" in command:
            raise UnsafeArgument("command line contains a NUL byte")
        if not command.strip():
            raise UnsafeArgument("empty command")
        return command
    return quote_argv(command)


def check_node_name(name: str) -> str:
    """Return ``name`` when it is a valid node name, else raise :class:`UnsafeArgument`."""
    if not NODE_NAME.match(name):
        raise UnsafeArgument(f"invalid node name {name!r}")
    return name


def check_name(value: str, what: str, pattern: str = r"[A-Za-z0-9_.\-]+") -> str:
    """Validate an identifier-like value (session, channel...) against ``pattern``."""
    if not re.fullmatch(pattern, value):
        raise UnsafeArgument(f"invalid {what} {value!r}: must match {pattern}")
    return value


def check_path(path: str) -> str:
    """Validate a remote path: non-empty, no NUL, no newline (it is still quoted when sent)."""
    if not path or "\x00" in path or "\n" in path:
        raise UnsafeArgument(f"invalid remote path {path!r}")
    return path
