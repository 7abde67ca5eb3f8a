"""One flush at a time on a background thread, so decoding and staging go on while DuckDB
writes the previous batch. The caller must not touch the connection until ``wait()``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fayshell.store.arrowsql import q

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa


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
        con.register("fay_batch", self.data)
        try:
            con.execute(f"INSERT INTO {q(self.table)} BY NAME SELECT {self.select} "
                        "FROM fay_batch", self.params)
        finally:
            con.unregister("fay_batch")


class FlushWriter:
    """Runs submitted jobs one after another on a worker thread; errors surface at ``wait()``."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def submit(self, job: Callable[[], None]) -> None:
        """Wait for the previous job, then start ``job`` in the background."""
        self.wait()
        self._thread = threading.Thread(target=self._run, args=(job,), name="store-flush",
                                        daemon=True)
        self._thread.start()

    def _run(self, job: Callable[[], None]) -> None:
        try:
            job()
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
            self._thread = None


#: Rows in a DuckDB row group. A transaction's appends are written straight to the database
#: file one full row group at a time; what is left goes through the WAL and is written again
#: by the next checkpoint, so each flush appends whole row groups and holds the remainder.
ROW_GROUP = 122_880
#: Bytes held back over all tables; past this, a flush writes everything (bounded memory).
HOLD_BYTES = 64 << 20


@dataclass
class RowGroupHold:
    """Inserts of a load, grouped by target, released in whole row groups."""

    held: dict[tuple[str, str, tuple[Any, ...]], list[pa.Table]] = field(default_factory=dict)

    def add(self, ins: Insert) -> None:
        if ins.data.num_rows:
            key = (ins.table, ins.select, tuple(ins.params))
            self.held.setdefault(key, []).append(_plain(ins.data))

    def take(self, final: bool = False) -> list[Insert]:
        """Inserts of whole row groups (everything when ``final`` or when too much is held)."""
        import pyarrow as pa

        sizes = {k: sum(t.num_rows for t in parts) for k, parts in self.held.items()}
        everything = final or sum(
            t.nbytes * (sizes[k] % ROW_GROUP) // max(sizes[k], 1)
            for k, parts in self.held.items() for t in parts) > HOLD_BYTES
        out: list[Insert] = []
        for key, parts in list(self.held.items()):
            data = pa.concat_tables(parts, promote_options="permissive")
            n = data.num_rows if everything else sizes[key] // ROW_GROUP * ROW_GROUP
            if n:
                out.append(Insert(key[0], data.slice(0, n), key[1], list(key[2])))
            if n < data.num_rows:     # a compact copy: a slice would pin whole batches
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
    cols = [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c
            for c in table.columns]
    return pa.table(cols, names=table.column_names)
