"""The connection pool: one persistent SSH connection per node, opened on first use.

* Connections are reused by every later command; a connection found closed (dropped, keepalive
  failure) is replaced on next use.
* At most ``max_handshakes`` (default 64) SSH handshakes run at once, so a burst to many nodes
  does not trip sshd's ``MaxStartups``; commands on open connections are not limited.
* Each handshake has a connect timeout; keepalives detect dead peers.
* Authentication is by keys and ssh-agent only (BatchMode): never a password prompt.
* ``connects[name]`` counts handshakes per node: tests use it to prove reuse.

Errors raise :class:`fayshell.errors.RemoteError` with stage ``connect``, ``auth``,
``hostkey`` or ``timeout`` and a message that never contains key material or passphrases.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections import Counter
from dataclasses import dataclass
from typing import Any

from fayshell.errors import RemoteError
from fayshell.remote.hostkeys import HostKeyChecker
from fayshell.remote.inventory import NodeSpec
from fayshell.remote.results import AUTH, CONNECT, HOSTKEY, TIMEOUT
from fayshell.remote.transport import LocalTransport, SSHTransport, Transport


@dataclass
class PoolSettings:
    """Knobs of the pool (seconds). Defaults can be set from the environment with
    ``FAYSHELL_MAX_HANDSHAKES`` and ``FAYSHELL_CONNECT_TIMEOUT`` (see :meth:`from_env`)."""

    max_handshakes: int = 64
    connect_timeout: float = 10.0
    keepalive_interval: float = 15.0
    keepalive_count_max: int = 3

    @classmethod
    def from_env(cls) -> PoolSettings:
        settings = cls()
        try:
            if os.environ.get("FAYSHELL_MAX_HANDSHAKES"):
                settings.max_handshakes = max(1, int(os.environ["FAYSHELL_MAX_HANDSHAKES"]))
            if os.environ.get("FAYSHELL_CONNECT_TIMEOUT"):
                settings.connect_timeout = float(os.environ["FAYSHELL_CONNECT_TIMEOUT"])
        except ValueError:
            pass  # a malformed variable keeps the default
        return settings


class ConnectionPool:
    """Persistent transports keyed by :attr:`NodeSpec.key` (see module docstring)."""

    def __init__(self, settings: PoolSettings | None = None) -> None:
        self.settings = settings or PoolSettings.from_env()
        self.connects: Counter[str] = Counter()
        self._transports: dict[tuple[Any, ...], Transport] = {}
        self._pending: dict[tuple[Any, ...], asyncio.Task[Transport]] = {}
        self._handshakes: asyncio.Semaphore | None = None
        self._limit = 0

    def cached(self, spec: NodeSpec) -> Transport | None:
        """The open transport for ``spec``, if there is one (no I/O)."""
        t = self._transports.get(spec.key)
        return t if t is not None and not t.is_closed() else None

    async def get(
        self,
        spec: NodeSpec,
        *,
        accept_new_host_key: bool = False,
        connect_timeout: float | None = None,
    ) -> Transport:
        """The node's transport, connecting (once, even for concurrent callers) if needed.

        ``connect_timeout`` (seconds) overrides ssh_config's ConnectTimeout and the default."""
        found = self.cached(spec)
        if found is not None:
            return found
        self._transports.pop(spec.key, None)
        task = self._pending.get(spec.key)
        if task is None:
            task = asyncio.ensure_future(self._open(spec, accept_new_host_key, connect_timeout))
            self._pending[spec.key] = task
            task.add_done_callback(self._forget_pending(spec.key))
        return await asyncio.shield(task)

    def _forget_pending(self, key: tuple[Any, ...]) -> Any:
        def forget(task: asyncio.Task[Transport]) -> None:
            self._pending.pop(key, None)
            if not task.cancelled():
                task.exception()  # retrieved: callers may all have been cancelled meanwhile

        return forget

    def drop(self, spec: NodeSpec) -> None:
        """Forget a node's transport (it is closed in the background)."""
        t = self._transports.pop(spec.key, None)
        if isinstance(t, SSHTransport):
            t.connection.abort()

    async def aclose(self) -> None:
        """Close every connection (and cancel handshakes in flight)."""
        for task in list(self._pending.values()):
            task.cancel()
        transports, self._transports = list(self._transports.values()), {}
        await asyncio.gather(*(t.close() for t in transports), return_exceptions=True)

    async def _open(
        self, spec: NodeSpec, accept_new: bool, connect_timeout: float | None
    ) -> Transport:
        if spec.local:
            local = self._transports[spec.key] = LocalTransport(spec.name)
            return local
        tunnel = None
        if spec.jump is not None:
            tunnel = await self._jump(spec, accept_new, connect_timeout)
        if self._handshakes is None or self._limit != max(1, self.settings.max_handshakes):
            self._limit = max(1, self.settings.max_handshakes)
            self._handshakes = asyncio.Semaphore(self._limit)
        async with self._handshakes:
            transport = await self._handshake(spec, tunnel, accept_new, connect_timeout)
        self._transports[spec.key] = transport
        return transport

    async def _jump(self, spec: NodeSpec, accept_new: bool, connect_timeout: float | None) -> Any:
        """The connection to ``spec``'s ProxyJump host (pooled too); its failure is the node's."""
        assert spec.jump is not None
        try:
            jump = await self.get(
                spec.jump, accept_new_host_key=accept_new, connect_timeout=connect_timeout
            )
        except RemoteError as exc:
            detail = exc.message.removeprefix(f"{exc.node}: {exc.stage}: ")
            raise RemoteError(
                spec.name, exc.stage, f"jump host {spec.jump.address}: {detail}"
            ) from None
        assert isinstance(jump, SSHTransport)
        return jump.connection

    async def _handshake(
        self, spec: NodeSpec, tunnel: Any, accept_new: bool, connect_timeout: float | None
    ) -> Transport:
        import asyncssh

        checker = HostKeyChecker(spec, accept_new=accept_new)
        holder: list[SSHTransport] = []
        timeout = connect_timeout or spec.connect_timeout or self.settings.connect_timeout

        class Client(asyncssh.SSHClient):
            def validate_host_public_key(self, host: str, addr: str, port: int, key: Any) -> bool:
                return checker.validate(host, addr, port, key)

            def connection_lost(self, exc: Exception | None) -> None:
                for t in holder:
                    t.mark_closed()

        try:
            async with asyncio.timeout(timeout):
                conn = await asyncssh.connect(
                    **self._connect_args(spec, tunnel, checker), client_factory=Client
                )
        except BaseException as exc:
            raise self._classify(spec, exc, checker, timeout) from None
        self.connects[spec.name] += 1
        transport = SSHTransport(spec.name, conn)
        holder.append(transport)
        return transport

    def _connect_args(self, spec: NodeSpec, tunnel: Any, checker: HostKeyChecker) -> dict[str, Any]:
        keys = [p for p in spec.identity_files if os.path.exists(p)]
        args: dict[str, Any] = dict(
            host=spec.host,
            port=spec.port,
            username=spec.user,
            tunnel=tunnel,
            config=[],
            known_hosts=checker.known_hosts_arg(),
            password_auth=False,
            kbdint_auth=False,
            keepalive_interval=spec.keepalive_interval or self.settings.keepalive_interval,
            keepalive_count_max=self.settings.keepalive_count_max,
            login_timeout=None,
        )
        if keys or spec.identity_files:
            args["client_keys"] = keys or None
        if spec.identities_only:
            args["agent_path"] = None
        return args

    @staticmethod
    def _classify(
        spec: NodeSpec, exc: BaseException, checker: HostKeyChecker, timeout: float
    ) -> BaseException:
        """Turn whatever connecting raised into a staged, secret-free RemoteError."""
        import asyncssh

        where = spec.address
        if isinstance(exc, RemoteError | asyncio.CancelledError | KeyboardInterrupt):
            return exc
        if isinstance(exc, TimeoutError):
            return RemoteError(
                spec.name, TIMEOUT, f"no SSH session with {where} within {timeout:g}s"
            )
        if isinstance(exc, asyncssh.HostKeyNotVerifiable):
            return RemoteError(
                spec.name,
                HOSTKEY,
                checker.problem or f"host key of {where} not verifiable: {exc.reason}",
            )
        if isinstance(exc, asyncssh.PermissionDenied):
            return RemoteError(
                spec.name,
                AUTH,
                f"permission denied for {where} (publickey; keys tried: {_key_note(spec)})",
            )
        if isinstance(exc, asyncssh.KeyImportError | asyncssh.KeyEncryptionError):
            return RemoteError(
                spec.name,
                AUTH,
                f"cannot use the private key for {where}: "
                f"encrypted or unreadable ({type(exc).__name__}); "
                f"load it into ssh-agent",
            )
        if isinstance(exc, asyncssh.DisconnectError):
            return RemoteError(spec.name, CONNECT, f"{where}: {exc.reason}")
        if isinstance(exc, socket.gaierror):
            return RemoteError(
                spec.name,
                CONNECT,
                f"cannot resolve host name {spec.host!r} (not in the inventory or ssh_config?)",
            )
        if isinstance(exc, OSError):
            why = os.strerror(exc.errno) if exc.errno else (exc.strerror or str(exc))
            return RemoteError(spec.name, CONNECT, f"{where}: {why}")
        return RemoteError(spec.name, CONNECT, f"{where}: {type(exc).__name__}: {exc}")


def _key_note(spec: NodeSpec) -> str:
    files = ", ".join(spec.identity_files) or "default keys"
    return files + ("" if spec.identities_only else " + ssh-agent")
