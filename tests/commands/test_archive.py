"""Compress-Archive and Expand-Archive on real files; the archives are read back with Python's
zipfile (an independent reader) and extracted files compared byte for byte."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from fayshell.errors import RuntimeFayError
from tests.fixtures.shell import Shell


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("a\n")
    (src / "sub" / "b.bin").write_bytes(bytes(range(256)) * 5000)
    (src / ".hidden").write_text("secret")
    return tmp_path


async def test_a_directory_goes_in_with_its_name_or_its_contents(shell: Shell, tree: Path) -> None:
    await shell.run(
        f"Set-Location '{tree}'; Compress-Archive src whole; Compress-Archive src/* contents"
    )
    assert zipfile.ZipFile(tree / "whole.zip").namelist() == [  # .zip added; hidden left out
        "src/",
        "src/sub/",
        "src/a.txt",
        "src/sub/b.bin",
    ]
    assert sorted(zipfile.ZipFile(tree / "contents.zip").namelist()) == [
        "a.txt",
        "sub/",
        "sub/b.bin",
    ]


async def test_round_trip_keeps_the_bytes(shell: Shell, tree: Path) -> None:
    made = await shell.run(
        f"Set-Location '{tree}'; Compress-Archive src pack -CompressionLevel Fastest; "
        "Expand-Archive pack.zip -PassThru | ForEach-Object Name"
    )
    assert "b.bin" in made and "a.txt" in made
    assert (tree / "pack" / "src" / "sub" / "b.bin").read_bytes() == (
        tree / "src" / "sub" / "b.bin"
    ).read_bytes()


async def test_existing_archives_and_files_are_kept_unless_told(shell: Shell, tree: Path) -> None:
    await shell.run(f"Set-Location '{tree}'; Compress-Archive src/a.txt p.zip")
    with pytest.raises(RuntimeFayError, match="already exists. Use -Update"):
        await shell.run(f"Set-Location '{tree}'; Compress-Archive src/sub p.zip")
    (tree / "src" / "a.txt").write_text("newer\n")
    await shell.run(f"Set-Location '{tree}'; Compress-Archive src/a.txt, src/sub p.zip -Update")
    with zipfile.ZipFile(tree / "p.zip") as z:
        assert sorted(z.namelist()) == ["a.txt", "sub/", "sub/b.bin"]
        assert z.read("a.txt") == b"newer\n"  # replaced, not duplicated
    await shell.run(f"Set-Location '{tree}'; Expand-Archive p.zip out")
    (tree / "out" / "a.txt").write_text("edited")
    kept = await shell.run(
        f"Set-Location '{tree}'; Expand-Archive p.zip out -ErrorAction SilentlyContinue "
        "-ErrorVariable bad; $bad.Count; $bad[0].Exception.Message"
    )
    assert (
        kept[0] == 2
        and "a.txt' from" in kept[1]
        and kept[1].endswith("the file exists (-Force replaces it).")
    )
    assert (tree / "out" / "a.txt").read_text() == "edited"
    await shell.run(f"Set-Location '{tree}'; Expand-Archive p.zip out -Force")
    assert (tree / "out" / "a.txt").read_text() == "newer\n"


async def test_an_entry_outside_the_destination_is_refused(shell: Shell, tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "evil.zip", "w") as z:
        z.writestr("../escaped.txt", "x")
        z.writestr("fine.txt", "ok")
    out = await shell.run(
        f"Set-Location '{tmp_path}'; Expand-Archive evil.zip -ErrorAction SilentlyContinue "
        "-ErrorVariable bad; $bad[0].Exception.Message; $bad[0].FullyQualifiedErrorId"
    )
    assert "outside" in out[0] and out[1] == "InvalidArchiveEntry,Expand-Archive"
    assert not (tmp_path / "escaped.txt").exists()
    assert (tmp_path / "evil" / "fine.txt").read_text() == "ok"


async def test_piped_files_and_what_is_not_an_archive(shell: Shell, tree: Path) -> None:
    await shell.run(
        f"Set-Location '{tree}'; Get-ChildItem src -Recurse -File | "
        "Compress-Archive -DestinationPath piped.zip"
    )
    assert sorted(zipfile.ZipFile(tree / "piped.zip").namelist()) == ["a.txt", "b.bin"]
    with pytest.raises(RuntimeFayError, match="a.txt is not a ZIP archive"):
        await shell.run(f"Set-Location '{tree}'; Expand-Archive src/a.txt")
    assert not list(tree.glob(".*.part"))  # no temporary file left behind


async def test_ctrl_c_leaves_no_archive_and_no_temporary_file(shell: Shell, tmp_path: Path) -> None:
    """Cancelled while it compresses (as Ctrl-C cancels a command), the writing thread stops
    between chunks and removes its temporary file; no archive appears later."""
    import asyncio
    import os

    (tmp_path / "big.bin").write_bytes(os.urandom(96 << 20))  # seconds to deflate
    run = asyncio.ensure_future(
        shell.run(f"Compress-Archive '{tmp_path / 'big.bin'}' '{tmp_path / 'out.zip'}'")
    )
    await asyncio.sleep(0.3)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert not (tmp_path / "out.zip").exists()
    assert not list(tmp_path.glob(".*.part"))
