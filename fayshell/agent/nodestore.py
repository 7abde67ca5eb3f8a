"""The agent's node-local store: the same DuckDB schema and loader as the shell's store.

Import is incremental and idempotent (the loader skips chunks already in ``chunks``); queries
are single SELECT statements only, so no request can change or drop what was imported.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.errors import FayError, SqlError

if TYPE_CHECKING:
    from fayshell.store.database import Database
    from fayshell.store.loader import ImportResult

#: Query relations a store keeps (see NodeStore.query).
MAX_RELATIONS = 64


@dataclass
class NodeStore:
    """The node's DuckDB file, opened once per agent."""

    db: Database
    raw: Any = None  # the connection itself, for interrupt() from the stdin thread
    #: (root, session, node) -> (listing signature, chunks): an unchanged session directory
    #: is not looked at again (a query asks for an import first, every time).
    seen: dict[tuple[str, str, str], tuple[int, int]] = field(default_factory=dict)
    #: Chunks loaded without error, by (root, session, node, chunk id, its files and sizes): a
    #: finished chunk does not change, so a live view's import every second opens only the new
    #: ones (opening one parses its metadata and reads its streams' heads and tails).
    #: The value: how many traces (domain directories) the chunk held.
    loaded: dict[tuple[Any, ...], int] = field(default_factory=dict)
    #: Queries get one DuckDB thread per this many stored rows (at least one, at most the
    #: node's cores): a small store answers as fast on one thread, without waking others, and
    #: many agents (or the node's own work) share the cores. Imports use every core.
    rows_per_thread: int = 1 << 20
    threads: int = 0  # the query threads set now (0: DuckDB's default, every core)
    relations: dict[str, Any] = field(default_factory=dict)  # SELECT text -> its relation

    @classmethod
    def open(cls, path: Path) -> NodeStore:
        from fayshell.store.database import Database
        from fayshell.store.schema import ensure_schema

        db = Database.open(str(path))
        db.execute("SET enable_progress_bar = false")
        ensure_schema(db)
        store = cls(db, db.con)
        store.fit_threads()
        return store

    def fit_threads(self) -> None:
        """Set the query threads for the rows stored now (see ``rows_per_thread``)."""
        with self.db.lock:
            ((rows,),) = self.db.con.execute(
                "SELECT coalesce(sum(estimated_size), 0) FROM duckdb_tables() "
                "WHERE database_name = current_database()"
            ).fetchall()
            n = max(1, min(os.cpu_count() or 1, int(rows) // self.rows_per_thread))
            if n != self.threads:
                self.db.con.execute(f"SET threads = {n}").fetchall()
                self.threads = n

    def all_threads(self) -> None:
        """DuckDB's default threads (every core), for an import."""
        if self.threads:
            with self.db.lock:
                self.db.con.execute("RESET threads").fetchall()
            self.threads = 0

    def import_session(self, root: Path, session: str, node: str, stopped: bool) -> ImportResult:
        """Load the finished chunks of a session's output directory (archives, snapshots, and
        the top-level trace once the session is stopped)."""
        from fayshell.lttng.chunks import find_chunks, list_local
        from fayshell.store.loader import ImportResult, import_trace

        if not root.is_dir():
            raise FayError(f"{root}: no such session directory")
        entries = list_local(str(root))
        key, sig = (str(root), session, node), hash((tuple(entries), stopped))
        if key in self.seen and self.seen[key][0] == sig:
            return ImportResult(chunks_skipped=self.seen[key][1])
        total = ImportResult()
        complete = find_chunks(entries, stopped=stopped).complete
        loading = False  # DuckDB's threads are set back to every core for a load
        try:
            for chunk in complete:
                mark = (str(root), session, node, chunk.chunk_id, chunk.files)
                if chunk.empty:
                    continue
                if mark in self.loaded:
                    total.chunks_skipped += self.loaded[mark]
                    continue
                if not loading:
                    loading = True
                    self.relations.clear()  # bound to the tables as they were
                    self.all_threads()
                part = ImportResult()
                for path in chunk_dirs(root, chunk.path, chunk.domains):
                    part.merge(import_trace(self.db, path, node=node, session=session))
                if not part.errors:
                    self.loaded[mark] = part.chunks_loaded + part.chunks_skipped
                total.merge(part)
        finally:
            if loading:
                self.fit_threads()
        if not total.errors:
            self.seen[key] = (sig, len(complete))
        return total

    def query(self, sql: str) -> Any:
        """A pyarrow Table: the answer of one SELECT. The shell asks the same questions again
        and again: a query's relation is kept and read again (checked, parsed and bound once)
        until an import may have changed the tables."""
        with self.db.lock:
            rel = self.relations.get(sql)
            try:
                if rel is None:
                    check_select(sql)
                    rel = self.db.con.sql(sql)
                table = rel.to_arrow_table()
            except SqlError:
                raise
            except Exception as exc:
                from fayshell.store.database import sql_error

                raise sql_error(exc) from None
            if len(self.relations) >= MAX_RELATIONS:
                self.relations.clear()
            self.relations[sql] = rel
            return table

    def interrupt(self) -> None:
        self.raw.interrupt()  # any thread, even while the loader's writer holds db.con

    def close(self) -> None:
        self.db.close()


def chunk_dirs(root: Path, rel: str, domains: tuple[str, ...]) -> list[Path]:
    """The trace directories of a chunk: one per domain (a chunk holds ust/ and kernel/)."""
    base = root / rel if rel else root
    return [base / d for d in domains] or [base]


def check_select(sql: str) -> None:
    """Refuse anything but exactly one SELECT (or a query starting WITH/FROM/VALUES)."""
    import duckdb

    try:
        stmts = duckdb.extract_statements(sql)
    except Exception as exc:
        from fayshell.store.database import sql_error

        raise sql_error(exc) from None
    if len(stmts) != 1 or stmts[0].type != duckdb.StatementType.SELECT:
        kinds = ", ".join(s.type.name for s in stmts) or "nothing"
        raise SqlError(f"the agent runs exactly one SELECT query (got {kinds})")
