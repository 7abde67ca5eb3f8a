"""The syscalls view driven with textual's pilot over the known store (facts: test_queries)."""

from __future__ import annotations

from fayshell.store.database import Database
from fayshell.views.feeds import OfflineFeed
from fayshell.views.format import rate
from fayshell.views.queries import common
from fayshell.views.ui.syscalls import BreakdownScreen
from tests.fixtures.store_data import NS, T0
from tests.views.helpers import column, make_app, press, rows, settle, text_of


async def test_offline_opens_on_the_datas_own_range(feed: OfflineFeed) -> None:
    """Offline the view ends where the syscalls end (T0 + 119.5 s + 2.5 ms; the logs' newer
    heartbeat at T0 + 120 s is not this view's data) and shows all of it; CALLS/S is over the
    data's time (91 reads in 119.5025 s), not the last wall-clock second."""
    app = make_app(feed, "syscalls")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        header = text_of(app, "#header")
        assert "window: whole session" in header
        assert "now 2023-11-14 22:15:19 UTC  [offline]" in header
        assert "data from 22:13:20 (1m59s)" in header
        assert "lag" not in header
        assert "nodes 4/4" in header
        assert column(app, 0) == ["futex", "epoll_wait", "read", "openat", "write"]
        read = next(r for r in rows(app) if r[0] == "read")
        assert read[:3] == ["read", "91", rate(91 / 119.5025)]


async def test_last_minute_of_the_data(feed: OfflineFeed, db: Database) -> None:
    app = make_app(feed, "syscalls", window="minute")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        # the minute before the syscalls end (T0 + 119.5025 s): 30 + 15 + 1 reads
        assert rows(app)[0] == [
            "read",
            "46",
            rate(46 / 60),
            "3.55ms",
            "77.2µs",
            "50.0µs",
            "2.50ms",
            "python3",
        ]
        assert column(app, 0) == ["read", "openat", "write"]
        assert [r[2] for r in rows(app)[1:]] == [rate(10 / 60), rate(20 / 60)]
        end = T0 + 119_502_500_000
        events = db.execute(
            "SELECT count(*) FROM events WHERE ts >= ? AND ts <= ?", [end - 60 * NS, end]
        )[0][0]
        header = text_of(app, "#header")
        assert "nodes 3/4" in header
        assert f"{rate(events / 60)} ev/s" in header
        assert "discarded 7 (1 pkt lost)" in header
        assert "window: last minute" in header
        assert text_of(app, "#status").startswith("3 rows")


async def test_window_and_group_toggles(feed: OfflineFeed) -> None:
    app = make_app(feed, "syscalls", window="minute")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        assert column(app, 0) == ["futex", "epoll_wait", "read", "openat", "write"]
        assert "whole session" in text_of(app, "#header")
        await press(pilot, "w")
        assert column(app, 0) == ["read"]
        await press(pilot, "w", "w", "g")
        assert rows(app)[0][:2] == ["futex", "db01"]
        assert "per syscall × node" in text_of(app, "#header")
        await press(pilot, "g")
        assert [r[:3] for r in rows(app)[:2]] == [
            ["db01", "201", "postgres"],
            ["web03", "103", "nginx"],
        ]
        assert rows(app)[0][-1] == "futex"
        await press(pilot, "g")
        assert column(app, 0)[0] == "futex"


async def test_sort_keys_and_reverse(feed: OfflineFeed) -> None:
    app = make_app(feed, "syscalls", window="session")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "greater_than_sign")  # TOTAL -> AVG
        assert app.screen.sort == "avg_ns"
        assert column(app, 0) == ["futex", "epoll_wait", "openat", "read", "write"]
        await press(pilot, "less_than_sign", "less_than_sign", "less_than_sign")  # -> CALLS
        assert app.screen.sort == "calls"
        assert column(app, 1) == ["91", "40", "12", "10", "5"]
        await press(pilot, "r")
        assert column(app, 1) == ["5", "10", "12", "40", "91"]
        assert "sort: CALLS ▲" in text_of(app, "#header")
        await press(pilot, "less_than_sign")  # -> SYSCALL, alphabetical
        assert column(app, 0) == ["epoll_wait", "futex", "openat", "read", "write"]


async def test_header_click_sorts(feed: OfflineFeed) -> None:
    app = make_app(feed, "syscalls", window="session")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = app.screen.table
        table.post_message(
            table.HeaderSelected(
                table, table.columns["max_ns"].key, 6, table.columns["max_ns"].label
            )
        )
        await settle(pilot)
        assert app.screen.sort == "max_ns"
        assert column(app, 0)[:2] == ["futex", "read"]


async def test_filter_box(feed: OfflineFeed) -> None:
    app = make_app(feed, "syscalls", window="session")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await pilot.press(*"node:web0*")
        app.screen.query_one("#filter").insert_text_at_cursor(" proc:nginx")
        await press(pilot, "enter")
        assert column(app, 0) == ["epoll_wait", "write", "read"]
        assert "filter: node:web0* proc:nginx" in text_of(app, "#header")
        assert app.screen.table.has_focus
        await press(pilot, "slash")
        app.screen.query_one("#filter").value = "bogus:1"
        await press(pilot, "enter")
        assert "unknown filter field" in text_of(app, "#status")
        assert column(app, 0) == ["epoll_wait", "write", "read"]
        assert app.screen.query_one("#filter").has_focus  # a bad filter keeps the box
        app.screen.query_one("#filter").value = "re*"
        await press(pilot, "enter")
        assert column(app, 0) == ["read"]


async def test_drill_down_per_node_and_process(feed: OfflineFeed) -> None:
    app = make_app(feed, "syscalls", window="session")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "down", "down", "enter")  # read
        assert isinstance(app.screen, BreakdownScreen)
        assert "syscall read" in text_of(app, "#header")
        assert [r[:2] + [r[4]] for r in rows(app, "#by-syscall_node")] == [
            ["read", "web02", "2.50ms"],
            ["read", "db01", "1.50ms"],
            ["read", "web01", "600µs"],
        ]
        assert [r[:3] for r in rows(app, "#by-process")] == [
            ["web02", "301", "python3"],
            ["db01", "201", "postgres"],
            ["web01", "101", "nginx"],
        ]
        await press(pilot, "escape")
        assert column(app, 0)[2] == "read"
        await press(pilot, "g", "g")  # per process: drill shows its syscalls
        await press(pilot, "enter")
        assert "process postgres (pid 201) on db01" in text_of(app, "#header")
        assert [r[0] for r in rows(app, "#by-syscall")] == ["futex", "read"]


async def test_q_types_in_the_filter_box_and_quits_elsewhere(feed: OfflineFeed) -> None:
    app = make_app(feed, "syscalls")
    async with app.run_test() as pilot:
        await settle(pilot)
        await press(pilot, "slash", "q")
        assert app.screen.query_one("#filter").value == "q"
        assert app.return_code is None
        await press(pilot, "escape")
        assert app.screen.query_one("#filter").value == ""
        await pilot.press("q")  # with the table focused, q leaves the view
        await pilot.pause()
    assert app.return_code == 0


def _add_late_read(db: Database, node: str) -> None:
    """A 9 ms read starting at the current "now": now moves 9 ms on, read's total grows."""
    ts = T0 + 120 * NS
    db.execute(
        "INSERT INTO syscalls VALUES (?, 'incident', 0, 9, 9, 'late', 'read', ?, ?, 9000000, 0)",
        [node, ts, ts + 9_000_000],
    )


async def test_pause_freezes_until_resumed(feed: OfflineFeed, db: Database) -> None:
    app = make_app(feed, "syscalls", window="interval")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert rows(app)[0][:2] == ["read", "1"]
        await press(pilot, "p")
        assert "[PAUSED]" in text_of(app, "#header")
        _add_late_read(db, "web01")
        app.screen.tick()
        await settle(pilot)
        assert rows(app)[0][:2] == ["read", "1"]
        await press(pilot, "p")  # resume: refresh, now moves to the new read
        assert "[offline]" in text_of(app, "#header")
        assert rows(app)[0][:2] == ["read", "2"]
        assert rows(app)[0][3] == "11.5ms"


async def test_rates_panel_and_silent_node(feed: OfflineFeed) -> None:
    app = make_app(feed, "syscalls", window="minute")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        labels = [str(w.render()) for w in app.screen.query(".rate")]
        q = app.screen.last_query
        shown = await feed.query(common.node_rates, q, "syscalls", "ts_entry")
        assert [r.node for r in shown] == ["db01", "web01", "web02", "web03"]
        assert labels[:3] == [f"{rate(r.last_rate)} ev/s" for r in shown[:3]]
        # web03's epoll_wait calls stop at T0 + 55 s: quiet for 64.5 s before the view's end
        # (T0 + 119.5 s), more than the 5 s a node may stay quiet
        assert labels[3].startswith("silent 1m04s")
        panel = app.screen.query_one("#rates")
        await press(pilot, "e")
        assert not panel.display
        await press(pilot, "e")
        assert panel.display


async def test_node_scope_from_config(feed: OfflineFeed) -> None:
    from fayshell.views.model import Scope

    app = make_app(feed, "syscalls", window="session", scope=Scope(nodes=("web02",)))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert column(app, 0) == ["read", "openat", "write"]
        assert "nodes 1/1" in text_of(app, "#header")


async def test_offline_ticks_skip_queries_until_the_data_changes(
    feed: OfflineFeed, db: Database
) -> None:
    app = make_app(feed, "syscalls", window="minute")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        done = app.screen.queries_done
        for _ in range(2):
            app.screen.tick()
            await settle(pilot)
        assert app.screen.queries_done == done
        _add_late_read(db, "web02")
        app.screen.tick()
        await settle(pilot)
        assert app.screen.queries_done == done + 1
        assert rows(app)[0][:2] == ["read", "47"]


async def test_newer_data_of_other_tables_does_not_empty_the_view(
    feed: OfflineFeed, db: Database
) -> None:
    """A database that also holds a later trace (here a log six years on, from another
    session): the syscalls view still opens on the syscalls' own range, not on an empty
    minute, and shows no wall-clock-style lag."""
    later = T0 + 6 * 365 * 86400 * NS
    db.execute(
        "INSERT INTO logs VALUES ('host9', 'other', ?, 'python', 'x', 30, 'Warning', "
        "'later', 'f', 1, 't', 1, 'p')",
        [later],
    )
    app = make_app(feed, "syscalls")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        header = text_of(app, "#header")
        assert "now 2023-11-14 22:15:19 UTC" in header
        assert column(app, 0) == ["futex", "epoll_wait", "read", "openat", "write"]
        assert "lag" not in header
