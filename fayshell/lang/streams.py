"""Pipeline streams: what flows between commands.

A stream is either a :class:`~fayshell.store.relation.Relation` (the pipeline can still run in
DuckDB), or an async iterator of records. These helpers convert between the shapes commands
return and the shapes they consume, without importing duckdb.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any


def is_relation(value: Any) -> bool:
    """True for a Relation, checked by type name so the core never imports the store eagerly."""
    return type(value).__name__ == "Relation" and hasattr(value, "iter_records")


def collected(value: Any, limit: int | None = None) -> Any:
    """A relation as the value PowerShell gives a pipeline's output where one value is needed
    (``$x = ...``, ``if (...)``, a comparison): $null for no row, the row for one, else the
    rows; ``limit``: at most that many rows fetched (enough to tell those cases apart).
    Anything else as it is."""
    if not is_relation(value):
        return value
    rows = (value if limit is None else value.wrap("*", f"LIMIT {int(limit)}")).records()
    return None if not rows else rows[0] if len(rows) == 1 else rows


def unroll(value: Any) -> list[Any]:
    """A value as the items it writes to the output: arrays enumerate, $null writes nothing."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


async def aiter_items(stream: Any) -> AsyncIterator[Any]:
    """Iterate any stream shape: None, Relation, list, sync or async iterator, single value."""
    if stream is None:
        return
    if is_relation(stream):
        for record in stream.iter_records():
            yield record
        return
    if hasattr(stream, "__aiter__"):
        async for item in stream:
            yield item
        return
    if isinstance(stream, (str, bytes, Mapping)) or not isinstance(stream, Iterable):
        yield stream
        return
    for item in stream:
        if is_relation(item):  # a relation written by a function or block among other output
            for record in item.iter_records():
                yield record
        else:
            yield item


def as_stream(items: list[Any]) -> Any:
    """Block output as a stream: a lone relation stays a relation (so SQL pushdown goes on)."""
    if len(items) == 1 and is_relation(items[0]):
        return items[0]
    return items


async def collect(stream: Any) -> list[Any]:
    """Materialize a stream into a list of records (a Relation is fetched)."""
    if stream is None:
        return []
    if isinstance(stream, list) and not any(is_relation(i) for i in stream):
        return stream
    if is_relation(stream):
        return list(stream.records())
    return [item async for item in aiter_items(stream)]


async def normalize_result(result: Any) -> Any:
    """What a cmdlet returned, as a stream: awaited, None for nothing, a Relation kept as is."""
    if inspect.isawaitable(result):
        result = await result
    if result is None or is_relation(result) or hasattr(result, "__aiter__"):
        return result
    if isinstance(result, (str, bytes, Mapping)) or not isinstance(result, Iterable):
        return [result]
    return result


def single_or_list(items: list[Any]) -> Any:
    """How a pipeline's output is stored in a variable: $null, one item, or an array."""
    if not items:
        return None
    if len(items) == 1:
        return items[0]
    return items
