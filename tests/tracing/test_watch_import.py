"""Receive-Trace -Watch: rotate and pull every interval while a program runs, loading each chunk
into the DuckDB store as it lands (-Import); Ctrl-C ends the loop and nothing is half-received."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from pathlib import Path

from fayshell.tracing.records import ReceivedChunk
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import chunk_dirs, decode, run_on


async def test_watch_rotates_pulls_and_imports(
    cluster_shell: Shell, tmp_path: Path, blkkin_binary: Path, bt2_dump: Path
) -> None:
    sh = cluster_shell
    await sh.run("New-TraceSession watched -Node node06")  # no timer: -Watch does the rotating
    await sh.run("Enable-Tracepoint -Session watched -Domain user -Name 'zipkin:*'")
    await sh.run("Start-Trace watched")
    work = asyncio.ensure_future(
        run_on(sh, "node06", [str(blkkin_binary), "--requests", "60", "--interval-ms", "60"])
    )
    watch = asyncio.ensure_future(
        sh.run(
            f"Receive-Trace watched -Destination '{tmp_path}' -Watch -Interval 500ms -Import -Verbose"
        )
    )
    summary = (await work)["node06"]
    during = chunk_dirs(tmp_path, "watched", "node06")
    await asyncio.sleep(1.2)  # at least one more rotate + pull after the program ended
    watch.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watch
    assert watch.cancelled()
    assert list(tmp_path.rglob(".*.part")) == []
    assert len(during) >= 2, (
        "-Watch should have pulled chunks during the run",
        sh.host.verbose_lines,
        sh.host.errors,
    )

    await sh.run("Stop-Trace watched")
    rest = await sh.run(f"Receive-Trace watched -Destination '{tmp_path}' -Import")
    assert all(isinstance(c, ReceivedChunk) and c.events is not None for c in rest)
    events = decode(bt2_dump, *chunk_dirs(tmp_path, "watched", "node06"))
    assert Counter(e["name"] for e in events) == Counter(summary["events"])
    [row] = await sh.run(
        "sql SELECT count(*) AS n FROM events WHERE session = 'watched' AND node = 'node06'"
    )
    [chunks] = await sh.run("sql SELECT count(*) AS n FROM chunks WHERE session = 'watched'")
    assert chunks["n"] == len(chunk_dirs(tmp_path, "watched", "node06"))
    loaded = row["n"]
    assert loaded == len(events) == sum(summary["events"].values())
    await sh.run("Remove-TraceSession watched -Force")
