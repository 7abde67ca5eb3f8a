"""Discoverability: Get-Command, Get-Help, Get-Alias -- all read the cmdlet declarations."""

from __future__ import annotations

import difflib
import importlib
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

from fayshell import __version__
from fayshell.commands.binding import common_params
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.psmodules import FAYSHELL, module_named, module_of
from fayshell.commands.registry import Cmdlet, Param, cmdlet
from fayshell.commands.verbs import GROUPS, VERBS, VerbInfo
from fayshell.errors import NOT_RECOGNIZED, CommandError
from fayshell.lang import ast, commenthelp
from fayshell.lang.ops import has_wildcard, wildcard_match
from fayshell.lang.versions import to_version
from fayshell.render import FixedTable

ABOUT_LANGUAGE = """\
about_Language -- the fayshell language in brief

  Statements end at a newline or ';'. '#' starts a comment. A trailing '|' continues a pipeline.
  Commands are Verb-Noun, case-insensitive: Get-Node -Name 'web[01-04]' -Verbose
  Parameters: -Name value, -Name:value, switches (-Live), unambiguous prefixes (-Sev), positions.
  Values: 'literal', "interpolated $var $($expr)", 42, 1.5, .5, 1.5d ([decimal]), 5l, 5u,
  5ul, 5n ([bigint]), 0xFF (0xFFFFFFFF is the Int32 -1, as in PowerShell; 0xFFFFFFFFu is not),
  $true $false $null, 1,2,3, @(...), @{k = v}, 1..10, durations 500ms 2s 5m 1h, sizes 4KB 16MB
  1GB.
  A bare argument is an expandable string: Get-Item $HOME/logs/a$n.log is one argument.
  Variables: $x = <pipeline>; $_ in script blocks; $x.prop, $x[0], $env:HOME, ${x}?.prop and
  ${x}?[0] ($null when $x is), $MyInvocation, $PSScriptRoot (the running script's folder).
  Every cmdlet also takes -Verbose, -ErrorAction, -ErrorVariable ev, -OutVariable ov (+ev adds
  to ev) and -PipelineVariable pv; $Error keeps the newest error first. Those that change files or
  variables also take -WhatIf (say what, change nothing; or $WhatIfPreference = $true) and
  -Confirm (ask first), as do functions declared [CmdletBinding(SupportsShouldProcess)]
  (if ($PSCmdlet.ShouldProcess($target, 'action')) { ... }).
  Here-strings: @" ... "@ (expanding) and @' ... '@ (literal), each quote on its own line.
  Operators: + - * / %  -eq -ne -gt -ge -lt -le -like -notlike -match -notmatch -in -notin
  -contains (c/i prefixes: -ceq -ireplace -csplit) -and -or -xor -not ! -band -bor -bxor -shl
  -shr -join -split -replace -f (.NET formats: "{0,8:N2}") -is -isnot -as [type], ++ --
  += -= *= /= %= ??= , a ?? b, cond ? a : b, 'a'..'e', [math]::Round(x, 2), [int]::MaxValue.
  Types: [int] [long] [double] [string] [bool] [char] [datetime] [timespan] [version] [semver]
  [array] [hashtable] [ordered] [pscustomobject] [regex] (an object: Match, Matches,
  IsMatch, Replace, Split; $m.Groups['name']), and ::new() of the collections
  List[T], Dictionary[K,V], HashSet[T], Queue[T], Stack[T]; [version]'2.13' -gt '2.9' (compared
  part by part), and $PSVersionTable.PSVersion is a [semver] (7.4.0). [IO.Path]::GetFileName,
  GetDirectoryName, GetExtension, GetFileNameWithoutExtension, ChangeExtension, Combine;
  [IO.File]::Exists, ReadAllText, ReadAllLines, WriteAllText, WriteAllLines, AppendAllText,
  Copy, Move, Delete; [IO.Directory]::Exists, GetFiles, GetDirectories, CreateDirectory,
  Delete; [Diagnostics.Stopwatch]::StartNew(); [guid]::NewGuid(); [Net.Dns]::GetHostName();
  [DateTimeOffset]::FromUnixTimeSeconds(n); $Host.UI.RawUI.WindowSize.Width;
  [Text.StringBuilder]::new() (Append, AppendLine, AppendFormat, Insert, Remove, Replace);
  [Linq.Enumerable]::Sum, Max, Min, Average, Count, Distinct, Reverse, First, Last, Take,
  Skip, Contains, Range, Repeat (those taking a predicate or selector are refused).
  $PSDefaultParameterValues['Cmdlet:Parameter'] = value (wildcards; 'Disabled') gives
  commands and functions the parameters a call leaves out.
  Set-StrictMode -Version 1.0|2.0|3.0|Latest makes unset variables, missing properties,
  f(1, 2) calls and indexes past an array's end errors; Set-Alias/New-Alias name commands.
  Pipelines: a && b, a || b; > file, >> file, 2>&1, 3>$null, *>&1 (streams 2 to 6 and *);
  & $block args; . ./lib.fay;
  ./incident.fay args runs a script. Arrays: .Where({ }, 'First'|'Last'|'SkipUntil'|'Until'|
  'Split', n), .ForEach({ }), .ForEach('Property').
  Control: if (...) { } elseif (...) { } else { }, foreach ($x in $xs) { }, while (...) { },
  for ($i = 0; $i -lt 3; $i++) { }, do { } while/until (...), switch [-Regex|-Wildcard|
  -Exact|-CaseSensitive] ($x) { 'a' { } { $_ -gt 1 } { } default { } }, :label loops,
  try { } catch [Type] { $_.Exception.Message } finally { }, trap { }, throw, exit N;
  $_.FullyQualifiedErrorId is PowerShell's for the common errors (PathNotFound,<cmdlet type>,
  InvokeMethodOnNull, MethodNotFound, NamedParameterNotFound, ...) and the message otherwise;
  function Name { [CmdletBinding()] param([Parameter(Mandatory)][int]$b = 2)
  begin { } process { $_ } end { } }, filter Name { $_ }, splatting: Name @params.
  Pipelines whose input is a relation (sql ..., Get-Span, ...) run inside DuckDB: Where-Object,
  Select-Object, Sort-Object, Group-Object and Measure-Object become SQL. Add -Verbose to see it.
"""

ABOUT_DIFFERENCES = """\
about_Differences -- where fayshell deliberately differs from PowerShell

  Durations are values: 500ms, 2s, 5m, 1h are durations that print as typed, add and
    compare as numbers, and -Rotate 2s or -Duration 5s take them. In PowerShell 2s is not a
    literal. A TimeSpan made as in PowerShell (subtracting two dates, New-TimeSpan,
    [timespan]'01:30:00', a stopwatch's Elapsed) is a duration too, but reads as .NET's
    text (01:30:00) and shows as PowerShell's list. 4KB, 16MB, 1GB are numbers (4096 ...),
    as in PowerShell; a parameter that takes a duration or a size (-Rotate 64MB) knows a
    size was written. So the literal suffixes s and us are seconds and microseconds, not
    PowerShell's [short] and [ushort] (write [int16]5); l, u, ul, y, uy, n and d are
    PowerShell's. A number a query returns is an [int] when it fits one, else a [long],
    whatever its column's type (a BIGINT 5 is an [int]); cast it ([long]$r.n) for
    arithmetic that should stay a [long] past [int]'s range instead of becoming a double.
  sql takes the rest of the line as DuckDB SQL ('sql SELECT ...'), or the value of a
    string or variable after it (sql "... '$n'"); PowerShell has no such command. Its
    result is a relation, not a list of objects.
  Relations and pushdown: output of sql, Get-Syscall, Get-Span, Get-Log, Get-Event stays a
    DuckDB relation; Where-Object, Select-Object, Sort-Object, Group-Object and
    Measure-Object after it become SQL and run inside DuckDB (-Verbose shows the query).
    Script blocks SQL cannot express fall back to row-wise evaluation with the same result.
    Property names of a relation are its column names (case-insensitive), and an unknown
    one is an error naming the nearest column, where PowerShell silently gives $null.
  Severity words: one set for every domain (Emergency, Alert, Critical, Error, Warning,
    Notice, Info, Debug) mapped to LTTng's log levels; -Severity Warning means "Warning and
    more severe", -Exact only that level.
  Node sets use ClusterShell's syntax: web[01-16], node[1-9]!node6, @group. -Node takes
    them where PowerShell's -ComputerName takes a list of names; remote commands run over
    SSH with strict host-key checking, not WinRM, and return records (node, stdout, ...).
    Nodes run no fayshell: Invoke-Command -Node n -ScriptBlock { } runs the block here to
    make each node's command line ($_ is the node); without a node the block runs here and
    its output is the answer, as PowerShell's Invoke-Command without -ComputerName.
  Errors: a command that fails for some items (nodes, files) reports each in one line and
    goes on; under -ErrorAction Stop (the default) the statement then ends with a summary
    line, and a function or loop ends at that statement. Inside try, as in PowerShell,
    nothing is shown and the first item's error is what catch gets (with how many more
    failed, when a fan-out went on past it). Bugs are "internal error" lines, never a .NET
    stack trace.
  The current location (cd, Set-Location) is the shell's own, as in PowerShell; fayshell
    also points DuckDB's file_search_path at it, so 'sql ... read_csv('x.csv')' finds
    files relative to it. The only PowerShell drives are Env:, Variable: and Function:
    (Get-Item, Get-ChildItem, Test-Path, Set-Item, New-Item, Remove-Item take them).
  Dates use the en-US culture whatever the machine's locale: shown as "Tuesday, March 5,
    2024 2:30:00 PM", formatted by -Format, ToString() and -f in en-US, and inside strings
    ("$d") as the invariant culture's "03/05/2024 14:30:00", as PowerShell does. A date in a
    table cell shows as PowerShell shows it, "3/5/2024 2:30:00 PM"; a datetime column of the
    store keeps its ISO form with microseconds. A DateTime has microsecond precision (.NET:
    100 ns ticks).
  Output formatting follows PowerShell's Out-Default (blank lines around tables and lists,
    five or more properties as a list, hashtables as Name/Value) with these differences:
    store tables show ts columns as UTC datetimes and trace/span ids as hex (about_Tables);
    a table cell is cut at 60 characters (PowerShell: at the console width); objects
    without a format view are laid out from their own properties (no .NET default views);
    every Write-Host line is written at once, before the table the script's last
    statements are still filling (PowerShell does the same within its 300 ms window).
  Functions last for the session wherever they are declared: one a function or a script run
    as ./x.fay declares is still there after it ends (PowerShell keeps it in the scope that
    declared it; dot-source the script, . ./x.fay, to write what works in both).
  Aliases made by Set-Alias and New-Alias last for the session whatever -Scope says (in
    PowerShell an alias a script or function makes goes away with its scope); fayshell's
    own aliases are not read-only and can be pointed elsewhere.
  [DateTimeOffset]::Now, ::UtcNow, ::FromUnixTimeSeconds(n), ::FromUnixTimeMilliseconds(n),
    ::new(date[, offset]) and a [DateTimeOffset] cast give dates (Local or Utc) that also
    answer ToUnixTimeSeconds(), ToUnixTimeMilliseconds(), UtcDateTime, LocalDateTime,
    DateTime and Offset (the local zone's, or 0 for Utc); they show as dates, without the
    +00:00 offset.
  [IO.File] and [IO.Directory] resolve a relative path against the process's directory,
    as .NET does (PowerShell's location is not theirs there either: give full paths).
  Get-Content gives plain strings (no PSPath/ReadCount note properties). Files show in
    PowerShell's Unix view (UnixMode, User, Group, LastWriteTime, Size, Name under each
    "Directory:"), without $PSStyle.FileInfo's colors; Mode is d----, ----- or l----.
  Tab completion also offers the columns of the relation flowing into a cmdlet
    ('sql SELECT * FROM syscalls | Sort-Object dur<Tab>') and shows each candidate's kind.
  using namespace X is accepted (types are found by their short names with or without it);
    using module and using assembly are errors: fayshell loads no module files or
    assemblies. Its cmdlets are built in, each in the module PowerShell has it in
    (Get-Command's Source: Microsoft.PowerShell.Management ...) or in the module fayshell;
    Get-Module lists those, all loaded from the start, and Import-Module of one of them is
    nothing to do.
  Line editing: Set-PSReadLineOption and Set-PSReadLineKeyHandler work on fayshell's own
    editor (prompt-toolkit): the Windows edit mode has Emacs-like keys (Ctrl+a, Ctrl+e,
    Alt+f ...) rather than Visual Studio's, suggestions from history are on by default, a
    key runs one of the editor's functions (Get-PSReadLineKeyHandler -Unbound lists them)
    and never a script block, and the history file is $XDG_STATE_HOME/fayshell/history.
  Running a script by its path (./x.fay, & $PSScriptRoot/x.ps1) runs .fay and .ps1 files;
    fayshell runs no native programs here (Invoke-Command runs them on nodes).
  Prompt: "PS fay> ", or what a function named prompt returns (about_Prompts; "PS> " when
    it fails or returns nothing), as a profile usually defines it.
  Profile: $PROFILE is $XDG_CONFIG_HOME/fayshell/profile.fay (~/.config/fayshell/), run
    before the prompt, a -c command or a script unless --no-profile (-NoProfile); the first
    error in it ends it (the default $ErrorActionPreference is Stop) and the shell goes on.
  Jobs: Start-Job runs its block in a fayshell process of its own, as PowerShell's does,
    with this shell's inventory and SSH configuration but a database of its own (the
    shell's file is the shell's alone: query the store in the shell, and use a job for
    what takes long elsewhere, such as Invoke-Command over many nodes). Its output comes
    back as [pscustomobject]s of properties, two levels deep. There are no thread jobs
    (Start-ThreadJob) or remote jobs (-AsJob); jobs still running when the shell ends are
    stopped, and a job whose shell is killed ends too.
  Execution policies do not apply (as in PowerShell on Linux): Get-ExecutionPolicy says
    Unrestricted; Set-ExecutionPolicy is accepted and changes nothing (PowerShell on Linux
    refuses it), so a script that starts with it goes on.
  $PSStyle gives the sequences (Reset, Bold ..., Foreground, Background, FromRgb,
    Formatting) and OutputRendering takes them out of output that is not a terminal (Host,
    PlainText) or keeps them (Ansi); fayshell's own tables, errors and warnings keep their
    own colors (Formatting does not change them), and there is no $PSStyle.FileInfo or
    .Progress.
  Confirmation: a script (-c, a file, stdin) has nobody to answer a confirmation, so a change
    that -Confirm or $ConfirmPreference asks about is not made, and a warning says so
    (-Confirm:$false makes it); PowerShell would wait for an answer.
  Redirection: the records of a stream merged into output (2>&1, 3>&1, *>&1) come after
    that command's output, not interleaved with it in the order written.
  Output: a statement that runs longer than 0.2 s shows its output as it comes (above any
    progress bar), as PowerShell does; but a table or list is drawn when the statement ends
    (its columns are sized on all its rows), and ForEach-Object's output comes as each of
    its blocks ends, not as the block writes it.
  Language: regular expressions are .NET syntax run by Python's re: named groups (?<n>),
    \\k<n>, \\A, \\z and \\Z work; balancing groups and \\p{...} categories do not. A class
    may name .NET interfaces (IComparable orders its objects by their CompareTo in
    Sort-Object and -lt/-gt; -is answers for any of them); there are no property accessors.
    A class's ToString() is its text everywhere, except one that waits for something (a
    Start-Sleep, a query): that one is used in "$x" only, elsewhere the class's name shows.
    Add-Member adds ScriptMethods to [pscustomobject]s only, and no ScriptProperty.
    Write-Error is non-terminating unless
    -ErrorAction Stop is given or the script sets $ErrorActionPreference (the shell's
    default is Stop for cmdlets that fail on some items). A script block passed to -split
    is not supported (-replace takes one). Recursion stops near 1000 nested calls with a
    "call depth overflow" error. Strings are Unicode code points, not UTF-16 units: an
    emoji is one character ("`u{1F600}".Length is 1, 2 in PowerShell).
  Web and network: Invoke-WebRequest and Invoke-RestMethod use no proxy (as -NoProxy) and
    do not parse HTML (no Links, Images or Forms); -WebSession, -Credential and -Form are not
    there. Test-Connection pings over IPv4 only, from an unprivileged ping socket or as
    root; -Traceroute and -MtuSize are not there. Compress-Archive writes files past .NET's
    2 GB limit (ZIP64).
"""


#: Get-Command -CommandType: PowerShell's CommandTypes that fayshell has commands of, and
#: those it has none of (accepted: a script asking for them gets nothing).
COMMAND_TYPES = (
    "Alias",
    "All",
    "Application",
    "Cmdlet",
    "ExternalScript",
    "Filter",
    "Function",
    "Script",
)


#: PowerShell's table of commands and aliases (its CommandInfo view).
COMMAND_VIEW = FixedTable(
    ("CommandType", "Name", "Version", "Source"), (15, 50, 10, 0), (False, False, False, False)
)


@dataclass(frozen=True)
class CommandInfo:
    """A command as Get-Command lists it, in PowerShell's view: CommandType, Name (an alias
    as ``gci -> Get-ChildItem``), Version, Source (its module); fayshell's family and
    synopsis are properties too."""

    CommandType: str
    Name: str
    Version: Any = None
    #: The module a cmdlet comes from (PowerShell's, or fayshell); '' for functions and aliases.
    Source: str = ""
    Family: str = field(default="", repr=False)
    Synopsis: str = field(default="", repr=False)
    #: An alias's command, a function's text, a cmdlet's name.
    Definition: str = field(default="", repr=False)
    #: The parameters' names, as (Get-Command X).Parameters.Keys lists them.
    Parameters: dict[str, str] = field(default_factory=dict, repr=False)

    #: PowerShell's table of commands (CommandType 15, Name 50, Version 10, Source).
    TABLE_VIEW = COMMAND_VIEW

    def view_cells(self) -> list[str]:
        version = "" if self.Version is None else str(self.Version)
        return [self.CommandType, self.DisplayName, version, self.Source]

    @property
    def DisplayName(self) -> str:  # noqa: N802 - PowerShell property name
        return f"{self.Name} -> {self.Definition}" if self.CommandType == "Alias" else self.Name

    @property
    def ModuleName(self) -> str:  # noqa: N802 - PowerShell property name
        return self.Source

    @property
    def Verb(self) -> str:  # noqa: N802 - PowerShell property name
        """A cmdlet's or function's verb (Get of Get-Item); '' for an alias."""
        return (
            self.Name.split("-", 1)[0] if "-" in self.Name and self.CommandType != "Alias" else ""
        )

    @property
    def Noun(self) -> str:  # noqa: N802 - PowerShell property name
        return self.Name.split("-", 1)[1] if self.Verb else ""


@dataclass(frozen=True)
class AliasInfo:
    """An alias and the command it stands for; shown in PowerShell's command view
    (``Alias  gci -> Get-ChildItem``)."""

    Name: str
    Definition: str
    CommandType = "Alias"
    Version = None
    Source = ""

    @property
    def DisplayName(self) -> str:  # noqa: N802 - PowerShell property name
        return f"{self.Name} -> {self.Definition}"

    @property
    def ReferencedCommand(self) -> str:  # noqa: N802 - PowerShell property name
        return self.Definition

    TABLE_VIEW = COMMAND_VIEW

    def view_cells(self) -> list[str]:
        return [self.CommandType, self.DisplayName, "", ""]


@cmdlet(
    "Get-Command",
    aliases=("gcm",),
    synopsis="List the commands: cmdlets, and functions defined in this session.",
    params=[
        Param(
            "Name", "strings", position=0, complete="commands", help="Names or wildcard patterns."
        ),
        Param("Verb", str),
        Param("Noun", str),
        Param(
            "Module",
            "strings",
            help="Only the commands of these modules (Get-Module lists them; wildcards).",
        ),
        Param(
            "CommandType",
            "strings",
            aliases=("Type",),
            choices=COMMAND_TYPES,
            help="Only commands of these types; Alias (or All) lists the aliases too.",
        ),
        Param("TotalCount", int, help="At most this many commands."),
        Param("Syntax", bool, help="Each command's syntax line instead of its record."),
    ],
    examples=[
        ("Get-Command -Noun Trace*", "Every command about traces."),
        ("Get-Command *-Object", "The pipeline cmdlets."),
        ("Get-Command -CommandType Function", "The functions this session defined."),
        ("Get-Command Get-Span -Syntax", "How to call Get-Span."),
        ("Get-Command -Module fayshell", "fayshell's own cmdlets (the others are PowerShell's)."),
    ],
)
def get_command(
    ctx: Invocation,
    *,
    name: list[str] | None = None,
    verb: str | None = None,
    noun: str | None = None,
    module: list[str] | None = None,
    command_type: list[str] | None = None,
    total_count: int | None = None,
    syntax: bool = False,
) -> list[CommandInfo] | list[str]:
    kinds = set(command_type or ()) & set(COMMAND_TYPES)
    if "All" in kinds:
        kinds = {"Alias", "Cmdlet", "Function"}
    out = _commands(ctx, name, bool(name) or "Alias" in kinds)
    if kinds:
        out = [c for c in out if c.CommandType in kinds]
    if verb:
        out = [c for c in out if wildcard_match(c.Name.split("-")[0], verb)]
    if noun:
        out = [c for c in out if wildcard_match(c.Name.split("-", 1)[-1], noun)]
    if module:
        out = [c for c in out if any(wildcard_match(c.Source, m) for m in module)]
    out = sorted(out, key=lambda c: c.Name.lower())[:total_count]
    return [_syntax(ctx, c) for c in out] if syntax else out


def _commands(ctx: Invocation, name: list[str] | None, with_aliases: bool) -> list[CommandInfo]:
    """The cmdlets, the session's functions and (``with_aliases``) the aliases, those ``name``
    matches; a name without wildcards that matches none is a non-terminating error."""
    out = [_cmdlet_info(c) for c in ctx.state.registry]
    out += [
        CommandInfo(
            "Function",
            f.node.name,
            Family="function",
            Synopsis="user function",
            Definition=f.node.text.strip(),
            Parameters={p.name: p.type or "Object" for p in f.node.params},
        )
        for key, f in ctx.state.functions.items()
        if key == f.node.name.lower()  # once, not again under each [Alias()] name
    ]
    if with_aliases:
        aliases = ctx.state.registry.alias_table()
        aliases.update({a: target for a, (_, target) in ctx.state.aliases.items()})
        out += [
            CommandInfo("Alias", a, Family="alias", Synopsis=f"-> {target}", Definition=target)
            for a, target in aliases.items()
            if a != target.lower()
        ]
    if name:
        out = [c for c in out if any(wildcard_match(c.Name, n) for n in name)]
        for n in name:  # each missing name a non-terminating error, as PowerShell's
            if not has_wildcard(n) and not any(wildcard_match(c.Name, n) for c in out):
                record = ErrorRecord(n, "", NOT_RECOGNIZED.format(n), "", "ObjectNotFound", True)
                ctx.write_error(record)
    return out


def _syntax(ctx: Invocation, info: CommandInfo) -> str:
    """-Syntax's line: a cmdlet's declared syntax, a function's from its param block, an
    alias as ``gcm (alias) -> Get-Command``."""
    if info.CommandType == "Alias":
        return f"{info.Name} (alias) -> {info.Definition}"
    spec = ctx.state.registry.resolve(info.Name)
    if info.CommandType == "Cmdlet" and spec is not None:
        return spec.syntax()
    function = ctx.state.functions.get(info.Name.lower())
    params = function.node.params if function is not None else []
    return " ".join([info.Name, *(_param_syntax(p) for p in params)])


def _param_syntax(param: ast.ParamDecl) -> str:
    kind = (param.type or "Object").removeprefix("System.")
    if kind.lower() in ("switch", "management.automation.switchparameter"):
        return f"[-{param.name}]"
    text = f"[-{param.name}] <{kind}>"
    return text if param.mandatory else f"[{text}]"


def _cmdlet_info(c: Cmdlet) -> CommandInfo:
    params = {p.name: p.type_name() for p in c.params}
    facts = module_named(module_of(c.name))
    return CommandInfo(
        "Cmdlet",
        c.name,
        Version=to_version(facts.version if facts is not None else __version__),
        Source=facts.name if facts is not None else FAYSHELL,
        Family=c.family,
        Synopsis=c.synopsis,
        Definition=c.name,
        Parameters=params,
    )


@cmdlet(
    "Get-Verb",
    synopsis="PowerShell's approved verbs for command names (Verb-Noun): each verb's alias "
    "prefix and group, as PowerShell's Get-Verb lists them (the descriptions are fayshell's).",
    params=[
        Param("Verb", "strings", position=0, pipeline="value,property", help="Verbs (wildcards)."),
        Param("Group", "strings", position=1, choices=GROUPS, pipeline="property"),
    ],
    examples=[
        ("Get-Verb un*", "The approved verbs that start with un."),
        ("Get-Verb -Group Security", "The security verbs."),
        (
            "Get-Command -Module fayshell | Where-Object Verb -NotIn (Get-Verb).Verb",
            "fayshell's commands with a verb that is not approved (none).",
        ),
    ],
)
def get_verb(
    ctx: Invocation, *, verb: list[str] | None = None, group: list[str] | None = None
) -> list[VerbInfo]:
    out = list(VERBS)
    if verb:
        out = [v for v in out if any(wildcard_match(v.Verb, w) for w in verb)]
    if group:
        wanted = {g.lower() for g in group}
        out = [v for v in out if v.Group.lower() in wanted]
    return out


@cmdlet(
    "Get-Alias",
    aliases=("gal",),
    synopsis="List aliases and what they stand for: the shell's and those Set-Alias made.",
    params=[
        Param("Name", "strings", position=0),
        Param("Definition", "strings", help="Only the aliases of these commands (wildcards)."),
    ],
    examples=[
        ("Get-Alias ?", "What '?' stands for."),
        ("Get-Alias -Definition Get-ChildItem", "Every alias of Get-ChildItem."),
    ],
)
def get_alias(
    ctx: Invocation, *, name: list[str] | None = None, definition: list[str] | None = None
) -> list[AliasInfo]:
    table = {a: AliasInfo(a, target) for a, target in ctx.state.registry.alias_table().items()}
    table.update({a: AliasInfo(n, target) for a, (n, target) in ctx.state.aliases.items()})
    out = [table[a] for a in sorted(table)]
    if name:
        out = [a for a in out if any(wildcard_match(a.Name, n) for n in name)]
        _none_named(name, out, "Get-Alias")
    if definition:
        out = [a for a in out if any(wildcard_match(a.Definition, d) for d in definition)]
    return out


def _none_named(names: list[str], found: list[AliasInfo], command: str) -> None:
    """PowerShell's error for a name without wildcards that matched no alias."""
    for n in names:
        if not has_wildcard(n) and not any(a.Name.lower() == n.lower() for a in found):
            raise CommandError(
                command,
                f"This command cannot find a matching alias because an "
                f"alias with the name '{n}' does not exist.",
            )


ALIAS_PARAMS = [
    Param("Name", str, position=0, mandatory=True, help="The alias."),
    Param(
        "Value",
        str,
        position=1,
        mandatory=True,
        help="The command it stands for.",
        complete="commands",
    ),
    Param("Description", str, help="Kept for PowerShell scripts; not shown."),
    Param("Scope", str, help="Accepted; fayshell keeps aliases for the whole session."),
    Param("Force", bool, help="New-Alias: replace an alias that exists."),
    Param("PassThru", bool, help="Output the alias."),
]


@cmdlet(
    "Set-Alias",
    aliases=("sal",),
    synopsis="Make a name stand for a command (made or changed); it comes before functions "
    "and cmdlets of that name.",
    params=ALIAS_PARAMS,
    examples=[
        ("Set-Alias top Show-Top", "'top' now runs Show-Top."),
        ("Set-Alias -Name spans -Value Get-Span", "Named parameters, as scripts write it."),
    ],
)
def set_alias(
    ctx: Invocation,
    *,
    name: str,
    value: str,
    description: str | None = None,
    scope: str | None = None,
    force: bool = False,
    pass_thru: bool = False,
) -> AliasInfo | None:
    return _make_alias(ctx, name, value, pass_thru)


@cmdlet(
    "New-Alias",
    aliases=("nal",),
    synopsis="Make a new alias; an error if one of that name exists (unless -Force).",
    params=ALIAS_PARAMS,
    examples=[("New-Alias spans Get-Span", "'spans' now runs Get-Span.")],
)
def new_alias(
    ctx: Invocation,
    *,
    name: str,
    value: str,
    description: str | None = None,
    scope: str | None = None,
    force: bool = False,
    pass_thru: bool = False,
) -> AliasInfo | None:
    low = name.lower()
    if not force and (low in ctx.state.aliases or low in ctx.state.registry.alias_table()):
        raise CommandError(
            "New-Alias",
            f"The alias is not allowed, because an alias with the name '{name}' already exists.",
        )
    return _make_alias(ctx, name, value, pass_thru)


def _make_alias(ctx: Invocation, name: str, value: str, pass_thru: bool) -> AliasInfo | None:
    if not name.strip() or any(ch.isspace() for ch in name):
        raise CommandError(ctx.name, f"not a valid alias name: {name!r}")
    ctx.state.aliases[name.lower()] = (name, value)
    return AliasInfo(name, value) if pass_thru else None


@cmdlet(
    "Remove-Alias",
    synopsis="Remove aliases Set-Alias or New-Alias made.",
    params=[
        Param("Name", "strings", position=0, mandatory=True),
        Param("Scope", str, help="Accepted; fayshell keeps aliases for the whole session."),
        Param("Force", bool, help="Accepted (no alias is read-only)."),
    ],
    examples=[("Remove-Alias top", "'top' no longer runs Show-Top.")],
)
def remove_alias(
    ctx: Invocation, *, name: list[str], scope: str | None = None, force: bool = False
) -> None:
    for n in name:
        if ctx.state.aliases.pop(n.lower(), None) is None:
            if n.lower() in ctx.state.registry.alias_table():
                raise CommandError(
                    "Remove-Alias",
                    f"'{n}' is one of fayshell's own aliases; Set-Alias can point it elsewhere",
                )
            raise CommandError("Remove-Alias", f"No alias named '{n}' exists.")


class HelpInfo(str):
    """Get-Help's answer: its text, with the parts scripts read as properties
    (``(Get-Help f).Synopsis``)."""

    Name: str
    Category: str
    Synopsis: str
    Syntax: str
    Description: str
    Examples: list[str]

    @classmethod
    def of(cls, text: str, name: str, category: str, parts: dict[str, Any]) -> HelpInfo:
        made = cls(text)
        made.Name, made.Category = name, category
        made.Synopsis = parts.get("synopsis", "")
        made.Syntax = parts.get("syntax", "")
        made.Description = parts.get("description", "")
        made.Examples = list(parts.get("examples", []))
        return made


@dataclass(frozen=True)
class HelpEntry:
    """One topic Get-Help lists for a wildcard name (``Get-Help *-Trace*``, ``help about_*``)."""

    Name: str
    Category: str
    Synopsis: str


@cmdlet(
    "Get-Help",
    aliases=("help", "man"),
    synopsis="Show how to use a command (a cmdlet, or a function with comment-based help), "
    "with examples; an about_ topic; or the topics a wildcard name matches.",
    params=[
        Param("Name", str, position=0, complete="commands"),
        Param("Examples", bool, help="Only the examples."),
        Param("Full", bool, help="Everything, with each parameter described."),
        Param("Detailed", bool, help="As -Full."),
        Param("Parameter", str, help="Describe one parameter."),
    ],
    examples=[
        ("Get-Help Where-Object -Examples", "Examples of Where-Object."),
        ("Get-Help about_Tables", "The tables of the trace database."),
        ("Get-Help *-Trace*", "The commands (and topics) whose names match."),
    ],
)
def get_help(
    ctx: Invocation,
    *,
    name: str | None = None,
    examples: bool = False,
    full: bool = False,
    detailed: bool = False,
    parameter: str | None = None,
) -> str | list[HelpEntry]:
    if not name:
        return _overview(ctx)
    if has_wildcard(name):
        return _matching_topics(ctx, name)
    if name.lower().startswith("about_"):
        return _about(name)
    function = ctx.state.functions.get(name.lower())
    if function is not None and ctx.state.registry.resolve(name) is None:
        return _function_help(function, examples, full or detailed, parameter)
    spec = ctx.state.registry.resolve(name)
    if spec is None:
        close = difflib.get_close_matches(name, ctx.state.registry.names(), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise CommandError("Get-Help", f"no command named {name!r}{hint}")
    if parameter is not None:
        param = spec.param(parameter) or next(
            (c for c in common_params(spec) if c.name.lower() == parameter.lower()), None
        )  # -Confirm, -ErrorAction ...: the common parameters it takes
        if param is None:
            raise CommandError("Get-Help", f"{spec.name} has no parameter -{parameter}")
        return _describe_param(param)
    parts = {
        "synopsis": spec.synopsis,
        "syntax": spec.syntax(),
        "description": spec.description,
        "examples": [e.code for e in spec.examples],
    }
    text = _examples(spec) if examples else _full(spec) if full or detailed else _summary(spec)
    return HelpInfo.of(text, spec.name, "Cmdlet", parts)


def _matching_topics(ctx: Invocation, pattern: str) -> list[HelpEntry]:
    """Every cmdlet, function and about_ topic whose name ``pattern`` matches."""
    entries = [HelpEntry(c.name, "Cmdlet", c.synopsis) for c in ctx.state.registry]
    entries += [
        HelpEntry(f.node.name, "Function", _function_synopsis(f))
        for key, f in ctx.state.functions.items()
        if key == f.node.name.lower()
    ]
    entries += [HelpEntry(t, "HelpFile", ABOUT_SYNOPSES[t]) for t in ABOUT_TOPICS]
    return [e for e in entries if wildcard_match(e.Name, pattern)]


def _function_help(
    function: Any, examples: bool, full: bool, parameter: str | None
) -> HelpInfo | str:
    """A function's help, from its comment-based help (about_Comment_Based_Help)."""
    node: ast.FunctionDef = function.node
    lines = function.origin.lines[: max(node.line - 1, 0)]
    found = commenthelp.function_help(node.text, lines) or commenthelp.CommentHelp()
    params = {p.name.lower(): p for p in node.params}
    if parameter is not None:
        param = params.get(parameter.lower())
        if param is None:
            raise CommandError("Get-Help", f"{node.name} has no parameter -{parameter}")
        return _function_param(param, found)
    syntax = " ".join([node.name, *(_param_syntax(p) for p in node.params)])
    sections = [("NAME", node.name), ("SYNOPSIS", found.synopsis or syntax), ("SYNTAX", syntax)]
    sections += [("DESCRIPTION", found.description)] if found.description else []
    if full and node.params:
        sections.append(("PARAMETERS", "\n\n".join(_function_param(p, found) for p in node.params)))
    sections += [("NOTES", found.notes)] if found.notes and full else []
    if found.examples:
        sections.append(("EXAMPLES", _numbered(found.examples)))
    if examples:
        sections = sections[:1] + [s for s in sections if s[0] == "EXAMPLES"]
    text = "\n\n".join(f"{title}\n{textwrap.indent(body, '    ')}" for title, body in sections)
    parts = {
        "synopsis": found.synopsis,
        "syntax": syntax,
        "description": found.description,
        "examples": found.examples,
    }
    return HelpInfo.of(text, node.name, "Function", parts)


def _function_synopsis(function: Any) -> str:
    lines = function.origin.lines[: max(function.node.line - 1, 0)]
    found = commenthelp.function_help(function.node.text, lines)
    return found.synopsis if found is not None else ""


def _function_param(param: ast.ParamDecl, found: commenthelp.CommentHelp) -> str:
    text = next((t for n, t in found.parameters.items() if n.lower() == param.name.lower()), "")
    kind = (param.type or "Object").removeprefix("System.")
    head = f"-{param.name} <{kind}>" + ("  (mandatory)" if param.mandatory else "")
    return head + ("\n" + textwrap.indent(text, "    ") if text else "")


def _numbered(examples: tuple[str, ...] | list[str]) -> str:
    rule = "-" * 26
    return "\n\n".join(f"{rule} EXAMPLE {i} {rule}\n{text}" for i, text in enumerate(examples, 1))


def _overview(ctx: Invocation) -> str:
    lines = [
        "fayshell commands (Get-Help NAME for one, Get-Help about_Language for syntax, "
        "about_Differences for how fayshell differs from PowerShell):",
        "",
    ]
    width = max(len(c.name) for c in ctx.state.registry)
    lines += [f"  {c.name.ljust(width)}  {c.synopsis}" for c in ctx.state.registry]
    return "\n".join(lines)


#: The about_ topics, as Get-Help and tab completion name them.
ABOUT_TOPICS = ("about_Language", "about_Tables", "about_Differences")
ABOUT_SYNOPSES = {
    "about_Language": "The language fayshell runs: PowerShell's, and what it adds.",
    "about_Tables": "The tables of the trace database and their columns.",
    "about_Differences": "Where fayshell differs from PowerShell.",
}


def _about(name: str) -> str:
    topics = {
        "about_language": lambda: ABOUT_LANGUAGE,
        "about_tables": _about_tables,
        "about_differences": lambda: ABOUT_DIFFERENCES,
    }
    topic = topics.get(name.lower())
    if topic is None:
        raise CommandError("Get-Help", f"no help topic {name!r}; {_elsewhere(name)}")
    return topic()


#: Where PowerShell's own about topics are (fayshell's language is PowerShell's).
POWERSHELL_ABOUT = "https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/"


def _elsewhere(name: str) -> str:
    """Where to read about ``name`` instead: fayshell's three topics, and for a name of
    PowerShell's kind its page in PowerShell's documentation."""
    ours = "fayshell's topics: about_Language, about_Tables, about_Differences"
    if not re.fullmatch(r"about_[A-Za-z0-9_.-]+", name):
        return ours
    return f"{ours}; PowerShell's {name}, which fayshell's language follows: {POWERSHELL_ABOUT}{name.lower()}"


def _about_tables() -> str:
    try:
        schema = importlib.import_module("fayshell.store.schema")
    except ImportError:
        raise CommandError("Get-Help", "about_Tables: the store schema is not installed") from None
    return str(schema.ABOUT_TABLES)


def _summary(spec: Cmdlet) -> str:
    lines = [
        f"NAME\n    {spec.name}",
        f"\nSYNOPSIS\n    {spec.synopsis}",
        f"\nSYNTAX\n    {spec.syntax()}",
    ]
    if spec.description:
        lines.append(f"\nDESCRIPTION\n    {spec.description}")
    if spec.aliases:
        lines.append(f"\nALIASES\n    {', '.join(spec.aliases)}")
    if spec.examples:
        lines.append("\n" + _examples(spec))
    return "\n".join(lines)


def _full(spec: Cmdlet) -> str:
    params = "\n\n".join(_describe_param(p) for p in spec.params)
    return _summary(spec) + ("\n\nPARAMETERS\n" + params if params else "")


def _describe_param(p: Param) -> str:
    facts = [f"type {p.type_name()}", "mandatory" if p.mandatory else "optional"]
    if p.position is not None:
        facts.append(f"position {p.position}")
    if p.pipeline:
        facts.append(f"pipeline input by {p.pipeline.replace(',', ' and ')}")
    if p.choices:
        facts.append("one of " + ", ".join(p.choices))
    if p.aliases:
        facts.append("aliases " + ", ".join("-" + a for a in p.aliases))
    text = f"    -{p.name}  ({'; '.join(facts)})"
    return text + (f"\n        {p.help}" if p.help else "")


def _examples(spec: Cmdlet) -> str:
    if not spec.examples:
        return "EXAMPLES\n    (none)"
    blocks = [f"    PS fay> {e.code}\n        {e.text}" for e in spec.examples]
    return "EXAMPLES\n" + "\n\n".join(blocks)
