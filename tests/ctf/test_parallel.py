"""Decoder threads (fayshell.ctf.parallel): they start when the batches are asked for, not at
the first batch; closing stops them whether or not anything was read; an error reaches the
consumer; every batch arrives once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

from fayshell.ctf.decode import EventBatch, StreamReader, stream_readers
from fayshell.ctf.parallel import ParallelBatches, parallel_batches
from fayshell.ctf.trace import open_trace
from tests.fixtures.ctfgen import GenInfo


def _decoders() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("ctf-decode-")]


def _readers(gen: GenInfo, prefer_c: bool) -> list[StreamReader]:
    return stream_readers(open_trace(gen.dirs[0]), prefer_c, 500, part_bytes=1, workers=4)


def _wait_for(cond: Callable[[], bool], seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


def test_decoding_starts_before_the_first_batch_is_asked_for(
    gen_lossy: GenInfo, prefer_c: bool
) -> None:
    readers = _readers(gen_lossy, prefer_c)
    batches = parallel_batches(readers, workers=2, depth=1)
    assert isinstance(batches, ParallelBatches)
    try:
        assert _wait_for(lambda: any(r.stats.bytes_read for r in readers))
    finally:
        batches.close()
    assert _decoders() == []


def test_close_without_reading_stops_every_thread(gen_lossy: GenInfo) -> None:
    batches = parallel_batches(_readers(gen_lossy, True), workers=3, depth=1)
    assert len(_decoders()) == 3
    batches.close()
    assert _decoders() == []


def test_every_batch_once_then_the_threads_are_gone(gen_lossy: GenInfo, prefer_c: bool) -> None:
    readers = _readers(gen_lossy, prefer_c)
    got = list(parallel_batches(readers, workers=2, depth=1))
    assert sum(b.common.num_rows for _, b in got) == gen_lossy.events
    assert sorted({id(r) for r, _ in got}) == sorted(id(r) for r in readers if r.stats.events)
    assert _decoders() == []


class _Broken(StreamReader):
    """A reader whose decoding fails after its first batch."""

    def batches(self) -> Iterator[EventBatch]:
        for i, b in enumerate(super().batches()):
            if i == 1:
                raise RuntimeError("decoder failed")
            yield b


def test_a_decoder_error_reaches_the_consumer(gen_lossy: GenInfo) -> None:
    trace = open_trace(gen_lossy.dirs[0])
    readers = [_Broken(trace, p, True, 200) for p in trace.files]
    with pytest.raises(RuntimeError, match="decoder failed"):
        for _r, _b in parallel_batches(readers, workers=2, depth=1):
            pass
    assert _decoders() == []


def test_one_worker_decodes_in_the_callers_thread(gen_lossy: GenInfo) -> None:
    readers = _readers(gen_lossy, True)
    batches = parallel_batches(readers, workers=1)
    assert _decoders() == []
    first: tuple[StreamReader, EventBatch] = next(iter(batches))
    assert first[1].common.num_rows > 0
