"""Test-Connection: is a machine there (ICMP echo), does a TCP port answer (-TcpPort), from
this machine. fayshell's own nodes have Test-Node (SSH and the tracer); this is PowerShell's
cmdlet for anything else an incident touches (a load balancer, a database port).

ICMP echo uses an unprivileged ping socket when the system allows one
(net.ipv4.ping_group_range), else a raw socket (root); when neither is allowed, an error says
so and points at -TcpPort. IPv4 only for ICMP; -TcpPort takes IPv4 and IPv6."""

from __future__ import annotations

import asyncio
import os
import socket
import struct
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import BY_VALUE_AND_PROPERTY, Param, cmdlet

PingState = Literal["Success", "TimedOut", "DestinationHostUnreachable"]

#: ICMP echo request and reply types (IPv4).
ECHO_REQUEST, ECHO_REPLY = 8, 0


@dataclass
class PingStatus:
    """One echo request's outcome, as PowerShell's TestConnectionCommand+PingStatus."""

    Ping: int
    Source: str
    Address: str
    Latency: int
    BufferSize: int
    Status: PingState
    Destination: str = field(repr=False)
    TYPE_NAME = "Microsoft.PowerShell.Commands.TestConnectionCommand+PingStatus"
    #: Shown as PowerShell shows them: one table per destination.
    GROUP_BY = "Destination"


@dataclass
class TcpPortStatus:
    """One TCP connection attempt (-Detailed), as TestConnectionCommand+TcpPortStatus."""

    Id: int
    Source: str
    Address: str
    Port: int
    Latency: int
    Connected: bool
    Status: Literal["Success", "TimedOut", "Refused", "Unreachable"]
    Target: str = field(repr=False)
    TYPE_NAME = "Microsoft.PowerShell.Commands.TestConnectionCommand+TcpPortStatus"
    GROUP_BY = "Target"


class NoAnswer(Exception):
    """A target whose name does not resolve, or ICMP this process may not send."""


def resolve(name: str, family: int) -> str:
    """The first address of ``name`` (``family``: AF_INET, AF_INET6 or AF_UNSPEC)."""
    try:
        infos = socket.getaddrinfo(name, None, family, socket.SOCK_STREAM)
    except socket.gaierror:
        raise NoAnswer("Cannot resolve the target name.") from None
    return str(infos[0][4][0])


def checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071) of ``data``."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def echo_request(ident: int, seq: int, size: int) -> bytes:
    """An ICMP echo request with ``size`` bytes of payload."""
    payload = bytes(i & 0xFF for i in range(size))
    head = struct.pack("!BBHHH", ECHO_REQUEST, 0, 0, ident, seq)
    return struct.pack("!BBHHH", ECHO_REQUEST, 0, checksum(head + payload), ident, seq) + payload


def icmp_socket() -> tuple[socket.socket, bool]:
    """A non-blocking ICMP socket and whether it is raw (replies carry the IP header)."""
    for kind, raw in ((socket.SOCK_DGRAM, False), (socket.SOCK_RAW, True)):
        try:
            sock = socket.socket(socket.AF_INET, kind, socket.IPPROTO_ICMP)
        except PermissionError:
            continue
        sock.setblocking(False)
        return sock, raw
    raise NoAnswer(
        "ICMP echo is not permitted for this user (net.ipv4.ping_group_range does not include "
        "its group, and it is not root); -TcpPort tests a TCP port instead."
    )


async def ping_once(
    sock: socket.socket, raw: bool, address: str, seq: int, size: int, timeout: float
) -> int | None:
    """One echo request to ``address``: the round trip in ms, or None when no reply came."""
    loop = asyncio.get_running_loop()
    ident = os.getpid() & 0xFFFF
    start = time.perf_counter()
    await loop.sock_sendto(sock, echo_request(ident, seq, size), (address, 0))
    deadline = start + timeout
    while (left := deadline - time.perf_counter()) > 0:
        try:
            data, (sender, _) = await asyncio.wait_for(loop.sock_recvfrom(sock, 65535), left)
        except TimeoutError:
            return None
        icmp = data[(data[0] & 0x0F) * 4 :] if raw else data
        kind, _, _, their_id, their_seq = struct.unpack("!BBHHH", icmp[:8])
        mine = raw is False or their_id == ident  # a ping socket's id is the kernel's
        if kind == ECHO_REPLY and their_seq == seq and sender == address and mine:
            return round((time.perf_counter() - start) * 1000)
    return None


@cmdlet(
    "Test-Connection",
    synopsis="Ping machines (ICMP echo), or test a TCP port (-TcpPort), from this machine.",
    description="Each echo request is a PingStatus (grouped by destination); -Quiet is one "
    "True or False per target (True when any reply came). -TcpPort is True or False per "
    "target (trying -Count times until a connection is made); -Detailed shows each "
    "attempt. -Repeat goes on until Ctrl-C. Nodes of the inventory: Test-Node.",
    params=[
        Param(
            "TargetName",
            "strings",
            position=0,
            mandatory=True,
            pipeline=BY_VALUE_AND_PROPERTY,
            aliases=("ComputerName",),
            help="Names or addresses.",
        ),
        Param("Count", int, default=4, help="Requests per target (4)."),
        Param("Delay", int, default=1, help="Seconds between requests (1)."),
        Param("TimeoutSeconds", int, default=5, help="Seconds to wait for each answer (5)."),
        Param("BufferSize", int, default=32, aliases=("Size", "Bytes", "BS")),
        Param("Quiet", bool, help="True or False per target; no errors."),
        Param("Repeat", bool, aliases=("Continuous",), help="Until Ctrl-C."),
        Param("TcpPort", int, help="Test this TCP port instead of pinging."),
        Param("Detailed", bool, help="With -TcpPort: each attempt."),
        Param("IPv4", bool),
        Param("IPv6", bool),
        Param("Ping", bool, help="Accepted (pinging is the default)."),
    ],
    examples=[
        ("Test-Connection lb01 -Count 2", "Two echo requests."),
        ("Test-Connection db01 -TcpPort 5432", "True when the port accepts a connection."),
        ("if (-not (Test-Connection gw -Quiet)) { 'gateway down' }", "In a script."),
    ],
)
async def test_connection(
    ctx: Invocation,
    *,
    target_name: list[str],
    count: int = 4,
    delay: int = 1,
    timeout_seconds: int = 5,
    buffer_size: int = 32,
    quiet: bool = False,
    repeat: bool = False,
    tcp_port: int | None = None,
    detailed: bool = False,
    ipv4: bool = False,
    ipv6: bool = False,
    ping: bool = False,
) -> AsyncIterator[Any]:
    family = socket.AF_INET6 if ipv6 else socket.AF_INET if ipv4 or tcp_port is None else 0
    plan = Plan(count, max(delay, 0), max(timeout_seconds, 1), buffer_size, repeat, family)
    for target in target_name[:1] if repeat else target_name:
        try:
            if tcp_port is not None:
                async for item in plan.tcp(target, tcp_port, quiet or not detailed):
                    yield item
            else:
                async for item in plan.pings(target, quiet):
                    yield item
        except NoAnswer as exc:
            if quiet:
                yield False
            else:
                ctx.write_error(_failed(target, str(exc)))


@dataclass(frozen=True)
class Plan:
    """How many requests, how far apart and how long each may take."""

    count: int
    delay: int
    timeout: int
    size: int
    repeat: bool
    family: int

    def numbers(self) -> Iterator[int]:
        """1, 2, ... ``count`` (or on and on with -Repeat)."""
        n = 0
        while self.repeat or n < self.count:
            n += 1
            yield n

    async def pings(self, target: str, quiet: bool) -> AsyncIterator[Any]:
        address = await asyncio.to_thread(resolve, target, self.family)
        sock, raw = icmp_socket()
        source = socket.gethostname()
        replied = False
        try:
            for n in self.numbers():
                if n > 1:
                    await asyncio.sleep(self.delay)
                took = await ping_once(sock, raw, address, n, self.size, self.timeout)
                replied = replied or took is not None
                if not quiet:
                    yield _ping_status(n, source, target, address, took, self.size)
        finally:
            sock.close()
        if quiet:
            yield replied

    async def tcp(self, target: str, port: int, only_bool: bool) -> AsyncIterator[Any]:
        address = await asyncio.to_thread(resolve, target, self.family)
        source = socket.gethostname()
        for n in self.numbers():
            if n > 1:
                await asyncio.sleep(self.delay)
            status, took = await connect(address, port, self.timeout)
            if only_bool and status == "Success":
                yield True
                return
            if not only_bool:
                yield TcpPortStatus(
                    n, source, address, port, took, status == "Success", status, target
                )
        if only_bool:
            yield False


def _ping_status(
    n: int, source: str, target: str, address: str, took: int | None, size: int
) -> PingStatus:
    if took is None:
        return PingStatus(n, source, "*", 0, size, "TimedOut", target)
    return PingStatus(n, source, address, took, size, "Success", target)


async def connect(
    address: str, port: int, timeout: float
) -> tuple[Literal["Success", "TimedOut", "Refused", "Unreachable"], int]:
    """One TCP connection attempt (closed at once): how it went and how long it took (ms)."""
    start = time.perf_counter()
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(address, port), timeout)
    except TimeoutError:
        return "TimedOut", round(timeout * 1000)
    except ConnectionRefusedError:
        return "Refused", round((time.perf_counter() - start) * 1000)
    except OSError:
        return "Unreachable", round((time.perf_counter() - start) * 1000)
    writer.close()
    await writer.wait_closed()
    return "Success", round((time.perf_counter() - start) * 1000)


def _failed(target: str, why: str) -> ErrorRecord:
    return ErrorRecord(
        target,
        "",
        f"Testing connection to computer '{target}' failed: {why}",
        category="ResourceUnavailable",
        names_target=True,
        exception="System.Management.Automation.PSInvalidOperationException",
        error_id="TestConnectionException,Microsoft.PowerShell.Commands.TestConnectionCommand",
    )
