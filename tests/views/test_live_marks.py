"""Where a live view keeps the chunks it pulls (``X.chunks/``) and how a view started again
knows which of them are imported: from the database's ``chunks`` rows, so an imported chunk's
directory goes at once and the directory does not grow over an incident."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fayshell.store.database import Database
from fayshell.store.schema import ensure_schema
from fayshell.views.live import chunk_home, imported_here, remove_chunk


def _db(tmp_path: Path, paths: list[str]) -> Database:
    db = Database.open(str(tmp_path / "x.duckdb"))
    ensure_schema(db)
    for p in paths:
        db.execute("INSERT INTO chunks (chunk_id, path) VALUES (?, ?)", [p, p])
    return db


def _chunk(node_dir: Path, name: str, files: bool) -> None:
    (node_dir / name / "kernel").mkdir(parents=True)
    if files:
        (node_dir / name / "kernel" / "metadata").write_bytes(b"/* CTF 1.8 */")


def test_imported_chunks_are_the_rows_below_the_node_directory(tmp_path: Path) -> None:
    node_dir = tmp_path / "x.chunks" / "s" / "node01"
    db = _db(
        tmp_path,
        [
            f"{node_dir}/A/ust/uid/1000/64-bit",  # one chunk, two traces
            f"{node_dir}/A/kernel",
            f"{node_dir}/B/kernel",  # its files are still here: its import failed
            f"{node_dir}0/C/kernel",  # node010's, not below node01's directory
            f"{tmp_path}/x.chunks/t/node01/D/kernel",  # another session's
        ],
    )
    _chunk(node_dir, "B", files=True)
    _chunk(node_dir, "E", files=True)  # pulled, not imported yet
    (node_dir / "A").mkdir()  # the empty mark earlier versions kept
    (node_dir / "F").mkdir()  # a mark of chunks this database lacks (a new file): pulled again
    (node_dir / ".G.part").mkdir()  # a pull's temporary directory: the pull's own to clean
    try:
        assert imported_here(db, node_dir) == {"A"}
    finally:
        db.close()
    assert sorted(os.listdir(node_dir)) == [".G.part", "B", "E"]


def test_a_store_without_chunks_has_imported_nothing(tmp_path: Path) -> None:
    node_dir = tmp_path / "x.chunks" / "s" / "node01"
    (node_dir / "A").mkdir(parents=True)
    db = Database.open(str(tmp_path / "new.duckdb"))  # no schema yet
    try:
        assert imported_here(db, node_dir) == set()
        assert imported_here(db, tmp_path / "absent") == set()
    finally:
        db.close()
    assert os.listdir(node_dir) == []


def test_remove_chunk_takes_the_whole_directory(tmp_path: Path) -> None:
    _chunk(tmp_path, "A", files=True)
    remove_chunk(tmp_path / "A")
    remove_chunk(tmp_path / "A")  # already gone: nothing to do
    assert os.listdir(tmp_path) == []


def test_chunk_home_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunks rows name a chunk by this path: it must not depend on the directory the
    shell was started in."""
    monkeypatch.chdir(tmp_path)
    assert chunk_home("x.duckdb") == tmp_path.resolve() / "x.chunks"
    assert chunk_home("sub/x.duckdb") == tmp_path.resolve() / "sub" / "x.chunks"
