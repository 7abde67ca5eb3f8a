"""Which chunks the store holds, kept across loads so that a chunk's load does not scan the
whole ``chunks`` table (one row per chunk: a live view over 8 nodes rotating every second adds
28,800 an hour, and the scan made every load slower as the incident went on).

Chunk numbers only grow (a load takes max(chunk_no) + 1), so each check reads only the rows
numbered after the last one seen; when the table's row count does not add up (rows deleted or
renumbered by a user's statement), every id is read again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Runs one SQL statement with parameters and returns its rows (``Database.execute``).
Query = Callable[[str, list[Any]], list[tuple[Any, ...]]]


@dataclass
class LoadedChunks:
    """The chunk ids of ``chunks`` as of the last :meth:`update`."""

    ids: set[str] = field(default_factory=set)
    rows: int = 0  # rows of ``chunks`` that ``ids`` reflects
    last_no: int = 0  # the highest chunk_no among them (0: none numbered)

    def update(self, query: Query, rows: int, last_no: int) -> None:
        """Catch up with ``chunks``, which now has ``rows`` rows numbered up to ``last_no``."""
        if (rows, last_no) == (self.rows, self.last_no):
            return
        if rows >= self.rows and last_no >= self.last_no:
            new = query("SELECT chunk_id FROM chunks WHERE chunk_no > ?", [self.last_no])
            if self.rows + len(new) == rows:
                self.ids.update(cid for (cid,) in new)
                self.rows, self.last_no = rows, last_no
                return
        self.ids = {cid for (cid,) in query("SELECT chunk_id FROM chunks", [])}
        self.rows, self.last_no = rows, last_no

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self.ids
