"""Span grouping (store/spans.py): the C pass equals the numpy one; spans from zipkin rows."""

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
def test_c_grouping_equals_numpy(n: int) -> None:
    pytest.importorskip("fayshell.store._algos", reason="the C extension is not built")
    tid, sid, ts = _ids(np.random.default_rng(n), n)
    c = _span_order(tid, sid, ts)
    py = _span_order(tid, sid, ts, use_c=False)
    assert np.array_equal(c, py)
    assert sorted(c.tolist()) == list(range(n))
    keys = list(zip(tid[c].tolist(), sid[c].tolist(), strict=True))
    runs = [k for i, k in enumerate(keys) if i == 0 or keys[i - 1] != k]
    assert len(runs) == len(set(keys))  # each span's rows are contiguous
    assert all(ts[c][i] <= ts[c][i + 1] for i in range(n - 1) if keys[i] == keys[i + 1])


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


def test_spans_from_rows() -> None:
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
    spans = build_spans(rows).to_pylist()
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
