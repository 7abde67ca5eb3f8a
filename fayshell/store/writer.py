"""One flush at a time on a background thread, so decoding and staging go on while DuckDB
writes the previous batch. The database lends its connection to that thread for the job
(``Database.lend``): until ``wait()`` any other thread's use of ``db.con`` raises."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fayshell.store.arrowsql import q
from fayshell.store.database import registered

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

    from fayshell.store.database import Database
    from fayshell.store.settings import LoadSettings

#: A job of the writer thread: it gets the connection, lent to that thread alone.
Job = Callable[["duckdb.DuckDBPyConnection"], None]


@dataclass
class Insert:
    """One bulk INSERT of an Arrow table: ``INSERT INTO table BY NAME SELECT select FROM it``."""

    table: str
    data: pa.Table
    select: str = "*"
    params: list[Any] = field(default_factory=list)

    def run(self, con: duckdb.DuckDBPyConnection) -> None:
        if not self.data.num_rows:
            return
        with registered(con, fay_batch=self.data):
            con.execute(
                f"INSERT INTO {q(self.table)} BY NAME SELECT {self.select} FROM fay_batch",
                self.params,
            )


class FlushWriter:
    """Runs submitted jobs one after another on a worker thread that borrows ``db``'s
    connection while it runs; errors surface at ``wait()``."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def submit(self, job: Job) -> None:
        """Wait for the previous job, then start ``job`` in the background."""
        self.wait()
        thread = threading.Thread(target=self._run, args=(job,), name="store-flush", daemon=True)
        self._db.lend(thread)
        self._thread = thread
        thread.start()

    def _run(self, job: Job) -> None:
        try:
            job(self._db.con)
        except BaseException as exc:  # re-raised by wait() in the caller's thread
            self._error = exc

    def wait(self) -> None:
        """Block until the running job is done; re-raise what it raised."""
        self.drain()
        err, self._error = self._error, None
        if err is not None:
            raise err

    def drain(self) -> None:
        """Block until the running job is done, keeping (not raising) its error."""
        if self._thread is not None:
            self._thread.join()
            self._db.take_back(self._thread)
            self._thread = None


@dataclass
class RowGroupHold:
    """Inserts of a load, grouped by target, released in whole row groups of
    ``settings.row_group`` rows (all of them past ``settings.hold_bytes`` held)."""

    settings: LoadSettings
    held: dict[tuple[str, str, tuple[Any, ...]], list[pa.Table]] = field(default_factory=dict)

    def add(self, ins: Insert) -> None:
        if ins.data.num_rows:
            key = (ins.table, ins.select, tuple(ins.params))
            self.held.setdefault(key, []).append(_plain(ins.data))

    def take(self, final: bool = False) -> list[Insert]:
        """Inserts of whole row groups (everything when ``final`` or when too much is held)."""
        import pyarrow as pa

        group = self.settings.row_group
        sizes = {k: sum(t.num_rows for t in parts) for k, parts in self.held.items()}
        everything = (
            final
            or sum(
                t.nbytes * (sizes[k] % group) // max(sizes[k], 1)
                for k, parts in self.held.items()
                for t in parts
            )
            > self.settings.hold_bytes
        )
        out: list[Insert] = []
        for key, parts in list(self.held.items()):
            data = pa.concat_tables(parts, promote_options="permissive")
            n = data.num_rows if everything else sizes[key] // group * group
            if n:
                out.append(Insert(key[0], data.slice(0, n), key[1], list(key[2])))
            if n < data.num_rows:  # a compact copy: a slice would pin whole batches
                self.held[key] = [_copy(data.slice(n))]
            else:
                del self.held[key]
        return out


def _copy(table: pa.Table) -> pa.Table:
    """The rows of ``table`` in buffers of their own (a column's ``combine_chunks`` copies a
    slice; ``Table.combine_chunks`` would keep a one-chunk slice and ``take`` joins every chunk)."""
    import pyarrow as pa

    return pa.table([c.combine_chunks() for c in table.columns], schema=table.schema)


def _plain(table: pa.Table) -> pa.Table:
    """Dictionary columns decoded: parts with different dictionaries do not combine."""
    import pyarrow as pa

    if not any(pa.types.is_dictionary(f.type) for f in table.schema):
        return table
    cols = [
        c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in table.columns
    ]
    return pa.table(cols, names=table.column_names)
