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

    t = rows.sort_by([("trace_id", "ascending"), ("span_id", "ascending"), ("ts", "ascending")])
    tid = t.column("trace_id").to_numpy(zero_copy_only=False)
    sid = t.column("span_id").to_numpy(zero_copy_only=False)
    ts = t.column("ts").to_numpy(zero_copy_only=False)
    n = len(ts)
    new = np.ones(n, bool)
    new[1:] = (tid[1:] != tid[:-1]) | (sid[1:] != sid[:-1])
    g = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    groups = len(starts)
    is_kv = t.column("key").is_valid().to_numpy(zero_copy_only=False)
    ann = ~is_kv
    value = t.column("value")
    t0, t1 = _bounds(g, ts, ann, starts, groups)
    out: dict[str, Any] = {"node": _first(t, "node", starts), "trace_id": tid[starts],
                           "span_id": sid[starts], "parent_span_id": _first(t, "parent", starts),
                           "service": _first(t, "service_name", starts),
                           "ip": _first(t, "ip", starts), "port": _first(t, "port_no", starts),
                           "name": _first(t, "trace_name", starts), "ts_start": t0,
                           "ts_end": t1, "dur_ns": t1 - t0}
    out["client_dur_ns"] = _between(starts, ts, ann, value, "cs", "cr")
    out["server_dur_ns"] = _between(starts, ts, ann, value, "sr", "ss")
    out["annotations"] = _annotations(g, ts, ann, value, groups)
    out["keyvals"], out["error"] = _keyvals(t, g, is_kv, groups)
    return pa.table(out)


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


def _between(starts: np.ndarray, ts: np.ndarray, ann: np.ndarray, value: pa.ChunkedArray,
             begin: str, end: str) -> pa.Array:
    """max(ts of ``end``) - min(ts of ``begin``) per span, NULL unless both exist."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    b = ann & pc.equal(value, begin).fill_null(False).to_numpy(zero_copy_only=False)
    e = ann & pc.equal(value, end).fill_null(False).to_numpy(zero_copy_only=False)
    lo = np.minimum.reduceat(np.where(b, ts, I64_MAX), starts)
    hi = np.maximum.reduceat(np.where(e, ts, I64_MIN), starts)
    ok = (lo != I64_MAX) & (hi != I64_MIN)
    return pa.array(np.where(ok, hi - np.where(ok, lo, 0), 0), pa.int64(), mask=~ok)


def _annotations(g: np.ndarray, ts: np.ndarray, ann: np.ndarray, value: pa.ChunkedArray,
                 groups: int) -> pa.Array:
    """LIST(STRUCT(ts, value)) of each span's annotations in time order."""
    import numpy as np
    import pyarrow as pa

    idx = np.flatnonzero(ann)
    offsets = np.searchsorted(g[idx], np.arange(groups + 1)).astype(np.int32)
    items = pa.StructArray.from_arrays(
        [pa.array(ts[idx]), value.take(pa.array(idx)).combine_chunks()], names=["ts", "value"])
    return pa.ListArray.from_arrays(pa.array(offsets), items)


def _keyvals(t: pa.Table, g: np.ndarray, is_kv: np.ndarray, groups: int
             ) -> tuple[pa.Array, np.ndarray]:
    """MAP(key, value) per span (the latest value of a repeated key) and the error flag."""
    import numpy as np
    import pyarrow as pa

    idx = np.flatnonzero(is_kv)
    kv = pa.table({"g": g[idx], "key": t.column("key").take(pa.array(idx)),
                   "value": t.column("value").take(pa.array(idx)),
                   "ts": t.column("ts").take(pa.array(idx))})
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
