"""Show-Top spans and logs, live, on the real cluster with the traced programs running.

A session on two nodes records the BlkKin C program's zipkin tracepoints and python logging
(lttngust). The views run their own rotate → pull → import loop; while the programs run the
counts on screen grow, and they always equal what the database holds; at the end they equal
what the programs say they emitted.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fayshell.views.live import close_feed
from tests.fixtures.shell import Shell
from tests.fixtures.traceshell import SYSTEM_PYTHON, run_on
from tests.views.helpers import make_app, rows, text_of
from tests.views.live_helpers import live_feed, tick, tick_until

SESSION = "livesl"
BLK, PY = "node01", "node02"
REQUESTS = 60
ROUNDS = 6
PY_LEVELS = {
    "DEBUG": "Debug",
    "INFO": "Info",
    "WARNING": "Warning",
    "ERROR": "Error",
    "CRITICAL": "Critical",
}


def db_rows(sh: Shell, sql: str) -> dict[Any, int]:
    """``SELECT key..., count`` over this session as {key: count}."""
    out = {}
    for *key, n in sh.state.database.execute(sql, [SESSION]):
        out[tuple(key) if len(key) > 1 else key[0]] = int(n)
    return out


def spans_shown(app: Any) -> dict[tuple[str, str], int]:
    return {(r.service, r.name): r.count for r in app.screen.rows}


def spans_in_db(sh: Shell) -> dict[tuple[str, str], int]:
    return db_rows(sh, "SELECT service, name, count(*) FROM spans WHERE session = ? GROUP BY ALL")


def severities_shown(app: Any) -> dict[str, int]:
    return {sev: n for sev, n in app.screen.page.counts if n}


def severities_in_db(sh: Shell) -> dict[str, int]:
    return db_rows(sh, "SELECT severity, count(*) FROM logs WHERE session = ? GROUP BY ALL")


async def test_spans_and_logs_live(
    cluster_shell: Shell, blkkin_binary: Path, pylog_script: Path
) -> None:
    sh = cluster_shell
    await sh.run(f"New-TraceSession {SESSION} -Node {BLK},{PY}")
    await sh.run(f"Enable-Tracepoint -Session {SESSION} -Domain user -Name 'zipkin:*'")
    await sh.run(f"Enable-Tracepoint -Session {SESSION} -Domain python")
    await sh.run(f"Start-Trace {SESSION}")

    # -- spans while the BlkKin program runs ------------------------------------------------
    run, feed = await live_feed(sh, "spans", SESSION)
    blk = asyncio.ensure_future(
        run_on(sh, BLK, [str(blkkin_binary), "--requests", str(REQUESTS), "--interval-ms", "120"])
    )
    app = make_app(feed, "spans", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await tick_until(
                pilot, lambda: sum(spans_shown(app).values()) > 0, what="the first spans"
            )
            first = sum(spans_shown(app).values())
            assert spans_shown(app) == spans_in_db(sh)
            assert not blk.done(), "the program should still be running: slow the workload"
            await tick_until(
                pilot, lambda: sum(spans_shown(app).values()) > first, what="more spans"
            )
            assert not blk.done(), "counts should grow while the program runs"
            assert spans_shown(app) == spans_in_db(sh)
            summary = (await blk)[BLK]
            total = summary["spans_per_request"] * REQUESTS
            await tick_until(
                pilot, lambda: sum(spans_shown(app).values()) == total, what=f"all {total} spans"
            )
            assert spans_shown(app) == spans_in_db(sh)
            # one span per hop and request, named by the calling service
            assert sorted(spans_shown(app).values()) == [REQUESTS] * 3
            assert {svc for svc, _ in spans_shown(app)} < set(summary["services"])
            shown_text = [r[:3] for r in rows(app)]
            assert [r[2] for r in shown_text] == [str(REQUESTS)] * 3
            await pilot.press("q")
    finally:
        await close_feed(feed)

    # -- logs while the python program runs --------------------------------------------------
    run, feed = await live_feed(sh, "logs", SESSION, severity="Warning")
    py = asyncio.ensure_future(
        run_on(
            sh,
            PY,
            [
                SYSTEM_PYTHON,
                str(pylog_script),
                "--count",
                "2",
                "--rounds",
                str(ROUNDS),
                "--interval",
                "1.0",
            ],
        )
    )
    app = make_app(feed, "logs", window="session", interval_ns=run.config.interval_ns)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await tick_until(
                pilot,
                lambda: severities_shown(app).get("Warning", 0) > 0,
                what="the first warnings",
            )
            first = sum(severities_shown(app).values())
            assert severities_shown(app) == severities_in_db(sh)
            assert not py.done(), "the program should still be running: slow the workload"
            await tick_until(
                pilot, lambda: sum(severities_shown(app).values()) > first, what="more log records"
            )
            assert severities_shown(app) == severities_in_db(sh)
            summary = (await py)[PY]
            want = {PY_LEVELS[k]: n for k, n in summary["per_level"].items()}
            await tick_until(pilot, lambda: severities_shown(app) == want, what=f"{want}")
            assert severities_in_db(sh) == want
            header = text_of(app, "#header")
            assert f"Warn {want['Warning']}" in header and f"Err {want['Error']}" in header
            shown_rows = [r.severity for r in app.screen.rows]
            assert set(shown_rows) == {"Warning", "Error", "Critical"}
            assert len(shown_rows) == want["Warning"] + want["Error"] + want["Critical"]
            await tick(pilot)
            await pilot.press("q")
        assert app.return_code == 0
    finally:
        await close_feed(feed)
    states = await sh.run(f"Get-TraceSession {SESSION}")
    assert {s.node: s.state for s in states} == {BLK: "active", PY: "active"}, "q keeps tracing"
    await sh.run(f"Remove-TraceSession {SESSION} -Force")
