"""-Severity through the whole chain on the real cluster: shell -> SSH -> lttng -> SFTP -> bt2.

One run of both workloads on two nodes feeds two sessions at once (Warning-and-above, and Error
exactly); the kernel request in the same session fails per node while the other domains record.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from fayshell.tracing.records import ReceivedChunk, TraceResult
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import SYSTEM_PYTHON, chunk_dirs, decode, run_on

NODES = "node[01-02]"
PY_LEVELS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}


async def test_severity_exactness_and_kernel_error(
    cluster_shell: Shell, tmp_path: Path, pylog_script: Path, blkkin_binary: Path, bt2_dump: Path
) -> None:
    sh = cluster_shell
    await sh.run("$ErrorActionPreference = 'Continue'")
    made = await sh.run(
        f"New-TraceSession sevw -Node '{NODES}'; New-TraceSession sevx -Node '{NODES}'"
    )
    assert sorted((r.node, r.session) for r in made) == [
        ("node01", "sevw"),
        ("node01", "sevx"),
        ("node02", "sevw"),
        ("node02", "sevx"),
    ]
    await sh.run(
        "Enable-Tracepoint -Session sevw -Domain python -Name 'storage.*' -Severity Warning"
    )
    await sh.run("Enable-Tracepoint -Session sevw -Domain user -Name 'zipkin:*' -Severity Warning")
    await sh.run("Enable-Tracepoint -Session sevx -Domain python -Severity Error -Exact")
    await sh.run("Add-TraceContext -Session sevw -Type vpid,procname")

    # The kernel tracer cannot load here: one clear error per node, nothing else breaks.
    sh.host.errors.clear()
    kernel = await sh.run("Enable-Tracepoint -Session sevw -Domain kernel -Name sched_switch")
    assert kernel == []
    assert len(sh.host.errors) == 2
    for node, line in zip(("node01", "node02"), sorted(sh.host.errors), strict=True):
        assert f"{node}: lttng: lttng enable-event: kernel tracing is unavailable" in line

    started = await sh.run("Start-Trace sevw; Start-Trace sevx")
    assert all(isinstance(r, TraceResult) and r.action == "started" for r in started)
    assert len(started) == 4
    py = await run_on(sh, NODES, [SYSTEM_PYTHON, str(pylog_script), "--count", "4"])
    blk = await run_on(sh, NODES, [str(blkkin_binary), "--requests", "12"])
    await sh.run("Stop-Trace sevw; Stop-Trace sevx")
    got = await sh.run(
        f"Receive-Trace sevw -Destination '{tmp_path}'; "
        f"Receive-Trace sevx -Destination '{tmp_path}'"
    )
    assert {(c.session, c.node, c.kind) for c in got if isinstance(c, ReceivedChunk)} == {
        (s, n, "trace") for s in ("sevw", "sevx") for n in ("node01", "node02")
    }

    for node in ("node01", "node02"):
        warn = decode(bt2_dump, *chunk_dirs(tmp_path, "sevw", node))
        py_events = [e for e in warn if e["name"] == "lttng_python:event"]
        got_py = Counter(
            (e["fields"]["logger_name"], e["fields"]["int_loglevel"]) for e in py_events
        )
        want_py = Counter(
            {
                (lg, PY_LEVELS[lv]): n
                for lg, per in py[node]["records"].items()
                if lg.startswith("storage.")
                for lv, n in per.items()
                if lv in ("WARNING", "ERROR", "CRITICAL")
            }
        )
        assert got_py == want_py and sum(got_py.values()) == 2 * 3 * 4, node
        assert {e["context"].get("vpid") for e in py_events} == {py[node]["pid"]}

        ust = Counter(e["name"] for e in warn if e["name"].startswith("zipkin:"))
        want_ust = {k: v for k, v in blk[node]["events"].items() if k != "zipkin:debug_note"}
        assert ust == Counter(want_ust) and ust["zipkin:timestamp"] == 12 * 3 * 4, node
        assert "zipkin:debug_note" not in ust and blk[node]["events"]["zipkin:debug_note"] == 12

        exact = decode(bt2_dump, *chunk_dirs(tmp_path, "sevx", node))
        levels = Counter(e["fields"]["int_loglevel"] for e in exact)
        assert levels == Counter({40: py[node]["per_level"]["ERROR"]}) and levels[40] == 3 * 4

    status = await sh.run("Get-TraceSession sevw")
    assert [(s.node, s.state, s.chunks, s.diverged) for s in status] == [
        ("node01", "inactive", 1, False),
        ("node02", "inactive", 1, False),
    ], status
    assert "python:storage.*<=PYTHON_WARNING" in status[0].events
    gone = await sh.run("Remove-TraceSession sevw -Force; Remove-TraceSession sevx -Force")
    assert len(gone) == 4 and {r.action for r in gone} == {"destroyed"}
