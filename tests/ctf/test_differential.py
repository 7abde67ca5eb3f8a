"""Our decoder against babeltrace2 (bt2 under /usr/bin/python3) on real and generated traces.

Same events (name, timestamp in ns from the epoch, cpu, context and payload field values),
same discarded-event and lost-packet counts, for the C decoder and the Python reference.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.ctf.conftest import shared_trace
from tests.ctf.reference import REAL_TRACES, View, bt2_view, fay_view
from tests.fixtures.ctfgen import GenInfo


def _key(line: str) -> tuple[str, int, int | None]:
    name, ts, cpu, _, _ = json.loads(line)
    return name, ts, cpu


def assert_same(ref: View, ours: View) -> None:
    """Equal views, except babeltrace2's stale empty strings (explained below)."""
    assert len(ours.lines) == len(ref.lines)
    assert Counter(_key(x)[0] for x in ours.lines) == Counter(_key(x)[0] for x in ref.lines)
    assert (ours.discarded_events, ours.discarded_packets) == (
        ref.discarded_events,
        ref.discarded_packets,
    )
    only_ref = sorted(set(ref.lines) - set(ours.lines))
    only_ours = sorted(set(ours.lines) - set(ref.lines))
    assert len(only_ref) == len(only_ours)
    for a, b in zip(only_ref, only_ours, strict=True):
        # babeltrace2 2.0 reuses string fields between events: an empty string in the
        # trace shows the previous event's value. The bytes hold an empty string (checked
        # by hand at the reported offset); ours must differ only there, with "".
        ra, rb = json.loads(a), json.loads(b)
        assert ra[:4] == rb[:4], (a, b)
        diff = {k for k in ra[4] if ra[4][k] != rb[4].get(k)}
        assert diff and all(rb[4][k] == "" and isinstance(ra[4][k], str) for k in diff), (a, b)
    assert len(only_ours) <= max(2, len(ours.lines) // 4), only_ours[:5]


@pytest.mark.parametrize("name", REAL_TRACES)
def test_real_trace_matches_babeltrace2(name: str, prefer_c: bool) -> None:
    path = shared_trace(name)
    assert_same(bt2_view(str(path)), fay_view(str(path), prefer_c))


def test_generated_trace_with_losses(gen_lossy: GenInfo, prefer_c: bool) -> None:
    path = str(gen_lossy.dirs[0])
    ref = bt2_view(path)
    assert ref.discarded_events == gen_lossy.discarded > 0
    assert ref.discarded_packets == gen_lossy.lost_packets > 0
    ours = fay_view(path, prefer_c)
    assert ours.lines == ref.lines
    assert_same(ref, ours)


def test_generated_chunks(gen_chunked: GenInfo, prefer_c: bool) -> None:
    total = 0
    losses = [0, 0]
    for d in gen_chunked.dirs:
        ref, ours = bt2_view(str(d)), fay_view(str(d), prefer_c)
        assert ours.lines == ref.lines
        assert_same(ref, ours)
        total += len(ours.lines)
        losses[0] += ours.discarded_events
        losses[1] += ours.discarded_packets
    assert total == gen_chunked.events
    assert losses == [gen_chunked.discarded, gen_chunked.lost_packets] and min(losses) > 0
