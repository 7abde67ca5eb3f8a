"""File access on a node: SFTP over the node's SSH connection, or the local filesystem.

Obtain one with ``await cluster.files(node)`` (or ``await transport.files()``). Paths on the node
are plain strings (they never pass through a shell). Errors raise
:class:`fayshell.errors.RemoteError` with stage ``command`` and the path in the message.
``SFTPFiles.sftp`` is the underlying ``asyncssh.SFTPClient`` for anything not wrapped here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from fayshell.concurrency import in_thread
from fayshell.errors import RemoteError
from fayshell.remote.results import COMMAND

T = TypeVar("T")


@dataclass(frozen=True)
class RemoteStat:
    """What ``stat`` tells about a path on a node."""

    path: str
    size: int
    mtime: float
    is_dir: bool


class FileAccess(Protocol):
    """The file operations fayshell needs on a node (pulling trace chunks, mostly)."""

    node: str

    async def get(self, remote: str | Sequence[str], local: str, *, recurse: bool = False) -> None:
        """Copy file(s) from the node to local path ``local`` (a dir when several/recurse)."""
        ...

    async def listdir(self, path: str) -> list[str]:
        """Names in a directory (without ``.``/``..``), sorted."""
        ...

    async def stat(self, path: str) -> RemoteStat: ...

    async def exists(self, path: str) -> bool: ...

    async def read_bytes(self, path: str) -> bytes: ...

    async def glob(self, pattern: str) -> list[str]:
        """Paths matching a glob pattern, sorted."""
        ...

    async def remove(self, path: str, *, recurse: bool = False) -> None: ...


def _fail(node: str, op: str, path: Any, exc: BaseException) -> RemoteError:
    reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc)
    return RemoteError(node, COMMAND, f"{op} {path}: {reason}")


class SFTPFiles:
    """:class:`FileAccess` over an ``asyncssh.SFTPClient``."""

    def __init__(self, node: str, sftp: Any) -> None:
        self.node = node
        self.sftp = sftp

    async def _call(self, op: str, path: Any, coro: Any) -> Any:
        import asyncssh

        try:
            return await coro
        except (asyncssh.SFTPError, OSError) as exc:
            raise _fail(self.node, op, path, exc) from None

    async def get(self, remote: str | Sequence[str], local: str, *, recurse: bool = False) -> None:
        await self._call(
            "get", remote, self.sftp.get(remote, local, recurse=recurse, preserve=True)
        )

    async def listdir(self, path: str) -> list[str]:
        names = await self._call("listdir", path, self.sftp.listdir(path))
        return sorted(n for n in names if n not in (".", ".."))

    async def stat(self, path: str) -> RemoteStat:
        attrs = await self._call("stat", path, self.sftp.stat(path))
        import stat as st

        return RemoteStat(
            path, attrs.size or 0, float(attrs.mtime or 0), st.S_ISDIR(attrs.permissions or 0)
        )

    async def exists(self, path: str) -> bool:
        return bool(await self._call("exists", path, self.sftp.exists(path)))

    async def read_bytes(self, path: str) -> bytes:
        async def read() -> bytes:
            async with self.sftp.open(path, "rb") as fh:
                return bytes(await fh.read())

        return bytes(await self._call("read", path, read()))

    async def glob(self, pattern: str) -> list[str]:
        return sorted(await self._call("glob", pattern, self.sftp.glob(pattern)))

    async def remove(self, path: str, *, recurse: bool = False) -> None:
        coro = self.sftp.rmtree(path) if recurse else self.sftp.remove(path)
        await self._call("remove", path, coro)


class LocalFiles:
    """:class:`FileAccess` on this machine's filesystem (the ``localhost`` node)."""

    def __init__(self, node: str = "localhost") -> None:
        self.node = node

    async def _io(self, op: str, path: Any, fn: Callable[[], T]) -> T:
        try:
            return await in_thread(fn)  # a cancelled caller waits for the thread
        except OSError as exc:
            raise _fail(self.node, op, path, exc) from None

    async def get(self, remote: str | Sequence[str], local: str, *, recurse: bool = False) -> None:
        sources = [remote] if isinstance(remote, str) else list(remote)

        def copy() -> None:
            for src in sources:
                dst = os.path.join(local, os.path.basename(src)) if os.path.isdir(local) else local
                if os.path.isdir(src):
                    if not recurse:
                        raise IsADirectoryError(21, "is a directory (use recurse)", src)
                    shutil.copytree(src, dst, dirs_exist_ok=True)
                else:
                    shutil.copy2(src, dst)

        await self._io("get", remote, copy)

    async def listdir(self, path: str) -> list[str]:
        return sorted(await self._io("listdir", path, lambda: os.listdir(path)))

    async def stat(self, path: str) -> RemoteStat:
        import stat as st

        s = await self._io("stat", path, lambda: os.stat(path))
        return RemoteStat(path, s.st_size, s.st_mtime, st.S_ISDIR(s.st_mode))

    async def exists(self, path: str) -> bool:
        return os.path.exists(path)

    async def read_bytes(self, path: str) -> bytes:
        def read() -> bytes:
            with open(path, "rb") as fh:
                return fh.read()

        return await self._io("read", path, read)

    async def glob(self, pattern: str) -> list[str]:
        import glob

        return sorted(await self._io("glob", pattern, lambda: glob.glob(pattern)))

    async def remove(self, path: str, *, recurse: bool = False) -> None:
        def rm() -> None:
            if recurse and os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.remove(path)

        await self._io("remove", path, rm)


__all__ = ["FileAccess", "LocalFiles", "RemoteStat", "SFTPFiles"]
