"""A tiny CTF writer for feature tests: plain-text metadata, bit-level fields of both byte
orders, floats, enums, variants in the payload, arrays, sequences, strings."""

from __future__ import annotations

import struct
import uuid as uuidlib
from dataclasses import dataclass, field
from pathlib import Path

UUID = uuidlib.UUID("6a5b8f4e-1c2d-4e3f-8a9b-0c1d2e3f4a5b")

METADATA = f"""/* CTF 1.8 */
typealias integer {{ size = 8; align = 8; signed = false; }} := uint8_t;
typealias integer {{ size = 16; align = 8; signed = true; }} := int16_t;
typealias integer {{ size = 16; align = 8; signed = false; }} := uint16_t;
typealias integer {{ size = 32; align = 8; signed = false; }} := uint32_t;
typealias integer {{ size = 32; align = 8; signed = true; }} := int32_t;
typealias integer {{ size = 64; align = 8; signed = false; }} := uint64_t;
typedef integer {{ size = 64; align = 8; signed = true; }} my_long;

trace {{
    major = 1; minor = 8; uuid = "{UUID}"; byte_order = le;
    packet.header := struct {{ uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; }};
}};
env {{ domain = "ust"; hostname = "mini"; trace_name = "mini-trace"; }};
clock {{ name = c; freq = 1000000000; offset_s = 1600000000; offset = 5; }};
typealias integer {{ size = 64; align = 8; signed = false; map = clock.c.value; }} := clk64;

stream {{
    id = 0;
    packet.context := struct {{ clk64 timestamp_begin; clk64 timestamp_end;
        uint64_t content_size; uint64_t packet_size; uint32_t cpu_id; }};
    event.header := struct {{ uint16_t id; clk64 timestamp; }};
    event.context := struct {{ int32_t _vtid; }};
}};

enum kinds : uint8_t {{ A, B = 5, C = 7 ... 9, "quoted label" }};

event {{
    name = "t:misc"; id = 0; stream_id = 0; loglevel = 4;
    fields := struct {{
        enum kinds _kind;
        integer {{ size = 3; align = 1; signed = true; }} _s3;
        integer {{ size = 1; align = 1; signed = false; }} _flag;
        integer {{ size = 4; align = 1; signed = false; base = 16; }} _nib;
        integer {{ size = 13; align = 8; signed = false; byte_order = be; }} _be13;
        integer {{ size = 3; align = 1; signed = false; byte_order = be; }} _be3;
        floating_point {{ exp_dig = 8; mant_dig = 24; align = 32; }} _f32;
        floating_point {{ exp_dig = 11; mant_dig = 53; align = 64; byte_order = be; }} _f64be;
        uint8_t _n;
        int16_t _vals[_n];
        string _s;
        uint32_t _fixed[3];
        integer {{ size = 8; align = 8; signed = false; encoding = UTF8; }} _text[_n];
        variant <_kind> {{ uint32_t A; string B; my_long C; }} _v;
        my_long _last;
    }};
}};

event {{
    name = "t:simple"; id = 1; stream_id = 0;
    fields := struct {{ uint64_t _x; }};
}};
"""


@dataclass
class Bits:
    """A bit string written field by field in CTF bit order (``pos`` is the cursor)."""

    bits: list[int] = field(default_factory=list)
    pos: int = 0

    def align(self, n: int) -> None:
        self.pos = (self.pos + n - 1) // n * n
        self._grow(self.pos)

    def _grow(self, n: int) -> None:
        n = (n + 7) // 8 * 8
        if len(self.bits) < n:
            self.bits.extend([0] * (n - len(self.bits)))

    def int(self, v: int, size: int, be: bool = False, align: int = 8) -> None:
        """An integer; big-endian bits go MSB-first within each byte (CTF numbering)."""
        self.align(align)
        v &= (1 << size) - 1
        self._grow(self.pos + size)
        for i in range(size):
            p = self.pos + i
            if be:
                self.bits[(p // 8) * 8 + 7 - p % 8] = (v >> (size - 1 - i)) & 1
            else:
                self.bits[p] = (v >> i) & 1
        self.pos += size

    def raw(self, data: bytes) -> None:
        self.align(8)
        for b in data:
            self.int(b, 8)

    def tobytes(self) -> bytes:
        self._grow(self.pos)
        return bytes(
            sum(b << k for k, b in enumerate(self.bits[i : i + 8]))
            for i in range(0, self.pos + (-self.pos) % 8, 8)
        )


def misc_event(w: Bits, i: int) -> None:
    kind = (0, 5, 8)[i % 3]
    w.align(64)  # a struct aligns to its most aligned field
    w.int(kind, 8)
    w.int(-3 + i % 7, 3, align=1)
    w.int(i & 1, 1, align=1)
    w.int(i % 16, 4, align=1)
    w.int(1000 + 37 * i, 13, be=True)
    w.int(i % 8, 3, be=True, align=1)
    w.align(32)
    w.raw(struct.pack("<f", 1.5 * i))
    w.align(64)
    w.raw(struct.pack(">d", -2.25 * i))
    n = i % 4
    w.int(n, 8)
    for k in range(n):
        w.int(-100 * k + i, 16)
    w.raw(f"s\u00e9-{i}".encode() + b"\0")
    for k in range(3):
        w.int(i * 10 + k, 32)
    w.raw(b"abcd"[:n])
    if kind == 0:
        w.int(70000 + i, 32)
    elif kind == 5:
        w.raw(b"opt\xff" + str(i).encode() + b"\0")  # invalid UTF-8 byte
    else:
        w.int(-(1 << 40) - i, 64)
    w.int(-i, 64)


def write_mini(out: Path, events: int = 60) -> Path:
    """Write the mini trace (one stream, two packets) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "metadata").write_text(METADATA)
    ts = 1000
    data = b""
    half = events // 2
    head = 4 + 16 + 4 + 8 * 4 + 4
    for lo, hi in ((0, half), (half, events)):
        body = Bits()
        body.pos = head * 8  # alignment counts from the packet start
        t0 = ts
        for i in range(lo, hi):
            body.int(1 if i % 5 == 4 else 0, 16)
            body.int(ts, 64)
            body.int(4000 + i, 32)
            if i % 5 == 4:
                body.int(i * 3, 64)
            else:
                misc_event(body, i)
            ts += 17 + i
        content_bits = body.pos
        size = ((content_bits // 8 + 255) // 256) * 256
        hdr = struct.pack(
            "<I16sIQQQQI", 0xC1FC1FC1, UUID.bytes, 0, t0, ts, content_bits, size * 8, 2
        )
        payload = hdr + body.tobytes()[head:]
        data += payload + bytes(size - len(payload))
    (out / "stream_0").write_bytes(data)
    return out
