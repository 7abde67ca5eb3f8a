"""Fuzzing: mutated real and generated traces reach the decoders; only TraceFormatError may come
out, never a crash or a hang, and the C decoder and the Python reference agree exactly (same
events kept, same error offset) on every mutant."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fayshell.ctf.decode import stream_readers
from fayshell.ctf.trace import open_trace
from fayshell.errors import TraceFormatError
from tests.ctf.conftest import have_c, shared_trace
from tests.ctf.minitrace import write_mini
from tests.fixtures.ctfgen import GenSpec, write_trace

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("seeds")
    write_trace(
        base / "kernel", GenSpec(events=1500, cpus=1, packet_size=4096, seed=4, discard_every=3)
    )
    write_mini(base / "mini")
    out = {"kernel": base / "kernel", "mini": base / "mini"}
    real = shared_trace("kernel-be-flipping-endianness")
    small = base / "be"
    small.mkdir()
    shutil.copy(real / "metadata", small / "metadata")
    data = (real / "channel-context-switches_0").read_bytes()
    (small / "stream").write_bytes(data[:65536])  # the first packets only
    out["be"] = small
    return out


def stream_file(trace: Path) -> Path:
    return next(p for p in sorted(trace.iterdir()) if p.is_file() and p.name != "metadata")


def outcome(trace: Path, prefer_c: bool) -> tuple[list[tuple[int, int]], str | None]:
    """Events kept (ts, class) and the error (path, offset, message) if any."""
    tr = open_trace(trace)
    events: list[tuple[int, int]] = []
    err = None
    for r in stream_readers(tr, prefer_c, batch_rows=500):
        for b in r.batches():
            events += list(
                zip(
                    b.common.column("ts").to_pylist(),
                    b.common.column("cls").to_pylist(),
                    strict=True,
                )
            )
            for t in b.payload.values():
                t.validate(full=True)
        if r.stats.error is not None:
            assert isinstance(r.stats.error, TraceFormatError)
            err = f"{r.stats.error.offset}: {r.stats.error.message}"
    return events, err


mutation = st.lists(st.tuples(st.integers(0, 1 << 30), st.integers(0, 255)), min_size=1, max_size=8)


@pytest.mark.parametrize("seed", ["kernel", "mini", "be"])
@SETTINGS
@given(muts=mutation, cut=st.one_of(st.none(), st.integers(0, 1 << 30)))
def test_mutated_streams(
    seeds: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
    seed: str,
    muts: list[tuple[int, int]],
    cut: int | None,
) -> None:
    work = tmp_path_factory.mktemp("m")
    trace = work / "t"
    shutil.copytree(seeds[seed], trace)
    f = stream_file(trace)
    data = bytearray(f.read_bytes())
    for at, value in muts:
        data[at % len(data)] = value
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    f.write_bytes(bytes(data))
    py = outcome(trace, False)
    if have_c():
        assert outcome(trace, True) == py
    shutil.rmtree(work)


@SETTINGS
@given(pos=st.integers(0, 1 << 20), junk=st.text(max_size=12), cut=st.booleans())
def test_mutated_metadata(
    seeds: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, pos: int, junk: str, cut: bool
) -> None:
    trace = tmp_path_factory.mktemp("md") / "t"
    shutil.copytree(seeds["mini"], trace)
    text = (trace / "metadata").read_text()
    at = pos % (len(text) + 1)
    text = text[:at] + junk + ("" if cut else text[at + len(junk) :])
    (trace / "metadata").write_text(text)
    try:
        open_trace(trace)
    except TraceFormatError as exc:
        assert str(trace / "metadata") in str(exc) or exc.path == str(trace / "metadata")
        return
    outcome(trace, False)
    if have_c():
        assert outcome(trace, True) == outcome(trace, False)
