"""Find the complete, readable trace chunks in a listing of a session's output directory.

The listing is what SFTP gives: paths relative to the session output directory, with sizes. Layout
written by LTTng 2.13 (observed here):

* rotation: ``archives/<begin>-<end>-<n>/{ust,kernel}/…`` — complete once it appears (LTTng renames
  a chunk into ``archives/`` when its rotation finishes); the chunk being written lives at the top
  level as ``<begin>-<n>/`` and is *not* complete (a ``lttng rotate`` or ``destroy`` archives it).
  Timestamps look like ``20261121T193418+0000``.
* snapshot: ``snapshot-<k>-<YYYYMMDD>-<HHMMSS>-<n>/`` or ``<name>-<YYYYMMDD>-<HHMMSS>-<n>/``, one
  per ``lttng snapshot record``, complete when that command has returned.
* a session that never rotated: the trace is ``{ust,kernel}/`` at the top level, complete once the
  session is stopped (or destroyed).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from fayshell.errors import TraceFormatError

_TS = r"\d{8}T\d{6}[+-]\d{4}"
ARCHIVE_RE = re.compile(rf"(?P<begin>{_TS})-(?P<end>{_TS})-(?P<index>\d+)")
CURRENT_RE = re.compile(rf"(?P<begin>{_TS})-(?P<index>\d+)")
SNAPSHOT_RE = re.compile(r"(?P<name>.+)-(?P<date>\d{8})-(?P<time>\d{6})-(?P<index>\d+)")
TRACE_DOMAINS = ("ust", "kernel")


@dataclass(frozen=True)
class RemoteEntry:
    """One entry of a listing: a '/'-separated path relative to the session output directory."""

    path: str
    size: int = 0
    is_dir: bool = False
    #: When the entry last changed (its inode), by the node's clock: for an archive, when LTTng
    #: renamed it into ``archives/``. 0.0 when the listing does not say (SFTP).
    ctime: float = field(default=0.0, compare=False)


@dataclass(frozen=True)
class ChunkFile:
    """A file of a chunk: path relative to the chunk directory, and its size in bytes."""

    path: str
    size: int


@dataclass(frozen=True)
class ChunkInfo:
    """A complete chunk: a self-contained CTF trace (one or more domains) to pull as a unit."""

    chunk_id: str  # stable across listings; safe as a local directory name
    kind: str  # archive, snapshot or trace
    path: str  # directory relative to the session output dir ("" for the whole trace)
    files: tuple[ChunkFile, ...]
    index: int | None = None  # rotation chunk number or snapshot counter
    begin: datetime | None = None  # archives: first/last moment covered (from the name)
    end: datetime | None = None
    snapshot_name: str | None = None
    domains: tuple[str, ...] = ()

    @property
    def bytes(self) -> int:
        """Total size of the chunk's files."""
        return sum(f.size for f in self.files)

    @property
    def empty(self) -> bool:
        """True when the chunk has no trace data (nothing was recorded in that period)."""
        return not any(os.path.basename(f.path) == "metadata" for f in self.files)

    def remote_path(self, file: ChunkFile) -> str:
        """A file's path relative to the session output directory."""
        return f"{self.path}/{file.path}" if self.path else file.path


@dataclass(frozen=True)
class ChunkListing:
    """Complete chunks (in order: archives, then snapshots, then the whole trace) and what is not."""

    complete: tuple[ChunkInfo, ...]
    in_progress: tuple[str, ...] = ()  # directories still being written
    ignored: tuple[str, ...] = field(default_factory=tuple)  # top-level names not understood
    settled: tuple[str, ...] = ()  # archived chunks the caller already has (not classified)
    #: Every archived chunk listed (settled or not) -> its RemoteEntry.ctime.
    archived: dict[str, float] = field(default_factory=dict)

    def by_id(self) -> dict[str, ChunkInfo]:
        """Chunks keyed by chunk id."""
        return {c.chunk_id: c for c in self.complete}


#: A live pull lists all of a node's archives at least once in this many cycles.
FULL_LISTING_EVERY = 30
#: File change times can be coarse (a clock tick; seconds on some filesystems): archives
#: changed within this much before the watch's mark are listed again.
CTIME_MARGIN_S = 5.0


@dataclass
class ArchiveWatch:
    """Which of a node's archived chunks a live pull lists, cycle after cycle: those changed
    (renamed into ``archives/``, by the node's clock) since the oldest one not taken yet, or
    since the newest one listed when all were taken. A session archiving a chunk a second for
    an hour then costs each cycle a few names, not 3,600. Every FULL_LISTING_EVERY-th listing
    takes them all, so an archive hidden by the node's clock stepping back is late, not lost.
    """

    mark: float | None = None
    listings: int = 0

    def since(self) -> float | None:
        """The change time archives must be newer than to be listed (None: list them all)."""
        if self.mark is None or self.listings % FULL_LISTING_EVERY == 0:
            return None
        return self.mark - CTIME_MARGIN_S

    def listed(self, archived: Mapping[str, float], untaken: Collection[str]) -> None:
        """After a cycle: the archives its listing had (name -> change time) and those of them
        it did not take (a pull failed or was cancelled: they must be listed again)."""
        self.listings += 1
        if any(t <= 0 for t in archived.values()):
            self.mark = None  # a listing without change times (SFTP, the local node)
            return
        waiting = [archived[n] for n in untaken if n in archived]
        if waiting or archived:
            self.mark = min(waiting) if waiting else max(archived.values())


def _parse_ts(text: str) -> datetime:
    return datetime.strptime(text, "%Y%m%dT%H%M%S%z")


def _norm(path: str) -> str:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise TraceFormatError(path, None, "listing path escapes the session directory")
    return "/".join(parts)


def _files_by_dir(entries: list[RemoteEntry], depth: int) -> dict[str, list[ChunkFile]]:
    """The files of a listing grouped by their directory ``depth`` levels down (``archives/X``
    for 2, ``X`` for 1), each path relative to that directory: one pass over the listing, so
    classifying it costs the same per entry however many chunks the session has."""
    out: dict[str, list[ChunkFile]] = {}
    for e in entries:
        parts = e.path.split("/", depth)
        if not e.is_dir and len(parts) > depth:
            out.setdefault("/".join(parts[:depth]), []).append(ChunkFile(parts[depth], e.size))
    return out


def _sorted_files(files: list[ChunkFile] | None) -> tuple[ChunkFile, ...]:
    return tuple(sorted(files or (), key=lambda f: f.path))


def _domains(files: tuple[ChunkFile, ...]) -> tuple[str, ...]:
    found = {f.path.split("/", 1)[0] for f in files}
    return tuple(d for d in TRACE_DOMAINS if d in found)


def archive_name(path: str) -> str:
    """The chunk name of a path ``archives/<name>`` (exactly that deep), else ''."""
    head, _, name = path.partition("/")
    return name if head == "archives" and name and "/" not in name else ""


def find_chunks(
    entries: Iterable[RemoteEntry],
    stopped: bool = False,
    snapshot_names: Iterable[str] | None = None,
    settled: Collection[str] = (),
) -> ChunkListing:
    """Classify a listing into complete chunks.

    ``settled``: names of archived chunks the caller already has; they are only counted (in
    ``ChunkListing.settled``), so their files need not be in the listing (see ``walk``).

    ``stopped``: the session is stopped or destroyed, so a never-rotated top-level trace is complete.
    ``snapshot_names``: names given to ``snapshot record --name`` (plain ``snapshot-<k>`` is always
    recognised), so custom snapshot directories are told apart from unknown ones.
    """
    items = [RemoteEntry(_norm(e.path), e.size, e.is_dir, e.ctime) for e in entries]
    items = [e for e in items if e.path]
    tops: dict[str, bool] = {}
    for e in items:
        head, _, rest = e.path.partition("/")
        tops[head] = tops.get(head, False) or bool(rest) or e.is_dir
    wanted_snaps = set(snapshot_names or ())
    archives: list[ChunkInfo] = []
    snaps: list[ChunkInfo] = []
    in_progress: list[str] = []
    ignored: list[str] = []

    arch_dirs = {e.path.split("/")[1] for e in items if e.path.startswith("archives/")}
    archived = {n: e.ctime for e in items if e.is_dir and (n := archive_name(e.path))}
    arch_files = _files_by_dir([e for e in items if e.path.startswith("archives/")], 2)
    top_files = _files_by_dir(items, 1)
    known = sorted(arch_dirs.intersection(settled))
    for name in arch_dirs.difference(known):
        m = ARCHIVE_RE.fullmatch(name)
        if not m:
            ignored.append(f"archives/{name}")
            continue
        files = _sorted_files(arch_files.get(f"archives/{name}"))
        archives.append(
            ChunkInfo(
                chunk_id=name,
                kind="archive",
                path=f"archives/{name}",
                files=files,
                index=int(m["index"]),
                begin=_parse_ts(m["begin"]),
                end=_parse_ts(m["end"]),
                domains=_domains(files),
            )
        )

    for name, is_dir in tops.items():
        if name == "archives" or name in TRACE_DOMAINS:
            continue
        if not is_dir:
            ignored.append(name)
            continue
        if CURRENT_RE.fullmatch(name):
            in_progress.append(name)
            continue
        m = SNAPSHOT_RE.fullmatch(name)
        snap_name = m["name"] if m else ""
        if m and (
            re.fullmatch(r"snapshot-\d+", snap_name)
            or snap_name in wanted_snaps
            or not wanted_snaps
        ):
            files = _sorted_files(top_files.get(name))
            snaps.append(
                ChunkInfo(
                    chunk_id=name,
                    kind="snapshot",
                    path=name,
                    files=files,
                    index=int(m["index"]),
                    begin=datetime.strptime(m["date"] + m["time"], "%Y%m%d%H%M%S"),
                    snapshot_name=snap_name,
                    domains=_domains(files),
                )
            )
        else:
            ignored.append(name)

    complete: list[ChunkInfo] = sorted(archives, key=lambda c: c.index or 0)
    complete += sorted(snaps, key=lambda c: (c.index or 0, c.chunk_id))
    top_domains = [d for d in TRACE_DOMAINS if d in tops]
    if top_domains:
        files = tuple(
            sorted(
                (
                    ChunkFile(e.path, e.size)
                    for e in items
                    if not e.is_dir and e.path.split("/")[0] in top_domains
                ),
                key=lambda f: f.path,
            )
        )
        if stopped:
            complete.append(
                ChunkInfo(
                    chunk_id="trace", kind="trace", path="", files=files, domains=tuple(top_domains)
                )
            )
        else:
            in_progress.append("trace")
    return ChunkListing(
        tuple(complete), tuple(sorted(in_progress)), tuple(sorted(ignored)), tuple(known), archived
    )


def list_local(root: str, descend: Callable[[str], bool] | None = None) -> list[RemoteEntry]:
    """A listing of a local directory in the same shape SFTP gives (for tests and local nodes);
    an archived chunk whose name ``descend`` refuses is listed without its files."""
    out: list[RemoteEntry] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        rel = "" if rel == "." else rel.replace(os.sep, "/")
        for d in dirnames:
            out.append(RemoteEntry(f"{rel}/{d}" if rel else d, 0, True))
        if rel == "archives" and descend is not None:
            dirnames[:] = [d for d in dirnames if descend(d)]
        for f in filenames:
            p = os.path.join(dirpath, f)
            out.append(RemoteEntry(f"{rel}/{f}" if rel else f, os.path.getsize(p)))
    return out
