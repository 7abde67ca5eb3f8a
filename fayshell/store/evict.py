"""Dead entries of DuckDB's buffer-pool eviction queues, and emptying them (issue 14).

Every time DuckDB unpins a buffer it appends an entry to an eviction queue and never removes
the older entry of the same buffer; a buffer that is freed leaves its entry behind too. Such
a dead entry keeps the freed buffer's bookkeeping (its BlockHandle) allocated on the C heap,
outside ``duckdb_memory()``. DuckDB removes dead entries only when it evicts (the pool is
short of memory) or when a queue passes 32,768 entries (a purge that stops early while a
queue holds many live entries), so under a roomy memory limit a live view's small imports
(about 46 dead entries each, 8 imports a second on 8 nodes) left up to ~140,000 of them in
an 8-minute bench/soak.py. Bounding them took its RSS slope after warm-up from +4.5 to
+3.0 MiB/min and its end RSS from 277 to 217 MiB: part of the growth, not all of it.
DuckDB 2.0.1 behaves the same (bench/evict_repro.py under both).

DuckDB has no statement that purges the queues. Asking for a memory limit it cannot reach
does: it walks every queue to its end, dropping dead entries and evicting what it can, then
refuses the limit and keeps the one it had (``BufferPool::SetLimit``). Evicting means what any
memory pressure means: cached file blocks are dropped (read again when needed) and appended
rows not yet checkpointed move to the temporary file (read back when needed); nothing held by
a running query is touched. The limit is low for a moment only, and only while no statement
runs on another cursor (fayshell.store.poolgate): one that allocated then would fail.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fayshell.store.database import Database

#: The limit asked for: no pool can hold its blocks in none, so DuckDB walks every queue.
UNREACHABLE_LIMIT = "0B"


def dead_entries(db: Database) -> int:
    """Dead entries in DuckDB's eviction queues now (duckdb_eviction_queues())."""
    rows = db.execute("SELECT sum(dead_nodes) FROM duckdb_eviction_queues()")
    return int(rows[0][0] or 0)


def shrink_pool(db: Database, limit: str) -> bool:
    """Evict DuckDB's buffer pool down to ``limit`` by setting it as the memory limit, then
    set back the limit shown before; when DuckDB refuses it (what it could not evict is
    pinned), it keeps its limit, having evicted what it could. False, with nothing done,
    when a statement runs on another cursor (fayshell.store.poolgate): the next import
    tries again. Holds the database's lock; call it off the event loop."""
    import duckdb

    from fayshell.store.loader import exact_size
    from fayshell.store.relation import quote_literal

    with db.lock, db.pool_gate.alone() as alone:
        if not alone:
            return False
        con = db.con
        shown = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        try:
            con.execute(f"SET memory_limit = {quote_literal(limit)}")
        except duckdb.OutOfMemoryException:
            return True  # refused: the limit was never changed
        con.execute(f"SET memory_limit = {quote_literal(exact_size(shown))}")
        return True


def empty_eviction_queues(db: Database) -> bool:
    """Walk every eviction queue to its end (see the module docstring); the memory limit is
    the same after as before. False when it was not done (see :func:`shrink_pool`)."""
    return shrink_pool(db, UNREACHABLE_LIMIT)


def keep_queues_short(db: Database, max_dead: int) -> bool:
    """Empty the eviction queues when they hold more than ``max_dead`` dead entries; True
    when they were emptied."""
    return dead_entries(db) > max_dead and empty_eviction_queues(db)
