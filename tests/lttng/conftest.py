"""Fixtures for tests of fayshell.lttng against a real, private lttng-sessiond."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest

from tests.lttng.harness import PrivateSessiond

_counter = itertools.count()


@pytest.fixture(scope="session")
def sessiond() -> Iterator[PrivateSessiond]:
    """One private sessiond for the whole run (sessions are per test), killed at the end."""
    d = PrivateSessiond()
    try:
        d.start()
        yield d
    finally:
        d.stop()


@pytest.fixture
def session_name(request: pytest.FixtureRequest) -> str:
    """A unique, valid session name for the current test."""
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", request.node.name.removeprefix("test_"))[:40].strip("-")
    return f"{base}-{next(_counter)}"
