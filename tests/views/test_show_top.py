"""Show-Top and run_top: declared with the registry, light to import, runnable headless."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import Registry
from fayshell.commands.views import interval_ns, prepare, show_top
from fayshell.errors import CommandError
from fayshell.host import CaptureHost
from fayshell.state import Options, ShellState
from fayshell.views import run_top
from fayshell.views.scope import expand_nodes

ROOT = Path(__file__).resolve().parents[2]


def test_no_textual_or_duckdb_on_import() -> None:
    code = (
        "import sys, fayshell.views, fayshell.views.launch, fayshell.commands.views; "
        "bad = [m for m in ('textual', 'duckdb') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_cmdlet_is_declared() -> None:
    import fayshell.commands.views as mod

    reg = Registry.from_modules([mod])
    spec = reg.resolve("show-top")
    assert spec is not None and spec.family == "views"
    assert spec.param("View").choices == ("syscalls", "spans", "logs", "nodes")
    assert {p.name for p in spec.params} == {
        "View",
        "Session",
        "Node",
        "Interval",
        "Database",
        "Severity",
        "Source",
    }
    assert spec.param("Source").choices == ("Auto", "Agent", "Pull")
    assert spec.syntax().startswith("Show-Top [-View] <")


def _ctx(database: str) -> Invocation:
    import fayshell.commands.views as mod

    state = ShellState(options=Options(database=database), host=CaptureHost())
    spec = Registry.from_modules([mod]).resolve("Show-Top")
    assert spec is not None
    return Invocation(state=state, spec=spec)


def test_prepare_builds_the_config(store_path: Path) -> None:
    ctx = _ctx(str(store_path))
    run = prepare(ctx, "Logs", "incident", "web[01-02],db01", "500ms", None, "error")
    assert run.config.view == "logs"
    assert run.config.scope.session == "incident"
    assert sorted(run.config.scope.nodes) == ["db01", "web01", "web02"]
    assert run.config.interval_ns == 500_000_000
    assert run.config.severity == "Error"
    assert not run.owned and run.db is ctx.state.database
    with pytest.raises(CommandError, match="unknown severity"):
        prepare(ctx, "logs", None, None, None, None, "loud")
    with pytest.raises(CommandError, match="unknown view"):
        prepare(ctx, "disks", None, None, None, None, None)
    with pytest.raises(CommandError, match="no database at"):
        prepare(ctx, "spans", None, None, None, str(store_path) + ".typo", None)
    other = prepare(ctx, "spans", None, None, 2, str(store_path), None)
    assert other.owned and other.config.interval_ns == 2_000_000_000
    assert other.source == "Auto"
    other.db.close()
    assert prepare(ctx, "syscalls", None, None, None, None, None, "agent").source == "Agent"
    with pytest.raises(CommandError, match="unknown source 'ssh'"):
        prepare(ctx, "syscalls", None, None, None, None, None, "ssh")
    asyncio.run(ctx.state.aclose())


def test_show_top_refuses_without_a_terminal(store_path: Path) -> None:
    ctx = _ctx(str(store_path))
    with pytest.raises(CommandError, match="interactive terminal"):
        asyncio.run(show_top(ctx, "syscalls"))


def test_interval_forms() -> None:
    assert interval_ns(None) == 1_000_000_000
    assert interval_ns(1.5) == 1_500_000_000
    assert interval_ns("250ms") == 250_000_000
    with pytest.raises(ValueError):
        interval_ns("soon")


def test_expand_nodes() -> None:
    assert expand_nodes(None) == ()
    assert expand_nodes(["web01", {"name": "db01"}, "web01"]) == ("web01", "db01")


async def test_run_top_returns_when_q_is_pressed(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fayshell.views.ui.app import TopApp

    started: list[TopApp] = []
    mount = TopApp.on_mount

    def spy(self: TopApp) -> None:
        started.append(self)
        mount(self)

    monkeypatch.setattr(TopApp, "on_mount", spy)
    task = asyncio.create_task(
        run_top(
            "spans", str(store_path), node=None, interval_s=1.0, severity="Warning", headless=True
        )
    )
    for _ in range(750):  # up to 15 s on a loaded machine
        await asyncio.sleep(0.02)
        if started and started[0].screen.query("#table"):
            break
    assert started, "the app did not start"
    await started[0].run_action("quit_view")
    assert await asyncio.wait_for(task, 10) == 0


async def test_run_top_reports_bad_input_as_fay_errors(store_path: Path) -> None:
    from fayshell.errors import FayError, StoreError

    with pytest.raises(FayError, match="unknown severity"):
        await run_top("logs", str(store_path), node=None, interval_s=1, severity="Loud")
    with pytest.raises(StoreError, match="no database at"):
        await run_top("logs", str(store_path) + ".gone", node=None, interval_s=1, severity="Error")


async def test_show_top_stays_offline_for_a_session_it_cannot_follow(store_path: Path) -> None:
    from fayshell.commands.views import open_feed
    from fayshell.views.feeds import OfflineFeed

    ctx = _ctx(str(store_path))
    run = prepare(ctx, "logs", "incident", None, None, None, None)
    feed = await open_feed(ctx, run, None)
    assert isinstance(feed, OfflineFeed)
    assert any("was not created by this shell" in w for w in ctx.state.host.warnings)
    other = prepare(ctx, "logs", "incident", None, None, str(store_path), None)
    assert isinstance(await open_feed(ctx, other, None), OfflineFeed)  # -Database: post-mortem
    other.db.close()
    feed.close()
    await ctx.state.aclose()
