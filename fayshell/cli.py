"""The ``fayshell`` command: the REPL, ``-c CMD``, ``FILE.fay [args]``, a script on stdin, and
``fayshell top VIEW --db FILE``. Errors become one line on stderr and an exit code here only.

Exit codes: 0 success, 1 a command failed, 2 bad syntax or usage, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from fayshell import __version__
from fayshell.errors import FayError, ParseError

EXIT_OK, EXIT_FAILED, EXIT_SYNTAX, EXIT_INTERRUPTED = 0, 1, 2, 130


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fayshell",
        description="An operator shell for tracing a whole cluster at once.",
        epilog="fayshell top syscalls|spans|logs|nodes --db FILE  opens a dashboard over a database.")
    p.add_argument("script", nargs="?", help="a .fay script to run ('-' for stdin)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script ($args)")
    p.add_argument("-c", "--command", help="run one command line and exit")
    p.add_argument("--db", "--database", dest="database", help="DuckDB file (default: XDG data)")
    p.add_argument("--inventory", help="inventory TOML file of nodes and groups")
    p.add_argument("--ssh-config", help="OpenSSH client config (default ~/.ssh/config)")
    p.add_argument("--no-color", action="store_true", help="plain output even on a terminal")
    p.add_argument("--version", action="version", version=f"fayshell {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # numpy's OpenBLAS keeps a polling thread per core (seen using CPU during imports);
    # fayshell does no linear algebra and needs the cores for decoding and DuckDB.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if argv and argv[0] == "top":
        return _top(argv[1:])
    opts = build_parser().parse_args(argv)
    try:
        return asyncio.run(_run(opts))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


async def _run(opts: argparse.Namespace) -> int:
    from fayshell.console import ConsoleHost
    from fayshell.state import Options, ShellState

    interactive = opts.command is None and opts.script is None and sys.stdin.isatty()
    host = ConsoleHost(color=False if opts.no_color else None, interactive=interactive)
    options = Options(database=opts.database, inventory=opts.inventory,
                      ssh_config=opts.ssh_config, interactive=interactive)
    state = ShellState(options=options, host=host)
    try:
        if interactive:
            from fayshell.repl import Repl

            return await Repl(state, host).run()
        source, name = _source(opts)
        if source is None:
            return EXIT_SYNTAX
        state.globals.set_local("args", list(opts.args or []))
        return await run_source(state, host, source, name)
    finally:
        await state.aclose()


def _source(opts: argparse.Namespace) -> tuple[str | None, str]:
    if opts.command is not None:
        return opts.command, "<command>"
    if opts.script in (None, "-"):
        return sys.stdin.read(), "<stdin>"
    path = Path(opts.script)
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        sys.stderr.write(f"fayshell: cannot read script {opts.script}: {reason}\n")
        return None, str(path)


async def run_source(state: Any, host: Any, source: str, name: str) -> int:
    """Run a whole script non-interactively; the first error stops it with an exit code."""
    from fayshell.lang.interp import Interpreter

    interp = Interpreter(state)
    run = interp.run(source, name, on_output=host.show)
    task = asyncio.ensure_future(state.history.track(source if name.startswith("<") else name, run))
    try:
        await task
    except ParseError as exc:
        host.report(exc)
        return EXIT_SYNTAX
    except FayError as exc:
        host.report(exc)
        return EXIT_FAILED
    except asyncio.CancelledError:
        host.error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        _silence_stdout()
        return EXIT_OK
    except Exception as exc:  # a bug, not bad input: still one line, never a traceback
        host.error(f"internal error: {type(exc).__name__}: {exc}")
        return EXIT_FAILED
    return EXIT_OK


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _top(argv: list[str]) -> int:
    from fayshell.views.launch import VIEWS

    p = argparse.ArgumentParser(prog="fayshell top", description="Open a dashboard view.")
    p.add_argument("view", choices=VIEWS)
    p.add_argument("--db", "--database", dest="database", required=True)
    p.add_argument("--node", default=None)
    p.add_argument("--interval", type=float, default=1.0, help="refresh interval in seconds")
    p.add_argument("--severity", default="Warning")
    opts = p.parse_args(argv)
    if not Path(opts.database).exists():
        sys.stderr.write(f"fayshell top: no database at {opts.database}\n")
        return EXIT_SYNTAX
    from fayshell import views

    runner = getattr(views, "run_top", None)
    if runner is None:
        sys.stderr.write("fayshell top: the dashboard views are not installed\n")
        return EXIT_FAILED
    try:
        return int(asyncio.run(runner(opts.view, opts.database, node=opts.node,
                                      interval_s=opts.interval, severity=opts.severity)))
    except FayError as exc:
        sys.stderr.write(exc.one_line() + "\n")
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
