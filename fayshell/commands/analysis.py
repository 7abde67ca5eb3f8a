"""Analyses over the store: Compare-Node (which node is not like the others)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import Param, cmdlet

if TYPE_CHECKING:
    from fayshell.store.relation import Relation


@cmdlet(
    "Compare-Node",
    synopsis="Score every node's profile against the cluster's median profile; the most "
    "different first.",
    description="A node's profile over the time range: its syscall mix (share of each call) "
    "and latency percentiles (p50, p90 per call), span latency per service (p50, "
    "p90, error share) and log severities (share of each). Each feature is "
    "compared on a log scale with a robust z-score over the nodes: |l - median| / "
    "max(1.4826 MAD, ln 1.5), l = ln(value + e) (e = 1 percentage point for "
    "shares, 1 us for latencies); a node's score is the sum of its z (0: exactly "
    "the median profile). 'features' names the ones that differ most. -Last 5m ends at the newest timestamp in the store "
    "(post-mortem friendly); -Since/-Until take 'YYYY-MM-DD HH:MM:SS' (UTC), "
    "epoch nanoseconds, or a duration (that long before the newest timestamp).",
    params=[
        Param(
            "Node",
            "strings",
            position=0,
            complete="nodes",
            help="Only these nodes (wildcards allowed).",
        ),
        Param("Last", "duration", help="The last period of the data."),
        Param("Since", "any", help="Start of the range."),
        Param("Until", "any", help="End of the range (exclusive)."),
        Param("Top", int, default=3, help="How many features to name per node."),
        Param(
            "MinCalls",
            int,
            default=20,
            help="p50 only for calls/services seen this often (p90: 100 calls).",
        ),
    ],
    examples=[
        ("Compare-Node -Last 5m", "Which node behaved differently in the last 5 minutes."),
        (
            "Compare-Node | Select-Object -First 1 -ExpandProperty features",
            "What makes the most different node stand out.",
        ),
    ],
)
def compare_node(
    ctx: Invocation,
    *,
    node: list[str] | None = None,
    last: Any = None,
    since: Any = None,
    until: Any = None,
    top: int = 3,
    min_calls: int = 20,
) -> Relation:
    from fayshell.commands.store import _match, _store
    from fayshell.store.profile import ProfileQuery, Window, compare_sql, newest_sql

    if last is not None and (since is not None or until is not None):
        raise ctx.fail("give either -Last or -Since/-Until")
    if top < 1 or min_calls < 1:
        raise ctx.fail("-Top and -MinCalls must be at least 1")
    db = _store(ctx)
    cond = _match("node", node) or "true"
    newest = db.execute(newest_sql(cond))[0][0]
    if newest is None:
        raise ctx.fail(
            "no syscalls, spans or logs in the store" + (" for those nodes" if node else "")
        )
    if last is not None:
        window = Window(int(newest) - int(last), int(newest) + 1)
    else:
        window = Window(
            _instant(ctx, "Since", since, newest), _instant(ctx, "Until", until, newest)
        )
    query = ProfileQuery(window, cond, min_calls, top)
    rel = db.relation(compare_sql(query))
    ctx.write_verbose(rel.sql)
    if len(rel.records()) < 2:
        raise ctx.fail("needs data of at least two nodes in the range to compare")
    return rel


def _instant(ctx: Invocation, name: str, value: Any, newest: int) -> int | None:
    """-Since/-Until as epoch nanoseconds."""
    from fayshell.lang.values import Duration

    if value is None:
        return None
    if isinstance(value, Duration):
        return int(newest) - int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value))
        except ValueError:
            raise ctx.fail(
                f"-{name} {value!r}: not a time (write 'YYYY-MM-DD HH:MM:SS', UTC, "
                "epoch nanoseconds, or a duration like 10m)"
            ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
