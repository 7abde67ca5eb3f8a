"""examples/incident.fay runs unattended against the real test cluster and gets exact counts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parent.parent / "examples" / "incident.fay"
WORKLOAD = Path(__file__).parent / "fixtures" / "workloads" / "pylog.py"


def test_incident_script_on_real_cluster(real_cluster, tmp_path: Path) -> None:
    shutil.copy(WORKLOAD, "/tmp/pylog.py")
    os.chmod("/tmp/pylog.py", 0o755)
    dest = tmp_path / "traces"
    dest.mkdir()
    dest.chmod(0o755)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "fayshell",
            "--db",
            str(tmp_path / "i.duckdb"),
            "--inventory",
            str(real_cluster.inventory),
            "--ssh-config",
            str(real_cluster.ssh_config),
            str(EXAMPLE),
            str(dest),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [
        fields
        for fields in (line.split() for line in proc.stdout.splitlines())
        if len(fields) == 4 and fields[1].startswith("storage.") and fields[3].isdigit()
    ]
    # 2 nodes x 2 storage loggers x 3 levels (Warning, Error, Critical), 5 records x 3 rounds
    counts = {(r[0], r[1], r[2]): int(r[3]) for r in rows}
    assert len(counts) == 12, proc.stdout
    assert set(counts.values()) == {15}
    assert not any("app.http" in line for line in proc.stdout.splitlines())
    assert sorted(p.name for p in (dest / "demo").iterdir()) == ["node01", "node02"]


FLIGHT = EXAMPLE.with_name("flight.fay")


def test_flight_recorder_script_on_real_cluster(real_cluster, tmp_path: Path) -> None:
    shutil.copy(FLIGHT.with_name("flight_emit.py"), "/tmp/flight_emit.py")
    os.chmod("/tmp/flight_emit.py", 0o644)
    dest = tmp_path / "traces"
    dest.mkdir()
    dest.chmod(0o755)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "fayshell",
            "--db",
            str(tmp_path / "f.duckdb"),
            "--inventory",
            str(real_cluster.inventory),
            "--ssh-config",
            str(real_cluster.ssh_config),
            str(FLIGHT),
            str(dest),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    fields = {
        k.strip(): v.strip()
        for k, v in (line.split(" : ", 1) for line in proc.stdout.splitlines() if " : " in line)
    }
    assert fields["node"] == "node03" and fields["nodes"] == "4", proc.stdout
    rows = [f for f in (line.split() for line in proc.stdout.splitlines()) if len(f) == 3]
    counts = {(r[0], r[1]): r[2] for r in rows if r[1] in ("Info", "Error")}
    assert counts == {
        ("node01", "Info"): "200",
        ("node02", "Info"): "200",
        ("node03", "Info"): "210",
        ("node03", "Error"): "1",
        ("node04", "Info"): "200",
    }, proc.stdout
