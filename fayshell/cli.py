"""The ``fayshell`` command: the REPL, ``-c CMD``, ``FILE.fay [args]``, a script on stdin, and
``fayshell top VIEW --db FILE``. Errors become output and an exit code in one function only
(:func:`fayshell.errors_report.report`); bad options are one line and exit code 2 here.

Exit codes (:class:`~fayshell.errors_report.ExitCode`): 0 success, 1 a command failed (or an
internal error), 2 bad syntax, option or argument, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell import __version__
from fayshell.errors_report import CrashLog, ExitCode, report
from fayshell.memory import reuse_freed_memory
from fayshell.profile import load_profile

if TYPE_CHECKING:
    from fayshell.lang.ast import Script

EXIT_OK, EXIT_FAILED, EXIT_SYNTAX, EXIT_INTERRUPTED = (
    ExitCode.OK,
    ExitCode.FAILED,
    ExitCode.USAGE,
    ExitCode.INTERRUPTED,
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fayshell",
        description="An operator shell for tracing a whole cluster at once.",
        epilog="fayshell top syscalls|spans|logs|nodes --db FILE  opens a dashboard over a database.",
    )
    p.add_argument("script", nargs="?", help="a .fay script to run ('-' for stdin)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script ($args)")
    p.add_argument("-c", "--command", help="run one command line and exit")
    p.add_argument("--db", "--database", dest="database", help="DuckDB file (default: XDG data)")
    p.add_argument("--inventory", help="inventory TOML file of nodes and groups")
    p.add_argument("--ssh-config", help="OpenSSH client config (default ~/.ssh/config)")
    p.add_argument("--no-color", action="store_true", help="plain output even on a terminal")
    p.add_argument(
        "--no-profile",
        "-NoProfile",
        dest="no_profile",
        action="store_true",
        help="do not run the profile ($XDG_CONFIG_HOME/fayshell/profile.fay)",
    )
    p.add_argument(
        "--working-directory", "-wd", help="start in this directory (pwsh's -WorkingDirectory)"
    )
    p.add_argument("--version", action="version", version=f"fayshell {__version__}")
    return p


#: pwsh's own command-line parameters (about_Pwsh) and their short names, as fayshell's:
#: (fayshell's option, or "" for one that changes nothing here; whether it takes a value).
PWSH_OPTIONS: dict[str, tuple[str, bool]] = {
    "-command": ("-c", True),
    **dict.fromkeys(("-file", "-f"), ("", True)),
    **dict.fromkeys(("-noprofile", "-nop"), ("--no-profile", False)),
    **dict.fromkeys(("-noninteractive", "-noni", "-nologo", "-nol"), ("", False)),
    **dict.fromkeys(("-executionpolicy", "-ex", "-ep"), ("", True)),
    **dict.fromkeys(("-workingdirectory", "-wd"), ("--working-directory", True)),
    **dict.fromkeys(("-version", "-v"), ("--version", False)),
    **dict.fromkeys(("-help", "-h", "-?"), ("--help", False)),
}


def pwsh_arguments(argv: list[str]) -> list[str]:
    """pwsh's way of starting a shell, in fayshell's options: ``-NoProfile -NonInteractive
    -Command Get-Date`` (the words after -Command are the command, joined by spaces, as pwsh
    joins them; ``-Command -`` reads it from standard input), ``-File x.ps1 a b`` (the words
    after the file are its arguments). ``-c`` stays fayshell's (one word, other options may
    follow). Options that change nothing here (-NoLogo, -ExecutionPolicy X) are dropped; the
    rest pass as they are. Stops at the first word that is not an option: the script and
    its arguments."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        known = PWSH_OPTIONS.get(word.lower()) if word.startswith("-") and word != "-" else None
        if known is None:
            if not word.startswith("-") or word == "-":
                return out + argv[i:]  # the script (or '-') and its arguments
            out.append(word)
            i += 1
            continue
        option, takes_value = known
        value = argv[i + 1] if takes_value and i + 1 < len(argv) else None
        if option == "-c" and value is not None:
            command = argv[i + 1 :]
            return [*out, "-"] if command == ["-"] else [*out, "-c", " ".join(command)]
        if word.lower() in ("-file", "-f") and value is not None:
            return [*out, *argv[i + 1 :]]
        if option:
            out += [option] + ([value] if value is not None else [])
        i += 2 if value is not None else 1
    return out


def prepare_process() -> None:
    """The process-wide settings the shell runs with, made before any thread starts (the soak
    bench makes them too, to measure what users run)."""
    # numpy's OpenBLAS keeps a polling thread per core (seen using CPU during imports);
    # fayshell does no linear algebra and needs the cores for decoding and DuckDB.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    reuse_freed_memory()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    prepare_process()
    if argv and argv[0] == "top":
        return _top(argv[1:])
    opts = build_parser().parse_args(pwsh_arguments(argv))
    problem = option_problem(opts.database, opts.inventory, opts.ssh_config)
    if opts.working_directory is not None and not problem:
        try:
            os.chdir(opts.working_directory)
        except OSError as exc:
            problem = f"-WorkingDirectory {opts.working_directory}: {exc.strerror}"
    if problem:
        return _usage("fayshell", problem)
    try:
        return asyncio.run(_run(opts, CrashLog()))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def option_problem(
    database: str | None,
    inventory: str | None = None,
    ssh_config: str | None = None,
    *,
    db_must_exist: bool = False,
) -> str:
    """What is wrong with the file options, as one line ('' when nothing is)."""
    if database is not None and database != ":memory:":
        path = Path(database).expanduser()
        if path.is_dir():
            return f"--db {database}: is a directory, not a database file"
        if db_must_exist and not path.exists():
            return f"--db {database}: no such database file"
        if not path.parent.is_dir():
            return f"--db {database}: directory {path.parent} does not exist"
    for flag, value in (("--inventory", inventory), ("--ssh-config", ssh_config)):
        if value is not None and not Path(value).expanduser().is_file():
            return f"{flag} {value}: no such file"
    return ""


def _usage(prog: str, message: str) -> int:
    sys.stderr.write(f"{prog}: {message}\n")
    return EXIT_SYNTAX


async def _run(opts: argparse.Namespace, crash_log: CrashLog) -> int:
    from fayshell.console import ConsoleHost
    from fayshell.state import Options, ShellState

    interactive = opts.command is None and opts.script is None and sys.stdin.isatty()
    host = ConsoleHost(color=False if opts.no_color else None, interactive=interactive)
    options = Options(
        database=opts.database,
        inventory=opts.inventory,
        ssh_config=opts.ssh_config,
        interactive=interactive,
    )
    state = ShellState(options=options, host=host)
    try:
        await load_profile(state, host, run=not opts.no_profile)
        if interactive:
            from fayshell.repl import Repl

            return await Repl(state, host, crash_log=crash_log).run()
        source, name = _source(opts)
        if source is None:
            return EXIT_SYNTAX
        state.globals.set_local("args", list(opts.args or []))
        return await run_source(state, host, source, name, crash_log)
    finally:
        host.transcribe(None)  # a transcript still running gets its footer
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


async def run_source(
    state: Any, host: Any, source: str | Script, name: str, crash_log: CrashLog | None = None
) -> int:
    """Run a whole script (its text, or parsed) non-interactively; the first error stops it
    with an exit code."""
    from fayshell.lang.interp import ExitSignal, Interpreter

    interp = Interpreter(state)
    if isinstance(source, str):
        run = interp.run(source, name, on_output=host.show)
        shown = source if name.startswith("<") else name
    else:
        run, shown = interp.run_script(source, on_output=host.show), name
    task = asyncio.ensure_future(state.history.track(shown, run, state.history_count))
    try:
        await task
        end_output(host)
        state.wait_for_writes()  # a chunk written in the background fails here, if at all
    except ExitSignal as exc:  # `exit N` in the script
        end_output(host)
        return exc.code & 0xFF
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        _silence_stdout()
        return EXIT_OK
    except (Exception, asyncio.CancelledError) as exc:
        end_output(host)
        return report(exc, host, crash_log or CrashLog())
    return EXIT_OK


def end_output(host: Any) -> None:
    """Write the table the script's last statements left open (a console host keeps one)."""
    try:
        getattr(host, "end_output", lambda: None)()
    except BrokenPipeError:
        _silence_stdout()


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
    problem = option_problem(opts.database, db_must_exist=True)
    if problem:
        return _usage("fayshell top", problem)
    if opts.interval <= 0:
        return _usage("fayshell top", f"--interval {opts.interval}: must be more than 0")
    from fayshell import views
    from fayshell.console import ConsoleHost

    runner = getattr(views, "run_top", None)
    if runner is None:
        sys.stderr.write("fayshell top: the dashboard views are not installed\n")
        return EXIT_FAILED
    try:
        return int(
            asyncio.run(
                runner(
                    opts.view,
                    opts.database,
                    node=opts.node,
                    interval_s=opts.interval,
                    severity=opts.severity,
                )
            )
        )
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as exc:
        return report(exc, ConsoleHost(out=sys.stderr, color=False), CrashLog())
