"""The user's profile, as the fayshell command runs it before a -c command or a script."""

from __future__ import annotations

import os
from pathlib import Path

from tests.test_cli import fayshell


def _profile(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "fayshell" / "profile.fay"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_profile_runs_first_and_profile_names_it(tmp_path: Path) -> None:
    path = _profile('function hi { "hi from the profile" }\nSet-Alias hh hi\n$Greeting = "set"\n')
    db = str(tmp_path / "p.duckdb")
    proc = fayshell("--db", db, "-c", "hi; hh; $Greeting; $PROFILE; $PROFILE.AllUsersAllHosts")
    assert proc.stdout.splitlines() == [
        "hi from the profile",
        "hi from the profile",
        "set",
        str(path),
        "/etc/fayshell/profile.fay",
    ], proc.stderr
    skipped = fayshell("--db", db, "--no-profile", "-c", "$null -eq (Get-Command hi -ea 0)")
    assert skipped.stdout.splitlines() == ["True"], skipped.stderr


def test_an_error_in_the_profile_is_named_and_the_command_still_runs(tmp_path: Path) -> None:
    path = _profile('"line1"\nnosuchcmd-x\n"never"\n')
    proc = fayshell("--db", str(tmp_path / "p.duckdb"), "-c", '"main ran"')
    assert proc.stdout.splitlines() == ["line1", "main ran"]
    assert f"{path}:2:1: unknown command 'nosuchcmd-x'" in proc.stderr
    assert proc.returncode == 0
