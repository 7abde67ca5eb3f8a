"""Agent test fixtures: a session output directory of kernel-layout rotation archives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fixtures.ctfgen import GenSpec, write_trace


def make_session_dir(out: Path, chunks: int = 3, events: int = 20_000, seed: int = 1) -> Path:
    """``out`` laid out as LTTng writes a rotating session: ``archives/<b>-<e>-<n>/kernel/``,
    plus a chunk still being written at the top level (which must not be imported)."""
    gen = out.parent / (out.name + ".gen")
    info = write_trace(
        gen, GenSpec(events=events, cpus=2, chunks=chunks, seed=seed, keep_truth=False)
    )
    for k, d in enumerate(info.dirs):
        name = f"20261124T0500{k:02d}+0000-20261124T0500{k + 1:02d}+0000-{k}"
        dest = out / "archives" / name / "kernel"
        dest.parent.mkdir(parents=True)
        shutil.move(str(d), dest)
    current = out / f"20261124T0500{chunks:02d}+0000-{chunks}" / "kernel"
    current.mkdir(parents=True)
    (current / "channel0_0").write_bytes(b"\0" * 100)  # half-written: no metadata yet
    shutil.rmtree(gen, ignore_errors=True)
    return out


@pytest.fixture(scope="session")
def session_dir_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_session_dir(tmp_path_factory.mktemp("agent") / "incident-1")


@pytest.fixture
def session_dir(session_dir_template: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "lttng-traces" / "incident-1"
    shutil.copytree(session_dir_template, dest)
    return dest
