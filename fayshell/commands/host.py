"""The session at the console: Get-Host, Read-Host, Start-/Stop-Transcript, Clear-Host, Get-History / Invoke-History / Clear-History,
Start-Sleep, Write-Progress and the execution policy."""

from __future__ import annotations

import asyncio
from typing import Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import BY_PROPERTY, Param, cmdlet
from fayshell.errors import CommandError, ParameterError
from fayshell.history import HistoryInfo
from fayshell.host import HostInfo, HostUI
from fayshell.lang.dotnet import EN_US, CultureInfo, DotNetError, culture_named
from fayshell.lang.ops import to_string
from fayshell.lang.streams import unroll
from fayshell.lang.values import Duration, Size

#: ANSI: erase the screen and the scrollback, cursor home.
CLEAR_SCREEN = "\x1b[2J\x1b[3J\x1b[H"


@cmdlet(
    "Get-Host",
    synopsis="The console host: its name, version, culture and the terminal's size ($Host).",
    examples=[("(Get-Host).UI.RawUI.WindowSize.Width", "How wide the terminal is.")],
)
def get_host(ctx: Invocation) -> HostInfo:
    state = ctx.state
    return HostInfo(UI=HostUI(_console=lambda: state.host))


@cmdlet(
    "Get-Culture",
    synopsis="The culture fayshell formats and parses in: en-US, whatever the machine's locale.",
    params=[Param("Name", str, position=0, help="A culture by name: en-US, or '' (invariant).")],
    examples=[("(Get-Culture).Name", "en-US")],
)
def get_culture(ctx: Invocation, *, name: str | None = None) -> CultureInfo:
    try:
        return EN_US if name is None else culture_named(name)
    except DotNetError as exc:
        raise ctx.fail(str(exc)) from None


@cmdlet(
    "Get-UICulture",
    synopsis="The culture of fayshell's messages: en-US.",
    examples=[("(Get-UICulture).Name", "en-US")],
)
def get_ui_culture(ctx: Invocation) -> CultureInfo:
    return EN_US


@cmdlet(
    "Read-Host",
    synopsis="Read a line the user types (or the next line of piped input).",
    description="On a terminal the prompt is shown as 'prompt: '; -AsSecureString and "
    "-MaskInput do not echo what is typed (the answer is a plain string here). At the end of "
    "the input the answer is $null.",
    params=[
        Param("Prompt", "any", position=0, rest=True, help="What to ask."),
        Param("AsSecureString", bool, help="Do not echo the answer."),
        Param("MaskInput", bool, help="Do not echo the answer."),
    ],
    examples=[
        ("$ok = Read-Host 'Restart web02? (y/n)'", "Ask before acting."),
        ("$token = Read-Host 'Token' -MaskInput", "Read a secret without echoing it."),
    ],
)
def read_host(
    ctx: Invocation,
    *,
    prompt: Any = None,
    as_secure_string: bool = False,
    mask_input: bool = False,
) -> str | None:
    words = prompt if isinstance(prompt, list) else [] if prompt is None else [prompt]
    text = " ".join(to_string(w) for w in words)
    return ctx.state.host.read_line(text, as_secure_string or mask_input)


@cmdlet(
    "Start-Transcript",
    synopsis="Record the session (what is typed and everything shown) in a text file.",
    description="The file gets PowerShell's transcript header and, at Stop-Transcript or "
    "when the shell ends, its footer. Without -Path it is "
    "~/PowerShell_transcript.<machine>.<random>.<time>.txt. Colours are left out; secrets "
    "typed at Read-Host -MaskInput are not shown, so they are not recorded.",
    params=[
        Param("Path", str, position=0, aliases=("LiteralPath",), help="The transcript file."),
        Param("OutputDirectory", str, help="A directory for a file named as without -Path."),
        Param("Append", bool, help="Add to the file instead of replacing it."),
        Param("NoClobber", bool, help="Refuse to replace an existing file."),
        Param("Force", bool, help="Accepted for compatibility."),
        Param("IncludeInvocationHeader", bool, help="Accepted for compatibility."),
    ],
    examples=[
        ("Start-Transcript ~/incident-42.txt", "Keep a record of the incident session."),
        ("Start-Transcript -OutputDirectory ~/incidents -Append", "One more file there."),
    ],
)
def start_transcript(
    ctx: Invocation,
    *,
    path: str | None = None,
    output_directory: str | None = None,
    append: bool = False,
    no_clobber: bool = False,
    force: bool = False,
    include_invocation_header: bool = False,
) -> str:
    from fayshell.transcript import Transcript, default_path

    if ctx.state.host.transcript is not None:
        raise ctx.fail("a transcript is already running; Stop-Transcript ends it")
    if path:
        target = ctx.state.resolve_path(path)
    elif output_directory:
        target = ctx.state.resolve_path(output_directory) / default_path().name
    else:
        target = default_path()
    if no_clobber and target.exists():
        raise ctx.fail(f"{target} already exists (-NoClobber)")
    try:
        transcript = Transcript(target, append)
    except OSError as exc:
        raise ctx.fail(f"cannot write {target}: {exc.strerror or exc}") from None
    ctx.state.host.transcribe(transcript)
    return f"Transcript started, output file is {target}"


@cmdlet(
    "Stop-Transcript",
    synopsis="Stop recording the session (Start-Transcript) and close its file.",
    examples=[("Stop-Transcript", "The record is complete.")],
)
def stop_transcript(ctx: Invocation) -> str:
    stopped = ctx.state.host.transcribe(None)
    if stopped is None:
        raise ctx.fail(
            "An error occurred stopping transcription: The host is not currently transcribing."
        )
    return f"Transcript stopped, output file is {stopped.path}"


@cmdlet(
    "Clear-Host",
    aliases=("clear", "cls"),
    synopsis="Clear the terminal screen (nothing happens when output is not a terminal).",
    examples=[("cls", "A clean screen.")],
)
def clear_host(ctx: Invocation) -> None:
    if ctx.state.options.interactive:
        ctx.state.host.write_host(CLEAR_SCREEN, None, False)


@cmdlet(
    "Get-History",
    aliases=("history", "h", "ghy"),
    synopsis="The commands run in this session, oldest first.",
    params=[
        Param("Id", "ints", position=0, help="Only the entries with these ids."),
        Param("Count", int, position=1, help="Only the last N entries."),
    ],
    description="Each entry has Id, CommandLine, Duration, ExecutionStatus (Completed, Failed, "
    "Stopped), StartExecutionTime and EndExecutionTime. An input is recorded when "
    "it ends, so a line does not see itself.",
    examples=[
        ("Get-History -Count 5", "The last five commands."),
        ("h | Where-Object ExecutionStatus -eq Failed", "What failed."),
        ("(Get-History)[-1].Duration", "How long the last command took."),
    ],
)
def get_history(
    ctx: Invocation, *, id: list[int] | None = None, count: int | None = None
) -> list[HistoryInfo]:
    history = ctx.state.history
    if id:
        entries = [e for e in (history.get(i) for i in id) if e is not None]
        if not entries:
            raise CommandError("Get-History", f"no history entry with id {id[0]}")
        return entries
    entries = list(history.entries)
    if count is not None:
        if count < 0:
            raise ParameterError("Get-History", "Count", "must be 0 or more")
        entries = entries[len(entries) - count :] if count else []
    return entries


@cmdlet(
    "Invoke-History",
    aliases=("r", "ihy"),
    synopsis="Run a command from the history again (the last one by default).",
    params=[
        Param(
            "Id",
            "any",
            position=0,
            pipeline=BY_PROPERTY,
            help="The entry's id, or the start of its command line.",
        )
    ],
    examples=[
        ("r", "Run the last command again."),
        ("r 3", "Run history entry 3 again."),
        ("r Get-Sp", "The last command that started with Get-Sp."),
    ],
)
async def invoke_history(ctx: Invocation, *, id: Any = None) -> list[Any]:
    from fayshell.lang.interp import Interpreter

    entry = _find_entry(ctx, id)
    ctx.state.host.write_host(entry.CommandLine)
    return await Interpreter(ctx.state).run(entry.CommandLine, f"<history {entry.Id}>")


def _find_entry(ctx: Invocation, key: Any) -> HistoryInfo:
    entries = ctx.state.history.entries
    if not entries:
        raise CommandError("Invoke-History", "the history is empty")
    if key is None:
        return entries[-1]
    if isinstance(key, int) or str(key).isdigit():
        found = ctx.state.history.get(int(key))
    else:
        found = next(
            (e for e in reversed(entries) if e.CommandLine.lower().startswith(str(key).lower())),
            None,
        )
    if found is None:
        raise CommandError("Invoke-History", f"no history entry matches {key!r}")
    return found


@cmdlet(
    "Add-History",
    synopsis="Add entries to the session's history (Get-History's records, or ones read "
    "back from Export-Csv or Export-Clixml), each with a new Id; Invoke-History runs them.",
    params=[
        Param("InputObject", "any", position=0, pipeline="value", help="History records."),
        Param("PassThru", bool, help="Output the entries added."),
    ],
    examples=[
        (
            "Import-Csv yesterday.csv | Add-History",
            "Yesterday's commands (saved by Get-History | Export-Csv) to run again with r.",
        )
    ],
)
def add_history(ctx: Invocation, *, input_object: Any = None, pass_thru: bool = False) -> Any:
    from fayshell.commands.props import prop_value
    from fayshell.lang.dates import DateError, to_datetime

    out = []
    for item in unroll(input_object):
        line, start, end = (
            prop_value(item, n) for n in ("CommandLine", "StartExecutionTime", "EndExecutionTime")
        )
        if line is None or start is None or end is None:
            raise ctx.fail(
                "Cannot add history because the input object has a format that is not valid "
                "(it needs CommandLine, StartExecutionTime and EndExecutionTime)."
            )
        status = to_string(prop_value(item, "ExecutionStatus") or "Completed")
        try:
            entry = ctx.state.history.add(
                to_string(line),
                status,
                to_datetime(start),
                to_datetime(end),
                ctx.state.history_count(),
            )
        except DateError as exc:
            raise ctx.fail(str(exc)) from None
        out.append(entry)
    return out if pass_thru else None


@cmdlet(
    "Clear-History",
    aliases=("clhy",),
    synopsis="Forget this session's command history (Get-History); the REPL's recall stays.",
    params=[Param("Count", int, help="Only the oldest N entries.")],
    examples=[("Clear-History", "An empty Get-History.")],
)
def clear_history(ctx: Invocation, *, count: int | None = None) -> None:
    entries = ctx.state.history.entries
    del entries[: len(entries) if count is None else max(count, 0)]


@cmdlet(
    "Start-Sleep",
    aliases=("sleep",),
    synopsis="Wait for a while (Ctrl-C interrupts it).",
    params=[
        Param(
            "Seconds",
            "any",
            position=0,
            aliases=("s",),
            help="Seconds (fractions allowed) or a duration such as 500ms.",
        ),
        Param("Milliseconds", int, aliases=("ms",)),
        Param("Duration", "duration", aliases=("ts",), help="A duration such as 1.5s."),
    ],
    examples=[
        ("Start-Sleep 2", "Two seconds."),
        ("Start-Sleep -Milliseconds 250", "A quarter."),
        ("sleep -Duration 1m", "A minute."),
    ],
)
async def start_sleep(
    ctx: Invocation,
    *,
    seconds: Any = None,
    milliseconds: int | None = None,
    duration: Duration | None = None,
) -> None:
    given = [
        n
        for n, v in (("Seconds", seconds), ("Milliseconds", milliseconds), ("Duration", duration))
        if v is not None
    ]
    if len(given) != 1:
        raise ParameterError(
            "Start-Sleep", None, "give exactly one of -Seconds, -Milliseconds or -Duration"
        )
    wait = _seconds(seconds, milliseconds, duration)
    if wait < 0:
        raise ParameterError("Start-Sleep", given[0], "cannot be negative")
    ctx.state.release_writes()  # an import's background write runs while the shell sleeps
    await asyncio.sleep(wait)


@cmdlet(
    "Write-Progress",
    synopsis="Show a progress bar for a long task (on a terminal; not part of the output).",
    description="Each -Id is one bar; -Completed takes it down, and so does the end of the "
    "statement that drew it (a loop, typically): its output is shown then, which a live bar "
    "would break into. -PercentComplete from 0 to 100 fills it (-1: no percentage).",
    params=[
        Param("Activity", str, position=0, help="What the bar is about."),
        Param("Status", str, position=1, help="Where the activity stands."),
        Param("Id", int, position=2, help="Which bar (0 unless several are shown)."),
        Param("PercentComplete", int, help="How far, from 0 to 100 (-1: unknown)."),
        Param("CurrentOperation", str, help="The step running now."),
        Param("SecondsRemaining", int, help="Accepted for compatibility (not shown)."),
        Param("ParentId", int, help="Accepted for compatibility (bars are not nested)."),
        Param("Completed", bool, help="Take the bar down."),
    ],
    examples=[
        (
            "1..8 | % { Write-Progress 'Pulling' \"node $_\" -PercentComplete ($_ * 12.5) }",
            "A bar that fills as eight nodes are pulled.",
        )
    ],
)
def write_progress(
    ctx: Invocation,
    *,
    activity: str | None = None,
    status: str | None = None,
    id: int = 0,
    percent_complete: int = -1,
    current_operation: str | None = None,
    seconds_remaining: int | None = None,
    parent_id: int | None = None,
    completed: bool = False,
) -> None:
    bars = ctx.state.progress_bars
    if completed:
        if id in bars:
            bars.pop(id).close()
        return
    if activity is None:
        raise ParameterError("Write-Progress", "Activity", "is needed unless -Completed")
    if not -1 <= percent_complete <= 100:
        raise ParameterError("Write-Progress", "PercentComplete", "must be from -1 to 100")
    text = ": ".join(t for t in (activity, status, current_operation) if t)
    if id not in bars:
        bars[id] = ctx.progress(text, 100 if percent_complete >= 0 else None)
    bars[id].update(description=text, completed=percent_complete if percent_complete >= 0 else None)


def _seconds(seconds: Any, milliseconds: int | None, duration: Duration | None) -> float:
    from fayshell.lang.ops import OperatorError, to_number

    if duration is not None:
        return int(duration) / 1e9
    if milliseconds is not None:
        return milliseconds / 1000
    if isinstance(seconds, Duration):
        return int(seconds) / 1e9
    if isinstance(seconds, Size):
        raise ParameterError(
            "Start-Sleep", "Duration", f"expects duration (2s) or seconds, got size {seconds}"
        )
    try:
        return float(to_number(seconds))
    except OperatorError as exc:
        raise ParameterError("Start-Sleep", "Seconds", str(exc)) from None


#: The scopes Get-ExecutionPolicy -List shows, in PowerShell's order; on Linux none has a
#: policy and the effective one is Unrestricted.
POLICY_SCOPES = ("MachinePolicy", "UserPolicy", "Process", "CurrentUser", "LocalMachine")
EXECUTION_POLICIES = (
    "AllSigned",
    "Bypass",
    "Default",
    "RemoteSigned",
    "Restricted",
    "Undefined",
    "Unrestricted",
)


@cmdlet(
    "Get-ExecutionPolicy",
    synopsis="The execution policy: Unrestricted, as PowerShell has it on Linux (fayshell runs "
    "every script it is given).",
    params=[
        Param("Scope", str, position=0, choices=POLICY_SCOPES, help="One scope's policy."),
        Param("List", bool, help="Every scope's policy."),
    ],
    examples=[("Get-ExecutionPolicy -List", "Each scope: Undefined, but LocalMachine.")],
)
def get_execution_policy(
    ctx: Invocation, *, scope: str | None = None, list: bool = False
) -> list[Any]:
    from fayshell.lang.values import PSCustomObject

    def policy(where: str) -> str:
        return "Unrestricted" if where == "LocalMachine" else "Undefined"

    if list:
        return [PSCustomObject(Scope=s, ExecutionPolicy=policy(s)) for s in POLICY_SCOPES]
    return ["Unrestricted" if scope is None else policy(scope)]


@cmdlet(
    "Set-ExecutionPolicy",
    synopsis="Accepted and changes nothing: there are no execution policies on Linux "
    "(-Verbose says so); a script's first line 'Set-ExecutionPolicy Bypass -Scope Process' "
    "then goes on.",
    params=[
        Param("ExecutionPolicy", str, position=0, mandatory=True, choices=EXECUTION_POLICIES),
        Param("Scope", str, position=1, choices=POLICY_SCOPES),
        Param("Force", bool, help="Accepted."),
    ],
    examples=[("Set-ExecutionPolicy Bypass -Scope Process -Force", "Nothing to do here.")],
)
def set_execution_policy(
    ctx: Invocation, *, execution_policy: str, scope: str | None = None, force: bool = False
) -> None:
    ctx.write_verbose(
        f"Set-ExecutionPolicy {execution_policy}: execution policies do not apply on Linux; "
        "nothing changed"
    )
