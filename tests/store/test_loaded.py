"""LoadedChunks against a real DuckDB ``chunks`` table: each check reads only the rows numbered
after the last one seen, and everything again when rows were removed or renumbered."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

from fayshell.store.loaded import LoadedChunks


class Chunks:
    """A ``chunks`` table and the statements LoadedChunks ran on it."""

    def __init__(self) -> None:
        self.con = duckdb.connect()
        self.con.execute("CREATE TABLE chunks (chunk_id VARCHAR, chunk_no INTEGER)")
        self.ran: list[str] = []

    def query(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        self.ran.append(sql)
        return self.con.execute(sql, params).fetchall()

    def add(self, *rows: tuple[str, int | None]) -> None:
        self.con.executemany("INSERT INTO chunks VALUES (?, ?)", list(rows))

    def check(self, known: LoadedChunks) -> list[str]:
        """Update ``known`` as StoreState.read does; the statements that took."""
        self.ran = []
        rows, last = self.con.execute(
            "SELECT count(*), coalesce(max(chunk_no), 0) FROM chunks"
        ).fetchall()[0]
        known.update(self.query, rows, last)
        return self.ran


FULL = "SELECT chunk_id FROM chunks"
SINCE = "SELECT chunk_id FROM chunks WHERE chunk_no > ?"


@pytest.fixture
def table() -> Chunks:
    return Chunks()


def test_new_chunks_are_read_by_number_only(table: Chunks) -> None:
    known = LoadedChunks()
    assert table.check(known) == [] and "a" not in known
    table.add(("a", 1), ("b", 2))
    assert table.check(known) == [SINCE]
    table.add(("c", 3))
    assert table.check(known) == [SINCE]
    assert table.check(known) == []  # nothing new: no statement
    assert {"a", "b", "c"} == known.ids and "c" in known and "d" not in known


def test_removed_rows_are_noticed_and_all_read_again(table: Chunks) -> None:
    known = LoadedChunks()
    table.add(("a", 1), ("b", 2), ("c", 3))
    table.check(known)
    table.con.execute("DELETE FROM chunks WHERE chunk_id = 'b'")
    table.add(("d", 4))  # one removed, one added: the count does not add up
    assert table.check(known) == [SINCE, FULL]
    assert known.ids == {"a", "c", "d"}


def test_removing_the_newest_chunk_is_noticed(table: Chunks) -> None:
    known = LoadedChunks()
    table.add(("a", 1), ("b", 2))
    table.check(known)
    table.con.execute("DELETE FROM chunks WHERE chunk_no = 2")
    assert table.check(known) == [FULL]
    assert known.ids == {"a"} and known.last_no == 1


def test_unnumbered_rows_of_an_old_store_count(table: Chunks) -> None:
    known = LoadedChunks()
    table.add(("old1", None), ("old2", None))
    assert table.check(known) == [SINCE, FULL]  # rows without a number: read whole once
    table.add(("new", 1))
    assert table.check(known) == [SINCE]
    assert known.ids == {"old1", "old2", "new"}
