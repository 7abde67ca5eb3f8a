"""Processes of the operator's machine: Get-Process, read from /proc (Invoke-Command asks a
node's own)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from fayshell import errorids
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import BY_PROPERTY, Param, cmdlet
from fayshell.lang.dates import DateTime
from fayshell.lang.ops import has_wildcard, wildcard_match

PROC = Path("/proc")


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
    TYPE_NAME = "System.Diagnostics.Process"

    @property
    def Name(self) -> str:  # noqa: N802 - .NET property name
        return self.ProcessName

    @property
    def WorkingSet64(self) -> int:  # noqa: N802 - .NET property name
        return self.WS


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
    import pwd

    try:
        return pwd.getpwuid(int(uid_line.split()[0])).pw_name
    except (IndexError, ValueError, KeyError):
        return ""


def _no_process(target: str, given: str, what: str) -> ErrorRecord:
    """PowerShell's error for a process Get-Process cannot find by id or name."""
    return ErrorRecord(
        target,
        "",
        f"Cannot find a process with {what}",
        category="ObjectNotFound",
        names_target=True,
        exception="Microsoft.PowerShell.Commands.ProcessCommandException",
        error_id=errorids.qualified(f"NoProcessFoundForGiven{given}", "Get-Process"),
    )


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
    boot = _boot_time()
    pids = id if id is not None else sorted(int(p.name) for p in PROC.iterdir() if p.name.isdigit())
    found = [p for p in (read_process(pid, boot) for pid in pids) if p is not None]
    if name:
        found = [p for p in found if any(wildcard_match(p.ProcessName, n) for n in name)]
    for pid in id or []:
        if not any(p.Id == pid for p in found):
            ctx.write_error(_no_process(str(pid), "Id", f"the process identifier {pid}."))
    for want in [n for n in name or [] if not has_wildcard(n)]:
        if not any(p.ProcessName.lower() == want.lower() for p in found):
            why = f'the name "{want}". Verify the process name and call the cmdlet again.'
            ctx.write_error(_no_process(want, "Name", why))
    return sorted(found, key=lambda p: (p.ProcessName.lower(), p.Id))
