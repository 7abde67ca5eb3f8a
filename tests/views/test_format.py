"""Short forms for narrow cells."""

from __future__ import annotations

from fayshell.views import format as fmt


def test_duration() -> None:
    assert [
        fmt.duration(v) for v in (None, 850, 12_500, 4_600_000, 55e6, 500e6, 1.25e9, 125e9)
    ] == ["-", "850ns", "12.5µs", "4.60ms", "55.0ms", "500ms", "1.25s", "2m05s"]


def test_count_and_rate() -> None:
    assert [fmt.count(v) for v in (999, 9_999, 12_300, 4_560_000)] == [
        "999",
        "10.0k",
        "12.3k",
        "4.56M",
    ]
    assert [fmt.rate(v) for v in (0, 0.5, 12, 3400)] == ["0", "0.5", "12", "3.40k"]


def test_clock_is_utc() -> None:
    ns = 1_700_000_000_123_000_000
    assert fmt.clock(ns) == "22:13:20"
    assert fmt.clock(ns, millis=True) == "22:13:20.123"
    assert fmt.stamp(ns) == "2023-11-14 22:13:20 UTC"
