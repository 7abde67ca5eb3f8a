"""Answers before the data is on disk: a chunk's rows queryable from Arrow while it is written.

A chunk loaded this way (``LoadSettings.answer_first``) is decoded and derived in memory into a
:class:`PendingChunk`: the rows each stored table gains (Arrow), and the stored rows it replaces
or deletes (carried state, merged spans). ``PendingWrites.publish`` makes it visible on the
user's connection at once: per touched table a temporary view of the same name (temporary
objects come first in DuckDB's search path) that is the stored rows minus the removed ones,
plus the pending Arrow. A writer thread with a connection of its own writes the whole chunk,
its ``chunks`` row included, in one transaction; it commits and drops the views while holding
``db.lock``, which every query on the user's connection holds too, so a query sees each row
exactly once: from the Arrow before the commit, from the file after it. A write that never
commits (the process killed) leaves the chunk unmarked: it is imported again next time.

A chunk may be published *held* (``LoadSettings.hold_write``, the shell's Import-Trace): its
writer starts only when ``start`` is called or someone waits for it. The shell starts it once
the statement after the import has run, when it goes idle, or when anything needs the file
(fayshell.state.ShellState.statement_finished): the question asked right after an import is then
answered with both cores, not beside the writer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fayshell.errors import StoreError
from fayshell.store.arrowsql import q
from fayshell.store.database import registered, transaction
from fayshell.store.relation import quote_literal

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

    from fayshell.store.database import Database


@dataclass(frozen=True)
class Removal:
    """Stored rows of ``table`` a chunk replaces: those matching ``where`` (SQL over the
    table's columns, alias ``x``; ``{keys}`` names the registered ``keys`` table if any)."""

    table: str
    where: str
    keys: pa.Table | None = None


@dataclass(frozen=True)
class Added:
    """Rows a table gains: ``rows``, plus columns of one value each (``constants``: column
    name to an INTEGER or VARCHAR value) given in SQL rather than materialised once per row."""

    rows: pa.Table
    constants: tuple[tuple[str, int | str], ...] = ()

    @property
    def select(self) -> str:
        """The SELECT list reading these rows with their constant columns."""
        return ", ".join(["*", *(f"{_sql_value(v)} AS {q(k)}" for k, v in self.constants)])


def _sql_value(v: int | str) -> str:
    return quote_literal(v) if isinstance(v, str) else f"CAST({v:d} AS INTEGER)"


@dataclass
class PendingChunk:
    """What one chunk changes in the store, held in memory until it is written."""

    chunk_id: str
    adds: dict[str, list[Added]] = field(default_factory=dict)
    removals: list[Removal] = field(default_factory=list)
    #: Statements (with parameters) run last in the write's transaction.
    finish: list[tuple[str, list[Any]]] = field(default_factory=list)

    def add(self, table: str, rows: pa.Table | None, **constants: int | str) -> None:
        if rows is not None and rows.num_rows:
            self.adds.setdefault(table, []).append(Added(rows, tuple(constants.items())))

    @property
    def tables(self) -> list[str]:
        return sorted({*self.adds, *(r.table for r in self.removals)})


#: Called by the writer thread just before it commits (tests hold it there).
BeforeCommit = Callable[[], None]


class PendingWrites:
    """The pending chunk of one database (at most one) and the thread writing it."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._names: list[str] = []  # registered Arrow and temporary views to drop
        self._serial = 0
        self._held = False
        self._starting = threading.Lock()  # start() may be called from several threads

    @property
    def busy(self) -> bool:
        return self._thread is not None

    @property
    def held(self) -> int | None:
        """The number of the published chunk whose writer has not started yet, else None."""
        return self._serial if self._held else None

    def publish(
        self, chunk: PendingChunk, before_commit: BeforeCommit | None = None, held: bool = False
    ) -> None:
        """Show ``chunk`` on the user's connection and write it, from now on or, ``held``,
        from ``start`` (caller holds ``db.lock``, no write is pending)."""
        if self._thread is not None:
            raise RuntimeError("a chunk is already pending")  # load_chunk waits first
        con = self._db.con
        dbname = con.execute("SELECT current_database()").fetchall()[0][0]
        self._serial += 1
        views = [self._view(con, dbname, table, chunk) for table in chunk.tables]
        if views:  # one script, one commit: a real kernel trace feeds hundreds of tables
            with transaction(con):
                con.execute(";\n".join(views))
        writer = con.cursor()
        thread = threading.Thread(
            target=self._write,
            args=(writer, dbname, chunk, before_commit),
            name="store-pending",
            daemon=True,
        )
        self._held = held  # before the thread is seen: a waiter must find it held or started
        self._thread = thread
        if not held:
            thread.start()

    def start(self) -> None:
        """Start the held chunk's writer (nothing when none is held)."""
        with self._starting:
            if self._held and self._thread is not None:
                self._held = False
                self._thread.start()

    def _view(
        self, con: duckdb.DuckDBPyConnection, dbname: str, table: str, chunk: PendingChunk
    ) -> str:
        """What creates the temporary view ``table``: stored rows minus removals, plus pending
        rows (registered on ``con`` here)."""
        stored = f"{q(dbname)}.main.{q(table)}"
        conds = []
        for i, rem in enumerate(r for r in chunk.removals if r.table == table):
            keys = self._register(con, f"fay_pk_{self._serial}_{table}_{i}", rem.keys)
            conds.append(rem.where.replace("{keys}", q(keys) if keys else ""))
        parts = [
            f"SELECT x.* FROM {stored} x" + (f" WHERE NOT ({' OR '.join(conds)})" if conds else "")
        ]
        for i, added in enumerate(chunk.adds.get(table, [])):
            name = self._register(con, f"fay_pa_{self._serial}_{table}_{i}", added.rows)
            parts.append(f"SELECT {added.select} FROM {q(name)}")
        self._names.append("view:" + table)
        return f"CREATE OR REPLACE TEMP VIEW {q(table)} AS " + " UNION ALL BY NAME ".join(parts)

    def _register(self, con: duckdb.DuckDBPyConnection, name: str, rows: pa.Table | None) -> str:
        if rows is None:
            return ""
        con.register(name, rows)
        self._names.append(name)
        return name

    def _write(
        self,
        con: duckdb.DuckDBPyConnection,
        dbname: str,
        chunk: PendingChunk,
        before_commit: BeforeCommit | None,
    ) -> None:
        try:
            con.execute("BEGIN TRANSACTION")
            write_chunk(con, dbname, chunk)
            if before_commit is not None:
                before_commit()
            with self._db.lock:
                con.execute("COMMIT")
                self._hide()
        except BaseException as exc:  # re-raised by wait() in the caller's thread
            self._error = exc
            with self._db.lock:
                with suppress(Exception):  # the transaction may already be gone
                    con.execute("ROLLBACK")
                self._hide()
        finally:
            con.close()

    def _hide(self) -> None:
        """Drop the temporary views and registered Arrow (caller holds ``db.lock``)."""
        con = self._db.raw
        views = [n[5:] for n in self._names if n.startswith("view:")]
        if views:  # first, and in one statement: the views read the registered Arrow
            con.execute(";\n".join(f"DROP VIEW IF EXISTS temp.main.{q(v)}" for v in views))
        for name in self._names:
            if not name.startswith("view:"):
                con.unregister(name)
        self._names = []

    def wait(self) -> None:
        """Block until the pending chunk is written; a failed write raises StoreError."""
        thread = self._thread
        if thread is None:
            return
        self.start()
        thread.join()
        self._thread = None
        err, self._error = self._error, None
        if err is not None:
            if isinstance(err, KeyboardInterrupt | SystemExit):
                raise err
            raise StoreError(
                f"writing the imported chunk failed (it will be imported again "
                f"next time): {str(err).splitlines()[0] if str(err) else err!r}"
            )


def write_chunk(con: duckdb.DuckDBPyConnection, dbname: str, chunk: PendingChunk) -> None:
    """Apply a pending chunk on ``con`` (inside the caller's transaction)."""
    for rem in chunk.removals:
        keys = {} if rem.keys is None else {"fay_keys": rem.keys}
        where = rem.where.replace("{keys}", "fay_keys") if keys else rem.where
        with registered(con, **keys):
            con.execute(f"DELETE FROM {q(dbname)}.main.{q(rem.table)} x WHERE {where}")
    adds = [(table, added) for table, parts in chunk.adds.items() for added in parts]
    inserts = [
        f"INSERT INTO {q(dbname)}.main.{q(table)} BY NAME SELECT {added.select} FROM fay_rows_{i}"
        for i, (table, added) in enumerate(adds)
    ]
    with registered(con, **{f"fay_rows_{i}": added.rows for i, (_, added) in enumerate(adds)}):
        if inserts:  # one statement: a real kernel trace feeds hundreds of payload tables
            con.execute(";\n".join(inserts))
    for sql, params in chunk.finish:
        con.execute(sql, params)
