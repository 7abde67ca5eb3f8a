"""Running commands on one node: over an SSH connection, or locally for ``localhost``.

Both transports share one interface (:class:`Transport`): ``run`` a shell command line to
completion (optionally seeing lines as they arrive), ``files()`` for SFTP-like file access, and
``close``. Commands run through the node's login shell (SSH) or ``/bin/sh -c`` (local), so a
command line has the same meaning on both. Failures raise :class:`fayshell.errors.RemoteError`
with a stage from :mod:`fayshell.remote.results`; a non-zero exit status is not a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from fayshell.errors import RemoteError
from fayshell.remote.results import COMMAND, TIMEOUT, CommandResult

if TYPE_CHECKING:
    from fayshell.remote.files import FileAccess

#: Called with (stream, line) for each output line when streaming; ``stream`` is stdout/stderr.
LineCallback = Callable[[str, str], None]


class StaleConnection(Exception):  # noqa: N818 - internal signal, retried by the pool user
    """The connection died before the command could start; safe to reconnect and retry."""


class Transport(Protocol):
    """One node's command channel (see module docstring)."""

    node: str

    async def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        input: str | None = None,
        on_line: LineCallback | None = None,
    ) -> CommandResult:
        """Run ``command`` (an already-quoted shell command line) to completion."""
        ...

    async def files(self) -> FileAccess:
        """File access on the node (SFTP over SSH; the local filesystem for localhost)."""
        ...

    async def forward(self, host: str, port: int) -> int:
        """A local port on this machine that reaches ``host:port`` as seen from the node
        (an SSH local port forward; localhost needs none). Lives as long as the transport."""
        ...

    def is_closed(self) -> bool: ...

    async def close(self) -> None: ...


def _elapsed_ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)


async def _pump(reader: Any, stream: str, on_line: LineCallback, sink: list[str]) -> None:
    """Forward lines from ``reader`` to ``on_line`` while keeping them for the result."""
    async for line in reader:
        if not line:  # EOF marker from asyncssh readers
            continue
        sink.append(line)
        on_line(stream, line.rstrip("\n"))


async def _with_timeout(node: str, awaitable: Awaitable[Any], timeout: float | None) -> Any:
    try:
        async with asyncio.timeout(timeout):
            return await awaitable
    except TimeoutError:
        raise RemoteError(node, TIMEOUT, f"command did not finish within {timeout:g}s") from None


class SSHTransport:
    """A command channel over one persistent asyncssh connection (``connection`` is public,
    for anything not wrapped here).

    At most :attr:`MAX_CHANNELS` commands run at once per node (sshd's ``MaxSessions``
    defaults to 10 and one channel is kept free for SFTP); more wait their turn."""

    MAX_CHANNELS = 8

    def __init__(self, node: str, connection: Any) -> None:
        self.node = node
        self.connection = connection
        self._channels = asyncio.Semaphore(self.MAX_CHANNELS)
        self._closed = False
        self._files: FileAccess | None = None
        self._files_lock = asyncio.Lock()
        self._forwards: dict[tuple[str, int], Any] = {}

    def mark_closed(self) -> None:
        self._closed = True

    def is_closed(self) -> bool:
        return self._closed or self.connection.is_closed()

    async def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        input: str | None = None,
        on_line: LineCallback | None = None,
    ) -> CommandResult:
        async with self._channels:
            return await self._run(command, timeout, input, on_line)

    #: Back-offs (s) when sshd refuses a channel: a channel that just finished may not have
    #: finished closing on sshd's side yet and still counts against its MaxSessions.
    OPEN_RETRIES = (0.05, 0.1, 0.2, 0.4, 0.8)

    async def _open_process(self, command: str, input: str | None) -> Any:
        import asyncssh

        for delay in (*self.OPEN_RETRIES, None):
            try:
                return await self.connection.create_process(
                    command,
                    encoding="utf-8",
                    errors="replace",
                    stdin=asyncssh.DEVNULL if input is None else asyncssh.PIPE,
                )
            except asyncssh.ChannelOpenError as exc:
                if self.is_closed():
                    raise StaleConnection(exc.reason) from exc
                if delay is None:
                    raise RemoteError(
                        self.node, COMMAND, f"sshd refused a session: {exc.reason}"
                    ) from None
                await asyncio.sleep(delay)
            except (asyncssh.DisconnectError, ConnectionError, BrokenPipeError) as exc:
                raise StaleConnection(str(exc)) from exc
        raise AssertionError("unreachable")

    async def _run(
        self, command: str, timeout: float | None, input: str | None, on_line: LineCallback | None
    ) -> CommandResult:
        start = time.perf_counter()
        proc = await self._open_process(command, input)
        try:
            if input is not None:
                proc.stdin.write(input)
                proc.stdin.write_eof()
            out: list[str] = []
            err: list[str] = []
            if on_line is None:
                done = await _with_timeout(self.node, proc.wait(), timeout)
                out, err = [done.stdout or ""], [done.stderr or ""]
            else:
                await _with_timeout(
                    self.node,
                    asyncio.gather(
                        _pump(proc.stdout, "stdout", on_line, out),
                        _pump(proc.stderr, "stderr", on_line, err),
                        proc.wait(),
                    ),
                    timeout,
                )
        finally:
            if proc.exit_status is None and proc.exit_signal is None:
                await _stop_remote(proc)
        return self._result(proc, "".join(out), "".join(err), start)

    def _result(self, proc: Any, out: str, err: str, start: float) -> CommandResult:
        if proc.exit_signal is not None:
            return CommandResult(
                self.node, -1, out, err, _elapsed_ms(start), signal=str(proc.exit_signal[0])
            )
        if proc.exit_status is None:
            why = "connection lost" if self.is_closed() else "channel closed"
            raise RemoteError(self.node, COMMAND, f"{why} before the command finished")
        return CommandResult(self.node, proc.exit_status, out, err, _elapsed_ms(start))

    async def files(self) -> FileAccess:
        """SFTP on this connection, started once and reused."""
        from fayshell.remote.files import SFTPFiles

        async with self._files_lock:
            if self._files is None:
                self._files = SFTPFiles(self.node, await self.connection.start_sftp_client())
            return self._files

    async def forward(self, host: str, port: int) -> int:
        """See :meth:`Transport.forward`; one listener per (host, port), reused."""
        listener = self._forwards.get((host, port))
        if listener is None:
            listener = await self.connection.forward_local_port("127.0.0.1", 0, host, port)
            self._forwards[(host, port)] = listener
        return int(listener.get_port())

    async def close(self) -> None:
        self._closed = True
        for listener in self._forwards.values():
            listener.close()
        self.connection.close()
        with contextlib.suppress(Exception):
            await self.connection.wait_closed()


async def _stop_remote(proc: Any, grace: float = 1.0) -> None:
    """Cancelled or timed out: ask sshd to TERM the remote command's process group and give
    it ``grace`` seconds to end (closing the channel at once would let the command live on),
    then drop the channel."""
    try:
        proc.send_signal("TERM")
        async with asyncio.timeout(grace):
            await proc.wait_closed()
    except (Exception, asyncio.CancelledError):
        pass
    finally:
        proc.close()


class LocalTransport:
    """``localhost`` without SSH: ``/bin/sh -c COMMAND`` as asyncio subprocesses."""

    def __init__(self, node: str = "localhost") -> None:
        self.node = node

    def is_closed(self) -> bool:
        return False

    async def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        input: str | None = None,
        on_line: LineCallback | None = None,
    ) -> CommandResult:
        PIPE = asyncio.subprocess.PIPE
        start = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            command,
            stdout=PIPE,
            stderr=PIPE,
            stdin=asyncio.subprocess.DEVNULL if input is None else PIPE,
            start_new_session=True,
        )
        try:
            out, err = await _with_timeout(self.node, self._collect(proc, input, on_line), timeout)
        finally:
            if proc.returncode is None:
                await _stop_local(proc)
        status = proc.returncode if proc.returncode is not None else -1
        sig = ""
        if status < 0:
            import signal

            sig, status = signal.Signals(-status).name.removeprefix("SIG"), -1
        return CommandResult(self.node, status, out, err, _elapsed_ms(start), signal=sig)

    async def _collect(
        self, proc: asyncio.subprocess.Process, input: str | None, on_line: LineCallback | None
    ) -> tuple[str, str]:
        if on_line is None:
            out_b, err_b = await proc.communicate(input.encode() if input is not None else None)
            return out_b.decode(errors="replace"), err_b.decode(errors="replace")
        if input is not None and proc.stdin is not None:
            proc.stdin.write(input.encode())
            proc.stdin.close()
        out: list[str] = []
        err: list[str] = []
        await asyncio.gather(
            _pump(_decoded(proc.stdout), "stdout", on_line, out),
            _pump(_decoded(proc.stderr), "stderr", on_line, err),
        )
        await proc.wait()
        return "".join(out), "".join(err)

    async def forward(self, host: str, port: int) -> int:
        return port

    async def files(self) -> FileAccess:
        from fayshell.remote.files import LocalFiles

        return LocalFiles(self.node)

    async def close(self) -> None:
        return None


async def _stop_local(proc: asyncio.subprocess.Process, grace: float = 1.0) -> None:
    """TERM the command's whole process group (it runs in its own session), KILL after
    ``grace`` seconds."""
    import os
    import signal

    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            async with asyncio.timeout(grace):
                await proc.wait()
            return
        except TimeoutError:
            continue


async def _decoded(reader: Any):  # -> AsyncIterator[str]
    async for raw in reader:
        yield raw.decode(errors="replace")
