"""Real userspace traces recorded here by LTTng (a private lttng-sessiond): the BlkKin-style C
program and the Python logging agent. Decoded events must equal babeltrace2's, and the spans and
logs tables must equal what we compute from babeltrace2's events in plain Python."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fayshell.ctf.trace import find_traces
from fayshell.lttng import AddContext, CreateSession, EnableEvent, Start, Stop
from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from tests.ctf.reference import bt2_raw, bt2_view, fay_view
from tests.ctf.test_differential import assert_same
from tests.fixtures.workloads.build import BuildError, build_blkkin, install_script
from tests.lttng.harness import SYSTEM_PYTHON, PrivateSessiond

PYLOG = Path(__file__).resolve().parents[1] / "fixtures" / "workloads" / "pylog.py"
PY_SEVERITY = {10: "Debug", 20: "Info", 30: "Warning", 40: "Error", 50: "Critical"}


@dataclass
class Recorded:
    """The trace directories of one session and the workloads' own summaries."""

    dirs: list[Path]
    py: dict[str, Any]
    blk: dict[str, Any]


@pytest.fixture(scope="module")
def recorded() -> Iterator[Recorded]:
    try:
        blkkin = build_blkkin()
    except BuildError as exc:
        pytest.fail(f"cannot build the BlkKin workload: {exc}", pytrace=False)
    pylog = install_script(PYLOG)
    d = PrivateSessiond()
    try:
        d.start()
        name = "fay-store-ust"
        out = d.output_dir(name)
        d.ok(CreateSession(name, output=str(out)).argv())
        d.ok(EnableEvent(name, "user", ("zipkin:*",)).argv())
        d.ok(EnableEvent(name, "python", None).argv())
        d.ok(AddContext(name, ("vpid", "vtid", "procname"), domain="user").argv())
        d.ok(Start(name).argv())
        py = d.workload([SYSTEM_PYTHON, str(pylog), "--count", "3"])
        blk = d.workload([str(blkkin), "--requests", "40", "--slow-every", "7", "--slow-ms", "3"])
        d.ok(Stop(name).argv())
        dirs = find_traces(out)
        assert dirs, f"no trace under {out}"
        yield Recorded(dirs, py, blk)
    finally:
        d.stop()


@pytest.fixture(scope="module")
def db(recorded: Recorded) -> Database:
    db = Database.open(":memory:")
    res = import_trace(db, recorded.dirs[0].parents[3], node="ust01", session="s")
    assert not res.errors and res.chunks_loaded == len(recorded.dirs)
    return db


def _events(recorded: Recorded) -> list[list[Any]]:
    out: list[list[Any]] = []
    for d in recorded.dirs:
        out += bt2_raw(str(d))
    return out


def test_decoder_matches_babeltrace2(recorded: Recorded, prefer_c: bool) -> None:
    for d in recorded.dirs:
        assert_same(bt2_view(str(d)), fay_view(str(d), prefer_c))


def test_spans_equal_bt2_grouping(recorded: Recorded, db: Database) -> None:
    groups: dict[tuple[int, int], dict[str, Any]] = defaultdict(
        lambda: {"ann": [], "kv": {}, "ts": []})
    for name, ts, _cpu, _ctx, f in _events(recorded):
        if not name.startswith("zipkin:") or "span_id" not in f:
            continue
        g = groups[(f["trace_id"], f["span_id"])]
        g.setdefault("first", (ts, f))
        if ts < g["first"][0]:
            g["first"] = (ts, f)
        if name == "zipkin:timestamp":
            g["ann"].append((ts, f["event"]))
        else:
            g["kv"][f["key"]] = str(f["val"])
            g["ts"].append(ts)
    want = {}
    for key, g in groups.items():
        ann = sorted(g["ann"])
        times = [t for t, _ in ann] or g["ts"]
        at = {v: t for t, v in ann}
        f = g["first"][1]
        want[key] = (f["service_name"], f["trace_name"], f["parent_span_id"], min(times),
                     max(times), at["cr"] - at["cs"] if {"cr", "cs"} <= at.keys() else None,
                     at["ss"] - at["sr"] if {"ss", "sr"} <= at.keys() else None,
                     [{"ts": t, "value": v} for t, v in ann], g["kv"], "error" in g["kv"])
    rows = db.execute("SELECT trace_id, span_id, service, name, parent_span_id, ts_start, ts_end,"
                      " client_dur_ns, server_dur_ns, annotations, keyvals, error FROM spans")
    got = {(r[0], r[1]): (*r[2:10], dict(r[10]), r[11]) for r in rows}
    assert got == want
    assert len(got) >= 40 * 3
    slow = set(recorded.blk["slow_trace_ids"])
    assert slow
    longest = dict(db.execute("SELECT trace_id, max(dur_ns) FROM spans GROUP BY trace_id"))
    assert all(longest[t] >= 3_000_000 for t in slow)
    assert sum(1 for d in longest.values() if d >= 3_000_000) == len(slow)


def test_logs_equal_bt2_python_events(recorded: Recorded, db: Database) -> None:
    want = sorted((ts, f["logger_name"], f["int_loglevel"], PY_SEVERITY[f["int_loglevel"]],
                   f["msg"], f["funcName"], f["lineno"])
                  for name, ts, _c, _x, f in _events(recorded) if name == "lttng_python:event")
    got = sorted(db.execute("SELECT ts, logger, level, severity, msg, func, line FROM logs "
                            "WHERE domain = 'python'"))
    assert got == want
    assert len(got) == recorded.py["total"]
