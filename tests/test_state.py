"""The shell's state alone: what a typed line leaves in $^ and $$."""

from __future__ import annotations

import pytest

from fayshell.host import CaptureHost
from fayshell.state import Options, ShellState


@pytest.mark.parametrize(
    ("line", "first", "last"),
    [
        ("Get-Date | Out-Null", "Get-Date", "Out-Null"),
        ("$x = 'a b';", "$x", ";"),
        ('Write-Host "q `" x" -NoNewline', "Write-Host", "-NoNewline"),
        ("${my var} + 1", "${my var}", "1"),
        ("(1, 2)", "(", ")"),
    ],
)
def test_a_typed_line_sets_its_first_and_last_tokens(tmp_path, line, first, last) -> None:
    state = ShellState(Options(database=str(tmp_path / "t.duckdb")), CaptureHost())
    state.received(line)
    assert (state.globals.lookup("^"), state.globals.lookup("$")) == ((True, first), (True, last))
    state.received("   ")  # a blank line leaves them
    assert state.globals.lookup("^") == (True, first)
