"""[uri], [ipaddress], [System.Net.Dns] and [BitConverter] (fayshell/lang/netaddr.py): the
module's values alone, then in a real shell (casts, statics, -is, how they show, errors)."""

from __future__ import annotations

import pytest

from fayshell.errors import RuntimeFayError
from fayshell.lang.integers import Int16
from fayshell.lang.netaddr import Uri, get_bytes, to_ip
from fayshell.render import render_plain
from tests.fixtures.shell import Shell


def test_a_uri_has_dotnets_parts() -> None:
    u = Uri("HTTP://User@Node1.Example:8443/a/b%20c?q=1#top")
    assert (u.Scheme, u.Host, u.Port, u.UserInfo) == ("http", "node1.example", 8443, "User")
    assert (u.AbsolutePath, u.LocalPath, u.Query, u.Fragment) == (
        "/a/b%20c",
        "/a/b c",
        "?q=1",
        "#top",
    )
    assert u.Segments == ["/", "a/", "b%20c"] and u.Authority == "node1.example:8443"
    assert Uri("https://h").Port == 443 and Uri("https://h").AbsolutePath == "/"
    assert not Uri("relative/path").IsAbsoluteUri and str(Uri("relative/path")) == "relative/path"


def test_ip_addresses_and_bytes() -> None:
    assert to_ip("10.0.0.1").Address == 16777226  # .NET reads the four bytes little-endian
    assert to_ip("::1").AddressFamily == "InterNetworkV6" and to_ip("::1").Address is None
    assert list(get_bytes(Int16(258))) == [2, 1] and list(get_bytes(1.0))[-1] == 0x3F


async def test_in_a_shell(shell: Shell) -> None:
    out = await shell.run(
        "$u = [uri]'http://x.example:8080/a/b?q=1'; $u.Host; $u.Port; $u.PathAndQuery; "
        "[uri]::EscapeDataString('a b&c'); ([uri]'rel').IsAbsoluteUri; $u -is [uri]; "
        "([ipaddress]'192.168.1.20').GetAddressBytes() -join '.'; "
        "[ipaddress]::Loopback -eq [ipaddress]'127.0.0.1'; "
        "[System.Net.Dns]::GetHostAddresses('localhost').IPAddressToString -contains '127.0.0.1'; "
        "[BitConverter]::ToString([byte[]](1, 255, 16)); "
        "[BitConverter]::ToInt32([BitConverter]::GetBytes(123456), 0)"
    )
    assert [str(v) for v in out] == [
        "x.example",
        "8080",
        "/a/b?q=1",
        "a%20b%26c",
        "False",
        "True",
        "192.168.1.20",
        "True",
        "True",
        "01-FF-10",
        "123456",
    ]


async def test_errors_in_powershells_words(shell: Shell) -> None:
    with pytest.raises(RuntimeFayError, match=r'"System.Net.IPAddress". Error: "An invalid IP'):
        await shell.run("[ipaddress]'nope'")
    with pytest.raises(RuntimeFayError, match=r'Exception calling "ToInt32" with "2" argument'):
        await shell.run("[BitConverter]::ToInt32([byte[]](1, 0), 0)")
    with pytest.raises(RuntimeFayError, match="not supported for a relative URI"):
        await shell.run("([uri]'rel').Host")


async def test_an_address_shows_as_a_list(shell: Shell) -> None:
    (ip,) = await shell.run("[ipaddress]'10.0.0.1'")
    text = render_plain([ip])
    assert "AddressFamily      : InterNetwork" in text and "IPAddressToString  : 10.0.0.1" in text
