"""The syscalls view: calls, rate, total/avg/p95/max time and the top process per group.

Counts, totals, averages and maxima are always exact. The p95 and the "top" column (the process
or syscall spending the most time) need a second pass over the rows; when the window holds more
than ``EXACT_LIMIT`` calls that pass reads a block sample of the table instead, and the rows say
so (``approx``) — that is what keeps a refresh over ten million rows within 100 ms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fayshell.views.filters import FieldDef, Where, query_where
from fayshell.views.model import Query, SyscallStat, sort_rows
from fayshell.views.queries.common import Con

FIELDS: dict[str, FieldDef] = {
    "name": FieldDef("name"), "node": FieldDef("node"), "procname": FieldDef("procname"),
    "pid": FieldDef("pid"),
}
#: Filter box aliases -> fields; a bare glob matches the syscall name.
FILTER_ALIASES: dict[str, tuple[str, ...]] = {
    "": ("*name",), "sys": ("name",), "syscall": ("name",), "name": ("name",),
    "node": ("node",), "proc": ("procname",), "process": ("procname",), "comm": ("procname",),
    "pid": ("pid",),
}
#: Above this many calls in the window, p95 and top come from a block sample …
EXACT_LIMIT = 1_000_000
#: … of about this many rows.
SAMPLE_ROWS = 250_000


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
    "syscall_node": Grouping("syscall_node", "per syscall × node", ("name", "node"),
                             "procname", "top proc"),
    "process": Grouping("process", "per process", ("node", "pid"), "name", "top sys",
                        carried=("procname",)),
}
SORTABLE = ("calls", "rate", "total_ns", "avg_ns", "p95_ns", "max_ns")


def syscall_stats(con: Con, q: Query, exact_limit: int = EXACT_LIMIT) -> list[SyscallStat]:
    """One row per group of the window, sorted and limited as the query says."""
    g = GROUPINGS[q.grouping or "syscall"]
    w = query_where(q, "ts_entry", FIELDS)
    main = _main_rows(con, q, g, w)
    total_calls = sum(int(r["calls"]) for r in main)
    sample = _sample_percent(total_calls, exact_limit)
    details = _detail_rows(con, g, w, sample)
    rows = [_stat(g, r, details.get(_key(g, r)), sample is not None) for r in main]
    return sort_rows(rows, q.sort or "total_ns", q.descending)[: q.limit]


def _main_rows(con: Con, q: Query, g: Grouping, w: Where) -> list[dict[str, Any]]:
    keys = ", ".join(g.keys)
    sql = (f"SELECT {g.select()}, count(*) AS calls, count(*) FILTER (ts_entry > ?) AS recent, "
           "coalesce(sum(dur_ns), 0) AS total_ns, avg(dur_ns) AS avg_ns, "
           f"coalesce(max(dur_ns), 0) AS max_ns FROM syscalls WHERE {w.sql()} GROUP BY {keys}")
    cur = con.execute(sql, [q.now_ns - q.interval_ns, *w.params])
    names = [d[0] for d in cur.description or []]
    rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    for r in rows:
        r["rate"] = int(r.pop("recent")) / q.interval_s
    return rows


def _sample_percent(calls: int, exact_limit: int) -> float | None:
    """None for an exact pass, else the share of the table's blocks to read."""
    if calls <= exact_limit:
        return None
    return min(100.0, max(0.5, 100.0 * min(SAMPLE_ROWS, exact_limit) / calls))


def _detail_rows(con: Con, g: Grouping, w: Where,
                 sample: float | None) -> dict[tuple[Any, ...], tuple[float | None, str | None]]:
    """p95 and the top process (or syscall) by total time, per group key."""
    keys = ", ".join(g.keys)
    source = "syscalls" if sample is None else f"syscalls TABLESAMPLE {sample:.3f}% (system, 7)"
    sql = (f"WITH w AS (SELECT {keys}, {g.top} AS top, dur_ns FROM {source} WHERE {w.sql()}), "
           f"p AS (SELECT {keys}, quantile_cont(dur_ns, 0.95) AS p95 FROM w GROUP BY {keys}), "
           f"t AS (SELECT {keys}, top, sum(dur_ns) AS s FROM w GROUP BY ALL), "
           f"b AS (SELECT {keys}, first(top ORDER BY s DESC, top) AS top FROM t GROUP BY {keys}) "
           f"SELECT p.*, b.top FROM p JOIN b USING ({keys})")
    out: dict[tuple[Any, ...], tuple[float | None, str | None]] = {}
    for row in con.execute(sql, w.params).fetchall():
        n = len(g.keys)
        out[tuple(row[:n])] = (row[n], None if row[n + 1] is None else str(row[n + 1]))
    return out


def _key(g: Grouping, r: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(r[k] for k in g.keys)


def _stat(g: Grouping, r: dict[str, Any], detail: tuple[float | None, str | None] | None,
          approx: bool) -> SyscallStat:
    p95, top = detail if detail is not None else (None, None)
    return SyscallStat(
        name=r.get("name"), node=r.get("node"), pid=r.get("pid"), procname=r.get("procname"),
        calls=int(r["calls"]), rate=float(r["rate"]), total_ns=int(r["total_ns"]),
        avg_ns=float(r["avg_ns"] or 0.0), p95_ns=None if p95 is None else float(p95),
        max_ns=int(r["max_ns"]), top=top, approx=approx)
