"""``[xml]`` and Select-Xml: PowerShell's XML adapter over ElementTree (fayshell/lang/xmldoc.py),
on text, files and LTTng's own machine-interface output."""

from __future__ import annotations

import re
import subprocess

import pytest

from fayshell.errors import CommandError, RuntimeFayError
from fayshell.lang import xmldoc
from fayshell.lang.values import NetException

DOC = (
    '<?xml version="1.0"?><sessions><session name="s1"><enabled>true</enabled>'
    '<channel id="1">ch</channel></session><session name="s2"><enabled>false</enabled>'
    "<empty/></session></sessions>"
)


async def test_attributes_and_children_are_properties(shell) -> None:
    """An element's attributes and child elements are its properties; a child with neither
    attributes nor children reads as its text ('' when empty); several are an array."""
    out = await shell.run(
        f"$x = [xml]'{DOC}'; $x.GetType().Name; $x.xml; $x.sessions.session.Count; "
        "$x.sessions.session[0].name; $x.sessions.session[0].enabled; "
        "$x.sessions.session[1].empty -eq ''; $x.sessions.session[0].channel.id; "
        "$x.sessions.session[0].channel.'#text'; $x.sessions.session[0].GetType().FullName; "
        "($x.sessions.session | Where-Object enabled -eq 'true').name; $x -is [xml]"
    )
    assert out == [
        "XmlDocument",
        'version="1.0"',
        2,
        "s1",
        "true",
        True,
        "1",
        "ch",
        "System.Xml.XmlElement",
        "s1",
        True,
    ]


async def test_elements_show_as_tables_of_their_properties(shell) -> None:
    """Columns from the first element's attributes and children, as for any objects."""
    text = await shell.run(f"([xml]'{DOC}').sessions.session | Format-Table | Out-String")
    lines = [line.rstrip() for line in text[0].splitlines() if line.strip()]
    assert lines[0].split() == ["name", "enabled", "channel"]
    assert lines[2].split() == ["s1", "true", "channel"]


async def test_xpath_selects_elements_and_attributes(shell) -> None:
    out = await shell.run(
        f"$x = [xml]'{DOC}'; $x.SelectNodes('//session').Count; "
        "$x.SelectSingleNode(\"//session[@name='s2']/enabled\").InnerText; "
        "($x.SelectNodes('//session/@name') | ForEach-Object Value) -join ','; "
        "$x.sessions.session[0].SelectNodes('channel').Count"
    )
    assert out == [2, "false", "s1,s2", 1]
    with pytest.raises(RuntimeFayError, match="not an XPath fayshell can evaluate"):
        await shell.run("([xml]'<a/>').SelectNodes('//b[contains(., \"x\")]')")


async def test_changes_to_attributes_text_and_children(shell, tmp_path) -> None:
    saved = tmp_path / "out.xml"
    out = await shell.run(
        "$x = [xml]'<a><b id=\"1\"/><t>old</t></a>'; $x.a.b.id = 7; $x.a.t = 'new'; "
        "$x.a.b.SetAttribute('k', 'v'); $c = $x.CreateElement('c'); $c.InnerText = 'hi'; "
        f"[void]$x.a.AppendChild($c); $x.OuterXml; $x.a.c; $x.Save('{saved}'); "
        f"([xml](Get-Content '{saved}')).a.b.k"
    )
    assert out == ['<a><b id="7" k="v" /><t>new</t><c>hi</c></a>', "hi", "v"]


async def test_xml_that_does_not_parse_says_where(shell) -> None:
    with pytest.raises(RuntimeFayError, match=r'type "System.Xml.XmlDocument".*line 1, column 8'):
        await shell.run("[xml]'<a><b></a>'")


async def test_select_xml_in_files_text_and_documents(shell, tmp_path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuite><testcase name="a"/><testcase name="b"><failure>boom</failure>'
        "</testcase></testsuite>\n"
    )
    out = await shell.run(
        f"(Select-Xml -Path '{report}' -XPath '//testcase[failure]').Node.name; "
        f"(Select-Xml -Path '{report}' -XPath '//testcase')[0].Path; "
        "Select-Xml -Content '<r xmlns=\"urn:x\"><i>1</i></r>' -XPath '//x:i' "
        "-Namespace @{ x = 'urn:x' } | ForEach-Object { $_.Node.InnerText }; "
        "([xml]'<a><b k=\"1\"/><b k=\"2\"/></a>' | Select-Xml '//b/@k').Node.Value -join ','"
    )
    assert out == ["b", str(report), "1", "1,2"]
    bad = tmp_path / "bad.xml"
    bad.write_text("<a><b>\n")
    with pytest.raises(CommandError, match=re.escape(f"{bad}: no element found")):
        await shell.run(f"Select-Xml -Path '{bad}' -XPath '//a'")


async def test_lttngs_machine_interface_reads_as_xml(shell) -> None:
    """LTTng's --mi xml output, from a real lttng run on the node: namespaced elements read
    by their local names."""
    version = subprocess.run(
        ["lttng", "--version"], capture_output=True, text=True, check=True
    ).stdout
    expected = re.search(r"(\d+)\.(\d+)", version)
    assert expected is not None
    out = await shell.run(
        "$x = [xml](Invoke-Command -Node localhost 'lttng --mi xml version').stdout; "
        "$x.command.name; $x.command.output.version.major; $x.command.output.version.minor"
    )
    assert out == ["version", expected.group(1), expected.group(2)]


def test_the_adapter_without_the_language() -> None:
    doc = xmldoc.parse("<a x='1'><b>t</b><b>u</b></a>")
    root = doc.ps_get("a")
    assert isinstance(root, xmldoc.XmlElement)
    assert root.ps_names() == ["x", "b"]
    assert root.ps_get("x") == "1" and root.ps_get("B") == ["t", "u"]
    assert root.ps_get("missing") is xmldoc.MISSING
    with pytest.raises(NetException, match="mismatched tag"):
        xmldoc.parse("<a></b>")


async def test_convert_to_xml_writes_objects_and_their_properties(shell) -> None:
    out = await shell.run(
        "[pscustomobject]@{ a = 1; b = 'x<y'; c = $null } | ConvertTo-Xml -As String; "
        "(1, 'a' | ConvertTo-Xml).Objects.Object.Type -join ','; "
        "(1, 2 | ConvertTo-Xml -As Stream -NoTypeInformation)[2]"
    )
    assert out[0].splitlines() == [
        '<?xml version="1.0" encoding="utf-8"?>',
        "<Objects>",
        '  <Object Type="System.Management.Automation.PSCustomObject">',
        '    <Property Name="a" Type="System.Int32">1</Property>',
        '    <Property Name="b" Type="System.String">x&lt;y</Property>',
        '    <Property Name="c" />',
        "  </Object>",
        "</Objects>",
    ]
    assert out[1:] == ["System.Int32,System.String", "  <Object>1</Object>"]


async def test_get_member_lists_an_elements_own_and_dotnet_members_once(shell) -> None:
    out = await shell.run(
        "$m = ([xml]'<a id=\"1\"><b/></a>').a | Get-Member; "
        "($m | Where-Object MemberType -eq Property).Name -join ','; "
        "@($m | Where-Object Name -in 'SelectNodes', 'ToString', 'GetElementsByTagName').Count"
    )
    assert {"id", "b", "InnerText", "OuterXml"} <= set(out[0].split(","))
    assert out[1] == 3
