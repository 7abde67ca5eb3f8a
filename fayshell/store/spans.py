"""Group BlkKin (zipkin) rows into spans: one compiled pass (fayshell.store._algos) when it is
built, else sorted runs in numpy/Arrow (the reference); both instead of SQL list aggregates
(which DuckDB builds slowly for hundreds of thousands of small groups).

Input: one row per zipkin event of the affected spans (node, ts, trace_id, span_id, parent,
service_name, ip, port_no, trace_name, value, key); ``key`` is NULL for annotations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

from fayshell.concurrency import Background
from fayshell.store.arrowsql import cast, filter_rows, int_column, one_chunk, take, valid_mask

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

I64_MAX = (1 << 63) - 1
I64_MIN = -(1 << 63)


def build_spans(rows: pa.Table, compiled: bool = True) -> pa.Table:
    """The spans of ``rows`` (ROW_COLUMNS, plus ``node`` when present), one row per
    (trace_id, span_id), in order of their first row (by time); see ``_algos.span_build`` for
    what each column holds. The compiled pass when it is built and ``compiled``, else numpy
    (the reference, tested equal)."""
    algos = _compiled() if compiled else None
    return _build_numpy(rows) if algos is None else _build_compiled(rows, algos)


def _compiled() -> ModuleType | None:
    """fayshell.store._algos when it is built."""
    try:
        from fayshell.store import _algos
    except ImportError:
        return None
    return _algos


class _Built(NamedTuple):
    """What ``_algos.span_build`` returns: buffers of int32 row numbers and offsets, int64
    times and one byte per span flags; a span's lists are its rows in ``ann`` and ``kv``
    between two offsets."""

    order: bytes
    starts: bytes
    t0: bytes
    t1: bytes
    cli: bytes
    cli_ok: bytes
    srv: bytes
    srv_ok: bytes
    ann: bytes
    ann_offsets: bytes
    kv: bytes
    kv_offsets: bytes
    error: bytes

    def ints(self, name: str) -> np.ndarray:
        import numpy as np

        width = {"t0": np.int64, "t1": np.int64, "cli": np.int64, "srv": np.int64}
        return np.frombuffer(getattr(self, name), width.get(name, np.int32))

    def flags(self, name: str) -> np.ndarray:
        import numpy as np

        return np.frombuffer(getattr(self, name), np.bool_)


def _build_compiled(rows: pa.Table, algos: ModuleType) -> pa.Table:
    """build_spans in one compiled pass: Arrow only gathers the strings it picked."""
    import pyarrow as pa

    with Background(_value_key, rows) as strings:  # gathered on the other core
        tid, sid, ts = (int_column(rows, c) for c in ("trace_id", "span_id", "ts"))
        value, key = strings.result()
    got = _Built(*algos.span_build(tid, sid, ts, *_buffers(value), *_buffers(key)))
    first = got.ints("order")[got.ints("starts")[:-1]]
    ann, kv = got.ints("ann"), got.ints("kv")
    lists = (ts[ann], value, key, ann, kv, got.ints("ann_offsets"), got.ints("kv_offsets"))
    with Background(_lists, *lists) as annotations_keyvals:  # gathered on the other core
        t0, t1 = got.ints("t0"), got.ints("t1")
        out = _span_columns(rows, pa.array(first), tid[first], sid[first], t0, t1)
        out["client_dur_ns"] = pa.array(got.ints("cli"), mask=~got.flags("cli_ok"))
        out["server_dur_ns"] = pa.array(got.ints("srv"), mask=~got.flags("srv_ok"))
        out["annotations"], out["keyvals"] = annotations_keyvals.result()
    out["error"] = got.flags("error")
    return pa.table(out)


def _lists(
    ann_ts: np.ndarray,
    value: pa.Array,
    key: pa.Array,
    ann: np.ndarray,
    kv: np.ndarray,
    ann_offsets: np.ndarray,
    kv_offsets: np.ndarray,
) -> tuple[pa.Array, pa.Array]:
    """The annotations and keyvals columns from span_build's row lists."""
    import pyarrow as pa

    items = pa.StructArray.from_arrays([pa.array(ann_ts), take(value, ann)], ["ts", "value"])
    keyvals = pa.MapArray.from_arrays(pa.array(kv_offsets), take(key, kv), take(value, kv))
    return pa.ListArray.from_arrays(pa.array(ann_offsets), items), keyvals


def _value_key(rows: pa.Table) -> tuple[pa.Array, pa.Array]:
    """The value and key columns as one array each."""
    return _strings(rows.column("value")), _strings(rows.column("key"))


def _strings(col: pa.ChunkedArray) -> pa.Array:
    """A string column as one array of Arrow's ``string`` layout (int32 offsets)."""
    import pyarrow as pa

    arr = one_chunk(col)
    return arr if arr.type == pa.string() else one_chunk(cast(arr, pa.string()))


def _buffers(arr: pa.Array) -> tuple[object, object, object, int]:
    """A string array as span_build takes it: offsets, data, validity (None: no NULL) and
    the array's offset."""
    valid, offsets, data = arr.buffers()
    return offsets, b"" if data is None else data, valid, arr.offset


def _build_numpy(rows: pa.Table) -> pa.Table:
    """build_spans with numpy and Arrow's kernels."""
    import numpy as np
    import pyarrow as pa

    tid, sid, ts = int_column(rows, "trace_id"), int_column(rows, "span_id"), int_column(rows, "ts")
    order = _span_order(tid, sid, ts)
    tid, sid, ts = tid[order], sid[order], ts[order]
    new = np.ones(len(ts), bool)
    new[1:] = (tid[1:] != tid[:-1]) | (sid[1:] != sid[:-1])
    g = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    is_kv = valid_mask(rows.column("key"))[order]
    ann = ~is_kv
    value = _Codes.of(rows.column("value"), order)
    t0, t1 = _bounds(ts, ann, starts)
    first = pa.array(order[starts])
    with Background(_keyvals, rows, g, ts, is_kv, order, value, len(starts)) as keyvals:
        out = _span_columns(rows, first, tid[starts], sid[starts], t0, t1)
        out["client_dur_ns"] = _between(starts, ts, ann & value.eq("cs"), ann & value.eq("cr"))
        out["server_dur_ns"] = _between(starts, ts, ann & value.eq("sr"), ann & value.eq("ss"))
        out["annotations"] = _annotations(g, ts, ann, value, len(starts))
        out["keyvals"], out["error"] = keyvals.result()  # built on another core meanwhile
    return pa.table(out)


def _span_columns(
    rows: pa.Table,
    first: pa.Array,
    tid: np.ndarray,
    sid: np.ndarray,
    t0: np.ndarray,
    t1: np.ndarray,
) -> dict[str, Any]:
    """The columns each span takes from its first row, and its times. Two of the string
    columns are taken on a thread of their own meanwhile, while both callers gather other
    columns on another (the compiled pass its annotation and key/value lists, numpy its maps):
    this function's takes were the longest of those on the compiled path."""
    with Background(_taken, rows, first, ("service_name", "trace_name")) as strings:
        parent, ip, port = _taken(rows, first, ("parent", "ip", "port_no"))
        out: dict[str, Any] = (
            {"node": take(rows.column("node"), first)} if "node" in rows.column_names else {}
        )
        service, name = strings.result()
    out |= {
        "trace_id": tid,
        "span_id": sid,
        "parent_span_id": parent,
        "service": service,
        "ip": ip,
        "port": port,
        "name": name,
        "ts_start": t0,
        "ts_end": t1,
        "dur_ns": t1 - t0,
    }
    return out


def _taken(rows: pa.Table, first: pa.Array, names: tuple[str, ...]) -> list[Any]:
    """The values of the named columns at the rows ``first``."""
    return [take(rows.column(n), first) for n in names]


def _span_order(tid: np.ndarray, sid: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Row order grouping each (trace_id, span_id), groups by their first time, rows of a
    group in time order: a hash of the ids numbered by first appearance in time, checked for
    collisions (then an exact three-key sort)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    by_ts = np.argsort(ts, kind="stable")
    with np.errstate(over="ignore"):
        h = (tid * np.int64(-7046029254386353131) + sid)[by_ts]
    gid = np.asarray(pc.dictionary_encode(pa.array(h)).indices.to_numpy(), np.int64)
    by_gid = np.argsort(gid, kind="stable")
    order = by_ts[by_gid]
    t, s, g = tid[order], sid[order], gid[by_gid]
    same = g[1:] == g[:-1]
    if np.any(same & ((t[1:] != t[:-1]) | (s[1:] != s[:-1]))):
        return np.lexsort((ts, sid, tid))
    return order


@dataclass
class _Codes:
    """A string column as dictionary codes in sorted row order (-1 for NULL)."""

    codes: np.ndarray
    words: pa.Array

    @classmethod
    def of(cls, column: pa.ChunkedArray, order: np.ndarray) -> _Codes:
        import numpy as np
        import pyarrow.compute as pc

        enc = pc.dictionary_encode(column).combine_chunks()
        codes = np.asarray(enc.indices.fill_null(-1).to_numpy(), np.int64)[order]
        return cls(codes, enc.dictionary)

    def eq(self, word: str) -> np.ndarray:
        """Rows whose value is ``word``."""
        import pyarrow.compute as pc

        at = pc.index(self.words, word).as_py()
        return self.codes == at if at >= 0 else self.codes == -2

    def in_byte_order(self) -> np.ndarray:
        """The codes renumbered in the byte order of their words (-1 stays -1)."""
        import numpy as np
        import pyarrow.compute as pc

        by = np.asarray(pc.sort_indices(self.words), np.int64)
        rank = np.full(len(by) + 1, -1, np.int64)
        rank[by] = np.arange(len(by))
        return rank[self.codes]

    def take(self, rows: np.ndarray) -> pa.Array:
        """The plain strings of the given sorted rows."""
        import pyarrow as pa

        codes = self.codes[rows]
        return self.words.take(pa.array(codes, mask=codes < 0))


def _bounds(ts: np.ndarray, ann: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last annotation time per span (all its events when it has none)."""
    import numpy as np

    lo = np.minimum.reduceat(np.where(ann, ts, I64_MAX), starts)
    hi = np.maximum.reduceat(np.where(ann, ts, I64_MIN), starts)
    ends = np.r_[starts[1:], len(ts)][: len(starts)] - 1  # (no span: no end either)
    none = lo == I64_MAX
    lo[none] = ts[starts][none]
    hi[none] = ts[ends][none]
    return lo, hi


def _between(starts: np.ndarray, ts: np.ndarray, begin: np.ndarray, end: np.ndarray) -> pa.Array:
    """max(ts of the end annotation) - min(ts of the begin one) per span, NULL unless both."""
    import numpy as np
    import pyarrow as pa

    lo = np.minimum.reduceat(np.where(begin, ts, I64_MAX), starts)
    hi = np.maximum.reduceat(np.where(end, ts, I64_MIN), starts)
    ok = (lo != I64_MAX) & (hi != I64_MIN)
    return pa.array(np.where(ok, hi - np.where(ok, lo, 0), 0), pa.int64(), mask=~ok)


def _annotations(
    g: np.ndarray, ts: np.ndarray, ann: np.ndarray, value: _Codes, groups: int
) -> pa.Array:
    """LIST(STRUCT(ts, value)) of each span's annotations in time order."""
    import numpy as np
    import pyarrow as pa

    idx = np.flatnonzero(ann)
    offsets = np.searchsorted(g[idx], np.arange(groups + 1)).astype(np.int32)
    items = pa.StructArray.from_arrays([pa.array(ts[idx]), value.take(idx)], names=["ts", "value"])
    return pa.ListArray.from_arrays(pa.array(offsets), items)


def _keyvals(
    t: pa.Table,
    g: np.ndarray,
    ts: np.ndarray,
    is_kv: np.ndarray,
    order: np.ndarray,
    value: _Codes,
    groups: int,
) -> tuple[pa.Array, np.ndarray]:
    """MAP(key, value) per span (the latest value of a repeated key; keys in byte order) and
    the error flag."""
    import numpy as np
    import pyarrow as pa

    idx = np.flatnonzero(is_kv)
    key = _Codes.of(t.column("key"), order)
    kg, kc, kts = g[idx], key.in_byte_order()[idx], ts[idx]
    by = np.lexsort((kts, kc, kg))
    idx, kg, kc = idx[by], kg[by], kc[by]
    last = np.ones(len(idx), bool)  # the latest row of each (span, key)
    last[:-1] = (kg[1:] != kg[:-1]) | (kc[1:] != kc[:-1])
    idx, kg = idx[last], kg[last]
    offsets = np.searchsorted(kg, np.arange(groups + 1)).astype(np.int32)
    err = np.zeros(groups, bool)
    err[kg[key.eq("error")[idx]]] = True
    return pa.MapArray.from_arrays(pa.array(offsets), key.take(idx), value.take(idx)), err


#: The BlkKin event classes and how each contributes to a span.
ZIPKIN_ANNOTATION = "zipkin:timestamp"
ZIPKIN_KEYVALS = ("zipkin:keyval_string", "zipkin:keyval_integer")
#: Columns of a span row set (what build_spans reads), in order.
ROW_COLUMNS = (
    "ts",
    "trace_id",
    "span_id",
    "parent",
    "service_name",
    "ip",
    "port_no",
    "trace_name",
    "value",
    "key",
)


@dataclass
class SpanStager:
    """Collects the BlkKin rows of decoded batches and groups them into spans at each flush,
    so spans are built from memory instead of being read back from the database."""

    classes: dict[int, str]  # trace class index -> zipkin event name
    parts: list[pa.Table] = field(default_factory=list)
    rows: int = 0

    @classmethod
    def for_classes(cls, names: list[str]) -> SpanStager | None:
        """A stager when the trace declares zipkin events, else None."""
        zk = {i: n for i, n in enumerate(names) if n == ZIPKIN_ANNOTATION or n in ZIPKIN_KEYVALS}
        return cls(zk) if zk else None

    def add(self, ts: pa.ChunkedArray | pa.Array, payload: dict[int, pa.Table]) -> None:
        """Keep the zipkin rows of one batch (``ts``: the batch's timestamps by row)."""
        for c, name in self.classes.items():
            t = payload.get(c)
            if t is not None and t.num_rows:
                part = zipkin_rows(t, ts, name)
                if part.num_rows:
                    self.parts.append(part)
                    self.rows += part.num_rows

    def take(self) -> pa.Table | None:
        """The staged rows as one table (and forget them), or None."""
        import pyarrow as pa

        if not self.parts:
            return None
        rows = pa.concat_tables(self.parts)
        self.parts, self.rows = [], 0
        return rows


def zipkin_rows(t: pa.Table, ts: pa.ChunkedArray | pa.Array, event: str) -> pa.Table:
    """One payload table of a zipkin class as span rows (ROW_COLUMNS); rows without trace or
    span id are left out, as they belong to no span."""
    import pyarrow as pa

    n = t.num_rows
    names = set(t.column_names)

    def col(name: str, typ: pa.DataType) -> pa.Array | pa.ChunkedArray:
        if name not in names:
            return pa.nulls(n, typ)
        c = t.column(name)
        if c.type == typ:
            return c
        if typ == pa.int64() and pa.types.is_uint64(c.type):
            return _wrap_signed(c)
        return cast(c, typ)

    if event == ZIPKIN_ANNOTATION:
        value, key = col("event", pa.string()), pa.nulls(n, pa.string())
    else:
        value, key = col("val", pa.string()), col("key", pa.string())
    out = pa.table(
        {
            "ts": take(ts, t.column("row")),
            "trace_id": col("trace_id", pa.int64()),
            "span_id": col("span_id", pa.int64()),
            "parent": col("parent_span_id", pa.int64()),
            "service_name": col("service_name", pa.string()),
            "ip": col("ip", pa.string()),
            "port_no": col("port_no", pa.int32()),
            "trace_name": col("trace_name", pa.string()),
            "value": value,
            "key": key,
        }
    )
    ids = out.column("trace_id"), out.column("span_id")
    if not any(c.null_count for c in ids):
        return out
    return filter_rows(out, pa.array(valid_mask(ids[0]) & valid_mask(ids[1])))


def _wrap_signed(c: pa.ChunkedArray) -> pa.ChunkedArray:
    """A 64-bit unsigned column as int64, values >= 2**63 wrapped (as DuckDB's as_bigint):
    the same buffers read as signed."""
    import pyarrow as pa

    return pa.chunked_array(
        [
            pa.Array.from_buffers(pa.int64(), len(a), a.buffers(), a.null_count, a.offset)
            for a in c.chunks
        ],
        pa.int64(),
    )
