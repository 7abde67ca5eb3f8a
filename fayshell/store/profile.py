"""Node profiles and how far each is from the cluster's median profile (Compare-Node), in SQL.

A node's profile over a time window is a set of features:

* ``syscall NAME share``: the fraction of the node's system calls that are NAME;
  ``syscall NAME p50`` / ``p90``: its latency percentiles;
* ``span SERVICE p50`` / ``p90``: span latency per service, and
  ``span SERVICE errors``: the fraction of its spans with an error;
* ``log SEVERITY share``: the fraction of the node's log records at that severity.

A percentile is a feature only where enough calls back it: at least ``min_calls`` for p50 and
at least 10 calls beyond it for the tail (100 calls for p90). The tail is p90, not p99: a
rare slow mode (a futex that waits across an idle period, ~1% of calls) puts p99 on one side
of the gap on some nodes and on the other side on others by chance, while p90 stays put.

A share a node lacks counts as 0 when the node has data of that family at all. Each feature is
compared on a log scale, ``l = ln(x + e)`` (``e``: 1 percentage point for shares, 1 µs for
latencies, so rare calls and tiny shares do not count for much), by a robust z-score:
``z = |l - median(l)| / max(1.4826 * MAD(l), ln 1.5)`` over the nodes that have the feature.
The median and the MAD (median absolute deviation) are robust: with 8 nodes one odd node moves
neither. Dividing by the spread makes naturally noisy features (a p90 that jumps between nodes)
count little and features on which the nodes agree count a lot when one node leaves them; the
floor ln 1.5 keeps a difference under 1.5x below z = 1 where the nodes agree exactly. A node's
score is the sum of its z over all features (0 = exactly the median profile); its top features
are those with the largest z.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Smoothing of the log ratio per unit: shares (fractions), latencies (ns).
SHARE_EPS = 0.01
NS_EPS = 1000.0
#: The smallest spread a feature's z-score divides by (a 1.5x difference).
SPREAD_FLOOR = "ln(1.5)"
#: Calls a tail percentile needs beyond it before it is compared.
TAIL_CALLS = 10


@dataclass(frozen=True)
class Window:
    """The time window [lo, hi) in epoch nanoseconds (None: open)."""

    lo: int | None = None
    hi: int | None = None

    def cond(self, column: str) -> str:
        parts = []
        if self.lo is not None:
            parts.append(f"{column} >= {int(self.lo)}")
        if self.hi is not None:
            parts.append(f"{column} < {int(self.hi)}")
        return " AND ".join(parts) or "true"


#: Stand-ins for a table the database does not have (yet): no rows, the columns used.
EMPTY = {
    "syscalls": "(SELECT NULL::VARCHAR AS node, NULL::VARCHAR AS session, NULL::VARCHAR AS name, "
    "NULL::BIGINT AS dur_ns, NULL::BIGINT AS ts_entry WHERE false)",
    "spans": "(SELECT NULL::VARCHAR AS node, NULL::VARCHAR AS session, NULL::VARCHAR AS service, "
    "NULL::BIGINT AS dur_ns, NULL::BOOLEAN AS error, NULL::BIGINT AS ts_start "
    "WHERE false)",
    "logs": "(SELECT NULL::VARCHAR AS node, NULL::VARCHAR AS session, NULL::VARCHAR AS severity, "
    "NULL::BIGINT AS ts WHERE false)",
}


@dataclass(frozen=True)
class ProfileQuery:
    """What Compare-Node compares: the window, a node condition (SQL), and settings.
    ``tables``: the store tables that exist (the others count as empty)."""

    window: Window
    node_cond: str = "true"
    min_calls: int = 20
    top: int = 3
    tables: frozenset[str] = frozenset(EMPTY)

    def source(self, table: str) -> str:
        return table if table in self.tables else EMPTY[table]


def _where(q: ProfileQuery, ts: str) -> str:
    return f"WHERE {q.window.cond(ts)} AND {q.node_cond}"


def _human(value: str, unit: str) -> str:
    """SQL text showing a feature value: a percentage, or a duration with its unit."""
    return (
        f"CASE WHEN {unit} = 'share' THEN printf('%.1f%%', {value} * 100) "
        f"WHEN {value} >= 1e9 THEN printf('%.2fs', {value} / 1e9) "
        f"WHEN {value} >= 1e6 THEN printf('%.2fms', {value} / 1e6) "
        f"WHEN {value} >= 1e3 THEN printf('%.1fus', {value} / 1e3) "
        f"ELSE printf('%.0fns', {value}) END"
    )


def features_sql(q: ProfileQuery) -> str:
    """One row per (node, family, unit, feature, value)."""
    m = int(q.min_calls)
    m90 = max(m, round(TAIL_CALLS / (1 - 0.9)))
    return f"""
      sc AS (SELECT node, name, count(*) AS n, quantile_cont(dur_ns, 0.5) AS p50,
                    quantile_cont(dur_ns, 0.90) AS p90
             FROM {q.source("syscalls")} {_where(q, "ts_entry")} AND dur_ns IS NOT NULL GROUP BY ALL),
      sp AS (SELECT node, coalesce(service, '?') AS service, count(*) AS n,
                    quantile_cont(dur_ns, 0.5) AS p50, quantile_cont(dur_ns, 0.90) AS p90,
                    avg(coalesce(error, false)::INTEGER) AS err
             FROM {q.source("spans")} {_where(q, "ts_start")} AND dur_ns IS NOT NULL GROUP BY ALL),
      lg AS (SELECT node, coalesce(severity, '?') AS severity, count(*) AS n
             FROM {q.source("logs")} {_where(q, "ts")} GROUP BY ALL),
      feat AS (
        SELECT node, 'syscalls' AS family, 'share' AS unit, 'syscall ' || name || ' share'
               AS feature, n / sum(n) OVER (PARTITION BY node) AS value FROM sc
        UNION ALL SELECT node, 'syscalls', 'ns', 'syscall ' || name || ' p50', p50 FROM sc
               WHERE n >= {m}
        UNION ALL SELECT node, 'syscalls', 'ns', 'syscall ' || name || ' p90', p90 FROM sc
               WHERE n >= {m90}
        UNION ALL SELECT node, 'spans', 'ns', 'span ' || service || ' p50', p50 FROM sp
               WHERE n >= {m}
        UNION ALL SELECT node, 'spans', 'ns', 'span ' || service || ' p90', p90 FROM sp
               WHERE n >= {m90}
        UNION ALL SELECT node, 'spans', 'share', 'span ' || service || ' errors', err FROM sp
        UNION ALL SELECT node, 'logs', 'share', 'log ' || severity || ' share',
               n / sum(n) OVER (PARTITION BY node) FROM lg)"""


def compare_sql(q: ProfileQuery) -> str:
    """Nodes most different from the median profile first: node, score, features (the top
    ones, described), compared (how many features were compared), and counts."""
    return f"""
      WITH {features_sql(q).strip()},
      fam AS (SELECT DISTINCT node, family FROM feat),
      shares AS (SELECT DISTINCT family, unit, feature FROM feat WHERE unit = 'share'),
      grid AS (
        SELECT fam.node, s.family, s.unit, s.feature, coalesce(v.value, 0) AS value
        FROM fam JOIN shares s USING (family)
        LEFT JOIN feat v ON v.node = fam.node AND v.feature = s.feature
        UNION ALL SELECT node, family, unit, feature, value FROM feat WHERE unit = 'ns'),
      logs AS (SELECT *, ln(value + CASE WHEN unit = 'share' THEN {SHARE_EPS} ELSE {NS_EPS} END)
                      AS l FROM grid),
      med AS (SELECT *, median(value) OVER w AS med, median(l) OVER w AS lmed,
                     count(*) OVER w AS nodes FROM logs WINDOW w AS (PARTITION BY feature)),
      spread AS (SELECT *, median(abs(l - lmed)) OVER (PARTITION BY feature) AS mad FROM med),
      scored AS (SELECT *, abs(l - lmed) / greatest(1.4826 * mad, {SPREAD_FLOOR}) AS z
                 FROM spread WHERE nodes >= 2)
      SELECT node, round(sum(z), 2) AS score,
             list(feature || ' ' || {_human("value", "unit")} || ' vs median '
                  || {_human("med", "unit")} || printf(' (z %.1f)', z)
                  ORDER BY z DESC)[1:{int(q.top)}] AS features,
             count(*) AS compared
      FROM scored GROUP BY node ORDER BY score DESC, node"""


def newest_sql(node_cond: str) -> str:
    """The newest timestamp of the store's syscalls, spans and logs (the "now" of -Last)."""
    return (
        f"SELECT max(t) FROM (SELECT max(ts_exit) AS t FROM syscalls WHERE {node_cond} "
        f"UNION ALL SELECT max(ts_end) FROM spans WHERE {node_cond} "
        f"UNION ALL SELECT max(ts) FROM logs WHERE {node_cond})"
    )
