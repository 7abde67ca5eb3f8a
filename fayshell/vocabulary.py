"""Words the user types for modes several layers share, each list written once here.

Light on purpose (no fayshell imports): the command modules read it at shell startup.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

#: The severity vocabulary, most severe first (the order LTTng and syslog use); how each
#: domain's log levels map to it is in :mod:`fayshell.lttng.severity`.
Severity = Literal["Emergency", "Alert", "Critical", "Error", "Warning", "Notice", "Info", "Debug"]
SEVERITIES: Final[tuple[Severity, ...]] = get_args(Severity)

#: LTTng tracing domains, in the order of lttng's own options (-k, -u, -j, -l, -p).
Domain = Literal["kernel", "user", "jul", "log4j", "python"]
DOMAINS: Final[tuple[Domain, ...]] = get_args(Domain)

#: The top-style dashboards (Show-Top, ``fayshell top``).
View = Literal["syscalls", "spans", "logs", "nodes"]
VIEWS: Final[tuple[View, ...]] = get_args(View)

#: Where a live view's data comes from: node rollups where an agent runs and pulling elsewhere
#: (Auto), node rollups only (Agent), or pulling every chunk into the shell's database (Pull).
FeedSource = Literal["Auto", "Agent", "Pull"]
FEED_SOURCES: Final[tuple[FeedSource, ...]] = get_args(FeedSource)
#: The views a node rollup can feed.
ROLLUP_VIEWS: Final[tuple[View, ...]] = ("syscalls", "spans", "logs")
