"""Bring a store written by an earlier layout up to date: ``events`` as a wide table becomes
the narrow ``event_rows`` (with ``event_names`` and ``chunks.chunk_no``) behind a view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fayshell.store.arrowsql import q
from fayshell.store.schema import EVENT_BASE_COLUMNS

if TYPE_CHECKING:
    from fayshell.store.database import Database


def events_table_to_rows(db: Database) -> None:
    """Move the rows of a wide ``events`` table into event_rows and drop the table."""
    cols = db.execute(
        "SELECT column_name, data_type FROM duckdb_columns() "
        "WHERE schema_name = 'main' AND table_name = 'events' ORDER BY column_index"
    )
    extra = [(c, t) for c, t in cols if c not in EVENT_BASE_COLUMNS]
    for c, t in extra:
        db.execute(f"ALTER TABLE event_rows ADD COLUMN IF NOT EXISTS {q(c)} {t}")
    db.execute("""
        INSERT INTO chunks (chunk_id, node, session, events)
        SELECT DISTINCT e.chunk_id, e.node, e.session, 0 FROM events e
        WHERE e.chunk_id IS NOT NULL AND e.chunk_id NOT IN (SELECT chunk_id FROM chunks)""")
    db.execute("""
        UPDATE chunks SET chunk_no = n.no FROM (
            SELECT chunk_id, (SELECT coalesce(max(chunk_no), 0) FROM chunks)
                   + row_number() OVER (ORDER BY chunk_id) AS no
            FROM chunks WHERE chunk_no IS NULL) n
        WHERE chunks.chunk_id = n.chunk_id""")
    db.execute("""
        INSERT INTO event_names
        SELECT (SELECT coalesce(max(class_id), 0) FROM event_names)
               + row_number() OVER (ORDER BY name), name
        FROM (SELECT DISTINCT name FROM events WHERE name IS NOT NULL
              AND name NOT IN (SELECT name FROM event_names))""")
    names = ", ".join(q(c) for c, _ in extra)
    sel = ", ".join(f"e.{q(c)}" for c, _ in extra)
    db.execute(f"""
        INSERT INTO event_rows (chunk_no, stream_id, cpu, ts, class_id, eid
                                {", " + names if extra else ""})
        SELECT c.chunk_no, e.stream_id, e.cpu, e.ts, n.class_id, e.eid {", " + sel if extra else ""}
        FROM events e LEFT JOIN chunks c ON c.chunk_id = e.chunk_id
        JOIN event_names n ON n.name = e.name""")
    db.execute("DROP TABLE events")
