"""Run `lttng` requests on one node's transport; a failure carries LTTng's reason.

Every command is an argv built by :mod:`fayshell.lttng.argv` (validated on construction) and
quoted element by element; nothing user-typed is concatenated into a shell line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fayshell.errors import LTTNG, RemoteError
from fayshell.lttng import ListSessions, Request, StartSessiond, to_command_line
from fayshell.lttng.explain import explain_failure, needs_sessiond

if TYPE_CHECKING:
    from fayshell.remote.results import CommandResult
    from fayshell.remote.transport import Transport

#: Per-node limit for ordinary lttng commands (seconds); rotate has its own (it can hang, 2.13.9).
COMMAND_TIMEOUT = 30.0
ROTATE_TIMEOUT = 20.0


async def run_argv(
    t: Transport,
    argv: list[str],
    timeout: float = COMMAND_TIMEOUT,
) -> CommandResult:
    """Run an lttng argv on the node; raise RemoteError(stage lttng) with LTTng's reason."""
    res = await t.run(to_command_line(argv), timeout=timeout)
    if res.exit_status != 0:
        rc = res.exit_status if not res.signal else -_signum(res.signal)
        raise RemoteError(t.node, LTTNG, explain_failure(argv, rc, res.stdout, res.stderr))
    return res


async def run_request(
    t: Transport,
    req: Request,
    timeout: float = COMMAND_TIMEOUT,
) -> CommandResult:
    """Run one typed request (``lttng --mi xml …``) on the node."""
    return await run_argv(t, req.argv(), timeout)


async def ensure_sessiond(t: Transport, timeout: float = COMMAND_TIMEOUT) -> tuple[bool, str]:
    """Start ``lttng-sessiond`` for the SSH user when none answers; return (started, list xml)."""
    argv = ListSessions().argv()
    res = await t.run(to_command_line(argv), timeout=timeout)
    if res.exit_status == 0:
        return False, res.stdout
    if not needs_sessiond(res.exit_status, res.stderr):
        raise RemoteError(
            t.node, LTTNG, explain_failure(argv, res.exit_status, res.stdout, res.stderr)
        )
    start = StartSessiond().argv()
    res = await t.run(to_command_line(start), timeout=timeout)
    if res.exit_status != 0:
        why = (res.stderr or res.stdout).strip().replace("\n", " ") or f"exit {res.exit_status}"
        raise RemoteError(t.node, LTTNG, f"no lttng-sessiond ran and starting one failed: {why}")
    return True, (await run_argv(t, argv, timeout)).stdout


def _signum(name: str) -> int:
    import signal

    try:
        return int(signal.Signals[name if name.startswith("SIG") else f"SIG{name}"])
    except KeyError:
        return 0
