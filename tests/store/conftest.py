"""Store test fixtures: the decoder backends and the babeltrace2 prefetch of the decoder tests."""

from __future__ import annotations

from tests.ctf.conftest import _prefetch_bt2, prefer_c  # noqa: F401 - fixture re-exports
