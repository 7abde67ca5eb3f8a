"""The DuckDB schema of the trace store: fixed tables, their help text, and severity mapping."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fayshell.store.database import Database

#: Columns every row of ``events`` has; stream context columns are added as traces bring them.
EVENT_BASE_COLUMNS = ("node", "session", "chunk_id", "stream_id", "cpu", "ts", "name", "eid")

#: Columns of ``event_rows`` (the narrow table behind the ``events`` view) before the context.
EVENT_ROW_COLUMNS = ("chunk_no", "stream_id", "cpu", "ts", "class_id", "eid")

SCHEMA = """
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id VARCHAR, node VARCHAR, session VARCHAR, path VARCHAR, bytes BIGINT, events BIGINT,
    discarded BIGINT, lost_packets BIGINT, first_ts BIGINT, last_ts BIGINT, loaded_at TIMESTAMP,
    domain VARCHAR, errors INTEGER);
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS chunk_no INTEGER;
CREATE TABLE IF NOT EXISTS event_rows (
    chunk_no INTEGER, stream_id INTEGER, cpu INTEGER, ts BIGINT, class_id INTEGER, eid BIGINT);
CREATE TABLE IF NOT EXISTS event_names (class_id INTEGER PRIMARY KEY, name VARCHAR UNIQUE);
CREATE TABLE IF NOT EXISTS event_classes (
    name VARCHAR, domain VARCHAR, loglevel INTEGER, table_name VARCHAR, PRIMARY KEY (name, domain));
CREATE TABLE IF NOT EXISTS store_state (next_eid BIGINT);
CREATE TABLE IF NOT EXISTS syscalls (
    node VARCHAR, session VARCHAR, cpu INTEGER, tid BIGINT, pid BIGINT, procname VARCHAR,
    name VARCHAR, ts_entry BIGINT, ts_exit BIGINT, dur_ns BIGINT, ret BIGINT);
CREATE TABLE IF NOT EXISTS pending_syscalls (
    node VARCHAR, session VARCHAR, cpu INTEGER, tid BIGINT, pid BIGINT, procname VARCHAR,
    name VARCHAR, ts BIGINT);
CREATE TABLE IF NOT EXISTS syscalls_mark (next_rowid BIGINT);
CREATE TABLE IF NOT EXISTS cpu_state (
    node VARCHAR, session VARCHAR, cpu INTEGER, tid BIGINT, procname VARCHAR, ts BIGINT);
CREATE TABLE IF NOT EXISTS threads (
    node VARCHAR, session VARCHAR, tid BIGINT, pid BIGINT, procname VARCHAR, ts BIGINT);
CREATE TABLE IF NOT EXISTS spans (
    node VARCHAR, session VARCHAR, trace_id BIGINT, span_id BIGINT, parent_span_id BIGINT,
    service VARCHAR, ip VARCHAR, port INTEGER, name VARCHAR, ts_start BIGINT, ts_end BIGINT,
    dur_ns BIGINT, client_dur_ns BIGINT, server_dur_ns BIGINT,
    annotations STRUCT(ts BIGINT, value VARCHAR)[], keyvals MAP(VARCHAR, VARCHAR),
    error BOOLEAN);
ALTER TABLE spans ADD COLUMN IF NOT EXISTS chunk_no INTEGER;
CREATE TABLE IF NOT EXISTS logs (
    node VARCHAR, session VARCHAR, ts BIGINT, domain VARCHAR, logger VARCHAR, level INTEGER,
    severity VARCHAR, msg VARCHAR, func VARCHAR, line INTEGER, thread VARCHAR, pid BIGINT,
    procname VARCHAR);
"""

ABOUT_TABLES = """\
ABOUT_TABLES

  Import-Trace loads CTF traces (LTTng) into the session's DuckDB database. Timestamps are
  BIGINT nanoseconds since the epoch, with the trace clock's offset applied.

  chunks       one row per loaded trace chunk (a directory holding a `metadata` file):
               chunk_id, node, session, path, bytes, events, discarded (events the tracer
               dropped, from events_discarded), lost_packets (gaps in packet_seq_num),
               first_ts, last_ts, loaded_at, domain, errors (damaged stream files).
               chunk_id is a digest of the chunk's content: importing it again is a no-op.
  events       every event, common columns only: node, session, chunk_id, stream_id, cpu, ts,
               name (the event class name as babeltrace2 prints it), eid (unique event id),
               plus the stream event context of the trace (vtid, vpid, procname, ...).
               A view: the rows are stored narrow in event_rows (chunk_no, stream_id, cpu, ts,
               class_id, eid, context), names in event_names(class_id, name), and node,
               session, chunk_id come from chunks (by chunk_no).
  ev_<class>   the typed payload of one event class, one row per event, joined to events by
               eid; e.g. ev_sched_switch(eid, prev_comm, prev_tid, ...), ev_zipkin_timestamp.
               Field names lose their CTF leading underscore; arrays are LIST columns.
  event_classes  name, domain, loglevel and table_name of every event class seen.
  syscalls     kernel syscall_entry_*/syscall_exit_* (also compat_* and the older sys_* /
               exit_syscall) paired per thread: node, session, cpu, tid, pid, procname, name
               (without prefix, e.g. read), ts_entry, ts_exit, dur_ns, ret. Without a tid
               context the running thread of each CPU comes from sched_switch; pid from the
               statedump and fork events. A pair split over two chunks is completed when the
               second chunk is imported (pending_syscalls holds the open entries).
  spans        BlkKin (zipkin:*) events grouped by (session, trace_id, span_id): node, service,
               ip, port, name, ts_start, ts_end, dur_ns, client_dur_ns (cr - cs),
               server_dur_ns (ss - sr), annotations LIST(STRUCT(ts, value)), keyvals MAP,
               parent_span_id, error (a keyval named 'error' exists), chunk_no (the
               import that built the row). Recomputed whenever a chunk brings more events
               of the span.
  logs         lttng_python:event, lttng_jul:event, lttng_log4j:event, and userspace events
               declared with a log level more severe than TRACE_DEBUG_LINE (zipkin excluded):
               node, session, ts, domain, logger, level (raw), severity (Emergency, Alert,
               Critical, Error, Warning, Notice, Info, Debug), msg, func, line, thread, pid,
               procname.

EXAMPLES

  Import-Trace ./traces/incident -Node web01
  Get-Syscall -Name read | Sort-Object dur_ns -Descending | Select-Object -First 10
  sql SELECT name, sum(dur_ns) FROM syscalls GROUP BY name ORDER BY 2 DESC LIMIT 10
  sql SELECT e.ts, p.* FROM events e JOIN ev_sched_switch p USING (eid) LIMIT 5
"""


def ensure_schema(db: Database) -> None:
    """Create the store's fixed tables (and the ``events`` view) if they do not exist yet:
    once per database connection (``db.schema_ready``; ``db.schema_changed()`` asks again)."""
    if db.schema_ready:
        return
    with db.lock:  # checked under the lock: another thread's import may publish meanwhile
        if db.has_pending:  # a chunk is being written, so the schema is there; the names
            return  # of the tables it feeds are temporary views until it is written
        fresh = db.new
        db.execute(SCHEMA)
        if not db.execute("SELECT count(*) FROM store_state")[0][0]:
            db.execute("INSERT INTO store_state VALUES (0)")
        if not db.execute("SELECT count(*) FROM syscalls_mark")[0][0]:
            # set while a load runs: its syscalls rows start at this rowid (derived.py)
            db.execute("INSERT INTO syscalls_mark VALUES (NULL)")
        kind = None if fresh else _events_kind(db)
        if kind == "BASE TABLE":
            from fayshell.store.migrate import events_table_to_rows

            events_table_to_rows(db)
        if kind in (None, "BASE TABLE"):
            refresh_events_view(db)
        db.schema_ready = True


def _events_kind(db: Database) -> str | None:
    """What ``events`` is (``information_schema.tables.table_type``): a ``VIEW`` (this
    store's), a ``BASE TABLE`` (an older store's, to migrate) or None. (The first catalog
    query of a process takes 13-23 ms; a database that did not exist before it was opened is
    spared it.)"""
    kind = db.execute(
        "SELECT table_type FROM information_schema.tables "
        "WHERE table_schema = 'main' AND table_name = 'events'"
    )
    return str(kind[0][0]) if kind else None


def context_columns(db: Database) -> list[str]:
    """The stream context columns of the stored ``event_rows`` (not of the temporary view of
    a pending chunk), in table order. (``pragma_table_info`` of one table: 1-2 ms in a fresh
    process, where a query of ``duckdb_columns()`` took 9-16 ms.)"""
    from fayshell.store.relation import quote_ident, quote_literal

    table = quote_literal(f"{quote_ident(db.current_name())}.main.event_rows")
    rows = db.execute(f"SELECT name FROM pragma_table_info({table}) ORDER BY cid")
    return [r[0] for r in rows if r[0] not in EVENT_ROW_COLUMNS]


def refresh_events_view(db: Database) -> None:
    """(Re)create the ``events`` view over event_rows, event_names and chunks."""
    from fayshell.store.arrowsql import q

    extra = "".join(f", r.{q(c)}" for c in context_columns(db))
    db.execute(
        "CREATE OR REPLACE VIEW events AS SELECT c.node, c.session, c.chunk_id, "
        f"r.stream_id, r.cpu, r.ts, n.name, r.eid{extra} FROM event_rows r "
        "JOIN event_names n ON n.class_id = r.class_id "
        "LEFT JOIN chunks c ON c.chunk_no = r.chunk_no"
    )


def payload_table_name(event_name: str) -> str:
    """``ev_`` plus the event class name made into a plain identifier."""
    out = "".join(ch if ch.isalnum() else "_" for ch in event_name.lower())
    return "ev_" + out.strip("_")
