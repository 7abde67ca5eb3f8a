"""Fixtures of the views' tests: over the known store (tests/fixtures/store_data.py), and
the shell of the node-rollup tests on the real cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from fayshell.commands.store import set_agent_hub
from fayshell.remote.agentbundle import Bundle
from fayshell.remote.agenthub import AgentHub, HubSettings
from fayshell.store.database import Database
from fayshell.views.feeds import OfflineFeed
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import shell_on


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


@pytest.fixture
async def roll_shell(
    real_cluster: LocalCluster, tmp_path: Path, agent_bundle: Bundle
) -> AsyncIterator[Shell]:
    """A shell on the real cluster whose agents come from this tree's bundle."""
    sh = shell_on(real_cluster, tmp_path / "shell.duckdb")
    set_agent_hub(sh.state, AgentHub(sh.state.options, HubSettings(bundle_root=agent_bundle.root)))
    try:
        yield sh
    finally:
        await sh.state.aclose()
        from fayshell.commands.store import _close_hub

        _close_hub(id(sh.state))
