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
