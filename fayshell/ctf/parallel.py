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
    exc: BaseException


_DONE = object()


def default_workers() -> int:
    """Decoder threads: the CPU count, at most 4, at least 1."""
    return max(1, min(4, os.cpu_count() or 1))


def parallel_batches(
    readers: list[StreamReader], workers: int | None = None, depth: int = 2
) -> Iterator[tuple[StreamReader, EventBatch]]:
    """Batches of all readers, decoded by ``workers`` threads; at most ``depth`` per worker wait."""
    n = min(workers or default_workers(), len(readers))
    if n <= 1:
        for r in readers:
            for b in r.batches():
                yield r, b
        return
    q: queue.Queue[object] = queue.Queue(maxsize=n * depth)
    todo = iter(readers)
    lock = threading.Lock()
    stop = threading.Event()

    def put(item: object) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            while not stop.is_set():
                with lock:
                    r = next(todo, None)
                if r is None:
                    break
                for b in r.batches():
                    if not put((r, b)):
                        return
        except BaseException as exc:  # handed to the consumer, which re-raises it
            put(_Failed(exc))
        put(_DONE)

    threads = [threading.Thread(target=work, daemon=True, name=f"ctf-decode-{i}") for i in range(n)]
    for t in threads:
        t.start()
    finished = 0
    try:
        while finished < n:
            item = q.get()
            if item is _DONE:
                finished += 1
            elif isinstance(item, _Failed):
                raise item.exc
            else:
                yield item  # type: ignore[misc]
    finally:
        stop.set()
        for t in threads:
            t.join()
