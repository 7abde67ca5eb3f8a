"""Who may run DuckDB statements while the store lowers the database's memory limit.

DuckDB's memory limit is the whole database's, shared by every cursor. The store lowers it
for a moment to evict its buffer pool (fayshell.store.evict): ``SET memory_limit`` first
evicts down to the new limit and then makes it the limit, so a statement that allocates on
another cursor in between fails ("failed to allocate data of size 32.0 KiB (0 bytes/0 bytes
used)"), and a statement that succeeded in lowering it may then fail to set it back.

Statements on cursors of their own (fayshell.store.cursors: the views' refreshes, streamed
pipeline rows) run inside :meth:`statements`; lowering the limit runs inside :meth:`alone`,
which never waits: when any statement runs, it is not done this time. Statements on the
database's own connection are kept out by the database's lock, which the store holds
throughout.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class PoolGate:
    """Many statements at once, or the pool's limit changed with none running."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._running = 0
        self._alone = False

    @contextmanager
    def statements(self) -> Iterator[None]:
        """Run statements (and fetch their rows) inside: waits while the limit is low."""
        with self._cond:
            self._cond.wait_for(lambda: not self._alone)
            self._running += 1
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1

    @contextmanager
    def alone(self) -> Iterator[bool]:
        """True inside when no statement runs (and none starts until the end); False, at
        once, when one runs."""
        with self._cond:
            got = not self._alone and self._running == 0
            self._alone = self._alone or got
        try:
            yield got
        finally:
            if got:
                with self._cond:
                    self._alone = False
                    self._cond.notify_all()
