"""fayshell.jobs: the protocol between shell and child on its own, and no child process or
job directory left behind when the shell ends (normally, or killed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fayshell.jobs import KINDS, JobSpec, decode, encode


def test_protocol_lines_round_trip_and_stray_text_is_an_error() -> None:
    for kind in KINDS:
        for value in ("text\nwith a newline", {"a": [1, None, "é"]}, 3.5, None):
            line = encode(kind, value)
            assert "\n" not in line and decode(line + "\n") == (kind, value)
    assert decode("Traceback (most recent call last):\n") == (
        "e",
        "Traceback (most recent call last):",
    )
    assert decode('{"k": "x", "v": 1}') == ("e", '{"k": "x", "v": 1}')  # no such kind
    spec = JobSpec(block="param($a) $a", args=[1, {"b": 2}], using={"x": "y"}, init="1")
    assert JobSpec.from_json(spec.to_json()) == spec


def _children(parent: int) -> list[int]:
    out = subprocess.run(["pgrep", "-f", "fayshell.jobs"], capture_output=True, text=True)
    pids = [int(p) for p in out.stdout.split()]
    return [p for p in pids if _ppid(p) == parent]


def _ppid(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


@pytest.mark.parametrize("how", ["exit", "SIGKILL", "SIGKILL after the job ended"])
def test_the_shell_ending_ends_its_jobs_and_their_directories(tmp_path: Path, how: str) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    stay = "; Start-Sleep 2" if how == "exit" else "; Start-Sleep 60"
    block = "'done'" if how.endswith("ended") else "Start-Sleep 60"
    shell = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fayshell",
            "--no-profile",
            "--db",
            str(tmp_path / "s.duckdb"),
            "-c",
            f"Start-Job {{ {block} }} | Out-Null; 'started'{stay}",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp)},
    )
    assert shell.stdout is not None and shell.stdout.readline() == "started\n"
    children = _children(shell.pid)  # none any more when the quick job has already ended
    deadline = time.monotonic() + 20
    if how.endswith("ended"):
        while _children(shell.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _children(shell.pid)
    if how.startswith("SIGKILL"):
        shell.send_signal(signal.SIGKILL)
    shell.wait(timeout=30)
    for child in children:
        while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text()
    assert how.endswith("ended") or len(children) == 1
    while list(tmp.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(tmp.iterdir()) == []  # the job's directory is gone too
