"""Exact partial aggregates of ``syscalls`` per time bucket, kept up to date incrementally.

Grouping ten million rows by strings on every refresh costs more than a refresh may. Instead,
like Fay's in-machine aggregation, the view folds each new row once into per-bucket partials
(calls, durations summed, maximum) in a TEMP table of the feed's own connection. A window then
reads the partials of the buckets it covers whole, plus the raw rows of its two partial
buckets at the edges — the answer stays exact.

Two rollups keep the partials small: ``by_name`` per (session, node, procname, name) serves
the per-syscall groupings, ``by_process`` per (session, node, pid, procname) the per-process
one. (Both keys at once, a (node, pid, name) triple, would be nearly as many rows as the data.)

New rows are found by ``rowid`` (the store only appends); when rows disappear the partials are
rebuilt from scratch. Buckets far behind the newest are folded into one per key (the sums,
counts and maxima stay exact), so a view left open for hours keeps a bounded table: no bounded
window reaches them, and the whole-session window only adds them up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fayshell.views.filters import Where
from fayshell.views.model import NS
from fayshell.views.queries.common import FOLD_EVERY_NS, FOLD_KEEP_NS, Con, fold_cutoff

BUCKET_NS = 2 * NS
#: Buckets kept apart behind the newest, and how many more before folding again (common).
KEEP_BUCKETS = FOLD_KEEP_NS // BUCKET_NS
FOLD_EVERY = FOLD_EVERY_NS // BUCKET_NS


@dataclass(frozen=True)
class Rollup:
    """One set of partials: its temp table, mark table and key columns."""

    name: str
    keys: tuple[str, ...]

    @property
    def table(self) -> str:
        return f"_fay_top_{self.name}"

    @property
    def mark(self) -> str:
        return f"_fay_top_{self.name}_mark"

    @property
    def columns(self) -> str:
        return ", ".join(self.keys)


ROLLUPS = (
    Rollup("by_name", ("session", "node", "procname", "name")),
    Rollup("by_process", ("session", "node", "pid", "procname")),
)


@dataclass(frozen=True)
class Span:
    """What a window needs: whole buckets from the partials, raw ranges at the edges."""

    first_bucket: int | None
    last_bucket: int | None
    raw: tuple[tuple[int | None, int], ...]


def covering(columns: set[str]) -> Rollup | None:
    """The rollup holding every column a query groups or filters by, if any."""
    return next((roll for roll in ROLLUPS if columns <= set(roll.keys)), None)


def split_window(lo: int | None, hi: int) -> Span:
    """Whole buckets inside [lo, hi] and the raw timestamp ranges left over at either end."""
    last = (hi + 1) // BUCKET_NS - 1  # the last bucket ending at or before hi
    if lo is None:
        return Span(None, last, (((last + 1) * BUCKET_NS, hi),))
    first = -(-lo // BUCKET_NS)  # the first bucket starting at or after lo
    if first > last:
        return Span(None, None, ((lo, hi),))
    return Span(first, last, ((lo, first * BUCKET_NS - 1), ((last + 1) * BUCKET_NS, hi)))


def sync(con: Con, roll: Rollup) -> None:
    """Fold rows appended since the last call into the partials (rebuild after deletions).

    The mark keeps the row count and the next rowid to fold. When the rows at or past that
    rowid account for all the growth, only they are folded; anything else (a delete) rebuilds.
    Call it inside :func:`snapshot` so rows committed meanwhile are folded next time, once.
    """
    con.execute(f"CREATE TEMP TABLE IF NOT EXISTS {roll.mark} (n BIGINT, next_rowid BIGINT)")
    mark = con.execute(f"SELECT n, next_rowid FROM {roll.mark}").fetchone()
    total = _count(con, "SELECT count(*) FROM syscalls")
    start = 0 if mark is None else int(mark[1])
    fresh = _count(con, f"SELECT count(*) FROM syscalls WHERE rowid >= {start}")
    if mark is not None and mark[0] == total and fresh == 0:
        return
    if mark is None or total - int(mark[0]) != fresh:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {roll.table} AS {_partials(roll, 'WHERE false')}"
        )
        start = 0
    con.execute(f"INSERT INTO {roll.table} {_partials(roll, 'WHERE rowid >= ?')}", [start])
    end = _count(
        con, f"SELECT coalesce(max(rowid) + 1, {start}) FROM syscalls WHERE rowid >= {start}"
    )
    con.execute(f"DELETE FROM {roll.mark}")
    con.execute(f"INSERT INTO {roll.mark} VALUES (?, ?)", [total, end])
    fold_old(con, roll)


def fold_old(con: Con, roll: Rollup, keep: int = KEEP_BUCKETS, every: int = FOLD_EVERY) -> None:
    """Fold the buckets more than ``keep`` behind the newest into one bucket per key, just
    below the cutoff (still before any bounded window; the whole session adds it up)."""
    cut = fold_cutoff(con, roll.table, keep, every)
    if cut is None:
        return
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {roll.table} AS "
        f"SELECT {cut - 1} AS b, {roll.columns}, sum(c)::BIGINT AS c, sum(n)::BIGINT AS n, "
        f"sum(t)::HUGEINT AS t, max(m) AS m FROM {roll.table} WHERE b < {cut} GROUP BY ALL "
        f"UNION ALL SELECT * FROM {roll.table} WHERE b >= {cut}"
    )


def _partials(roll: Rollup, where: str) -> str:
    return (
        f"{_partials_select(f'ts_entry // {BUCKET_NS} AS b, {roll.columns}')} "
        f"FROM syscalls {where} GROUP BY ALL"
    )


def _count(con: Con, sql: str) -> int:
    row = con.execute(sql).fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


def parts_sql(roll: Rollup, span: Span, w: Where, columns: str) -> tuple[str, list[Any]]:
    """``columns`` (some of the rollup's keys) with c, n, t, m from the partials and from the
    raw rows at the edges, as one UNION ALL.

    ``w`` holds the scope and filter conditions; they apply to every part.
    """
    sqls: list[str] = []
    params: list[Any] = []
    if span.last_bucket is not None:
        cond = "b <= ?" if span.first_bucket is None else "b BETWEEN ? AND ?"
        sqls.append(f"SELECT {columns}, c, n, t, m FROM {roll.table} WHERE {w.sql()} AND {cond}")
        params.extend(w.params)
        params.extend(b for b in (span.first_bucket, span.last_bucket) if b is not None)
    for lo, hi in span.raw:
        if lo is not None and lo > hi:
            continue
        cond = "ts_entry <= ?" if lo is None else "ts_entry BETWEEN ? AND ?"
        sqls.append(
            f"{_partials_select(columns)} FROM syscalls WHERE {w.sql()} AND {cond} GROUP BY ALL"
        )
        params.extend(w.params)
        params.extend(v for v in (lo, hi) if v is not None)
    if not sqls:
        sqls.append(f"SELECT {columns}, c, n, t, m FROM {roll.table} WHERE false")
    return " UNION ALL ".join(sqls), params


def _partials_select(keys: str) -> str:
    return (
        f"SELECT {keys}, count(*) AS c, count(dur_ns) AS n, "
        "coalesce(sum(dur_ns), 0)::HUGEINT AS t, max(dur_ns) AS m"
    )
