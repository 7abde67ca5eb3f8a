"""The soak, short: a live logs view over the whole test cluster for 3 minutes.

`bench/soak.py` runs the same for 30 minutes and reports RSS slope and refresh times; here
the promises that do not depend on the machine's speed are checked: per node, every emitted
record is stored or counted as discarded by the tracer, none is stored twice, and no pulled
chunk is left in the chunk directory once imported. Those hold on a busy machine, so the soak
starts first and runs beside the rest of the suite (tests/fixtures/workers.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.cluster import LocalCluster
from tests.fixtures.soak import run_soak

SECONDS = 180
RATE = 50.0


@pytest.mark.timeout(SECONDS + 420)
@pytest.mark.long_running
async def test_live_view_soak(real_cluster: LocalCluster, tmp_path: Path) -> None:
    result = await run_soak(
        real_cluster, tmp_path / "soak.duckdb", SECONDS, RATE, say=lambda s: print(s, flush=True)
    )
    assert len(result.emitted) == len(real_cluster.nodes)
    assert all(n >= SECONDS * RATE * 0.9 for n in result.emitted.values()), result.emitted
    assert result.problems() == []
    assert len(result.samples) >= SECONDS // 5 - 2
