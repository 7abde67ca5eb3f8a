"""CLIXML on its own (the document PowerShell writes, read back; a document PowerShell wrote) and
Export-Clixml / Import-Clixml in a shell."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from fayshell.commands import clixml
from fayshell.errors import FayError
from fayshell.lang.values import Char, Hashtable, PSCustomObject, TimeSpan


def test_values_round_trip() -> None:
    when = dt.datetime(2024, 1, 2, 3, 4, 5, 600000)
    item = PSCustomObject(
        {
            "s": "a<b & _x0041_ \n",
            "i": 1,
            "big": 5_000_000_000,
            "d": 0.25,
            "m": Decimal("1.50"),
            "b": False,
            "n": None,
            "c": Char("z"),
            "t": TimeSpan(90_500_000_000),
            "when": when,
            "list": [1, "x", [2]],
            "map": Hashtable({"k": "v"}),
        }
    )
    (back,) = clixml.loads(clixml.dumps([item], depth=3))
    assert dict(back) == {**item, "when": when}
    assert isinstance(back["c"], Char) and isinstance(back["t"], TimeSpan)
    assert isinstance(back["map"], Hashtable)


def test_the_document_is_powershells() -> None:
    text = clixml.dumps([PSCustomObject({"Name": "a"}), PSCustomObject({"Name": "b"}), "s"])
    assert text.splitlines() == [
        '<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">',
        '  <Obj RefId="0">',
        '    <TN RefId="0">',
        "      <T>System.Management.Automation.PSCustomObject</T>",
        "      <T>System.Object</T>",
        "    </TN>",
        "    <MS>",
        '      <S N="Name">a</S>',
        "    </MS>",
        "  </Obj>",
        '  <Obj RefId="1">',
        '    <TNRef RefId="0" />',  # the same type names: written once
        "    <MS>",
        '      <S N="Name">b</S>',
        "    </MS>",
        "  </Obj>",
        "  <S>s</S>",
        "</Objs>",
    ]


def test_depth_cuts_deeper_objects_to_their_text() -> None:
    deep = PSCustomObject({"a": PSCustomObject({"b": PSCustomObject({"c": 1})})})
    (back,) = clixml.loads(clixml.dumps([deep], depth=1))
    assert back["a"] == "@{b=@{c=1}}"


def test_a_document_powershell_wrote_reads() -> None:
    text = (
        '<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">'
        '<Obj RefId="0"><TN RefId="0"><T>System.Diagnostics.Process</T><T>System.Object</T></TN>'
        '<ToString>System.Diagnostics.Process (pwsh)</ToString><Props><S N="Name">pwsh</S>'
        '<I32 N="Id">42</I32><DT N="StartTime">2024-05-06T07:08:09.1234567+02:00</DT></Props>'
        '</Obj><Obj RefId="1"><TNRef RefId="0" /><ToString>x</ToString></Obj>'
        "<Nil /><By>7</By><G>0f8fad5b-d9cb-469f-a165-70867728950e</G></Objs>"
    )
    proc, plain, nil, byte, guid = clixml.loads(text)
    assert (proc["Name"], proc["Id"], proc["StartTime"].year) == ("pwsh", 42, 2024)
    assert (plain, nil, byte, str(guid)) == ("x", None, 7, "0f8fad5b-d9cb-469f-a165-70867728950e")
    with pytest.raises(clixml.ClixmlError, match="not CLIXML: the root element is <a>"):
        clixml.loads("<a/>")
    with pytest.raises(clixml.ClixmlError, match="<I32> holds 'x'"):
        clixml.loads(f'<Objs xmlns="{clixml.NS}"><I32>x</I32></Objs>')


async def test_export_and_import_in_a_shell(shell, tmp_path) -> None:
    f = tmp_path / "found.xml"
    out = await shell.run(
        "$o = [pscustomobject]@{ node = 'web01'; dur = 2.5; when = [datetime]'2024-01-02'; "
        "took = New-TimeSpan -Seconds 90; tags = @('slow', 'io') }; "
        f"$o, [pscustomobject]@{{ node = 'web02' }} | Export-Clixml '{f}'; "
        f"$back = Import-Clixml '{f}'; $back.Count; $back[0].node; $back[0].took.TotalSeconds; "
        "$back[0].tags -join ','; $back[0].when.Day; $back[1].node; "
        f"(Import-Clixml '{f}' -Skip 1 -First 1).node"
    )
    assert out == [2, "web01", 90.0, "slow,io", 2, "web02", "web02"]
    with pytest.raises(FayError, match="already exists"):
        await shell.run(f"1 | Export-Clixml '{f}' -NoClobber")
    (tmp_path / "bad.xml").write_text("<a/>")
    with pytest.raises(FayError, match="bad.xml: not CLIXML"):
        await shell.run(f"Import-Clixml '{tmp_path / 'bad.xml'}'")
