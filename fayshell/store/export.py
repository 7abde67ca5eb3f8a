"""Exports of store relations to the files other tools open.

* Parquet, any relation: DuckDB's own ``COPY … TO … (FORMAT parquet)``, optionally
  ``PARTITION_BY``; progress from ``query_progress()`` while the COPY runs on a worker thread.
* Zipkin v2 JSON, spans: the ListOfSpans body of ``POST /api/v2/spans`` (Zipkin, Jaeger).
* Chrome Trace Event JSON (the JSON object format; Perfetto UI, chrome://tracing), spans or
  system calls: complete events ``ph:"X"`` plus ``M`` metadata events naming processes/threads.

The JSON of each span or event is built by DuckDB (``to_json``), so rows never become Python
objects; batches come from ``to_arrow_reader`` (``fetch_record_batch`` before DuckDB 2) and are written at once, so memory stays
bounded by one batch whatever the size of the export. JSON files are written under a temporary
name and renamed when complete: a failed or interrupted export leaves no half file.

Time: Zipkin wants epoch microseconds (integers): timestamps are floored, durations rounded up
(at least 1, as the Zipkin API says). Chrome's ``ts``/``dur`` are microseconds too, written with
three decimals relative to ``otherData.ts_base_ns`` (the export's first timestamp), which keeps
every nanosecond exact (a double cannot hold epoch microseconds to the nanosecond).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from fayshell.errors import StoreError
from fayshell.store.database import sql_error
from fayshell.store.relation import quote_ident as q
from fayshell.store.relation import quote_literal

if TYPE_CHECKING:
    from fayshell.host import ProgressTask
    from fayshell.store.database import Database
    from fayshell.store.relation import Relation

ExportFormat = Literal["parquet", "zipkin", "chrome"]
FORMATS: tuple[str, ...] = get_args(ExportFormat)
#: Columns a relation needs to be exported as spans, and as system calls.
SPAN_COLUMNS = ("trace_id", "span_id", "ts_start", "dur_ns")
SYSCALL_COLUMNS = ("tid", "name", "ts_entry", "dur_ns")


@dataclass(frozen=True)
class ExportSettings:
    """How an export runs: rows per batch and how often Parquet progress is polled."""

    batch_rows: int = 65536
    poll_seconds: float = 0.1


@dataclass(frozen=True)
class ExportSummary:
    """What Export-Trace wrote."""

    Path: str
    Format: str
    Kind: str
    Rows: int
    Events: int
    Bytes: int
    Seconds: float


@dataclass(frozen=True)
class ExportRequest:
    """One export: the relation, the format, the target and options."""

    rel: Relation
    format: ExportFormat
    path: Path
    partition_by: tuple[str, ...] = ()
    settings: ExportSettings = ExportSettings()
    #: Set to stop the export (Ctrl-C): the JSON writer stops at the next batch and removes
    #: its temporary file; a Parquet COPY runs to its end (interrupting DuckDB's COPY from
    #: another thread hung it here once), then its output is removed.
    cancel: threading.Event = field(default_factory=threading.Event)


class ExportError(StoreError):
    """The input or the target does not fit the export (one line, names what and where)."""


class ExportCancelled(StoreError):
    """The export was stopped before it finished (its file was not written)."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"interrupted: {path} was not written")


def export(req: ExportRequest, progress: ProgressTask) -> ExportSummary:
    """Run one export; raises :class:`ExportError` (or StoreError/SqlError) as one line."""
    start = time.perf_counter()
    columns = req.rel.schema()
    _check_target(req)
    if req.format == "parquet":
        rows, events, kind = _parquet(req, progress), 0, "rows"
    else:
        kind = _kind(req, columns)
        builder = _zipkin if req.format == "zipkin" else _chrome
        rows, events = _write_json(req, builder(req.rel, columns, kind), progress)
    return ExportSummary(
        str(req.path),
        req.format,
        kind,
        rows,
        events,
        _size(req.path),
        round(time.perf_counter() - start, 3),
    )


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return path.stat().st_size


def _check_target(req: ExportRequest) -> None:
    parent = req.path.parent
    if parent.exists() and not parent.is_dir():
        raise ExportError(f"cannot write {req.path}: {parent} is not a directory")
    if not parent.is_dir():
        raise ExportError(f"cannot write {req.path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ExportError(f"cannot write {req.path}: directory {parent} is not writable")
    if req.path.is_dir() and not req.partition_by:
        raise ExportError(f"cannot write {req.path}: it is a directory")
    if req.partition_by and req.format != "parquet":
        raise ExportError("-PartitionBy is for -Format parquet only")


def _kind(req: ExportRequest, columns: dict[str, str]) -> str:
    """``spans`` or ``syscalls``: which shape of rows the relation has, or a clear refusal."""
    if all(c in columns for c in SPAN_COLUMNS):
        return "spans"
    if req.format == "chrome" and all(c in columns for c in SYSCALL_COLUMNS):
        return "syscalls"
    want = "spans (" + ", ".join(SPAN_COLUMNS) + ")"
    if req.format == "chrome":
        want += " or system calls (" + ", ".join(SYSCALL_COLUMNS) + ")"
    have = ", ".join(list(columns)[:8]) + (", ..." if len(columns) > 8 else "")
    raise ExportError(f"-Format {req.format} needs {want}; the input has columns {have}")


# ---- Parquet ----------------------------------------------------------------------------------


def _parquet(req: ExportRequest, progress: ProgressTask) -> int:
    """COPY the relation to Parquet on a worker thread, the bar following query_progress()."""
    for col in req.partition_by:
        if col not in req.rel.columns():
            raise ExportError(f"-PartitionBy {col}: the input has no column {col!r}")
    opts = ["FORMAT parquet"]
    if req.partition_by:
        opts += [
            "PARTITION_BY (" + ", ".join(q(c) for c in req.partition_by) + ")",
            "OVERWRITE_OR_IGNORE true",
        ]
    sql = f"COPY ({req.rel.sql}) TO {quote_literal(str(req.path))} ({', '.join(opts)})"
    progress.update(total=100.0)
    return _with_progress(req, sql, progress)


def _remove(path: Path) -> None:
    """Whatever an interrupted COPY left at ``path`` (a file, or partition directories)."""
    import shutil

    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _with_progress(req: ExportRequest, sql: str, progress: ProgressTask) -> int:
    """Run a statement on a worker thread while polling DuckDB's progress; the rows it
    reports. Cancelled meanwhile: its output is removed and ExportCancelled raised."""
    db, poll = req.rel.db, req.settings.poll_seconds
    con = db.con
    result: dict[str, object] = {}

    def run() -> None:
        try:
            result["rows"] = con.execute(sql).fetchall()
        except Exception as exc:  # DuckDB's own types: reported as one line below
            result["error"] = exc

    with db.lock:
        old = con.execute(
            "SELECT current_setting('enable_progress_bar'), "
            "current_setting('enable_progress_bar_print')"
        ).fetchall()[0]
        con.execute("SET enable_progress_bar = true")
        con.execute("SET enable_progress_bar_print = false")
        try:
            worker = threading.Thread(target=run, name="fayshell-export", daemon=True)
            worker.start()
            while worker.is_alive():
                worker.join(poll)
                done = con.query_progress()
                if done >= 0:
                    progress.update(completed=done)
        finally:
            con.execute(f"SET enable_progress_bar = {bool(old[0])}")
            con.execute(f"SET enable_progress_bar_print = {bool(old[1])}")
    if req.cancel.is_set():
        _remove(req.path)
        raise ExportCancelled(req.path)
    if "error" in result:
        raise ExportError(sql_error(result["error"]).message)  # type: ignore[arg-type]
    progress.update(completed=100.0)
    rows = result.get("rows")
    return int(rows[0][0]) if isinstance(rows, list) and rows and rows[0] else 0


# ---- JSON exports ------------------------------------------------------------------------------


@dataclass(frozen=True)
class JsonPlan:
    """A JSON export: its head and tail text, and queries whose one column is a JSON value.

    ``prepare`` runs first (temp tables), ``cleanup`` last; ``rows`` counts the input rows
    (for the progress bar); ``parts`` are the queries whose values go between head and tail.
    """

    head: str
    tail: str
    rows: str
    parts: tuple[str, ...]
    prepare: tuple[str, ...] = ()
    cleanup: tuple[str, ...] = ()


def _write_json(
    req: ExportRequest, plan_of: Callable[[Database], JsonPlan], progress: ProgressTask
) -> tuple[int, int]:
    """Write a JSON plan to ``req.path`` (through a temporary name); (input rows, values)."""
    db = req.rel.db
    tmp = req.path.with_name(f".{req.path.name}.part")
    with db.lock:  # temp tables and registered inputs belong to this one connection
        plan = plan_of(db)
        try:
            for stmt in plan.prepare:
                db.execute(stmt)
            rows = int(db.execute(plan.rows)[0][0])
            progress.update(total=float(rows))
            written = _stream(db, plan, tmp, req, progress)
            os.replace(tmp, req.path)
        except OSError as exc:
            raise ExportError(f"cannot write {req.path}: {exc.strerror or exc}") from None
        finally:
            tmp.unlink(missing_ok=True)
            for stmt in plan.cleanup:
                db.execute(stmt)
    return rows, written


SEPARATOR = ",\n"


def _stream(
    db: Database, plan: JsonPlan, tmp: Path, req: ExportRequest, progress: ProgressTask
) -> int:
    """Head, every part's values separated by commas, tail; the bar follows the last part.

    DuckDB puts the separator before every value, so a batch is written straight from its
    Arrow string buffer (no Python string per value); only the very first separator is cut.
    """
    written = 0
    with tmp.open("wb") as out:
        out.write(plan.head.encode())
        for part, values in enumerate(plan.parts):
            sql = f"SELECT '{SEPARATOR}' || j FROM ({values}) AS _p(j)"
            for batch in _batches(db, sql, req.settings.batch_rows):
                if req.cancel.is_set():
                    raise ExportCancelled(req.path)
                out.write(_bytes(batch, len(SEPARATOR) if written == 0 else 0))
                written += len(batch)
                if part == len(plan.parts) - 1:
                    progress.advance(float(len(batch)))
        out.write(plan.tail.encode())
    return written


def _batches(db: Database, sql: str, batch: int) -> Iterator[Any]:
    """The first column of ``sql`` as Arrow string arrays (the caller holds the database lock)."""
    try:
        reader = db.con.sql(sql).to_arrow_reader(batch)
    except Exception as exc:
        raise sql_error(exc) from None
    for rb in reader:
        column = rb.column(0)
        if column.null_count:
            raise StoreError("internal error: an export query produced a NULL value")
        if len(column):
            yield column


def _bytes(column: Any, skip: int) -> memoryview:
    """The UTF-8 bytes of all values of an Arrow string array, back to back, minus ``skip``
    leading bytes (read from its offsets and data buffers, without copying)."""
    import numpy as np
    import pyarrow as pa

    if pa.types.is_string_view(column.type):  # not offset-based: let Arrow lay it out
        column = column.cast(pa.string())
    wide = pa.types.is_large_string(column.type)
    _, offsets_buf, data = column.buffers()
    offsets = np.frombuffer(offsets_buf, np.int64 if wide else np.int32)
    first, last = int(offsets[column.offset]), int(offsets[column.offset + len(column)])
    return memoryview(data)[first + skip : last]


def _col(columns: dict[str, str], name: str, default: str = "NULL") -> str:
    """A column of the input if it has it, else a default SQL expression."""
    return q(name) if name in columns else default


def _hex(expr: str) -> str:
    """A BIGINT as 16 lowercase hex digits (two's complement for negative ids)."""
    return f"lpad(lower(to_hex(({expr})::BIGINT)), 16, '0')"


def _object(entries: list[tuple[str, str]]) -> str:
    """A JSON object of the entries whose JSON text is not NULL (absent fields omitted):
    concat_ws skips NULLs, and it is several times faster than building a MAP for to_json."""
    items = ", ".join(f"'\"{k}\":' || ({v})" for k, v in entries)
    return f"('{{' || concat_ws(',', {items}) || '}}')"


# ---- Zipkin v2 --------------------------------------------------------------------------------


def _zipkin(rel: Relation, columns: dict[str, str], kind: str) -> Callable[[Database], JsonPlan]:
    ann = _col(columns, "annotations")
    values = ann if "annotations" in columns else "NULL"
    kind_sql = (
        f"CASE WHEN list_contains(list_transform({values}, lambda a: a.value), 'cs') "
        "THEN '\"CLIENT\"' WHEN list_contains(list_transform("
        f"{values}, lambda a: a.value), 'sr') THEN '\"SERVER\"' END"
        if "annotations" in columns
        else "NULL"
    )
    parent = _col(columns, "parent_span_id")
    entries = [
        ("traceId", f"to_json({_hex(q('trace_id'))})"),
        ("id", f"to_json({_hex(q('span_id'))})"),
        ("parentId", f"CASE WHEN coalesce({parent}, 0) <> 0 THEN to_json({_hex(parent)}) END"),
        ("kind", kind_sql),
        ("name", f"to_json({_col(columns, 'name')})"),
        ("timestamp", f"to_json({q('ts_start')} // 1000)"),
        ("duration", f"to_json(greatest(1, ({q('dur_ns')} + 999) // 1000))"),
        ("localEndpoint", _endpoint(columns)),
        ("annotations", _annotations(columns)),
        ("tags", _tags(columns)),
    ]
    body = (
        f"SELECT {_object(entries)} FROM ({rel.sql}) AS _r "
        f"WHERE {q('trace_id')} IS NOT NULL AND {q('span_id')} IS NOT NULL"
    )
    return lambda db: JsonPlan("[\n", "\n]\n", f"SELECT count(*) FROM ({body})", (body,))


def _endpoint(columns: dict[str, str]) -> str:
    ip, port = _col(columns, "ip"), _col(columns, "port")
    return _object(
        [
            ("serviceName", f"to_json({_col(columns, 'service')})"),
            (
                "ipv4",
                f"CASE WHEN regexp_full_match({ip}, '[0-9]{{1,3}}(\\.[0-9]{{1,3}}){{3}}') "
                f"THEN to_json({ip}) END",
            ),
            ("ipv6", f"CASE WHEN contains({ip}, ':') THEN to_json({ip}) END"),
            ("port", f"CASE WHEN {port} > 0 THEN to_json({port}) END"),
        ]
    )


def _annotations(columns: dict[str, str]) -> str:
    if "annotations" not in columns:
        return "NULL"
    conv = (
        "list_transform(\"annotations\", lambda a: {'timestamp': a.ts // 1000, 'value': a.value})"
    )
    # uniqueItems: drop an annotation equal (at the microsecond) to an earlier one, keep order
    uniq = f"list_filter({conv}, lambda x, i: i = 1 OR NOT list_contains(({conv})[1:i - 1], x))"
    return f'CASE WHEN len("annotations") > 0 THEN to_json({uniq}) END'


def _tags(columns: dict[str, str]) -> str:
    if "keyvals" not in columns:
        return "NULL"
    return 'CASE WHEN cardinality("keyvals") > 0 THEN to_json("keyvals") END'


# ---- Chrome Trace Event Format ----------------------------------------------------------------


def _us(expr: str) -> str:
    """Nanoseconds as a JSON number of microseconds with three decimals (exact)."""
    return (
        f"CASE WHEN ({expr}) < 0 THEN '-' ELSE '' END || "
        f"printf('%d.%03d', abs({expr}) // 1000, abs({expr}) % 1000)"
    )


def _chrome(rel: Relation, columns: dict[str, str], kind: str) -> Callable[[Database], JsonPlan]:
    build = _chrome_spans if kind == "spans" else _chrome_syscalls
    return lambda db: build(db, rel, columns)


def _temp_names(*bases: str) -> list[str]:
    tag = f"{os.getpid()}_{threading.get_ident()}_{time.monotonic_ns()}"
    return [f"_fay_export_{b}_{tag}" for b in bases]


def _chrome_head(db: Database, rel_sql: str, ts: str) -> tuple[str, int]:
    """The JSON object's opening text, and the base timestamp (ns) events are relative to."""
    base = int(db.execute(f"SELECT min({q(ts)}) FROM ({rel_sql}) AS _r")[0][0] or 0)
    other = f'{{"exporter": "fayshell", "ts_base_ns": "{base}"}}'
    return '{"displayTimeUnit": "ns", "otherData": ' + other + ', "traceEvents": [\n', base


def _meta(name: str, pid: str, tid: str, value: str) -> str:
    """A metadata event (process_name, thread_name): ph M with args.name."""
    return (
        f"to_json({{'ph': 'M', 'name': '{name}', 'pid': {pid}, 'tid': {tid}, "
        f"'args': {{'name': {value}}}}})"
    )


@dataclass(frozen=True)
class _Complete:
    """SQL texts of one complete event's parts (ts/dur already JSON number texts)."""

    name: str
    cat: str
    ts: str
    dur: str
    pid: str
    tid: str
    args: str

    def json(self) -> str:
        return (
            f'\'{{"ph":"X","name":\' || to_json(coalesce({self.name}, \'\')) || '
            f'\',"cat":"{self.cat}","ts":\' || {self.ts} || \',"dur":\' || {self.dur} || '
            f"',\"pid\":' || {self.pid} || ',\"tid\":' || {self.tid} || "
            f"',\"args\":' || {self.args} || '}}'"
        )


def _chrome_spans(db: Database, rel: Relation, columns: dict[str, str]) -> JsonPlan:
    """One process per (node, service), one thread per trace in it (so a trace's spans on one
    service nest on one track), one complete event per span."""
    head, base = _chrome_head(db, rel.sql, "ts_start")
    procs, traces = _temp_names("procs", "traces")
    node, service = _col(columns, "node", "''"), _col(columns, "service", "''")
    src = (
        f"(SELECT *, coalesce({node}, '') AS _node, coalesce({service}, '') AS _service "
        f"FROM ({rel.sql}) AS _r0 WHERE ts_start IS NOT NULL AND dur_ns IS NOT NULL)"
    )
    prepare = (
        f"CREATE TEMP TABLE {procs} AS SELECT _node, _service, row_number() OVER "
        f"(ORDER BY _node, _service) AS pid FROM (SELECT DISTINCT _node, _service FROM {src})",
        f"CREATE TEMP TABLE {traces} AS SELECT trace_id, row_number() OVER (ORDER BY trace_id) "
        f"AS tid FROM (SELECT DISTINCT trace_id FROM {src})",
    )
    joined = f"{src} AS s JOIN {procs} p USING (_node, _service) JOIN {traces} t USING (trace_id)"
    parent = "s.parent_span_id" if "parent_span_id" in columns else "0"
    args = _object(
        [
            ("trace_id", f"to_json({_hex('s.trace_id')})"),
            ("span_id", f"to_json({_hex('s.span_id')})"),
            ("parent_span_id", f"to_json({_hex(f'coalesce({parent}, 0)')})"),
            ("node", "to_json(s._node)"),
            ("service", "to_json(s._service)"),
            ("annotations", "to_json(s.annotations)" if "annotations" in columns else "NULL"),
            ("keyvals", "to_json(s.keyvals)" if "keyvals" in columns else "NULL"),
        ]
    )
    event = _Complete(
        "s.name" if "name" in columns else "'span'",
        "span",
        _us(f"s.ts_start - {base}"),
        _us("s.dur_ns"),
        "p.pid",
        "t.tid",
        args,
    )
    proc_name = _meta("process_name", "pid", "0", "trim(_service || ' ' || _node)")
    thread_name = _meta("thread_name", "p.pid", "t.tid", "'trace ' || " + _hex("t.trace_id"))
    parts = (
        f"SELECT {proc_name} FROM {procs} ORDER BY pid",
        f"SELECT {thread_name} FROM (SELECT DISTINCT _node, _service, trace_id FROM {src}) AS d "
        f"JOIN {procs} p USING (_node, _service) JOIN {traces} t USING (trace_id)",
        f"SELECT {event.json()} FROM {joined}",
    )
    return JsonPlan(
        head,
        "\n]}\n",
        f"SELECT count(*) FROM {src}",
        parts,
        prepare,
        (f"DROP TABLE IF EXISTS {procs}", f"DROP TABLE IF EXISTS {traces}"),
    )


def _chrome_syscalls(db: Database, rel: Relation, columns: dict[str, str]) -> JsonPlan:
    """One process per (node, pid), threads by their tid, one complete event per call."""
    head, base = _chrome_head(db, rel.sql, "ts_entry")
    (procs,) = _temp_names("procs")
    node, pid = _col(columns, "node", "''"), _col(columns, "pid", "-1")
    procname = _col(columns, "procname", "''")
    src = (
        f"(SELECT *, coalesce({node}, '') AS _node, coalesce({pid}, -1) AS _pid, "
        f"coalesce({procname}, '') AS _procname, coalesce(tid, -1) AS _tid "
        f"FROM ({rel.sql}) AS _r0 WHERE ts_entry IS NOT NULL AND dur_ns IS NOT NULL)"
    )
    prepare = (
        f"CREATE TEMP TABLE {procs} AS SELECT _node, _pid, max(_procname) AS procname, "
        f"row_number() OVER (ORDER BY _node, _pid) AS cpid FROM {src} GROUP BY _node, _pid",
    )
    joined = f"{src} AS s JOIN {procs} p USING (_node, _pid)"
    args = _object(
        [
            ("node", "to_json(s._node)"),
            ("pid", "to_json(s._pid)"),
            ("tid", "to_json(s._tid)"),
            ("cpu", "to_json(s.cpu)" if "cpu" in columns else "NULL"),
            ("ret", "to_json(s.ret)" if "ret" in columns else "NULL"),
        ]
    )
    event = _Complete(
        "s.name", "syscall", _us(f"s.ts_entry - {base}"), _us("s.dur_ns"), "p.cpid", "s._tid", args
    )
    proc_name = _meta("process_name", "cpid", "0", "trim(procname || ' ' || _pid || ' ' || _node)")
    thread_name = _meta("thread_name", "p.cpid", "d._tid", "d.procname || ' ' || d._tid")
    parts = (
        f"SELECT {proc_name} FROM {procs} ORDER BY cpid",
        f"SELECT {thread_name} FROM (SELECT _node, _pid, _tid, max(_procname) AS procname "
        f"FROM {src} GROUP BY ALL) AS d JOIN {procs} p USING (_node, _pid)",
        f"SELECT {event.json()} FROM {joined}",
    )
    return JsonPlan(
        head,
        "\n]}\n",
        f"SELECT count(*) FROM {src}",
        parts,
        prepare,
        (f"DROP TABLE IF EXISTS {procs}",),
    )
