"""Cursors of their own on the session's database, for threads other than the shell's.

A cursor is another connection to the same database. It does not see the rows of a chunk
still written in the background (temporary views of the database's own connection), so a use
waits for that write first. Its statements run inside the database's pool gate
(fayshell.store.poolgate): the store may lower DuckDB's memory limit only while none of them
runs. The database's lock is taken only to make the cursor.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

    from fayshell.store.database import Database


def new_cursor(db: Database) -> duckdb.DuckDBPyConnection:
    """A cursor of its own, made under the database's lock (the connection is shared)."""
    with db.lock:
        return db.con.cursor()


@contextmanager
def one_cursor(db: Database) -> Iterator[duckdb.DuckDBPyConnection]:
    """A fresh cursor for the statements inside, closed at the end: for callers that may
    run at once on several threads (a drill-down asking several nodes)."""
    db.wait_pending()
    cur = new_cursor(db)
    try:
        with db.pool_gate.statements():
            yield cur
    finally:
        cur.close()


class KeptCursor:
    """One cursor kept for repeated use (a view's refreshes), one thread at a time."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._cur: duckdb.DuckDBPyConnection | None = None
        self._lock = threading.Lock()

    @contextmanager
    def use(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The cursor, made on first use, for the statements inside."""
        self.db.wait_pending()
        with self._lock:
            if self._cur is None:
                self._cur = new_cursor(self.db)
            with self.db.pool_gate.statements():
                yield self._cur

    def close(self) -> None:
        """Close the cursor (waiting for a use in progress); a later use makes a new one."""
        with self._lock:
            if self._cur is not None:
                self._cur.close()
                self._cur = None
