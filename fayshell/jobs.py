"""Background jobs (about_Jobs): a script block run by a fayshell process of its own, as
PowerShell's Start-Job runs it in a process of its own. Nothing is shared with the shell that
started it but what is passed: ``-ArgumentList`` values and ``$using:`` variables, as JSON.

The protocol between the two is one JSON object per line on the child's stdout,
``{"k": kind, "v": value}``: ``o`` an output object, ``e`` an error, ``w`` a warning, ``v``
verbose, ``d`` debug and ``h`` a Write-Host line. The parent's reader thread owns the child's
pipe and appends what it reads to the job's results; Receive-Job takes them from there. A
line that is not such an object (a crash before the child could write JSON) is an error
record with its text. Output objects arrive deserialized, as PowerShell's job output does:
their properties, two levels deep, as ``[pscustomobject]``.

The child: ``python -m fayshell.jobs`` reads its :class:`JobSpec` on stdin, runs without a
profile, with a database of its own in the job's temporary directory (the shell's database
file is the shell's alone), the shell's inventory and SSH configuration, in the shell's
current directory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import IO, Any, Final, Literal, get_args

from fayshell.host import NullProgress, ProgressTask, Transcribing

#: What a job's result line holds: output, error, warning, verbose, debug, host text.
Kind = Literal["o", "e", "w", "v", "d", "h"]
KINDS: Final[tuple[Kind, ...]] = get_args(Kind)
#: PowerShell's JobState values a job here goes through.
JobState = Literal["Running", "Completed", "Failed", "Stopped"]
FINISHED: Final[tuple[JobState, ...]] = ("Completed", "Failed", "Stopped")
#: How deep output objects are written (ConvertTo-Json's default; PowerShell's job
#: serialization keeps nested objects' properties to about this depth too).
DEPTH: Final = 2
#: Seconds Stop-Job waits after SIGTERM before it kills.
STOP_GRACE_S: Final = 2.0


@dataclass(frozen=True)
class JobSpec:
    """What the child runs: the block's text, its arguments and ``$using:`` values (as JSON
    values), and the shell's settings it keeps."""

    block: str
    args: list[Any] = field(default_factory=list)
    using: dict[str, Any] = field(default_factory=dict)
    #: -InitializationScript's text, run in the job before the block ("": none).
    init: str = ""
    #: Where the block was written (its opening brace), for the places errors name; or, with
    #: ``whole_script``, the script file ``block`` is the text of (-FilePath).
    origin: str = "<job>"
    line: int = 1
    col: int = 1
    whole_script: bool = False
    database: str = ""
    inventory: str | None = None
    ssh_config: str | None = None

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> JobSpec:
        return cls(**json.loads(text))


def encode(kind: Kind, value: Any) -> str:
    """One protocol line (without its newline)."""
    return json.dumps({"k": kind, "v": value}, ensure_ascii=False, separators=(",", ":"))


def decode(line: str) -> tuple[Kind, Any]:
    """A protocol line as (kind, value); anything else is an error with the line's text."""
    try:
        got = json.loads(line)
    except json.JSONDecodeError:
        return "e", line.rstrip("\n")
    if isinstance(got, dict) and got.get("k") in KINDS and "v" in got:
        return got["k"], got["v"]
    return "e", line.rstrip("\n")


@dataclass
class Job:
    """One background job, as Get-Job lists it."""

    Id: int
    Name: str
    PSJobTypeName: str
    State: JobState
    HasMoreData: bool
    Location: str
    Command: str
    #: Its child process and results: not a property of the job (not shown or serialized).
    run: InitVar[JobRun]
    PSBeginTime: dt.datetime = field(repr=False)
    PSEndTime: dt.datetime | None = field(default=None, repr=False)
    TYPE_NAME = "System.Management.Automation.PSRemotingJob"

    def __post_init__(self, run: JobRun) -> None:
        self._run = run

    @property
    def finished(self) -> bool:
        return self.State in FINISHED

    def take(self, keep: bool, skip: int = 0) -> list[tuple[Kind, Any]]:
        """The results not received yet, past the first ``skip`` of them (with ``keep``, they
        stay not received)."""
        with self._run.lock:
            got = list(self._run.results[self._run.received + skip :])
            if not keep:
                self._run.received = len(self._run.results)
            self.HasMoreData = self._run.received < len(self._run.results) or not self.finished
        return got

    def stop(self) -> None:
        """End the child (SIGTERM, then SIGKILL after STOP_GRACE_S); the job is Stopped."""
        run = self._run
        if self.finished:
            return
        run.stopping = True
        with contextlib.suppress(ProcessLookupError):
            run.proc.send_signal(signal.SIGTERM)
        if not run.done.wait(STOP_GRACE_S):
            with contextlib.suppress(ProcessLookupError):
                run.proc.kill()
            run.done.wait()

    def remove(self) -> None:
        """Stop it if it runs and delete its temporary directory."""
        self.stop()
        shutil.rmtree(self._run.tmp, ignore_errors=True)


@dataclass
class JobRun:
    """A job's child process and what its reader thread collected (under ``lock``)."""

    proc: subprocess.Popen[str]
    tmp: Path
    results: list[tuple[Kind, Any]] = field(default_factory=list)
    received: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: threading.Event = field(default_factory=threading.Event)
    stopping: bool = False


@dataclass
class JobTable:
    """The shell's jobs by Id; Ids count from 1 for the session, as PowerShell's."""

    jobs: dict[int, Job] = field(default_factory=dict)
    next_id: int = 1

    def start(self, spec: JobSpec, name: str | None, cwd: str) -> Job:
        """Start a child for ``spec`` (its own temporary directory and database)."""
        import tempfile  # (not imported by every shell's start)

        tmp = Path(tempfile.mkdtemp(prefix="fayshell-job-"))
        proc = subprocess.Popen(
            [sys.executable, "-m", "fayshell.jobs", str(tmp)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            errors="replace",
            cwd=cwd if os.path.isdir(cwd) else None,
            start_new_session=True,  # Ctrl-C at the prompt is the shell's, not the job's
        )
        job_id, self.next_id = self.next_id, self.next_id + 1
        job = Job(
            Id=job_id,
            Name=name or f"Job{job_id}",
            PSJobTypeName="BackgroundJob",
            State="Running",
            HasMoreData=True,
            Location="localhost",
            Command=spec.block.strip(),
            PSBeginTime=dt.datetime.now(),
            run=JobRun(proc, tmp),
        )
        self.jobs[job_id] = job
        assert proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):  # stdin stays open: its end is the shell's
            proc.stdin.write(spec.to_json() + "\n")
            proc.stdin.flush()
        threading.Thread(target=_read, args=(job, proc.stdin), daemon=True, name=job.Name).start()
        return job

    def __iter__(self) -> Iterator[Job]:
        return iter(sorted(self.jobs.values(), key=lambda j: j.Id))

    def remove(self, job: Job) -> None:
        job.remove()
        self.jobs.pop(job.Id, None)

    def close(self) -> None:
        """Stop every job still running and remove them all (the shell ends: no child of it
        is left behind)."""
        for job in list(self):
            self.remove(job)


def _read(job: Job, stdin: IO[str]) -> None:
    """The reader thread: owns the child's pipes once it has its spec, collects its lines,
    and records how it ended."""
    run = job._run
    assert run.proc.stdout is not None
    for line in run.proc.stdout:
        if line.strip():
            with run.lock:
                run.results.append(decode(line))
    code = run.proc.wait()
    run.proc.stdout.close()
    with contextlib.suppress(BrokenPipeError):
        stdin.close()
    with run.lock:
        job.State = "Stopped" if run.stopping else ("Completed" if code == 0 else "Failed")
        job.PSEndTime = dt.datetime.now()
        job.HasMoreData = run.received < len(run.results)
    run.done.set()


# ---- the child -----------------------------------------------------------------------------


class JobHost(Transcribing):
    """The child's host: every stream written as protocol lines on stdout."""

    def __init__(self, out: IO[str]) -> None:
        self.out = self.err = out  # type: ignore[assignment]
        self.lock = threading.Lock()

    def emit(self, kind: Kind, value: Any) -> None:
        with self.lock:
            self.out.write(encode(kind, value) + "\n")
            self.out.flush()

    def write_host(self, text: str, color: str | None = None, newline: bool = True) -> None:
        self.emit("h", text)

    def verbose(self, message: str) -> None:
        self.emit("v", message)

    def debug(self, message: str) -> None:
        self.emit("d", message)

    def warning(self, message: str) -> None:
        self.emit("w", message)

    def error(self, message: str) -> None:
        self.emit("e", message)

    def report(self, exc: Any) -> None:
        self.emit("e", exc.one_line())

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask:
        return NullProgress()

    def confirm(self, question: str) -> bool:
        return False  # no one to answer in a job: -Confirm is "no"

    def read_line(self, prompt: str, secret: bool = False) -> str | None:
        return None  # no console: Read-Host reads nothing

    def show(self, output: Any) -> None:
        """One statement's output, each object as an ``o`` line."""
        from fayshell.commands.data import JsonWrite, json_value
        from fayshell.lang.streams import is_relation
        from fayshell.render import Formatted, render_lines

        for item in [output] if is_relation(output) else output or []:
            if is_relation(item):
                for row in item.records():
                    self.emit("o", json_value(row, DEPTH, JsonWrite()))
            elif isinstance(item, Formatted):  # Format-Table in a job: its lines of text
                for line in render_lines([item]):
                    self.emit("o", line)
            else:
                self.emit("o", json_value(item, DEPTH, JsonWrite()))


async def run_child(spec: JobSpec, host: JobHost) -> int:
    """Run ``spec`` in this process and return its exit status (0: Completed)."""
    from fayshell.cli import run_source
    from fayshell.commands.data import with_dates
    from fayshell.lang.interp import Interpreter
    from fayshell.state import Options, ShellState

    options = Options(database=spec.database, inventory=spec.inventory, ssh_config=spec.ssh_config)
    state = ShellState(options=options, host=host)
    try:
        interp = Interpreter(state)
        for name, value in spec.using.items():
            state.globals.set_local(name, with_dates(value, dict))
        if spec.init:
            code = await run_source(state, host, f"& {{{spec.init}}}", "<InitializationScript>")
            if code:
                return code
        script = await _bound(interp, spec, [with_dates(a, dict) for a in spec.args])
        return await run_source(state, host, script, spec.origin)
    finally:
        await state.aclose()


async def _bound(interp: Any, spec: JobSpec, args: list[Any]) -> Any:
    """The job's statements as a script of their own, its parameters bound to ``args`` as a
    script block binds them: run at the top, each statement's output is sent as soon as it
    ends (not when the whole block does), and errors name the place in ``spec.origin``. A
    block written with begin/process/end is called as a whole instead."""
    from fayshell.lang import ast

    scope = interp.state.globals
    if spec.whole_script:  # -FilePath: the file's own text, parsed as the file
        script = interp.parse(spec.block, spec.origin)
        params, body, source = script.params, script.statements, spec.block
    else:  # the block where it was written: its braces at their line and column
        source = "\n" * (spec.line - 1) + " " * (spec.col - 1) + "{" + spec.block + "}"
        (block,) = await interp.run(source, spec.origin)
        if block.node.named is not None:
            scope.set_local("__fay_job_block", block)
            scope.set_local("__fay_job_args", args)
            return interp.parse("& $__fay_job_block @__fay_job_args", spec.origin)
        params, body = block.node.params, block.node.body
    for i, decl in enumerate(params):
        given = args[i] if i < len(args) else await interp.param_default(decl, scope)
        scope.set_local(decl.name, given)
    scope.set_local("args", args[len(params) :])
    return ast.Script(line=1, col=1, statements=body, source=source, file=spec.origin)


def main(job_dir: Path) -> int:
    """``python -m fayshell.jobs DIR``: the child side, in the job's directory ``DIR``. Its
    spec is the first line of stdin; the end of stdin (before a spec, or later) means the
    shell is gone (ended, killed, hung up) or stopped the job: then it ends too. However it
    ends, it removes its directory (only it uses it): a shell killed later leaves none."""
    import asyncio

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        line = sys.stdin.readline()
        if not line:
            return 143
        spec = dataclasses.replace(JobSpec.from_json(line), database=str(job_dir / "job.duckdb"))
        threading.Thread(target=_end_with_stdin, daemon=True).start()
        return asyncio.run(run_child(spec, JobHost(sys.stdout)))
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)


def _end_with_stdin() -> None:
    """Wait for the end of stdin, then end this process as Stop-Job would."""
    sys.stdin.read()
    os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
