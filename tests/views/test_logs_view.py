"""The logs view: records at or above a severity, coloured, counted, filtered, followed."""

from __future__ import annotations

from textual.widgets import DataTable

from fayshell.views.feeds import OfflineFeed
from fayshell.views.ui.logs import SEVERITY_STYLES
from tests.fixtures.store_data import LOGS
from tests.views.helpers import column, make_app, press, rows, settle, text_of


def expected(levels: set[str]) -> list[str]:
    return [r.msg for r in sorted(LOGS, key=lambda r: r.t_ns) if r.severity in levels]


async def test_warning_and_above_oldest_first(feed: OfflineFeed) -> None:
    app = make_app(feed, "logs", window="session")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert column(app, 4) == expected({"Critical", "Error", "Warning"})
        assert rows(app)[-1] == [
            "22:15:19.000",
            "db01",
            "Critical",
            "storage.disk",
            "disk full on /var",
        ]
        header = text_of(app, "#header")
        assert "≥ Warning" in header
        assert "Crit 1  Err 4  Warn 4  Notice 4  Info 9  Debug 4" in header
        table = app.screen.query_one("#table", DataTable)
        assert table.cursor_row == table.row_count - 1  # following the stream


async def test_rows_are_coloured_by_severity(feed: OfflineFeed) -> None:
    app = make_app(feed, "logs", window="session")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#table", DataTable)
        for i in range(table.row_count):
            cells = table.get_row_at(i)
            severity = cells[2].plain
            assert str(cells[4].spans[0].style) == SEVERITY_STYLES[severity]


async def test_severity_keys(feed: OfflineFeed) -> None:
    app = make_app(feed, "logs", window="session", severity="Error")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert column(app, 4) == expected({"Critical", "Error"})
        await press(pilot, "minus")
        assert column(app, 4) == ["disk full on /var"]
        assert "≥ Critical" in text_of(app, "#header")
        await press(pilot, "minus")
        assert column(app, 4) == []
        await press(pilot, "plus")
        assert column(app, 4) == ["disk full on /var"]
        app.screen.action_severity(9)  # clamps at Debug: everything
        await settle(pilot)
        assert "≥ Debug" in text_of(app, "#header")
        assert len(rows(app)) == len(LOGS)


async def test_filter_by_node_and_logger(feed: OfflineFeed) -> None:
    app = make_app(feed, "logs", window="session", severity="Debug")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        app.screen.query_one("#filter").value = "node:db01 logger:storage.*"
        await press(pilot, "enter")
        want = [
            r.msg
            for r in sorted(LOGS, key=lambda r: r.t_ns)
            if r.node == "db01" and r.logger == "storage.disk"
        ]
        assert column(app, 4) == want
        assert "Crit 1" in text_of(app, "#header")


async def test_window_sort_and_follow(feed: OfflineFeed) -> None:
    app = make_app(feed, "logs", window="interval", severity="Info")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert column(app, 4) == ["disk full on /var", "heartbeat"]
        await press(pilot, "w", "w")  # interval -> minute -> session
        await press(pilot, "r")
        assert column(app, 4)[0] == "heartbeat"
        await press(pilot, "f")
        assert "(paused scroll)" in text_of(app, "#header")
        await press(pilot, "greater_than_sign")  # TIME -> NODE, ascending (text)
        nodes = column(app, 1)
        assert nodes == sorted(nodes)
        assert app.screen.query_one("#table", DataTable).has_focus


async def test_a_database_without_the_table(tmp_path: object) -> None:
    from fayshell.store.database import Database

    db = Database.open(":memory:")
    feed = OfflineFeed(db)
    app = make_app(feed, "logs")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert text_of(app, "#status") == "no logs table in this database yet  ·  0 rows"
        assert rows(app) == []
    feed.close()
    db.close()
