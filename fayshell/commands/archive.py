"""Archive cmdlets: Compress-Archive and Expand-Archive, PowerShell's Microsoft.PowerShell.Archive
module (ZIP files with UTF-8 names), as an incident's traces, databases and logs are bundled to
hand over. Writing happens in a thread beside the shell's loop, with a progress bar; an archive
is written to a temporary file and renamed, so a failure leaves no half-written archive."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal, NamedTuple

from fayshell.commands.files import FileItem, file_item, os_failure, targets
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import BY_PROPERTY, BY_VALUE, BY_VALUE_AND_PROPERTY, Param, cmdlet
from fayshell.lang.streams import collect
from fayshell.records import get_property

CompressionLevel = Literal["Optimal", "Fastest", "NoCompression"]

#: How each -CompressionLevel writes: zipfile's method and deflate level.
COMPRESSION: dict[CompressionLevel, tuple[int, int | None]] = {
    "Optimal": (zipfile.ZIP_DEFLATED, 6),
    "Fastest": (zipfile.ZIP_DEFLATED, 1),
    "NoCompression": (zipfile.ZIP_STORED, None),
}

#: Bytes copied between two updates of the progress bar.
CHUNK = 1 << 20


def _hidden(path: Path) -> bool:
    """A name starting with a dot: Compress-Archive leaves hidden files out (on Linux, these)."""
    return path.name.startswith(".")


def entries(source: Path) -> Iterator[tuple[Path, str]]:
    """The files and directories ``source`` puts in an archive, with their names there: a
    file as its own name; a directory as itself and everything under it (``dir/a.txt``),
    hidden ones left out."""
    if _hidden(source):
        return
    if not source.is_dir():
        yield source, source.name
        return
    base = source.parent
    yield source, source.name + "/"
    for root, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(root)
        for d in dirs:
            yield here / d, (here / d).relative_to(base).as_posix() + "/"
        for f in sorted(files):
            if not f.startswith("."):
                yield here / f, (here / f).relative_to(base).as_posix()


def _archive_name(ctx: Invocation, destination: str) -> Path:
    """-DestinationPath as a full path, with ``.zip`` added when it has another extension."""
    dest = ctx.state.resolve_path(destination)
    return dest if dest.suffix.lower() == ".zip" else dest.with_name(dest.name + ".zip")


async def _piped_paths(ctx: Invocation) -> tuple[list[str], list[str]]:
    """Paths piped in: strings (wildcards allowed) and items' FullName (literal)."""
    if ctx.input is None:
        return [], []
    texts, literal = [], []
    for item in await collect(ctx.input):
        if isinstance(item, str):
            texts.append(item)
        elif (full := get_property(item, "FullName")) is not None:
            literal.append(str(full))
    return texts, literal


@cmdlet(
    "Compress-Archive",
    synopsis="Bundle files and directories into a ZIP archive (-Update adds to it, -Force "
    "replaces it).",
    description="A directory goes in with its name as the archive's root (-Path dir), or its "
    "contents do (-Path dir/*); hidden files (names starting with a dot) are left out, as "
    "PowerShell does on Linux. A -DestinationPath without .zip gets it. Files larger than "
    "PowerShell's 2 GB limit are written too (ZIP64).",
    params=[
        Param(
            "Path",
            "strings",
            position=0,
            pipeline=BY_VALUE_AND_PROPERTY,
            help="Files and directories (wildcards).",
        ),
        Param("LiteralPath", "strings", aliases=("PSPath", "LP"), pipeline=BY_PROPERTY),
        Param("DestinationPath", str, position=1, mandatory=True, help="The archive (.zip)."),
        Param("CompressionLevel", str, choices=tuple(COMPRESSION), help="Optimal (default)."),
        Param("Update", bool, help="Add to an existing archive, replacing entries of a name."),
        Param("Force", bool, help="Replace an existing archive."),
        Param("PassThru", bool, help="Output the archive file."),
    ],
    examples=[
        ("Compress-Archive incident.duckdb, pulled -DestinationPath handover.zip", "Bundle."),
        ("Get-ChildItem logs/*.log | Compress-Archive -DestinationPath logs", "logs.zip."),
    ],
    should_process=True,
    stream=True,
)
async def compress_archive(
    ctx: Invocation,
    *,
    destination_path: str,
    path: list[str] | None = None,
    literal_path: list[str] | None = None,
    compression_level: CompressionLevel = "Optimal",
    update: bool = False,
    force: bool = False,
    pass_thru: bool = False,
) -> list[FileItem]:
    if update and force:
        raise ctx.fail("-Update and -Force cannot be used together")
    texts, literal = await _piped_paths(ctx)
    sources = list(targets(ctx, [*(path or []), *texts], [*(literal_path or []), *literal]))
    dest = _archive_name(ctx, destination_path)
    if dest.exists() and not (update or force):
        raise ctx.fail(
            f"The archive file {dest} already exists. Use -Update to add to it or -Force to "
            "replace it."
        )
    items = [(p, name) for s in sources for p, name in entries(s) if p != dest]
    if not items or not ctx.should_process(str(dest), "Compress-Archive"):
        return []
    total = sum(p.stat().st_size for p, _ in items if p.is_file())
    task = ctx.progress(f"Compress-Archive {dest.name}", total or None, "bytes")
    stop = threading.Event()
    work = asyncio.ensure_future(
        asyncio.to_thread(
            _write_archive, dest, items, compression_level, update, task.advance, stop
        )
    )
    try:
        await asyncio.shield(work)
    except asyncio.CancelledError:  # Ctrl-C: the thread stops and removes its partial file
        stop.set()
        with contextlib.suppress(Exception):
            await work
        raise
    except OSError as exc:
        os_failure(ctx, exc.filename or dest, exc)
        return []
    finally:
        task.close()
    return [file_item(dest)] if pass_thru else []


class Stopped(Exception):
    """Compress-Archive was interrupted: its temporary file is removed, nothing is renamed."""


def _write_archive(
    dest: Path,
    items: list[tuple[Path, str]],
    level: CompressionLevel,
    update: bool,
    advance: Callable[[float], None],
    stop: threading.Event,
) -> None:
    """Write ``items`` to ``dest`` through a temporary file (with -Update, after the entries
    of the old archive that they do not replace); ``stop`` set: stop between chunks."""
    method, compresslevel = COMPRESSION[level]
    part = dest.with_name(f".{dest.name}.part")
    names = {name for _, name in items}
    try:
        with zipfile.ZipFile(part, "w", method, compresslevel=compresslevel) as out:
            if update and dest.exists():
                with zipfile.ZipFile(dest) as old:
                    for info in old.infolist():
                        if info.filename not in names:
                            out.writestr(info, old.read(info))
            for source, name in items:
                _add(out, source, name, advance, stop)
        os.replace(part, dest)
    finally:
        part.unlink(missing_ok=True)


def _add(
    out: zipfile.ZipFile,
    source: Path,
    name: str,
    advance: Callable[[float], None],
    stop: threading.Event,
) -> None:
    """One file or directory into the archive, its contents a megabyte at a time."""
    info = zipfile.ZipInfo.from_file(source, name)
    if name.endswith("/"):
        out.writestr(info, b"")
        return
    info.compress_type = out.compression
    with open(source, "rb") as f, out.open(info, "w", force_zip64=True) as w:
        while chunk := f.read(CHUNK):
            if stop.is_set():
                raise Stopped
            w.write(chunk)
            advance(len(chunk))


@cmdlet(
    "Expand-Archive",
    synopsis="Extract a ZIP archive into a directory (by default one named after the archive, "
    "in the current location).",
    description="An existing file is kept, with an error naming it, unless -Force replaces "
    "it. An entry whose name would land outside the destination (../x, /etc/x) is refused "
    "with an error naming it; the others are extracted.",
    params=[
        Param("Path", str, position=0, pipeline=BY_VALUE, help="The archive."),
        Param("LiteralPath", str, aliases=("PSPath", "LP")),
        Param("DestinationPath", str, position=1, help="Where to extract (created if needed)."),
        Param("Force", bool, help="Replace existing files."),
        Param("PassThru", bool, help="Output the files and directories extracted."),
    ],
    examples=[
        ("Expand-Archive handover.zip", "Into ./handover."),
        ("Expand-Archive handover.zip -DestinationPath /srv/incident -Force", "Replace files."),
    ],
    should_process=True,
)
async def expand_archive(
    ctx: Invocation,
    *,
    path: str | None = None,
    literal_path: str | None = None,
    destination_path: str | None = None,
    force: bool = False,
    pass_thru: bool = False,
) -> list[FileItem]:
    if path is None and literal_path is None:
        raise ctx.fail("give the -Path of the archive")
    found = list(targets(ctx, [path] if path else None, [literal_path] if literal_path else None))
    out: list[FileItem] = []
    for archive in found:
        if archive.is_dir() or not zipfile.is_zipfile(archive):
            raise ctx.fail(f"{archive} is not a ZIP archive")
        dest = ctx.state.resolve_path(destination_path or archive.stem)
        if not ctx.should_process(str(dest), "Expand-Archive"):
            continue
        made, problems = await asyncio.to_thread(_extract, archive, dest, force)
        for name, why in problems:  # reported here, on the shell's loop
            if isinstance(why, OSError):
                os_failure(ctx, name, why)
            else:
                ctx.write_error(_refused(name, archive, why))
        out += [file_item(p) for p in made] if pass_thru else []
    return out


def _extract(
    archive: Path, dest: Path, force: bool
) -> tuple[list[Path], list[tuple[str, Refusal | OSError]]]:
    """Extract ``archive`` into ``dest``: what was made, and each entry it could not (its
    name and why: outside ``dest``, a file that exists without -Force, an OS error)."""
    made: list[Path] = []
    problems: list[tuple[str, Refusal | OSError]] = []
    root = dest.resolve()
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            target = (dest / info.filename).resolve()
            if target != root and root not in target.parents:
                problems.append((info.filename, Refusal("InvalidArchiveEntry", f"outside {dest}")))
                continue
            try:
                if _extract_one(z, info, target, force):
                    made.append(target)
                else:
                    why = Refusal("ExpandArchiveFileExists", "the file exists (-Force replaces it)")
                    problems.append((str(target), why))
            except OSError as exc:
                problems.append((str(target), exc))
    return made, problems


def _extract_one(z: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, force: bool) -> bool:
    """One entry; False when it is a file that exists and ``force`` is not given."""
    if info.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        return True
    if target.exists() and not force:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    with z.open(info) as src, open(target, "wb") as dst:
        while chunk := src.read(CHUNK):
            dst.write(chunk)
    stamp = dt.datetime(*info.date_time).timestamp()
    os.utime(target, (stamp, stamp))
    return True


class Refusal(NamedTuple):
    """An entry Expand-Archive does not write: the error's id and why, in words."""

    error_id: str
    why: str


def _refused(name: str, archive: Path, refusal: Refusal) -> ErrorRecord:
    return ErrorRecord(
        name,
        "",
        f"Cannot expand '{name}' from {archive}: {refusal.why}.",
        category="WriteError",
        names_target=True,
        exception="System.IO.IOException",
        error_id=f"{refusal.error_id},Expand-Archive",  # a script module's: the command's name
    )
