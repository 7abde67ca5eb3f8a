"""How a cmdlet is declared: its parameters, help and examples, in one place.

A cmdlet is a plain function decorated with :func:`cmdlet`. The decorator only attaches a
:class:`Cmdlet` spec to the function; :class:`Registry` collects the specs from the command modules.
`Get-Help`, `Get-Command`, tab completion and the parameter binder all read these specs, so the
declaration is the one source of truth.

The function is called as ``func(ctx, **params)``: ``ctx`` is a
:class:`fayshell.commands.invocation.Invocation` (shell state, pipeline input, verbose/error
settings) and each declared parameter arrives as a keyword argument whose name is the parameter
name in snake_case (``FilterScript`` -> ``filter_script``). It may be sync or async, and may return
``None``, an iterable of records, an (async) generator of records, or a
:class:`fayshell.store.relation.Relation`.
"""

from __future__ import annotations

import builtins
import keyword
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Final, Literal, TypeVar, get_args

from fayshell.lang.preferences import IMPACTS, ConfirmImpact

F = TypeVar("F", bound=Callable[..., Any])

#: :attr:`Param.type` as a converter name (else one of :data:`PY_TYPES`).
ParamKind = Literal[
    "any", "strings", "ints", "scriptblock", "hashtable", "duration", "size", "dursize"
]
PARAM_KINDS: Final[tuple[ParamKind, ...]] = get_args(ParamKind)
PY_TYPES: Final = (str, int, float, bool, object)
#: :attr:`Param.pipeline`: how (if at all) the parameter binds pipeline input.
Pipeline = Literal["", "value", "property", "value,property", "property,value"]
PIPELINES: Final[tuple[Pipeline, ...]] = get_args(Pipeline)
BY_VALUE: Final = "value"
BY_PROPERTY: Final = "property"
BY_VALUE_AND_PROPERTY: Final = "value,property"
#: :attr:`Param.complete`: where completion finds values (``fayshell.completion.SOURCES``).
Completion = Literal["nodes", "groups", "sessions", "tables", "variables", "commands", "files"]
COMPLETIONS: Final[tuple[Completion, ...]] = get_args(Completion)


@dataclass(frozen=True)
class Param:
    """One declared parameter.

    ``type`` is a Python type or a converter name understood by the binder: ``str``, ``int``,
    ``float``, ``bool`` (a switch), ``object`` or ``"any"``, ``"duration"``, ``"size"``,
    ``"dursize"`` (either), ``"scriptblock"``, ``"hashtable"``, ``"strings"`` (list of str),
    ``"ints"``.
    ``choices`` restricts a string to a case-insensitive set (and feeds completion).
    ``pipeline`` is ``""``, ``"value"``, ``"property"`` or ``"value,property"``.
    ``complete`` names a completion source: ``nodes``, ``groups``, ``sessions``, ``tables``,
    ``variables``, ``commands``, ``files`` (``choices`` complete by themselves).
    ``rest`` collects all remaining positional arguments into a list.
    ``exact``: the types a by-value parameter takes a pipeline item of as it is, before any
    parameter binds the item's properties (PowerShell binds without conversion first: a
    DateTime piped to Get-Date is the -Date, not its own Date property).
    A value outside these raises ValueError where the parameter is declared.
    """

    name: str
    type: ParamKind | type = str
    mandatory: bool = False
    position: int | None = None
    pipeline: Pipeline = ""
    default: Any = None
    help: str = ""
    aliases: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    complete: Completion | None = None
    rest: bool = False
    exact: tuple[builtins.type, ...] = ()  # (``type`` is the field above)

    def __post_init__(self) -> None:
        known = self.type in PY_TYPES if isinstance(self.type, type) else self.type in PARAM_KINDS
        checks = [
            (known, "type", self.type, [t.__name__ for t in PY_TYPES] + list(PARAM_KINDS)),
            (self.pipeline in PIPELINES, "pipeline", self.pipeline, PIPELINES),
            (
                self.complete is None or self.complete in COMPLETIONS,
                "complete",
                self.complete,
                COMPLETIONS,
            ),
        ]
        for ok, what, value, allowed in checks:
            if not ok:
                raise ValueError(
                    f"parameter -{self.name}: {what} {value!r} is not one of "
                    f"{', '.join(map(repr, allowed))}"
                )

    @property
    def is_switch(self) -> bool:
        return self.type is bool

    @property
    def pyname(self) -> str:
        """The keyword argument name the function receives (``As`` arrives as ``as_``)."""
        name = snake_case(self.name)
        return f"{name}_" if keyword.iskeyword(name) else name

    @property
    def by_value(self) -> bool:
        return BY_VALUE in self.pipeline.split(",")

    @property
    def by_property(self) -> bool:
        return BY_PROPERTY in self.pipeline.split(",")

    def type_name(self) -> str:
        """Human name of the type, for help and error messages."""
        if isinstance(self.type, str):
            return self.type
        names = {bool: "switch", str: "string", int: "int", float: "double"}
        if self.type in names:
            return names[self.type]
        return getattr(self.type, "__name__", str(self.type))


@dataclass(frozen=True)
class Example:
    """One example: the code to type and what it does."""

    code: str
    text: str = ""


@dataclass(frozen=True)
class Cmdlet:
    """The declaration of a cmdlet, attached to its function by :func:`cmdlet`."""

    name: str
    func: Callable[..., Any]
    synopsis: str
    params: tuple[Param, ...] = ()
    aliases: tuple[str, ...] = ()
    description: str = ""
    examples: tuple[Example, ...] = ()
    stream: bool = False
    raw_tail: bool = False
    family: str = ""
    #: It changes something: it takes -WhatIf and -Confirm and asks ctx.should_process.
    should_process: bool = False
    confirm_impact: ConfirmImpact = "Medium"

    def param(self, name: str) -> Param | None:
        low = name.lower()
        for p in self.params:
            if p.name.lower() == low or low in (a.lower() for a in p.aliases):
                return p
        return None

    def syntax(self) -> str:
        """A one-line usage string: ``Where-Object [-FilterScript] <scriptblock>``."""
        parts = [self.name]
        for p in sorted(self.params, key=lambda q: (q.position is None, q.position or 0)):
            if p.is_switch:
                text = f"-{p.name}"
            else:
                name = f"[-{p.name}]" if p.position is not None else f"-{p.name}"
                text = f"{name} <{p.type_name()}>"
            parts.append(text if p.mandatory else f"[{text}]")
        if self.should_process:
            parts += ["[-WhatIf]", "[-Confirm]"]
        return " ".join(parts)


def snake_case(name: str) -> str:
    """``FilterScript`` -> ``filter_script``; ``ExpandProperty`` -> ``expand_property``."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def cmdlet(
    name: str,
    *,
    synopsis: str,
    params: Iterable[Param] = (),
    aliases: Iterable[str] = (),
    description: str = "",
    examples: Iterable[Example | tuple[str, str]] = (),
    stream: bool = False,
    raw_tail: bool = False,
    should_process: bool = False,
    confirm_impact: ConfirmImpact = "Medium",
) -> Callable[[F], F]:
    """Declare ``func`` as the cmdlet ``name``.

    ``stream=True``: the function receives the whole pipeline input as ``ctx.input`` (an iterable
    of records, a Relation, or None) and is called once. Otherwise, when a parameter binds from
    the pipeline, the function is called once per input record with that record bound.
    ``raw_tail=True``: the rest of the line after the command name is passed unparsed as the
    first positional parameter (used by ``sql``).
    ``should_process=True``: it takes -WhatIf and -Confirm (see Invocation.should_process);
    ``confirm_impact``: how risky its changes are (PowerShell's cmdlets are Medium, most of them).
    """
    if confirm_impact not in IMPACTS:
        raise ValueError(f"{name}: confirm_impact {confirm_impact!r} is not a ConfirmImpact")
    exs = tuple(e if isinstance(e, Example) else Example(*e) for e in examples)

    def deco(func: F) -> F:
        spec = Cmdlet(
            name=name,
            func=func,
            synopsis=synopsis,
            params=tuple(params),
            aliases=tuple(aliases),
            description=description,
            examples=exs,
            stream=stream,
            raw_tail=raw_tail,
            family=func.__module__.rsplit(".", 1)[-1],
            should_process=should_process,
            confirm_impact=confirm_impact,
        )
        func.__cmdlet__ = spec  # type: ignore[attr-defined]
        return func

    return deco


@dataclass(frozen=True)
class CommandIndex:
    """Which family declares each cmdlet name and alias (lower case), and the aliases of the
    raw-tail cmdlets (the parser's words): what the shell needs before it imports a family.
    ``fayshell/commands/_index.py`` holds the shell's, generated from the declarations."""

    family_of: dict[str, str]
    raw_aliases: frozenset[str]

    @classmethod
    def of(cls, registry: Registry) -> CommandIndex:
        """The index of every cmdlet ``registry`` holds (all its families imported)."""
        family_of: dict[str, str] = {}
        for spec in registry:
            for name in (spec.name, *spec.aliases):
                family_of[name.lower()] = spec.family
        return cls(dict(sorted(family_of.items())), registry.raw_aliases())


@dataclass
class Registry:
    """All cmdlets and aliases the shell knows, looked up case-insensitively. A registry made by
    :meth:`lazy` imports a family when a name its index gives is first resolved (a script pays
    only for the families it uses); listing the commands, or a name the index does not
    know, imports every family left. Which cmdlet a name resolves to never depends on the index;
    the parser's raw-tail words come from it until every family is imported (a test keeps the
    index equal to the declarations)."""

    _cmdlets: dict[str, Cmdlet] = field(default_factory=dict)
    _aliases: dict[str, str] = field(default_factory=dict)
    #: Families not imported yet, in listing order, and how to import one.
    _left: list[str] = field(default_factory=list)
    _importer: Callable[[str], ModuleType] | None = None
    _index: CommandIndex | None = None
    #: Held while families are imported (completion may run on its own thread).
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    @classmethod
    def from_modules(cls, modules: Iterable[ModuleType]) -> Registry:
        reg = cls()
        for mod in modules:
            reg.add_module(mod)
        return reg

    @classmethod
    def lazy(
        cls, families: Iterable[str], importer: Callable[[str], ModuleType], index: CommandIndex
    ) -> Registry:
        """A registry of ``families``, each imported (by ``importer``) when first needed."""
        return cls(_left=list(families), _importer=importer, _index=index)

    def add_module(self, mod: ModuleType) -> None:
        """Every cmdlet declared in ``mod``."""
        for obj in vars(mod).values():
            spec = getattr(obj, "__cmdlet__", None)
            if isinstance(spec, Cmdlet):
                self.add(spec)

    def add(self, spec: Cmdlet) -> None:
        key = spec.name.lower()
        if key in self._cmdlets:
            raise ValueError(f"cmdlet {spec.name} declared twice")
        self._cmdlets[key] = spec
        for alias in spec.aliases:
            self._aliases[alias.lower()] = spec.name

    def resolve(self, name: str) -> Cmdlet | None:
        """The cmdlet a name or alias refers to, or None."""
        low = name.lower()
        spec = self._known(low)
        return self._import_for(low) if spec is None and self._left else spec

    def _import_for(self, low: str) -> Cmdlet | None:
        """Import the family the index gives for ``low``, else every family left; look again."""
        with self._lock:
            family = self._index.family_of.get(low) if self._index is not None else None
            if family in self._left:
                self._import(family)
            spec = self._known(low)
            if spec is None:  # not in the index, or no longer where it says
                self._import_all()
                spec = self._known(low)
            return spec

    def _known(self, low: str) -> Cmdlet | None:
        spec = self._cmdlets.get(low)
        if spec is None and low in self._aliases:
            spec = self._cmdlets[self._aliases[low].lower()]
        return spec

    def raw_aliases(self) -> frozenset[str]:
        """The aliases whose command takes the rest of its line unparsed (``sql``)."""
        if self._left and self._index is not None:
            return self._index.raw_aliases
        return frozenset(a.lower() for c in self if c.raw_tail for a in c.aliases)

    def alias_table(self) -> dict[str, str]:
        """Every alias (lower case) and the cmdlet it stands for."""
        self._import_all()
        return dict(self._aliases)

    def _import(self, family: str) -> None:
        assert self._importer is not None
        self._left.remove(family)
        self.add_module(self._importer(family))

    def _import_all(self) -> None:
        with self._lock:
            while self._left:
                self._import(self._left[0])

    def __iter__(self) -> Iterator[Cmdlet]:
        self._import_all()
        return iter(sorted(self._cmdlets.values(), key=lambda c: c.name))

    def names(self) -> list[str]:
        """Every cmdlet name and alias, for completion and "did you mean"."""
        return [c.name for c in self] + sorted(self._aliases)
