"""Pull complete trace chunks from nodes: incremental, atomic, resumable, parallel.

Layout on this machine: ``DEST/<session>/<node>/<chunk_id>/``. A chunk is written under
``.<chunk_id>.part`` next to its final name, every file's size is checked against the node's
listing, and only then is the directory renamed into place: a chunk directory that exists is
complete, so a later run skips it and an interrupted run leaves nothing that looks received.
Nodes are pulled concurrently; on a node every missing chunk's files are in flight at once
(bounded), and finished chunks are handed on (imported, reported) in chunk order.

Known limit: the never-rotated trace of a stopped session is one chunk (``trace``); if that
session is started and stopped again, the grown trace is not pulled again (rotate instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import stat
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.concurrency import in_thread, together
from fayshell.errors import VERIFY, RemoteError
from fayshell.lttng import (
    ChunkFile,
    ChunkInfo,
    ChunkListing,
    RemoteEntry,
    Rotate,
    find_chunks,
    list_local,
)
from fayshell.lttng.chunks import CURRENT_RE, ArchiveWatch, archive_name
from fayshell.remote.quoting import quote_argv
from fayshell.remote.results import COMMAND, NodeError
from fayshell.tracing.lttngrun import ROTATE_TIMEOUT, run_request
from fayshell.tracing.records import ReceivedChunk
from fayshell.tracing.sessions import output_dir

if TYPE_CHECKING:
    from fayshell.host import ProgressTask
    from fayshell.remote.cluster import Cluster
    from fayshell.remote.files import FileAccess
    from fayshell.remote.inventory import NodeSpec
    from fayshell.remote.transport import Transport

#: Files fetched at once from one node (across its chunks).
PARALLEL_FILES = 32
#: Files up to this size are read in one go (parallel SFTP reads); larger ones are streamed
#: in blocks of STREAM_BLOCK (each block read with parallel requests too).
WHOLE_READ_MAX = 16 << 20
STREAM_BLOCK = 8 << 20
LIST_TIMEOUT = 30.0
#: Chunks of one node pulled ahead of the one being imported (when pulls import).
IMPORT_AHEAD = 2
#: Called with (chunk directory, node, session) once a chunk is in place; returns events loaded.
Importer = Callable[[Path, str, str], Awaitable[int]]
_END = object()


class ByteProgress:
    """One progress bar in bytes for all nodes; totals grow as nodes report their listings."""

    def __init__(self, task: ProgressTask | None) -> None:
        self.task = task
        self.total = 0
        self.done = 0

    def add_total(self, n: int) -> None:
        self.total += n
        if self.task is not None:
            self.task.update(total=self.total)

    def advance(self, n: int) -> None:
        self.done += n
        if self.task is not None:
            self.task.advance(n)


@dataclass(frozen=True)
class NodeReceipt:
    """What one node's pull did: chunks received, already here, empty, and still open."""

    node: str
    received: int
    skipped: int
    empty: int
    in_progress: int
    bytes: int


async def walk(
    t: Transport,
    root: str,
    descend: Callable[[str], bool] | None = None,
    since: float | None = None,
) -> list[RemoteEntry]:
    """A recursive listing of ``root`` on the node (paths relative to it, with sizes).

    One ``find`` over SSH (a single round trip) when the node has GNU find, else SFTP readdir
    level by level; the local node reads its filesystem directly. With ``descend``, an archived
    chunk ``archives/<name>`` for which ``descend(name)`` is false is listed by name only, not
    its files: a live pull lists the files of the chunks it has not received yet, so one
    cycle's listing does not grow with every chunk the session has archived (a second ``find``
    over just those chunks). With ``since`` too (a ``ctime`` of the node's clock, see
    :class:`ArchiveWatch`), ``find`` leaves out the archives that have not changed after it, so
    the listing's size no longer grows with the archives either; SFTP and the local node list
    them all.
    """
    files = await t.files()
    if getattr(files, "sftp", None) is None:
        return await asyncio.to_thread(list_local, root, descend) if os.path.isdir(root) else []
    root = root.rstrip("/") or "/"
    if descend is None and since is None:
        found = await _find(t, root, [root])
        return found if found is not None else await _sftp_walk(files, root)
    shallow = await _find(t, root, [root], f"{_glob_escape(root)}/archives/*", since)
    if shallow is None:
        return await _sftp_walk(files, root, descend)
    wanted = descend or (lambda name: True)
    new = [e.path for e in shallow if e.is_dir and (n := archive_name(e.path)) and wanted(n)]
    if not new:
        return shallow
    deep = await _find(t, root, [f"{root}/{p}" for p in new])
    return shallow + deep if deep is not None else await _sftp_walk(files, root, descend)


FIND_LINE = "%y %s %C@ %p\\n"


async def _find(
    t: Transport,
    root: str,
    starts: list[str],
    prune: str | None = None,
    since: float | None = None,
) -> list[RemoteEntry] | None:
    """``find`` below ``starts`` (paths made relative to ``root``; entries matching the glob
    ``prune`` listed but not entered, and only those changed after ``since`` when given); None
    when the node's find cannot (no GNU find)."""
    argv = ["find", *starts, "-mindepth", "1"]
    if prune is not None:
        newer = [] if since is None else ["-newerct", f"@{since:.6f}"]
        argv += ["-path", prune, "-prune", *newer, "-printf", FIND_LINE, "-o", "!", "-path", prune]
    res = await t.run(quote_argv([*argv, "-printf", FIND_LINE]), timeout=LIST_TIMEOUT)
    vanished = all("No such file" in line for line in res.stderr.splitlines())
    if res.exit_status == 0 or (res.exit_status == 1 and vanished):
        pre = root.rstrip("/") + "/"
        return [_entry(line, pre) for line in res.stdout.splitlines() if line.count(" ") >= 3]
    return None


def _glob_escape(path: str) -> str:
    """``path`` as a find ``-path`` pattern matching itself only."""
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in path)


def _entry(line: str, pre: str) -> RemoteEntry:
    kind, size, ctime, path = line.split(" ", 3)
    size_ = int(size) if kind == "f" else 0
    return RemoteEntry(path.removeprefix(pre), size_, kind == "d", float(ctime))


async def _sftp_walk(
    files: FileAccess, root: str, descend: Callable[[str], bool] | None = None
) -> list[RemoteEntry]:
    """The listing through SFTP readdir, the subdirectories of each level concurrently."""
    import asyncssh

    sftp = getattr(files, "sftp")  # noqa: B009 - only SFTPFiles has it
    out: list[RemoteEntry] = []

    async def visit(rel: str) -> None:
        try:
            names = await sftp.readdir(f"{root}/{rel}" if rel else root)
        except asyncssh.SFTPNoSuchFile:
            return  # not created yet, or a chunk renamed while we looked: next listing has it
        except asyncssh.SFTPError as exc:
            raise RemoteError(files.node, COMMAND, f"listing {root}/{rel}: {exc.reason}") from None
        subs = []
        for n in names:
            if n.filename in (".", ".."):
                continue
            path = f"{rel}/{n.filename}" if rel else n.filename
            is_dir = stat.S_ISDIR(n.attrs.permissions or 0)
            out.append(RemoteEntry(path, int(n.attrs.size or 0), is_dir))
            name = archive_name(path)
            if is_dir and (descend is None or not name or descend(name)):
                subs.append(path)
        await asyncio.gather(*(visit(s) for s in subs))

    await visit("")
    return out


async def fetch(files: FileAccess, remote: str, local: Path, size: int) -> None:
    """Copy one file of known size: open + parallel reads + close over SFTP (no stat, no
    attribute copy); a large file in blocks of STREAM_BLOCK. Every local write runs in a
    thread that a cancellation waits for. Without SFTP (the local node) the files layer copies.
    A failure on the node is a RemoteError; one writing here stays an OSError."""
    sftp = getattr(files, "sftp", None)
    if sftp is None:
        await files.get(remote, str(local))
        return
    with _remote_errors(files.node, remote):
        fh = await sftp.open(remote, "rb")
    try:
        if size > WHOLE_READ_MAX:
            await _stream(fh, local, size, files.node, remote)
            return
        with _remote_errors(files.node, remote):
            data = await fh.read(size) if size else b""
        await in_thread(local.write_bytes, data)  # the disk must not stall the network
    finally:
        with contextlib.suppress(Exception):  # a read-only handle: nothing to lose
            await fh.close()


async def _stream(fh: Any, local: Path, size: int, node: str, remote: str) -> None:
    """A large remote file (an open SFTP file) into ``local``, one block in memory at a time."""
    out = await in_thread(open, local, "wb")
    try:
        for offset in range(0, size, STREAM_BLOCK):
            with _remote_errors(node, remote):
                data = await fh.read(min(STREAM_BLOCK, size - offset), offset)
            if not data:
                return  # shorter than listed: the size check after the pull says so
            await in_thread(out.write, data)
    finally:
        await in_thread(out.close)


@contextlib.contextmanager
def _remote_errors(node: str, remote: str) -> Iterator[None]:
    """SFTP (or connection) failures while reading ``remote`` as one RemoteError line."""
    import asyncssh

    try:
        yield
    except (asyncssh.SFTPError, OSError) as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        raise RemoteError(node, COMMAND, f"get {remote}: {reason}") from None


async def pull_chunk(
    files: FileAccess,
    root: str,
    chunk: ChunkInfo,
    node_dir: Path,
    progress: ByteProgress,
    limit: asyncio.Semaphore,
) -> Path | None:
    """Fetch one chunk under a temporary name, verify sizes, rename; None if already there.

    However it ends (error, cancellation), every write into the temporary directory has
    finished before it is removed: nothing of an interrupted pull is left behind."""
    final = node_dir / chunk.chunk_id
    tmp = node_dir / f".{chunk.chunk_id}.part"

    async def one(f: ChunkFile) -> None:
        async with limit:
            try:
                await fetch(files, f"{root}/{chunk.remote_path(f)}", tmp / f.path, f.size)
            except OSError as exc:  # the local side: a full or read-only destination
                raise RemoteError(
                    files.node,
                    COMMAND,
                    f"chunk {chunk.chunk_id}: writing {tmp / f.path}: {exc.strerror or exc}",
                ) from None
        progress.advance(f.size)

    try:
        await in_thread(_fresh_dirs, tmp, {os.path.dirname(f.path) for f in chunk.files})
        await together(one(f) for f in chunk.files)
        _verify(files.node, chunk, tmp)
        if final.exists():  # another run finished it meanwhile
            shutil.rmtree(tmp, ignore_errors=True)
            return None
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def received_here(node_dir: Path) -> frozenset[str]:
    """Names of the chunks already received into ``node_dir`` (a chunk directory exists only
    once complete)."""
    with os.scandir(node_dir) as it:
        return frozenset(e.name for e in it if e.is_dir() and not e.name.startswith("."))


def _fresh_dirs(tmp: Path, dirs: set[str]) -> None:
    """An empty temporary chunk directory (leftovers of an interrupted run go) with subdirs."""
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    for d in sorted(dirs, key=lambda d: -d.count("/")):  # deepest first: parents come along
        (tmp / d).mkdir(parents=True, exist_ok=True)


def _verify(node: str, chunk: ChunkInfo, tmp: Path) -> None:
    """Every file of the listing is here with the listed size (else the chunk is not taken)."""
    for f in chunk.files:
        try:
            got = (tmp / f.path).stat().st_size
        except OSError:
            got = -1
        if got != f.size:
            raise RemoteError(
                node,
                VERIFY,
                f"chunk {chunk.chunk_id}: {f.path} has {got} bytes, the node listed {f.size}",
            )


async def chunk_listing(
    t: Transport,
    session: str,
    remembered: str,
    have: Set[str] = frozenset(),
    since: float | None = None,
) -> tuple[str, ChunkListing]:
    """The session's output dir and complete chunks on the node; the archived chunks named in
    ``have`` (already received) are listed by name only (``ChunkListing.settled``), and with
    ``since`` those unchanged since then not at all (:class:`ArchiveWatch`).

    A stopped rotating session still holds its last chunk open: it is rotated once so the whole
    trace can be pulled (waiting out a timer rotation that is already under way).
    """
    out = await output_dir(t, session, remembered)
    listing = await _listing(t, out.path, out.stopped, have, since)
    if out.stopped and out.mode == "normal" and _open_chunk(listing):
        await _rotate_stopped(t, session)
        listing = await _settled_listing(t, out.path, have, since)
    return out.path, listing


async def _listing(
    t: Transport, path: str, stopped: bool, have: Set[str], since: float | None
) -> ChunkListing:
    entries = await walk(t, path, (lambda name: name not in have) if have else None, since)
    return find_chunks(entries, stopped=stopped, settled=have)


async def _settled_listing(
    t: Transport, path: str, have: Set[str], since: float | None
) -> ChunkListing:
    """The listing once the final rotation has archived the open chunk (bounded wait)."""
    deadline = asyncio.get_running_loop().time() + ROTATE_TIMEOUT
    while True:
        listing = await _listing(t, path, True, have, since)
        if not _open_chunk(listing) or asyncio.get_running_loop().time() > deadline:
            return listing
        await asyncio.sleep(0.2)


def _open_chunk(listing: ChunkListing) -> bool:
    return any(CURRENT_RE.fullmatch(p) for p in listing.in_progress)


async def _rotate_stopped(t: Transport, session: str) -> None:
    """``lttng rotate``, retried while LTTng says a rotation is already pending."""
    deadline = asyncio.get_running_loop().time() + ROTATE_TIMEOUT
    while True:
        try:
            await run_request(t, Rotate(session), timeout=ROTATE_TIMEOUT)
            return
        except RemoteError as exc:
            if "already rotated once since it became inactive" in exc.message:
                return  # a timer rotation archived the last chunk after the stop
            if "already pending" not in exc.message or asyncio.get_running_loop().time() > deadline:
                raise
        await asyncio.sleep(0.2)


async def receive_node(
    t: Transport,
    session: str,
    dest: Path,
    remembered: str,
    progress: ByteProgress,
    emit: Callable[[Any], None],
    importer: Importer | None,
    imported: set[str] | None = None,
    watch: ArchiveWatch | None = None,
) -> NodeReceipt:
    """Pull every complete, not yet received chunk of ``session`` from one node, in order.

    ``imported`` (kept by a caller that imports, across calls): the chunks handed to the
    importer. A chunk received but not in it (its pull finished, then the cycle was cancelled
    before its turn to import) is imported from where it lies, not pulled again; the caller
    adds every chunk the importer took. Without it, a chunk directory that exists is done.
    ``watch`` (kept by the caller with ``imported``): which archives the listing leaves out.
    """
    node_dir = dest / session / t.node
    node_dir.mkdir(parents=True, exist_ok=True)
    have = received_here(node_dir) if imported is None else imported
    since = watch.since() if watch is not None else None
    root, listing = await chunk_listing(t, session, remembered, have, since)
    empty = [c for c in listing.complete if c.empty]  # nothing recorded in that period
    todo = [c for c in listing.complete if not c.empty and c.chunk_id not in have]
    skipped = len(listing.settled) + len(listing.complete) - len(todo) - len(empty)
    progress.add_total(sum(c.bytes for c in todo if not (node_dir / c.chunk_id).is_dir()))
    files = await t.files()
    limit = asyncio.Semaphore(PARALLEL_FILES)
    # without an importer every chunk is in flight at once; with one, pulls run at most
    # IMPORT_AHEAD chunks ahead of the imports (a backlog pulled all at once keeps the event
    # loop busy with transfers the import thread then waits behind, and fills the disk)
    ahead = len(todo) if importer is None else IMPORT_AHEAD
    pulls: list[asyncio.Future[Path | None]] = []

    def start_next() -> None:
        if len(pulls) < len(todo):
            c = todo[len(pulls)]
            pulls.append(asyncio.ensure_future(take(c)))

    async def take(c: ChunkInfo) -> Path | None:
        """The chunk's directory: pulled now, or pulled by an earlier call that ended before
        importing it."""
        final = node_dir / c.chunk_id
        if imported is not None and final.is_dir():
            return final
        return await pull_chunk(files, root, c, node_dir, progress, limit)

    for _ in range(ahead):
        start_next()
    got = received = 0
    try:
        for k, chunk in enumerate(todo):  # finished in order
            final = await pulls[k]
            start_next()
            if final is None:
                skipped += 1
                continue
            events = await importer(final, t.node, session) if importer is not None else None
            if imported is not None:
                imported.add(chunk.chunk_id)
            got += chunk.bytes
            received += 1
            emit(
                ReceivedChunk(
                    t.node,
                    session,
                    chunk.chunk_id,
                    chunk.kind,
                    len(chunk.files),
                    chunk.bytes,
                    str(final),
                    events,
                )
            )
    finally:
        for pull in pulls:
            pull.cancel()
        await asyncio.gather(*pulls, return_exceptions=True)
        if watch is not None:
            watch.listed(listing.archived, [c.chunk_id for c in todo if c.chunk_id not in have])
    return NodeReceipt(t.node, received, skipped, len(empty), len(listing.in_progress), got)


async def receive(
    cluster: Cluster,
    specs: Sequence[NodeSpec],
    session: str,
    dest: Path,
    remembered: dict[str, str],
    progress: ByteProgress,
    importer: Importer | None = None,
    timeout: float | None = None,
) -> AsyncIterator[ReceivedChunk | NodeReceipt | NodeError]:
    """Pull from every node concurrently; yields chunks as they land, then one receipt (or
    NodeError) per node. Cancelling the consumer cancels every node's pull."""
    queue: asyncio.Queue[Any] = asyncio.Queue()

    async def per_node(t: Transport) -> NodeReceipt:
        return await receive_node(
            t, session, dest, remembered.get(t.node, ""), progress, queue.put_nowait, importer
        )

    async def drive() -> None:
        try:
            async for rec in cluster.map(list(specs), per_node, timeout=timeout):
                queue.put_nowait(rec if isinstance(rec, NodeError) else rec.value)
        finally:
            queue.put_nowait(_END)

    task = asyncio.ensure_future(drive())
    try:
        while (item := await queue.get()) is not _END:
            yield item
        await task
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
