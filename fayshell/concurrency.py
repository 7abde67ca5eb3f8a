"""Concurrent work that never outlives the task that started it.

``asyncio.to_thread`` cannot stop a thread: a cancelled ``await asyncio.to_thread(f)`` returns at
once while ``f`` keeps running, so whatever the caller does next (removing a temporary directory)
races with it. :func:`in_thread` waits for the thread before the cancellation goes on.
``asyncio.gather`` returns at the first error while the other awaitables still run;
:func:`together` cancels them and waits until every one has finished, then raises that error.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, Generic, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def in_thread(fn: Callable[P, T], /, *args: P.args, **kw: P.kwargs) -> T:
    """``fn(*args, **kw)`` in a worker thread; if the caller is cancelled, the cancellation
    propagates only once the thread has finished (or once it is known never to start)."""
    work = asyncio.ensure_future(asyncio.to_thread(fn, *args, **kw))
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        await finished(work)
        raise


async def finished(*tasks: asyncio.Future[Any]) -> None:
    """Wait until every task is done, through further cancellations of the caller (one of
    them is raised at the end). The tasks' own errors are retrieved, not raised."""
    cancelled = False
    pending = {t for t in tasks if not t.done()}
    while pending:
        try:
            _, pending = await asyncio.wait(pending)
        except asyncio.CancelledError:
            cancelled = True
    for t in tasks:
        if not t.cancelled():
            t.exception()  # marks it retrieved: the caller decides what to report
    if cancelled:
        raise asyncio.CancelledError


async def together(coros: Iterable[Coroutine[Any, Any, Any]]) -> None:
    """Run the coroutines concurrently. The first error (or a cancellation of the caller)
    cancels the others; it is raised once every one of them has finished."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    if not tasks:
        return
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for t in tasks:
            t.cancel()
        await finished(*tasks)
    errors = [t.exception() for t in tasks if not t.cancelled()]
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        raise first


class Background(Generic[T]):
    """``fn(*args)`` computed on a thread of its own while the caller goes on (numpy and
    Arrow release the GIL in their loops, so it gets a core of its own). Used as a context
    manager, the thread never outlives the block; :meth:`result` waits for it and raises its
    error."""

    def __init__(self, fn: Callable[..., T], *args: Any) -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, args), daemon=True)

    def _run(self, fn: Callable[..., T], args: tuple[Any, ...]) -> None:
        try:
            self._value = fn(*args)
        except BaseException as exc:  # re-raised by result() in the caller's thread
            self._error = exc

    def __enter__(self) -> Background[T]:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join()

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]
