"""The autouse isolation fixtures: every test gets its own empty HOME and XDG directories, and
fayshell's defaults (inventory, ~/.ssh/config) are read from there."""

from __future__ import annotations

import os
from pathlib import Path

from fayshell.remote.cluster import Cluster
from fayshell.state import Options
from tests.fixtures.isolation import LAYOUT


def test_home_and_xdg_point_at_this_tests_empty_directories(
    isolated_home: Path, isolated_session_home: Path
) -> None:
    assert Path.home() == isolated_home != isolated_session_home
    for var, rel in LAYOUT.items():
        path = Path(os.environ[var])
        assert path == isolated_home.parent / rel and path.is_dir()
    assert sorted(p.name for p in isolated_home.iterdir()) == [".cache", ".config", ".local"]


def test_fayshell_defaults_come_from_the_isolated_home(isolated_home: Path) -> None:
    (isolated_home / ".ssh").mkdir()
    (isolated_home / ".ssh" / "config").write_text(
        "Host lab1\n    HostName 10.9.9.9\n    Port 2222\n"
    )
    inv = Path(os.environ["XDG_CONFIG_HOME"]) / "fayshell" / "inventory.toml"
    inv.parent.mkdir()
    inv.write_text('[groups]\nlab = ["lab1"]\n')
    cluster = Cluster.from_options(Options())
    assert cluster.default_names() == ["lab1"]
    spec = cluster.resolve("lab1")[0]
    assert (spec.host, spec.port) == ("10.9.9.9", 2222)
