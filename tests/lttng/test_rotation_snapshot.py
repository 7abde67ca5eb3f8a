"""Rotation and snapshot chunks on real sessions, found by fayshell.lttng.chunks, read by bt2."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from fayshell.lttng import (
    CreateSession,
    EnableChannel,
    EnableEvent,
    EnableRotation,
    ListSessions,
    Rotate,
    SnapshotRecord,
    Start,
    Stop,
    find_chunks,
    list_local,
    parse_rotation,
    parse_session,
)
from tests.lttng.harness import SYSTEM_PYTHON, PrivateSessiond, bt2_events


def _py_key(e: dict) -> str:
    return e["fields"]["msg"]  # "pylog seq=N …": unique per record of one run


def _zipkin_key(e: dict) -> tuple:
    f = e["fields"]
    return (
        e["name"],
        f["trace_id"],
        f.get("span_id"),
        f.get("service_name"),
        f.get("event"),
        f.get("key"),
    )


def test_rotation_chunks_hold_every_event_exactly_once(
    sessiond: PrivateSessiond,
    session_name: str,
    pylog_script: Path,
    blkkin_binary: Path,
    bt2_dump: Path,
) -> None:
    out = sessiond.output_dir(session_name)
    sessiond.ok(CreateSession(session_name, output=str(out)).argv())
    sessiond.ok(EnableEvent(session_name, "python").argv())
    sessiond.ok(EnableEvent(session_name, "user", ("zipkin:*",)).argv())
    sessiond.ok(EnableRotation.parse(session_name, "1s").argv())
    info = parse_session(sessiond.ok(ListSessions(session_name).argv()).stdout, session_name)
    assert info.rotation_timer_us == 1_000_000 and info.mode == "normal"
    sessiond.ok(Start(session_name).argv())

    py = sessiond.spawn_workload(
        [SYSTEM_PYTHON, str(pylog_script), "--count", "2", "--rounds", "8", "--interval", "0.4"]
    )
    blk = sessiond.spawn_workload([str(blkkin_binary), "--requests", "32", "--interval-ms", "100"])

    # While the programs run (~3.2 s): archives appear, are readable, the current chunk is not
    # complete. Polled rather than slept, so a loaded machine only makes it slower.
    deadline = time.monotonic() + 3.0
    while True:
        during = find_chunks(list_local(str(out)))
        readable = [c for c in during.complete if not c.empty]
        if (readable and during.in_progress) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert readable, "no non-empty archive while the programs ran, with a 1 s rotation timer"
    assert py.poll() is None or blk.poll() is None, "the workloads ended before an archive appeared"
    assert all(c.kind == "archive" for c in during.complete)
    assert during.in_progress, "the chunk being written must not count as complete"
    assert bt2_events(bt2_dump, *(out / c.path for c in readable))

    py_sum = PrivateSessiond.summary(py)
    blk_sum = PrivateSessiond.summary(blk)
    sessiond.ok(Stop(session_name).argv())
    rot = parse_rotation(sessiond.ok(Rotate(session_name).argv()).stdout)  # archive the last chunk
    assert rot.state == "COMPLETED" and rot.path is not None

    after = find_chunks(list_local(str(out)), stopped=True)
    ids = [c.chunk_id for c in after.complete]
    assert len(ids) == len(set(ids)) >= 3
    assert Path(rot.path).name in ids
    assert [c.index for c in after.complete] == sorted(c.index for c in after.complete)
    # What was complete during the run is unchanged: same ids, same files, same sizes.
    final = after.by_id()
    for c in during.complete:
        assert final[c.chunk_id].files == c.files

    events = []
    for c in after.complete:
        if not c.empty:
            chunk_events = bt2_events(
                bt2_dump, out / c.path
            )  # each chunk is a complete trace alone
            assert chunk_events
            events += chunk_events
    py_events = [e for e in events if e["name"] == "lttng_python:event"]
    zk_events = [e for e in events if e["name"].startswith("zipkin:")]
    assert len(py_events) == py_sum["total"] == 3 * 5 * 2 * 8
    assert Counter(map(_py_key, py_events)).most_common(1)[0][1] == 1
    assert Counter(e["name"] for e in zk_events) == Counter(blk_sum["events"])
    assert Counter(map(_zipkin_key, zk_events)).most_common(1)[0][1] == 1
    assert sum(1 for c in after.complete if not c.empty) >= 2, "events should spread over chunks"


def test_snapshot_record_gives_readable_recent_chunk(
    sessiond: PrivateSessiond, session_name: str, blkkin_binary: Path, bt2_dump: Path
) -> None:
    out = sessiond.output_dir(session_name)
    sessiond.ok(CreateSession(session_name, output=str(out), mode="snapshot").argv())
    sessiond.ok(
        EnableChannel(
            session_name, "flight", subbuf_size=16384, num_subbuf=4, overwrite=True
        ).argv()
    )
    sessiond.ok(
        EnableEvent(
            session_name, "user", ("zipkin:*",), channel="flight", severity="Warning"
        ).argv()
    )
    sessiond.ok(Start(session_name).argv())
    info = parse_session(sessiond.ok(ListSessions(session_name).argv()).stdout, session_name)
    assert info.snapshot and info.mode == "snapshot" and info.state == "active"
    assert info.channels[0].overwrite and info.channels[0].subbuf_size == 16384

    blk = sessiond.workload([str(blkkin_binary), "--requests", "300", "--slow-every", "0"])
    sessiond.ok(SnapshotRecord(session_name, name="incident").argv())
    first = find_chunks(list_local(str(out)))
    assert [c.snapshot_name for c in first.complete] == ["incident"]
    snap = first.complete[0]
    assert snap.kind == "snapshot" and snap.domains == ("ust",) and not snap.empty
    events = bt2_events(bt2_dump, out / snap.path)
    last = [e for e in events if e["fields"].get("trace_id") == blk["last_trace_id"]]
    assert len(last) == 12 + 2 + 2  # the most recent request, complete: timestamps + keyvals
    emitted = sum(v for k, v in blk["events"].items() if k != "zipkin:debug_note")
    assert 0 < len(events) < emitted  # a flight recorder: older events were overwritten

    sessiond.ok(Stop(session_name).argv())
    sessiond.ok(SnapshotRecord(session_name).argv())  # works after stop too
    second = find_chunks(list_local(str(out)))
    assert len(second.complete) == 2
    assert second.by_id()[snap.chunk_id].files == snap.files
    new = next(c for c in second.complete if c.chunk_id != snap.chunk_id)
    assert new.snapshot_name is not None and new.snapshot_name.startswith("snapshot-")
    assert bt2_events(bt2_dump, out / new.path)
