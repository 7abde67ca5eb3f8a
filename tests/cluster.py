"""Start or stop a real test cluster by hand (for benchmarks and poking around).

    python -m tests.cluster up 8      # prints the ssh_config / inventory paths, then waits
    python -m tests.cluster down      # tears down every cluster under /srv/fz

``up`` keeps running until Ctrl-C (or SIGTERM) and then tears the cluster down.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time

from tests.fixtures.cluster import BASE, _teardown, start_cluster


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.cluster")
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up", help="start N nodes and wait until interrupted")
    up.add_argument("count", type=int, nargs="?", default=8)
    up.add_argument("--no-sessiond", action="store_true")
    sub.add_parser("down", help="tear down every cluster under /srv/fz")
    args = ap.parse_args(argv)
    if args.cmd == "down":
        for root in BASE.iterdir() if BASE.is_dir() else []:
            _teardown(root)
        return 0
    start = time.monotonic()
    cluster = start_cluster(args.count, sessiond=not args.no_sessiond)
    print(f"{args.count} nodes up in {time.monotonic() - start:.2f}s: {cluster.nodeset}")
    print(f"ssh_config: {cluster.ssh_config}\ninventory:  {cluster.inventory}")
    print(f"try: ssh -F {cluster.ssh_config} node01 hostname")
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            time.sleep(3600)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
