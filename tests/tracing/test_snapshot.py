"""Snapshot (flight-recorder) sessions: Save-TraceSnapshot writes a readable chunk holding the
most recent events, and Receive-Trace pulls each snapshot as its own chunk."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from fayshell.tracing.records import ReceivedChunk
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import chunk_dirs, decode, run_on


async def test_snapshot_holds_the_most_recent_events(
    cluster_shell: Shell, tmp_path: Path, blkkin_binary: Path, bt2_dump: Path
) -> None:
    sh = cluster_shell
    await sh.run("New-TraceSession flight -Node node05 -Snapshot")
    await sh.run("Enable-Tracepoint -Session flight -Domain user -Name 'zipkin:*'")
    await sh.run("Add-TraceContext -Session flight -Type vpid")
    await sh.run("Start-Trace flight")
    first = (await run_on(sh, "node05", [str(blkkin_binary), "--requests", "5"]))["node05"]
    snap1 = await sh.run("Save-TraceSnapshot flight")
    assert [(r.node, r.action) for r in snap1] == [("node05", "snapshot recorded")]
    second = (await run_on(sh, "node05", [str(blkkin_binary), "--requests", "7", "--seed", "7"]))[
        "node05"
    ]
    await sh.run("Save-TraceSnapshot flight")

    got = await sh.run(f"Receive-Trace flight -Destination '{tmp_path}'")
    assert [(c.node, c.kind) for c in got if isinstance(c, ReceivedChunk)] == [
        ("node05", "snapshot"),
        ("node05", "snapshot"),
    ]
    older, newer = chunk_dirs(tmp_path, "flight", "node05")
    assert older.name.startswith("snapshot-1-") and newer.name.startswith("snapshot-1-")
    new_events = decode(bt2_dump, newer)
    by_pid = Counter(e["context"]["vpid"] for e in new_events)
    assert by_pid[second["pid"]] == sum(second["events"].values())  # the latest run, whole
    assert by_pid[first["pid"]] == sum(first["events"].values())  # still in the ring buffer
    old_pids = Counter(e["context"]["vpid"] for e in decode(bt2_dump, older))
    assert old_pids == Counter({first["pid"]: sum(first["events"].values())})
    assert max(e["ts"] for e in new_events) > max(e["ts"] for e in decode(bt2_dump, older))
    await sh.run("Remove-TraceSession flight -Force")
    # Destroyed, the session's snapshots are still found where the shell remembers them.
    again = tmp_path / "again"
    late = await sh.run(f"Receive-Trace flight -Destination '{again}'")
    assert sorted(c.chunk_id for c in late) == [older.name, newer.name]
