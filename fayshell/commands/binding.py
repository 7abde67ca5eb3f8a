"""Parameter binding: named (with unambiguous prefixes), positional, switches, pipeline input.

The binder reads only the cmdlet's declaration, so what `Get-Help` shows is exactly what binds.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fayshell import errorids
from fayshell.commands.registry import Cmdlet, Param, snake_case
from fayshell.errors import (
    ERROR_ACTIONS,
    STREAM_ACTIONS,
    ErrorAction,
    ParameterError,
    StreamAction,
    action_name,
    error_action,
)
from fayshell.lang.ops import OperatorError, convert, to_number, to_string, truthy, type_name
from fayshell.lang.values import Duration, ScriptBlock, Size, parse_unit_number
from fayshell.records import get_property, has_property

COMMON = (
    Param(
        "Verbose",
        bool,
        aliases=("vb",),
        help="Show what the command does, e.g. the SQL a pipeline runs.",
    ),
    Param("Debug", bool, aliases=("db",), help="Show the command's Write-Debug notes."),
    Param(
        "ErrorAction",
        str,
        aliases=("ea",),
        choices=ERROR_ACTIONS,
        help="Stop (default in scripts), Continue or SilentlyContinue after a failed item.",
    ),
    Param(
        "WarningAction",
        str,
        aliases=("wa",),
        choices=STREAM_ACTIONS,
        help="Its warnings: shown (Continue, the default), not shown (SilentlyContinue, "
        "Ignore), or a terminating error (Stop).",
    ),
    Param(
        "InformationAction",
        str,
        aliases=("infa",),
        choices=STREAM_ACTIONS,
        help="Its Write-Information messages: shown only under Continue (by default "
        "$InformationPreference, SilentlyContinue).",
    ),
    Param(
        "ProgressAction",
        str,
        aliases=("proga",),
        choices=STREAM_ACTIONS,
        help="SilentlyContinue or Ignore: no progress bar.",
    ),
    Param(
        "ErrorVariable",
        str,
        aliases=("ev",),
        help="Also keep the command's errors in this variable (+name adds to it).",
    ),
    Param(
        "OutVariable",
        str,
        aliases=("ov",),
        help="Also keep the command's output in this variable (+name adds to it).",
    ),
    Param(
        "WarningVariable",
        str,
        aliases=("wv",),
        help="Also keep the command's warnings in this variable (+name adds to it).",
    ),
    Param(
        "InformationVariable",
        str,
        aliases=("iv",),
        help="Also keep its Write-Information and Write-Host messages in this variable.",
    ),
    Param(
        "PipelineVariable",
        str,
        aliases=("pv",),
        help="Each item the command writes is also this variable for the commands after it.",
    ),
    Param(
        "OutBuffer",
        int,
        aliases=("ob",),
        help="Taken for PowerShell scripts: each item goes on as soon as it is written.",
    ),
)
#: What a command that changes something also takes (its declaration says should_process).
SHOULD_PROCESS = (
    Param("WhatIf", bool, aliases=("wi",), help="Only say what it would do."),
    Param(
        "Confirm",
        bool,
        aliases=("cf",),
        help="Ask before each change; -Confirm:$false never asks. Not given: asked when the "
        "command's ConfirmImpact is at or above $ConfirmPreference (a script cannot answer: "
        "the change is not made, and a warning says so).",
    ),
)


def common_params(spec: Cmdlet) -> tuple[Param, ...]:
    """The parameters every command takes besides its own (its own win a name they share)."""
    extra = COMMON + (SHOULD_PROCESS if spec.should_process else ())
    return tuple(c for c in extra if spec.param(c.name) is None)


NO_VALUE = object()


@dataclass(frozen=True)
class NamedArg:
    """``-Name`` (value NO_VALUE) or ``-Name:value`` as written."""

    name: str
    value: Any = NO_VALUE


@dataclass
class Bound:
    """The result of binding a command line: values by Python name plus common settings."""

    values: dict[str, Any] = field(default_factory=dict)
    verbose: bool = False
    debug: bool = False
    error_action: ErrorAction | None = None
    warning_action: StreamAction | None = None
    information_action: StreamAction | None = None
    progress_action: StreamAction | None = None
    error_variable: str | None = None
    out_variable: str | None = None
    warning_variable: str | None = None
    information_variable: str | None = None
    pipeline_variable: str | None = None
    #: -OutBuffer: taken and checked, not used (each item goes on as soon as it is written).
    out_buffer: int | None = None
    #: -WhatIf and -Confirm as given (None: not given; $WhatIfPreference decides).
    what_if: bool | None = None
    confirm: bool | None = None
    #: The parameter set the call resolved to ($PSCmdlet.ParameterSetName).
    parameter_set: str = "__AllParameterSets"


class ParameterToken(str):
    """``-Name`` as a simple function's ``$args`` holds it (a name it has no parameter for):
    splatting ``@args`` passes it on as a parameter name, as PowerShell does."""

    __slots__ = ()


def takes_loose_args(param: Param) -> bool:
    """The ``$args`` of a function or block without ValueFromRemainingArguments: it takes
    what no parameter does, names included, and is not itself a name to give."""
    return param.rest and param.name == "args"


def resolve_param(spec: Cmdlet, name: str) -> Param:
    """Exact name or alias first, then a unique prefix; otherwise a clear ParameterError."""
    candidates = [p for p in spec.params if not takes_loose_args(p)] + list(common_params(spec))
    low = name.lower()
    for p in candidates:
        if p.name.lower() == low or low in (a.lower() for a in p.aliases):
            return p
    hits = [
        p
        for p in candidates
        if p.name.lower().startswith(low) or any(a.lower().startswith(low) for a in p.aliases)
    ]
    if len(hits) == 1:
        return hits[0]
    if hits:
        names = ", ".join("-" + p.name for p in hits)
        raise ParameterError(
            spec.name,
            name,
            f"ambiguous parameter; it could be {names}",
            f"Parameter cannot be processed because the parameter name '{name}' is ambiguous. "
            f"Possible matches include: {' '.join('-' + p.name for p in hits)}.",
        )
    all_names = [p.name for p in candidates]
    close = difflib.get_close_matches(name, all_names, n=1, cutoff=0.6)
    hint = f" (did you mean -{close[0]}?)" if close else ""
    raise ParameterError(
        spec.name,
        name,
        f"no such parameter{hint}",
        f"A parameter cannot be found that matches parameter name '{name}'.",
        errorids.NAMED_PARAMETER_NOT_FOUND,
    )


def _resolved(spec: Cmdlet, name: str) -> Param | None:
    """The parameter ``-name`` gives, or None when no parameter has it and ``$args`` takes it."""
    try:
        return resolve_param(spec, name)
    except ParameterError:
        if any(takes_loose_args(p) for p in spec.params):
            return None
        raise


def bind(spec: Cmdlet, args: list[Any]) -> Bound:
    """Bind evaluated arguments (NamedArg or plain values, in order) to the declaration."""
    bound = Bound()
    positional: list[Any] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not isinstance(arg, NamedArg):
            positional.append(arg)
            continue
        param = _resolved(spec, arg.name)
        if param is None:  # a simple function: -name is one of its $args
            positional.append(ParameterToken("-" + arg.name))
            positional += [] if arg.value is NO_VALUE else [arg.value]
            continue
        value = arg.value
        if value is NO_VALUE:
            if param.is_switch:
                value = True
            elif i < len(args) and not isinstance(args[i], NamedArg):
                value = args[i]
                i += 1
            else:
                raise ParameterError(
                    spec.name, param.name, f"missing an argument of type {param.type_name()}"
                )
        _set(spec, bound, param, value)
    _bind_positional(spec, bound, positional)
    return bound


def _set(spec: Cmdlet, bound: Bound, param: Param, value: Any) -> None:
    on_bound = _ON_BOUND.get(param.name)
    if on_bound is not None and spec.param(param.name) is None:
        field_name, read = on_bound
        setattr(bound, field_name, read(spec, param, value))
    elif param in SHOULD_PROCESS:
        setattr(bound, snake_case(param.name), truthy(value))
    else:
        if param.pyname in bound.values:
            raise ParameterError(spec.name, param.name, "given more than once")
        bound.values[param.pyname] = bound_value(spec, param, value)


def variable_name(spec: Cmdlet, param: Param, value: Any) -> str:
    """A -XxxVariable's name, without the ``$`` PowerShell does not want there (``+name``
    adds to the variable)."""
    name = to_string(value).strip()
    if not name.lstrip("+") or name.lstrip("+").startswith("$"):
        raise ParameterError(spec.name, param.name, f"{name!r} is not a variable name (no $)")
    return name


def _bind_positional(spec: Cmdlet, bound: Bound, positional: list[Any]) -> None:
    slots = sorted(
        (p for p in spec.params if p.position is not None and not p.rest),
        key=lambda p: p.position or 0,
    )
    rest = next((p for p in spec.params if p.rest), None)
    queue = list(positional)
    for p in slots:
        if not queue:
            break
        if p.pyname in bound.values:
            continue
        bound.values[p.pyname] = bound_value(spec, p, queue.pop(0))
    if queue and rest is not None:
        bound.values[rest.pyname] = convert_value(spec, rest, queue)
        queue = []
    if queue:
        shown = to_string(queue[0])[:40]
        raise ParameterError(
            spec.name,
            None,
            f"unexpected positional argument {shown!r}; "
            f"see 'Get-Help {spec.name}' for its parameters",
            f"A positional parameter cannot be found that accepts argument '{shown}'.",
            error_id=errorids.POSITIONAL_NOT_FOUND,
        )


def missing_mandatory(spec: Cmdlet, values: Mapping[str, Any]) -> list[Param]:
    return [p for p in spec.params if p.mandatory and p.pyname not in values]


def pipeline_binding(spec: Cmdlet, values: Mapping[str, Any], item: Any) -> dict[str, Any]:
    """Bind one pipeline record to the parameters not given on the command line.

    A by-value parameter that takes the record's type as it is (``Param.exact``) takes it
    first; then parameters that bind by property name take the record's property of that name
    (or alias) when it has one; then the first by-value parameter still free takes the record.
    """
    out: dict[str, Any] = {}
    free = [p for p in spec.params if p.pipeline and p.pyname not in values]
    exact = next((p for p in free if p.by_value and isinstance(item, p.exact)), None)
    if exact is not None:  # the item as it is, first: no property of it binds this one
        out[exact.pyname] = convert_value(spec, exact, item)
    for p in free:
        if p.by_property and p.pyname not in out:
            for name in (p.name, *p.aliases):
                if has_property(item, name):
                    out[p.pyname] = convert_value(spec, p, get_property(item, name))
                    break
    for p in free:
        if p.by_value and p.pyname not in out:
            out[p.pyname] = convert_value(spec, p, item)
            break
    return out


@dataclass(frozen=True)
class DelayBound:
    """A script block given to a cmdlet's parameter that takes pipeline input and is not a
    script block's itself (about_Script_Blocks, delay-bind): run for each input item, with
    ``$_`` the item; its output, converted, is the parameter's value for that item."""

    block: ScriptBlock

    #: PowerShell's words when the command has no input to run the block for.
    NO_INPUT = (
        "Cannot evaluate parameter '{}' because its argument is specified as a script block "
        "and there is no input. A script block cannot be evaluated without input."
    )


def bound_value(spec: Cmdlet, param: Param, value: Any) -> Any:
    """A command-line argument for ``param``: a DelayBound script block, else converted."""
    delayed = (
        isinstance(value, ScriptBlock)
        and bool(param.pipeline)
        and spec.family != "function"
        and param.type not in ("scriptblock", "any", object)
    )
    return DelayBound(value) if delayed else convert_value(spec, param, value)


def convert_value(spec: Cmdlet, param: Param, value: Any) -> Any:
    """Convert an argument to the parameter's declared type, or raise a ParameterError."""
    try:
        result = _convert(param.type, value)
    except (OperatorError, ValueError, TypeError) as exc:
        raise cannot_convert(spec, param, value, exc) from None
    if param.choices in (ERROR_ACTIONS, STREAM_ACTIONS) and result is not None:
        result = action_name(result)  # -ErrorAction 0 is SilentlyContinue
    if param.choices and result is not None:
        items = result if isinstance(result, list) else [result]
        for item in items:
            match = [c for c in param.choices if c.lower() == str(item).lower()]
            if not match:
                raise ParameterError(
                    spec.name, param.name, f"{item!r} is not one of {', '.join(param.choices)}"
                )
        if isinstance(result, list):
            result = [next(c for c in param.choices if c.lower() == str(i).lower()) for i in result]
        else:
            result = next(c for c in param.choices if c.lower() == str(result).lower())
    return result


#: The .NET types of parameters declared with Python's: an argument that does not convert is
#: reported in .NET's words for them.
DOTNET_TYPES: dict[Any, str] = {int: "int", float: "double", "ints": "int"}


def cannot_convert(spec: Cmdlet, param: Param, value: Any, exc: Exception) -> ParameterError:
    """An argument that does not convert to ``param``'s type, in PowerShell's words for a
    .NET type (a cmdlet's "Cannot bind parameter", a function's "Cannot process argument
    transformation"), else in fayshell's (a duration, a size ...)."""
    target = DOTNET_TYPES.get(param.type)
    if target is None or isinstance(value, list):
        return ParameterError(
            spec.name,
            param.name,
            f"expects {param.type_name()}, got {type_name(value)} "
            f"{to_string(value)[:40]!r} ({exc})",
        )
    try:
        convert(value, target)
        why = str(exc)
    except (OperatorError, ValueError, TypeError) as net:
        why = str(net)
    if spec.family == "function":
        lead, error_id = (
            "Cannot process argument transformation on",
            errorids.ARGUMENT_TRANSFORMATION,
        )
    else:
        lead, error_id = "Cannot bind", errorids.CANNOT_CONVERT_ARGUMENT
    return ParameterError(
        spec.name, param.name, f"{lead} parameter '{param.name}'. {why}", error_id=error_id
    )


def _scalar(value: Any) -> Any:
    if isinstance(value, list):
        if len(value) != 1:
            raise ValueError("a single value is needed, not an array")
        return value[0]
    return value


def _convert(kind: Any, value: Any) -> Any:
    if kind in ("any", object):
        return value
    if kind is bool:
        return truthy(value)
    if kind is str:
        return to_string(_scalar(value))
    if kind is int:  # as PowerShell's binder casts: 2.5 is 2, '0x10' 16, $null 0
        return int(convert(_scalar(value), "long"))
    if kind is float:
        return float(convert(_scalar(value), "double"))
    if kind == "strings":
        items = value if isinstance(value, (list, tuple)) else [value]
        return [to_string(v) for v in items]
    if kind == "ints":
        items = value if isinstance(value, (list, tuple)) else [value]
        return [int(convert(v, "long")) for v in items]
    if kind == "scriptblock":
        if not isinstance(value, ScriptBlock):
            raise ValueError("a script block { ... } is needed")
        return value
    if kind == "hashtable":
        if not isinstance(value, Mapping):
            raise ValueError("a hashtable @{ ... } is needed")
        return dict(value)
    if kind in ("duration", "size", "dursize"):
        return _unit(kind, _scalar(value))
    raise ValueError(f"unknown parameter type {kind!r}")


def _unit(kind: str, value: Any) -> Duration | Size:
    """``2s``/``500ms`` for durations, ``4MB`` for sizes; bare numbers are seconds or bytes."""
    if isinstance(value, str):
        parsed = parse_unit_number(value.strip())
        value = to_number(value) if parsed is None else parsed
    if isinstance(value, Duration) and kind in ("duration", "dursize"):
        return value
    if isinstance(value, Size) and kind in ("size", "dursize"):
        return value
    if isinstance(value, (Duration, Size)):
        want = "a duration like 2s" if kind == "duration" else "a size like 4MB"
        raise ValueError(f"{want} is needed")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("a number with a unit is needed")
    if kind == "size":
        return Size(int(value))
    if kind == "duration":
        return Duration.from_seconds(value)
    raise ValueError("a duration (2s) or a size (64MB) is needed")


#: The common parameters kept on Bound (not given to the command): the field each sets and how
#: its value is read.
_ON_BOUND: dict[str, tuple[str, Callable[[Cmdlet, Param, Any], Any]]] = {
    "Verbose": ("verbose", lambda spec, param, value: truthy(value)),
    "Debug": ("debug", lambda spec, param, value: truthy(value)),
    "ErrorAction": ("error_action", lambda s, p, v: error_action(convert_value(s, p, v))),
    "WarningAction": ("warning_action", convert_value),
    "InformationAction": ("information_action", convert_value),
    "ProgressAction": ("progress_action", convert_value),
    "OutBuffer": ("out_buffer", convert_value),
    "ErrorVariable": ("error_variable", variable_name),
    "OutVariable": ("out_variable", variable_name),
    "WarningVariable": ("warning_variable", variable_name),
    "InformationVariable": ("information_variable", variable_name),
    "PipelineVariable": ("pipeline_variable", lambda s, p, v: variable_name(s, p, v).lstrip("+")),
}
