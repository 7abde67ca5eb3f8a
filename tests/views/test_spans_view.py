"""The spans view: latency rows, slowest traces, the waterfall with key/values."""

from __future__ import annotations

from fayshell.views.feeds import OfflineFeed
from fayshell.views.format import span_id
from fayshell.views.ui.spans import TracesScreen
from fayshell.views.ui.waterfall import WaterfallScreen, bar
from tests.views.helpers import column, make_app, press, rows, settle, text_of


async def test_span_rows_sorted_by_p95(feed: OfflineFeed) -> None:
    app = make_app(feed, "spans", window="session")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        # rate over the spans' own time: 10 in 90.1 s (T0 + 15 s to T0 + 105.1 s)
        assert rows(app)[0] == [
            "frontend",
            "GET /page",
            "10",
            "0.1",
            "55.0ms",
            "95.5ms",
            "99.1ms",
            "100ms",
            "0",
        ]
        assert column(app, 1) == ["GET /page", "get_user", "db.query", "get_cart"]
        assert column(app, 8) == ["0", "0", "1", "0"]
        await press(pilot, "greater_than_sign", "greater_than_sign", "greater_than_sign")
        assert app.screen.sort == "errors"
        assert column(app, 1)[0] == "db.query"
        # -> the last minute of the spans (they end at T0 + 105.1 s): traces 1005..1010
        await press(pilot, "w", "w")
        assert column(app, 2) == ["6", "6", "6", "6"]


async def test_groupings_and_filter(feed: OfflineFeed) -> None:
    app = make_app(feed, "spans", window="session")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "g")
        assert rows(app)[0][:3] == ["frontend", "GET /page", "web01"]
        await press(pilot, "g")
        assert [r[:2] for r in rows(app)] == [["frontend", "10"], ["api", "20"], ["storage", "10"]]
        await press(pilot, "g", "slash")
        app.screen.query_one("#filter").value = "service:api"
        await press(pilot, "enter")
        assert column(app, 1) == ["get_user", "get_cart"]
        await press(pilot, "slash")
        app.screen.query_one("#filter").value = "db.*"
        await press(pilot, "enter")
        assert column(app, 1) == ["db.query"]


async def test_drill_to_slowest_traces_and_waterfall(feed: OfflineFeed) -> None:
    app = make_app(feed, "spans", window="session")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "down", "down", "enter")  # storage db.query
        assert isinstance(app.screen, TracesScreen)
        assert "storage / db.query" in text_of(app, "#header")
        assert column(app, 0)[:3] == [span_id(1010), span_id(1009), span_id(1008)]
        assert span_id(1010) == "00000000000003f2"  # as Zipkin and Jaeger show ids
        assert rows(app)[3][1:3] == ["28.0ms", "70.0ms"]
        assert rows(app)[3][-1] == "yes"  # trace 1007 has the failed query
        await press(pilot, "down", "down", "down", "enter")
        assert isinstance(app.screen, WaterfallScreen)
        assert f"trace {span_id(1007)}" in text_of(app, "#header")
        assert [r[:3] for r in rows(app)] == [
            ["GET /page", "frontend", "web01"],
            ["  └ get_user", "api", "web02"],
            ["    └ db.query", "storage", "db01"],
            ["  └ get_cart", "api", "web02"],
        ]
        assert [r[3:5] for r in rows(app)] == [
            ["0ns", "70.0ms"],
            ["1.00ms", "42.0ms"],
            ["2.00ms", "28.0ms"],
            ["43.5ms", "2.00ms"],
        ]
        details = text_of(app, "#details")
        assert "http.path=/page  user=u7" in details
        await press(pilot, "down", "down")
        details = text_of(app, "#details")
        assert "storage db.query" in details and "ERROR" in details
        assert "db.table=users" in details
        assert "10.0.0.21:8003" in details
        await press(pilot, "escape", "escape")
        assert column(app, 1)[0] == "GET /page"


def test_waterfall_bars_scale_to_the_trace() -> None:
    from fayshell.views.model import TraceSpan

    def span(start: int, dur: int) -> TraceSpan:
        return TraceSpan(1, None, 0, "s", "n", "x", None, None, start, dur, None, None, False)

    assert bar(span(0, 100), 0, 100, 10) == "█" * 10
    assert bar(span(50, 10), 0, 100, 10) == "     █    "
    assert bar(span(99, 0), 0, 100, 10) == "         █"


async def test_a_query_replaced_before_it_starts_leaves_no_coroutine_behind(
    feed: OfflineFeed,
) -> None:
    """Queries asked for back to back (a held sort key): each cancels the one before, which
    may not have started yet. Its work is created only when it starts, so nothing is left
    never awaited (Python warns at such a coroutine's end)."""
    import gc
    import warnings

    app = make_app(feed, "spans", window="session")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            for _ in range(5):
                app.screen.requery()
            await settle(pilot)
            assert column(app, 1) == ["GET /page", "get_user", "db.query", "get_cart"]
        gc.collect()
    assert [str(w.message) for w in seen if "never awaited" in str(w.message)] == []
