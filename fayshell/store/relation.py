"""A lazy DuckDB query that pipeline cmdlets refine by wrapping its SQL.

A :class:`Relation` is the value a pipeline carries while it can stay inside DuckDB: each
pipeline cmdlet wraps the SQL in one more ``SELECT … FROM (…)`` and DuckDB's optimizer flattens
the nesting, so the whole pipeline runs as one query. Rows come out only when something needs
Python objects (rendering, a row-wise fallback).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fayshell.store.cursors import new_cursor
from fayshell.store.database import interruptible, sql_error

if TYPE_CHECKING:
    from fayshell.store.database import Database


def quote_ident(name: str) -> str:
    """A SQL identifier, double-quoted with embedded quotes doubled."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    """A SQL string literal, single-quoted with embedded quotes doubled."""
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class Relation:
    """SQL text bound to the database it runs on."""

    db: Database
    sql: str

    def columns(self) -> list[str]:
        return self.db.columns_of(self.sql)

    def schema(self) -> dict[str, str]:
        """Column name -> DuckDB type name."""
        return self.db.schema_of(self.sql)

    def wrap(self, select: str = "*", tail: str = "") -> Relation:
        """``SELECT <select> FROM (<this>) AS _r <tail>`` as a new relation."""
        return Relation(self.db, f"SELECT {select} FROM ({self.sql}) AS _r {tail}".rstrip())

    def fetch(self) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run the query: column names and all rows."""
        with self.db.lock:
            con = self.db.con
            return interruptible(con, lambda: _fetch_all(con.execute(self.sql)))

    def iter_records(self, batch: int = 4096) -> Iterator[dict[str, Any]]:
        """Rows as dicts, fetched in batches on a cursor of their own; while a chunk is written
        in the background all at once on the database's connection (a cursor is another
        connection, which sees that chunk only once it is written)."""
        if self.db.has_pending:
            names, rows = self.fetch()
            yield from (dict(zip(names, row, strict=True)) for row in rows)
            return
        try:
            cur = new_cursor(self.db)
        except Exception as exc:
            raise sql_error(exc) from None
        gate = self.db.pool_gate  # around each call, not the pauses between batches
        try:
            with gate.statements():
                interruptible(cur, lambda: cur.execute(self.sql))
            names = [d[0] for d in cur.description or []]
            while True:
                with gate.statements():
                    rows = interruptible(cur, lambda: cur.fetchmany(batch))
                if not rows:
                    return
                for row in rows:
                    yield dict(zip(names, row, strict=True))
        finally:
            cur.close()

    def records(self) -> list[dict[str, Any]]:
        names, rows = self.fetch()
        return [dict(zip(names, row, strict=True)) for row in rows]

    def scalar(self) -> Any:
        _, rows = self.fetch()
        return rows[0][0] if rows and rows[0] else None


def _fetch_all(cur: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
    return [d[0] for d in cur.description or []], cur.fetchall()
