"""A chunk's derived rows computed in memory (Arrow) instead of in the database.

The same results as fayshell.store.derived's SQL (threads, the staged syscall pairing, spans),
read from the stored state of earlier chunks plus the chunk's Arrow, and produced as Arrow rows
to add and stored rows to remove (a :class:`~fayshell.store.pending.PendingChunk`): nothing is
written here. Each query below mirrors the statement of derived.py named in its comment.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fayshell.store import database
from fayshell.store.arrowsql import q, valid_mask
from fayshell.store.derived import ZIPKIN, _id_table, _lit, _zipkin_part
from fayshell.store.kernel import FACT_EVENTS, pair_runs
from fayshell.store.pending import PendingChunk, Removal
from fayshell.store.spans import build_spans

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from fayshell.store.database import Database
    from fayshell.store.kernel import StagedOutcome, SyscallStager


@dataclass(kw_only=True)
class ArrowChunk:
    """The chunk's identity and where its stored neighbours live."""

    db: Database
    dbname: str
    node: str
    session: str
    chunk_no: int
    eid_lo: int

    @property
    def owner_columns(self) -> dict[str, str]:
        return {"node": self.node, "session": self.session}

    @property
    def owner(self) -> str:
        """SQL condition: a row of this chunk's node and session (alias ``x``)."""
        return f"x.node = {_lit(self.node)} AND x.session = {_lit(self.session)}"

    def stored(self, table: str) -> str:
        return f"{q(self.dbname)}.main.{q(table)}"

    def arrow(self, sql: str, params: list[Any] | None = None) -> pa.Table:
        return self.db.con.sql(sql, params=params or None).to_arrow_table()

    def registered(self, **tables: pa.Table) -> AbstractContextManager[None]:
        """``tables`` visible to the chunk's connection for a block (database.registered)."""
        return database.registered(self.db.con, **tables)


def constant(value: object, n: int, typ: pa.DataType) -> pa.Array:
    """``n`` copies of ``value`` (strings as a one-word dictionary: no copy per row)."""
    import numpy as np
    import pyarrow as pa

    if pa.types.is_string(typ):
        return pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(n, np.int32)), pa.array([value], typ)
        )
    return pa.array(np.full(n, value), typ)


def owned(c: ArrowChunk, rows: pa.Table) -> pa.Table:
    """``rows`` with node and session columns first."""
    import pyarrow as pa

    n = rows.num_rows
    return rows.add_column(0, "session", constant(c.session, n, pa.string())).add_column(
        0, "node", constant(c.node, n, pa.string())
    )


def threads_rows(c: ArrowChunk, ts: np.ndarray, payload: dict[str, pa.Table]) -> pa.Table:
    """The chunk's thread facts (derived.update_threads)."""
    import pyarrow as pa

    sources = (("lttng_statedump_process_state", "name"), ("sched_process_fork", "child_comm"))
    parts = []
    for event, comm in sources:
        t = payload.get(event)
        tid, pid = FACT_EVENTS[event]
        if t is None or not {tid, pid} <= set(t.column_names):
            continue
        eid = t.column("eid").to_numpy() - c.eid_lo
        parts.append(
            pa.table(
                {
                    "tid": t.column(tid).cast(pa.int64()),
                    "pid": t.column(pid).cast(pa.int64()),
                    "procname": t.column(comm).cast(pa.string())
                    if comm in t.column_names
                    else pa.nulls(t.num_rows, pa.string()),
                    "ts": pa.array(ts[eid], pa.int64()),
                }
            )
        )
    empty = pa.table(
        {
            "tid": pa.array([], pa.int64()),
            "pid": pa.array([], pa.int64()),
            "procname": pa.array([], pa.string()),
            "ts": pa.array([], pa.int64()),
        }
    )
    return owned(c, pa.concat_tables([empty, *parts]))


def add_syscalls(
    c: ArrowChunk,
    out: PendingChunk,
    st: SyscallStager,
    direct: pa.Table | None,
    outcome: StagedOutcome,
    threads: pa.Table,
    paired: pa.Table | None,
) -> None:
    """The chunk's syscalls, open entries and CPU state (derived.staged_syscalls);
    ``paired`` is :func:`paired_runs` of the stager."""
    import pyarrow as pa

    params = [c.node, c.session]
    with c.registered(fay_q_nt=threads):
        th = c.arrow(
            f"""
            SELECT tid, arg_max(pid, ts) AS pid, arg_max(procname, ts) AS procname FROM (
                SELECT tid, pid, procname, ts FROM {c.stored("threads")}
                WHERE node = $1 AND session = $2
                UNION ALL SELECT tid, pid, procname, ts FROM fay_q_nt) GROUP BY tid""",
            params,
        )
    parts = []
    with c.registered(
        fay_q_th=th, fay_q_names=_id_table(outcome.names), fay_q_comms=_id_table(outcome.comms)
    ):
        if st.pairs:
            with c.registered(fay_q_pairs=pa.concat_tables(st.pairs)):
                parts.append(
                    c.arrow(
                        """
                    SELECT $1 AS node, $2 AS session, p.cpu, p.tid, th.pid,
                           coalesce(p.procname, th.procname) AS procname, p.name, p.ts_entry,
                           p.ts_exit, p.dur_ns, p.ret
                    FROM fay_q_pairs p LEFT JOIN fay_q_th th ON th.tid = p.tid""",
                        params,
                    )
                )
        if paired is not None:
            _add_paired(c, out, paired, parts)
    out.removals.append(Removal("pending_syscalls", c.owner))
    if direct is not None:  # node and session as SQL constants: not one copy per row
        out.add("syscalls", _fix_pids(direct, outcome.stale_tids, th), **c.owner_columns)
    for rows in parts:
        out.add("syscalls", _fix_pids(rows, outcome.stale_tids, th))
    _add_cpu_state(c, out, outcome)


def paired_runs(st: SyscallStager) -> pa.Table | None:
    """The stager's runs kept by :func:`pair_runs` (None without runs)."""
    import pyarrow as pa

    if not st.runs:
        return None
    runs = pa.concat_tables(st.runs, promote_options="default")
    if "pid" not in runs.column_names:
        runs = runs.append_column("pid", pa.nulls(runs.num_rows, pa.int64()))
    return pair_runs(runs)


def _add_paired(c: ArrowChunk, out: PendingChunk, paired: pa.Table, parts: list[pa.Table]) -> None:
    """Pairs across runs and the entries left open (fay_paired of derived.py)."""
    params = [c.node, c.session]
    with c.registered(fay_q_paired=paired):
        parts.append(
            c.arrow(
                """
            SELECT $1 AS node, $2 AS session, p.p_cpu AS cpu, p.tid,
                   coalesce(p.p_pid, th.pid) AS pid, coalesce(cm.value, th.procname) AS procname,
                   n.value AS name, p.p_ts AS ts_entry, p.hts AS ts_exit,
                   p.hts - p.p_ts AS dur_ns, p.hret AS ret
            FROM fay_q_paired p LEFT JOIN fay_q_th th ON th.tid = p.tid
            LEFT JOIN fay_q_names n ON n.id = p.p_name
            LEFT JOIN fay_q_comms cm ON cm.id = p.p_procname
            WHERE p.hkind = 2 AND p.p_kind = 1""",
                params,
            )
        )
        out.add(
            "pending_syscalls",
            c.arrow(
                """
            SELECT $1 AS node, $2 AS session, p.cpu, p.tid, p.pid, cm.value AS procname,
                   n.value AS name, p.tts AS ts
            FROM fay_q_paired p JOIN fay_q_names n ON n.id = p.tname
            LEFT JOIN fay_q_comms cm ON cm.id = p.tprocname
            WHERE p.n_kind IS NULL AND p.tkind = 1 AND n.value NOT IN ('exit', 'exit_group')""",
                params,
            ),
        )


def _fix_pids(rows: pa.Table, stale: list[int], th: pa.Table) -> pa.Table:
    """Rows of tids whose pid changed during the chunk get their final pid (the UPDATE at the
    end of derived.staged_syscalls)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not stale or not rows.num_rows:
        return rows
    known = th.filter(pc.is_in(th.column("tid"), pa.array(stale, pa.int64())))
    if not known.num_rows:
        return rows
    tids = rows.column("tid").combine_chunks()
    at = pc.index_in(tids, known.column("tid"))
    hit = valid_mask(at)
    if not hit.any():
        return rows
    new_pid = pc.take(known.column("pid"), at)
    pid = pc.if_else(pa.array(hit), new_pid, rows.column("pid").combine_chunks())
    return rows.set_column(rows.column_names.index("pid"), "pid", pid.cast(pa.int64()))


def _add_cpu_state(c: ArrowChunk, out: PendingChunk, outcome: StagedOutcome) -> None:
    """Each stream's CPU replaces its running thread (derived.staged_syscalls' cpu_state)."""
    import pyarrow as pa

    if not outcome.cpu_end:
        return
    cpus = [cpu for cpu, _, _ in outcome.cpu_end]
    out.removals.append(
        Removal("cpu_state", f"{c.owner} AND x.cpu IN ({', '.join(str(int(v)) for v in cpus)})")
    )
    n = len(cpus)
    out.add(
        "cpu_state",
        pa.table(
            {
                "node": pa.array([c.node] * n, pa.string()),
                "session": pa.array([c.session] * n, pa.string()),
                "cpu": pa.array(cpus, pa.int32()),
                "tid": pa.array([t for _, t, _ in outcome.cpu_end], pa.int64()),
                "procname": pa.array([m for _, _, m in outcome.cpu_end], pa.string()),
                "ts": pa.nulls(n, pa.int64()),
            }
        ),
    )


def add_spans(
    c: ArrowChunk,
    out: PendingChunk,
    rows: pa.Table,
    spans: pa.Table,
    tables: dict[str, str],
    compiled: bool,
) -> None:
    """The chunk's spans (``spans``: build_spans of its ``rows``); a span that also has stored
    rows is rebuilt from all its events and replaces them (derived.derive_spans)."""
    import pyarrow as pa

    built = _session_spans(c, _with_node(c, spans))
    keys = built.select(["trace_id", "span_id"])
    with c.registered(fay_q_keys=keys):
        overlap = c.arrow(
            f"""
            SELECT DISTINCT s.trace_id, s.span_id FROM {c.stored("spans")} s
            SEMI JOIN fay_q_keys k ON k.trace_id = s.trace_id AND k.span_id = s.span_id
            WHERE s.session = $1""",
            [c.session],
        )
    if overlap.num_rows:
        rebuilt = _rebuilt(c, rows, overlap, tables, compiled)
        gone = set(
            zip(
                overlap.column("trace_id").to_pylist(),
                overlap.column("span_id").to_pylist(),
                strict=True,
            )
        )
        keep = [
            k not in gone
            for k in zip(
                keys.column("trace_id").to_pylist(), keys.column("span_id").to_pylist(), strict=True
            )
        ]
        built = built.filter(pa.array(keep))
        out.add("spans", rebuilt)
        out.removals.append(
            Removal(
                "spans",
                f"x.session = {_lit(c.session)} AND EXISTS (SELECT 1 FROM {{keys}} k "
                "WHERE k.trace_id = x.trace_id AND k.span_id = x.span_id)",
                overlap,
            )
        )
    out.add("spans", built)


def _with_node(c: ArrowChunk, spans: pa.Table) -> pa.Table:
    import pyarrow as pa

    return spans.add_column(0, "node", constant(c.node, spans.num_rows, pa.string()))


def _session_spans(c: ArrowChunk, spans: pa.Table) -> pa.Table:
    """Spans with the session and the chunk that built them."""
    import pyarrow as pa

    n = spans.num_rows
    spans = spans.drop([col for col in ("session",) if col in spans.column_names])
    return spans.add_column(1, "session", constant(c.session, n, pa.string())).append_column(
        "chunk_no", constant(c.chunk_no, n, pa.int32())
    )


def _rebuilt(
    c: ArrowChunk, rows: pa.Table, overlap: pa.Table, tables: dict[str, str], compiled: bool
) -> pa.Table:
    """The spans of ``overlap`` from their stored events plus the chunk's (derived.py's
    fay_zp)."""
    present = [n for n in ZIPKIN if n in tables]
    stored = " UNION ALL ".join(_zipkin_part(c.db, tables[n], n) for n in present)
    with c.registered(fay_q_ov=overlap, fay_q_zr=rows):
        zp = c.arrow(
            f"""
            SELECT c.node, e.ts, p.* EXCLUDE (eid) FROM ({stored}) p
            JOIN fay_q_ov k ON k.trace_id = p.trace_id AND k.span_id = p.span_id
            JOIN {c.stored("event_rows")} e ON e.eid = p.eid
            JOIN {c.stored("chunks")} c ON c.chunk_no = e.chunk_no
            WHERE c.session = $2
            UNION ALL
            SELECT $1, r.ts, r.trace_id, r.span_id, r.parent, r.service_name, r.ip, r.port_no,
                   r.trace_name, r.value, r.key
            FROM fay_q_zr r SEMI JOIN fay_q_ov k
                ON k.trace_id = r.trace_id AND k.span_id = r.span_id""",
            [c.node, c.session],
        )
    return _session_spans(c, build_spans(zp, compiled))
