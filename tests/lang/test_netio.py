"""[System.IO.File] and [System.IO.Directory] on real files, through the language."""

from __future__ import annotations

from pathlib import Path

import pytest

from fayshell.errors import RuntimeFayError


async def test_file_methods_read_write_copy_and_delete(shell, tmp_path: Path) -> None:
    f, g = tmp_path / "a.txt", tmp_path / "b.txt"
    out = await shell.run(
        f"[IO.File]::WriteAllText('{f}', 'one'); [IO.File]::AppendAllText('{f}', 'two'); "
        f"[IO.File]::ReadAllText('{f}'); [System.IO.File]::Exists('{f}'); "
        f"[IO.File]::Exists('{tmp_path}'); "
        f"[IO.File]::WriteAllLines('{g}', @('x', 2)); [IO.File]::ReadAllLines('{g}'); "
        f"[IO.File]::Copy('{f}', '{g}', $true); [IO.File]::ReadAllText('{g}'); "
        f"[IO.File]::Delete('{g}'); [IO.File]::Exists('{g}'); [IO.File]::Delete('{g}')"
    )
    assert out == ["onetwo", True, False, "x", "2", "onetwo", False]
    assert f.read_bytes() == b"onetwo"  # UTF-8 without a byte order mark


async def test_directory_methods(shell, tmp_path: Path) -> None:
    (tmp_path / "b.log").write_text("")
    (tmp_path / "a.log").write_text("")
    (tmp_path / "c.txt").write_text("")
    out = await shell.run(
        f"[IO.Directory]::GetFiles('{tmp_path}', '*.log'); "
        f"[IO.Directory]::CreateDirectory('{tmp_path}/d/e'); "
        f"[IO.Directory]::GetDirectories('{tmp_path}'); "
        f"[IO.Directory]::Delete('{tmp_path}/d', $true); [IO.Directory]::Exists('{tmp_path}/d')"
    )
    assert out == [
        f"{tmp_path}/a.log",
        f"{tmp_path}/b.log",
        f"{tmp_path}/d/e",
        f"{tmp_path}/d",
        False,
    ]


@pytest.mark.parametrize(
    "call, says",
    [
        ("[IO.File]::ReadAllText('{d}/nope')", "\"Could not find file '{d}/nope'.\""),
        ("[IO.File]::Copy('{d}/x', '{d}/x')", "already exists"),
        ("[IO.File]::ReadAllText()", 'Cannot find an overload for "ReadAllText"'),
    ],
)
async def test_file_failures_are_powershells_errors(shell, tmp_path: Path, call, says) -> None:
    (tmp_path / "x").write_text("")
    with pytest.raises(RuntimeFayError) as info:
        await shell.run(call.format(d=tmp_path))
    assert says.format(d=tmp_path) in info.value.message
