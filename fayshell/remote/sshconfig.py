"""OpenSSH client config, read once and looked up per host name (as ``ssh NAME`` would).

asyncssh's own parser re-reads and re-tokenises the whole file on every lookup, which makes
resolving N nodes against an N-entry config O(N^2) (1.6 s for 128 nodes here). This reader
tokenises each file once and then answers lookups from the token list. It covers what fayshell
honours: ``Host`` blocks (wildcards, ``!negation``), ``Include`` (globs, relative to
``~/.ssh``), first-value-wins options, accumulating ``IdentityFile``, and ``%`` tokens /
``~`` in paths. Files containing ``Match`` blocks are handed to asyncssh's parser instead,
which implements them.
"""

from __future__ import annotations

import fnmatch
import getpass
import glob
import os
import shlex
import socket
from typing import Any

from fayshell.errors import InventoryError

#: option (lower case) -> (canonical name, kind)
OPTIONS: dict[str, tuple[str, str]] = {
    "hostname": ("Hostname", "str"),
    "port": ("Port", "int"),
    "user": ("User", "str"),
    "identityfile": ("IdentityFile", "append"),
    "identitiesonly": ("IdentitiesOnly", "bool"),
    "userknownhostsfile": ("UserKnownHostsFile", "list"),
    "globalknownhostsfile": ("GlobalKnownHostsFile", "list"),
    "proxyjump": ("ProxyJump", "str"),
    "connecttimeout": ("ConnectTimeout", "int"),
    "serveraliveinterval": ("ServerAliveInterval", "int"),
}
PATH_OPTIONS = ("IdentityFile", "UserKnownHostsFile", "GlobalKnownHostsFile")
Token = tuple[str, list[str], str, int]  # option (lower), args, file, line number


def _split(line: str, path: str, line_no: int) -> tuple[str, list[str]]:
    """``Key value...`` or ``Key=value`` -> (key lower-cased, args)."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError as exc:
        raise InventoryError(f"{path}:{line_no}: {exc}") from None
    if not words:
        return "", []
    key, _, rest = words[0].partition("=")
    args = ([rest] if rest else []) + words[1:]
    if args and args[0].startswith("="):
        args[0] = args[0][1:]
        if not args[0]:
            args.pop(0)
    return key.lower(), args


def host_matches(name: str, patterns: list[str]) -> bool:
    """OpenSSH ``Host`` semantics: any positive pattern matches and no negated one does."""
    hit = False
    for pattern in (p for arg in patterns for p in arg.split(",")):
        if pattern.startswith("!"):
            if fnmatch.fnmatchcase(name, pattern[1:]):
                return False
        elif fnmatch.fnmatchcase(name, pattern):
            hit = True
    return hit


class SSHConfigFile:
    """One or more config files, tokenised once (``has_match`` -> use asyncssh's parser)."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.tokens: list[Token] = []
        self.has_match = False
        for path in paths:
            self._read(path, depth=0)

    def _read(self, path: str, depth: int) -> None:
        if depth > 16:
            raise InventoryError(f"{path}: Include nested too deeply")
        try:
            with open(path) as fh:
                lines = fh.read().splitlines()
        except OSError as exc:
            raise InventoryError(f"ssh config {path}: {exc.strerror}") from None
        for no, raw in enumerate(lines, 1):
            key, args = _split(raw.strip(), path, no)
            if key == "include":
                for pattern in args:
                    full = os.path.join(os.path.expanduser("~/.ssh"), os.path.expanduser(pattern))
                    for inc in sorted(glob.glob(full)):
                        self._read(inc, depth + 1)
            elif key:
                self.has_match |= key == "match"
                self.tokens.append((key, args, path, no))

    def lookup(self, name: str) -> dict[str, Any]:
        """Options for ``ssh NAME`` (only those in :data:`OPTIONS`), ``%`` tokens expanded."""
        found: dict[str, Any] = {}
        matching = True
        for key, args, path, no in self.tokens:
            if key == "host":
                matching = host_matches(name, args)
                continue
            spec = OPTIONS.get(key)
            if not matching or spec is None:
                continue
            option, kind = spec
            if not args:
                raise InventoryError(f"{path}:{no}: missing {option} value")
            if kind == "append":
                found.setdefault(option, []).append(args[0])
            elif option not in found:
                found[option] = _value(kind, args, path, no)
        return _expand_tokens(name, found)


def _value(kind: str, args: list[str], path: str, no: int) -> Any:
    if kind == "list":
        return list(args)
    if kind == "bool":
        return args[0].lower() in ("yes", "true")
    if kind == "int":
        try:
            return int(args[0])
        except ValueError:
            raise InventoryError(f"{path}:{no}: not a number: {args[0]!r}") from None
    return args[0]


def _expand_tokens(name: str, opts: dict[str, Any]) -> dict[str, Any]:
    host = str(opts.get("Hostname", name)).replace("%h", name).replace("%%", "%")
    if "Hostname" in opts:
        opts["Hostname"] = host
    local = socket.gethostname()
    tokens = {
        "%": "%",
        "d": os.path.expanduser("~"),
        "h": host,
        "n": name,
        "p": str(opts.get("Port", 22)),
        "r": str(opts.get("User", getpass.getuser())),
        "u": getpass.getuser(),
        "i": str(os.getuid()),
        "l": local,
        "L": local.split(".")[0],
    }

    def expand(value: str) -> str:
        out, i = [], 0
        while i < len(value):
            if value[i] == "%" and i + 1 < len(value):
                out.append(tokens.get(value[i + 1], value[i : i + 2]))
                i += 2
            else:
                out.append(value[i])
                i += 1
        return os.path.expanduser("".join(out))

    for option in PATH_OPTIONS:
        if option in opts:
            opts[option] = [expand(v) for v in opts[option]]
    return opts
