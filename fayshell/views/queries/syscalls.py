"""The syscalls view: calls, rate, total/avg/p95/max time and the top process per group.

Counts, totals, averages, maxima and the "top" column (the process or syscall spending the most
time) are exact: over a big table they come from the rollup's per-bucket partials plus the raw
rows at the window's edges. Only the p95 needs every duration; when the window holds more than
``EXACT_LIMIT`` calls it is computed on a block sample of the table instead, and the rows say so
(``approx``). Per process, the top syscall comes from that same pass (``top_approx`` when
sampled); a filter on a column the chosen rollup lacks (a syscall glob per process, a pid per
syscall) reads the raw rows. bench/views.py measures what this buys over ten million rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fayshell.store.database import transaction
from fayshell.views.filters import FieldDef, Where, query_where
from fayshell.views.model import Query, SyscallStat, sort_rows
from fayshell.views.queries import rollup
from fayshell.views.queries.common import Con

FIELDS: dict[str, FieldDef] = {
    "name": FieldDef("name"),
    "node": FieldDef("node"),
    "procname": FieldDef("procname"),
    "pid": FieldDef("pid"),
}
#: Filter box aliases -> fields; a bare glob matches the syscall name.
FILTER_ALIASES: dict[str, tuple[str, ...]] = {
    "": ("*name",),
    "sys": ("name",),
    "syscall": ("name",),
    "name": ("name",),
    "node": ("node",),
    "proc": ("procname",),
    "process": ("procname",),
    "comm": ("procname",),
    "pid": ("pid",),
}
#: Windows over a table this big read the rollup's partials instead of every row.
ROLLUP_MIN = 1_000_000
#: Above this many calls in the window, p95 and top come from a block sample …
EXACT_LIMIT = 1_000_000
#: … of about this many rows.
SAMPLE_ROWS = 100_000


@dataclass(frozen=True)
class Grouping:
    """How rows are grouped: key columns and what the "top" column names."""

    name: str
    label: str
    keys: tuple[str, ...]
    top: str
    top_label: str
    carried: tuple[str, ...] = ()

    def select(self) -> str:
        """Key columns, then carried ones (one value per key: cheaper than grouping by them)."""
        return ", ".join([*self.keys, *(f"any_value({c}) AS {c}" for c in self.carried)])


GROUPINGS: dict[str, Grouping] = {
    "syscall": Grouping("syscall", "per syscall", ("name",), "procname", "top proc"),
    "syscall_node": Grouping(
        "syscall_node", "per syscall × node", ("name", "node"), "procname", "top proc"
    ),
    "process": Grouping(
        "process", "per process", ("node", "pid"), "name", "top sys", carried=("procname",)
    ),
}


def syscall_stats(
    con: Con, q: Query, exact_limit: int = EXACT_LIMIT, rollup_min: int = ROLLUP_MIN
) -> list[SyscallStat]:
    """One row per group of the window, sorted and limited as the query says.

    Windows longer than an interval over a table of ``rollup_min`` rows or more read the
    exact per-bucket partials of :mod:`fayshell.views.queries.rollup`.
    """
    g = GROUPINGS[q.grouping or "syscall"]
    w = query_where(q, "ts_entry", FIELDS)
    roll = rollup.covering(_columns_used(q, g))
    if q.window == "interval" or _table_rows(con) < rollup_min:
        roll = None
    main = _main_rows(con, q, g, w) if roll is None else _rolled_rows(con, q, g, roll)
    exact_top = roll is not None and g.top in roll.keys
    total_calls = sum(int(r["calls"]) for r in main)
    sample = _sample_percent(total_calls, exact_limit)
    details = _detail_rows(con, g, w, sample, want_top=not exact_top)
    rows = []
    for r in main:
        p95, top = details.get(_key(g, r), (None, None))
        if exact_top:
            top = r["top"]
        rows.append(_stat(r, p95, top, sample is not None, sample is not None and not exact_top))
    return sort_rows(rows, q.sort or "total_ns", q.descending)[: q.limit]


def _columns_used(q: Query, g: Grouping) -> set[str]:
    """Columns the query groups, filters or matches by (the top column only if it can be
    exact: per process, the top syscall comes from the p95 pass instead)."""
    used = {*g.keys, *g.carried}
    if g.name != "process":
        used.add(g.top)
    used |= {name.lstrip("*") for name, _ in q.filter.globs}
    used |= {col for col, _ in q.where_eq}
    return used


def _table_rows(con: Con) -> int:
    row = con.execute("SELECT count(*) FROM syscalls").fetchone()
    return 0 if row is None else int(row[0])


def _rolled_rows(con: Con, q: Query, g: Grouping, roll: rollup.Rollup) -> list[dict[str, Any]]:
    """Main rows (and the top column, when the rollup has it) from the partials plus the raw
    window edges."""
    with transaction(con):  # the partials and the raw rows read at the same instant
        rollup.sync(con, roll)
        rows = _rolled_query(con, q, g, roll)
    # offline the rate interval is the window itself: its calls, no second pass
    recent = None if q.data_start_ns is not None else _recent(con, q, g)
    for r in rows:
        n = int(r.pop("n"))
        r["avg_ns"] = int(r["total_ns"]) / n if n else None
        calls = int(r["calls"]) if recent is None else recent.get(_key(g, r), 0)
        r["rate"] = calls / q.rate_s
    return rows


def _rolled_query(con: Con, q: Query, g: Grouping, roll: rollup.Rollup) -> list[dict[str, Any]]:
    scope = query_where(q, "ts_entry", FIELDS, window=False)
    top = g.top if g.top in roll.keys else "NULL"
    needed = ", ".join(dict.fromkeys(c for c in (*g.keys, *g.carried, g.top) if c in roll.keys))
    span = rollup.split_window(q.lo_ns, q.now_ns)
    parts, params = rollup.parts_sql(roll, span, scope, needed)
    keys = ", ".join(g.keys)
    sql = (
        f"WITH parts AS ({parts}), "
        f"m AS (SELECT {g.select()}, sum(c) AS calls, sum(t) AS total_ns, sum(n) AS n, "
        f"  coalesce(max(m), 0) AS max_ns FROM parts GROUP BY {keys}), "
        f"s AS (SELECT {keys}, {top} AS top, sum(t) AS s FROM parts GROUP BY ALL), "
        f"b AS (SELECT {keys}, first(top ORDER BY s DESC, top) AS top FROM s "
        f"  GROUP BY {keys}) "
        f"SELECT m.*, b.top FROM m JOIN b USING ({keys})"
    )
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description or []]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def _recent(con: Con, q: Query, g: Grouping) -> dict[tuple[Any, ...], int]:
    """Calls per group in the rate interval, for the rate column."""
    w = query_where(q, "ts_entry", FIELDS, window=False)
    w.add("ts_entry > ?", q.rate_lo_ns)
    w.add("ts_entry <= ?", q.rate_hi_ns)
    keys = ", ".join(g.keys)
    sql = f"SELECT {keys}, count(*) FROM syscalls WHERE {w.sql()} GROUP BY {keys}"
    rows = con.execute(sql, w.params).fetchall()
    return {tuple(r[:-1]): int(r[-1]) for r in rows}


def _main_rows(con: Con, q: Query, g: Grouping, w: Where) -> list[dict[str, Any]]:
    keys = ", ".join(g.keys)
    sql = (
        f"SELECT {g.select()}, count(*) AS calls, "
        "count(*) FILTER (ts_entry > ? AND ts_entry <= ?) AS recent, "
        "coalesce(sum(dur_ns), 0) AS total_ns, avg(dur_ns) AS avg_ns, "
        f"coalesce(max(dur_ns), 0) AS max_ns FROM syscalls WHERE {w.sql()} GROUP BY {keys}"
    )
    cur = con.execute(sql, [q.rate_lo_ns, q.rate_hi_ns, *w.params])
    names = [d[0] for d in cur.description or []]
    rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    for r in rows:
        r["rate"] = int(r.pop("recent")) / q.rate_s
    return rows


def _sample_percent(calls: int, exact_limit: int) -> float | None:
    """None for an exact pass, else the share of the table's blocks to read."""
    if calls <= exact_limit:
        return None
    return min(100.0, max(0.5, 100.0 * min(SAMPLE_ROWS, exact_limit) / calls))


def _detail_rows(
    con: Con, g: Grouping, w: Where, sample: float | None, want_top: bool = True
) -> dict[tuple[Any, ...], tuple[float | None, str | None]]:
    """p95 and (``want_top``) the top process or syscall by total time, per group key."""
    keys = ", ".join(g.keys)
    source = "syscalls" if sample is None else f"syscalls TABLESAMPLE {sample:.3f}% (system, 7)"
    top = g.top if want_top else "NULL"
    sql = (
        f"WITH w AS (SELECT {keys}, {top} AS top, dur_ns FROM {source} WHERE {w.sql()}), "
        f"p AS (SELECT {keys}, quantile_cont(dur_ns, 0.95) AS p95 FROM w GROUP BY {keys}), "
        f"t AS (SELECT {keys}, top, sum(dur_ns) AS s FROM w GROUP BY ALL), "
        f"b AS (SELECT {keys}, first(top ORDER BY s DESC, top) AS top FROM t GROUP BY {keys}) "
        f"SELECT p.*, b.top FROM p JOIN b USING ({keys})"
    )
    out: dict[tuple[Any, ...], tuple[float | None, str | None]] = {}
    for row in con.execute(sql, w.params).fetchall():
        n = len(g.keys)
        out[tuple(row[:n])] = (row[n], None if row[n + 1] is None else str(row[n + 1]))
    return out


def _key(g: Grouping, r: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(r[k] for k in g.keys)


def _stat(
    r: dict[str, Any], p95: float | None, top: str | None, approx: bool, top_approx: bool
) -> SyscallStat:
    return SyscallStat(
        name=r.get("name"),
        node=r.get("node"),
        pid=r.get("pid"),
        procname=r.get("procname"),
        calls=int(r["calls"]),
        rate=float(r["rate"]),
        total_ns=int(r["total_ns"]),
        avg_ns=float(r["avg_ns"] or 0.0),
        p95_ns=None if p95 is None else float(p95),
        max_ns=int(r["max_ns"]),
        top=None if top is None else str(top),
        approx=approx,
        top_approx=top_approx,
    )
