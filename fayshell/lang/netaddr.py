"""Addresses as .NET has them, for scripts that check endpoints: ``[uri]`` (a URL's parts),
``[ipaddress]`` (a parsed IPv4 or IPv6 address), ``[System.Net.Dns]`` (names resolved on this
machine) and ``[BitConverter]`` (numbers to and from bytes, little-endian as on x86)."""

from __future__ import annotations

import ipaddress
import socket
import struct
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fayshell.lang.integers import (
    BYTE,
    INT16,
    INT32,
    INT64,
    UINT16,
    UINT32,
    UINT64,
    Byte,
    IntKind,
    kind_of,
    make,
)
from fayshell.lang.single import Single
from fayshell.lang.values import NetException, TypedArray

#: The port a scheme has when a URL names none (.NET's Uri.Port).
DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21, "ws": 80, "wss": 443, "ssh": 22}


class Uri:
    """``[uri]'https://host:8443/a/b?q=1#f'``: its parts as .NET's System.Uri names them. A
    text without a scheme is a relative URI (IsAbsoluteUri False; it has no host or port)."""

    TYPE_NAME = "System.Uri"
    VIEW = "list"
    MEMBERS: tuple[str, ...] = (
        "AbsolutePath",
        "AbsoluteUri",
        "LocalPath",
        "Authority",
        "IsDefaultPort",
        "IsFile",
        "IsLoopback",
        "PathAndQuery",
        "Segments",
        "Host",
        "Port",
        "Query",
        "Fragment",
        "Scheme",
        "OriginalString",
        "DnsSafeHost",
        "IsAbsoluteUri",
        "UserInfo",
    )

    def __init__(self, text: str) -> None:
        self.OriginalString = text
        parts = urllib.parse.urlsplit(text)
        self.IsAbsoluteUri = bool(parts.scheme) and (bool(parts.netloc) or parts.scheme == "file")
        self._parts = parts

    def __str__(self) -> str:
        return self.AbsoluteUri if self.IsAbsoluteUri else self.OriginalString

    def _absolute(self) -> urllib.parse.SplitResult:
        if not self.IsAbsoluteUri:
            raise NetException(
                "This operation is not supported for a relative URI.",
                "System.InvalidOperationException",
            )
        return self._parts

    Scheme = property(lambda self: self._absolute().scheme.lower())
    Host = property(lambda self: (self._absolute().hostname or "").lower())
    DnsSafeHost = Host
    UserInfo = property(lambda self: self._absolute().netloc.rpartition("@")[0])
    Query = property(lambda self: "?" + self._absolute().query if self._parts.query else "")
    Fragment = property(
        lambda self: "#" + self._absolute().fragment if self._parts.fragment else ""
    )
    AbsolutePath = property(lambda self: self._absolute().path or "/")
    LocalPath = property(lambda self: urllib.parse.unquote(self.AbsolutePath))
    PathAndQuery = property(lambda self: self.AbsolutePath + self.Query)
    IsFile = property(lambda self: self.Scheme == "file")
    IsDefaultPort = property(lambda self: self._absolute().port is None)

    @property
    def Port(self) -> int:  # noqa: N802 - .NET property name
        given = self._absolute().port
        return given if given is not None else DEFAULT_PORTS.get(self.Scheme, -1)

    @property
    def Authority(self) -> str:  # noqa: N802 - .NET property name
        return self.Host if self.IsDefaultPort else f"{self.Host}:{self.Port}"

    @property
    def AbsoluteUri(self) -> str:  # noqa: N802 - .NET property name
        user = self.UserInfo + "@" if self.UserInfo else ""
        return f"{self.Scheme}://{user}{self.Authority}{self.PathAndQuery}{self.Fragment}"

    @property
    def Segments(self) -> list[str]:  # noqa: N802 - .NET property name
        path = self.AbsolutePath
        pieces = path.split("/")
        return ["/"] + [p + "/" for p in pieces[1:-1]] + ([pieces[-1]] if pieces[-1] else [])

    @property
    def IsLoopback(self) -> bool:  # noqa: N802 - .NET property name
        if self.Host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.Host.strip("[]")).is_loopback
        except ValueError:
            return False


class RelativeUri(Uri):
    """A URI without a scheme and host (``[uri]'api/v2'``): it shows only what it has."""

    MEMBERS = ("OriginalString", "IsAbsoluteUri", "UserEscaped")
    UserEscaped = False


#: What scripts URL-encode with: RFC 3986's unreserved characters stay as they are.
UNRESERVED = "-_.~"

URI_STATICS: dict[str, Callable[..., Any]] = {
    "EscapeDataString": lambda s: urllib.parse.quote(str(s), safe=UNRESERVED),
    "UnescapeDataString": lambda s: urllib.parse.unquote(str(s)),
    "IsWellFormedUriString": lambda s, kind="Absolute": _well_formed(str(s), str(kind)),
}


def _well_formed(text: str, kind: str) -> bool:
    absolute = Uri(text).IsAbsoluteUri and " " not in text
    want = kind.lower()
    return absolute if want == "absolute" else (not absolute if want == "relative" else True)


class IPAddress:
    """``[ipaddress]'10.0.0.1'``, an element of ``[System.Net.Dns]::GetHostAddresses``;
    equal to another of the same address."""

    __slots__ = ("address",)
    TYPE_NAME = "System.Net.IPAddress"
    VIEW = "list"
    MEMBERS = (
        "Address",
        "AddressFamily",
        "ScopeId",
        "IsIPv6Multicast",
        "IsIPv6LinkLocal",
        "IsIPv6SiteLocal",
        "IsIPv6UniqueLocal",
        "IsIPv4MappedToIPv6",
        "IPAddressToString",
    )

    def __init__(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
        self.address = address

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IPAddress) and other.address == self.address

    def __hash__(self) -> int:
        return hash(self.address)

    def __str__(self) -> str:
        return str(self.address)

    @property
    def _v6(self) -> ipaddress.IPv6Address | None:
        return self.address if isinstance(self.address, ipaddress.IPv6Address) else None

    @property
    def Address(self) -> int | None:  # noqa: N802 - .NET: the IPv4 bytes read little-endian
        if self._v6 is not None:
            return None
        return make(INT64, int.from_bytes(self.address.packed, "little"))

    AddressFamily = property(lambda self: "InterNetworkV6" if self._v6 else "InterNetwork")
    ScopeId = property(lambda self: None if self._v6 is None else int(self._v6.scope_id or 0))
    IsIPv6Multicast = property(lambda self: self._v6 is not None and self._v6.is_multicast)
    IsIPv6LinkLocal = property(lambda self: self._v6 is not None and self._v6.is_link_local)
    IsIPv6SiteLocal = property(lambda self: self._v6 is not None and self._v6.is_site_local)
    IsIPv6UniqueLocal = property(
        lambda self: self._v6 is not None and self._v6 in ipaddress.ip_network("fc00::/7")
    )
    IsIPv4MappedToIPv6 = property(lambda self: self._v6 is not None and bool(self._v6.ipv4_mapped))
    IPAddressToString = property(lambda self: str(self.address))

    def GetAddressBytes(self) -> TypedArray:  # noqa: N802 - .NET method name
        return TypedArray(map(Byte, self.address.packed), "Byte")

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return str(self)


def to_ip(value: Any) -> IPAddress:
    """``[ipaddress]$x`` and ``[ipaddress]::Parse($x)``."""
    if isinstance(value, IPAddress):
        return value
    try:
        return IPAddress(ipaddress.ip_address(str(value).strip()))
    except ValueError:
        raise NetException(
            "An invalid IP address was specified.", "System.FormatException"
        ) from None


def to_uri(value: Any) -> Uri:
    """``[uri]$x``: an absolute URI, or a relative one (as PowerShell's conversion makes)."""
    if isinstance(value, Uri):
        return value
    made = Uri(str(value))
    return made if made.IsAbsoluteUri else RelativeUri(str(value))


IP_STATICS: dict[str, Callable[..., Any]] = {
    "Parse": to_ip,
    "IsLoopback": lambda a: to_ip(a).address.is_loopback,
}
IP_FIELDS: dict[str, str] = {
    "Any": "0.0.0.0",
    "Broadcast": "255.255.255.255",
    "Loopback": "127.0.0.1",
    "None": "255.255.255.255",
    "IPv6Any": "::",
    "IPv6Loopback": "::1",
    "IPv6None": "::",
}


@dataclass(frozen=True)
class IPHostEntry:
    """What ``[System.Net.Dns]::GetHostEntry(name)`` returns."""

    HostName: str
    Aliases: list[str]
    AddressList: list[IPAddress]
    TYPE_NAME = "System.Net.IPHostEntry"


def _resolve(name: Any) -> tuple[str, list[IPAddress]]:
    """The canonical name and the addresses of ``name`` (this machine's resolver)."""
    host = str(name)
    try:
        infos = socket.getaddrinfo(host, None, 0, socket.SOCK_STREAM, 0, socket.AI_CANONNAME)
    except socket.gaierror as exc:
        raise NetException(
            exc.strerror or "No such host is known.", "System.Net.Sockets.SocketException"
        ) from None
    seen: dict[str, IPAddress] = {}
    for info in infos:
        text = str(info[4][0])
        seen.setdefault(text, to_ip(text))
    return (infos[0][3] or host), list(seen.values())


def _entry(found: tuple[str, list[IPAddress]]) -> tuple[str, list[str], list[IPAddress]]:
    return found[0], [], found[1]


DNS_STATICS: dict[str, Callable[..., Any]] = {
    "GetHostAddresses": lambda name: _resolve(name)[1],
    "GetHostEntry": lambda name: IPHostEntry(*_entry(_resolve(name))),
    "GetHostName": socket.gethostname,
}


#: BitConverter's To<Type>(bytes, start) readers: the struct layout and the type made.
READERS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "ToInt16": ("<h", lambda n: make(INT16, n)),
    "ToUInt16": ("<H", lambda n: make(UINT16, n)),
    "ToInt32": ("<i", lambda n: make(INT32, n)),
    "ToUInt32": ("<I", lambda n: make(UINT32, n)),
    "ToInt64": ("<q", lambda n: make(INT64, n)),
    "ToUInt64": ("<Q", lambda n: make(UINT64, n)),
    "ToDouble": ("<d", float),
    "ToSingle": ("<f", Single),
    "ToBoolean": ("<?", bool),
}

#: The struct layout of each integer type GetBytes writes.
LAYOUTS: dict[IntKind, str] = {
    BYTE: "<H",  # .NET has no GetBytes(byte): a byte widens to a ushort's two bytes
    INT16: "<h",
    UINT16: "<H",
    INT32: "<i",
    UINT32: "<I",
    INT64: "<q",
    UINT64: "<Q",
}


def _bytes_of(data: Any) -> bytes:
    items = data if isinstance(data, (list, tuple)) else [data]
    try:
        return bytes(int(b) for b in items)
    except (TypeError, ValueError):
        raise NetException(
            "Value was either too large or too small for an unsigned byte.",
            "System.OverflowException",
        ) from None


def get_bytes(value: Any) -> TypedArray:
    """``[BitConverter]::GetBytes(x)``: its bytes as its type lays them out, little-endian."""
    if isinstance(value, bool):
        packed = struct.pack("<?", value)
    elif isinstance(value, Single):
        packed = struct.pack("<f", value)
    elif isinstance(value, float):
        packed = struct.pack("<d", value)
    else:
        n = int(value)
        kind = kind_of(value) if isinstance(value, int) else kind_of(n)
        packed = struct.pack(LAYOUTS.get(kind, "<q"), n)
    return TypedArray(map(Byte, packed), "Byte")


def _to_hex(data: Any, start: Any = 0, length: Any = None) -> str:
    raw = _bytes_of(data)
    begin = int(start)
    end = len(raw) if length is None else begin + int(length)
    return "-".join(f"{b:02X}" for b in raw[begin:end])


def _reader(name: str) -> Callable[..., Any]:
    layout, made = READERS[name]

    def read(data: Any, start: Any = 0) -> Any:
        raw = _bytes_of(data)
        at = int(start)
        size = struct.calcsize(layout)
        if at < 0 or at + size > len(raw):
            raise NetException(
                "Destination array is not long enough to copy all the items in the collection. "
                "Check array index and length.",
                "System.ArgumentException",
            )
        return made(struct.unpack_from(layout, raw, at)[0])

    return read


BIT_CONVERTER: dict[str, Callable[..., Any]] = {
    "ToString": _to_hex,
    "GetBytes": get_bytes,
    **{name: _reader(name) for name in READERS},
}

#: The types this module answers for, by their short names, and their static members.
TYPES: dict[str, dict[str, Callable[..., Any]]] = {
    "uri": URI_STATICS,
    "ipaddress": IP_STATICS,
    "net.ipaddress": IP_STATICS,
    "net.dns": DNS_STATICS,
    "bitconverter": BIT_CONVERTER,
}


def static(type_name: str, name: str, args: list[Any] | None) -> Any:
    """``[T]::Name(args)`` (``args`` None: a property such as ``[ipaddress]::Loopback`` or
    ``[BitConverter]::IsLittleEndian``); NotImplemented when the type has no such member."""
    low = name.lower()
    if args is None:
        if type_name in ("ipaddress", "net.ipaddress"):
            field = next((v for k, v in IP_FIELDS.items() if k.lower() == low), None)
            return NotImplemented if field is None else to_ip(field)
        if type_name == "bitconverter" and low == "islittleendian":
            return True
        return NotImplemented
    methods = TYPES.get(type_name, {})
    method = next((m for n, m in methods.items() if n.lower() == low), None)
    if method is None:
        return NotImplemented
    return method(*args)
