"""Faults with real parts.

* A node's lttng-sessiond killed while it traces: the dead node is reported per node (one line
  naming it) while the other node goes on recording and its trace is pulled; once the daemon is
  started again, a session on that node records again.
* The session database held by another process: one line naming the file and the holder.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fayshell.errors import FayError
from fayshell.tracing.records import ReceivedChunk, TraceResult
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import SYSTEM_PYTHON, chunk_dirs, decode, run_on

DEAD, ALIVE = "node05", "node06"
NODES = f"{DEAD},{ALIVE}"


async def test_sessiond_killed_while_tracing(
    cluster_shell: Shell,
    real_cluster: LocalCluster,
    tmp_path: Path,
    pylog_script: Path,
    bt2_dump: Path,
) -> None:
    sh = cluster_shell
    await sh.run("$ErrorActionPreference = 'Continue'")
    await sh.run(
        f"New-TraceSession crash -Node '{NODES}'; "
        "Enable-Tracepoint -Session crash -Domain python; Start-Trace crash"
    )
    assert not sh.host.errors, sh.host.errors
    real_cluster.kill_sessiond(DEAD)
    try:
        await _the_other_node_goes_on(sh, tmp_path, pylog_script, bt2_dump)
    finally:
        real_cluster.start_sessiond(DEAD)
    sh.host.errors.clear()
    gone = await sh.run("Remove-TraceSession crash -Force")
    assert [(r.node, r.action) for r in gone] == [(ALIVE, "destroyed")]
    assert sh.host.errors == [
        f"Remove-TraceSession: {DEAD}: lttng: lttng destroy: no such "
        "recording session on the node (LTTng: Session name crash not "
        "found; exit 23)"
    ]  # it died with the daemon
    sh.host.errors.clear()
    await _records_again_after_restart(sh, tmp_path / "again", pylog_script, bt2_dump)


async def _the_other_node_goes_on(sh: Shell, dest: Path, pylog: Path, bt2_dump: Path) -> None:
    """While DEAD has no daemon: ALIVE records, stops and is pulled; DEAD is one line each."""
    emitted = await run_on(sh, ALIVE, [SYSTEM_PYTHON, str(pylog), "--count", "2"])
    sh.host.errors.clear()
    stopped = await sh.run("Stop-Trace crash")
    assert [(r.node, r.action) for r in stopped if isinstance(r, TraceResult)] == [
        (ALIVE, "stopped")
    ]
    assert sh.host.errors == [
        f"Stop-Trace: {DEAD}: lttng: lttng stop: no lttng-sessiond is "
        "running for this user on the node (LTTng: No session daemon is "
        "available; exit 19)"
    ]

    sh.host.errors.clear()
    got = await sh.run(f"Receive-Trace crash -Destination '{dest}'")
    assert [(c.node, c.kind) for c in got if isinstance(c, ReceivedChunk)] == [(ALIVE, "trace")]
    assert sh.host.errors == [
        f"Receive-Trace: {DEAD}: lttng: lttng list: no lttng-sessiond is "
        "running for this user on the node (LTTng: No session daemon is "
        "available; exit 1)"
    ]
    events = decode(bt2_dump, *chunk_dirs(dest, "crash", ALIVE))
    assert len(events) == emitted[ALIVE]["total"]


async def _records_again_after_restart(sh: Shell, dest: Path, pylog: Path, bt2_dump: Path) -> None:
    await sh.run(
        f"New-TraceSession back -Node '{NODES}'; "
        "Enable-Tracepoint -Session back -Domain python; Start-Trace back"
    )
    emitted = await run_on(sh, NODES, [SYSTEM_PYTHON, str(pylog), "--count", "1"])
    await sh.run(f"Stop-Trace back; Receive-Trace back -Destination '{dest}'")
    assert not sh.host.errors, sh.host.errors
    for node in (DEAD, ALIVE):
        assert len(decode(bt2_dump, *chunk_dirs(dest, "back", node))) == emitted[node]["total"]
    await sh.run("Remove-TraceSession back -Force")


HOLD = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE IF NOT EXISTS held (x INTEGER)")
print("holding", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""


@contextlib.contextmanager
def locked_by_another_process(path: Path) -> Iterator[int]:
    """A real second process with ``path`` open in DuckDB (which locks the file); its pid."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
        yield proc.pid
    finally:
        proc.communicate(timeout=30)


async def test_locked_database_is_one_clear_message(
    cluster_shell: Shell, tmp_path: Path, real_cluster: LocalCluster, pylog_script: Path
) -> None:
    """Receive-Trace -Import into a database another process holds: one line naming the file
    and the holder, nothing pulled half-imported; the shell's CLI says the same, no traceback."""
    sh = cluster_shell
    db = Path(sh.state.options.database)
    await sh.run(
        f"New-TraceSession held -Node '{ALIVE}'; "
        "Enable-Tracepoint -Session held -Domain python; Start-Trace held"
    )
    emitted = await run_on(sh, ALIVE, [SYSTEM_PYTHON, str(pylog_script), "--count", "1"])
    await sh.run("Stop-Trace held")
    try:
        with locked_by_another_process(db) as holder:
            with pytest.raises(FayError) as info:
                await sh.run(f"Receive-Trace held -Destination '{tmp_path / 'd'}' -Import")
            line = info.value.one_line()
            assert f"cannot open database {db}" in line and f"PID {holder}" in line, line
            assert "\n" not in line and not (tmp_path / "d").exists()

            cli = subprocess.run(
                [sys.executable, "-m", "fayshell", "--db", str(db), "-c", "sql SELECT 1"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert cli.returncode == 1 and cli.stdout == ""
            assert cli.stderr.count("\n") == 1 and f"PID {holder}" in cli.stderr, cli.stderr
        got = await sh.run(f"Receive-Trace held -Destination '{tmp_path / 'd'}' -Import")
        assert [(c.node, c.events) for c in got] == [(ALIVE, emitted[ALIVE]["total"])]
    finally:
        await sh.run("Remove-TraceSession held -Force")
