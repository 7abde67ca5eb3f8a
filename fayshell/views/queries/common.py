"""Queries shared by every view: "now" for offline data, the header line, per-node event rates."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fayshell.views.filters import FieldDef, Where, query_where
from fayshell.views.model import NS, Header, NodeRate, Query, Scope

if TYPE_CHECKING:
    import duckdb

    Con = duckdb.DuckDBPyConnection
else:
    Con = Any

#: The newest timestamp column of each table the views read.
NEWEST_COLUMNS: dict[str, str] = {
    "chunks": "last_ts",
    "events": "ts",
    "syscalls": "ts_exit",
    "spans": "ts_end",
    "logs": "ts",
}
#: The first and last timestamp columns of each table a view reads (its data's time range).
RANGE_COLUMNS: dict[str, tuple[str, str]] = {
    "syscalls": ("ts_entry", "ts_exit"),
    "spans": ("ts_start", "ts_end"),
    "logs": ("ts", "ts"),
    "events": ("ts", "ts"),
    "chunks": ("first_ts", "last_ts"),
}
#: Offline sparkline buckets follow the data's time range down to this width.
OFFLINE_MIN_BUCKET_NS = 1_000_000
#: How many buckets the per-node sparkline shows.
SPARK_BUCKETS = 60
NODE_FIELD = {"node": FieldDef("node")}
#: The newest timestamp (the data lag) is looked for this far back first.
NEWEST_LOOKBACK_NS = 60 * NS


#: Buckets of a live view's rollups kept apart behind the newest (10 minutes: past the longest
#: bounded window, a minute, with room for a node clock ahead of the shell's); older ones are
#: folded into one per key once a minute more of them has built up.
FOLD_KEEP_NS = 600 * NS
FOLD_EVERY_NS = 60 * NS


def fold_cutoff(con: Con, table: str, keep: int, every: int) -> int | None:
    """The bucket below which ``table``'s buckets (column ``b``) are folded now: ``keep``
    behind the newest, once ``every`` more are past it; None when nothing is due."""
    row = con.execute(f"SELECT min(b), max(b) FROM {table}").fetchall()[0]
    if row[0] is None or row[0] >= row[1] - keep - every:
        return None  # nothing old enough, or only the bucket a previous fold left
    return int(row[1]) - keep


def existing_tables(con: Con) -> set[str]:
    """Names of the tables and views in the main schema."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    ).fetchall()
    return {r[0] for r in rows}


def newest_ts(con: Con, tables: set[str] | None = None) -> int | None:
    """The newest timestamp anywhere in the data: "now" for a post-mortem."""
    have = existing_tables(con) if tables is None else tables
    parts = [f"SELECT max({col}) AS t FROM {t}" for t, col in NEWEST_COLUMNS.items() if t in have]
    if not parts:
        return None
    row = con.execute(f"SELECT max(t) FROM ({' UNION ALL '.join(parts)})").fetchone()
    return None if row is None or row[0] is None else int(row[0])


def data_version(con: Con) -> tuple[int | None, int]:
    """The newest timestamp and the total row count: changes whenever rows are added."""
    have = existing_tables(con)
    tables = [t for t in NEWEST_COLUMNS if t in have]
    if not tables:
        return None, 0
    counts = " + ".join(f"(SELECT count(*) FROM {t})" for t in tables)
    row = con.execute(f"SELECT {counts}").fetchone()
    return newest_ts(con, have), 0 if row is None else int(row[0])


def table_range(con: Con, table: str, scope: Scope) -> tuple[int, int] | None:
    """First and last timestamp of a view's table within the scope: a post-mortem view's
    time range (its "now" is where its own data ends, whatever else the database holds)."""
    if table not in existing_tables(con):
        return None
    first, last = RANGE_COLUMNS[table]
    w = query_where(Query(0, scope=scope), first, NODE_FIELD, window=False)
    row = con.execute(
        f"SELECT min({first}), max({last}) FROM {table} WHERE {w.sql()}", w.params
    ).fetchone()
    if row is None or row[0] is None or row[1] is None:
        return None
    return int(row[0]), int(row[1])


def table_newest(con: Con, q: Query, table: str, ts: str) -> int | None:
    """The newest timestamp of one table within the view's scope (for the data lag).

    Looked for since the window's start (at most a minute back) first: DuckDB skips the row
    groups older than that, so a live view's refresh does not scan the whole session; only when
    nothing is that recent is the whole scope read.
    """
    since = max(q.lo_ns if q.lo_ns is not None else 0, q.now_ns - NEWEST_LOOKBACK_NS)
    for lo in (since, None):
        w = query_where(q, ts, NODE_FIELD, window=False)
        if lo is not None:
            w.add(f"{ts} >= ?", lo)
        row = con.execute(f"SELECT max({ts}) FROM {table} WHERE {w.sql()}", w.params).fetchone()
        if row is not None and row[0] is not None:
            return int(row[0])
    return None


def header(con: Con, q: Query, table: str, ts: str, live: bool = False) -> Header:
    """Nodes reporting, events/s over the last interval, data lag and discarded events.

    A node reports when it sent data in the last :func:`reporting_window_ns` (its chunks,
    or the view's table for a database without chunk rows).
    """
    have = existing_tables(con)
    newest = table_newest(con, q, table, ts)
    chunks = "chunks" in have and _has_rows(con, "chunks")
    if q.data_start_ns is not None:  # offline: the nodes with this view's rows in the window
        w = query_where(q, ts, NODE_FIELD, window=True)
        reporting = _count(con, f"SELECT count(DISTINCT node) FROM {table} WHERE {w.sql()}", w)
    elif chunks:
        reporting = _nodes_reporting(con, q, "chunks", "last_ts")
    else:
        reporting = _nodes_reporting(con, q, table, ts)
    total = _nodes_total(con, q, table, have)
    rate = _events_per_s(con, q, table, ts, have)
    discarded, lost = _discarded(con, q, have)
    lag = None if newest is None else max(0, q.now_ns - newest)
    return Header(reporting, total, rate, newest, lag, discarded, lost)


def reporting_window_ns(q: Query) -> int:
    """A node "reports" when it has data this recent: three intervals, at least five seconds."""
    return max(3 * q.interval_ns, 5 * NS)


def _nodes_reporting(con: Con, q: Query, table: str, ts: str) -> int:
    """Nodes with data in the reporting window: from the chunks they sent when there are any."""
    w = query_where(q.but(window="session"), ts, NODE_FIELD, window=False)
    w.add(f"{ts} >= ?", q.now_ns - reporting_window_ns(q))
    w.add(f"{ts} <= ?", q.now_ns)
    return _count(con, f"SELECT count(DISTINCT node) FROM {table} WHERE {w.sql()}", w)


def _nodes_total(con: Con, q: Query, table: str, have: set[str]) -> int:
    w = query_where(q, "", NODE_FIELD, window=False)
    source = "chunks" if "chunks" in have and _has_rows(con, "chunks") else table
    return _count(con, f"SELECT count(DISTINCT node) FROM {source} WHERE {w.sql()}", w)


def _events_per_s(con: Con, q: Query, table: str, ts: str, have: set[str]) -> float:
    """Events in the rate interval over its length (live the last interval, offline the
    window's data time); the events table if it is filled."""
    source, col = ("events", "ts") if "events" in have and _has_rows(con, "events") else (table, ts)
    w = query_where(q, col, NODE_FIELD, window=False)
    w.add(f"{col} >= ?", q.rate_lo_ns)
    w.add(f"{col} <= ?", q.rate_hi_ns)
    return _count(con, f"SELECT count(*) FROM {source} WHERE {w.sql()}", w) / q.rate_s


def _discarded(con: Con, q: Query, have: set[str]) -> tuple[int, int]:
    if "chunks" not in have:
        return 0, 0
    w = query_where(q, "", NODE_FIELD, window=False)
    row = con.execute(
        "SELECT coalesce(sum(discarded), 0), coalesce(sum(lost_packets), 0) "
        f"FROM chunks WHERE {w.sql()}",
        w.params,
    ).fetchone()
    return (0, 0) if row is None else (int(row[0]), int(row[1]))


def _has_rows(con: Con, table: str) -> bool:
    return con.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone() == (True,)


def _count(con: Con, sql: str, w: Where) -> int:
    row = con.execute(sql, w.params).fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


def bucket_ns(q: Query) -> int:
    """Sparkline bucket: the window split in SPARK_BUCKETS, at least one interval wide."""
    if q.data_start_ns is not None:  # offline: the window's data, however short
        start = q.data_start_ns if q.lo_ns is None else max(q.lo_ns, q.data_start_ns)
        return max((q.now_ns - start) // SPARK_BUCKETS, OFFLINE_MIN_BUCKET_NS)
    span = (q.now_ns - q.lo_ns) if q.lo_ns is not None else 60 * NS
    return max(q.interval_ns, span // SPARK_BUCKETS, NS // 10)


def node_rates(con: Con, q: Query, table: str, ts: str) -> list[NodeRate]:
    """Events/s per node per bucket over the last SPARK_BUCKETS buckets.

    Counted from ``chunks`` when it holds rows (each chunk's events spread evenly over the time
    it covers), which stays cheap however many events there are; else from the view's table.
    """
    have = existing_tables(con)
    use_chunks = "chunks" in have and _has_rows(con, "chunks")
    width = bucket_ns(q)
    lo = q.rate_hi_ns - width * SPARK_BUCKETS  # the newest bucket ends where data is complete
    if use_chunks:
        rows = _chunk_buckets(con, q, lo, width)
    else:
        rows = _row_buckets(con, q, table, ts, lo, width)
    nodes = _scope_nodes(
        con,
        q,
        "chunks" if use_chunks else table,
        ("first_ts", "last_ts") if use_chunks else (ts, ts),
    )
    return _rates_from_buckets(rows, nodes, width)


def _chunk_buckets(con: Con, q: Query, lo: int, width: int) -> list[tuple[Any, ...]]:
    w = query_where(q, "", NODE_FIELD, window=False)
    w.add("last_ts > ?", lo)
    w.add("first_ts <= ?", q.now_ns)
    sql = (
        "WITH c AS (SELECT node, least(first_ts, last_ts - 1) AS f, last_ts AS l, "
        f"  events AS e FROM chunks WHERE {w.sql()}), "
        "k AS (SELECT c.*, b.range AS b, greatest(f, ? + b.range * ?) AS s, "
        "  least(l, ? + (b.range + 1) * ?) AS t FROM c, range(?) AS b) "
        "SELECT node, b, sum(e * (t - s) / (l - f)), max(l) FROM k WHERE t > s GROUP BY ALL"
    )
    params = [*w.params, lo, width, lo, width, SPARK_BUCKETS]
    return con.execute(sql, params).fetchall()


def _row_buckets(
    con: Con, q: Query, table: str, ts: str, lo: int, width: int
) -> list[tuple[Any, ...]]:
    w = query_where(q, ts, NODE_FIELD, window=False)
    w.add(f"{ts} > ?", lo)
    w.add(f"{ts} <= ?", q.now_ns)
    sql = (
        f"SELECT node, ({ts} - ? - 1) // ? AS b, count(*), max({ts}) "
        f"FROM {table} WHERE {w.sql()} GROUP BY ALL"
    )
    return con.execute(sql, [lo, width, *w.params]).fetchall()


def _scope_nodes(con: Con, q: Query, source: str, cols: tuple[str, str]) -> dict[str, int | None]:
    """Every node in scope with its newest timestamp up to now. Offline, a chunk that started
    before the view's end counts (capped at the end): the view's table may end a little
    before the chunk's last event."""
    first, last = cols
    w = query_where(q, "", NODE_FIELD, window=False)
    offline = q.data_start_ns is not None
    w.add(f"{first if offline else last} <= ?", q.now_ns)
    newest = f"least(max({last}), {int(q.now_ns)})" if offline else f"max({last})"
    rows = con.execute(
        f"SELECT node, {newest} FROM {source} WHERE {w.sql()} GROUP BY node", w.params
    ).fetchall()
    return {r[0]: None if r[1] is None else int(r[1]) for r in rows}


def _rates_from_buckets(
    rows: list[tuple[Any, ...]], nodes: dict[str, int | None], width: int
) -> list[NodeRate]:
    per: dict[str, list[float]] = {n: [0.0] * SPARK_BUCKETS for n in nodes}
    for node, b, n, _last in rows:
        series = per.setdefault(node, [0.0] * SPARK_BUCKETS)
        if 0 <= b < SPARK_BUCKETS:
            series[int(b)] += float(n) * NS / width
    return [NodeRate(node, tuple(s), s[-1], nodes.get(node)) for node, s in sorted(per.items())]
