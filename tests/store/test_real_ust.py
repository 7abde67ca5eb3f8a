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
from fayshell.lttng import AddContext, CreateSession, EnableChannel, EnableEvent, Start, Stop
from fayshell.store.database import Database
from fayshell.store.loader import import_trace
from fayshell.store.settings import LoadSettings
from tests.ctf.reference import bt2_raw, bt2_view, fay_view
from tests.ctf.test_differential import assert_same
from tests.fixtures.workloads.build import BuildError, build_blkkin, install_script
from tests.lttng.harness import SYSTEM_PYTHON, PrivateSessiond

PYLOG = Path(__file__).resolve().parents[1] / "fixtures" / "workloads" / "pylog.py"
SLOW_MS = 40  # far above a normal request's duration, even on a loaded machine
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
        # small sub-buffers: many packets, so the trace can be cut into chunks between them
        d.ok(EnableChannel(name, "small", "user", subbuf_size=16384, num_subbuf=32).argv())
        d.ok(EnableEvent(name, "user", ("zipkin:*",), channel="small").argv())
        d.ok(EnableEvent(name, "python", None).argv())
        d.ok(AddContext(name, ("vpid", "vtid", "procname"), domain="user", channel="small").argv())
        d.ok(Start(name).argv())
        py = d.workload([SYSTEM_PYTHON, str(pylog), "--count", "3"])
        blk = d.workload(
            [str(blkkin), "--requests", "40", "--slow-every", "7", "--slow-ms", str(SLOW_MS)]
        )
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
        lambda: {"ann": [], "kv": {}, "ts": []}
    )
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
        want[key] = (
            f["service_name"],
            f["trace_name"],
            f["parent_span_id"],
            min(times),
            max(times),
            at["cr"] - at["cs"] if {"cr", "cs"} <= at.keys() else None,
            at["ss"] - at["sr"] if {"ss", "sr"} <= at.keys() else None,
            [{"ts": t, "value": v} for t, v in ann],
            g["kv"],
            "error" in g["kv"],
        )
    rows = db.execute(
        "SELECT trace_id, span_id, service, name, parent_span_id, ts_start, ts_end,"
        " client_dur_ns, server_dur_ns, annotations, keyvals, error FROM spans"
    )
    got = {(r[0], r[1]): (*r[2:10], dict(r[10]), r[11]) for r in rows}
    assert got == want
    assert len(got) >= 40 * 3
    slow = set(recorded.blk["slow_trace_ids"])
    assert slow
    longest = dict(db.execute("SELECT trace_id, max(dur_ns) FROM spans GROUP BY trace_id"))
    assert all(longest[t] >= SLOW_MS * 1_000_000 for t in slow)
    # the slow requests are exactly the longest ones (a loaded machine slows every request,
    # but not a normal one past a deliberately slow one)
    top = sorted(longest, key=lambda t: longest[t], reverse=True)[: len(slow)]
    assert set(top) == slow


def test_logs_equal_bt2_python_events(recorded: Recorded, db: Database) -> None:
    want = sorted(
        (
            ts,
            f["logger_name"],
            f["int_loglevel"],
            PY_SEVERITY[f["int_loglevel"]],
            f["msg"],
            f["funcName"],
            f["lineno"],
        )
        for name, ts, _c, _x, f in _events(recorded)
        if name == "lttng_python:event"
    )
    got = sorted(
        db.execute(
            "SELECT ts, logger, level, severity, msg, func, line FROM logs WHERE domain = 'python'"
        )
    )
    assert got == want
    assert len(got) == recorded.py["total"]


def split_by_packets(trace: Path, out: Path, shift: int = 0) -> tuple[Path, Path]:
    """Two chunk directories holding the first and second half of each stream's packets
    (the cut ``shift`` packets away from the middle), as an LTTng rotation would cut them."""
    from fayshell.ctf.backend import read_struct
    from fayshell.ctf.trace import open_trace

    tr = open_trace(trace)
    a, b = out / "a", out / "b"
    for d in (a, b):
        d.mkdir(parents=True)
        (d / "metadata").write_bytes((trace / "metadata").read_bytes())
    for f in tr.files:
        data = f.read_bytes()
        offsets, off = [], 0
        while off < len(data):
            _, pos = read_struct(tr.packet_header, data, off * 8, len(data) * 8)
            ctx, _ = read_struct(tr.streams[0].packet_context, data, pos, len(data) * 8)
            offsets.append(off)
            off += ctx["packet_size"] // 8
        mid = min(max(len(offsets) // 2 + shift, 1), len(offsets) - 1)
        cut = offsets[mid] if len(offsets) > 1 else len(data)
        (a / f.name).write_bytes(data[:cut])
        (b / f.name).write_bytes(data[cut:])
    return a, b


#: Spans with rows on both sides of the cut: begun before the second chunk's first event.
#: Spans with rows in both chunks: the last chunk's (it rebuilt them) starting before its first
#: event. A span that only crosses the cut's time can lie wholly in the first chunk: another
#: CPU's stream can end later than the second chunk begins (a cut chosen on that weaker test
#: once left tests/store/test_pending.py with no span to rebuild).
STRADDLING = (
    "SELECT count(*) FROM spans WHERE chunk_no = (SELECT max(chunk_no) FROM chunks) AND "
    "ts_start < (SELECT first_ts FROM chunks WHERE chunk_no = (SELECT max(chunk_no) FROM chunks))"
)


def split_within_a_span(trace: Path, out: Path) -> tuple[Path, Path]:
    """Two chunks as :func:`split_by_packets` cuts them, with a span on both sides of the cut.

    A packet boundary may fall between two requests (the switch timer closes packets while
    the program sleeps), so cuts around the middle are tried until one splits a span.
    """
    for shift in (0, -1, 1, -2, 2, -3, 3):
        a, b = split_by_packets(trace, out / f"cut{shift}", shift)
        probe = Database.open(":memory:")
        try:
            for d in (a, b):
                import_trace(probe, d, node="probe", session="s")
            if probe.execute(STRADDLING)[0][0]:
                return a, b
        finally:
            probe.close()
    raise AssertionError(f"{trace}: no cut within 3 packets of the middle splits a span")


def test_spans_completed_across_chunks(recorded: Recorded, db: Database, tmp_path: Path) -> None:
    a, b = split_within_a_span(recorded.dirs[0], tmp_path)
    split = Database.open(":memory:")
    first = import_trace(split, a, node="ust01", session="s")
    partial = split.execute("SELECT count(*) FROM spans")[0][0]
    second = import_trace(split, b, node="ust01", session="s")
    assert first.chunks_loaded == second.chunks_loaded == 1
    assert first.events > 0 and second.events > 0
    assert split.execute(STRADDLING)[0][0] > 0
    cols = (
        "trace_id, span_id, service, name, parent_span_id, ts_start, ts_end, dur_ns, "
        "client_dur_ns, server_dur_ns, annotations, keyvals, error"
    )
    whole = sorted(map(str, db.execute(f"SELECT {cols} FROM spans")))
    assert partial > 0
    assert sorted(map(str, split.execute(f"SELECT {cols} FROM spans"))) == whole


def test_spans_split_between_flushes(recorded: Recorded, db: Database) -> None:
    """Spans are built per flush from the decoded rows; with tiny flushes most spans fall
    into several of them and must come out exactly as from one pass (tiny row groups too:
    rows held back between flushes)."""
    tiny = LoadSettings(flush_rows=50, row_group=64)
    small = Database.open(":memory:")
    for d in recorded.dirs:
        import_trace(small, d, node="ust01", session="s", settings=tiny)
    cols = (
        "trace_id, span_id, service, name, parent_span_id, ts_start, ts_end, dur_ns, "
        "client_dur_ns, server_dur_ns, annotations, keyvals, error"
    )
    got = sorted(map(str, small.execute(f"SELECT {cols} FROM spans")))
    assert got == sorted(map(str, db.execute(f"SELECT {cols} FROM spans")))
    assert len(got) >= 40 * 3
    events = sorted(small.execute("SELECT ts, name FROM events"))
    assert events == sorted(db.execute("SELECT ts, name FROM events"))


def test_stream_files_cut_into_parts(recorded: Recorded, db: Database) -> None:
    """Every stream file cut into parts decoded by different threads (LoadSettings.part_bytes):
    the same spans, events and logs as whole files, and the same totals per chunk."""
    from fayshell.ctf.decode import stream_readers
    from fayshell.ctf.trace import open_trace

    cut = LoadSettings(part_bytes=1, decode_workers=8)
    trace = open_trace(recorded.dirs[0])
    assert len(stream_readers(trace, part_bytes=1, workers=8)) > len(trace.files)
    parts = Database.open(":memory:")
    res = import_trace(parts, recorded.dirs[0].parents[3], node="ust01", session="s", settings=cut)
    assert not res.errors and res.chunks_loaded == len(recorded.dirs)
    for sql in (
        "SELECT trace_id, span_id, service, name, parent_span_id, ts_start, ts_end, dur_ns, "
        "client_dur_ns, server_dur_ns, annotations, keyvals, error FROM spans",
        "SELECT ts, name, cpu FROM events",
        "SELECT * FROM logs",
        "SELECT events, discarded, lost_packets, first_ts, last_ts, errors FROM chunks",
    ):
        got = sorted(map(str, parts.execute(sql)))
        assert got and got == sorted(map(str, db.execute(sql))), sql
