"""Top-style views of a traced cluster: hot system calls, span latencies and logs.

The query layer (:mod:`fayshell.views.queries`, :mod:`fayshell.views.feeds`) knows DuckDB and
nothing of the screen; the textual side (:mod:`fayshell.views.ui`) knows the screen and asks a
feed for data. This module imports neither textual nor duckdb: the entry points below load
them when a view actually starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fayshell.views.launch import VIEWS, TopConfig, run_view

if TYPE_CHECKING:
    from fayshell.store.database import Database

__all__ = ["VIEWS", "TopConfig", "open_existing", "run_top", "run_view"]


def open_existing(path: str) -> Database:
    """Open a database that must already exist: a post-mortem never creates an empty file."""
    from pathlib import Path

    from fayshell.errors import StoreError
    from fayshell.store.database import Database

    if path != ":memory:" and not Path(path).expanduser().is_file():
        raise StoreError(f"no database at {path}")
    return Database.open(path)


async def run_top(
    view: str,
    database_path: str,
    *,
    node: str | None = None,
    interval_s: float = 1.0,
    severity: str = "Warning",
    session: str | None = None,
    headless: bool = False,
) -> int:
    """``fayshell top VIEW --db FILE``: run a view offline over a database until ``q``.

    ``node`` is a node set (``web[01-04]``, ``a,b``) restricting the view. Returns the exit
    code (0 after ``q``). Raises :class:`fayshell.errors.FayError` for a bad view, severity,
    interval or node set, and :class:`fayshell.errors.StoreError` when the file is missing or
    cannot be opened.
    """
    from fayshell.errors import FayError, UsageError
    from fayshell.views.feeds import OfflineFeed
    from fayshell.views.model import NS, Scope
    from fayshell.views.scope import expand_nodes

    try:
        config = TopConfig(
            view, Scope(session, expand_nodes(node)), round(interval_s * NS), severity
        )
    except (ValueError, FayError) as exc:
        raise UsageError(f"fayshell top: {getattr(exc, 'message', exc)}") from None
    db = open_existing(database_path)
    feed = OfflineFeed(db)
    try:
        return await run_view(feed, config, headless=headless)
    finally:
        feed.close()
        db.close()
