"""RowGroupHold: appends leave in whole DuckDB row groups, the rest waits (bounded)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from fayshell.store import writer
from fayshell.store.writer import Insert, RowGroupHold


def _rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"eid": pa.array(range(start, start + n), pa.int64())})


def test_whole_row_groups_leave_and_the_rest_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "ROW_GROUP", 10)
    hold = RowGroupHold()
    hold.add(Insert("a", _rows(25), "? AS x, *", [1]))
    hold.add(Insert("b", _rows(7)))
    out = hold.take()
    assert [(i.table, i.data.num_rows, i.select, i.params) for i in out] == [
        ("a", 20, "? AS x, *", [1])]
    hold.add(Insert("a", _rows(6, 25), "? AS x, *", [1]))
    out = hold.take()
    assert [(i.table, i.data.column("eid").to_pylist()) for i in out] == [
        ("a", list(range(20, 30)))]
    final = hold.take(final=True)
    assert sorted((i.table, i.data.column("eid").to_pylist()) for i in final) == [
        ("a", [30]), ("b", list(range(7)))]
    assert hold.take(final=True) == []


def test_too_much_held_is_written_anyway(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "ROW_GROUP", 1000)
    monkeypatch.setattr(writer, "HOLD_BYTES", 8 * 100)
    hold = RowGroupHold()
    hold.add(Insert("a", _rows(99)))
    assert hold.take() == []
    hold.add(Insert("b", _rows(99)))       # 2 x 99 rows x 8 bytes: over the cap
    assert sorted(i.data.num_rows for i in hold.take()) == [99, 99]


def test_held_rows_do_not_pin_their_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "ROW_GROUP", 1000)
    hold = RowGroupHold()
    hold.add(Insert("a", pa.table({"s": pa.array(["x" * 100] * 1005)})))
    out = hold.take()
    assert [i.data.num_rows for i in out] == [1000]
    (rest,) = hold.held[("a", "*", ())]
    held_bytes = sum(b.size for c in rest.columns for ch in c.chunks for b in ch.buffers() if b)
    assert rest.column("s").to_pylist() == ["x" * 100] * 5
    assert held_bytes < 1000        # five rows of 100 bytes, not the batch's 100 kB
