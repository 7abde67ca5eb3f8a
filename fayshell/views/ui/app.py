"""The textual app that hosts one top view; ``q`` leaves it and returns to the caller."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from fayshell.views.feeds import Feed
from fayshell.views.launch import TopConfig
from fayshell.views.ui.base import TopScreen


def make_screen(feed: Feed, config: TopConfig) -> TopScreen:
    """The main screen of ``config.view``."""
    if config.view == "syscalls":
        from fayshell.views.ui.syscalls import SyscallsScreen

        return SyscallsScreen(feed, config)
    if config.view == "spans":
        from fayshell.views.ui.spans import SpansScreen

        return SpansScreen(feed, config)
    if config.view == "nodes":
        from fayshell.views.ui.nodes import NodesScreen

        return NodesScreen(feed, config)
    from fayshell.views.ui.logs import LogsScreen

    return LogsScreen(feed, config)


class TopApp(App[int]):
    """One view over one feed.

    ``show_timings`` off keeps screenshots deterministic; ``periodic`` off stops the
    interval timer (tests then call ``screen.tick()`` themselves).
    """

    TITLE = "fayshell top"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit_view", "Quit")]
    CSS = """
    Screen { layout: vertical; }
    #header { height: auto; padding: 0 1; background: $boost; }
    #filter { margin: 0 1; }
    #table { height: 1fr; }
    #status { height: 1; padding: 0 1; background: $boost; }
    """

    def __init__(
        self, feed: Feed, config: TopConfig, *, show_timings: bool = True, periodic: bool = True
    ) -> None:
        super().__init__()
        self.feed = feed
        self.config = config
        self.show_timings = show_timings
        self.periodic = periodic

    def on_mount(self) -> None:
        self.push_screen(make_screen(self.feed, self.config))

    def action_quit_view(self) -> None:
        """Leave the view; the caller (shell prompt or command line) takes over again."""
        self.exit(0)
