"""Enumerations a script declares (about_Enum): ``enum Severity { Info; Warning = 4; Error }``
and ``[Flags()] enum Access { Read = 1; Write = 2 }``.

A member is an :class:`EnumValue`, an ``int`` that reads as its name (``"$s"`` is ``Warning``,
``[int]$s`` is 4), compares with its names (``$s -eq 'warning'``) and numbers, and sorts by
value; the :class:`EnumType` is what ``[Severity]`` evaluates to: casts (``[Severity]'Error'``,
``[Severity]4``), its members (``[Severity]::Error``), ``-is``/``-as``, and ``[enum]``'s
static methods (GetNames, GetValues, Parse, IsDefined, ToObject).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fayshell.lang.ops import OperatorError, to_number, to_string
from fayshell.lang.streams import unroll
from fayshell.lang.values import TypeInfo


class EnumValue(int):
    """One value of a script's enum: an int that reads as its member name (a flags value as
    its members' names joined by ", ")."""

    enum_type: EnumType

    def __new__(cls, enum_type: EnumType, value: int) -> EnumValue:
        made = super().__new__(cls, value)
        made.enum_type = enum_type
        return made

    def __str__(self) -> str:
        return self.enum_type.name_of(int(self))

    __repr__ = __str__

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return str(self)

    def GetType(self) -> EnumType:  # noqa: N802 - .NET method name
        return self.enum_type

    def HasFlag(self, flag: Any) -> bool:  # noqa: N802 - .NET method name
        bits = int(self.enum_type.convert(flag))
        return int(self) & bits == bits

    @property
    def value__(self) -> int:  # .NET's name for an enum value's number
        return int(self)

    def ps_coerce(self, other: Any) -> Any:
        """``$s -eq 'Error'``: the other operand as this enum, as PowerShell converts the
        right side to the left's type (unchanged when it names no member)."""
        try:
            return self.enum_type.convert(other)
        except OperatorError:
            return other

    def ps_is(self, low: str) -> bool | None:
        return True if low in ("enum", "system.enum", "valuetype") else None


@dataclass(frozen=True, eq=False)
class EnumType:
    """A script's ``enum`` declaration: its members in order, and whether it is [Flags()]."""

    Name: str
    members: tuple[tuple[str, int], ...] = field(repr=False)
    flags: bool = field(default=False, repr=False)
    BaseType: str = "System.Enum"
    #: A .NET enum's namespace ("" for a script's own).
    Namespace: str = field(default="", repr=False)

    @property
    def FullName(self) -> str:  # noqa: N802 - .NET property name
        return f"{self.Namespace}.{self.Name}" if self.Namespace else self.Name

    @property
    def IsEnum(self) -> bool:  # noqa: N802 - .NET property name
        return True

    def __str__(self) -> str:
        return self.FullName

    def GetEnumNames(self) -> list[str]:  # noqa: N802 - .NET method name
        return [name for name, _ in self.members]

    def GetEnumValues(self) -> list[EnumValue]:  # noqa: N802 - .NET method name
        return [EnumValue(self, value) for _, value in self.members]

    def GetType(self) -> TypeInfo:  # noqa: N802 - .NET method name
        return TypeInfo("RuntimeType", "System.RuntimeType")

    def member(self, name: str) -> EnumValue | None:
        """The member named ``name`` (any case), or None."""
        low = name.strip().lower()
        for member, value in self.members:
            if member.lower() == low:
                return EnumValue(self, value)
        return None

    def name_of(self, value: int) -> str:
        """A value's text: its member's name (the first declared, when two share it); a
        flags value as its members' names, ", " between; else the number."""
        for member, number in self.members:
            if number == value:
                return member
        parts = [(m, n) for m, n in self.members if n and value & n == n]
        if self.flags and value > 0 and _bits(n for _, n in parts) == value:
            return ", ".join(m for m, _ in parts)
        return str(value)

    def defined(self, value: int) -> bool:
        """Whether ``value`` is a member's (or, for flags, a combination of members')."""
        if any(number == value for _, number in self.members):
            return True
        if not self.flags or value < 0:
            return False
        return value & ~_bits(n for _, n in self.members) == 0

    def convert(self, value: Any) -> EnumValue:
        """``[T]value``: a member's name (any case; "A, B" for flags), its number, or a value
        of this enum; anything else is PowerShell's conversion error."""
        if isinstance(value, EnumValue) and value.enum_type is self:
            return value
        if isinstance(value, str):
            return self._parse(value)
        if isinstance(value, int) and not isinstance(value, bool) and self.defined(int(value)):
            return EnumValue(self, int(value))
        raise self._cannot(value)

    def _parse(self, text: str) -> EnumValue:
        names = text.split(",") if self.flags else [text]
        total = 0
        for part in names:
            found = self.member(part)
            if found is None:
                try:
                    found = self.convert(int(to_number(part.strip())))
                except (OperatorError, ValueError):
                    raise self._cannot(text) from None
            total |= int(found)
        return EnumValue(self, total)

    def _cannot(self, value: Any) -> OperatorError:
        names = ", ".join(m for m, _ in self.members)
        return OperatorError(
            f'Cannot convert value "{to_string(value)}" to type "{self.FullName}". Error: "Unable '
            f"to match the identifier name {to_string(value)} to a valid enumerator name. "
            f'Specify one of the following enumerator names and try again:\n{names}"'
        )

    def is_instance(self, value: Any) -> bool:
        return isinstance(value, EnumValue) and value.enum_type is self

    def static(self, name: str, args: list[Any] | None) -> Any:
        """``[T]::Member``, and ``[T]::GetNames()``-style calls (PowerShell allows them on the
        type itself too)."""
        if args is None:
            found = self.member(name)
            if found is None:
                raise OperatorError(f"[{self.Name}] has no member named {name!r}")
            return found
        return enum_static(name, [self, *args])


def _engine(name: str, *members: str) -> EnumType:
    """One of PowerShell's own enums, its members numbered from 0 in order."""
    return EnumType(
        name, tuple((m, i) for i, m in enumerate(members)), Namespace="System.Management.Automation"
    )


#: The enums of PowerShell's engine that its preference variables hold (about_Preference_
#: Variables), as .NET numbers them.
ACTION_PREFERENCE = _engine(
    "ActionPreference",
    "SilentlyContinue", "Stop", "Continue", "Inquire", "Ignore", "Suspend", "Break",
)  # fmt: skip
CONFIRM_IMPACT = _engine("ConfirmImpact", "None", "Low", "Medium", "High")
ERROR_VIEW = _engine("ErrorView", "NormalView", "CategoryView", "ConciseView", "DetailedView")
NATIVE_ARGUMENT_PASSING = _engine("NativeArgumentPassingMode", "Legacy", "Standard", "Windows")
MODULE_AUTO_LOADING = _engine("PSModuleAutoLoadingPreference", "None", "ModuleQualified", "All")
OUTPUT_RENDERING = _engine("OutputRendering", "Host", "PlainText", "Ansi")


def _system(name: str, *members: str) -> EnumType:
    """One of .NET's System enums, its members numbered from 0 in order."""
    return EnumType(name, tuple((m, i) for i, m in enumerate(members)), Namespace="System")


DAY_OF_WEEK = _system(
    "DayOfWeek", "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"
)
CONSOLE_COLOR = _system(
    "ConsoleColor",
    "Black", "DarkBlue", "DarkGreen", "DarkCyan", "DarkRed", "DarkMagenta", "DarkYellow", "Gray",
    "DarkGray", "Blue", "Green", "Cyan", "Red", "Magenta", "Yellow", "White",
)  # fmt: skip


def engine_enums() -> dict[str, EnumType]:
    """The engine's enums (and .NET's DayOfWeek and ConsoleColor) by the names a script
    writes them with: ``[ActionPreference]``, ``[Management.Automation.ActionPreference]``
    (``System.`` is dropped before lookup)."""
    out: dict[str, EnumType] = {}
    for enum in (
        ACTION_PREFERENCE, CONFIRM_IMPACT, ERROR_VIEW, NATIVE_ARGUMENT_PASSING, MODULE_AUTO_LOADING,
        OUTPUT_RENDERING,
    ):  # fmt: skip
        out[enum.Name.lower()] = enum
        out[f"management.automation.{enum.Name.lower()}"] = enum
    for enum in (DAY_OF_WEEK, CONSOLE_COLOR):  # [System.DayOfWeek] drops System. first
        out[enum.Name.lower()] = enum
    return out


def _bits(numbers: Iterable[int]) -> int:
    """The numbers or-ed together."""
    out = 0
    for n in numbers:
        out |= n
    return out


def enum_static(name: str, args: list[Any]) -> Any:
    """``[enum]::GetNames([T])``, ``GetValues``, ``Parse([T], text [, ignoreCase])``,
    ``IsDefined([T], value)``, ``ToObject([T], n)``."""
    low = name.lower()
    if not args or not isinstance(args[0], EnumType):
        raise OperatorError(f"[enum]::{name} needs an enum type first, as in [enum]::{name}([T])")
    enum_type, rest = args[0], args[1:]
    if low == "getnames":
        return enum_type.GetEnumNames()
    if low == "getvalues":
        return enum_type.GetEnumValues()
    if low in ("parse", "toobject") and rest:
        return enum_type.convert(rest[0])
    if low == "isdefined" and rest:
        value = rest[0]
        if isinstance(value, str):
            return enum_type.member(value) is not None and value == value.strip()
        return any(number == int(to_number(value)) for _, number in enum_type.members)
    if low == "tryparse" and len(rest) >= 2:
        return _try_parse(enum_type, rest[0], rest[-1])
    raise OperatorError(f"[enum] has no method {name}() for these arguments")


def _try_parse(enum_type: EnumType, text: Any, out: Any) -> bool:
    """``[enum]::TryParse([T], text, [ref]$v)``."""
    try:
        value = enum_type.convert(to_string(text))
    except OperatorError:
        return False
    if hasattr(out, "Value"):
        out.Value = value
    return True


def members_of(name: str, declared: list[tuple[str, Any]]) -> tuple[tuple[str, int], ...]:
    """An enum's members with their numbers: a member without ``= value`` is the previous
    one's plus one (0 first); names must be distinct."""
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    following = 0
    for member, value in declared:
        if member.lower() in seen:
            raise OperatorError(f"enum {name}: the member {member!r} is declared twice")
        seen.add(member.lower())
        number = following if value is None else _integer(name, member, value)
        out.append((member, number))
        following = number + 1
    return tuple(out)


def _integer(name: str, member: str, value: Any) -> int:
    values = unroll(value)
    number = to_number(values[0] if len(values) == 1 else value)
    if isinstance(number, bool) or int(number) != number:
        raise OperatorError(f"enum {name}: {member} = {to_string(value)} is not an integer")
    return int(number)
