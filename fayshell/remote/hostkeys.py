"""Strict host key checking against known_hosts, with explicit trust-on-first-use.

asyncssh checks the offered key against the node's known_hosts files itself; only a key it does
not trust reaches :meth:`HostKeyChecker.validate`, which decides:

* the host has other keys on record -> **changed**: always refused, loudly;
* the host is not on record -> **unknown**: refused with how to accept it, unless the caller
  asked for ``accept_new`` (``-AcceptNewHostKey``), which records the key in the first
  user known_hosts file and accepts it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fayshell.remote.inventory import NodeSpec


def known_hosts_pattern(host: str, port: int) -> str:
    """The known_hosts host field OpenSSH writes: ``host`` or ``[host]:port``."""
    return host if port == 22 else f"[{host}]:{port}"


def fingerprint(key: Any) -> str:
    """An asyncssh key's SHA256 fingerprint, as ``ssh-keygen -l`` shows it."""
    return str(key.get_fingerprint("sha256"))


@dataclass
class HostKeyChecker:
    """Host key decisions for one connection attempt; ``problem`` explains a refusal."""

    spec: NodeSpec
    accept_new: bool = False
    problem: str = ""

    def files(self) -> list[str]:
        """The known_hosts files that exist, user files first (what asyncssh should read)."""
        paths = [*self.spec.known_hosts, *self.spec.global_known_hosts]
        return [p for p in paths if os.path.isfile(p) and os.access(p, os.R_OK)]

    def known_hosts_arg(self) -> Any:
        """Value for asyncssh's ``known_hosts=``: the files, or an empty set (never ``None``,
        which would switch checking off)."""
        import asyncssh

        files = self.files()
        return files if files else asyncssh.import_known_hosts("")

    def record_file(self) -> str:
        """Where a newly accepted key is written: the first UserKnownHostsFile."""
        return self.spec.known_hosts[0]

    def validate(self, host: str, addr: str, port: int, key: Any) -> bool:
        """Called by asyncssh for a key known_hosts does not trust; see module docstring."""
        import asyncssh

        files = self.files()
        on_record = asyncssh.read_known_hosts(files).match(host, addr, port)[0] if files else []
        offered = fingerprint(key)
        where = known_hosts_pattern(host, port)
        if on_record:
            known = ", ".join(fingerprint(k) for k in on_record)
            self.problem = (
                f"HOST KEY CHANGED for {self.spec.name} ({where}): server offered {offered}, "
                f"known_hosts has {known}. Refusing to connect: this may be a man-in-the-middle "
                f"attack. If the change is expected, remove the old entry with "
                f"ssh-keygen -R '{where}' -f {files[0]} and connect again"
            )
            return False
        if not self.accept_new:
            self.problem = (
                f"unknown host key for {self.spec.name} ({where}), fingerprint {offered}; it is "
                f"not in {self.record_file()}. Verify the fingerprint, then accept it with "
                f"-AcceptNewHostKey (records it in {self.record_file()})"
            )
            return False
        self._record(where, key)
        return True

    def _record(self, where: str, key: Any) -> None:
        path = Path(self.record_file())
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        kind, blob = key.export_public_key("openssh").decode().split()[:2]
        new = not path.exists()
        with open(path, "a") as fh:
            fh.write(f"{where} {kind} {blob}\n")
        if new:
            path.chmod(0o600)
