"""[float] ([single], fayshell/lang/single.py): the nearest 32-bit float, written with 7
significant digits as PowerShell writes a Single; arithmetic gives doubles; -is tells it from
a [double]; tables right-align it (and the integer types) as numbers."""

from __future__ import annotations

import math
from pathlib import Path

from fayshell.lang.integers import Int64
from fayshell.lang.single import Single
from fayshell.render import render_plain
from tests.fixtures.shell import Shell


def test_a_single_is_the_nearest_32_bit_float() -> None:
    assert str(Single(3.14159265)) == "3.141593" and float(Single(0.1)) != 0.1
    assert Single(3.14159265).shortest() == 3.1415927 and Single(0.1).shortest() == 0.1
    assert str(Single(1e20)) == "1E+20" and math.isinf(Single(1e39))
    assert type(Single(0.5) + 1) is float  # arithmetic in Double


async def test_float_casts_and_types(shell: Shell, tmp_path: Path) -> None:
    xml = tmp_path / "s.xml"
    out = await shell.run(
        "[float]3.14159265; ([float]0.1).GetType().Name; ([float]0.1 + 1).GetType().Name; "
        "[float]0.1 -is [float]; [float]0.1 -is [double]; 0.1 -is [float]; "
        f"[float]2.5 | Export-Clixml '{xml}'; (Import-Clixml '{xml}').GetType().Name"
    )
    assert [str(v) for v in out] == [
        "3.141593",
        "Single",
        "Double",
        "True",
        "False",
        "False",
        "Single",
    ]
    assert "<Sg>2.5</Sg>" in xml.read_text()
    assert await shell.run("@{f=[float]3.14159265} | ConvertTo-Json -Compress") == [
        '{"f":3.1415927}'
    ]


def test_tables_right_align_every_number_type() -> None:
    rows = [{"name": "a", "f": Single(3.14159265), "n": Int64(5)}]
    lines = render_plain(rows).splitlines()
    header = next(line for line in lines if line.strip().startswith("name"))
    row = next(line for line in lines if line.startswith("a"))
    assert header.split() == ["name", "f", "n"]
    assert row.endswith("3.141593 5") and header.endswith("       f n")
