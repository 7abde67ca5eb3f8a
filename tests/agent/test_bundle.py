"""The agent bundle: content-addressed, self-describing, trimmed, rebuilt only when it changes."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

from fayshell.remote.agentbundle import Bundle, build, digest_of


def test_bundle_is_content_addressed_and_complete(agent_bundle: Bundle, tmp_path: Path) -> None:
    text = (agent_bundle.path / "MANIFEST").read_text()
    assert digest_of(text) == agent_bundle.digest
    listed = {line.split(" ", 2)[2] for line in text.splitlines()}
    assert {"agent.py", "lib/fayshell/agent/server.py", "lib/fayshell/store/loader.py"} <= listed
    assert any(p.startswith("lib/duckdb/") for p in listed)
    assert any(p.startswith("lib/pyarrow/lib.") for p in listed)
    assert not any("/tests/" in p or "flight" in p or "__pycache__" in p for p in listed)
    assert not any(p.startswith(("lib/fayshell/views", "lib/fayshell/commands")) for p in listed)
    with tarfile.open(agent_bundle.tar) as tar:
        names = set(tar.getnames())
    assert names == listed | {"MANIFEST", "BUNDLE.json"}
    meta = json.loads((agent_bundle.path / "BUNDLE.json").read_text())
    assert meta["digest"] == agent_bundle.digest and meta["abi"] == agent_bundle.abi


def test_rebuild_is_stable_and_drops_older_builds(agent_bundle: Bundle, tmp_path: Path) -> None:
    root = tmp_path / "bundles"
    (root / "0123456789abcdef01234567").mkdir(parents=True)
    (root / "0123456789abcdef01234567.tar").write_bytes(b"old")
    first = build(root)
    again = build(root)
    assert first.digest == again.digest == agent_bundle.digest
    assert sorted(p.name for p in root.iterdir()) == [first.digest, f"{first.digest}.tar"]
    assert Bundle.load(root) == first
