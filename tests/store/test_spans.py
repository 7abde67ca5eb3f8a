"""Spans from zipkin rows (store/spans.py): the compiled pass equals the numpy reference."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from fayshell.store.spans import ROW_COLUMNS, _span_order, build_spans


def _ids(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ids of a few hundred spans (some sharing a trace or a span id), timestamps from two
    interleaved streams with ties."""
    tid = rng.integers(-5, 40, n).astype(np.int64) * (1 << 40)
    sid = rng.integers(0, 12, n).astype(np.int64) - 3
    ts = np.concatenate(
        [np.sort(rng.integers(0, n, n // 2)), np.sort(rng.integers(0, n, n - n // 2))]
    )
    return tid, sid, ts.astype(np.int64)


@pytest.mark.parametrize("n", [0, 1, 7, 5000])
def test_numpy_grouping(n: int) -> None:
    tid, sid, ts = _ids(np.random.default_rng(n), n)
    order = _span_order(tid, sid, ts)
    assert sorted(order.tolist()) == list(range(n))
    keys = list(zip(tid[order].tolist(), sid[order].tolist(), strict=True))
    runs = [k for i, k in enumerate(keys) if i == 0 or keys[i - 1] != k]
    assert len(runs) == len(set(keys))  # each span's rows are contiguous
    assert all(ts[order][i] <= ts[order][i + 1] for i in range(n - 1) if keys[i] == keys[i + 1])


WORDS = ["cs", "cr", "sr", "ss", "c", "csx", "", "é", "error", "zz", None]
KEYS = ["error", "k", "K", "é", "", "k2", "a\x00b"]


def _random_rows(rng: np.random.Generator, n: int) -> pa.Table:
    """Rows of a few hundred spans: annotations (the four timing ones, others, NULL), repeated
    keys (non-ASCII, empty, "error"), timestamps with ties."""
    tid, sid, ts = _ids(rng, n)
    kv = rng.random(n) < 0.3
    value = [WORDS[i] for i in rng.integers(0, len(WORDS), n)]
    key = [KEYS[i] if k else None for i, k in zip(rng.integers(0, len(KEYS), n), kv, strict=True)]
    return pa.table(
        {
            "ts": pa.array(ts),
            "trace_id": pa.array(tid),
            "span_id": pa.array(sid),
            "parent": pa.array(rng.integers(0, 3, n), pa.int64()),
            "service_name": pa.array([f"svc{i}" for i in rng.integers(0, 3, n)]),
            "ip": pa.array(["10.0.0.1"] * n, pa.string()),
            "port_no": pa.array(rng.integers(0, 9, n), pa.int32()),
            "trace_name": pa.array([f"op{i}" for i in rng.integers(0, 4, n)]),
            "value": pa.array(value, pa.string()),
            "key": pa.array(key, pa.string()),
        }
    )


@pytest.mark.parametrize("n", [1, 2, 9, 4000])
def test_compiled_spans_equal_numpy(n: int) -> None:
    """Differential: the compiled pass builds exactly the reference's table (order, bounds,
    durations, annotation lists, key/value maps, error flags), on one chunk and on several
    chunks that are slices of a larger array (Arrow offsets)."""
    pytest.importorskip("fayshell.store._algos", reason="the C extension is not built")
    rows = _random_rows(np.random.default_rng(n), n)
    want = build_spans(rows, compiled=False)
    assert build_spans(rows).equals(want)
    big = _random_rows(np.random.default_rng(n + 1), n + 50)
    sliced = pa.concat_tables([big.slice(3, 0), rows.slice(0, n // 3), rows.slice(n // 3)])
    assert build_spans(sliced).equals(want)


def test_compiled_spans_equal_numpy_on_large_arrays() -> None:
    """Differential on 600,000 rows, most of them a span of their own: the compiled pass's
    span table grows past the room it starts with (a quarter of the rows)."""
    pytest.importorskip("fayshell.store._algos", reason="the C extension is not built")
    n = 600_000
    rng = np.random.default_rng(5)
    rows = _random_rows(rng, n)
    sid = pa.array(rng.integers(0, n, n), pa.int64())
    rows = rows.set_column(rows.schema.get_field_index("span_id"), "span_id", sid)
    want = build_spans(rows, compiled=False)
    assert want.num_rows > n // 2
    assert build_spans(rows).equals(want)


def test_spans_starting_at_one_time_are_in_row_order() -> None:
    """Spans whose first rows share one timestamp (a coarse clock) come in the order of those
    rows, in the compiled pass as in the reference."""
    pytest.importorskip("fayshell.store._algos", reason="the C extension is not built")
    n = 20_000
    rows = _random_rows(np.random.default_rng(9), n)
    rng = np.random.default_rng(10)
    for name, values in (("ts", rng.integers(0, 3, n)), ("span_id", rng.permutation(n))):
        column = pa.array(values, pa.int64())
        rows = rows.set_column(rows.schema.get_field_index(name), name, column)
    got = build_spans(rows)
    assert got.equals(build_spans(rows, compiled=False))
    by_time_then_row = np.lexsort((np.arange(n), rows.column("ts").to_numpy()))
    want = rows.column("span_id").to_numpy()[by_time_then_row]  # every row a span of its own
    assert got.column("span_id").to_numpy().tolist() == want.tolist()


@pytest.mark.parametrize("n", [0, 1, 50])
@pytest.mark.parametrize("key", ["k", None])
def test_compiled_spans_equal_numpy_with_one_kind_of_row(n: int, key: str | None) -> None:
    """Differential at the edges of the compiled pass's sizes: no row at all, only key/value
    rows (no annotation list has an item), only annotations (no map has a key)."""
    pytest.importorskip("fayshell.store._algos", reason="the C extension is not built")
    rows = _random_rows(np.random.default_rng(n), n)
    rows = rows.set_column(
        rows.schema.get_field_index("key"), "key", pa.array([key] * n, pa.string())
    )
    want = build_spans(rows, compiled=False)
    ids = zip(rows["trace_id"].to_pylist(), rows["span_id"].to_pylist(), strict=True)
    assert want.num_rows == len(set(ids))
    assert build_spans(rows).equals(want)


def test_map_keeps_the_latest_value_of_each_key_in_byte_order() -> None:
    rows = _rows(
        (100, 1, 7, "cs", None),
        (120, 1, 7, "x1", "k"),
        (105, 1, 7, "v", "é"),
        (130, 1, 7, "x2", "k"),
        (130, 1, 7, "x3", "k"),  # a tie: the later row wins
        (110, 1, 7, "b", "K"),
    )
    for compiled in (True, False):
        (span,) = build_spans(rows, compiled).to_pylist()
        assert span["keyvals"] == [("K", "b"), ("k", "x3"), ("é", "v")]
        assert span["annotations"] == [{"ts": 100, "value": "cs"}]
        assert (span["client_dur_ns"], span["error"]) == (None, False)


def _rows(*rows: tuple[int, int, int, str, str | None]) -> pa.Table:
    """Zipkin rows (ts, trace_id, span_id, value, key) of service 'api' on 10.0.0.1:80."""
    cols: dict[str, list[object]] = {c: [] for c in ROW_COLUMNS}
    for ts, tid, sid, value, key in rows:
        for c, v in zip(
            ROW_COLUMNS, (ts, tid, sid, 0, "api", "10.0.0.1", 80, "GET", value, key), strict=True
        ):
            cols[c].append(v)
    types = {
        "ts": pa.int64(),
        "trace_id": pa.int64(),
        "span_id": pa.int64(),
        "parent": pa.int64(),
        "port_no": pa.int32(),
    }
    return pa.table({c: pa.array(v, types.get(c, pa.string())) for c, v in cols.items()})


@pytest.mark.parametrize("compiled", [True, False])
def test_spans_from_rows(compiled: bool) -> None:
    rows = _rows(
        (100, 1, 7, "cs", None),
        (140, 2, 9, "sr", None),
        (110, 1, 7, "sr", None),
        (150, 1, 7, "ss", None),
        (160, 1, 7, "cr", None),
        (120, 1, 7, "v1", "k"),
        (130, 1, 7, "v2", "k"),
        (145, 2, 9, "boom", "error"),
    )
    spans = build_spans(rows, compiled).to_pylist()
    assert [(s["trace_id"], s["span_id"]) for s in spans] == [(1, 7), (2, 9)]
    a, b = spans
    assert (a["ts_start"], a["ts_end"], a["dur_ns"]) == (100, 160, 60)
    assert (a["client_dur_ns"], a["server_dur_ns"]) == (60, 40)
    assert a["annotations"] == [
        {"ts": 100, "value": "cs"},
        {"ts": 110, "value": "sr"},
        {"ts": 150, "value": "ss"},
        {"ts": 160, "value": "cr"},
    ]
    assert a["keyvals"] == [("k", "v2")] and a["error"] is False
    assert (b["client_dur_ns"], b["server_dur_ns"], b["error"]) == (None, None, True)
