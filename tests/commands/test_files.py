"""File-system cmdlets on real temporary directories: paths, contents, items, locations."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fayshell.commands.files import FileItem
from fayshell.errors import CommandError, FayError, ParameterError
from fayshell.lang.dates import DateTime
from fayshell.state import PathInfo


@pytest.fixture
async def here(shell, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The shell standing in an empty directory, with HOME isolated."""
    home = tmp_path / "home"
    work = tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    await shell.run(f"Set-Location '{work}'")
    return work


async def test_join_path_forms(shell) -> None:
    assert await shell.run("Join-Path a b") == ["a/b"]
    assert await shell.run("Join-Path -Path a,b -ChildPath c") == ["a/c", "b/c"]
    assert await shell.run("Join-Path a b c d") == ["a/b/c/d"]
    assert await shell.run("Join-Path 'a/' '/b'") == ["a/b"]
    assert await shell.run("Join-Path 'a\\x' y") == ["a/x/y"]
    assert await shell.run("'p', 'q' | Join-Path -ChildPath z") == ["p/z", "q/z"]


async def test_join_path_resolve(shell, here: Path) -> None:
    (here / "f.txt").write_text("x")
    assert await shell.run("Join-Path . f.txt -Resolve") == [str(here / "f.txt")]
    with pytest.raises(CommandError) as info:
        await shell.run("Join-Path . nope -Resolve")
    assert "1 failure" in info.value.one_line() and str(here / "nope") in shell.host.errors[0]


async def test_split_path_parts(shell) -> None:
    path = "'/var/log/app.tar.gz'"
    assert await shell.run(f"Split-Path {path}") == ["/var/log"]
    assert await shell.run(f"Split-Path {path} -Parent") == ["/var/log"]
    assert await shell.run(f"Split-Path {path} -Leaf") == ["app.tar.gz"]
    assert await shell.run(f"Split-Path {path} -LeafBase") == ["app.tar"]
    assert await shell.run(f"Split-Path {path} -Extension") == [".gz"]
    assert await shell.run("Split-Path noext -Extension") == [""]
    assert await shell.run("Split-Path '/a/b/' -Leaf") == ["b"]
    assert await shell.run("Split-Path /a") == ["/"]
    assert await shell.run("Split-Path file.txt") == [""]
    assert await shell.run("Split-Path /a -IsAbsolute; Split-Path a/b -IsAbsolute") == [True, False]
    assert await shell.run("Split-Path Env:HOME -Qualifier; Split-Path Env:HOME -NoQualifier") == [
        "Env:",
        "HOME",
    ]
    with pytest.raises(CommandError) as info:
        await shell.run("Split-Path /tmp -Qualifier")
    assert "has no qualifier" in info.value.one_line()
    with pytest.raises(ParameterError):
        await shell.run("Split-Path /a/b -Leaf -Extension")


async def test_test_path_types_and_wildcards(shell, here: Path) -> None:
    (here / "a.txt").write_text("1")
    (here / "dir").mkdir()
    assert await shell.run("Test-Path a.txt; Test-Path missing; Test-Path ''") == [
        True,
        False,
        False,
    ]
    assert await shell.run(
        "Test-Path a.txt -PathType Leaf; Test-Path a.txt -PathType Container"
    ) == [True, False]
    assert await shell.run(
        "Test-Path dir -PathType Container; Test-Path *.txt; Test-Path *.md"
    ) == [True, True, False]
    assert await shell.run("Test-Path -LiteralPath '*.txt'") == [False]
    assert await shell.run("Test-Path a.txt, missing") == [True, False]


async def test_resolve_path(shell, here: Path) -> None:
    for name in ("b.log", "a.log"):
        (here / name).write_text("")
    found = await shell.run("Resolve-Path *.log")
    assert found == [
        PathInfo(str(here / "a.log"), ProviderPath=str(here / "a.log")),
        PathInfo(str(here / "b.log"), ProviderPath=str(here / "b.log")),
    ]
    assert await shell.run("Resolve-Path a.log -Relative") == ["./a.log"]
    assert await shell.run("(Resolve-Path ~).Path") == [str(here.parent / "home")]


async def test_set_get_add_content_roundtrip(shell, here: Path) -> None:
    await shell.run("Set-Content notes.txt -Value one, two, three")
    assert (here / "notes.txt").read_text() == "one\ntwo\nthree\n"
    assert await shell.run("Get-Content notes.txt") == ["one", "two", "three"]
    assert await shell.run("Get-Content notes.txt -TotalCount 2") == ["one", "two"]
    assert await shell.run("Get-Content notes.txt -Head 1; Get-Content notes.txt -Tail 2") == [
        "one",
        "two",
        "three",
    ]
    assert await shell.run("Get-Content notes.txt -Raw") == ["one\ntwo\nthree\n"]
    await shell.run("'four' | Add-Content notes.txt")
    assert await shell.run("(Get-Content notes.txt).Count") == [4]
    await shell.run("Set-Content flag -Value 1 -NoNewline")
    assert (here / "flag").read_text() == "1"
    assert await shell.run("cat notes.txt | Select-Object -Last 1") == ["four"]


async def test_get_content_read_count_sends_arrays(shell, here: Path) -> None:
    """-ReadCount (was "no such parameter"): lines N at a time, 0 all at once, 1 each."""
    await shell.run("Set-Content n.txt -Value 1, 2, 3, 4, 5")
    assert await shell.run("Get-Content n.txt -ReadCount 2 | % { $_.Count }") == [2, 2, 1]
    assert await shell.run("(Get-Content n.txt -ReadCount 0).Count") == [5]
    assert await shell.run("Get-Content n.txt -ReadCount 0 | % { $_.Count }") == [5]
    assert await shell.run("Get-Content n.txt -ReadCount 1 | % { $_.Count }") == [1] * 5


async def test_get_content_delimiter_line_endings_and_encodings(shell, here: Path) -> None:
    (here / "crlf.txt").write_bytes(b"a\r\nb\r\n\r\nc")
    assert await shell.run("Get-Content crlf.txt") == ["a", "b", "", "c"]
    (here / "rec.txt").write_text("x;y;z")
    assert await shell.run("Get-Content rec.txt -Delimiter ';'") == ["x;", "y;", "z"]
    await shell.run("Set-Content u16.txt -Value 'héllo' -Encoding Unicode")
    assert (here / "u16.txt").read_bytes() == b"\xff\xfe" + "héllo\n".encode("utf-16-le")
    assert await shell.run("Get-Content u16.txt") == ["héllo"]
    (here / "bom.txt").write_bytes(b"\xef\xbb\xbfhi\n")
    assert await shell.run("Get-Content bom.txt") == ["hi"]
    (here / "empty.txt").write_text("")
    assert await shell.run("Get-Content empty.txt; Get-Content empty.txt -Raw") == []


async def test_missing_and_directory_paths_are_named(shell, here: Path) -> None:
    with pytest.raises(CommandError) as info:
        await shell.run("Get-Content nope.txt")
    assert shell.host.errors == [
        f"Get-Content: Cannot find path '{here / 'nope.txt'}' because it does not exist."
    ]
    assert "1 failure" in info.value.one_line()
    assert await shell.run("Get-Content nope.txt -ErrorAction SilentlyContinue; 'next'") == ["next"]
    with pytest.raises(CommandError):
        await shell.run("Get-Content .")
    assert "is a directory, not a file" in shell.host.errors[-1]


async def test_out_file(shell, here: Path) -> None:
    await shell.run("1, 2 | Out-File n.txt")
    assert (here / "n.txt").read_text() == "1\n2\n"
    await shell.run("3 | Out-File n.txt -Append")
    assert (here / "n.txt").read_text() == "1\n2\n3\n"
    await shell.run("'a', 'b' | Out-File x.txt -NoNewline")
    assert (here / "x.txt").read_text() == "ab"
    await shell.run("@{name = 'web01'} | Out-File t.txt")
    assert "web01" in (here / "t.txt").read_text()
    with pytest.raises(CommandError) as info:
        await shell.run("'z' | Out-File n.txt -NoClobber")
    assert "-NoClobber" in info.value.one_line()


async def test_new_remove_copy_move_items(shell, here: Path) -> None:
    (item,) = await shell.run("New-Item -ItemType Directory deep/er")
    assert isinstance(item, FileItem) and item.Name == "er" and item.PSIsContainer
    assert (here / "deep" / "er").is_dir()
    (f,) = await shell.run("New-Item deep/f.txt -Value hello")
    assert (f.Name, f.Length, f.Extension, f.BaseName) == ("f.txt", 5, ".txt", "f")
    kinds = await shell.run(
        "(Get-Item deep/er).GetType().Name; (Get-Item deep/f.txt).GetType().FullName"
    )
    assert kinds == ["DirectoryInfo", "System.IO.FileInfo"]  # .NET's types, as PowerShell's
    with pytest.raises(CommandError):
        await shell.run("New-Item deep/f.txt")
    assert "already exists" in shell.host.errors[-1]
    await shell.run("New-Item deep/f.txt -Force -Value again")
    assert (here / "deep" / "f.txt").read_text() == "again"
    await shell.run("Copy-Item deep/f.txt g.txt; Move-Item g.txt h.txt")
    assert (here / "h.txt").read_text() == "again" and not (here / "g.txt").exists()
    await shell.run("Copy-Item deep copy -Recurse")
    assert (here / "copy" / "f.txt").read_text() == "again"
    await shell.run("Move-Item h.txt deep")
    assert (here / "deep" / "h.txt").exists()
    with pytest.raises(CommandError):
        await shell.run("Remove-Item deep")
    assert "add -Recurse" in shell.host.errors[-1]
    await shell.run("Remove-Item deep -Recurse; Remove-Item copy/*.txt")
    assert not (here / "deep").exists()
    assert [p.name for p in (here / "copy").iterdir()] == ["er"]


async def test_get_child_item_records_and_filters(shell, here: Path) -> None:
    (here / "sub").mkdir()
    (here / "sub" / "inner.log").write_text("abc")
    (here / "b.txt").write_text("12345")
    (here / "a.log").write_text("")
    (here / ".hidden").write_text("")
    items = await shell.run("Get-ChildItem")
    assert [i.Name for i in items] == ["sub", "a.log", "b.txt"]
    sub, _, b = items
    assert (sub.Mode, sub.Length, b.Mode, b.Length) == ("d----", None, "-----", 5)
    assert isinstance(b.LastWriteTime, DateTime) and b.FullName == str(here / "b.txt")
    assert await shell.run("ls -Name -Recurse") == ["sub", "a.log", "b.txt", "sub/inner.log"]
    assert await shell.run("gci -Recurse -Filter *.log -Name") == ["a.log", "sub/inner.log"]
    assert await shell.run("gci *.log -Recurse -Name") == ["a.log", "sub/inner.log"]
    assert await shell.run("gci *.log -Name") == ["a.log"]
    assert await shell.run("dir -File -Name -Exclude a*") == ["b.txt"]
    assert await shell.run("dir -Directory -Name") == ["sub"]
    assert await shell.run("dir -Include *.txt -Name") == ["b.txt"]
    assert ".hidden" in await shell.run("dir -Force -Name")
    assert await shell.run("(Get-ChildItem -File | Sort-Object Length -Descending)[0].Name") == [
        "b.txt"
    ]
    assert await shell.run("Get-ChildItem *.log | Get-Content") == []
    assert await shell.run("Get-ChildItem sub | Get-Content") == ["abc"]


async def test_locations_cd_pushd_popd(shell, here: Path) -> None:
    (here / "sub").mkdir()
    home = here.parent / "home"
    assert await shell.run("(Get-Location).Path") == [str(here)]
    await shell.run("cd sub")
    assert shell.state.location == str(here / "sub")
    assert await shell.run("pwd") == [PathInfo(str(here / "sub"), ProviderPath=str(here / "sub"))]
    assert await shell.run('"$PWD"') == [str(here / "sub")]
    await shell.run("cd -")
    assert shell.state.location == str(here)
    await shell.run("cd +")
    assert shell.state.location == str(here / "sub")
    await shell.run("cd ~")
    assert shell.state.location == str(home)
    await shell.run("cd; Set-Location ..")
    assert shell.state.location == str(here.parent)
    await shell.run(f"cd '{here}'; pushd sub; pushd ~")
    assert await shell.run("(Get-Location -Stack).Path") == [str(here / "sub"), str(here)]
    await shell.run("popd; popd")
    assert shell.state.location == str(here)
    assert await shell.run("popd; 'still'") == ["still"]
    with pytest.raises(CommandError):
        await shell.run("cd nowhere")
    assert shell.host.errors[-1] == (
        f"Set-Location: Cannot find path '{here / 'nowhere'}' because it does not exist."
    )
    assert shell.state.location == str(here)


async def test_relative_paths_follow_the_location_in_other_commands(shell, here: Path) -> None:
    (here / "sub").mkdir()
    (here / "sub" / "data.csv").write_text("a,b\n1,2\n")
    await shell.run("cd sub; Connect-Database local.duckdb")
    assert (here / "sub" / "local.duckdb").exists()
    assert await shell.run("sql SELECT b FROM read_csv('data.csv')") == [{"b": 2}]
    assert [r["a"] for r in await shell.run("Import-Csv data.csv")] == ["1"]
    await shell.run("Import-Csv data.csv | Export-Csv copy.csv; 'x' | Tee-Object tee.txt")
    assert (here / "sub" / "copy.csv").exists() and (here / "sub" / "tee.txt").exists()
    assert [m.LineNumber for m in await shell.run("Select-String -Path data.csv -Pattern 2")] == [2]


async def test_move_item_refuses_to_replace_without_force(shell, here: Path) -> None:
    (here / "a.txt").write_text("a")
    (here / "b.txt").write_text("b")
    with pytest.raises(CommandError):
        await shell.run("Move-Item a.txt b.txt")
    assert "already exists (-Force replaces it)" in shell.host.errors[-1]
    await shell.run("Move-Item a.txt b.txt -Force")
    assert (here / "b.txt").read_text() == "a" and not (here / "a.txt").exists()


async def test_rename_item_names_in_place_and_never_replaces(shell, here: Path) -> None:
    (here / "a.txt").write_text("a")
    (here / "b.txt").write_text("b")
    (item,) = await shell.run("Rename-Item a.txt c.txt -PassThru")
    assert item.Name == "c.txt" and (here / "c.txt").read_text() == "a"
    await shell.run("Get-Item c.txt | Rename-Item -NewName ./d.txt")  # a path to the same dir
    assert sorted(p.name for p in here.iterdir()) == ["b.txt", "d.txt"]
    for src, message in [
        ("Rename-Item d.txt b.txt", "b.txt already exists"),
        ("Rename-Item d.txt ../d.txt", "-NewName is a name in the same directory"),
        ("Rename-Item *.txt e.txt", "*.txt names 2 items"),
    ]:
        with pytest.raises(CommandError) as info:
            await shell.run(src)
        assert message in info.value.one_line()
    assert (here / "b.txt").read_text() == "b" and (here / "d.txt").read_text() == "a"


async def test_clear_content_empties_files_and_keeps_them(shell, here: Path) -> None:
    (here / "a.log").write_text("one\ntwo\n")
    (here / "b.log").write_text("x")
    assert await shell.run("Clear-Content *.log; Get-ChildItem *.log | % Length") == [0, 0]
    (here / "d").mkdir()
    with pytest.raises(CommandError):
        await shell.run("Clear-Content d")
    assert "is a directory" in shell.host.errors[-1]


async def test_items_know_their_folder_and_their_dotnet_type(shell, here: Path) -> None:
    (here / "sub").mkdir()
    (here / "sub" / "f.txt").write_text("x")
    out = await shell.run(
        "$f = Get-Item sub/f.txt; $d = Get-Item sub; $f.Directory.Name; $d.Parent.FullName; "
        "$f -is [System.IO.FileInfo]; $d -is [IO.DirectoryInfo]; $f -is [IO.DirectoryInfo]; "
        "$d -is [System.IO.FileSystemInfo]; 'x' -is [System.IO.FileInfo]; "
        "$null -eq $f.Parent; $null -eq (Get-Item /).Parent"
    )
    assert out == ["sub", str(here), True, True, False, True, False, True, True]


async def test_new_temporary_file(shell) -> None:
    import tempfile

    (item,) = await shell.run("$t = New-TemporaryFile; 'x' | Set-Content $t; $t")
    try:
        assert Path(item.FullName).parent == Path(tempfile.gettempdir())
        assert item.Extension == ".tmp" and Path(item.FullName).read_text() == "x\n"
        assert await shell.run("Remove-Item $t; Test-Path $t") == [False]
    finally:
        Path(item.FullName).unlink(missing_ok=True)


CHANGES = [
    ("Remove-Item a.txt", 'Performing the operation "Remove File" on target "{d}/a.txt".'),
    ("Remove-Item sub", 'Performing the operation "Remove Directory" on target "{d}/sub".'),
    ("Copy-Item a.txt b.txt", '"Copy File" on target "Item: {d}/a.txt Destination: {d}/b.txt".'),
    ("Move-Item a.txt sub", '"Move File" on target "Item: {d}/a.txt Destination: {d}/sub/a.txt".'),
    (
        "Rename-Item a.txt c.txt",
        '"Rename File" on target "Item: {d}/a.txt Destination: {d}/c.txt".',
    ),
    ("New-Item n.txt", '"Create File" on target "Destination: {d}/n.txt".'),
    ("New-Item -ItemType Directory nd", '"Create Directory" on target "Destination: {d}/nd".'),
    ("Set-Content a.txt new", '"Set Content" on target "Path: {d}/a.txt".'),
    ("Add-Content a.txt more", '"Add Content" on target "Path: {d}/a.txt".'),
    ("Clear-Content a.txt", '"Clear Content" on target "Item: {d}/a.txt".'),
]


@pytest.mark.parametrize(("command", "says"), CHANGES, ids=[c for c, _ in CHANGES])
async def test_whatif_says_what_each_change_would_do_and_changes_nothing(
    shell, here: Path, command: str, says: str
) -> None:
    (here / "a.txt").write_text("a")
    (here / "sub").mkdir()
    before = sorted(p.name for p in here.rglob("*"))
    assert await shell.run(f"{command} -WhatIf") == []
    assert shell.host.lines[-1].startswith("What if: ")
    assert says.format(d=here) in shell.host.lines[-1]
    assert sorted(p.name for p in here.rglob("*")) == before and (here / "a.txt").read_text() == "a"
    await shell.run(f"$WhatIfPreference = $true; {command}; $WhatIfPreference = $false")
    assert sorted(p.name for p in here.rglob("*")) == before, "$WhatIfPreference"
    shell.host.answer = False
    await shell.run(f"{command} -Confirm")  # answered no
    assert sorted(p.name for p in here.rglob("*")) == before and (here / "a.txt").read_text() == "a"


async def test_confirm_answered_yes_and_whatif_false_make_the_change(shell, here: Path) -> None:
    (here / "a.txt").write_text("a")
    (here / "b.txt").write_text("b")
    shell.host.answer = True
    await shell.run("Remove-Item a.txt -Confirm")
    await shell.run("$WhatIfPreference = $true; Remove-Item b.txt -WhatIf:$false")
    assert list(here.iterdir()) == []


async def test_get_file_hash_as_sha256sum_and_md5sum_give_it(shell, here: Path) -> None:
    import hashlib

    (here / "a.bin").write_bytes(b"hello")
    (here / "sub").mkdir()
    (h,) = await shell.run("Get-FileHash a.bin")
    assert (h.Algorithm, h.Path) == ("SHA256", str(here / "a.bin"))
    assert h.Hash == hashlib.sha256(b"hello").hexdigest().upper()
    assert await shell.run("(Get-FileHash * -Algorithm md5).Hash") == [
        hashlib.md5(b"hello").hexdigest().upper()  # the directory is left out
    ]
    with pytest.raises(CommandError):
        await shell.run("Get-FileHash gone.bin")


async def test_test_path_newer_and_older_than(shell, here: Path) -> None:
    import os
    import time

    old = here / "old.log"
    old.write_text("")
    week_ago = time.time() - 7 * 86400
    os.utime(old, (week_ago, week_ago))
    (here / "new.log").write_text("")
    out = await shell.run(
        "$day = (Get-Date).AddDays(-1); Test-Path old.log -NewerThan $day; "
        "Test-Path old.log -OlderThan $day; Test-Path *.log -NewerThan $day; "
        "Test-Path new.log -OlderThan $day; Test-Path gone.log -OlderThan (Get-Date)"
    )
    assert out == [False, True, True, False, False]


async def test_setting_a_files_times_sets_them_on_disk(shell, here: Path) -> None:
    import datetime as dt

    f = here / "f.log"
    f.write_text("")
    out = await shell.run(
        "(Get-Item f.log).LastWriteTime = [datetime]'2020-01-02 03:04:05'; "
        "$i = Get-Item f.log; $i.LastAccessTime = '2021-05-06'; $i.LastAccessTime.Year; "
        "(Get-Item f.log).LastWriteTime.ToString('s')"
    )
    assert out == [2021, "2020-01-02T03:04:05"]
    assert dt.datetime.fromtimestamp(f.stat().st_mtime) == dt.datetime(2020, 1, 2, 3, 4, 5)
    assert dt.datetime.fromtimestamp(f.stat().st_atime).date() == dt.date(2021, 5, 6)


async def test_env_drive_lists_reads_creates_and_removes_variables(shell, monkeypatch) -> None:
    """The env: drive of PowerShell's Environment provider, for the item cmdlets."""
    monkeypatch.setenv("FAY_ENV_A", "1")
    monkeypatch.setenv("FAY_ENV_B", "two")
    monkeypatch.delenv("FAY_ENV_NEW", raising=False)
    listed = await shell.run("Get-ChildItem env:FAY_ENV_*")
    assert [(e.Name, e.Value, e.Key) for e in listed] == [
        ("FAY_ENV_A", "1", "FAY_ENV_A"),
        ("FAY_ENV_B", "two", "FAY_ENV_B"),
    ]
    everything = await shell.run("Get-ChildItem env:")
    assert {e.Name for e in everything} == set(os.environ)
    out = await shell.run(
        "(Get-Item env:FAY_ENV_B).Value; Get-Content Env:/FAY_ENV_A; "
        "Test-Path env:FAY_ENV_A; Test-Path env:FAY_ENV_GONE; Test-Path env: -PathType Container; "
        "Get-ChildItem env:FAY_ENV_A -Name"
    )
    assert out == ["two", "1", True, False, True, "FAY_ENV_A"]
    await shell.run("New-Item env:FAY_ENV_NEW -Value 42 | Out-Null")
    assert os.environ["FAY_ENV_NEW"] == "42"
    assert await shell.run("$env:FAY_ENV_NEW") == ["42"]
    await shell.run("Remove-Item env:FAY_ENV_NEW, env:FAY_ENV_A -WhatIf")
    assert "FAY_ENV_A" in os.environ and shell.host.lines[-1].startswith("What if:")
    await shell.run("Remove-Item env:FAY_ENV_NEW")
    assert "FAY_ENV_NEW" not in os.environ
    with pytest.raises(FayError, match="env:FAY_ENV_GONE"):
        await shell.run("Get-Item env:FAY_ENV_GONE")


async def test_a_missing_directory_on_the_way_is_named(shell, here: Path) -> None:
    """A write whose directory does not exist says which path, in .NET's words ("no such
    file or directory" did not say which of the two paths of a copy)."""
    (here / "a.txt").write_text("x")
    await shell.run("$ErrorActionPreference = 'Continue'")
    await shell.run(f"Copy-Item a.txt '{here / 'no' / 'dir'}/'; 'x' | Set-Content no/y.txt")
    assert shell.host.errors[-2] == (
        f"Copy-Item: {here / 'a.txt'}: Could not find a part of the path '{here / 'no' / 'dir'}'."
    )
    assert shell.host.errors[-1] == (
        f"Set-Content: Could not find a part of the path '{here / 'no' / 'y.txt'}'."
    )


async def test_variable_and_function_drives(shell) -> None:
    """about_Providers: Test-Path variable:x (how scripts ask if a variable is set) was a
    file path; function: and variable: items, and Set-Item, did not exist."""
    out = await shell.run(
        "$x = 2; function f { 'f' }; Test-Path variable:x; Test-Path variable:nope; "
        "Test-Path function:f; Test-Path function:nope; (Get-Item variable:x).Value; "
        "(Get-ChildItem variable: | Where-Object Name -eq 'x').Value; "
        "Get-ChildItem function:f -Name; Set-Item function:hello -Value { 'hi' }; hello; "
        "Set-Item variable:y 7; $y; Set-Item env:FAY_SET_ITEM v; $env:FAY_SET_ITEM; "
        "Remove-Item function:hello, variable:y, env:FAY_SET_ITEM; "
        "Test-Path function:hello; Test-Path variable:y; $null -eq $env:FAY_SET_ITEM; "
        "New-Item variable:z -Value 3 | Out-Null; $z"
    )
    assert out == [True, False, True, False, 2, 2, "f", "hi", 7, "v", False, False, True, 3]
    with pytest.raises(FayError, match=r"1 failure \(variable:nope\)"):
        await shell.run("Get-Item variable:nope")
    with pytest.raises(FayError, match="must be a script block"):
        await shell.run("Set-Item function:bad 42")


async def test_get_item_needs_a_path(shell, here: Path) -> None:
    with pytest.raises(FayError, match="missing mandatory parameter -Path"):
        await shell.run("Get-Item")  # PowerShell's -Path is mandatory; '.' must be written
    assert [i.Name for i in await shell.run("Get-Item .")] == [here.name]


async def test_get_content_wait_goes_on_with_each_line_written(shell, tmp_path) -> None:
    import asyncio

    log = tmp_path / "app.log"
    log.write_text("old\nlast\n")
    reading = asyncio.ensure_future(
        shell.run(f"Get-Content '{log}' -Wait -Tail 1 | Select-Object -First 4")
    )
    await asyncio.sleep(0.4)
    with open(log, "a") as f:
        f.write("new1\nhalf")  # a line without its end waits for it
        f.flush()
        await asyncio.sleep(0.4)
        f.write(" done\r\n")
    await asyncio.sleep(0.4)
    log.write_text("again\n")  # truncated and written again (a rotation): read from the start
    # Select-Object -First stops the reading at its 4th line, not at a 5th that never comes
    assert await asyncio.wait_for(reading, 20) == ["last", "new1", "half done", "again"]


async def test_bytes_of_a_file(shell, tmp_path) -> None:
    f = tmp_path / "b.bin"
    out = await shell.run(
        f"[IO.File]::WriteAllBytes('{f}', @(0, 1, 2, 200, 255)); "
        f"$b = [IO.File]::ReadAllBytes('{f}'); $b.GetType().Name; $b[3].GetType().Name; "
        f"(Get-Content '{f}' -AsByteStream) -join ','; "
        f"(Get-Content '{f}' -AsByteStream -TotalCount 2) -join ','; "
        f"(Get-Content '{f}' -AsByteStream -Tail 2) -join ','; "
        f"(Get-Content '{f}' -AsByteStream -Raw).Count; $b[3] + 100; "
        f"Get-Content '{f}' -AsByteStream | Format-Hex | % {{ $_.Label.Split(' ')[0] + ' ' + $_.HexBytes }}"
    )
    assert out == [
        "Byte[]",
        "Byte",
        "0,1,2,200,255",
        "0,1",
        "200,255",
        5,
        300,
        "Byte 00 01 02 C8 FF",
    ]
    assert f.read_bytes() == bytes([0, 1, 2, 200, 255])
    caught = await shell.run(
        f"try {{ [IO.File]::WriteAllBytes('{f}', @(300)) }} catch {{ $_.FullyQualifiedErrorId }}"
    )
    assert caught == ["OverflowException"]
    copy = tmp_path / "copy.bin"
    await shell.run(
        f"Get-Content '{f}' -AsByteStream -Raw | Set-Content '{copy}' -AsByteStream; "
        f"Add-Content '{copy}' -Value 9, 10 -AsByteStream"
    )
    assert copy.read_bytes() == bytes([0, 1, 2, 200, 255, 9, 10])
    with pytest.raises(FayError, match='Cannot convert value "300" to type "System.Byte"'):
        await shell.run(f"Set-Content '{copy}' -Value 300 -AsByteStream")


async def test_delay_bind_script_blocks_run_for_each_piped_item(shell, tmp_path) -> None:
    """about_Script_Blocks: a script block given to a parameter that takes pipeline input is
    run for each item ($_); before, Rename-Item named the file after the block's text."""
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(name)
    await shell.run(
        f"Get-ChildItem '{tmp_path}' -Filter *.txt | Copy-Item -Destination {{ $_.FullName + '.bak' }}"
    )
    await shell.run(
        f"Get-ChildItem '{tmp_path}' -Filter *.txt | Rename-Item -NewName {{ $_.BaseName + '.log' }}"
    )
    await shell.run(
        f"Get-ChildItem '{tmp_path}' -Filter *.bak | "
        f"Move-Item -Destination {{ Join-Path '{tmp_path}' ('old-' + $_.Name) }}"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a.log",
        "b.log",
        "old-a.txt.bak",
        "old-b.txt.bak",
    ]
    assert (tmp_path / "old-b.txt.bak").read_text() == "b.txt"
    with pytest.raises(ParameterError, match="its argument is specified as a script block and"):
        await shell.run(f"Rename-Item '{tmp_path / 'a.log'}' -NewName {{ 'x' }}")
    assert (tmp_path / "a.log").exists()


async def test_convert_path_gives_full_paths_as_text(shell, tmp_path) -> None:
    for name in ("a.log", "b.log"):
        (tmp_path / name).write_text("")
    out = await shell.run(f"Set-Location '{tmp_path}'; Convert-Path *.log; Convert-Path ..")
    assert out == [str(tmp_path / "a.log"), str(tmp_path / "b.log"), str(tmp_path.parent)]
    out = await shell.run("try { Convert-Path ./missing } catch { $_.FullyQualifiedErrorId }")
    assert out == ["PathNotFound,Microsoft.PowerShell.Commands.ConvertPathCommand"]


async def test_item_properties_and_their_values(shell, tmp_path) -> None:
    f = tmp_path / "data.bin"
    f.write_bytes(b"12345")
    out = await shell.run(
        f"$p = Get-ItemProperty '{f}' -Name length, Name; $p.Length; $p.Name; "
        f"Get-ItemPropertyValue '{f}' -Name Length, Extension; "
        "Get-ItemPropertyValue env:HOME -Name Value"
    )
    assert out == [5, "data.bin", 5, ".bin", str(os.environ["HOME"])]
    with pytest.raises(CommandError, match=r"Get-ItemPropertyValue: Property Nope does not exist"):
        await shell.run(f"Get-ItemPropertyValue '{f}' -Name Nope")


async def test_a_change_made_under_verbose_says_what_it_did(shell, tmp_path) -> None:
    """ShouldProcess under -Verbose: "Performing the operation ..." for each change that goes
    ahead (a cmdlet's, and an advanced function's $PSCmdlet.ShouldProcess); none without it."""
    f = tmp_path / "gone.txt"
    f.write_text("x")
    await shell.run(
        f"Remove-Item '{f}' -Verbose; "
        "function Zap { [CmdletBinding(SupportsShouldProcess)] param() "
        "if ($PSCmdlet.ShouldProcess('thing', 'Zap')) { 'zapped' } }; Zap -Verbose; Zap"
    )
    assert shell.host.verbose_lines == [
        f'Performing the operation "Remove File" on target "{f}".',
        'Performing the operation "Zap" on target "thing".',
    ]
    assert not f.exists()


async def test_files_show_in_powershells_unix_view(shell, tmp_path) -> None:
    """PowerShell's table of files on Unix: a "Directory:" line over each directory's items,
    then UnixMode, User, Group, LastWriteTime (M/d/yyyy HH:mm), Size and Name (a link's
    target after ->) in its fixed widths."""
    import os
    import pwd

    (tmp_path / "a.txt").write_text("abc")
    (tmp_path / "a.txt").chmod(0o644)
    os.utime(tmp_path / "a.txt", (1704067200, 1704067200))  # 2024-01-01 00:00 UTC
    (tmp_path / "ln").symlink_to(tmp_path / "a.txt")
    text = await shell.text(f"Get-ChildItem '{tmp_path}' | Sort-Object Name")
    lines = text.splitlines()
    user = pwd.getpwuid(os.getuid()).pw_name
    assert lines[:5] == [
        "",
        f"    Directory: {tmp_path}",
        "",
        "UnixMode         User Group         LastWriteTime         Size Name",
        "--------         ---- -----         -------------         ---- ----",
    ]
    row = lines[5]
    assert row.startswith("-rw-r--r--") and row.endswith("           3 a.txt")
    assert row[11:21] == user[:10].rjust(10)
    assert lines[6].startswith("lrwxrwxrwx") and lines[6].endswith(f"ln -> {tmp_path / 'a.txt'}")


async def test_format_table_of_files_is_their_view(shell, tmp_path) -> None:
    """ls | ft is the same Unix view as ls (PowerShell's Format-Table uses the type's view);
    named columns or -HideTableHeaders lay out the properties."""
    (tmp_path / "a.txt").write_text("abc")
    plain = await shell.text(f"Get-ChildItem '{tmp_path}'")
    assert await shell.text(f"Get-ChildItem '{tmp_path}' | Format-Table") == plain
    named = await shell.text(f"Get-ChildItem '{tmp_path}' | Format-Table Name, Size")
    assert named.splitlines()[1:4] == ["Name  Size", "----  ----", "a.txt    3"]
    bare = await shell.run(f"Get-ChildItem '{tmp_path}' | Format-Table -HideTableHeaders")
    assert len(bare) == 1 and bare[0].split()[-2:] == ["3", "a.txt"]
