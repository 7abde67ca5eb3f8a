"""Group BlkKin (zipkin) rows into spans with numpy/Arrow: sorted runs instead of SQL list
aggregates (which DuckDB builds slowly for hundreds of thousands of small groups).

Input: one row per zipkin event of the affected spans (node, ts, trace_id, span_id, parent,
service_name, ip, port_no, trace_name, value, key); ``key`` is NULL for annotations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

I64_MAX = (1 << 63) - 1
I64_MIN = -(1 << 63)


def build_spans(rows: pa.Table) -> pa.Table:
    """The spans table rows (without node/session columns' order concerns: named columns)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    # sort only the integer keys; string columns are taken for the rows that need them
    order = pc.sort_indices(rows.select(["trace_id", "span_id", "ts"]),
                            sort_keys=[("trace_id", "ascending"), ("span_id", "ascending"),
                                       ("ts", "ascending")]).to_numpy()
    tid = _ints(rows, "trace_id")[order]
    sid = _ints(rows, "span_id")[order]
    ts = _ints(rows, "ts")[order]
    n = len(ts)
    new = np.ones(n, bool)
    new[1:] = (tid[1:] != tid[:-1]) | (sid[1:] != sid[:-1])
    g = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    groups = len(starts)
    is_kv = np.asarray(rows.column("key").is_valid().to_numpy(zero_copy_only=False), bool)[order]
    ann = ~is_kv
    value = rows.column("value")
    t0, t1 = _bounds(g, ts, ann, starts, groups)
    first = order[starts]
    out: dict[str, Any] = {"node": _first(rows, "node", first), "trace_id": tid[starts],
                           "span_id": sid[starts], "parent_span_id": _first(rows, "parent", first),
                           "service": _first(rows, "service_name", first),
                           "ip": _first(rows, "ip", first), "port": _first(rows, "port_no", first),
                           "name": _first(rows, "trace_name", first), "ts_start": t0,
                           "ts_end": t1, "dur_ns": t1 - t0}
    out["client_dur_ns"] = _between(starts, ts, ann, _is(value, "cs", order),
                                    _is(value, "cr", order))
    out["server_dur_ns"] = _between(starts, ts, ann, _is(value, "sr", order),
                                    _is(value, "ss", order))
    out["annotations"] = _annotations(g, ts, ann, value, order, groups)
    out["keyvals"], out["error"] = _keyvals(rows, g, ts, is_kv, order, groups)
    return pa.table(out)


def _ints(t: pa.Table, col: str) -> np.ndarray:
    """An integer column as numpy (NULL ids become 0, as DuckDB's grouping of them would)."""
    import numpy as np

    c = t.column(col)
    if c.null_count:
        c = c.fill_null(0)
    return np.asarray(c.to_numpy(), np.int64)


def _is(value: pa.ChunkedArray, word: str, order: np.ndarray) -> np.ndarray:
    """value == word, in sorted row order (NULL is False)."""
    import numpy as np
    import pyarrow.compute as pc

    eq = pc.equal(value, word).fill_null(False).to_numpy(zero_copy_only=False)
    return np.asarray(eq, bool)[order]


def _first(t: pa.Table, col: str, starts: np.ndarray) -> pa.Array:
    import pyarrow as pa

    return t.column(col).take(pa.array(starts))


def _bounds(g: np.ndarray, ts: np.ndarray, ann: np.ndarray, starts: np.ndarray,
            groups: int) -> tuple[np.ndarray, np.ndarray]:
    """First and last annotation time per span (all its events when it has none)."""
    import numpy as np

    lo = np.minimum.reduceat(np.where(ann, ts, I64_MAX), starts)
    hi = np.maximum.reduceat(np.where(ann, ts, I64_MIN), starts)
    ends = np.r_[starts[1:], len(ts)] - 1
    none = lo == I64_MAX
    lo[none] = ts[starts][none]
    hi[none] = ts[ends][none]
    return lo, hi


def _between(starts: np.ndarray, ts: np.ndarray, ann: np.ndarray, is_begin: np.ndarray,
             is_end: np.ndarray) -> pa.Array:
    """max(ts of the end annotation) - min(ts of the begin one) per span, NULL unless both."""
    import numpy as np
    import pyarrow as pa

    b = ann & is_begin
    e = ann & is_end
    lo = np.minimum.reduceat(np.where(b, ts, I64_MAX), starts)
    hi = np.maximum.reduceat(np.where(e, ts, I64_MIN), starts)
    ok = (lo != I64_MAX) & (hi != I64_MIN)
    return pa.array(np.where(ok, hi - np.where(ok, lo, 0), 0), pa.int64(), mask=~ok)


def _annotations(g: np.ndarray, ts: np.ndarray, ann: np.ndarray, value: pa.ChunkedArray,
                 order: np.ndarray, groups: int) -> pa.Array:
    """LIST(STRUCT(ts, value)) of each span's annotations in time order."""
    import numpy as np
    import pyarrow as pa

    idx = np.flatnonzero(ann)
    offsets = np.searchsorted(g[idx], np.arange(groups + 1)).astype(np.int32)
    items = pa.StructArray.from_arrays(
        [pa.array(ts[idx]), value.take(pa.array(order[idx])).combine_chunks()],
        names=["ts", "value"])
    return pa.ListArray.from_arrays(pa.array(offsets), items)


def _keyvals(t: pa.Table, g: np.ndarray, ts: np.ndarray, is_kv: np.ndarray, order: np.ndarray,
             groups: int) -> tuple[pa.Array, np.ndarray]:
    """MAP(key, value) per span (the latest value of a repeated key) and the error flag."""
    import numpy as np
    import pyarrow as pa

    idx = np.flatnonzero(is_kv)
    rows = pa.array(order[idx])
    kv = pa.table({"g": g[idx], "key": t.column("key").take(rows),
                   "value": t.column("value").take(rows), "ts": ts[idx]})
    kv = kv.sort_by([("g", "ascending"), ("key", "ascending"), ("ts", "ascending")])
    kg = kv.column("g").to_numpy()
    keys = kv.column("key").combine_chunks()
    same_next = np.zeros(len(kg), bool)
    if len(kg) > 1:
        same_next[:-1] = (kg[1:] == kg[:-1]) & _equal_neighbours(keys)
    keep = np.flatnonzero(~same_next)
    kg, keys = kg[keep], keys.take(pa.array(keep))
    vals = kv.column("value").combine_chunks().take(pa.array(keep))
    offsets = np.searchsorted(kg, np.arange(groups + 1)).astype(np.int32)
    err = np.zeros(groups, bool)
    err[kg[np.asarray(keys.to_numpy(zero_copy_only=False) == "error", bool)]] = True
    return pa.MapArray.from_arrays(pa.array(offsets), keys, vals), err


def _equal_neighbours(keys: pa.Array) -> np.ndarray:
    """keys[i + 1] == keys[i] for each i (strings, vectorized)."""
    import numpy as np
    import pyarrow.compute as pc

    n = len(keys)
    return np.asarray(pc.equal(keys.slice(1), keys.slice(0, n - 1)).fill_null(False)
                      .to_numpy(zero_copy_only=False), bool)
