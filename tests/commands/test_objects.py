"""Get-Member, Add-Member, New-Object, Compare-Object, Get-Unique, Tee-Object."""

from __future__ import annotations

import pytest

from fayshell.errors import FayError

OBJ = "[pscustomobject]@{b=1; a='x'; c=@(1,2); d=$null; e=2.5; f=$true}"


async def test_get_member_on_a_record_as_powershell_lists_it(shell) -> None:
    members = await shell.run(f"{OBJ} | Get-Member")
    assert [(m.Name, m.MemberType) for m in members] == [
        ("Equals", "Method"),
        ("GetHashCode", "Method"),
        ("GetType", "Method"),
        ("ToString", "Method"),
        ("a", "NoteProperty"),
        ("b", "NoteProperty"),
        ("c", "NoteProperty"),
        ("d", "NoteProperty"),
        ("e", "NoteProperty"),
        ("f", "NoteProperty"),
    ]
    defs = {m.Name: m.Definition for m in members}
    assert (defs["a"], defs["b"], defs["c"], defs["d"], defs["e"], defs["f"]) == (
        "string a=x",
        "int b=1",
        "Object[] c=System.Object[]",
        "object d=null",
        "double e=2.5",
        "bool f=True",
    )
    assert {m.TypeName for m in members} == {"System.Management.Automation.PSCustomObject"}
    text = await shell.text(f"{OBJ} | Get-Member -MemberType NoteProperty -Name [ab]")
    assert text.splitlines() == [
        "",
        "   TypeName: System.Management.Automation.PSCustomObject",
        "",
        "Name MemberType   Definition",
        "---- ----------   ----------",
        "a    NoteProperty string a=x",
        "b    NoteProperty int b=1",
    ]


async def test_get_member_filters_and_one_set_per_type(shell) -> None:
    names = await shell.run("'x', 'y', 1 | Get-Member -MemberType Property | % Name")
    assert names == ["Length"]
    types = await shell.run("'x', 'y', 1 | Get-Member | % TypeName | Get-Unique")
    assert types == ["System.String", "System.Int32"]
    assert await shell.run(
        "'ab' | Select-String b | Get-Member -MemberType Property | % TypeName | Get-Unique"
    ) == ["Microsoft.PowerShell.Commands.MatchInfo"]
    assert await shell.run("'a' | Group-Object | Get-Member -MemberType Property | % Name") == [
        "Count",
        "Group",
        "Name",
        "Values",
    ]
    assert await shell.run(f"{OBJ} | Get-Member -MemberType Methods -Name To* | % Name") == [
        "ToString"
    ]
    with pytest.raises(FayError) as info:
        await shell.run("$null | Get-Member")
    assert "you must specify an object" in info.value.one_line()


async def test_get_member_on_a_relation_names_columns_and_duckdb_types(shell) -> None:
    src = "sql SELECT 1::BIGINT AS dur_ns, 'r' AS name, 2.5::DOUBLE AS x"
    members = await shell.run(f"{src} | Get-Member")
    assert [(m.Name, m.MemberType, m.Definition) for m in members] == [
        ("dur_ns", "Property", "BIGINT dur_ns"),
        ("name", "Property", "VARCHAR name"),
        ("x", "Property", "DOUBLE x"),
    ]
    assert await shell.run(f"{src} | Get-Member -Name n* | % Name") == ["name"]


async def test_add_member_forms(shell) -> None:
    out = await shell.run(
        "$o = [pscustomobject]@{a=1}; "
        "$o | Add-Member -NotePropertyName b -NotePropertyValue 2; "
        "$o | Add-Member -MemberType NoteProperty -Name c -Value 3; "
        "Add-Member -InputObject $o -NotePropertyMembers @{d=4}; "
        "$o | Add-Member e 5; $o"
    )
    assert out == [{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}]
    assert await shell.run(
        "[pscustomobject]@{a=1} | Add-Member -NotePropertyName b "
        "-NotePropertyValue 2 -PassThru | % b"
    ) == [2]
    assert await shell.run(
        "[pscustomobject]@{a=1} | Add-Member AliasProperty x a -PassThru | % x"
    ) == [1]
    assert await shell.run(
        "[pscustomobject]@{a=1} | Add-Member -NotePropertyName a "
        "-NotePropertyValue 9 -Force -PassThru"
    ) == [{"a": 9}]


async def test_add_member_errors_are_one_line(shell) -> None:
    with pytest.raises(FayError) as info:
        await shell.run(
            "[pscustomobject]@{a=1} | Add-Member -NotePropertyName a -NotePropertyValue 2"
        )
    assert "already exists; use -Force" in info.value.one_line()
    with pytest.raises(FayError) as info:
        await shell.run(
            "[pscustomobject]@{a=1} | Add-Member -MemberType ScriptProperty -Name m -Value { 1 }"
        )
    assert "ScriptProperty members are not supported" in info.value.one_line()
    with pytest.raises(FayError, match="to a \\[pscustomobject\\], not a System.Collections"):
        await shell.run("@{} | Add-Member ScriptMethod m { 1 }")
    with pytest.raises(FayError, match="a ScriptMethod's value is a script block"):
        await shell.run("[pscustomobject]@{} | Add-Member ScriptMethod m 1")
    with pytest.raises(FayError) as info:
        await shell.run("'text' | Add-Member -NotePropertyName a -NotePropertyValue 1")
    assert "cannot add a member to a string" in info.value.one_line()


async def test_add_member_script_method_runs_with_this(shell) -> None:
    out = await shell.run(
        "$c = [pscustomobject]@{ n = 0; step = 5 }; "
        "$c | Add-Member ScriptMethod Bump { param($by) $this.n += $by * $this.step }; "
        "Add-Member -InputObject $c -MemberType ScriptMethod -Name Twice -Value { $this.n * 2 }; "
        "$c.Bump(1); $c.bump(2); $c.n; $c.Twice(); "
        "($c | Get-Member -MemberType ScriptMethod).Name; $c.psobject.Properties.Name"
    )
    assert out == [15, 30, "Bump", "Twice", "n", "step"]  # methods are not properties
    with pytest.raises(FayError, match="already exists"):
        await shell.run("$c | Add-Member ScriptMethod Twice { 0 }")
    assert await shell.run("$c | Add-Member ScriptMethod Twice { 0 } -Force; $c.Twice()") == [0]


async def test_new_object(shell) -> None:
    assert await shell.run("New-Object PSObject -Property @{a=1}") == [{"a": 1}]
    assert await shell.run("(New-Object -TypeName PSCustomObject -Property @{a=1}).a") == [1]
    assert await shell.run("(New-Object System.Collections.ArrayList).Count") == [0]
    with pytest.raises(FayError) as info:
        await shell.run("New-Object System.Net.WebClient")
    assert "is not available in fayshell" in info.value.one_line()


async def test_compare_object_sides_and_order(shell) -> None:
    text = await shell.text(
        "Compare-Object -ReferenceObject 'dog','squirrel','bird' "
        "-DifferenceObject 'cat','bird','racoon'"
    )
    assert text.splitlines() == [
        "",
        "InputObject SideIndicator",
        "----------- -------------",
        "cat         =>",
        "racoon      =>",
        "dog         <=",
        "squirrel    <=",
    ]
    out = await shell.run("Compare-Object 1,2,3 2,3,4 -IncludeEqual")
    assert [(r["InputObject"], r["SideIndicator"]) for r in out] == [
        (2, "=="),
        (3, "=="),
        (4, "=>"),
        (1, "<="),
    ]
    out = await shell.run("Compare-Object 1,2,3 2,3,4 -ExcludeDifferent")
    assert [r["SideIndicator"] for r in out] == ["==", "=="]
    assert await shell.run("Compare-Object 'A' 'a'") == []
    assert len(await shell.run("Compare-Object 'A' 'a' -CaseSensitive")) == 2
    assert await shell.run("2,5 | Compare-Object 1,2 | % InputObject") == [5, 1]
    out = await shell.run("Compare-Object 'a','b','c','d' 'd','C','b','x' -IncludeEqual")
    assert [(r["InputObject"], r["SideIndicator"]) for r in out] == [
        ("b", "=="),
        ("c", "=="),
        ("d", "=="),
        ("x", "=>"),
        ("a", "<="),
    ]


async def test_compare_object_property_and_passthru(shell) -> None:
    ref = "@{n='a'; v=1}, @{n='b'; v=2}"
    dif = "@{n='a'; v=9}, @{n='c'; v=3}"
    out = await shell.run(f"Compare-Object ({ref}) ({dif}) -Property n")
    assert out == [{"n": "c", "SideIndicator": "=>"}, {"n": "b", "SideIndicator": "<="}]
    out = await shell.run(f"Compare-Object ({ref}) ({dif}) -Property n -PassThru")
    assert out == [
        {"n": "c", "v": 3, "SideIndicator": "=>"},
        {"n": "b", "v": 2, "SideIndicator": "<="},
    ]
    with pytest.raises(FayError) as info:
        await shell.run("Compare-Object $null 1")
    assert "ReferenceObject" in info.value.one_line()


async def test_get_unique_on_sorted_input(shell) -> None:
    assert await shell.run("1,1,2,2,2,3,1 | Get-Unique") == [1, 2, 3, 1]
    assert await shell.run("'a','A','a' | Get-Unique") == ["a", "A", "a"]
    assert await shell.run("'b','a','B','a' | Sort-Object | Get-Unique -CaseInsensitive") == [
        "a",
        "b",
    ]
    assert await shell.run("1,'1',2 | Get-Unique -AsString") == [1, 2]
    assert await shell.run("1,'1',1.0,2 | Get-Unique") == [1, 2]
    assert await shell.run("1,2,'x','y',3 | Get-Unique -OnType") == [1, "x", 3]


async def test_tee_object_variable_and_file(shell, tmp_path) -> None:
    assert await shell.run("1..3 | Tee-Object -Variable t | % { $_ * 2 }") == [2, 4, 6]
    assert await shell.run("$t") == [1, 2, 3]
    path = tmp_path / "tee.txt"
    assert await shell.run(f"'a','b' | Tee-Object -FilePath '{path}'") == ["a", "b"]
    await shell.run(f"'c' | Tee-Object '{path}' -Append | Out-Null")
    assert path.read_text() == "a\nb\nc\n"
    with pytest.raises(FayError):
        await shell.run("1 | Tee-Object")


async def test_get_random_numbers_items_and_seed(shell) -> None:
    first = await shell.run("Get-Random -SetSeed 7 -Maximum 100 -Count 5")
    assert first == await shell.run("Get-Random -SetSeed 7 -Maximum 100 -Count 5")  # repeatable
    assert all(isinstance(n, int) and 0 <= n < 100 for n in first)
    doubles = await shell.run("Get-Random -Minimum 1.5 -Maximum 2 -Count 20")
    assert all(isinstance(x, float) and 1.5 <= x < 2 for x in doubles)
    assert await shell.run("Get-Random -Minimum 3 -Maximum 4") == [3]
    picked = await shell.run("1..10 | Get-Random -Count 4")
    assert len(set(picked)) == 4 and set(picked) <= set(range(1, 11))  # no repeats
    assert sorted(await shell.run("Get-Random -InputObject a,b,c -Shuffle")) == ["a", "b", "c"]
    assert (await shell.run("Get-Random 'x','y'"))[0] in ("x", "y")  # a list: its items
    assert len(await shell.run("1..3 | Get-Random -Count 10")) == 3
    for src, message in [
        ("Get-Random -Minimum 5 -Maximum 5", "The Minimum value (5) cannot be greater than"),
        ("1..3 | Get-Random -Maximum 2", "give items or -Minimum/-Maximum, not both"),
        ("Get-Random -Count 0", "0 is less than 1"),
    ]:
        with pytest.raises(FayError) as info:
            await shell.run(src)
        assert message in info.value.one_line()


async def test_new_guid_is_a_version_4_guid(shell) -> None:
    import uuid

    (g,) = await shell.run("New-Guid")
    assert uuid.UUID(g.Guid).version == 4
    texts = await shell.run('$g = New-Guid; "$g"; $g.ToString(); $g.Guid')
    assert len(set(texts)) == 1 and uuid.UUID(texts[0])


async def test_get_secure_random_takes_get_randoms_forms_but_no_seed(shell) -> None:
    out = await shell.run(
        "Get-SecureRandom -Minimum 7 -Maximum 8; (1..10 | Get-SecureRandom -Count 10 | "
        "Sort-Object) -join ','; (Get-SecureRandom -Maximum 1.0) -lt 1.0"
    )
    assert out == [7, "1,2,3,4,5,6,7,8,9,10", True]
    with pytest.raises(FayError, match="Get-SecureRandom -SetSeed: no such parameter"):
        await shell.run("Get-SecureRandom -SetSeed 1")
    with pytest.raises(FayError, match="Get-SecureRandom: The Minimum value"):
        await shell.run("Get-SecureRandom -Minimum 3 -Maximum 3")
