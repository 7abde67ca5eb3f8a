"""Fixtures of the views' tests over the known store (tests/fixtures/store_data.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fayshell.store.database import Database
from fayshell.views.feeds import OfflineFeed


@pytest.fixture
def store_path(known_store: Path) -> Path:
    """The private copy of the known store this test uses."""
    return known_store


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
def con(db: Database) -> Iterator[Any]:
    """A cursor for calling the query functions directly."""
    cur = db.con.cursor()
    yield cur
    cur.close()
