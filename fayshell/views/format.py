"""Short human forms of durations, counts, rates and timestamps for narrow table cells."""

from __future__ import annotations

from datetime import UTC, datetime

from fayshell.lang.values import DURATION_UNITS

NS = DURATION_UNITS["s"]


def duration(ns: float | None) -> str:
    """``850ns``, ``12.5µs``, ``4.60ms``, ``500ms``, ``1.25s``, ``2m05s``; ``-`` for none."""
    if ns is None:
        return "-"
    if ns < 1_000:
        return f"{ns:.0f}ns"
    if ns < 1_000_000:
        return _three(ns / 1e3, "µs")
    if ns < NS:
        return _three(ns / 1e6, "ms")
    if ns < 60 * NS:
        return f"{ns / NS:.2f}s"
    secs = int(ns // NS)
    return f"{secs // 60}m{secs % 60:02d}s"


def _three(value: float, unit: str) -> str:
    """Three significant digits: ``4.60ms``, ``55.0ms``, ``500ms``."""
    if value < 10:
        return f"{value:.2f}{unit}"
    if value < 100:
        return f"{value:.1f}{unit}"
    return f"{value:.0f}{unit}"


def count(n: float) -> str:
    """``999``, ``12.3k``, ``4.56M``, ``1.2G``."""
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= size:
            value = n / size
            text = f"{value:.2f}"
            return f"{value:.1f}{unit}" if abs(float(text)) >= 10 else f"{text}{unit}"
    return f"{n:.0f}" if float(n).is_integer() else f"{n:.1f}"


def rate(per_s: float) -> str:
    """Events per second: ``0``, ``0.5``, ``12``, ``3.4k``."""
    if per_s == 0:
        return "0"
    if per_s < 10:
        return f"{per_s:.1f}"
    return count(round(per_s))


def clock(ns: int | None, millis: bool = False) -> str:
    """Time of day in UTC: ``22:15:20`` (``.123`` with millis)."""
    if ns is None:
        return "-"
    dt = datetime.fromtimestamp(ns / NS, tz=UTC)
    text = dt.strftime("%H:%M:%S")
    return f"{text}.{(ns // 1_000_000) % 1000:03d}" if millis else text


def stamp(ns: int | None) -> str:
    """Date and time in UTC: ``2023-11-14 22:15:20 UTC``."""
    if ns is None:
        return "-"
    return datetime.fromtimestamp(ns // NS, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def span_id(value: int) -> str:
    """A trace or span id as Zipkin and Jaeger show it: 16 hex digits (``00000000000003ef``);
    ids stored as signed BIGINT show as their unsigned 64-bit pattern."""
    return f"{value & ((1 << 64) - 1):016x}"


def ago(ns: int | None) -> str:
    """A lag: ``0.50s``, ``2m05s``; ``-`` for none."""
    return "-" if ns is None else duration(ns) if ns >= 1_000_000 else "0s"
