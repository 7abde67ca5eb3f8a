"""The shell's side of the agent protocol: one :class:`AgentClient` per running agent.

The client owns the agent's process (a local subprocess, or an SSH channel): frames go to its
stdin, a reader task decodes its stdout and completes the request waiting for each answer.
Requests may overlap (the agent answers them in order); ``cancel`` sends a Cancel frame; ``close``
says Bye, closes stdin and waits for the process to end (killing it when it does not).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from dataclasses import dataclass
from typing import Any, Protocol

from fayshell import __version__
from fayshell.agent import protocol as p
from fayshell.errors import AGENT, RemoteError

#: Bytes read from the agent's stdout at a time.
READ_SIZE = 1 << 18


class AgentProcess(Protocol):
    """The byte pipes of a started agent and how to end it."""

    async def read(self, n: int) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def write_eof(self) -> None: ...

    async def wait(self, timeout: float) -> None:
        """Wait for the process to end; kill it after ``timeout`` seconds."""
        ...

    def stderr_tail(self) -> str: ...


class AgentError(RemoteError):
    """The agent refused or failed a request (or died): node, kind and the agent's message."""

    def __init__(self, node: str, kind: str, message: str) -> None:
        super().__init__(node, AGENT, message)
        self.kind = kind


@dataclass
class AgentClient:
    """Requests to one agent; ``welcome`` is set once :meth:`hello` succeeded."""

    node: str
    proc: AgentProcess
    limits: p.Limits = p.DEFAULT_LIMITS
    welcome: p.Welcome | None = None

    def __post_init__(self) -> None:
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[p.Frame]] = {}
        self.reader = asyncio.get_running_loop().create_task(self._read_loop())
        self.dead: AgentError | None = None
        self.bytes_in = 0  # bytes received from the agent (frames), for measurements

    async def hello(self) -> p.Welcome:
        frame = await self._ask(0, p.Hello(list(p.VERSIONS), __version__))
        if not isinstance(frame, p.Welcome):
            raise AgentError(self.node, "protocol", f"expected Welcome, got {type(frame).__name__}")
        self.welcome = frame
        return frame

    async def query(self, sql: str) -> p.Result:
        rid = next(self.ids)
        return self._result(await self._ask(rid, p.Query(rid, sql)))

    async def import_session(self, path: str, session: str, stopped: bool) -> p.Imported:
        rid = next(self.ids)
        frame = await self._ask(rid, p.Import(rid, path, session, self.node, stopped))
        return self._imported(frame)

    async def import_and_query(
        self, path: str, session: str, stopped: bool, sql: tuple[str, ...]
    ) -> tuple[p.Imported, list[p.Result]]:
        """Import the session's new chunks, then run the queries: sent together and answered
        in order, one round trip. A failed import (or query) raises its error."""
        rid = next(self.ids)
        asks: list[tuple[int, p.Frame]] = [(rid, p.Import(rid, path, session, self.node, stopped))]
        asks += [(q, p.Query(q, text)) for q, text in ((next(self.ids), t) for t in sql)]
        first, *rest = await self._ask_all(asks)
        return self._imported(first), [self._result(f) for f in rest]

    def _imported(self, frame: p.Frame) -> p.Imported:
        if not isinstance(frame, p.Imported):
            raise AgentError(
                self.node, "protocol", f"expected Imported, got {type(frame).__name__}"
            )
        return frame

    def _result(self, frame: p.Frame) -> p.Result:
        if not isinstance(frame, p.Result):
            raise AgentError(self.node, "protocol", f"expected Result, got {type(frame).__name__}")
        return frame

    async def _ask(self, rid: int, frame: p.Frame) -> p.Frame:
        return (await self._ask_all([(rid, frame)]))[0]

    async def _ask_all(self, asks: list[tuple[int, p.Frame]]) -> list[p.Frame]:
        """Send the requests in one write, wait for every answer; an Error answer raises."""
        if self.dead is not None:
            raise self.dead
        loop = asyncio.get_running_loop()
        futs = {rid: loop.create_future() for rid, _ in asks}
        self.waiting.update(futs)
        try:
            await self._send(*(frame for _, frame in asks))
            answers = [await fut for fut in futs.values()]
        except asyncio.CancelledError:
            # stop them on the node too: every request not answered (the future this task
            # awaited was cancelled with it, so "done" does not mean answered)
            unanswered = [r for r, f in futs.items() if f.cancelled() or not f.done()]
            with contextlib.suppress(Exception):
                await self._send(*(p.Cancel(r) for r in unanswered))
            raise
        finally:
            for rid in futs:
                self.waiting.pop(rid, None)
        for answer in answers:
            if isinstance(answer, p.Error):
                raise AgentError(self.node, answer.kind, answer.message)
        return answers

    async def _send(self, *frames: p.Frame) -> None:
        if frames:
            self.proc.write(b"".join(p.encode(f, self.limits) for f in frames))
            await self.proc.drain()

    async def _read_loop(self) -> None:
        dec = p.FrameDecoder(self.limits)
        reason = "the agent ended"
        try:
            while data := await self.proc.read(READ_SIZE):
                self.bytes_in += len(data)
                for frame in dec.feed(data):
                    self._deliver(frame)
        except p.ProtocolError as exc:
            reason = exc.message
        except (OSError, EOFError) as exc:
            reason = f"the agent's output failed: {exc}"
        tail = self.proc.stderr_tail()
        self._fail_all(AgentError(self.node, "died", reason + (f": {tail}" if tail else "")))

    def _deliver(self, frame: p.Frame) -> None:
        rid = getattr(frame, "id", 0)
        fut = self.waiting.get(rid)
        if fut is None and isinstance(frame, p.Error) and rid == 0:
            self._fail_all(AgentError(self.node, frame.kind, frame.message))
            return
        if fut is not None and not fut.done():
            fut.set_result(frame)

    def _fail_all(self, err: AgentError) -> None:
        self.dead = self.dead or err
        for fut in self.waiting.values():
            if not fut.done():
                fut.set_exception(err)

    async def close(self, timeout: float = 5.0) -> None:
        """Say Bye, close stdin, wait for the process (killed after ``timeout``)."""
        with contextlib.suppress(Exception):
            if self.dead is None:
                await self._send(p.Bye())
            self.proc.write_eof()
        await self.proc.wait(timeout)
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.reader


class LocalAgentProcess:
    """An agent running as a local subprocess (tests, and the ``localhost`` node)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.err = bytearray()
        self.err_task = asyncio.get_running_loop().create_task(self._collect_err())

    @classmethod
    async def start(cls, argv: list[str], env: dict[str, str] | None = None) -> LocalAgentProcess:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        return cls(proc)

    async def _collect_err(self) -> None:
        assert self.proc.stderr is not None
        while data := await self.proc.stderr.read(4096):
            self.err = (self.err + data)[-4096:]

    async def read(self, n: int) -> bytes:
        assert self.proc.stdout is not None
        return await self.proc.stdout.read(n)

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    async def drain(self) -> None:
        assert self.proc.stdin is not None
        await self.proc.stdin.drain()

    def write_eof(self) -> None:
        assert self.proc.stdin is not None
        if not self.proc.stdin.is_closing():
            self.proc.stdin.close()

    async def wait(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self.err_task, 1.0)

    def stderr_tail(self) -> str:
        lines = bytes(self.err).decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else ""


class SSHAgentProcess:
    """An agent running on a node over one SSH channel (an asyncssh process, binary mode)."""

    def __init__(self, proc: Any) -> None:
        self.proc = proc
        self.err = bytearray()
        self.err_task = asyncio.get_running_loop().create_task(self._collect_err())

    async def _collect_err(self) -> None:
        while data := await self.proc.stderr.read(4096):
            self.err = (self.err + data)[-4096:]

    async def read(self, n: int) -> bytes:
        data: bytes = await self.proc.stdout.read(n)
        return data

    def write(self, data: bytes) -> None:
        self.proc.stdin.write(data)

    async def drain(self) -> None:
        await self.proc.stdin.drain()

    def write_eof(self) -> None:
        self.proc.stdin.write_eof()

    async def wait(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self.proc.wait_closed(), timeout)
        except TimeoutError:
            self.proc.close()  # closing the channel ends stdin: the agent exits
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait_closed(), timeout)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self.err_task, 1.0)

    def stderr_tail(self) -> str:
        lines = bytes(self.err).decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else ""
