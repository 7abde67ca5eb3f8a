"""Fixtures for the decoder tests: generated kernel-layout traces and the backends to run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.ctfgen import GenInfo, GenSpec, write_trace


def have_c() -> bool:
    """Whether the C extension was built."""
    try:
        import fayshell.ctf.cdecoder  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(params=["c", "python"])
def prefer_c(request: pytest.FixtureRequest) -> bool:
    """Run a test with the compiled decoder and with the Python reference."""
    if request.param == "c" and not have_c():
        pytest.skip("fayshell.ctf._decode is not built (no C compiler at install)")
    return bool(request.param == "c")


@pytest.fixture(scope="session")
def gen_lossy(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    """A 30k-event kernel-layout trace over 3 CPUs with discarded events and lost packets."""
    out = tmp_path_factory.mktemp("gen") / "lossy"
    return write_trace(
        out, GenSpec(events=30_000, cpus=3, packet_size=8192, discard_every=4, lost_every=9, seed=7)
    )


@pytest.fixture(scope="session")
def gen_chunked(tmp_path_factory: pytest.TempPathFactory) -> GenInfo:
    """A kernel-layout trace cut in time into 3 chunk directories."""
    out = tmp_path_factory.mktemp("gen") / "chunked"
    return write_trace(
        out,
        GenSpec(
            events=40_000,
            cpus=4,
            packet_size=16384,
            chunks=3,
            seed=3,
            discard_every=3,
            lost_every=5,
        ),
    )


def shared_trace(name: str) -> Path:
    """A real trace from ../shared/traces, or a skip saying it is absent."""
    from tests.ctf.reference import SHARED

    path = SHARED / name
    if not (path / "metadata").is_file():
        pytest.skip(f"real trace {path} is absent (tests look for ../shared/traces)")
    return path


@pytest.fixture(scope="session", autouse=True)
def _prefetch_bt2() -> None:
    """Start babeltrace2 on the real traces early: it is the slow half of the comparisons."""
    from tests.ctf.reference import REAL_TRACES, SHARED, prefetch

    prefetch(*(str(SHARED / n) for n in REAL_TRACES if (SHARED / n / "metadata").is_file()))
