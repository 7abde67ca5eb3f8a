"""Background jobs (about_Jobs): Start-Job, Get-Job, Receive-Job, Wait-Job, Stop-Job and
Remove-Job over the shell's :class:`fayshell.jobs.JobTable`."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from fayshell.commands.data import JsonWrite, json_value, with_dates
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import BY_VALUE, Param, cmdlet
from fayshell.errors import CommandError, ParameterError
from fayshell.jobs import DEPTH, FINISHED, Job, JobSpec, Kind
from fayshell.lang import ast
from fayshell.lang.ops import to_string, wildcard_match
from fayshell.lang.streams import collect
from fayshell.lang.values import ScriptBlock

#: How often a wait looks at its jobs (seconds).
POLL_S = 0.02

JOB = Param("Job", "any", position=0, pipeline=BY_VALUE, help="Jobs (from Start-Job or Get-Job).")
ID = Param("Id", "ints", help="Jobs by their Id.")
NAME = Param("Name", "strings", help="Jobs by name (wildcards allowed).")


@cmdlet(
    "Start-Job",
    aliases=("sajb",),
    synopsis="Run a script block in the background, in a fayshell process of its own.",
    description="The job shares nothing with this shell but what is passed to it: "
    "-ArgumentList values and $using:name variables, as objects' properties (two levels "
    "deep). It runs without the profile, in the current directory, with this shell's "
    "inventory and SSH configuration and a database of its own (the shell's database file "
    "is the shell's alone). Receive-Job gets its output; jobs still running when the shell "
    "ends are stopped.",
    params=[
        Param("ScriptBlock", "scriptblock", position=0, help="What the job runs."),
        Param("FilePath", str, complete="files", help="A script file the job runs instead."),
        Param(
            "ArgumentList",
            "any",
            position=1,
            aliases=("Args",),
            help="Values for the block's parameters (or $args).",
        ),
        Param("Name", str, help="The job's name (default: Job<Id>)."),
        Param("InitializationScript", "scriptblock", help="Run in the job before the block."),
    ],
    examples=[
        (
            "$j = Start-Job { Get-Process | Sort-Object CPU -Descending | Select-Object -First 3 }",
            "The three busiest processes, found in the background.",
        ),
        (
            "Start-Job { param($n) Invoke-Command -Node $n -Command uptime } -ArgumentList web[1-4]",
            "A fan-out in the background; the shell stays free.",
        ),
        ("Receive-Job $j -Wait -AutoRemoveJob", "Its output, once it is done; then it is gone."),
    ],
)
def start_job(
    ctx: Invocation,
    *,
    script_block: ScriptBlock | None = None,
    file_path: str | None = None,
    argument_list: Any = None,
    name: str | None = None,
    initialization_script: ScriptBlock | None = None,
) -> list[Job]:
    if (script_block is None) == (file_path is None):
        raise ParameterError("Start-Job", "ScriptBlock", "give a script block or -FilePath")
    args = argument_list if isinstance(argument_list, list) else [argument_list]
    if script_block is not None:  # where it was written, for the places errors name
        origin = script_block.interp.origin.file
        text, line, col = script_block.text, script_block.node.line, script_block.node.col
    else:
        path = ctx.state.resolve_path(file_path or "")
        origin, text, line, col = str(path), _script_text(path), 1, 1
    spec = JobSpec(
        block=text,
        origin=origin,
        line=max(line, 1),
        col=max(col, 1),
        whole_script=script_block is None,
        args=[_sent(a) for a in args] if argument_list is not None else [],
        using=_using_values(script_block) if script_block is not None else {},
        init=initialization_script.text if initialization_script is not None else "",
        inventory=_option(ctx.state.options.inventory),
        ssh_config=_option(ctx.state.options.ssh_config),
    )
    return [ctx.state.jobs.start(spec, name, ctx.state.location)]


def _script_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise CommandError("Start-Job", f"cannot read {path}: {reason}") from None


def _option(value: Any) -> str | None:
    return None if value is None else str(value)


def _sent(value: Any) -> Any:
    """A value as the job receives it: its JSON form, as deserialized job input."""
    return json_value(value, DEPTH, JsonWrite())


def _using_values(block: ScriptBlock) -> dict[str, Any]:
    """The ``$using:name`` variables the block reads, with their values where it was
    written; PowerShell's error for one that is not set."""
    values: dict[str, Any] = {}
    for name in _using_names(block.node):
        found, value = block.scope.lookup(name.lower())
        if not found:
            raise CommandError(
                "Start-Job",
                f"The value of the using variable '$using:{name}' cannot be retrieved because "
                "it has not been set in the local session.",
            )
        values[name] = _sent(value)
    return values


def _using_names(node: Any) -> Iterator[str]:
    """Every ``$using:name`` under ``node`` (a syntax tree of dataclasses)."""
    if isinstance(node, ast.VarRef):
        prefix, _, rest = node.name.partition(":")
        if rest and prefix.lower() == "using":
            yield rest
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _using_names(item)
    elif isinstance(node, dict):
        for item in node.values():
            yield from _using_names(item)
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            yield from _using_names(getattr(node, f.name))


@cmdlet(
    "Get-Job",
    aliases=("gjb",),
    synopsis="List this shell's background jobs.",
    params=[
        Param("Id", "ints", position=0, help="Jobs by their Id."),
        NAME,
        Param("State", str, choices=("Running", *FINISHED), help="Only jobs in this state."),
    ],
    examples=[
        ("Get-Job", "Every job, its state and whether it has output."),
        ("gjb -State Failed", "The jobs whose block threw."),
    ],
)
def get_job(
    ctx: Invocation,
    *,
    id: list[int] | None = None,
    name: list[str] | None = None,
    state: str | None = None,
) -> list[Job]:
    jobs = _chosen(ctx, None, id, name)
    return [j for j in jobs if state is None or j.State.lower() == state.lower()]


async def _given(
    ctx: Invocation, job: Any, ids: list[int] | None, names: list[str] | None
) -> list[Job]:
    """The jobs a command acts on: piped or -Job objects, -Id, -Name (else an error)."""
    items = await collect(ctx.input) if ctx.input is not None else ([] if job is None else job)
    items = items if isinstance(items, list) else [items]
    if not items and ids is None and names is None:
        raise ParameterError(ctx.name, "Job", "give jobs (-Job, -Id, -Name or from the pipeline)")
    return _chosen(ctx, items, ids, names)


def _chosen(
    ctx: Invocation, items: list[Any] | None, ids: list[int] | None, names: list[str] | None
) -> list[Job]:
    table = ctx.state.jobs
    out: list[Job] = []
    for item in items or []:
        if not isinstance(item, Job):
            raise ParameterError(ctx.name, "Job", f"{to_string(item)!r} is not a job")
        out.append(item)
    for n in ids or []:
        if n not in table.jobs:
            raise CommandError(
                ctx.name,
                f"The command cannot find a job with the job ID {n}. Verify the value of the Id "
                "parameter and then try the command again.",
            )
        out.append(table.jobs[n])
    for pattern in names or []:
        found = [j for j in table if wildcard_match(j.Name, pattern)]
        if not found:
            raise CommandError(
                ctx.name,
                f"The command cannot find the job because the job name {pattern} was not found. "
                "Verify the value of the Name parameter, and then try the command again.",
            )
        out.extend(found)
    if items is None and ids is None and names is None:
        out = list(table)
    return list({j.Id: j for j in out}.values())


@cmdlet(
    "Receive-Job",
    aliases=("rcjb",),
    synopsis="The output of background jobs so far (each result once, unless -Keep).",
    description="Output objects come back as [pscustomobject]s of their properties. The job's "
    "errors, warnings, verbose and Write-Host lines are written as this command's own.",
    params=[
        JOB,
        ID,
        NAME,
        Param("Keep", bool, help="Keep the results: the next Receive-Job gets them again."),
        Param(
            "Wait",
            bool,
            help="Give results as the jobs write them (a statement's when it ends), until they end.",
        ),
        Param("AutoRemoveJob", bool, help="With -Wait: remove the jobs afterwards."),
    ],
    examples=[
        ("Get-Job | Receive-Job -Keep", "What every job wrote so far; kept for the next time."),
        ("Receive-Job -Id 1 -Wait -AutoRemoveJob", "Results as they come, then the job is gone."),
    ],
    stream=True,
)
async def receive_job(
    ctx: Invocation,
    *,
    job: Any = None,
    id: list[int] | None = None,
    name: list[str] | None = None,
    keep: bool = False,
    wait: bool = False,
    auto_remove_job: bool = False,
) -> AsyncIterator[Any]:
    if auto_remove_job and not wait:
        raise ParameterError("Receive-Job", "AutoRemoveJob", "only with -Wait")
    jobs = await _given(ctx, job, id, name)
    for j in jobs:
        for value in _relayed(ctx, j, j.take(keep)) if not wait else []:
            yield value
    if wait:
        async for value in _as_they_come(ctx, jobs):
            yield value
        for j in jobs if not keep else []:  # all given: received (not before, see below)
            j.take(keep=False)
    for j in jobs if auto_remove_job else []:
        await asyncio.to_thread(ctx.state.jobs.remove, j)


async def _as_they_come(ctx: Invocation, jobs: list[Job]) -> AsyncIterator[Any]:
    """-Wait: each job's results as it writes them, until every job has ended. They stay
    not received until then: a wait interrupted (Ctrl-C) before the statement could show
    them loses nothing, the next Receive-Job gets them."""
    taken = dict.fromkeys((j.Id for j in jobs), 0)  # how many of each were given
    while True:
        ended = all(j.finished for j in jobs)  # before the last take: nothing is missed
        for j in jobs:
            got = j.take(keep=True, skip=taken[j.Id])
            taken[j.Id] += len(got)
            for value in _relayed(ctx, j, got):
                yield value
        if ended:
            return
        await asyncio.sleep(POLL_S)


def _relayed(ctx: Invocation, job: Job, results: list[tuple[Kind, Any]]) -> list[Any]:
    """A job's results: output values returned, the other streams written here."""
    out: list[Any] = []
    for kind, value in results:
        if kind == "o":
            out.append(with_dates(value, dict))
        elif kind == "e":
            ctx.write_error(ErrorRecord(job.Name, "", to_string(value)))
        elif kind == "w":
            ctx.warn(to_string(value))
        elif kind == "v":
            ctx.show_verbose(to_string(value))
        elif kind == "d":
            ctx.show_debug(to_string(value))
        else:  # a Write-Host line
            ctx.write_host(to_string(value))
    return out


@cmdlet(
    "Wait-Job",
    aliases=("wjb",),
    synopsis="Wait until background jobs end; then output them.",
    params=[
        JOB,
        ID,
        NAME,
        Param("Any", bool, help="Wait for the first job to end, not for all."),
        Param("Timeout", int, help="Give up after this many seconds (then nothing is output)."),
    ],
    examples=[
        ("Get-Job | Wait-Job -Timeout 30", "Wait at most 30 s for every job."),
        ("Wait-Job -Id 1,2 -Any", "The first of the two jobs to end."),
    ],
    stream=True,
)
async def wait_job(
    ctx: Invocation,
    *,
    job: Any = None,
    id: list[int] | None = None,
    name: list[str] | None = None,
    any: bool = False,
    timeout: int | None = None,
) -> list[Job]:
    if timeout is not None and timeout < -1:
        raise ParameterError("Wait-Job", "Timeout", "must be -1 (no limit) or more")
    jobs = await _given(ctx, job, id, name)
    limit = None if timeout is None or timeout == -1 else float(timeout)
    if not await _wait(jobs, every=not any, timeout=limit):
        return []
    done = [j for j in jobs if j.finished]
    return done[:1] if any else done


async def _wait(jobs: list[Job], every: bool, timeout: float | None) -> bool:
    """Wait until every job (or one, ``every`` False) has ended; False at ``timeout``."""
    end = None if timeout is None else time.monotonic() + timeout
    while not (all if every else any)(j.finished for j in jobs):
        if end is not None and time.monotonic() >= end:
            return False
        await asyncio.sleep(POLL_S)
    return True


@cmdlet(
    "Stop-Job",
    aliases=("spjb",),
    synopsis="Stop background jobs (their process ends; what they wrote can still be received).",
    params=[JOB, ID, NAME, Param("PassThru", bool, help="Output the stopped jobs.")],
    examples=[("Get-Job -State Running | Stop-Job", "Stop every running job.")],
    stream=True,
)
async def stop_job(
    ctx: Invocation,
    *,
    job: Any = None,
    id: list[int] | None = None,
    name: list[str] | None = None,
    pass_thru: bool = False,
) -> list[Job]:
    jobs = await _given(ctx, job, id, name)
    for j in jobs:
        await asyncio.to_thread(j.stop)
    return jobs if pass_thru else []


@cmdlet(
    "Remove-Job",
    aliases=("rjb",),
    synopsis="Forget background jobs and their results (-Force: stop running ones first).",
    params=[JOB, ID, NAME, Param("Force", bool, help="Stop a running job and remove it.")],
    examples=[("Get-Job | Remove-Job -Force", "Stop and forget every job.")],
    stream=True,
)
async def remove_job(
    ctx: Invocation,
    *,
    job: Any = None,
    id: list[int] | None = None,
    name: list[str] | None = None,
    force: bool = False,
) -> None:
    for j in await _given(ctx, job, id, name):
        if not j.finished and not force:
            raise CommandError(
                "Remove-Job",
                f"The command cannot remove the job with the job ID {j.Id} because the job is "
                "not finished. To remove the job, first stop the job, or use the Force "
                "parameter.",
            )
        await asyncio.to_thread(ctx.state.jobs.remove, j)
