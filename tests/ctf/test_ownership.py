"""Decoded batches stay valid after their C decoder is gone and while it decodes the next batch
(it hands its column buffers over, without a copy), with the Python reference decoder's
values."""

from __future__ import annotations

import gc

import pyarrow as pa
import pytest

from fayshell.ctf.decode import stream_readers
from fayshell.ctf.trace import open_trace
from tests.ctf.conftest import have_c
from tests.fixtures.ctfgen import GenInfo, GenSpec, write_trace


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    """Batches of 8192 rows: 64 KiB per 8-byte column."""
    out = tmp_path_factory.mktemp("gen") / "owned"
    return write_trace(out, GenSpec(events=60_000, cpus=2, seed=11))


def decoded(info: GenInfo, prefer_c: bool) -> pa.Table:
    """Every batch's common columns, kept after the readers (and decoders) are dropped."""
    trace = open_trace(info.dirs[0])
    readers = stream_readers(trace, prefer_c, batch_rows=8192)
    batches = [b.common for r in readers for b in r.batches()]
    del readers
    gc.collect()
    return pa.concat_tables(batches)


def test_batches_outlive_the_decoder(big: GenInfo) -> None:
    if not have_c():
        pytest.skip("fayshell.ctf._decode is not built (no C compiler at install)")
    c, python = decoded(big, True), decoded(big, False)
    assert c.num_rows == python.num_rows > 8192 * 4
    assert c.equals(python)
