"""Where the 1/N sampling rate of BlkKin spans is kept: the ``span_sampling`` table of the store.

``Enable-Tracepoint -SampleEvery N`` writes one row per node that accepted the rule (session,
node, sample_every, the filter sent, since_ns = the shell's clock when it was enabled).
``Get-Span -Estimate`` joins spans to the newest row of their (session, node) enabled before the
span started (an ASOF join): the rate in force when the span was recorded. Several sampled
rules on one session keep the smallest N (the trace-id masks nest), so the row written keeps
the smallest rate of that session and node. Spans with no row were not sampled (N = 1).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fayshell.store.database import Database

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS span_sampling (session VARCHAR, node VARCHAR, "
    "sample_every BIGINT, filter VARCHAR, since_ns BIGINT)"
)


def record_sampling(
    db: Database,
    session: str,
    nodes: list[str],
    every: int,
    filter: str,
    since_ns: int | None = None,
) -> None:
    """Remember that ``nodes`` of ``session`` keep 1 trace in ``every`` from now on."""
    at = time.time_ns() if since_ns is None else since_ns
    with db.lock:
        db.execute(SCHEMA)
        for node in nodes:
            prev = db.execute(
                "SELECT min(sample_every) FROM span_sampling WHERE session = ? AND node = ?",
                [session, node],
            )[0][0]
            rate = every if prev is None else min(int(prev), every)
            db.execute(
                "INSERT INTO span_sampling VALUES (?, ?, ?, ?, ?)",
                [session, node, rate, filter, at],
            )


def ensure_sampling(db: Database) -> None:
    db.execute(SCHEMA)


def estimate_sql(spans_sql: str) -> str:
    """Per node, session, service and span name: spans and traces kept, the rate, and the
    estimated totals (Horvitz-Thompson: each kept span or trace counts N), with the standard
    deviation of the traces estimate (sqrt of the sum of N * (N - 1) over kept traces)."""
    return f"""
        WITH s AS (SELECT * FROM ({spans_sql}) AS _s),
        w AS (SELECT s.*, coalesce(m.sample_every, 1) AS _every FROM s
              ASOF LEFT JOIN span_sampling m
              ON s.session = m.session AND s.node = m.node AND s.ts_start >= m.since_ns),
        t AS (SELECT node, session, service, name, trace_id, count(*) AS n,
                     max(_every) AS every FROM w GROUP BY ALL)
        SELECT node, session, service, name, sum(n) AS kept_spans, count(*) AS kept_traces,
               max(every) AS sample_every, sum(n * every) AS est_spans,
               sum(every) AS est_traces,
               round(sqrt(sum(every * (every - 1))), 1) AS est_traces_stddev
        FROM t GROUP BY ALL ORDER BY node, session, service, name"""
