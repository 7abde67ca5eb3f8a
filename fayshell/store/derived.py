"""Derived tables computed in DuckDB after a chunk's events are in: syscalls, spans, logs.

Each step reads only the new chunk's events (an ``eid`` range) plus the carried-over state of
earlier chunks (pending syscall entries, the running thread of each CPU, spans to complete).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from fayshell.lttng.severity import severity_sql
from fayshell.store.arrowsql import as_bigint, q
from fayshell.store.database import registered
from fayshell.store.kernel import ENTRY_RE, EXIT_RE
from fayshell.store.relation import quote_literal
from fayshell.store.spans import ZIPKIN_ANNOTATION, ZIPKIN_KEYVALS
from fayshell.store.writer import FlushWriter, Insert

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

    from fayshell.store.database import Database
    from fayshell.store.kernel import StagedOutcome
    from fayshell.store.settings import LoadSettings

ZIPKIN = (ZIPKIN_ANNOTATION, *ZIPKIN_KEYVALS)
AGENTS = {"lttng_python:event": "python", "lttng_jul:event": "jul", "lttng_log4j:event": "log4j"}
DEBUG_LINE = 13  # TRACE_DEBUG_LINE, the UST default: not a deliberate log level


@dataclass(kw_only=True)
class ChunkInfo:
    """The chunk just loaded: who, which eid range, which classes, which context columns."""

    node: str
    session: str
    chunk_id: str
    eid_lo: int
    eid_hi: int
    class_names: set[str]
    context: dict[str, str] = field(default_factory=dict)
    tables: dict[str, str] = field(default_factory=dict)
    columns: dict[str, set[str]] = field(default_factory=dict)
    staged: StagedOutcome | None = None  # set: the batches went through the syscall stager
    chunk_no: int = 0

    @property
    def where(self) -> str:
        return f"e.eid BETWEEN {int(self.eid_lo)} AND {int(self.eid_hi)}"

    def ctx(self, *names: str) -> str:
        """The events column of the first context field present among ``names``, or NULL."""
        for n in names:
            if n in self.context:
                return "e." + q(self.context[n])
        return "NULL"

    def col(self, table_of: str, *names: str, default: str = "NULL") -> str:
        """``p.<col>`` for the first payload column present, else ``default``."""
        have = self.columns.get(table_of, set())
        for n in names:
            if n.lower() in have:
                return "p." + q(n)
        return default


def derive_chunk(db: Database, info: ChunkInfo, settings: LoadSettings) -> None:
    """Update syscalls, threads, spans and logs from the chunk's events (``info.tables`` and
    ``info.columns``: its payload tables, from the loader's catalog)."""
    if info.eid_hi < info.eid_lo:
        return
    update_threads(db, info)
    derive_syscalls(db, info)
    db.execute("UPDATE syscalls_mark SET next_rowid = NULL")  # the chunk's rows now count
    derive_spans(db, info, settings)
    derive_logs(db, info)


def update_threads(db: Database, info: ChunkInfo) -> None:
    """tid -> pid/procname facts from statedump and fork events."""
    sources = (
        ("lttng_statedump_process_state", "tid", "pid", "name"),
        ("sched_process_fork", "child_tid", "child_pid", "child_comm"),
    )
    for event, tid, pid, comm in sources:
        t = info.tables.get(event)
        if t is None or not {tid, pid} <= info.columns[t]:
            continue
        db.execute(
            f"INSERT INTO threads SELECT ?, ?, p.{q(tid)}, p.{q(pid)}, {info.col(t, comm)}, e.ts "
            f"FROM event_rows e JOIN {q(t)} p USING (eid) WHERE {info.where}",
            [info.node, info.session],
        )


def _syscall_classes(info: ChunkInfo) -> list[tuple[str, int, str]]:
    out: list[tuple[str, int, str]] = []
    for name in sorted(info.class_names):
        m = ENTRY_RE.match(name)
        if m:
            out.append((name, 1, m.group(1) or m.group(2)))
            continue
        m = EXIT_RE.match(name)
        if m:
            out.append((name, 2, m.group(1) or ""))
    return out


def derive_syscalls(db: Database, info: ChunkInfo) -> None:
    """Pair entries and exits per thread into ``syscalls``; keep open entries pending."""
    if info.staged is not None:
        if info.staged.ok:
            staged_syscalls(db, info, info.staged)
            return
        discard_staged(db, info.staged)
    classes = _syscall_classes(info)
    if not classes:
        return
    names = ", ".join(f"({_lit(n)}, {k}, {_lit(s)})" for n, k, s in classes)
    if "sched_switch" in info.tables:
        names += ", ('sched_switch', 0, NULL)"
    exits = [
        f"SELECT eid, CAST(ret AS BIGINT) AS ret FROM {q(info.tables[n])} "
        f"WHERE eid BETWEEN {info.eid_lo} AND {info.eid_hi}"
        for n, k, _ in classes
        if k == 2 and "ret" in info.columns[info.tables[n]]
    ]
    ret_join = (
        f"LEFT JOIN ({' UNION ALL '.join(exits)}) r ON r.eid = e.eid"
        if exits
        else "LEFT JOIN (SELECT NULL::BIGINT AS eid, NULL::BIGINT AS ret) r ON false"
    )
    sw = info.tables.get("sched_switch")
    sw_join = (
        f"LEFT JOIN {q(sw)} s ON s.eid = e.eid"
        if sw
        else "LEFT JOIN (SELECT NULL::BIGINT AS eid, NULL::BIGINT AS next_tid, "
        "NULL::VARCHAR AS next_comm) s ON false"
    )
    db.execute("DROP TABLE IF EXISTS fay_k")
    db.execute(f"""
        CREATE TEMP TABLE fay_k AS
        SELECT e.eid, e.cpu, e.ts, c.kind, c.sysname, r.ret,
               CAST(s.next_tid AS BIGINT) AS next_tid, CAST(s.next_comm AS VARCHAR) AS next_comm,
               CAST({info.ctx("tid", "vtid")} AS BIGINT) AS ctx_tid,
               CAST({info.ctx("pid", "vpid")} AS BIGINT) AS ctx_pid,
               CAST({info.ctx("procname")} AS VARCHAR) AS ctx_procname
        FROM events e
        JOIN (VALUES {names}) c(name, kind, sysname) ON c.name = e.name
        {sw_join} {ret_join}
        WHERE {info.where}""")
    params = [info.node, info.session]
    db.execute(_PAIR_SQL, params * 2)
    db.execute(_INSERT_SQL, params)
    db.execute("DELETE FROM pending_syscalls WHERE node = ? AND session = ?", params)
    db.execute(_PENDING_SQL, params)
    db.execute(
        """
        INSERT INTO cpu_state
        SELECT ?, ?, cpu, arg_max(next_tid, ts), arg_max(next_comm, ts), max(ts)
        FROM fay_k WHERE kind = 0 GROUP BY cpu""",
        params,
    )
    db.execute(
        """
        DELETE FROM cpu_state c WHERE node = ? AND session = ? AND ts < (
            SELECT max(ts) FROM cpu_state d
            WHERE d.node = c.node AND d.session = c.session AND d.cpu = c.cpu)""",
        params,
    )
    db.execute("DROP TABLE IF EXISTS fay_k")
    db.execute("DROP TABLE IF EXISTS fay_paired")


def staged_syscalls(db: Database, info: ChunkInfo, staged: StagedOutcome) -> None:
    """Finish the pairing staged by fayshell.store.kernel: local pairs that need ``threads``
    for their procname, pairs across runs, open entries, and pids learnt late in the chunk."""
    params = [info.node, info.session]
    db.execute(
        _THREADS_CTE
        + """
        INSERT INTO syscalls
        SELECT $1, $2, p.cpu, p.tid, th.pid, coalesce(p.procname, th.procname), p.name,
               p.ts_entry, p.ts_exit, p.dur_ns, p.ret
        FROM fay_pairs p LEFT JOIN th ON th.tid = p.tid""",
        params,
    )
    db.execute(_PAIR_RUNS_SQL)
    with registered(db.con, fay_names=_id_table(staged.names), fay_comms=_id_table(staged.comms)):
        db.execute(
            _THREADS_CTE
            + """
            INSERT INTO syscalls
            SELECT $1, $2, p.p_cpu, p.tid, coalesce(p.p_pid, th.pid),
                   coalesce(c.value, th.procname), n.value, p.p_ts, p.hts, p.hts - p.p_ts,
                   p.hret
            FROM fay_paired p LEFT JOIN th ON th.tid = p.tid
            LEFT JOIN fay_names n ON n.id = p.p_name LEFT JOIN fay_comms c ON c.id = p.p_procname
            WHERE p.hkind = 2 AND p.p_kind = 1""",
            params,
        )
        db.execute("DELETE FROM pending_syscalls WHERE node = ? AND session = ?", params)
        db.execute(
            """
            INSERT INTO pending_syscalls
            SELECT ?, ?, p.cpu, p.tid, p.pid, c.value, n.value, p.tts
            FROM fay_paired p JOIN fay_names n ON n.id = p.tname
            LEFT JOIN fay_comms c ON c.id = p.tprocname
            WHERE p.n_kind IS NULL AND p.tkind = 1 AND n.value NOT IN ('exit', 'exit_group')""",
            params,
        )
    if staged.stale_tids:
        db.execute(
            """
            UPDATE syscalls s SET pid = th.pid
            FROM (SELECT tid, arg_max(pid, ts) AS pid FROM threads
                  WHERE node = $1 AND session = $2 GROUP BY tid) th
            WHERE s.tid = th.tid AND list_contains($3, s.tid) AND s.node = $1
              AND s.session = $2 AND s.rowid >= $4""",
            [*params, staged.stale_tids, staged.rowid_lo],
        )
    for cpu, tid, comm in staged.cpu_end:
        db.execute(
            "DELETE FROM cpu_state WHERE node = ? AND session = ? AND cpu = ?", [*params, cpu]
        )
        db.execute("INSERT INTO cpu_state VALUES (?, ?, ?, ?, ?, NULL)", [*params, cpu, tid, comm])
    drop_staged(db)


def discard_staged(db: Database, staged: StagedOutcome) -> None:
    """Undo what the stager wrote when stream-local pairing turned out not to hold."""
    db.execute("DELETE FROM syscalls WHERE rowid >= ?", [staged.rowid_lo])
    drop_staged(db)


def drop_staged(db: Database) -> None:
    """Drop the stager's temp tables."""
    for t in ("fay_pairs", "fay_runs", "fay_paired"):
        db.execute(f"DROP TABLE IF EXISTS {t}")


def mark_syscalls(db: Database) -> int:
    """Mark where the syscalls rows of the load starting now begin (its rows are written before
    the chunk commits: an interrupted load leaves them behind) and return that rowid."""
    db.execute(
        "UPDATE syscalls_mark SET next_rowid = (SELECT coalesce(max(rowid) + 1, 0) FROM syscalls)"
    )
    return int(db.execute("SELECT max(next_rowid) FROM syscalls_mark")[0][0])


def remove_syscall_orphans(db: Database) -> None:
    """Delete the syscalls rows of a load that did not commit (see mark_syscalls)."""
    db.execute("DELETE FROM syscalls WHERE rowid >= (SELECT max(next_rowid) FROM syscalls_mark)")
    db.execute("UPDATE syscalls_mark SET next_rowid = NULL")


#: The runs (fay_runs, with the open entries of earlier chunks) in time order per thread: a run
#: opening with an exit closes the previous run's last entry; the last entry stays open.
PAIR_RUNS_SELECT = """
SELECT * FROM (
    SELECT *, lag(tkind) OVER w AS p_kind, lag(tts) OVER w AS p_ts, lag(tname) OVER w AS p_name,
        lag(cpu) OVER w AS p_cpu, lag(tprocname) OVER w AS p_procname, lag(pid) OVER w AS p_pid,
        lead(hkind) OVER w AS n_kind
    FROM {runs} WINDOW w AS (PARTITION BY coalesce(tid, -1 - cpu) ORDER BY hts, heid))
WHERE (hkind = 2 AND p_kind = 1) OR (n_kind IS NULL AND tkind = 1)"""
_PAIR_RUNS_SQL = "CREATE OR REPLACE TEMP TABLE fay_paired AS" + PAIR_RUNS_SELECT.format(
    runs="fay_runs"
)


def _id_table(values: list[str]) -> pa.Table:
    """(id, value) rows of a list of names: the numbers fay_runs stores instead."""
    import pyarrow as pa

    return pa.table(
        {"id": pa.array(range(len(values)), pa.int32()), "value": pa.array(values, pa.string())}
    )


_THREADS_CTE = """
WITH th AS (SELECT tid, arg_max(pid, ts) AS pid, arg_max(procname, ts) AS procname
            FROM threads WHERE node = $1 AND session = $2 GROUP BY tid)"""


_PAIR_SQL = """
CREATE OR REPLACE TEMP TABLE fay_paired AS
WITH t AS (
    SELECT k.*,
        last_value(next_tid IGNORE NULLS) OVER w AS sw_tid,
        last_value(next_comm IGNORE NULLS) OVER w AS sw_comm
    FROM fay_k k
    WINDOW w AS (PARTITION BY cpu ORDER BY ts, eid ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
), r AS (
    SELECT t.cpu, t.ts, t.eid, t.kind, t.sysname, t.ret,
        coalesce(t.ctx_tid, t.sw_tid, c.tid) AS tid,
        coalesce(t.ctx_procname, t.sw_comm, c.procname) AS procname,
        t.ctx_pid AS pid
    FROM t LEFT JOIN (SELECT * FROM cpu_state WHERE node = ? AND session = ?) c ON c.cpu = t.cpu
    WHERE t.kind > 0
    UNION ALL
    SELECT cpu, ts, -1, 1, name, NULL, tid, procname, pid
    FROM pending_syscalls WHERE node = ? AND session = ?
)
SELECT *,
    lag(kind) OVER w2 AS p_kind, lag(ts) OVER w2 AS p_ts, lag(sysname) OVER w2 AS p_name,
    lag(cpu) OVER w2 AS p_cpu, lag(procname) OVER w2 AS p_procname, lag(pid) OVER w2 AS p_pid,
    lead(kind) OVER w2 AS n_kind
FROM r
WINDOW w2 AS (PARTITION BY coalesce(tid, -1 - cpu) ORDER BY ts, eid)
"""

_INSERT_SQL = """
INSERT INTO syscalls
SELECT $1, $2, p.p_cpu, p.tid, coalesce(p.p_pid, p.pid, th.pid), coalesce(p.p_procname, th.procname),
       p.p_name, p.p_ts, p.ts, p.ts - p.p_ts, p.ret
FROM fay_paired p
LEFT JOIN (SELECT tid, arg_max(pid, ts) AS pid, arg_max(procname, ts) AS procname FROM threads
           WHERE node = $1 AND session = $2 GROUP BY tid) th ON th.tid = p.tid
WHERE p.kind = 2 AND p.p_kind = 1
"""


_PENDING_SQL = """
INSERT INTO pending_syscalls
SELECT ?, ?, cpu, tid, pid, procname, sysname, ts FROM fay_paired
WHERE kind = 1 AND n_kind IS NULL AND sysname NOT IN ('exit', 'exit_group')
"""


def _lit(s: str | None) -> str:
    return "NULL" if s is None else quote_literal(s)


def derive_spans(db: Database, info: ChunkInfo, settings: LoadSettings) -> None:
    """Merge the spans the loader built per flush: a span whose events fell into several
    flushes or chunks has several rows by now, and is rebuilt from all its events."""
    present = [n for n in ZIPKIN if n in info.tables]
    if not present:
        return
    db.execute(
        """
        CREATE OR REPLACE TEMP TABLE fay_sk AS
        SELECT s.trace_id, s.span_id FROM spans s
        SEMI JOIN (SELECT trace_id, span_id FROM spans WHERE session = $1 AND chunk_no = $2) n
            ON n.trace_id = s.trace_id AND n.span_id = s.span_id
        WHERE s.session = $1 GROUP BY ALL HAVING count(*) > 1""",
        [info.session, info.chunk_no],
    )
    if db.execute("SELECT count(*) FROM fay_sk")[0][0]:
        parts = " UNION ALL ".join(_zipkin_part(db, info.tables[n], n) for n in present)
        _span_rows_of_keys(db, info, parts)
        _insert_spans(db, info.session, info.chunk_no, settings)
    db.execute("DROP TABLE IF EXISTS fay_sk")
    db.execute("DROP TABLE IF EXISTS fay_zp")


def _span_rows_of_keys(db: Database, info: ChunkInfo, parts: str) -> None:
    """fay_zp: every row (all chunks of the session) of the spans keyed in fay_sk, whose
    spans rows are deleted."""
    db.execute(
        "DELETE FROM spans s USING fay_sk k WHERE s.session = ? "
        "AND s.trace_id = k.trace_id AND s.span_id = k.span_id",
        [info.session],
    )
    db.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE fay_zp AS
        SELECT c.node, e.ts, p.* EXCLUDE (eid)
        FROM ({parts}) p
        JOIN fay_sk k ON k.trace_id = p.trace_id AND k.span_id = p.span_id
        JOIN event_rows e ON e.eid = p.eid
        JOIN chunks c ON c.chunk_no = e.chunk_no
        WHERE c.session = ?""",
        [info.session],
    )


def _insert_spans(db: Database, session: str, chunk_no: int, settings: LoadSettings) -> None:
    """Group the rows of fay_zp into spans (Arrow, see spans.py) and insert them; a part's
    insert runs in the background while the next part is grouped."""
    from fayshell.store.spans import build_spans

    total = db.execute("SELECT count(*) FROM fay_zp")[0][0]
    parts = max(1, -(-total // settings.span_rows))  # bounded memory: span_rows at a time
    writer = FlushWriter(db)
    built: pa.Table | None = None
    try:
        for part in range(parts):
            where = f"WHERE hash(trace_id, span_id) % {parts} = {part}" if parts > 1 else ""
            rows = db.con.sql(f"SELECT * FROM fay_zp {where}").to_arrow_table()
            if built is not None:  # insert the previous part while this one is grouped
                writer.submit(partial(_insert_span_table, session, chunk_no, built))
            built = build_spans(rows, settings.prefer_c) if rows.num_rows else None
            del rows
            writer.wait()  # the connection is the writer's until its insert is done
        if built is not None:
            _insert_span_table(session, chunk_no, built, db.con)
    finally:
        writer.drain()


def _insert_span_table(
    session: str, chunk_no: int, spans: pa.Table, con: duckdb.DuckDBPyConnection
) -> None:
    """INSERT one Arrow table of spans (may run on the writer thread, with its connection)."""
    Insert("spans", spans, "? AS session, ? AS chunk_no, *", [session, chunk_no]).run(con)


def _zipkin_part(db: Database, table: str, event: str) -> str:
    """One zipkin payload table as (eid, ids as BIGINT, endpoint, value, key)."""
    types = dict(
        db.execute(
            "SELECT column_name, data_type FROM duckdb_columns() "
            "WHERE schema_name = 'main' AND table_name = ?",
            [table],
        )
    )

    def big(col: str) -> str:
        if col not in types:
            return "NULL::BIGINT"
        return (
            as_bigint(f"p.{q(col)}") if types[col] == "UBIGINT" else f"CAST(p.{q(col)} AS BIGINT)"
        )

    def text(col: str) -> str:
        return f"CAST(p.{q(col)} AS VARCHAR)" if col in types else "NULL::VARCHAR"

    if event == "zipkin:timestamp":
        value, key = text("event"), "NULL::VARCHAR"
    else:
        value, key = text("val"), text("key")
    port = f"CAST(p.{q('port_no')} AS INTEGER)" if "port_no" in types else "NULL::INTEGER"
    return (
        f"SELECT p.eid, {big('trace_id')} AS trace_id, {big('span_id')} AS span_id, "
        f"{big('parent_span_id')} AS parent, {text('service_name')} AS service_name, "
        f"{text('ip')} AS ip, {port} AS port_no, {text('trace_name')} AS trace_name, "
        f"{value} AS value, {key} AS key FROM {q(table)} p"
    )


def derive_logs(db: Database, info: ChunkInfo) -> None:
    """Agent log events and UST events with a deliberate log level into ``logs``."""
    pid = info.ctx("vpid", "pid")
    procname = info.ctx("procname")
    for event, domain in AGENTS.items():
        t = info.tables.get(event)
        if t is None:
            continue
        level = info.col(t, "int_loglevel")
        sev = severity_sql(domain, level)
        func = info.col(t, "funcName", "method_name")
        line = info.col(t, "lineno", "line_number")
        thread = info.col(t, "threadName", "thread_name", "int_threadid", "thread")
        db.execute(
            f"""
            INSERT INTO logs SELECT ?, ?, e.ts, ?, {info.col(t, "logger_name")},
                CAST({level} AS INTEGER), {sev}, {info.col(t, "msg")}, {func},
                CAST({line} AS INTEGER), CAST({thread} AS VARCHAR), CAST({pid} AS BIGINT),
                {procname}
            FROM event_rows e JOIN {q(t)} p USING (eid) WHERE {info.where}""",
            [info.node, info.session, domain],
        )
    _ust_logs(db, info, pid, procname)


def _ust_logs(db: Database, info: ChunkInfo, pid: str, procname: str) -> None:
    rows = db.execute(
        "SELECT name, loglevel, table_name FROM event_classes "
        "WHERE domain = 'ust' AND loglevel < ?",
        [DEBUG_LINE],
    )
    for name, level, t in rows:
        if name not in info.class_names or name in AGENTS or name.startswith("zipkin:"):
            continue
        strings = db.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
            "AND data_type = 'VARCHAR' ORDER BY ordinal_position LIMIT 1",
            [t],
        )
        msg = f"p.{q(strings[0][0])}" if strings else "NULL"
        sev = severity_sql("user", str(int(level)))
        db.execute(
            f"""
            INSERT INTO logs SELECT ?, ?, e.ts, 'ust', ?, {int(level)}, {sev}, {msg}, NULL,
                NULL, NULL, CAST({pid} AS BIGINT), {procname}
            FROM event_rows e JOIN {q(t)} p USING (eid) WHERE {info.where}""",
            [info.node, info.session, name],
        )
