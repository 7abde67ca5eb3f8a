"""The logs view: the newest records at or above a severity, and counts per severity."""

from __future__ import annotations

from dataclasses import replace

from fayshell.views.filters import FieldDef, query_where
from fayshell.views.model import SEVERITIES, LogPage, LogRecord, Query, severity_rank
from fayshell.views.queries.common import Con

FIELDS: dict[str, FieldDef] = {
    "node": FieldDef("node"),
    "logger": FieldDef("logger"),
    "msg": FieldDef("msg", True),
    "procname": FieldDef("procname"),
}
#: A bare word matches the logger (glob) or the message (substring).
FILTER_ALIASES: dict[str, tuple[str, ...]] = {
    "": ("*logger", "*msg"),
    "node": ("node",),
    "logger": ("logger",),
    "log": ("logger",),
    "msg": ("msg",),
    "proc": ("procname",),
    "process": ("procname",),
}


def log_page(con: Con, q: Query, severity: str, limit: int = 1000) -> LogPage:
    """The newest ``limit`` records at or above ``severity`` (shown oldest first) and counts."""
    w = query_where(q, "ts", FIELDS)
    wanted = [s for s in SEVERITIES if severity_rank(s) <= severity_rank(severity)]
    counts = con.execute(
        f"SELECT severity, count(*) FROM logs WHERE {w.sql()} GROUP BY severity", w.params
    ).fetchall()
    by_sev = {str(s): int(n) for s, n in counts}
    w.add(f"severity IN ({', '.join('?' for _ in wanted)})", *wanted)
    sql = (
        "SELECT ts, node, severity, logger, msg, procname, pid, func, line FROM logs "
        f"WHERE {w.sql()} ORDER BY ts DESC, node, logger, msg LIMIT ?"
    )
    rows = con.execute(sql, [*w.params, limit]).fetchall()
    records = _numbered(
        [
            LogRecord(
                int(r[0]), r[1] or "", r[2] or "", r[3] or "", r[4] or "", r[5], r[6], r[7], r[8]
            )
            for r in reversed(rows)
        ]
    )
    ordered = tuple((s, by_sev.get(s, 0)) for s in SEVERITIES)
    return LogPage(tuple(records), ordered, sum(n for s, n in ordered if s in wanted))


def _numbered(records: list[LogRecord]) -> list[LogRecord]:
    """Identical records get ``dup`` 1, 2 … so every row has its own key."""
    seen: dict[str, int] = {}
    out = []
    for r in records:
        n = seen.get(r.key, 0)
        seen[r.key] = n + 1
        out.append(r if n == 0 else replace(r, dup=n))
    return out
