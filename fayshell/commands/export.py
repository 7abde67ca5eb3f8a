"""Export-Trace: relations and records to Parquet, Zipkin v2 JSON or Chrome Trace Event JSON."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import BY_VALUE, Param, cmdlet
from fayshell.lang.streams import collect, is_relation

if TYPE_CHECKING:
    from fayshell.store.export import ExportRequest, ExportSummary
    from fayshell.store.relation import Relation

FORMAT_CHOICES = ("parquet", "zipkin", "chrome")


@cmdlet(
    "Export-Trace",
    synopsis="Write spans, system calls or any relation to Parquet, Zipkin v2 JSON or Chrome "
    "Trace Event JSON.",
    description="The input is the pipeline (a relation from Get-Span, Get-Syscall, sql ..., or "
    "records) or -Table NAME. parquet: any relation, written by DuckDB's COPY "
    "(-PartitionBy node writes PATH/node=NAME/*.parquet). zipkin: spans as the "
    "list of spans Zipkin's and Jaeger's POST /api/v2/spans accept (ids as 16 hex "
    "digits, times in microseconds). chrome: spans (a process per service and "
    "node, a thread per trace) or system calls (a process per pid, a thread per "
    "tid) as complete events for the Perfetto UI and chrome://tracing. JSON is "
    "streamed in batches with bounded memory and written under a temporary name "
    "until complete.",
    params=[
        Param(
            "Path",
            str,
            mandatory=True,
            position=0,
            complete="files",
            help="The file to write (a directory with -PartitionBy).",
        ),
        Param("Format", str, mandatory=True, choices=FORMAT_CHOICES),
        Param(
            "Table",
            str,
            complete="tables",
            help="A table or view of the store to export (instead of pipeline input).",
        ),
        Param("PartitionBy", "strings", help="Parquet only: one directory per value."),
        Param("InputObject", "any", pipeline=BY_VALUE, help="Records or a relation."),
    ],
    examples=[
        (
            "Get-Span | Export-Trace -Format zipkin -Path spans.json",
            "Spans for Zipkin or Jaeger (POST the file to /api/v2/spans).",
        ),
        (
            "Get-Syscall -Node web01 | Export-Trace -Format chrome -Path web01.json",
            "One node's system calls as a timeline for ui.perfetto.dev.",
        ),
        (
            "Export-Trace -Table syscalls -Format parquet -Path calls -PartitionBy node",
            "Every system call, one Parquet directory per node.",
        ),
    ],
    stream=True,
)
async def export_trace(
    ctx: Invocation,
    *,
    format: str,
    path: str,
    table: str | None = None,
    partition_by: list[str] | None = None,
    input_object: Any = None,
) -> list[ExportSummary]:
    from fayshell.errors import StoreError
    from fayshell.store.export import ExportRequest

    fmt = format.lower()
    with _source(ctx, table, await _records(ctx, table)) as rel:
        req = ExportRequest(
            rel,
            fmt,  # type: ignore[arg-type]
            Path(path).expanduser().absolute(),
            tuple(partition_by or ()),
        )
        task = ctx.progress(f"Export-Trace {fmt} {path}", None)
        try:
            summary = await _run(req, task)
        except StoreError as exc:
            raise ctx.fail(exc.message) from None
        finally:
            task.close()
    ctx.write_verbose(f"{summary.Rows} {summary.Kind} -> {summary.Path} in {summary.Seconds}s")
    return [summary]


async def _run(req: ExportRequest, task: Any) -> ExportSummary:
    """The export on a worker thread; when cancelled (Ctrl-C), stop it and wait until the
    thread has removed its partial output before letting the cancellation go on."""
    from fayshell.store.export import export

    work = asyncio.ensure_future(asyncio.to_thread(export, req, task))
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        req.cancel.set()
        with contextlib.suppress(Exception):
            await work
        raise


async def _records(ctx: Invocation, table: str | None) -> list[Any] | None:
    """Pipeline records to export (None when the input is a relation or -Table is used)."""
    if table is not None:
        if ctx.input is not None:
            raise ctx.fail("give either pipeline input or -Table, not both")
        return None
    if is_relation(ctx.input):
        return None
    items = await collect(ctx.input)
    if not items:
        raise ctx.fail("nothing to export: pipe a relation or records in, or give -Table")
    return items


@contextlib.contextmanager
def _source(ctx: Invocation, table: str | None, records: list[Any] | None) -> Iterator[Relation]:
    """The relation to export: the pipeline's, a table's, or records registered as a view."""
    from fayshell.store.database import registered
    from fayshell.store.relation import quote_ident

    if records is None and table is None:
        yield ctx.input
        return
    db = ctx.state.database
    if table is not None:
        known = {t.lower(): t for t in db.tables()}
        if table.lower() not in known:
            raise ctx.fail(f"no table or view {table!r} in {db.path}")
        yield db.relation(f"SELECT * FROM {quote_ident(known[table.lower()])}")
        return
    name = f"_fay_export_input_{id(records)}"
    with registered(db.con, **{name: _arrow(ctx, records or [])}):
        yield db.relation(f"SELECT * FROM {quote_ident(name)}")


def _arrow(ctx: Invocation, records: list[Any]) -> Any:
    """Records as an Arrow table (columns from the records' properties)."""
    import pyarrow as pa

    from fayshell.records import as_dict, to_plain

    try:
        return pa.Table.from_pylist([to_plain(as_dict(r)) for r in records])
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise ctx.fail(f"records cannot be exported as columns: {exc}") from None
