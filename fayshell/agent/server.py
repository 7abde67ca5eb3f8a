"""The node agent: a headless process answering framed requests on stdin with frames on stdout.

Started by the shell over one SSH channel (``python3 -I -B <bundle>/agent.py``, or
``python -m fayshell.agent --cache DIR``). It listens on no port, writes only under its cache
directory (the node-local DuckDB file and DuckDB's spill directory) and exits when stdin closes.
Requests run one at a time; a Cancel (read by the stdin thread while a query runs) interrupts
the running one (again and again until it ends: DuckDB forgets an interrupt that comes before
its query has started). Every failure of a request is an Error frame; only a broken stream (a
malformed frame) ends the agent.
"""

from __future__ import annotations

import contextlib
import os
import platform
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from fayshell import __version__
from fayshell.agent import protocol as p
from fayshell.agent.nodestore import NodeStore
from fayshell.errors import FayError

STORE_FILE = "store.duckdb"
#: How often a cancelled query is interrupted again until it has ended.
INTERRUPT_EVERY_S = 0.05


@dataclass(frozen=True)
class AgentSettings:
    """Where the agent keeps its store, and its frame limits."""

    cache: Path
    limits: p.Limits = p.DEFAULT_LIMITS

    @property
    def store(self) -> Path:
        return self.cache / STORE_FILE


class Agent:
    """One agent session: a stdin reader thread feeding requests to the main thread."""

    def __init__(self, settings: AgentSettings, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.settings = settings
        self.stdin = stdin
        self.stdout = stdout
        self.out_lock = threading.Lock()
        self.held: list[bytes] = []  # answers not written yet (see send)
        self.requests: queue.Queue[p.Frame | None] = queue.Queue()
        self.running: int | None = None
        self.running_query = False  # the running request is a Query (interrupted until it ends)
        self.cancelled: set[int] = set()
        self.state_lock = threading.Lock()
        self.store: NodeStore | None = None
        self.version: int | None = None

    # ---- io ----

    def send(self, frame: p.Frame, more: bool = False) -> None:
        """Write ``frame``; with ``more`` (another request is already queued) it waits to go
        out with the next answer: requests sent together get their answers in one write."""
        data = p.encode(frame, self.settings.limits)
        with self.out_lock:
            self.held.append(data)
            if not more:
                self.flush_held()

    def flush_held(self) -> None:
        """Write the answers held back (call with ``out_lock``)."""
        data, self.held = b"".join(self.held), []
        if data:
            self.stdout.write(data)
            self.stdout.flush()

    def read_loop(self) -> None:
        """Stdin thread: queue requests, act on Cancel at once; None in the queue means stop."""
        dec = p.FrameDecoder(self.settings.limits)
        try:
            while (frame := p.read_frame(self.stdin, dec)) is not None:
                if isinstance(frame, p.Cancel):
                    self.cancel(frame.id)
                elif isinstance(frame, p.Bye):
                    break
                else:
                    self.requests.put(frame)
        except p.ProtocolError as exc:
            self.send_quietly(p.Error(0, "protocol", exc.message))
        except (OSError, ValueError):
            pass  # stdin gone: same as end of stream
        self.cancel(None)
        self.requests.put(None)

    def send_quietly(self, frame: p.Frame) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.send(frame)

    def cancel(self, rid: int | None) -> None:
        """Interrupt request ``rid`` (None: whatever runs, the stream is closing)."""
        with self.state_lock:
            if rid is not None:
                self.cancelled.add(rid)
            target = self.running if rid in (None, self.running) else None
            if target is None or self.store is None:
                return
            self.store.interrupt()
            if not self.running_query:
                return
        threading.Thread(
            target=self.interrupt_until_done, args=(target,), name="fay-agent-cancel", daemon=True
        ).start()

    def interrupt_until_done(self, rid: int) -> None:
        """Interrupt query ``rid`` until it has ended: a Cancel can arrive after the request
        started but before DuckDB began its query, and DuckDB clears an interrupt when a query
        begins (a stray interrupt on an idle connection is dropped the same way)."""
        while True:
            with self.state_lock:
                if self.running != rid or self.store is None:
                    return
                self.store.interrupt()
            time.sleep(INTERRUPT_EVERY_S)

    # ---- requests ----

    def serve(self) -> int:
        reader = threading.Thread(target=self.read_loop, name="fay-agent-stdin", daemon=True)
        reader.start()
        try:
            while (frame := self.requests.get()) is not None:
                self.handle(frame)
        finally:
            with self.out_lock, contextlib.suppress(OSError, ValueError):
                self.flush_held()
            if self.store is not None:
                self.store.close()
        return 0

    def handle(self, frame: p.Frame) -> None:
        rid = getattr(frame, "id", 0)
        with self.state_lock:
            if rid in self.cancelled:
                self.cancelled.discard(rid)
                self.send_quietly(p.Error(rid, "cancelled", f"request {rid} cancelled"))
                return
            self.running = rid
            self.running_query = isinstance(frame, p.Query)
        try:
            answer = self.answer(frame)
            self.send(answer, more=not self.requests.empty())
        except FayError as exc:
            kind = "cancelled" if rid in self.cancelled else getattr(exc, "kind", "request")
            msg = f"request {rid} cancelled" if kind == "cancelled" else exc.one_line()
            self.send_quietly(p.Error(rid, kind, msg))
        except (OSError, ValueError):
            self.requests.put(None)  # stdout gone: nobody to answer
        except Exception as exc:  # noqa: BLE001 - the agent must answer, not die
            self.send_quietly(
                p.Error(rid, "internal", f"internal error: {type(exc).__name__}: {exc}")
            )
        finally:
            with self.state_lock:
                self.running = None
                self.cancelled.discard(rid)

    def answer(self, frame: p.Frame) -> p.Frame:
        if isinstance(frame, p.Hello):
            return self.hello(frame)
        if self.version is None:
            raise RequestError("hello", f"{type(frame).__name__} before Hello")
        handler: dict[type[p.Frame], Callable[[Any], p.Frame]] = {
            p.Import: self.do_import,
            p.Query: self.do_query,
        }
        fn = handler.get(type(frame))
        if fn is None:
            raise RequestError("unexpected", f"the agent does not accept {type(frame).__name__}")
        return fn(frame)

    def hello(self, frame: p.Hello) -> p.Frame:
        version = p.negotiate(frame.versions)
        if version is None:
            raise RequestError(
                "version",
                f"no common protocol version: shell speaks "
                f"{frame.versions}, agent {list(p.VERSIONS)}",
            )
        self.version = version
        self.open_store()
        return p.Welcome(
            version,
            __version__,
            platform.python_version(),
            platform.machine(),
            os.getpid(),
            str(self.settings.store),
        )

    def open_store(self) -> None:
        if self.store is None:
            self.settings.cache.mkdir(parents=True, exist_ok=True)
            self.store = NodeStore.open(self.settings.store)

    def do_import(self, frame: p.Import) -> p.Frame:
        assert self.store is not None
        res = self.store.import_session(Path(frame.path), frame.session, frame.node, frame.stopped)
        return p.Imported(
            frame.id,
            res.chunks_loaded,
            res.chunks_skipped,
            res.events,
            [e.one_line() for e in res.errors],
        )

    def do_query(self, frame: p.Query) -> p.Frame:
        assert self.store is not None
        table = self.store.query(frame.sql)
        return p.Result(frame.id, table.num_rows, p.table_bytes(table))


class RequestError(FayError):
    """A request the agent refuses; ``kind`` goes into the Error frame."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def default_cache() -> Path:
    """``$XDG_CACHE_HOME/fayshell/agent/local`` (a bundle passes its own directory instead)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "fayshell" / "agent" / "local"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    cache = default_cache()
    if len(args) == 2 and args[0] == "--cache":
        cache = Path(args[1])
    elif args:
        print("usage: python -m fayshell.agent [--cache DIR]", file=sys.stderr)
        return 2
    frames = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # nothing else (DuckDB's C++ side included) may write into
    sys.stdout = sys.stderr  # the frame stream: file descriptor 1 is stderr from now on
    agent = Agent(AgentSettings(cache), sys.stdin.buffer, frames)
    return agent.serve()
