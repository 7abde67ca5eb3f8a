"""Variables and timing: Get-/Set-/Remove-Variable, Set-StrictMode, Measure-Command, Start-Sleep."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.errors import CommandError, RuntimeFayError
from fayshell.lang.ops import VariableNotWritable, has_wildcard, wildcard_match
from fayshell.lang.streams import is_relation
from fayshell.lang.values import ScriptBlock, TimeSpan
from fayshell.render import FixedTable, format_value
from fayshell.state import Scope


@dataclass
class VariableInfo:
    """A variable as Get-Variable shows it; setting its Value sets the variable."""

    Name: str
    Value: Any
    scope: Scope | None = field(default=None, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name == "Value" and getattr(self, "scope", None) is not None:
            self.scope.set(self.Name, value)  # type: ignore[union-attr]

    #: PowerShell's table of variables (its "Variable" view): Name 30 wide, Value the rest.
    TABLE_VIEW = FixedTable(("Name", "Value"), (30, 0), (False, False))

    def view_cells(self) -> list[str]:
        return [self.Name, format_value(self.Value)]


@cmdlet(
    "Get-Variable",
    aliases=("gv",),
    synopsis="List variables, or those whose names match a pattern.",
    params=[
        Param("Name", "strings", position=0, complete="variables"),
        Param("ValueOnly", bool, help="Output only the values."),
        Param("Scope", str, help="Global, Script, Local (default) or a number of scopes up."),
    ],
    examples=[
        ("Get-Variable web*", "Variables whose name starts with web."),
        ("Get-Variable x -Scope Global -ValueOnly", "The global $x, not a local one."),
    ],
)
def get_variable(
    ctx: Invocation,
    *,
    name: list[str] | None = None,
    value_only: bool = False,
    scope: str | None = None,
) -> Any:
    where = _scope(ctx, scope)
    out = []
    for var, value in where.items():
        if name and not any(wildcard_match(var, pat) for pat in name):
            continue
        out.append(value if value_only else VariableInfo(var, value, where))
    for pattern in name or []:
        if not has_wildcard(pattern) and not where.lookup(pattern)[0]:
            ctx.write_error(ErrorRecord(pattern, "", f"no variable named {pattern!r}"))
    return out


#: Set-StrictMode's versions: what -Version accepts, and the rules each turns on.
STRICT_VERSIONS = {"1": 1, "1.0": 1, "2": 2, "2.0": 2, "3": 3, "3.0": 3, "latest": 3}


@cmdlet(
    "Set-StrictMode",
    synopsis="Turn on coding rules for this scope and those below it, or turn them off.",
    description="Version 1.0: reading a variable never set is an error (except inside a "
    "string). 2.0: also inside strings; a property the object does not have (a hashtable has "
    "every key); a command called as a method, f(1, 2). 3.0 (Latest): also an index past "
    "either end of an array. A function or script that sets it does not change its caller.",
    params=[
        Param("Version", str, help="1.0, 2.0, 3.0 or Latest."),
        Param("Off", bool, help="No rules (the default)."),
    ],
    examples=[
        ("Set-StrictMode -Version Latest", "Every rule: a typo in a name is an error."),
        ("Set-StrictMode -Off", "Unset variables and missing properties are $null again."),
    ],
)
def set_strict_mode(ctx: Invocation, *, version: str | None = None, off: bool = False) -> None:
    if (version is None) == (not off):
        raise CommandError("Set-StrictMode", "give either -Version or -Off")
    level = 0 if off else STRICT_VERSIONS.get((version or "").strip().lower())
    if level is None:
        raise CommandError(
            "Set-StrictMode",
            f"Cannot validate argument on parameter 'Version'. The {version} strict mode "
            "version is not valid. Valid versions are 1.0, 2.0, 3.0 and Latest.",
        )
    _scope(ctx, None).strict = level


@cmdlet(
    "Set-PSDebug",
    synopsis="Trace a script as it runs: each statement (-Trace 1), also variable "
    "assignments and function calls (-Trace 2), as DEBUG lines; -Strict is Set-StrictMode "
    "-Version 1 for the session; -Off turns both off.",
    description="-Step (a prompt before each line) is refused: fayshell has no stepping "
    "debugger; -Trace 1 shows each line as it runs.",
    params=[
        Param("Trace", int, help="0 off, 1 statements, 2 also assignments and calls."),
        Param("Strict", bool, help="Reading a variable never set is an error."),
        Param("Step", bool, help="Refused (no stepping debugger)."),
        Param("Off", bool, help="No tracing, no strict mode."),
    ],
    examples=[
        ("Set-PSDebug -Trace 1; ./incident.fay", "Each line of the command file as it runs."),
        ("Set-PSDebug -Off", "Quiet again."),
    ],
)
def set_psdebug(
    ctx: Invocation,
    *,
    trace: int | None = None,
    strict: bool = False,
    step: bool = False,
    off: bool = False,
) -> None:
    if off and (trace is not None or strict or step):
        raise CommandError("Set-PSDebug", "-Off cannot be given with -Trace, -Strict or -Step")
    if step:
        raise CommandError(
            "Set-PSDebug",
            "-Step is not there: fayshell has no stepping debugger (-Trace 1 "
            "shows each line as it runs)",
        )
    if trace is not None and trace not in (0, 1, 2):
        raise CommandError("Set-PSDebug", f"-Trace {trace}: the trace level is 0 (off), 1 or 2")
    if off:
        ctx.state.trace_level = 0
        ctx.state.globals.strict = 0
        return
    if trace is not None:
        ctx.state.trace_level = trace
    if strict:
        ctx.state.globals.strict = max(ctx.state.globals.strict or 0, 1)


def _scope(ctx: Invocation, scope: str | None) -> Scope:
    """The scope ``-Scope`` names, relative to the caller (globals when no evaluator runs)."""
    interp = ctx.state.interpreter
    if interp is None:
        return ctx.state.globals
    try:
        found: Scope = interp.scope_named(scope)
    except RuntimeFayError as exc:
        raise CommandError(ctx.name, exc.message) from None
    return found


#: The scope a variable's name may start with (``Set-Variable global:n 1``).
SCOPE_PREFIXES = ("global", "script", "local", "private")


def _scoped(name: str, scope: str | None) -> tuple[str, str | None]:
    """A name and the scope it names: ``global:n`` is ``n`` in the global scope, as
    ``$global:n`` is; ``-Scope`` applies to a name without a prefix."""
    prefix, sep, rest = name.partition(":")
    if sep and rest and prefix.lower() in SCOPE_PREFIXES:
        return rest, "Local" if prefix.lower() == "private" else prefix
    return name, scope


#: -Option of New-Variable and Set-Variable (Private hides the variable from child scopes;
#: AllScope is accepted: fayshell's child scopes see their parents' variables anyway).
OPTIONS = ("None", "ReadOnly", "Constant", "Private", "AllScope")
OPTION = Param(
    "Option", "strings", choices=OPTIONS, help="ReadOnly (changes need -Force) or Constant."
)


@cmdlet(
    "Set-Variable",
    aliases=("set",),
    synopsis="Set a variable by name (same as $name = value).",
    params=[
        Param("Name", str, position=0, mandatory=True, complete="variables", pipeline="property"),
        Param("Value", "any", position=1, pipeline="property,value"),
        Param("Scope", str, help="Global, Script, Local (default) or a number of scopes up."),
        OPTION,
        Param("Force", bool, help="Change a ReadOnly variable too (not a Constant one)."),
        Param("Description", str, help="Accepted."),
        Param("PassThru", bool, help="Output the variable."),
    ],
    examples=[
        ("Set-Variable limit 50", "Same as $limit = 50."),
        ("Set-Variable n 1 -Scope Global", "Same as $global:n = 1."),
        ("Set-Variable MaxNodes 64 -Option ReadOnly", "A value the script cannot change."),
    ],
)
def set_variable(
    ctx: Invocation,
    *,
    name: str,
    value: Any = None,
    scope: str | None = None,
    option: list[str] | None = None,
    force: bool = False,
    description: str | None = None,
    pass_thru: bool = False,
) -> Any:
    name, scope = _scoped(name, scope)
    if name.lower() in ("true", "false", "null"):
        raise CommandError("Set-Variable", f"cannot overwrite the constant ${name}")
    where = _scope(ctx, scope)  # the globals when no evaluator runs
    _may_change(ctx, where, name, force)
    where.set_local(name, value)
    _set_options(where, name, option)
    return VariableInfo(name, value) if pass_thru else None


def _may_change(ctx: Invocation, where: Scope, name: str, force: bool) -> None:
    """PowerShell's error when ``name`` in ``where`` is Constant, or ReadOnly without -Force."""
    if where.protected(name, force):
        raise CommandError(ctx.name, VariableNotWritable(name).args[0])


def _set_options(where: Scope, name: str, option: list[str] | None) -> None:
    """Record -Option for ``name`` in ``where`` (Constant outranks ReadOnly)."""
    given = {o.lower() for o in option or []}
    key = name.lower()
    if "private" in given:
        where.private.add(key)
    for fixed in ("Constant", "ReadOnly"):
        if fixed.lower() in given:
            where.options[key] = fixed
            return


@cmdlet(
    "New-Variable",
    aliases=("nv",),
    synopsis="Create a variable; an error if it already exists in that scope.",
    params=[
        Param("Name", str, position=0, mandatory=True),
        Param("Value", "any", position=1),
        Param("Scope", str, help="Global, Script, Local (default) or a number of scopes up."),
        Param("Force", bool, help="Overwrite an existing variable (not a Constant one)."),
        OPTION,
        Param("Description", str, help="Accepted."),
        Param("Visibility", str, choices=("Public", "Private"), help="Accepted."),
        Param("PassThru", bool, help="Output the variable."),
    ],
    examples=[
        ("New-Variable limit 50", "Same as $limit = 50, unless $limit exists."),
        ("New-Variable Cluster 'web' -Option Constant", "Neither changed nor removed."),
    ],
)
def new_variable(
    ctx: Invocation,
    *,
    name: str,
    value: Any = None,
    scope: str | None = None,
    force: bool = False,
    option: list[str] | None = None,
    description: str | None = None,
    visibility: str | None = None,
    pass_thru: bool = False,
) -> Any:
    name, scope = _scoped(name, scope)
    where = _scope(ctx, scope)
    if name.lower() in where.vars and not force:
        raise CommandError("New-Variable", f"A variable with name '{name}' already exists.")
    if name.lower() in ("true", "false", "null"):
        raise CommandError("New-Variable", f"cannot overwrite the constant ${name}")
    _may_change(ctx, where, name, force)
    where.set_local(name, value)
    _set_options(where, name, option)
    return VariableInfo(name, value) if pass_thru else None


@cmdlet(
    "Clear-Variable",
    aliases=("clv",),
    synopsis="Set variables to $null (they keep existing).",
    params=[
        Param("Name", "strings", position=0, mandatory=True, complete="variables"),
        Param("Scope", str, help="Global, Script, Local (default) or a number of scopes up."),
        Param("Force", bool, help="Clear a ReadOnly variable too."),
    ],
    examples=[("Clear-Variable total", "Same as $total = $null.")],
)
def clear_variable(
    ctx: Invocation, *, name: list[str], scope: str | None = None, force: bool = False
) -> None:
    where = _scope(ctx, scope)
    for n in name:
        holder = where.holder(n)
        if holder is None:
            ctx.write_error(ErrorRecord(n, "", f"no variable named {n!r}"))
            continue
        _may_change(ctx, holder, n, force)
        holder.set_local(holder.vars[n.lower()][0], None)


@cmdlet(
    "Remove-Variable",
    aliases=("rv",),
    synopsis="Delete a variable.",
    params=[
        Param("Name", "strings", position=0, mandatory=True, complete="variables"),
        Param("Scope", str, help="Global, Script, Local (default) or a number of scopes up."),
        Param("Force", bool, help="Remove a ReadOnly variable too (never a Constant one)."),
    ],
    examples=[("Remove-Variable web", "Forget $web.")],
    should_process=True,
)
def remove_variable(
    ctx: Invocation, *, name: list[str], scope: str | None = None, force: bool = False
) -> None:
    where = _scope(ctx, scope) if scope is not None else ctx.state.scope_now
    for n in name:
        holder = where.holder(n)
        if holder is None:
            ctx.write_error(ErrorRecord(n, "", f"no variable named {n!r}"))
            continue
        if holder.protected(n, force):
            raise CommandError(ctx.name, NOT_REMOVABLE.format(n))
        if ctx.should_process(f"Name: {n}", "Remove Variable"):
            holder.remove(n)


NOT_REMOVABLE = (
    "Cannot remove variable {} because it is constant or read-only. If the variable is "
    "read-only, try the operation again specifying the Force option."
)


@cmdlet(
    "Measure-Command",
    synopsis="Run a script block and report how long it took (its output is discarded).",
    params=[Param("Expression", "scriptblock", position=0, mandatory=True)],
    examples=[("(Measure-Command { Get-Node }).TotalMilliseconds", "Time one command.")],
)
async def measure_command(ctx: Invocation, *, expression: ScriptBlock) -> TimeSpan:
    start = time.perf_counter_ns()
    for item in await expression.invoke():
        if is_relation(item):
            item.fetch()
    return TimeSpan(time.perf_counter_ns() - start)
