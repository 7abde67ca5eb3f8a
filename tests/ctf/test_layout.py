"""The C decoder's stream layouts: made once per stream and shared by its readers, on any
thread; each table's columns listed once; a new decoder starts at the buffer sizes the last
one reached."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from fayshell.ctf.decode import StreamReader, cut
from fayshell.ctf.trace import open_trace
from tests.ctf.conftest import have_c, shared_trace
from tests.fixtures.ctfgen import GenInfo

if not have_c():
    pytest.skip(
        "fayshell.ctf._decode is not built (no C compiler at install)", allow_module_level=True
    )

from fayshell.ctf._decode import Decoder  # noqa: E402

from fayshell.ctf.cdecoder import CEventDecoder, Layout, Layouts  # noqa: E402


def test_readers_of_one_stream_share_its_layout(gen_lossy: GenInfo) -> None:
    (stream,) = open_trace(gen_lossy.dirs[0]).streams.values()
    layouts = Layouts()
    a = CEventDecoder(stream.events, stream.class_of_id, layouts)
    b = CEventDecoder(stream.events, stream.class_of_id, layouts)
    assert a.layout is b.layout
    assert a.dec is not b.dec  # each reader decodes into buffers of its own
    other = CEventDecoder(stream.events, dict(stream.class_of_id), layouts)
    assert other.layout is not a.layout  # another class map: made anew
    assert other.layout.args == a.layout.args


def test_layouts_keep_the_latest_few(gen_lossy: GenInfo) -> None:
    (stream,) = open_trace(gen_lossy.dirs[0]).streams.values()
    layouts = Layouts(keep=1)
    first = layouts.get(stream.events, stream.class_of_id)
    layouts.get(stream.events, dict(stream.class_of_id))
    again = layouts.get(stream.events, stream.class_of_id)
    assert again is not first and again.args == first.args


def test_threads_asking_at_once_get_one_layout() -> None:
    """Decoder threads start together on a trace's parts: one makes the layout (a real kernel
    trace's 1,181 classes), the others wait for it."""
    stream = next(iter(open_trace(shared_trace("kernel-many-threads")).streams.values()))
    layouts = Layouts()
    start = threading.Barrier(4)
    got: list[Layout] = []

    def ask() -> None:
        start.wait()
        got.append(layouts.get(stream.events, stream.class_of_id))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4 and all(g is got[0] for g in got)


def test_each_top_level_column_belongs_to_one_table() -> None:
    stream = next(iter(open_trace(shared_trace("kernel-many-threads")).streams.values()))
    lay = Layout.of(stream.events, stream.class_of_id)
    listed = sorted(i for cols in lay.by_table for i in cols)
    top = [i for i, (_, col) in enumerate(lay.columns) if not col.is_child]
    assert listed == top
    assert all(lay.columns[i][0] == t for t, cols in enumerate(lay.by_table) for i in cols)
    assert len(lay.class_of_table) == len(stream.events.classes) + 1
    assert sorted(lay.class_of_table[1:]) == sorted(stream.class_of_id.values())


def test_a_new_decoder_starts_at_the_sizes_the_last_one_reached(gen_lossy: GenInfo) -> None:
    """The parts of a file are decoded by a decoder each: the next one's buffers start as
    large as the last one's grew (not from 1 KiB, copied at each doubling)."""
    trace = open_trace(gen_lossy.dirs[0])
    (stream,) = trace.streams.values()
    path = trace.files[0]
    first, _ = (StreamReader(trace, path, True, 4096, p) for p in cut(trace, path, 2))
    assert sum(b.common.num_rows for b in first.batches()) > 4096
    reached = CEventDecoder(stream.events, stream.class_of_id).layout.sizes.get()
    assert reached is not None
    assert np.frombuffer(reached, np.int64).max() >= 4096 * 8  # a batch's timestamps
    nxt = CEventDecoder(stream.events, stream.class_of_id)
    assert nxt.dec.sizes() == reached
    with pytest.raises(ValueError, match="one per buffer"):
        Decoder(*nxt.layout.args, reached[:8])
