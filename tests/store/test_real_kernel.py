"""The real lttng-modules traces in the store: event counts as babeltrace2 sees them, and the
syscalls table against a plain-Python pairing of babeltrace2's own event stream."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.settings import LoadSettings
from tests.ctf.conftest import shared_trace
from tests.ctf.reference import bt2_raw


def reference_syscalls(events: list[list[Any]]) -> Counter[tuple[Any, ...]]:
    """Pair entry/exit per thread; a CPU's thread is the last sched_switch's next_tid."""
    pids: dict[int, tuple[int, int, str]] = {}
    for name, ts, _cpu, _ctx, f in events:
        if name == "lttng_statedump_process_state":
            pids[f["tid"]] = max(pids.get(f["tid"], (ts, 0, "")), (ts, f["pid"], f["name"]))
        elif name == "sched_process_fork":
            pids[f["child_tid"]] = max(
                pids.get(f["child_tid"], (ts, 0, "")), (ts, f["child_pid"], f["child_comm"])
            )
    running: dict[int, tuple[int, str]] = {}
    pending: dict[Any, tuple[int, str, int, Any]] = {}
    out: Counter[tuple[Any, ...]] = Counter()
    for name, ts, cpu, _ctx, f in events:
        if name == "sched_switch":
            running[cpu] = (f["next_tid"], f["next_comm"])
            continue
        tid, comm = running.get(cpu, (None, None))
        key = tid if tid is not None else ("cpu", cpu)
        if name.startswith("syscall_entry_"):
            pending[key] = (ts, name[len("syscall_entry_") :], cpu, comm)
        elif name.startswith("syscall_exit_") and key in pending:
            ts0, sysname, cpu0, comm0 = pending.pop(key)
            pid = pids.get(tid, (0, None, None))[1] if tid is not None else None
            if comm0 is None and tid is not None and tid in pids:
                comm0 = pids[tid][2]
            out[(cpu0, tid, pid, comm0, sysname, ts0, ts, f["ret"])] += 1
        elif name.startswith("syscall_"):
            pending.pop(key, None)
    return out


@pytest.mark.parametrize("name", ["kernel-many-threads", "kernel-be-flipping-endianness"])
def test_real_kernel_trace(name: str, prefer_c: bool) -> None:
    path = shared_trace(name)
    events = bt2_raw(str(path))
    db = Database.open(":memory:")
    res = import_trace(db, path, node="k", session="s", settings=LoadSettings(prefer_c=prefer_c))
    assert res.events == len(events) and not res.errors
    got_names = dict(db.execute("SELECT name, count(*) FROM events GROUP BY name"))
    assert got_names == dict(Counter(e[0] for e in events))
    got = Counter(
        db.execute("SELECT cpu, tid, pid, procname, name, ts_entry, ts_exit, ret FROM syscalls")
    )
    want = reference_syscalls(events)
    assert got == want
    if name == "kernel-many-threads":
        assert sum(want.values()) > 60_000
        assert (
            db.execute("SELECT count(*) FROM syscalls WHERE dur_ns < 0 OR pid IS NULL")[0][0] == 0
        )
