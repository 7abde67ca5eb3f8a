"""Compare-Node on 8 nodes of real data: each node's BlkKin workload and Python logging agent
traced by a private lttng-sessiond (one session per node, run one after the other), and a
kernel-layout CTF trace per node (tests/fixtures/ctfgen.py, its own seed), all loaded with
Import-Trace. node05 runs the same requests with slow I/O at the bottom of every request
(blkkin_sim --slow-every 1: blockerd sleeps 50 ms instead of 50 us); the others differ only by
their random seeds. node05 must come first, for the reason it was made different.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path

import pytest

from fayshell.errors import FayError
from fayshell.lttng import CreateSession, EnableEvent, Start, Stop
from tests.fixtures.ctfgen import GenSpec, write_trace
from tests.fixtures.shell import new_shell
from tests.lttng.harness import SYSTEM_PYTHON, PrivateSessiond

NODES = [f"node{i:02d}" for i in range(1, 9)]
ODD = "node05"


@pytest.fixture(scope="module")
def store(
    tmp_path_factory: pytest.TempPathFactory, blkkin_binary: Path, pylog_script: Path
) -> Path:
    tmp = tmp_path_factory.mktemp("compare")
    d = PrivateSessiond()
    traces: dict[str, list[Path]] = {}
    try:
        d.start()
        for i, node in enumerate(NODES, 1):
            out = d.output_dir(f"cmp{i}")
            d.ok(CreateSession(f"cmp{i}", output=str(out)).argv())
            d.ok(EnableEvent(f"cmp{i}", "user", ("zipkin:*",)).argv())
            d.ok(EnableEvent(f"cmp{i}", "python", None).argv())
            d.ok(Start(f"cmp{i}").argv())
            slow = (
                ["--slow-every", "1", "--slow-ms", "50"] if node == ODD else ["--slow-every", "0"]
            )
            d.workload([str(blkkin_binary), "--requests", "120", "--seed", str(i), *slow])
            d.workload([SYSTEM_PYTHON, str(pylog_script), "--count", "3"])
            d.ok(Stop(f"cmp{i}").argv())
            kernel = write_trace(
                tmp / f"k{i}",
                GenSpec(events=30000, cpus=2, seed=100 + i, clock_offset=time.time_ns() - 10**9),
            )
            traces[node] = [out, kernel.dirs[0]]
        db = tmp / "compare.duckdb"

        async def load() -> None:
            sh = new_shell(db)
            for node, paths in traces.items():
                for p in paths:
                    await sh.run(f"Import-Trace '{p}' -Node {node} -Session cmp")
            await sh.state.aclose()

        asyncio.run(load())
        return db
    finally:
        d.stop()


@pytest.fixture
async def sh(store: Path):
    shell = new_shell(store)
    yield shell
    await shell.state.aclose()


async def test_the_slow_io_node_comes_first_for_its_spans(sh) -> None:
    ranked = await sh.run("Compare-Node")
    assert [r["node"] for r in ranked][0] == ODD and len(ranked) == len(NODES)
    first = ranked[0]
    # far above the typical node (a median: one node slowed by a loaded machine cannot move it)
    assert first["score"] > 3 * statistics.median(r["score"] for r in ranked[1:])
    assert len(first["features"]) == 3
    assert all(f.startswith("span ") for f in first["features"])  # slower spans, nothing else
    assert all(" p50 " in f or " p90 " in f for f in first["features"])  # latency
    scores = [r["score"] for r in ranked]
    assert scores == sorted(scores, reverse=True)
    # the syscall mix, syscall latencies and log severities were compared too
    [kinds] = await sh.run("sql SELECT count(DISTINCT name) AS n FROM syscalls")
    assert first["compared"] > 2 * kinds["n"] + 5


async def test_without_the_odd_node_nobody_stands_out(sh) -> None:
    with_odd = await sh.run("Compare-Node")
    odd_score = with_odd[0]["score"]
    others = await sh.run("Compare-Node -Node " + ",".join(n for n in NODES if n != ODD))
    assert ODD not in {r["node"] for r in others} and len(others) == len(NODES) - 1
    assert max(r["score"] for r in others) < odd_score
    assert statistics.median(r["score"] for r in others) * 3 < odd_score


async def test_time_range_parameters(sh) -> None:
    everything = await sh.run("Compare-Node")
    assert await sh.run("Compare-Node -Last 1h") == everything
    [newest] = await sh.run(
        "sql SELECT greatest((SELECT max(ts_exit) FROM syscalls), "
        "(SELECT max(ts_end) FROM spans), (SELECT max(ts) FROM logs)) AS t"
    )
    assert await sh.run(f"Compare-Node -Since 0 -Until {newest['t'] + 1}") == everything
    with pytest.raises(FayError, match="needs data of at least two nodes"):
        await sh.run(f"Compare-Node -Since {newest['t'] + 10**10}")
    with pytest.raises(FayError) as info:
        await sh.run("Compare-Node -Since 'yesterday'")
    assert "Compare-Node: -Since 'yesterday': not a time" in info.value.one_line()
    with pytest.raises(FayError, match="either -Last or -Since"):
        await sh.run("Compare-Node -Last 5m -Since 0")


async def test_show_top_nodes_view_shows_the_same_ranking(sh, store: Path) -> None:
    """The nodes view of Show-Top over the whole session: Compare-Node's ranking, odd node
    first and highlighted."""
    from fayshell.store.database import Database
    from fayshell.views.feeds import OfflineFeed
    from tests.views.helpers import make_app, rows, settle

    ranked = await sh.run("Compare-Node")
    db = Database.open(str(store))
    feed = OfflineFeed(db)
    try:
        app = make_app(feed, "nodes", window="session")
        async with app.run_test(size=(160, 30)) as pilot:
            await settle(pilot)
            shown = rows(app)
            table = app.screen.query_one("#table")
            first_style = str(table.get_row_at(0)[0].spans[0].style)
    finally:
        feed.close()
        db.close()
    assert [r[0] for r in shown] == [r["node"] for r in ranked]
    assert [float(r[1]) for r in shown] == [round(r["score"], 1) for r in ranked]
    assert shown[0][0] == ODD and shown[0][3].startswith(ranked[0]["features"][0])
    assert first_style == "bold red"
