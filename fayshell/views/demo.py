"""Run a view over a database file: ``python -m fayshell.views.demo DB [syscalls|spans|logs]``.

For looking at the views by hand (tmux at 80x24 and 200x50) and for post-mortems without the
shell. ``--node``, ``--interval`` and ``--severity`` mean what they mean for ``Show-Top``.
"""

from __future__ import annotations

import argparse
import asyncio

from fayshell.views import VIEWS, run_top


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fayshell.views.demo")
    parser.add_argument("database")
    parser.add_argument("view", nargs="?", default="syscalls", choices=VIEWS)
    parser.add_argument("--node", default=None)
    parser.add_argument("--session", default=None)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds")
    parser.add_argument("--severity", default="Warning")
    args = parser.parse_args(argv)
    return asyncio.run(
        run_top(
            args.view,
            args.database,
            node=args.node,
            interval_s=args.interval,
            severity=args.severity,
            session=args.session,
        )
    )


if __name__ == "__main__":
    raise SystemExit(main())
