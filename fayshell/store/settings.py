"""The import's tuning values, in one object passed down the store pipeline.

``import_trace(db, path, settings=LoadSettings(...))`` hands one frozen ``LoadSettings`` to the
loader, the writer's row-group hold, the syscall stager's scan and the span derivation; nothing
in the store reads a module constant that a caller (or a test) would have to patch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fayshell.ctf.decode import EventBatch, StreamReader

#: How the decoded batches of a chunk's stream files reach the loader. It may start decoding
#: when called (before the first batch is asked for); the loader closes what it returns (when
#: that has a ``close``) once it is done or has failed.
BatchSource = Callable[[list["StreamReader"]], Iterator[tuple["StreamReader", "EventBatch"]]]


def default_workers() -> int:
    """Decoder threads: the CPU count, at most 4, at least 1."""
    from fayshell.ctf.parallel import default_workers as workers

    return workers()


def parallel_streams(readers: list[StreamReader]) -> Iterator[tuple[StreamReader, EventBatch]]:
    """Batches of every stream, decoded in parallel threads (the C decoder releases the GIL)
    that start at once, one batch waiting per decoder thread."""
    from fayshell.ctf.parallel import parallel_batches

    return parallel_batches(readers, depth=1)


@dataclass(frozen=True, kw_only=True)
class LoadSettings:
    """Sizes and switches of one import. The defaults bound an import's memory whatever the
    trace size (see bench/ingest.py --big-gib); tests pass small sizes to exercise the
    flush, hold and checkpoint paths on small traces."""

    #: A flush every ``flush_bytes`` of decoded data, at most ``flush_rows`` rows.
    flush_bytes: int = 64 << 20
    flush_rows: int = 1 << 20
    #: Rows per decoded batch of one stream.
    batch_rows: int = 1 << 18
    #: Rows in a DuckDB row group: a transaction's appends are written straight to the file one
    #: full row group at a time; the rest goes through the WAL and is written again by the next
    #: checkpoint, so each flush appends whole row groups and holds the remainder back.
    row_group: int = 122_880
    #: Bytes held back over all tables; past this, a flush writes everything.
    hold_bytes: int = 64 << 20
    #: Data appended between checkpoints: DuckDB keeps what it needs to checkpoint appended
    #: data in memory until it does; a checkpoint every half GB of Arrow data stays small.
    checkpoint_bytes: int = 512 << 20
    #: DuckDB's memory limit while importing (its buffer pool would otherwise keep every
    #: appended block, up to most of the machine's memory).
    memory_limit: str = "192MB"
    #: Zipkin rows grouped into spans per pass when spans are rebuilt at a chunk's end.
    span_rows: int = 1_000_000
    #: Pair syscalls on the decoded batches (False: the all-SQL path, also used for
    #: multi-channel traces).
    fast_syscalls: bool = True
    #: Stream files of at least twice this many bytes are cut at packet boundaries and their
    #: parts decoded by different threads (0: every file whole). BlkKin traces put most events
    #: in one or two files; whole, one thread decoded 148 of bench/ingest.py's 196 MB while the
    #: other was idle. Never for traces with syscalls (their pairing needs file order).
    part_bytes: int = 16 << 20
    #: Decoder threads the parts are planned for (the CPU count, at most 4).
    decode_workers: int = field(default_factory=default_workers)
    #: Use the compiled decoder and the compiled store algorithms when they are built.
    prefer_c: bool = True
    #: Where the decoded batches come from (and in which order).
    batches: BatchSource = field(default=parallel_streams)
    #: Answers before the data is on disk (fayshell.store.pending): a chunk is decoded and
    #: derived in memory, queryable from Arrow at once on the database's own connection, and
    #: written in the background. Off by default: the views' cursors (other connections) do
    #: not see the pending rows yet; Import-Trace turns it on (ANSWER_FIRST).
    answer_first: bool = False
    #: With ``answer_first``: the background write waits until the shell starts it
    #: (``Database.start_pending``: after the statement that follows the import, when the
    #: shell goes idle, or when anything waits for the file), so that the question asked
    #: right after an import runs on both cores, not beside the writer. The BlkKin first
    #: answer of bench/first_answer.py: -0.07 s paired median (mean -0.03 s), faster in 38
    #: of 60 pairs; CPU used until the answer -0.1 s.
    hold_write: bool = False
    #: Decoded bytes of one chunk kept in memory for that; past it the chunk is flushed as it
    #: is decoded (the bounded-memory path). The 10M-event kernel trace of bench/ingest.py
    #: decodes to 389 MiB (peak RSS 1.5 GiB kept whole), its BlkKin trace to 274 MiB.
    pending_bytes: int = 512 << 20
    #: Decoded Arrow bytes per byte of trace file, at most (bench/ingest.py's traces: kernel
    #: layout 1.8, BlkKin 1.5): a chunk whose files would decode past ``pending_bytes`` is
    #: not held at all (a 2 GiB trace stays within its bounded memory from the first batch).
    decoded_per_file_byte: float = 2.0
    #: After the import, DuckDB's buffer pool is evicted down to this size (its limit set to
    #: it and back, fayshell.store.evict.shrink_pool; None: never). Unlike a low
    #: ``memory_limit``, which applies to the whole database while the import runs, it never
    #: bounds a query another cursor runs meanwhile.
    evict_to: str | None = None
    #: After the import, DuckDB's eviction queues are emptied when they hold more than this
    #: many dead entries (fayshell.store.evict; 0: never). Each keeps a freed buffer's
    #: bookkeeping on the C heap until DuckDB itself runs short of memory.
    max_dead_entries: int = 0
    #: Called by the background writer just before it commits (tests hold it there).
    before_commit: Callable[[], None] | None = None


DEFAULT_SETTINGS = LoadSettings()
#: A live view's imports (fayshell.views.live.LivePump): one rotation's chunk at a time, and
#: DuckDB's buffer pool evicted to 32 MB after each. DuckDB keeps every block of the database
#: file it has read or written in its buffer pool until the memory limit forces it out, so
#: under the import's 192 MB (and 80 % of RAM between imports) the shell's memory grew with
#: the file although a live view only reads its last window: in the 30-minute soak
#: (bench/soak.py) DuckDB's share followed the file to 99 MiB. Each import now ends by
#: evicting down to 32 MB. (Holding the limit at 32 MB for the whole import did the same, but
#: DuckDB's limit is the database's: a query another cursor ran meanwhile, such as
#: percentiles over a whole session, failed with "out of memory".) Cost, 400-event kernel
#: chunks imported one by one: 5.4 -> 6.0 ms median per chunk.
#: Its imports also keep DuckDB's eviction queues short (fayshell.store.evict): about 46 dead
#: entries each, kept on the C heap while the pool has room; emptied past 4,096 (every ~90
#: imports, ~15 ms), the soak's RSS slope went from +4.5 to +3.0 MiB/min.
LIVE_SETTINGS = LoadSettings(evict_to="32MB", max_dead_entries=4096)
#: The shell's Import-Trace: answers before the data is on disk.
ANSWER_FIRST = LoadSettings(answer_first=True, hold_write=True)
