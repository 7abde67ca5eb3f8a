"""The session's DuckDB database: open, query, describe. duckdb is imported only here, lazily."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.errors import SqlError, StoreError

if TYPE_CHECKING:
    import duckdb

    from fayshell.store.relation import Relation


def sql_error(exc: Exception) -> SqlError:
    """DuckDB's own message as one line, without the exception class noise."""
    text = str(exc).strip().splitlines()
    return SqlError(" ".join(line.strip() for line in text if line.strip()) or type(exc).__name__)


#: First words of statements that only read (anything else may change what the store knows).
_READ_ONLY = ("select", "with", "from", "values", "table", "describe", "show", "summarize",
              "explain", "(")


def _may_change_schema(sql: str) -> bool:
    """Whether a user statement may create, drop or alter what the store relies on."""
    words = sql.lstrip().split(None, 1)
    return not words or not words[0].lower().startswith(_READ_ONLY)


class ConnectionLent(RuntimeError):
    """The connection was used by a thread other than the one it is lent to (a bug)."""


class Database:
    """A DuckDB file (or ``:memory:``) with a lock so several tasks can share it.

    The store's background writer borrows the connection (``lend``): until it gives it back,
    ``con`` raises :class:`ConnectionLent` in every other thread instead of racing with it.

    ``schema_ready`` (the store's fixed tables were ensured on this connection) and ``catalog``
    (the loader's knowledge of names, payload tables and columns) spare every chunk's import a
    catalog read; :meth:`schema_changed` forgets both, as a user statement that may change the
    schema (``relation`` of a DDL statement) does.
    """

    def __init__(self, path: str, con: duckdb.DuckDBPyConnection) -> None:
        self.path = path
        self.lock = threading.RLock()
        self._con = con
        self._borrower: threading.Thread | None = None
        self.schema_ready = False
        self.catalog: Any = None

    def schema_changed(self) -> None:
        """Forget what is known of the schema: the next import checks and reads it again."""
        self.schema_ready = False
        self.catalog = None

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The connection, for the thread allowed to use it now."""
        borrower = self._borrower
        if borrower is not None and borrower is not threading.current_thread():
            raise ConnectionLent(f"the database connection is lent to thread {borrower.name!r}; "
                                 f"{threading.current_thread().name!r} must wait for it")
        return self._con

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

        if path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            path = str(Path(path).expanduser())
        try:
            con = duckdb.connect(path)
        except Exception as exc:  # duckdb raises its own IOException/ConnectionException types
            raise StoreError(f"cannot open database {path}: {sql_error(exc).message}") from None
        return cls(path, con)

    def relation(self, sql: str) -> Relation:
        """A lazy relation over ``sql``; nothing runs until it is fetched."""
        from fayshell.store.relation import Relation

        if _may_change_schema(sql):
            self.schema_changed()
        return Relation(self, sql)

    def execute(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """Run a statement and fetch all rows; DuckDB errors become :class:`SqlError`."""
        with self.lock:
            con = self.con
            try:
                return con.execute(sql, params or []).fetchall()
            except Exception as exc:
                raise sql_error(exc) from None

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

    def tables(self) -> list[str]:
        rows = self.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'main' ORDER BY table_name")
        return [r[0] for r in rows]

    def table_columns(self) -> dict[str, list[str]]:
        """Every table and view with its columns, for completion after ``sql``."""
        rows = self.execute(      # information_schema.columns, without its joins
            "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' "
            "AND database_name <> 'system' ORDER BY table_name, column_index")
        out: dict[str, list[str]] = {}
        for table, column in rows:
            out.setdefault(table, []).append(column)
        return out

    def close(self) -> None:
        with self.lock:
            self.con.close()
