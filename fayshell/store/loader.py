"""Load CTF trace chunks into the DuckDB store: events, payload tables, chunks, derived tables.

``import_trace(db, path)`` finds every trace directory under ``path`` (a trace, an LTTng session
output, or a tree laid out ``DIR/<session>/<node>/<chunk>/`` as Receive-Trace writes it) and
loads each chunk once: a chunk already in ``chunks`` is skipped. Sizes and switches come from
one :class:`~fayshell.store.settings.LoadSettings`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.concurrency import Background
from fayshell.ctf.decode import EventBatch, StreamReader, StreamStats, stream_readers
from fayshell.ctf.trace import Trace, find_traces, open_trace
from fayshell.errors import FayError, Interrupted, StoreError, TraceFormatError
from fayshell.host import ProgressTask
from fayshell.store import derived
from fayshell.store.arrowsql import duck_type, q
from fayshell.store.database import append_rows, transaction
from fayshell.store.evict import keep_queues_short, shrink_pool
from fayshell.store.kernel import ENTRY_RE, EXIT_RE, SyscallStager, ThreadFact
from fayshell.store.pending import PendingChunk
from fayshell.store.relation import quote_literal
from fayshell.store.schema import (
    EVENT_BASE_COLUMNS,
    EVENT_ROW_COLUMNS,
    ensure_schema,
    payload_table_name,
    refresh_events_view,
)
from fayshell.store.settings import DEFAULT_SETTINGS, LoadSettings
from fayshell.store.spans import SpanStager, build_spans
from fayshell.store.writer import FlushWriter, Insert, RowGroupHold

if TYPE_CHECKING:
    import duckdb
    import numpy as np
    import pyarrow as pa

    from fayshell.store import derive_arrow as da
    from fayshell.store.database import Database
    from fayshell.store.kernel import StagedOutcome


@dataclass
class ImportResult:
    """What an import did: chunks loaded and skipped, events, losses, damage found."""

    chunks_loaded: int = 0
    chunks_skipped: int = 0
    events: int = 0
    discarded: int = 0
    lost_packets: int = 0
    errors: list[FayError] = field(default_factory=list)
    chunk_ids: list[str] = field(default_factory=list)

    def merge(self, other: ImportResult) -> None:
        """Add another result's counts to this one."""
        self.chunks_loaded += other.chunks_loaded
        self.chunks_skipped += other.chunks_skipped
        self.events += other.events
        self.discarded += other.discarded
        self.lost_packets += other.lost_packets
        self.errors.extend(other.errors)
        self.chunk_ids.extend(other.chunk_ids)


@dataclass(kw_only=True)
class ChunkLoad:
    """The state of one chunk being loaded inside its transaction."""

    settings: LoadSettings
    trace: Trace
    chunk_id: str
    node: str
    session: str
    eid_lo: int
    chunk_no: int
    class_ids: np.ndarray  # store class id (event_names) of each trace class index
    eid_next: int = 0
    seen: set[int] = field(default_factory=set)
    context_names: dict[str, str] = field(default_factory=dict)
    stats: list[StreamStats] = field(default_factory=list)
    stager: SyscallStager | None = None
    spans: SpanStager | None = None
    writer: FlushWriter
    hold: RowGroupHold
    unchecked: int = 0  # bytes appended since the last checkpoint
    flushes: int = 0  # flushes handed to the writer
    last_flush: list[Insert] = field(default_factory=list)  # see _flush
    answer_first: bool = False  # the chunk is kept in memory and written in the background
    held: Staged | None = None  # what answer_first kept (nothing of it flushed yet)
    catalog: Catalog | None = None

    @property
    def class_names(self) -> set[str]:
        return {self.trace.classes[i].name for i in self.seen}

    def payload_tables(self) -> dict[str, str]:
        """Payload table of each class the chunk has rows of (its domain's), from the catalog."""
        assert self.catalog is not None
        names, domain = self.class_names, self.trace.domain
        return {n: t for (n, dom), t in self.catalog.tables.items() if dom == domain and n in names}

    def payload_columns(self, tables: dict[str, str]) -> dict[str, set[str]]:
        """The (lower-case) columns of each of ``tables``, from the catalog."""
        assert self.catalog is not None
        return {t: set(self.catalog.columns.get(t, ())) for t in tables.values()}


def import_trace(
    db: Database,
    path: str | Path,
    node: str | None = None,
    session: str | None = None,
    progress: ProgressTask | None = None,
    settings: LoadSettings = DEFAULT_SETTINGS,
    started: Decoding | None = None,
) -> ImportResult:
    """Load every chunk under ``path`` into ``db``; damaged streams are reported, not fatal.
    ``started``: one of its chunks already decoding (:func:`start_first_chunk`), stopped here
    whether it is used or not."""
    try:
        ensure_schema(db)
        root = Path(path).expanduser()
        with import_settings(db, settings):
            result = _import_all(db, root, node, session, progress, settings, started)
    finally:
        if started is not None:
            started.close()
    if not db.has_pending:
        _after_import(db, settings)
    return result


def start_first_chunk(path: str | Path, settings: LoadSettings) -> Decoding | None:
    """The first chunk under ``path``, decoding from now on (None when there is none, or when
    it cannot be read: the import reports that in its turn). A fresh shell's database opens
    meanwhile: duckdb's import and the file take about 0.15 s on one core, while the decoder
    threads fill the other."""
    # what the decoder threads' Python parts import, imported first: imported on those
    # threads, it took turns with duckdb's import for the GIL and ended 0.25 s later
    import numpy  # noqa: F401
    import pyarrow  # noqa: F401

    try:
        dirs = find_traces(Path(path).expanduser())
        return Decoding.start(open_trace(dirs[0]), settings) if dirs else None
    except TraceFormatError:
        return None


def _after_import(db: Database, settings: LoadSettings) -> None:
    """The pool evicted and its queues kept short, as ``settings`` ask."""
    if settings.evict_to is not None:
        shrink_pool(db, settings.evict_to)
    if settings.max_dead_entries:
        keep_queues_short(db, settings.max_dead_entries)


@contextmanager
def import_settings(db: Database, settings: LoadSettings) -> Iterator[None]:
    """Bounded memory and no insertion-order bookkeeping for the duration of an import."""
    names = ("memory_limit", "preserve_insertion_order")
    keep = db.execute("SELECT " + ", ".join(f"current_setting('{n}')" for n in names))[0]
    db.execute(
        f"SET memory_limit = {_lit(settings.memory_limit)}; SET preserve_insertion_order = false"
    )
    try:
        yield
    finally:
        back = [
            exact_size(v) if n == "memory_limit" else v for n, v in zip(names, keep, strict=True)
        ]
        db.execute("; ".join(f"SET {n} = {_lit(v)}" for n, v in zip(names, back, strict=True)))


#: How DuckDB shows a size setting: one decimal and a binary unit ("18.8 GiB").
_SHOWN_SIZE = re.compile(r"(\d+\.\d) ([KMGT]iB)")


def exact_size(shown: str) -> str:
    """A size as DuckDB shows it, to set it back so that it shows the same again.

    DuckDB truncates the value it shows to one decimal, so setting back what it showed loses
    up to a tenth of a unit each time ("18.8 GiB" became 18.7, 18.6, 18.5 GiB over a live
    view's first imports); the middle of the shown tenth ("18.85 GiB") shows as itself.
    """
    m = _SHOWN_SIZE.fullmatch(shown)
    return f"{m[1]}5 {m[2]}" if m else shown


def _lit(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return quote_literal(str(value))


def _import_all(
    db: Database,
    root: Path,
    node: str | None,
    session: str | None,
    progress: ProgressTask | None,
    settings: LoadSettings,
    started: Decoding | None,
) -> ImportResult:
    result = ImportResult()
    try:
        dirs = find_traces(root)
    except TraceFormatError as exc:
        result.errors.append(exc)
        return result
    if not dirs:
        result.errors.append(TraceFormatError(str(root), None, "no CTF trace (metadata) found"))
    for k, tdir in enumerate(dirs, 1):
        shown = (
            None
            if progress is None
            else ChunkProgress(progress, f"chunk {k}/{len(dirs)} {tdir.name}")
        )
        first = started if started is not None and started.trace.path == tdir else None
        try:
            result.merge(load_chunk(db, tdir, root, node, session, shown, settings, first))
        except TraceFormatError as exc:
            result.errors.append(exc)
    return result


@dataclass
class ChunkProgress:
    """The import's bar while one chunk loads: bytes advance it, and its description says
    which chunk of how many and the events decoded so far."""

    task: ProgressTask
    label: str

    def __post_init__(self) -> None:
        self.task.update(description=self.label)

    def advance(self, amount: float = 1.0) -> None:
        self.task.advance(amount)

    def update(
        self,
        *,
        completed: float | None = None,
        total: float | None = None,
        description: str | None = None,
    ) -> None:
        self.task.update(completed=completed, total=total, description=description)

    def close(self) -> None:
        """The caller closes the whole bar, not one chunk."""

    def decoded(self, events: int) -> None:
        self.task.update(description=f"{self.label}: {events:,} events")


def remove_orphans(db: Database) -> None:
    """Drop rows of an interrupted load: events are committed per batch, but a chunk counts
    (chunks row, store_state.next_eid, derived tables) only in its final transaction."""
    nxt = db.execute("SELECT next_eid FROM store_state")[0][0]
    if not db.execute("SELECT count(*) FROM event_rows WHERE eid >= ?", [nxt])[0][0]:
        return
    with transaction(db.con):
        db.execute("DELETE FROM event_rows WHERE eid >= ?", [nxt])
        db.execute(
            "DELETE FROM spans WHERE chunk_no > (SELECT coalesce(max(chunk_no), 0) FROM chunks)"
        )
        for (t,) in db.execute("SELECT DISTINCT table_name FROM event_classes"):
            db.execute(f"DELETE FROM {q(t)} WHERE eid >= ?", [nxt])
        derived.remove_syscall_orphans(db)  # written with the same flushes as the events


@contextmanager
def settled(db: Database) -> Iterator[None]:
    """``db.lock`` held, with no chunk being written in the background (another thread's
    import may publish one between the wait and the lock: then wait again)."""
    while True:
        db.wait_pending()
        db.lock.acquire()
        if not db.has_pending:
            break
        db.lock.release()
    try:
        yield
    finally:
        db.lock.release()


def layout_names(tdir: Path, root: Path) -> tuple[str | None, str | None]:
    """(session, node) from a ``<session>/<node>/<chunk>/`` layout under ``root``, if any."""
    try:
        rel = list(tdir.relative_to(root).parts)
    except ValueError:
        return None, None
    for marker in ("kernel", "ust"):
        if marker in rel:
            rel = rel[: rel.index(marker)]
    if len(rel) >= 3:
        return rel[-3], rel[-2]
    return None, None


def chunk_digest(trace: Trace) -> str:
    """A content digest of a chunk: metadata, and size plus head/tail bytes of each stream."""
    h = hashlib.sha1()
    h.update((trace.path / "metadata").read_bytes())
    for f in trace.files:
        size = f.stat().st_size
        h.update(f"{f.name}:{size}".encode())
        with open(f, "rb") as fh:
            h.update(fh.read(4096))
            if size > 4096:
                fh.seek(max(4096, size - 4096))
                h.update(fh.read(4096))
    return h.hexdigest()[:20]


def load_chunk(
    db: Database,
    tdir: Path,
    root: Path,
    node: str | None,
    session: str | None,
    progress: ProgressTask | None,
    settings: LoadSettings = DEFAULT_SETTINGS,
    started: Decoding | None = None,
) -> ImportResult:
    """Load one trace directory (one chunk). Events go in committed batches (bounded memory);
    the chunk counts, with its derived rows, only in the final transaction. ``started``: this
    chunk already decoding."""
    result = ImportResult()
    trace = open_trace(tdir) if started is None else started.trace
    lay_session, lay_node = layout_names(tdir, root)
    node = node or lay_node or trace.hostname or "localhost"
    session = session or lay_session or str(trace.meta.env.get("trace_name") or root.name)
    cid = chunk_digest(trace)
    with settled(db):  # chunk numbers, eids and carried state follow the previous chunk
        state = StoreState.read(db, cid)
        if state.loaded:
            if started is not None:
                started.close()  # imported before: its decoders stop now, not at the import's end
            result.chunks_skipped = 1
            if progress is not None:
                progress.advance(sum(f.stat().st_size for f in trace.files))
            return result
        if state.orphans:
            remove_orphans(db)
        try:
            load = _load(db, trace, cid, node, session, progress, settings, state, started)
            if load.answer_first and _publish(db, load, tdir):
                return _result(load)
            if load.held is not None:
                _flush_held(db, load)
            info = derived.ChunkInfo(
                node=node,
                session=session,
                chunk_id=cid,
                eid_lo=load.eid_lo,
                eid_hi=load.eid_next - 1,
                class_names=load.class_names,
                context=dict(load.context_names),
                chunk_no=load.chunk_no,
                staged=None if load.stager is None else load.stager.outcome(_fast_ok(load.stager)),
                tables=load.payload_tables(),
            )
            info.columns = load.payload_columns(info.tables)
            with transaction(db.con):
                for job in load.last_flush:  # a chunk of one flush: its rows, in this transaction
                    job.run(db.con)
                _finish(db, load, tdir)  # first: the events view takes node/session from it
                derived.derive_chunk(db, info, settings)
        except BaseException as exc:
            db.catalog = None  # read it again: what failed may have changed it
            remove_orphans(db)
            if isinstance(exc, FayError) and not isinstance(exc, Interrupted):
                raise StoreError(f"{tdir}: {exc.message}") from None
            if isinstance(exc, Exception) and type(exc).__module__.startswith("duckdb"):
                raise StoreError(f"{tdir}: {exc}") from None
            raise
    return _result(load)


def _result(load: ChunkLoad) -> ImportResult:
    result = ImportResult(chunks_loaded=1, chunk_ids=[load.chunk_id])
    for st in load.stats:
        result.events += st.events
        result.discarded += st.discarded
        result.lost_packets += st.lost_packets
        if st.error is not None:
            result.errors.append(st.error)
    return result


@dataclass
class Staged:
    """Decoded batches waiting to be inserted together (fewer, larger inserts)."""

    events: list[pa.Table] = field(default_factory=list)
    payload: dict[int, list[pa.Table]] = field(default_factory=dict)
    rows: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class StoreState:
    """What a chunk's load needs to know of the store before it starts, in one statement:
    the next eid, whether an interrupted load left rows behind (rows from the next eid on),
    the chunk's number, and how many event names and classes there are (the cached
    :class:`Catalog` is current when these match); whether the chunk is loaded comes from
    ``db.loaded_chunks``, which that statement's row count and last number keep current."""

    loaded: bool
    next_eid: int
    orphans: bool
    chunk_no: int
    names: int
    classes: int

    @classmethod
    def read(cls, db: Database, chunk_id: str) -> StoreState:
        # one-row tables joined: DuckDB runs scalar subqueries several times slower
        # orphans counted from next_eid on, not max(eid): row groups below it are skipped
        # (a scan of every eid made each load of a long live session slower)
        rows, last_no, nxt, orphans, names, classes = db.execute(
            "SELECT * FROM (SELECT count(*), coalesce(max(chunk_no), 0) FROM chunks), "
            "(SELECT max(next_eid) FROM store_state), (SELECT count(*) FROM event_rows "
            "WHERE eid >= (SELECT max(next_eid) FROM store_state)), "
            "(SELECT count(*) FROM event_names), (SELECT count(*) FROM event_classes)"
        )[0]
        db.loaded_chunks.update(db.execute, rows, last_no)
        loaded = chunk_id in db.loaded_chunks
        return cls(loaded, nxt, orphans > 0, last_no + 1, names, classes)


@dataclass
class Catalog:
    """Event names, payload tables and their columns: read when a load finds the store's
    counts changed (or after a failed load, or a schema change), kept current by the loads
    on ``db.catalog``."""

    names: dict[str, int]
    tables: dict[tuple[str, str], str]
    columns: dict[str, set[str]]

    @classmethod
    def of(cls, db: Database, state: StoreState) -> Catalog:
        """The database's catalog: the one kept on ``db`` when still current, else read."""
        kept = db.catalog
        if (
            isinstance(kept, Catalog)
            and len(kept.names) == state.names
            and len(kept.tables) == state.classes
        ):
            return kept
        db.catalog = None
        db.catalog = catalog = cls.read(db)
        return catalog

    @classmethod
    def read(cls, db: Database) -> Catalog:
        names = dict(db.execute("SELECT name, class_id FROM event_names"))
        rows = db.execute("SELECT name, domain, table_name FROM event_classes")
        cols: dict[str, set[str]] = {}
        for t, c in db.execute(
            "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main'"
        ):
            cols.setdefault(t, set()).add(c.lower())
        return cls(names, {(n, d): t for n, d, t in rows}, cols)


def _load(
    db: Database,
    trace: Trace,
    cid: str,
    node: str,
    session: str,
    progress: ProgressTask | None,
    settings: LoadSettings,
    state: StoreState,
    started: Decoding | None,
) -> ChunkLoad:
    decoding = started or Decoding.start(trace, settings)
    readers, batches = decoding.readers, decoding.batches
    with closing(decoding):  # decoding while the catalog is read
        base = state.next_eid
        catalog = Catalog.of(db, state)
        ids = class_ids(db, trace, catalog)
        load = ChunkLoad(
            settings=settings,
            trace=trace,
            chunk_id=cid,
            node=node,
            session=session,
            eid_lo=base,
            chunk_no=state.chunk_no,
            class_ids=ids,
            eid_next=base,
            writer=FlushWriter(db),
            hold=RowGroupHold(settings),
            stager=_stager(db, trace, node, session, settings),
            spans=SpanStager.for_classes([ev.name for ev in trace.classes]),
            catalog=catalog,
        )
        load.answer_first = (
            settings.answer_first and _fits(trace, settings) and _answerable(trace, load.stager)
        )
        staged = Staged()
        reported: dict[int, int] = {}
        try:
            for reader, batch in batches:
                _stage(db, load, batch, staged, catalog)
                if progress is not None:
                    done = reader.stats.bytes_read
                    progress.advance(done - reported.get(id(reader), 0))
                    reported[id(reader)] = done
                    if isinstance(progress, ChunkProgress):
                        progress.decoded(load.eid_next - load.eid_lo)
                if staged.rows >= settings.flush_rows or staged.bytes >= settings.flush_bytes:
                    if load.answer_first and staged.bytes < settings.pending_bytes:
                        continue  # kept whole for answer_first
                    load.answer_first = False
                    _flush(db, load, staged, catalog)
                    staged = Staged()
            if load.answer_first:
                load.held = staged
            else:
                _flush(db, load, staged, catalog, final=True)
            load.writer.wait()
        finally:
            load.writer.drain()  # never leave a write running when an error propagates
    for reader in readers:
        load.stats.append(reader.stats)
        if progress is not None:
            progress.advance(reader.size() - reported.get(id(reader), 0))
    return load


@dataclass
class Decoding:
    """A chunk's stream readers and their batches, decoding from the moment it is made (the
    settings' batch source starts the decoder threads); :meth:`close` stops them, however the
    import ends."""

    trace: Trace
    readers: list[StreamReader]
    batches: Iterator[tuple[StreamReader, EventBatch]]

    @classmethod
    def start(cls, trace: Trace, settings: LoadSettings) -> Decoding:
        # syscall pairing (staged, or in SQL by ts then eid) takes each CPU's events in file
        # order, ties included: such files are never cut into parts decoded in any order
        parts = 0 if _has_syscalls(trace) else settings.part_bytes
        readers = stream_readers(
            trace, settings.prefer_c, settings.batch_rows, parts, settings.decode_workers
        )
        return cls(trace, readers, settings.batches(readers))

    def close(self) -> None:
        close = getattr(self.batches, "close", None)
        if close is not None:
            close()


def class_ids(db: Database, trace: Trace, catalog: Catalog) -> np.ndarray:
    """The event_names id of each of the trace's classes (new names get new ids)."""
    import numpy as np

    known = catalog.names
    top = max(known.values(), default=0)
    new = []
    for ev in trace.classes:
        if ev.name not in known:
            top += 1
            known[ev.name] = top
            new.append((top, ev.name))
    # a failure here drops the cached catalog (load_chunk)
    append_rows(db.con, "event_names", new)
    return np.array([known[ev.name] for ev in trace.classes] or [0], dtype=np.int32)


def _stage(
    db: Database, load: ChunkLoad, batch: EventBatch, staged: Staged, catalog: Catalog
) -> None:
    """Give a batch its eids, names and context columns; keep it for the next flush."""
    import numpy as np
    import pyarrow as pa

    n = batch.common.num_rows
    if n == 0:
        return
    base = load.eid_next
    load.eid_next += n
    common = batch.common
    cols: dict[str, Any] = {
        "stream_id": pa.array(np.full(n, batch.stream_id, dtype=np.int32)),
        "cpu": common.column("cpu"),
        "ts": common.column("ts"),
        "class_id": pa.array(load.class_ids[common.column("cls").to_numpy()]),
        "eid": pa.array(np.arange(base, base + n, dtype=np.int64)),
    }
    for cname in common.column_names[3:]:
        cols[_context_column(db, load, cname, common.schema.field(cname).type, catalog)] = (
            common.column(cname)
        )
    staged.events.append(pa.table(cols))
    staged.rows += n
    staged.bytes += batch.common.nbytes + sum(t.nbytes for t in batch.payload.values())
    if load.stager is not None:
        tid_col = next((c for c in ("tid", "vtid") if c in common.column_names), None)
        load.stager.add(str(batch.path), common, batch.payload, base, tid_col)
    if load.spans is not None:
        load.spans.add(common.column("ts"), batch.payload)
    for cls, table in batch.payload.items():
        if table.num_rows == 0:
            continue
        load.seen.add(cls)
        eid = pa.array(table.column("row").to_numpy() + base)
        rest = table.drop(["row"])
        rest = rest.rename_columns(["eid_" if c == "eid" else c for c in rest.column_names])
        staged.payload.setdefault(cls, []).append(rest.add_column(0, "eid", eid))


def _flush(
    db: Database, load: ChunkLoad, staged: Staged, catalog: Catalog, final: bool = False
) -> None:
    """Insert the staged events and payloads, one statement per table, and commit (a long
    transaction would hold every appended row in memory). The inserts run in the background
    (``load.writer``) while the next batches are decoded; tables are created here, first.
    A chunk whose first flush is its last leaves its inserts to its final transaction."""
    rows = load.spans.take() if load.spans is not None else None
    # built while the writer still works
    spans = build_spans(rows, load.settings.prefer_c) if rows is not None else None
    load.writer.wait()
    for ins in _flush_jobs(db, load, staged, catalog):
        load.hold.add(ins)
    if spans is not None:
        load.hold.add(
            Insert(
                "spans",
                spans,
                "? AS node, ? AS session, ? AS chunk_no, *",
                [load.node, load.session, load.chunk_no],
            )
        )
    jobs = load.hold.take(final)
    if final and not load.flushes:
        # the whole chunk in one flush (a small chunk): written by the chunk's own transaction,
        # with no thread and no commit of its own
        load.last_flush = jobs
        return
    load.flushes += 1

    def write(con: duckdb.DuckDBPyConnection) -> None:
        with transaction(con):
            for job in jobs:
                job.run(con)
        load.unchecked += sum(job.data.nbytes for job in jobs)
        if load.unchecked >= load.settings.checkpoint_bytes:
            _checkpoint(con)
            load.unchecked = 0

    load.writer.submit(write)


def _checkpoint(con: duckdb.DuckDBPyConnection) -> None:
    """Checkpoint now, unless another connection's transaction is open (then later)."""
    import duckdb

    with suppress(duckdb.Error):
        con.execute("CHECKPOINT")


def _flush_jobs(db: Database, load: ChunkLoad, staged: Staged, catalog: Catalog) -> list[Insert]:
    """The inserts of a flush, with the payload tables they need created or widened."""
    import pyarrow as pa

    jobs: list[Insert] = []
    if staged.events:
        events = pa.concat_tables(staged.events, promote_options="permissive")
        jobs.append(Insert("event_rows", events, "? AS chunk_no, *", [load.chunk_no]))
    payload = _concat(staged.payload)
    for cls, name in _payload_tables(db, load, payload, catalog).items():
        jobs.append(Insert(name, payload[cls]))
    if load.stager is not None:
        jobs.extend(load.stager.take(load.node, load.session))
    return jobs


def _stager(
    db: Database, trace: Trace, node: str, session: str, settings: LoadSettings
) -> SyscallStager | None:
    """A syscall stager (and its temp tables) when the trace has syscall events."""
    st = SyscallStager(trace.classes, compiled=settings.prefer_c)
    if not st.relevant or not settings.fast_syscalls:
        return None
    params = [node, session]
    rows = db.execute(
        "SELECT cpu, tid, procname FROM cpu_state WHERE node = ? AND session = ?", params
    )
    st.start = {cpu: (tid, comm) for cpu, tid, comm in rows}
    rows = db.execute(
        "SELECT tid, max(ts), arg_max(pid, ts) FROM threads WHERE node = ? "
        "AND session = ? AND tid IS NOT NULL AND pid IS NOT NULL GROUP BY tid",
        params,
    )
    st.facts = {tid: ThreadFact(ts, pid) for tid, ts, pid in rows}
    st.rowid_lo = derived.mark_syscalls(db)
    st.carry_pending(
        db.execute(
            "SELECT cpu, tid, pid, procname, name, ts FROM pending_syscalls "
            "WHERE node = ? AND session = ?",
            params,
        )
    )
    db.execute(
        "CREATE OR REPLACE TEMP TABLE fay_pairs (cpu INTEGER, tid BIGINT, "
        "procname VARCHAR, name VARCHAR, ts_entry BIGINT, ts_exit BIGINT, dur_ns BIGINT, "
        "ret BIGINT)"
    )
    db.execute(
        "CREATE OR REPLACE TEMP TABLE fay_runs (tid BIGINT, cpu INTEGER, hkind TINYINT, "
        "hts BIGINT, heid BIGINT, hret BIGINT, tkind TINYINT, tts BIGINT, tname INTEGER, "
        "tprocname INTEGER, pid BIGINT)"
    )
    return st


def _fast_ok(st: SyscallStager) -> bool:
    """Stream-local pairing holds when each CPU's events are in one stream file."""
    cpus = [c.cpu for c in st.carry.values()]
    return None not in cpus and len(set(cpus)) == len(cpus)


def _context_column(
    db: Database, load: ChunkLoad, name: str, atype: pa.DataType, catalog: Catalog
) -> str:
    """The event_rows column of a stream context field, added (with the view) when new."""
    taken = name in EVENT_BASE_COLUMNS or name in EVENT_ROW_COLUMNS
    col = f"ctx_{name}" if taken else name
    if name not in load.context_names:
        have = catalog.columns.setdefault("event_rows", set())
        if col.lower() not in have:
            load.writer.wait()  # the connection is the background writer's until then
            db.execute(
                f"ALTER TABLE event_rows ADD COLUMN IF NOT EXISTS {q(col)} {duck_type(atype)}"
            )
            refresh_events_view(db)
            have.add(col.lower())
        load.context_names[name] = col
    return col


def _concat(payload: dict[int, list[pa.Table]]) -> dict[int, pa.Table]:
    """Each class's staged payload batches as one table."""
    import pyarrow as pa

    return {
        cls: pa.concat_tables(tables, promote_options="permissive")
        for cls, tables in payload.items()
    }


def _payload_tables(
    db: Database, load: ChunkLoad, tables: dict[int, pa.Table], catalog: Catalog
) -> dict[int, str]:
    """The payload table of each class in ``tables``, created or widened to hold its columns:
    a few statements for them all (a real kernel trace has hundreds of classes, and DuckDB
    takes about a millisecond for each statement)."""
    domain = load.trace.domain
    names: dict[int, str] = {}
    new: list[tuple[Any, ...]] = []
    for cls in tables:
        ev = load.trace.classes[cls]
        tname = catalog.tables.get((ev.name, domain))
        if tname is None:  # the catalog is read again when the load fails
            tname = catalog.tables[(ev.name, domain)] = _free_name(ev.name, catalog)
            new.append((ev.name, domain, ev.loglevel, tname))
        names[cls] = tname
    ddl = [sql for cls, table in tables.items() for sql in _ddl(names[cls], table, catalog)]
    if new or ddl:
        with transaction(db.con):
            append_rows(db.con, "event_classes", new)
            if ddl:
                db.execute(";\n".join(ddl))
    return names


def _free_name(event: str, catalog: Catalog) -> str:
    """A payload table name for ``event`` that no other class has."""
    taken = set(catalog.tables.values())
    want = tname = payload_table_name(event)
    n = 2
    while tname in taken:
        tname = f"{want}_{n}"
        n += 1
    return tname


def _ddl(tname: str, table: pa.Table, catalog: Catalog) -> list[str]:
    """What creates ``tname`` with ``table``'s columns (one statement), or adds those it lacks."""
    have = catalog.columns.get(tname)
    if have is None:
        defs = {"eid": "eid BIGINT"}
        for f in table.schema:
            defs.setdefault(f.name.lower(), _column(f))
        catalog.columns[tname] = set(defs)
        return [f"CREATE TABLE IF NOT EXISTS {q(tname)} ({', '.join(defs.values())})"]
    out = []
    for f in table.schema:
        if f.name.lower() not in have:
            out.append(f"ALTER TABLE {q(tname)} ADD COLUMN IF NOT EXISTS {_column(f)}")
            have.add(f.name.lower())
    return out


def _column(f: pa.Field) -> str:
    """The column definition of an Arrow field."""
    return f"{q(f.name)} {duck_type(f.type)}"


def _finish(db: Database, load: ChunkLoad, tdir: Path) -> None:
    stats = load.stats
    firsts = [s.first_ts for s in stats if s.first_ts is not None]
    lasts = [s.last_ts for s in stats if s.last_ts is not None]
    size = sum(f.stat().st_size for f in load.trace.files)
    db.execute(
        "INSERT INTO chunks (chunk_id, node, session, path, bytes, events, discarded, "
        "lost_packets, first_ts, last_ts, loaded_at, domain, errors, chunk_no) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, current_timestamp::TIMESTAMP, ?, ?, ?)",
        [
            load.chunk_id,
            load.node,
            load.session,
            str(tdir),
            size,
            sum(s.events for s in stats),
            sum(s.discarded for s in stats),
            sum(s.lost_packets for s in stats),
            min(firsts) if firsts else None,
            max(lasts) if lasts else None,
            load.trace.domain,
            sum(1 for s in stats if s.error is not None),
            load.chunk_no,
        ],
    )
    db.execute("UPDATE store_state SET next_eid = ?", [load.eid_next])


# --- answer_first: the chunk kept in memory, queryable at once, written in the background ---


def _fits(trace: Trace, settings: LoadSettings) -> bool:
    """Whether the chunk can be held whole (answer_first): decided before decoding, so a big
    trace goes the bounded-memory way from its first batch instead of after half a GiB."""
    size = sum(f.stat().st_size for f in trace.files)
    return size * settings.decoded_per_file_byte <= settings.pending_bytes


def _has_syscalls(trace: Trace) -> bool:
    """Whether the trace declares syscall entry or exit events."""
    return any(ENTRY_RE.match(ev.name) or EXIT_RE.match(ev.name) for ev in trace.classes)


def _answerable(trace: Trace, stager: SyscallStager | None) -> bool:
    """Whether every table the chunk feeds can be derived in Arrow (derive_arrow): not yet
    logs, nor syscalls paired by the all-SQL path."""
    names = [ev.name for ev in trace.classes]
    if any(n in derived.AGENTS for n in names):
        return False
    if trace.domain == "ust" and any(
        ev.loglevel is not None
        and ev.loglevel < derived.DEBUG_LINE
        and not ev.name.startswith("zipkin:")
        for ev in trace.classes
    ):
        return False
    return stager is not None or not _has_syscalls(trace)


def _flush_held(db: Database, load: ChunkLoad) -> None:
    """Write what answer_first kept, the usual way (the chunk turned out not to qualify)."""
    assert load.held is not None and load.catalog is not None
    held, load.held = load.held, None
    try:
        _flush(db, load, held, load.catalog, final=True)
        load.writer.wait()
    finally:
        load.writer.drain()


def _publish(db: Database, load: ChunkLoad, tdir: Path) -> bool:
    """Derive the held chunk in Arrow and hand it to the background writer; False when the
    staged syscall pairing does not hold (then the chunk goes the usual way)."""
    from fayshell.store.derive_arrow import paired_runs

    st = load.stager
    if st is None:
        chunk = _pending_chunk(db, load, tdir, None)
    elif not (st.ok and _fast_ok(st)):
        return False
    else:
        with Background(paired_runs, st) as paired:  # sorted on the other core meanwhile
            direct = st.resolved()  # before outcome(): it records the pids it used
            syscalls = _Syscalls(direct, st.outcome(True), paired)
            chunk = _pending_chunk(db, load, tdir, syscalls)
    derived.drop_staged(db)
    db.pending.publish(chunk, load.settings.before_commit, held=load.settings.hold_write)
    return True


@dataclass
class _Syscalls:
    """What the syscall stager resolved for a held chunk (answer_first)."""

    direct: pa.Table | None
    outcome: StagedOutcome
    paired: Background[pa.Table | None]


def _pending_chunk(
    db: Database, load: ChunkLoad, tdir: Path, syscalls: _Syscalls | None
) -> PendingChunk:
    from fayshell.store import derive_arrow as da

    assert load.held is not None
    c = da.ArrowChunk(
        db=db,
        dbname=db.current_name(),
        node=load.node,
        session=load.session,
        chunk_no=load.chunk_no,
        eid_lo=load.eid_lo,
    )
    rows = load.spans.take() if load.spans is not None and load.held.events else None
    if rows is None:
        out = _pending_rows(db, load, c, syscalls)
    else:  # the spans are built on the other core meanwhile
        with Background(build_spans, rows, load.settings.prefer_c) as spans:
            out = _pending_rows(db, load, c, syscalls)
            tables = load.payload_tables()
            da.add_spans(c, out, rows, spans.result(), tables, load.settings.prefer_c)
    out.add("chunks", _chunk_row(load, tdir))
    out.finish = [
        ("UPDATE store_state SET next_eid = ?", [load.eid_next]),
        ("UPDATE syscalls_mark SET next_rowid = NULL", []),
    ]
    return out


def _pending_rows(
    db: Database, load: ChunkLoad, c: da.ArrowChunk, syscalls: _Syscalls | None
) -> PendingChunk:
    """A held chunk's events, payload, threads and syscalls (all but its spans)."""
    import pyarrow as pa

    from fayshell.store import derive_arrow as da

    held, catalog = load.held, load.catalog
    assert held is not None and catalog is not None
    out = PendingChunk(load.chunk_id)
    by_name: dict[str, pa.Table] = {}
    payload = _concat(held.payload)
    for cls, name in _payload_tables(db, load, payload, catalog).items():
        out.add(name, payload[cls])
        by_name[load.trace.classes[cls].name] = payload[cls]
    if held.events:
        events = pa.concat_tables(held.events, promote_options="permissive")
        out.add("event_rows", events, chunk_no=load.chunk_no)
        threads = da.threads_rows(c, events.column("ts").to_numpy(), by_name)
        out.add("threads", threads)
        if load.stager is not None and syscalls is not None:
            da.add_syscalls(
                c,
                out,
                load.stager,
                syscalls.direct,
                syscalls.outcome,
                threads,
                syscalls.paired.result(),
            )
    return out


def _chunk_row(load: ChunkLoad, tdir: Path) -> pa.Table:
    """The chunk's ``chunks`` row (as _finish inserts it)."""
    import datetime

    import pyarrow as pa

    stats = load.stats
    firsts = [s.first_ts for s in stats if s.first_ts is not None]
    lasts = [s.last_ts for s in stats if s.last_ts is not None]
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    row: dict[str, tuple[Any, pa.DataType]] = {
        "chunk_id": (load.chunk_id, pa.string()),
        "node": (load.node, pa.string()),
        "session": (load.session, pa.string()),
        "path": (str(tdir), pa.string()),
        "bytes": (sum(f.stat().st_size for f in load.trace.files), pa.int64()),
        "events": (sum(s.events for s in stats), pa.int64()),
        "discarded": (sum(s.discarded for s in stats), pa.int64()),
        "lost_packets": (sum(s.lost_packets for s in stats), pa.int64()),
        "first_ts": (min(firsts) if firsts else None, pa.int64()),
        "last_ts": (max(lasts) if lasts else None, pa.int64()),
        "loaded_at": (now, pa.timestamp("us")),
        "domain": (load.trace.domain, pa.string()),
        "errors": (sum(1 for s in stats if s.error is not None), pa.int32()),
        "chunk_no": (load.chunk_no, pa.int32()),
    }
    return pa.table({k: pa.array([v], t) for k, (v, t) in row.items()})
