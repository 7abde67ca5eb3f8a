"""The session's DuckDB database: open, query, describe. duckdb is imported only here, lazily."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from fayshell.errors import FayError, Interrupted, SqlError, StoreError
from fayshell.store.loaded import LoadedChunks
from fayshell.store.poolgate import PoolGate

if TYPE_CHECKING:
    import duckdb

    from fayshell.store.pending import PendingWrites
    from fayshell.store.relation import Relation


def sql_error(exc: Exception) -> SqlError:
    """DuckDB's own message as one line, without the exception class noise."""
    text = str(exc).strip().splitlines()
    return SqlError(" ".join(line.strip() for line in text if line.strip()) or type(exc).__name__)


#: First words of statements that only read (a query; anything else may change what the store
#: knows, and runs as a statement rather than a relation).
QUERY_WORDS = (
    "select",
    "with",
    "from",
    "values",
    "table",
    "describe",
    "show",
    "summarize",
    "pivot",
    "unpivot",
    "explain",
)


def insert_rows(
    con: Any, table: str, rows: Sequence[Sequence[Any]], per_statement: int = 500
) -> None:
    """``rows`` appended to ``table`` (a name our code writes, quoted by the caller), their
    values bound as parameters exactly as ``executemany`` binds them, but several rows per
    INSERT: DuckDB's executemany runs one statement per row (the 1,181 event names of a real
    kernel trace took 0.6-0.9 s, one statement of 500 rows costs about what one row does)."""
    for k in range(0, len(rows), per_statement):
        part = rows[k : k + per_statement]
        marks = "(" + ", ".join("?" * len(part[0])) + ")"
        con.execute(
            f"INSERT INTO {table} VALUES " + ", ".join([marks] * len(part)),
            [v for row in part for v in row],
        )


def append_rows(con: Any, table: str, rows: Sequence[Sequence[Any]]) -> None:
    """``rows`` appended to ``table`` (a name our code writes, quoted by the caller) as one
    Arrow table, by position; for rows whose columns each hold one Python type (pyarrow infers
    it, DuckDB casts on insert). DuckDB binds a parameter in about 25 us: the 1,181 event names
    of a real kernel trace took 0.06-0.12 s through ``insert_rows``, and take a tenth of that
    as one scan."""
    import pyarrow as pa

    if not rows:
        return
    cols = [pa.array(list(col)) for col in zip(*rows, strict=True)]
    name = f"fay_append_{threading.get_ident()}"
    with registered(con, **{name: pa.table(cols, names=[f"c{i}" for i in range(len(cols))])}):
        con.execute(f"INSERT INTO {table} SELECT * FROM {name}")


@contextmanager
def registered(con: Any, **tables: Any) -> Iterator[None]:
    """Arrow tables (or other objects DuckDB scans) visible to ``con`` under the given names
    for the block, unregistered when it ends, even by an error."""
    for name, table in tables.items():
        con.register(name, table)
    try:
        yield
    finally:
        for name in tables:
            con.unregister(name)


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """BEGIN ... COMMIT, or ROLLBACK when the block raises. Also one commit for a script of
    DDL statements, which DuckDB otherwise commits one by one (181 CREATE TABLEs: 0.08 s
    alone, 0.05 s together)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _may_change_schema(sql: str) -> bool:
    """Whether a user statement may create, drop or alter what the store relies on."""
    words = sql.lstrip().split(None, 1)
    return not words or not words[0].lower().startswith((*QUERY_WORDS, "("))


T = TypeVar("T")
# How often the waiting main thread repeats an interrupt that came before DuckDB started.
INTERRUPT_POLL_S = 0.25


def interruptible(con: Any, work: Callable[[], T]) -> T:
    """Run ``work`` (a DuckDB call on ``con``) so that Ctrl-C stops it.

    On the main thread the call runs in a worker thread while a SIGINT handler of our own is in
    place: Ctrl-C calls ``con.interrupt()`` and the call ends with :class:`Interrupted` (DuckDB
    rolls the statement back; the database stays intact). A cancellation already requested for
    the running task (Ctrl-C just before the query) also ends it. Other threads run ``work``
    directly. DuckDB's own errors become :class:`SqlError`.
    """
    if threading.current_thread() is not threading.main_thread():
        return _plain(work)
    gate = _Gate(con)
    previous = signal.signal(signal.SIGINT, gate.on_sigint)
    try:
        if _cancel_requested():
            raise Interrupted()
        return gate.run(work)
    finally:
        signal.signal(
            signal.SIGINT, previous if previous is not None else signal.default_int_handler
        )


def _plain(work: Callable[[], T]) -> T:
    try:
        return work()
    except FayError:
        raise
    except Exception as exc:
        raise sql_error(exc) from None


def _cancel_requested() -> bool:
    import asyncio

    try:
        task = asyncio.current_task()
    except RuntimeError:
        return False
    return task is not None and task.cancelling() > 0


@dataclass
class _Gate:
    """One query in a worker thread, and the SIGINT handler that interrupts it."""

    con: Any
    hit: bool = False

    def on_sigint(self, signum: int, frame: Any) -> None:
        self.hit = True
        self.con.interrupt()

    def run(self, work: Callable[[], T]) -> T:
        box: list[tuple[bool, Any]] = []
        done = threading.Event()

        def target() -> None:
            try:
                box.append((True, work()))
            except BaseException as exc:  # handed to the waiting thread
                box.append((False, exc))
            finally:
                done.set()

        threading.Thread(target=target, name="fayshell-query", daemon=True).start()
        while not done.wait(INTERRUPT_POLL_S):
            if self.hit:
                self.con.interrupt()
        ok, value = box[0]
        if self.hit:
            raise Interrupted()
        if not ok:
            raise value if isinstance(value, FayError) else sql_error(value)
        return value


class ConnectionLent(RuntimeError):
    """The connection was used by a thread other than the one it is lent to (a bug)."""


class Database:
    """A DuckDB file (or ``:memory:``) with a lock so several tasks can share it.

    The store's background writer borrows the connection (``lend``): until it gives it back,
    ``con`` raises :class:`ConnectionLent` in every other thread instead of racing with it.

    ``schema_ready`` (the store's fixed tables were ensured on this connection), ``catalog``
    (the loader's knowledge of names, payload tables and columns) and ``loaded_chunks`` spare
    every chunk's import a catalog read and a scan of ``chunks``; :meth:`schema_changed`
    forgets them, as a user statement that may change the schema (``relation`` of a DDL
    statement) does. ``new``: the file did not exist when it was opened, and no statement that
    may change the schema has run since, so it holds no table of an older version of the store.
    """

    def __init__(self, path: str, con: duckdb.DuckDBPyConnection, new: bool = False) -> None:
        self.path = path
        self.new = new
        self.lock = threading.RLock()
        self._con = con
        self._borrower: threading.Thread | None = None
        self._pending: PendingWrites | None = None
        self.schema_ready = False
        self.catalog: Any = None
        self.loaded_chunks = LoadedChunks()
        #: Statements on other cursors against the memory limit lowered (fayshell.store.evict).
        self.pool_gate = PoolGate()

    def schema_changed(self) -> None:
        """Forget what is known of the schema: the next import checks and reads it again."""
        self.schema_ready = self.new = False
        self.catalog = None
        self.loaded_chunks = LoadedChunks()

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The connection, for the thread allowed to use it now."""
        borrower = self._borrower
        if borrower is not None and borrower is not threading.current_thread():
            raise ConnectionLent(
                f"the database connection is lent to thread {borrower.name!r}; "
                f"{threading.current_thread().name!r} must wait for it"
            )
        return self._con

    @property
    def raw(self) -> duckdb.DuckDBPyConnection:
        """The connection without the loan check: for the pending writer, which holds
        ``lock`` and runs only while no thread borrows the connection."""
        return self._con

    @property
    def pending(self) -> PendingWrites:
        """The chunk written in the background, if any (see fayshell.store.pending)."""
        if self._pending is None:
            from fayshell.store.pending import PendingWrites

            self._pending = PendingWrites(self)
        return self._pending

    @property
    def has_pending(self) -> bool:
        """Whether a chunk is (or was, until ``wait_pending``) written in the background."""
        return self._pending is not None and self._pending.busy

    @property
    def held_write(self) -> int | None:
        """The number of a published chunk whose background write waits for
        ``start_pending`` (LoadSettings.hold_write), else None."""
        return None if self._pending is None else self._pending.held

    def start_pending(self) -> None:
        """Start the background write of a held chunk (nothing when none is held)."""
        if self._pending is not None:
            self._pending.start()

    def wait_pending(self) -> None:
        """Block until a chunk written in the background is on disk, starting its write if it
        was held (never call it holding ``lock``: the writer needs it to commit)."""
        if self._pending is not None:
            self._pending.wait()

    def lend(self, thread: threading.Thread) -> None:
        """From now on only ``thread`` may use the connection (lent by a thread allowed to)."""
        _ = self.con
        self._borrower = thread

    def take_back(self, thread: threading.Thread) -> None:
        """End the loan to ``thread`` (which has finished: the lender joined it)."""
        if thread.is_alive() or self._borrower is not thread:
            raise ConnectionLent(f"cannot take the connection back from {thread.name!r}")
        self._borrower = None

    @classmethod
    def open(cls, path: str) -> Database:
        import duckdb

        new = False
        if path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            path = str(Path(path).expanduser())
            new = not Path(path).exists()
        try:
            con = duckdb.connect(path)
        except Exception as exc:  # duckdb raises its own IOException/ConnectionException types
            raise StoreError(f"cannot open database {path}: {sql_error(exc).message}") from None
        return cls(path, con, new)

    def relation(self, sql: str) -> Relation:
        """A lazy relation over ``sql``; nothing runs until it is fetched."""
        from fayshell.store.relation import Relation

        if _may_change_schema(sql):
            self.schema_changed()
        return Relation(self, sql)

    def execute(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """Run a statement and fetch all rows; DuckDB errors become :class:`SqlError`."""
        if self.new and _may_change_schema(sql):
            self.new = False
        with self.lock:
            con = self.con
            return interruptible(con, lambda: con.execute(sql, params or []).fetchall())

    def columns_of(self, sql: str) -> list[str]:
        """Column names of a query without running it."""
        with self.lock:
            con = self.con
            try:
                return list(con.sql(sql).columns)
            except Exception as exc:
                raise sql_error(exc) from None

    def schema_of(self, sql: str) -> dict[str, str]:
        """Column names and DuckDB type names of a query without running it."""
        with self.lock:
            con = self.con
            try:
                rel = con.sql(sql)
                return {name: str(t) for name, t in zip(rel.columns, rel.types, strict=True)}
            except Exception as exc:
                raise sql_error(exc) from None

    def current_name(self) -> str:
        """The name of the database the connection uses now (the file's stem, unless a user
        statement switched to another: asked each time, not kept)."""
        return str(self.execute("SELECT current_database()")[0][0])

    def tables(self) -> list[str]:
        rows = self.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'main' AND table_catalog = current_database() "
            "ORDER BY table_name"
        )
        return [r[0] for r in rows]

    def table_columns(self) -> dict[str, list[str]]:
        """Every table and view with its columns, for completion after ``sql``."""
        rows = self.execute(  # information_schema.columns, without its joins
            "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' "
            "AND database_name <> 'system' ORDER BY table_name, column_index"
        )
        out: dict[str, list[str]] = {}
        for table, column in rows:
            cols = out.setdefault(table, [])
            if column not in cols:  # a table and the temporary view of a pending chunk
                cols.append(column)
        return out

    def close(self) -> None:
        """Wait for a pending write, then close (a failed write raises StoreError after the
        connection is closed)."""
        try:
            self.wait_pending()
        finally:
            with self.lock:
                self.con.close()
