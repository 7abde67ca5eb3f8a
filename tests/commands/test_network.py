"""Test-Connection from this machine: TCP ports against a real listening socket and a closed
one, ICMP echo to 127.0.0.1 (when this user may send ICMP), a name that does not resolve, and
the echo request's checksum on its own."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from fayshell.commands.network import NoAnswer, checksum, echo_request, icmp_socket
from tests.fixtures.shell import Shell


@pytest.fixture
def listening() -> Iterator[int]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_echo_request_checks_out() -> None:
    packet = echo_request(0x1234, 7, 32)
    assert len(packet) == 8 + 32 and packet[0] == 8
    assert checksum(packet) == 0  # a packet with its checksum sums to zero


async def test_tcp_port_is_true_or_false(shell: Shell, listening: int) -> None:
    out = await shell.run(
        f"Test-Connection 127.0.0.1 -TcpPort {listening}; "
        f"Test-Connection 127.0.0.1 -TcpPort {closed_port()} -Count 2 -Delay 0"
    )
    assert out == [True, False]


async def test_tcp_port_detailed_shows_each_attempt(shell: Shell, listening: int) -> None:
    tries = await shell.run(
        f"Test-Connection 127.0.0.1 -TcpPort {listening} -Detailed -Count 2 -Delay 0"
    )
    assert [(t.Id, t.Port, t.Connected, t.Status) for t in tries] == [
        (1, listening, True, "Success"),
        (2, listening, True, "Success"),
    ]
    (refused,) = await shell.run(
        f"Test-Connection 127.0.0.1 -TcpPort {closed_port()} -Detailed -Count 1"
    )
    assert (refused.Connected, refused.Status) == (False, "Refused")


async def test_a_name_that_does_not_resolve(shell: Shell) -> None:
    out = await shell.run(
        "Test-Connection no-such-host.invalid -Count 1 -Quiet; "
        "Test-Connection no-such-host.invalid -Count 1 -ErrorAction SilentlyContinue "
        "-ErrorVariable bad; $bad[0].Exception.Message"
    )
    assert out == [
        False,
        "Testing connection to computer 'no-such-host.invalid' failed: Cannot resolve the "
        "target name.",
    ]


def _icmp_allowed() -> bool:
    try:
        sock, _ = icmp_socket()
    except NoAnswer:
        return False
    sock.close()
    return True


@pytest.mark.skipif(
    not _icmp_allowed(),
    reason="this user may not send ICMP (net.ipv4.ping_group_range, not root): ping untested",
)
async def test_ping_the_loopback(shell: Shell) -> None:
    replies = await shell.run("Test-Connection 127.0.0.1 -Count 2 -Delay 0")
    assert [(r.Ping, r.Address, r.Status, r.BufferSize) for r in replies] == [
        (1, "127.0.0.1", "Success", 32),
        (2, "127.0.0.1", "Success", 32),
    ]
    assert await shell.run("Test-Connection 127.0.0.1 -Count 1 -Quiet") == [True]
