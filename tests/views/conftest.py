"""Fixtures of the views' tests: a fresh copy of the known store per test, and a pilot helper."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fayshell.store.database import Database
from fayshell.views.feeds import OfflineFeed
from tests.fixtures.store_data import build_store


@pytest.fixture(scope="session")
def store_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The known store, built once."""
    return build_store(tmp_path_factory.mktemp("store") / "template.duckdb")


@pytest.fixture
def store_path(store_template: Path, tmp_path: Path) -> Path:
    """A private copy of the known store (tests may add rows to it)."""
    path = tmp_path / "incident.duckdb"
    shutil.copy(store_template, path)
    return path


@pytest.fixture
def db(store_path: Path) -> Iterator[Database]:
    database = Database.open(str(store_path))
    yield database
    database.close()


@pytest.fixture
def feed(db: Database) -> Iterator[OfflineFeed]:
    f = OfflineFeed(db)
    yield f
    f.close()


@pytest.fixture
def con(db: Database) -> Any:
    """A cursor for calling the query functions directly."""
    cur = db.con.cursor()
    yield cur
    cur.close()
