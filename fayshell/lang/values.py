"""Runtime values of the language that Python lacks: durations, sizes, script blocks."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Self

from fayshell.lang.typefacts import TypeFacts, facts_of

if TYPE_CHECKING:
    from fayshell.lang.ast import ParamDecl, ScriptBlockLit
    from fayshell.lang.interp import Interpreter
    from fayshell.state import Scope

DURATION_UNITS: dict[str, int] = {
    "ns": 1,
    "us": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
SIZE_UNITS: dict[str, int] = {"kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40}

#: The Python types of PowerShell's numbers: [int] and [long], [double], and [decimal] (which
#: DuckDB's DECIMAL columns and a ``1.5d`` literal give).
NUMBERS = (int, float, Decimal)

#: Marks "no $_ given" when invoking a script block ($null is a valid $_).
UNSET: Any = object()

UNIT_NUMBER = re.compile(r"(?i)^(\d+(?:\.\d+)?)(ns|us|ms|s|m|h|kb|mb|gb|tb)$")


class Duration(int):
    """A time span in nanoseconds; prints the way it was typed (``500ms``, ``2s``)."""

    TYPE_NAME = "System.TimeSpan"

    @classmethod
    def from_seconds(cls, seconds: float) -> Self:
        """The span of a number of seconds, to the nearest nanosecond (a float's product with
        1e9 is often a hair under the whole number it stands for: 16479.87 s)."""
        return cls(round(seconds * 1_000_000_000))

    @property
    def seconds(self) -> float:
        return int(self) / 1e9

    @property
    def TotalMilliseconds(self) -> float:  # noqa: N802 - PowerShell property name
        return int(self) / 1e6

    @property
    def TotalSeconds(self) -> float:  # noqa: N802 - PowerShell property name
        return int(self) / 1e9

    # The rest of .NET TimeSpan's properties (components truncate toward zero, as .NET's do).
    TotalMinutes = property(lambda self: int(self) / 6e10)
    TotalHours = property(lambda self: int(self) / 3.6e12)
    TotalDays = property(lambda self: int(self) / 8.64e13)
    Ticks = property(lambda self: _part(self, 100, None))
    Days = property(lambda self: _part(self, 86_400_000_000_000, None))
    Hours = property(lambda self: _part(self, 3_600_000_000_000, 24))
    Minutes = property(lambda self: _part(self, 60_000_000_000, 60))
    Seconds = property(lambda self: _part(self, 1_000_000_000, 60))
    Milliseconds = property(lambda self: _part(self, 1_000_000, 1000))
    Microseconds = property(lambda self: _part(self, 1_000, 1000))
    Nanoseconds = property(lambda self: _part(self, 100, 10) * 100)  # .NET's 100 ns steps
    TotalMicroseconds = property(lambda self: int(self) / 1e3)
    TotalNanoseconds = property(lambda self: float(int(self) // 100 * 100))

    def __str__(self) -> str:
        n = int(self)
        for unit in ("h", "m", "s", "ms", "us"):
            size = DURATION_UNITS[unit]
            if n and n % size == 0:
                return f"{n // size}{unit}"
        return f"{n}ns"

    __repr__ = __str__


class TimeSpan(Duration):
    """A .NET TimeSpan made the PowerShell way (a ``[timespan]`` cast, New-TimeSpan, one date
    minus another, a stopwatch's Elapsed, Measure-Command): ``"$t"`` reads as .NET writes it
    (``01:02:03``) and the shell shows its properties as a list, as PowerShell does; a duration
    typed as fayshell's literal (``2s``) reads as it was typed."""

    #: What the shell's list shows, in PowerShell's order.
    MEMBERS = (
        "Days",
        "Hours",
        "Minutes",
        "Seconds",
        "Milliseconds",
        "Ticks",
        "TotalDays",
        "TotalHours",
        "TotalMinutes",
        "TotalSeconds",
        "TotalMilliseconds",
    )

    #: What ConvertTo-Json writes, in .NET 8's order.
    JSON = (
        "Ticks",
        "Days",
        "Hours",
        "Milliseconds",
        "Microseconds",
        "Nanoseconds",
        "Minutes",
        "Seconds",
        "TotalDays",
        "TotalHours",
        "TotalMilliseconds",
        "TotalMicroseconds",
        "TotalNanoseconds",
        "TotalMinutes",
        "TotalSeconds",
    )

    def __str__(self) -> str:
        from fayshell.lang.dotnet import format_timespan

        return format_timespan(int(self), "c")

    __repr__ = __str__


def _part(value: int, unit: int, modulo: int | None) -> int:
    """One component of a span, truncated toward zero like .NET's TimeSpan."""
    whole = abs(int(value)) // unit
    if modulo is not None:
        whole %= modulo
    return -whole if value < 0 else whole


class Size(int):
    """A byte count written with a unit (``4KB``): a number, as PowerShell's numeric literal
    with a multiplier is (it prints as 4096), that a parameter taking a duration or a size
    (``-Rotate 64MB``) knows for a size."""

    __slots__ = ()


def parse_unit_number(text: str) -> Duration | Size | None:
    """``500ms`` -> Duration, ``4KB`` -> Size, anything else -> None."""
    m = UNIT_NUMBER.match(text)
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2).lower()
    if unit in DURATION_UNITS:
        return Duration(round(number * DURATION_UNITS[unit]))
    return Size(round(number * SIZE_UNITS[unit]))


@dataclass
class ScriptBlock:
    """A ``{ ... }`` value: its syntax, source text and the scope it was written in."""

    node: ScriptBlockLit
    scope: Scope
    interp: Interpreter

    @property
    def text(self) -> str:
        return self.node.text

    @property
    def params(self) -> list[ParamDecl]:
        return self.node.params

    async def invoke(self, *args: Any, dollar_under: Any = UNSET, input: Any = None) -> list[Any]:
        """Run the block with ``$_`` (and positional ``args``) bound; its output as a list."""
        return await self.interp.invoke_block(self, list(args), dollar_under, input)

    def __str__(self) -> str:
        return "{" + self.node.text + "}"


class TypeName(str):
    """A type as a value: ``[int]`` reads as written ("int"; ``$x -is [int]``, ``-as
    [double]`` use that), and has .NET's type properties (lang/typefacts): ``[int].FullName``
    is System.Int32, ``.BaseType`` System.ValueType; it shows as PowerShell shows a type."""

    MEMBERS = ("IsPublic", "IsSerial", "Name", "BaseType")
    VIEW = "table"
    TYPE_NAME = "System.RuntimeType"
    #: Every property Get-Member lists.
    PROPERTIES = (
        "BaseType",
        "FullName",
        "IsArray",
        "IsClass",
        "IsEnum",
        "IsInterface",
        "IsPrimitive",
        "IsPublic",
        "IsSerial",
        "IsValueType",
        "Name",
        "Namespace",
        "UnderlyingSystemType",
    )

    @property
    def facts(self) -> TypeFacts:
        return facts_of(self)

    Name = property(lambda self: self.facts.name)
    FullName = property(lambda self: self.facts.full)
    Namespace = property(lambda self: self.facts.namespace)
    IsValueType = property(lambda self: self.facts.value_type)
    IsPrimitive = property(lambda self: self.facts.primitive)
    IsArray = property(lambda self: self.facts.array)
    IsClass = property(lambda self: not self.facts.value_type)
    IsEnum = property(lambda self: False)
    IsInterface = property(lambda self: False)
    IsPublic = property(lambda self: True)
    IsSerial = property(lambda self: self.facts.serial)

    @property
    def BaseType(self) -> TypeName | None:  # noqa: N802 - .NET property name
        base = self.facts.base
        return None if base is None else TypeInfo(base.rsplit(".", 1)[-1], base)

    @property
    def UnderlyingSystemType(self) -> TypeName:  # noqa: N802 - .NET property name
        return self

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return self.FullName

    def GetType(self) -> TypeName:  # noqa: N802 - .NET method name
        return TypeInfo("RuntimeType", "System.RuntimeType")


class TypeInfo(TypeName):
    """What ``$x.GetType()`` returns: a type that reads as its full name (System.Int32) and
    keeps the exact short name it was given (``List`1``)."""

    def __new__(cls, name: str, full_name: str) -> TypeInfo:
        made = super().__new__(cls, full_name)
        made.given_name = name
        return made

    given_name: str
    Name = property(lambda self: self.given_name)
    FullName = property(lambda self: str.__str__(self))


class ExceptionValue:
    """``$_.Exception`` in a catch block: the message and the .NET-style type name."""

    def __init__(
        self,
        message: str,
        type_name: str = "System.Management.Automation.RuntimeException",
        inner: BaseException | None = None,
    ) -> None:
        self.Message = message
        self.TypeName = type_name
        self.InnerException: ExceptionValue | None = None
        self.inner = inner

    def GetType(self) -> TypeInfo:  # noqa: N802 - .NET method name
        return TypeInfo(self.TypeName.rsplit(".", 1)[-1], self.TypeName)

    def __str__(self) -> str:
        return self.Message


@dataclass(frozen=True)
class ErrorCategoryInfo:
    """``$_.CategoryInfo``: the kind of error (PowerShell's ErrorCategory name), the command
    that failed, the exception's type and the target (as text, and its type's name)."""

    Category: str = "NotSpecified"
    Activity: str = ""
    Reason: str = ""
    TargetName: str = ""
    TargetType: str = ""

    def __str__(self) -> str:  # as .NET's: NotSpecified: (:) [Write-Error], WriteErrorException
        where = f"{self.TargetName}:{self.TargetType}"
        return f"{self.Category}: ({where}) [{self.Activity}], {self.Reason}"


@dataclass(frozen=True)
class ErrorInvocationInfo:
    """``$_.InvocationInfo``: the command that failed and where (script, line, column, the
    line's text), as scripts log an error's place."""

    MyCommand: Any
    ScriptName: str
    ScriptLineNumber: int
    OffsetInLine: int
    Line: str

    @property
    def PositionMessage(self) -> str:  # noqa: N802 - .NET property name
        return (
            f"At {self.ScriptName}:{self.ScriptLineNumber} char:{self.OffsetInLine}\n+ {self.Line}"
        )


class ErrorRecordValue:
    """``$_`` in catch/trap and items of ``$Error``: prints as its message, like PowerShell."""

    def __init__(
        self,
        exception: ExceptionValue,
        target: Any = None,
        where: str = "",
        error_id: str = "",
        category: ErrorCategoryInfo | None = None,
    ) -> None:
        self.Exception = exception
        self.TargetObject = target
        self.FullyQualifiedErrorId = error_id or exception.Message
        self.ScriptStackTrace = where
        reason = exception.TypeName.rsplit(".", 1)[-1]
        self.CategoryInfo = category or ErrorCategoryInfo(Reason=reason)
        self.InvocationInfo: ErrorInvocationInfo | None = None

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return self.Exception.Message

    def GetType(self) -> TypeInfo:  # noqa: N802 - .NET method name
        return TypeInfo("ErrorRecord", "System.Management.Automation.ErrorRecord")

    def __str__(self) -> str:
        return self.Exception.Message


class NetException(ValueError):
    """What fayshell's stand-in for a .NET method throws: .NET's message and exception type."""

    def __init__(self, message: str, type_name: str) -> None:
        super().__init__(message)
        self.type_name = type_name


class StreamRecord:
    """A record of the warning, verbose, debug or information stream that a redirection
    (``3>&1``, ``*>&1``) turned into output: its text in a string, ``WARNING: text`` on a line
    of its own, as PowerShell shows them."""

    TYPE_NAME = ""
    PREFIX = ""

    def __init__(self, message: Any) -> None:
        self.Message = message

    @property
    def MessageData(self) -> Any:  # noqa: N802 - InformationRecord's name for it
        return self.Message

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return str(self)

    def __str__(self) -> str:
        return self.Message if isinstance(self.Message, str) else _text(self.Message)


class WarningRecord(StreamRecord):
    TYPE_NAME = "System.Management.Automation.WarningRecord"
    PREFIX = "WARNING: "


class VerboseRecord(StreamRecord):
    TYPE_NAME = "System.Management.Automation.VerboseRecord"
    PREFIX = "VERBOSE: "


class DebugRecord(StreamRecord):
    TYPE_NAME = "System.Management.Automation.DebugRecord"
    PREFIX = "DEBUG: "


class InformationRecord(StreamRecord):
    TYPE_NAME = "System.Management.Automation.InformationRecord"


def _text(value: Any) -> str:
    from fayshell.lang.ops import to_string

    return to_string(value)


class LoopEnumerator:
    """``$foreach`` in a foreach loop and ``$switch`` in a switch: the loop's enumerator.
    ``MoveNext()`` takes the next item (the loop goes on after it), ``Current`` is the item
    reached, ``Reset()`` starts the loop over."""

    TYPE_NAME = "System.Collections.IEnumerator"

    def __init__(self, items: list[Any]) -> None:
        self._items = items
        self._at = -1

    def MoveNext(self) -> bool:  # noqa: N802 - .NET method name
        self._at = min(self._at + 1, len(self._items))
        return self._at < len(self._items)

    @property
    def Current(self) -> Any:  # noqa: N802 - .NET property name
        return self._items[self._at] if 0 <= self._at < len(self._items) else None

    def Reset(self) -> None:  # noqa: N802 - .NET method name
        self._at = -1


class StreamingEnumerator:
    """``$foreach`` in a loop over a query's rows: they stream by, so ``Current`` is the row
    reached and ``MoveNext()`` says how to get a loop that can skip ahead."""

    TYPE_NAME = "System.Collections.IEnumerator"

    def __init__(self) -> None:
        self.Current: Any = None

    def MoveNext(self) -> bool:  # noqa: N802 - .NET method name
        raise NetException(
            "a loop over a query's rows cannot skip ahead (they stream); "
            "loop over @(...) of the query to have $foreach.MoveNext()",
            "System.NotSupportedException",
        )

    def Reset(self) -> None:  # noqa: N802 - .NET method name
        self.MoveNext()


class Ref:
    """``[ref]$x``: a variable handed to a method or function that sets it through
    ``.Value`` (``[int]::TryParse($s, [ref]$n)``)."""

    TYPE_NAME = "System.Management.Automation.PSReference"

    def __init__(self, get: Callable[[], Any], put: Callable[[Any], None]) -> None:
        self._get, self._put = get, put

    @property
    def Value(self) -> Any:  # noqa: N802 - .NET property name
        return self._get()

    @Value.setter
    def Value(self, value: Any) -> None:  # noqa: N802 - .NET property name
        self._put(value)


class Hashtable(dict[Any, Any]):
    """A ``@{}`` literal: a dict that knows it is a hashtable (``[pscustomobject]`` is not)."""

    __slots__ = ()
    #: What ``"$h"`` and ``GetType().FullName`` say.
    FULL_NAME = "System.Collections.Hashtable"


class KeyedTable(Hashtable):
    """A .NET dictionary that a table cell shows by its keys, ``{a, b}``, as PowerShell's
    views show PSModuleInfo.ExportedCommands."""

    __slots__ = ()
    FULL_NAME = "System.Collections.Generic.Dictionary`2[System.String,System.Object]"


class OrderedDictionary(Hashtable):
    """``[ordered]@{}``: a hashtable whose keys keep their order, that an integer indexes by
    position (``$d[0]`` is the first value), as .NET's OrderedDictionary."""

    __slots__ = ()
    FULL_NAME = "System.Collections.Specialized.OrderedDictionary"

    def Insert(self, index: int, key: Any, value: Any) -> None:  # noqa: N802 - .NET name
        """``$d.Insert(0, 'k', v)``: a new entry at a position, as .NET's."""
        if any(str(k).lower() == str(key).lower() for k in self):
            raise NetException(
                f"Item has already been added. Key in dictionary: '{key}'",
                "System.ArgumentException",
            )
        entries = list(self.items())
        if not 0 <= int(index) <= len(entries):
            raise NetException(OUT_OF_RANGE.format("index"), "System.ArgumentOutOfRangeException")
        entries.insert(int(index), (key, value))
        self.clear()
        self.update(entries)

    def RemoveAt(self, index: int) -> None:  # noqa: N802 - .NET method name
        keys = list(self)
        if not 0 <= int(index) < len(keys):
            raise NetException(OUT_OF_RANGE.format("index"), "System.ArgumentOutOfRangeException")
        del self[keys[int(index)]]


#: .NET's ArgumentOutOfRangeException message, for the parameter named.
OUT_OF_RANGE = "Specified argument was out of the range of valid values. (Parameter '{}')"


#: The sorted dictionaries' type names (without System.).
SORTED_TYPES = (
    "collections.generic.sorteddictionary",
    "collections.generic.sortedlist",
    "collections.sortedlist",
)


class SortedDictionary(Hashtable):
    """``[Collections.Generic.SortedDictionary[K,V]]`` (and SortedList): a hashtable whose
    keys come out in order (strings case-sensitively, as .NET's default comparer)."""

    __slots__ = ()
    FULL_NAME = "System.Collections.Generic.SortedDictionary"

    def _order(self) -> list[Any]:
        return sorted(super().keys(), key=lambda k: (not isinstance(k, (int, float)), k))

    def __iter__(self) -> Iterator[Any]:
        return iter(self._order())

    def keys(self) -> list[Any]:  # type: ignore[override]
        return self._order()

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[k] for k in self._order()]

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return [(k, self[k]) for k in self._order()]


class TypedArray(list[Any]):
    """``[string[]]$x``: an array of one element type, as a cast or a typed variable makes it;
    ``element`` is the type's .NET name (GetType() says String[] where ``@()`` says Object[]).
    What makes a new array of it (``+=``, a slice) makes an Object[], as in PowerShell."""

    __slots__ = ("element",)

    def __init__(self, items: Iterable[Any], element: str) -> None:
        super().__init__(items)
        self.element = element


class Char(str):
    """A ``[char]``: one character that converts to its code point (``[int][char]'A'`` is 65)."""

    __slots__ = ()


@dataclass
class DictionaryEntry:
    """One ``$h.GetEnumerator()`` item: shows as Name/Value, ``.Key`` is the Name."""

    Name: Any
    Value: Any

    @property
    def Key(self) -> Any:  # noqa: N802 - .NET property name
        return self.Name


@dataclass
class MatchGroup:
    """One group of a regex match (``$m.Groups[1].Value``)."""

    Value: str

    def __str__(self) -> str:
        return self.Value


@dataclass
class MatchInfo:
    """A .NET ``Match``: ``$_`` in a ``-replace`` script block, ``[regex]::Matches`` items."""

    Value: str
    Index: int
    Length: int
    Groups: list[MatchGroup]
    Success: bool = True

    def __str__(self) -> str:
        return self.Value


class PSCustomObject(dict[Any, Any]):
    """A ``[pscustomobject]@{...}`` record: shown as a list when it has five or more
    properties, as PowerShell shows objects without a format view. Its script methods
    (``Add-Member -MemberType ScriptMethod``) are kept beside its properties, not among them."""

    __slots__ = ("ps_methods",)
    ps_methods: dict[str, tuple[str, ScriptBlock]]

    def script_methods(self) -> dict[str, tuple[str, ScriptBlock]]:
        """Its script methods by lower-case name: (the name as added, the block)."""
        found: dict[str, tuple[str, ScriptBlock]] | None = getattr(self, "ps_methods", None)
        if found is None:
            found = {}
            self.ps_methods = found
        return found


@dataclass(frozen=True)
class Guid:
    """A [guid]: a table shows its Guid column, text shows its value."""

    Guid: str
    TYPE_NAME = "System.Guid"

    @classmethod
    def new(cls) -> Self:
        """A random (version 4) GUID, as New-Guid and [guid]::NewGuid() make."""
        import uuid

        return cls(str(uuid.uuid4()))

    @classmethod
    def parse(cls, text: str) -> Self:
        """[guid]::Parse(text) (ValueError when it is not a GUID)."""
        import uuid

        return cls(str(uuid.UUID(text)))

    def __str__(self) -> str:
        return self.Guid

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return self.Guid
