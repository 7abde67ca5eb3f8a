"""The pull destination fills up: one clear error, nothing half-imported, resumed once freed.

A real session on one node holds a finished chunk larger than the small tmpfs it is pulled
into. Receive-Trace -Import says which node, chunk and path ran out of space, leaves no
temporary directory and no row in the store; after the tmpfs is grown the same command
receives and imports the chunk completely.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from fayshell.tracing.records import ReceivedChunk
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.shell import Shell
from tests.views.live_helpers import place_archive
from tests.views.test_live_syscalls import generate

SESSION = "fulldisk"
NODE = "node07"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs (root is needed, as for the cluster)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


async def test_full_destination_then_resumed(
    cluster_shell: Shell, real_cluster: LocalCluster, small_disk: Path, tmp_path: Path
) -> None:
    sh = cluster_shell
    await sh.run(f"New-TraceSession {SESSION} -Node {NODE}")
    await sh.run(f"Enable-Tracepoint -Session {SESSION} -Domain user -Name 'fay_none:*'")
    await sh.run(f"Start-Trace {SESSION}")
    chunk = generate(tmp_path / "gen", seed=31, events=60_000)
    place_archive(
        real_cluster.node(NODE), sh.state.trace_sessions[SESSION].outputs[NODE], chunk.dirs[0], 3001
    )

    got = await sh.run(
        f"Receive-Trace {SESSION} -Destination '{small_disk}' -Import -ErrorAction Continue"
    )
    assert not [r for r in got if isinstance(r, ReceivedChunk)]
    assert len(sh.host.errors) == 1, sh.host.errors
    [err] = sh.host.errors
    assert NODE in err and "no space left" in err.lower() and str(small_disk) in err, err
    assert "\n" not in err.strip() and "Traceback" not in err
    leftovers = [p for p in small_disk.rglob("*") if p.name.endswith(".part")]
    assert leftovers == []
    db = sh.state.database
    assert (
        not db.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = 'chunks'")
        or db.execute("SELECT count(*) FROM chunks")[0][0] == 0
    ), "nothing may be half-imported"

    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    sh.host.errors.clear()
    again = await sh.run(f"Receive-Trace {SESSION} -Destination '{small_disk}' -Import")
    assert not sh.host.errors, sh.host.errors
    [rec] = [r for r in again if isinstance(r, ReceivedChunk)]
    assert rec.events == chunk.events
    stored = sh.state.database.execute(
        "SELECT count(*), sum(events) FROM chunks WHERE session = ?", [SESSION]
    )[0]
    assert stored == (1, chunk.events)
    await sh.run(f"Remove-TraceSession {SESSION} -Force")
