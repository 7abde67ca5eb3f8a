"""Decode several stream files at once on worker threads, handing batches to one consumer."""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from fayshell.ctf.decode import EventBatch, StreamReader


@dataclass
class _Failed:
    """A decoder thread's exception, on its way to the consumer."""

    exc: BaseException


_DONE = object()


def default_workers() -> int:
    """Decoder threads: the CPU count, at most 4, at least 1."""
    return max(1, min(4, os.cpu_count() or 1))


def parallel_batches(
    readers: list[StreamReader], workers: int | None = None, depth: int = 2
) -> Iterator[tuple[StreamReader, EventBatch]]:
    """Batches of all readers, decoded by ``workers`` threads that start at once (before the
    first batch is asked for); at most ``depth`` per worker wait. Iterate to the end or close()."""
    n = min(workers or default_workers(), len(readers))
    if n <= 1:
        return ((r, b) for r in readers for b in r.batches())
    return ParallelBatches(readers, n, depth)


class ParallelBatches(Iterator[tuple[StreamReader, EventBatch]]):
    """The batches of ``readers`` from ``n`` decoder threads, started by the constructor;
    :meth:`close` (or the end of the iteration) stops them and waits for them."""

    def __init__(self, readers: list[StreamReader], n: int, depth: int) -> None:
        self._q: queue.Queue[object] = queue.Queue(maxsize=n * depth)
        self._todo = iter(readers)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._finished = 0
        self._threads = [
            threading.Thread(target=self._work, daemon=True, name=f"ctf-decode-{i}")
            for i in range(n)
        ]
        for t in self._threads:
            t.start()

    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _work(self) -> None:
        try:
            while not self._stop.is_set():
                with self._lock:
                    r = next(self._todo, None)
                if r is None:
                    break
                for b in r.batches():
                    if not self._put((r, b)):
                        return
        except BaseException as exc:  # handed to the consumer, which re-raises it
            self._put(_Failed(exc))
        self._put(_DONE)

    def __next__(self) -> tuple[StreamReader, EventBatch]:
        while self._finished < len(self._threads):
            item = self._q.get()
            if item is _DONE:
                self._finished += 1
            elif isinstance(item, _Failed):
                self.close()
                raise item.exc
            else:
                return item  # type: ignore[return-value]
        self.close()
        raise StopIteration

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()
