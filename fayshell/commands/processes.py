"""Processes of the operator's machine: Get-Process (read from /proc), Stop-Process and
Wait-Process (Invoke-Command asks a node's own)."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fayshell import errorids
from fayshell.commands.accounts import user_name
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import BY_PROPERTY, BY_VALUE, Param, cmdlet
from fayshell.errors import ParameterError
from fayshell.lang.dates import DateTime
from fayshell.lang.integers import Int64
from fayshell.lang.ops import has_wildcard, wildcard_match
from fayshell.render import FixedTable

PROC = Path("/proc")


#: PowerShell's view of processes: NPM(K), PM(M), WS(M), CPU(s), Id, SI, ProcessName.
PROCESS_VIEW = FixedTable(
    ("NPM(K)", "PM(M)", "WS(M)", "CPU(s)", "Id", "SI", "ProcessName"),
    (7, 8, 10, 10, 7, 3, 0),
    (True, True, True, True, True, True, False),
)


@dataclass(frozen=True)
class ProcessInfo:
    """A process as Get-Process shows it (sizes in bytes, CPU in seconds)."""

    Id: int
    ProcessName: str
    CPU: float
    WS: int
    PM: int
    VM: int
    Threads: int
    StartTime: DateTime = field(repr=False)
    Path: str | None = field(default=None, repr=False)
    CommandLine: str = field(default="", repr=False)
    UserName: str = field(default="", repr=False)
    #: Non-paged memory (none on Linux) and the process's session id, as .NET's NPM and SI.
    NPM: int = field(default=0, repr=False)
    SI: int = field(default=0, repr=False)
    TYPE_NAME = "System.Diagnostics.Process"

    #: PowerShell's table of processes: memory in MB and CPU seconds with two decimals.
    TABLE_VIEW = PROCESS_VIEW

    def view_cells(self) -> list[str]:
        mb = 1024 * 1024
        return [
            str(self.NPM // 1024),
            f"{self.PM / mb:,.2f}",
            f"{self.WS / mb:,.2f}",
            f"{self.CPU:,.2f}",
            str(self.Id),
            str(self.SI),
            self.ProcessName,
        ]

    @property
    def Name(self) -> str:  # noqa: N802 - .NET property name
        return self.ProcessName

    @property
    def WorkingSet64(self) -> int:  # noqa: N802 - .NET property name
        return Int64(self.WS)


def _boot_time() -> float:
    for line in (PROC / "stat").read_text().splitlines():
        if line.startswith("btime "):
            return float(line.split()[1])
    return 0.0


def read_process(pid: int, boot: float) -> ProcessInfo | None:
    """One process from /proc (None when it ended meanwhile or cannot be read)."""
    base = PROC / str(pid)
    try:
        stat = (base / "stat").read_text()
        status = dict(
            line.split(":", 1) for line in (base / "status").read_text().splitlines() if ":" in line
        )
        cmdline = (base / "cmdline").read_bytes().replace(b"\0", b" ").strip()
    except OSError:
        return None
    name = stat[stat.index("(") + 1 : stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2 :].split()  # from field 3 (state) on
    tick = os.sysconf("SC_CLK_TCK")
    page = os.sysconf("SC_PAGE_SIZE")
    return ProcessInfo(
        Id=pid,
        ProcessName=name,
        CPU=round((int(fields[11]) + int(fields[12])) / tick, 2),
        WS=int(fields[21]) * page,
        PM=_kib(status.get("RssAnon", "0 kB")),
        VM=int(fields[20]),
        Threads=int(fields[17]),
        StartTime=DateTime.of(DateTime.fromtimestamp(boot + int(fields[19]) / tick), "Local"),
        Path=_exe(base),
        CommandLine=cmdline.decode(errors="replace"),
        UserName=_user(status.get("Uid", "")),
        SI=int(fields[3]),
    )


def _kib(text: str) -> int:
    parts = text.split()
    return int(parts[0]) * 1024 if parts else 0


def _exe(base: Path) -> str | None:
    try:
        return os.readlink(base / "exe")
    except OSError:  # another user's process, or a kernel thread
        return None


def _user(uid_line: str) -> str:
    """The user of /proc's "Uid:" line ('' when it names none)."""
    try:
        return user_name(int(uid_line.split()[0])) or ""
    except (IndexError, ValueError):
        return ""


def _no_process(command: str, target: str, given: str, what: str) -> ErrorRecord:
    """PowerShell's error for a process a command cannot find by id or name."""
    return ErrorRecord(
        target,
        "",
        f"Cannot find a process with {what}",
        category="ObjectNotFound",
        names_target=True,
        exception=PROCESS_EXCEPTION,
        error_id=errorids.qualified(f"NoProcessFoundForGiven{given}", command),
    )


PROCESS_EXCEPTION = "Microsoft.PowerShell.Commands.ProcessCommandException"


def find_processes(
    ctx: Invocation, name: list[str] | None, pid: list[int] | None, objects: list[Any] | None = None
) -> list[ProcessInfo]:
    """The processes named by id, by name (wildcards) or given as objects (Get-Process's),
    sorted by name then id; PowerShell's error for each id or plain name none has."""
    boot = _boot_time()
    wanted = pid if pid is not None else [p.Id for p in objects or [] if hasattr(p, "Id")]
    if pid is None and objects is None:
        wanted = sorted(int(p.name) for p in PROC.iterdir() if p.name.isdigit())
    found = [p for p in (read_process(i, boot) for i in wanted) if p is not None]
    if name:
        found = [p for p in found if any(wildcard_match(p.ProcessName, n) for n in name)]
    for i in pid or []:
        if not any(p.Id == i for p in found):
            ctx.write_error(_no_process(ctx.name, str(i), "Id", f"the process identifier {i}."))
    for want in [n for n in name or [] if not has_wildcard(n)]:
        if not any(p.ProcessName.lower() == want.lower() for p in found):
            why = f'the name "{want}". Verify the process name and call the cmdlet again.'
            ctx.write_error(_no_process(ctx.name, want, "Name", why))
    return sorted(found, key=lambda p: (p.ProcessName.lower(), p.Id))


@cmdlet(
    "Get-Process",
    aliases=("gps", "ps"),
    synopsis="The processes of this machine: name, id, CPU seconds, memory (from /proc).",
    description="WS is the resident set, PM the private (anonymous) resident memory, VM the "
    "virtual size, all in bytes; CPU is user plus system seconds. A process that ends while "
    "it is read is left out. Processes on the nodes: Invoke-Command.",
    params=[
        Param("Name", "strings", position=0, pipeline=BY_PROPERTY, help="Names (wildcards)."),
        Param("Id", "ints", help="Process ids."),
        Param("IncludeUserName", bool, help="Accepted: UserName is always filled in."),
    ],
    examples=[
        ("Get-Process lttng*", "The LTTng daemons here."),
        ("Get-Process | Sort-Object CPU -Descending | Select-Object -First 5", "The busiest."),
    ],
)
def get_process(
    ctx: Invocation,
    *,
    name: list[str] | None = None,
    id: list[int] | None = None,  # noqa: A002 - PowerShell's parameter name
    include_user_name: bool = False,
) -> list[ProcessInfo]:
    return find_processes(ctx, name, id)


def _target_params(first: str) -> list[Param]:
    """Stop-Process's and Wait-Process's ways to name processes; ``first`` takes the first
    positional argument (Stop-Process 4242, Wait-Process lttng-sessiond)."""
    return [
        Param("Id", "ints", position=0 if first == "Id" else None, help="Process ids."),
        Param(
            "Name",
            "strings",
            position=0 if first == "Name" else None,
            aliases=("ProcessName",),
            help="Names (wildcards).",
        ),
        Param("InputObject", "any", pipeline=BY_VALUE, help="Processes (from Get-Process)."),
    ]


def _targets(
    ctx: Invocation, name: list[str] | None, pid: list[int] | None, objects: list[Any] | None
) -> list[ProcessInfo]:
    """The processes a Stop-Process or Wait-Process names (one way or another is needed)."""
    if name is None and pid is None and objects is None:
        raise ParameterError(ctx.name, None, "give -Id, -Name or processes (-InputObject)")
    return find_processes(ctx, name, pid, objects)


@cmdlet(
    "Stop-Process",
    aliases=("kill", "spps"),
    synopsis="Stop processes of this machine (SIGKILL, as PowerShell's Stop-Process on Linux).",
    params=[
        *_target_params("Id"),
        Param("PassThru", bool, help="Output the processes stopped."),
        Param("Force", bool, help="Accepted (no prompt is asked without -Confirm)."),
    ],
    examples=[
        ("Stop-Process -Id 4242", "Stop one process."),
        ("Get-Process babeltrace* | Stop-Process -WhatIf", "Say what would be stopped."),
    ],
    should_process=True,
    stream=True,
)
async def stop_process(
    ctx: Invocation,
    *,
    id: list[int] | None = None,  # noqa: A002 - PowerShell's parameter name
    name: list[str] | None = None,
    input_object: Any = None,
    pass_thru: bool = False,
    force: bool = False,
) -> list[ProcessInfo]:
    objects = await _input(ctx, input_object)
    stopped = []
    for p in _targets(ctx, name, id, objects):
        if not ctx.should_process(f"{p.ProcessName} ({p.Id})", "Stop-Process"):
            continue
        try:
            os.kill(p.Id, signal.SIGKILL)
        except ProcessLookupError:
            pass  # it ended meanwhile: stopped all the same
        except OSError as exc:
            ctx.write_error(_cannot_stop(p, exc))
            continue
        stopped.append(p)
    return stopped if pass_thru else []


def _cannot_stop(p: ProcessInfo, exc: OSError) -> ErrorRecord:
    why = "Access is denied." if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
    return ErrorRecord(
        str(p.Id),
        "",
        f'Cannot stop process "{p.ProcessName} ({p.Id})" because of the following error: {why}',
        category="CloseError",
        names_target=True,
        exception=PROCESS_EXCEPTION,
        error_id=errorids.qualified("CouldNotStopProcess", "Stop-Process"),
    )


@cmdlet(
    "Wait-Process",
    synopsis="Wait until processes of this machine end (-Timeout: at most that many seconds).",
    params=[
        *_target_params("Name"),
        Param("Timeout", int, aliases=("TimeoutSec",), help="Seconds to wait at most."),
        Param("Any", bool, help="Return when any of them ends."),
        Param("PassThru", bool, help="Output the processes."),
    ],
    examples=[
        ("Wait-Process -Id 4242 -Timeout 30", "Until process 4242 ends, 30 s at most."),
        ("Get-Process lttng-relayd | Wait-Process", "Until the relay daemons end."),
    ],
    stream=True,
)
async def wait_process(
    ctx: Invocation,
    *,
    id: list[int] | None = None,  # noqa: A002 - PowerShell's parameter name
    name: list[str] | None = None,
    input_object: Any = None,
    timeout: int | None = None,
    any: bool = False,  # noqa: A002 - PowerShell's parameter name
    pass_thru: bool = False,
) -> list[ProcessInfo]:
    import asyncio
    import time

    objects = await _input(ctx, input_object)
    waited = _targets(ctx, name, id, objects)
    deadline = None if timeout is None else time.monotonic() + timeout
    while (alive := [p for p in waited if _running(p.Id)]) and not (
        any and len(alive) < len(waited)
    ):
        if deadline is not None and time.monotonic() >= deadline:
            for p in alive:
                ctx.write_error(_not_stopped(p))
            break
        await asyncio.sleep(POLL)
    return waited if pass_thru else []


#: How often Wait-Process looks at /proc, in seconds.
POLL = 0.05


def _running(pid: int) -> bool:
    """Is the process there and not a zombie (ended, waiting for its parent to reap it)?"""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :][:1] not in ("Z", "X")


def _not_stopped(p: ProcessInfo) -> ErrorRecord:
    return ErrorRecord(
        str(p.Id),
        "",
        f'This command stopped operation because process "{p.ProcessName} ({p.Id})" is not '
        "stopped in the specified time-out.",
        category="CloseError",
        names_target=True,
        exception="System.TimeoutException",
        error_id=errorids.qualified("ProcessNotTerminated", "Wait-Process"),
    )


async def _input(ctx: Invocation, input_object: Any) -> list[Any] | None:
    """The processes piped in (or given as -InputObject), or None when there are none."""
    from fayshell.lang.streams import collect

    if ctx.input is not None:
        return list(await collect(ctx.input))
    if input_object is None:
        return None
    return input_object if isinstance(input_object, list) else [input_object]
