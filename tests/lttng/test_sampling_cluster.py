"""1/16 request sampling through the whole chain on the real cluster: shell -> SSH -> lttng
(filter evaluated in the traced process) -> SFTP -> Import-Trace -> Get-Span -Estimate.

The BlkKin workload's ids are deterministic (xorshift64* from --seed), so the test knows every
trace id it emitted: the kept set must be exactly those whose low four bits are zero (which
also puts the count within 1/16 +- 3 sigma of the requests), and every kept trace must be
complete (its three spans, each with cs/sr/ss/cr and its key/values, parents linked).
"""

from __future__ import annotations

import math
from pathlib import Path

from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import run_on

REQUESTS = 20_000
EVERY = 16
SEED = 7
M64 = (1 << 64) - 1
NODE = "node03"


def blkkin_ids(requests: int, seed: int) -> list[tuple[int, tuple[int, int, int]]]:
    """(trace id, its three span ids) per request, as blkkin_sim.c draws them."""
    state = (seed * 0x9E3779B97F4A7C15 + 1) & M64

    def next_id() -> int:
        nonlocal state
        state ^= state >> 12
        state = (state ^ (state << 25)) & M64
        state ^= state >> 27
        return (((state * 2685821657736338717) & M64) >> 1) + 1

    out = []
    for _ in range(requests):
        trace = next_id()
        spans = (next_id(), next_id(), next_id())
        out.append((trace, spans))
    return out


async def test_one_in_sixteen_whole_traces(
    cluster_shell: Shell, tmp_path: Path, blkkin_binary: Path
) -> None:
    sh = cluster_shell
    await sh.run(f"New-TraceSession samp -Node {NODE}")
    [enabled] = await sh.run(
        f"Enable-Tracepoint -Session samp -Domain user -Name 'zipkin:*' -SampleEvery {EVERY}"
    )
    assert enabled.detail.startswith(
        f"--userspace --session=samp --channel=channel0 --filter=(trace_id & {EVERY - 1}) == 0"
    )
    await sh.run("Start-Trace samp")
    summary = (
        await run_on(
            sh,
            NODE,
            [
                str(blkkin_binary),
                "--requests",
                str(REQUESTS),
                "--slow-every",
                "0",
                "--seed",
                str(SEED),
            ],
        )
    )[NODE]
    await sh.run("Stop-Trace samp")
    await sh.run(f"Receive-Trace samp -Destination '{tmp_path}' -Import")
    await sh.run("Remove-TraceSession samp -Force")

    emitted = blkkin_ids(REQUESTS, SEED)
    assert emitted[-1][0] == summary["last_trace_id"]  # the id generator is the workload's
    want = {t: s for t, s in emitted if t & (EVERY - 1) == 0}
    sigma = math.sqrt(REQUESTS * (1 / EVERY) * (1 - 1 / EVERY))
    assert abs(len(want) - REQUESTS / EVERY) <= 3 * sigma

    [chunks] = await sh.run("sql SELECT count(*) AS n, sum(discarded) AS lost FROM chunks")
    assert chunks["n"] >= 1 and chunks["lost"] == 0
    spans = await sh.run("Get-Span -Session samp")
    kept = {r["trace_id"] for r in spans}
    assert kept == set(want)
    by_trace: dict[int, list[dict]] = {}
    for r in spans:
        by_trace.setdefault(r["trace_id"], []).append(r)
    for trace, rows in by_trace.items():
        rows.sort(key=lambda r: r["ts_start"])
        assert [r["span_id"] for r in rows] == list(want[trace])
        assert [r["parent_span_id"] for r in rows] == [0, *want[trace][:2]]
        for r in rows:
            assert sorted(a["value"] for a in r["annotations"]) == ["cr", "cs", "sr", "ss"]
        assert rows[0]["keyvals"] == {"http.method": "GET"}
        assert rows[2]["keyvals"] == {"device": "vda", "bytes": "4096"}
    notes = await sh.run("sql SELECT count(*) AS n FROM events WHERE name = 'zipkin:debug_note'")
    assert notes == [{"n": len(want)}]

    est = await sh.run("Get-Span -Session samp -Estimate")
    assert len(est) == 3  # one row per (service, span name) of the chain
    for row in est:
        assert row["kept_traces"] == len(want) and row["sample_every"] == EVERY
        assert row["est_traces"] == EVERY * len(want)
        assert abs(row["est_traces"] - REQUESTS) <= 3 * row["est_traces_stddev"]
    [rate] = await sh.run("sql SELECT node, session, sample_every FROM span_sampling")
    assert rate == {"node": NODE, "session": "samp", "sample_every": EVERY}
