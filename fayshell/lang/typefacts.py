"""What a type object tells about its type (``[int].FullName``, ``.BaseType``, ``.IsValueType``):
the .NET facts of the types fayshell knows by their short names, written once.

A name fayshell does not know (``[IO.Path]``, ``[Environment]``) reads as the System type it
most likely names, with System.Object as its base."""

from __future__ import annotations

from dataclasses import dataclass

from fayshell.lang.integers import NAMES as INTEGER_NAMES


@dataclass(frozen=True)
class TypeFacts:
    """One type: its full name, its base type's (None: System.Object has none) and kind."""

    full: str
    base: str | None = "System.Object"
    value_type: bool = False
    primitive: bool = False
    serial: bool = True
    array: bool = False

    @property
    def name(self) -> str:
        return self.full.rsplit(".", 1)[-1]

    @property
    def namespace(self) -> str:
        return self.full.rsplit(".", 1)[0] if "." in self.full else ""


def _value(full: str, primitive: bool = False) -> TypeFacts:
    return TypeFacts(full, "System.ValueType", value_type=True, primitive=primitive)


_AUTOMATION = "System.Management.Automation."

#: The types fayshell knows, by their short names (lower case, without ``System.``).
FACTS: dict[str, TypeFacts] = {
    **{name: _value(f"System.{kind.net}", True) for name, kind in INTEGER_NAMES.items()},
    "double": _value("System.Double", True),
    **dict.fromkeys(("float", "single"), _value("System.Single", True)),
    **dict.fromkeys(("bool", "boolean"), _value("System.Boolean", True)),
    "char": _value("System.Char", True),
    "decimal": _value("System.Decimal"),
    "datetime": _value("System.DateTime"),
    "datetimeoffset": _value("System.DateTimeOffset"),
    "timespan": _value("System.TimeSpan"),
    "guid": _value("System.Guid"),
    **dict.fromkeys(("bigint", "numerics.biginteger"), _value("System.Numerics.BigInteger")),
    "switch": _value(_AUTOMATION + "SwitchParameter"),
    "void": _value("System.Void"),
    "object": TypeFacts("System.Object", None),
    "valuetype": TypeFacts("System.ValueType", serial=True),
    "enum": TypeFacts("System.Enum", "System.ValueType"),
    "string": TypeFacts("System.String"),
    "array": TypeFacts("System.Array"),
    "object[]": TypeFacts("System.Object[]", "System.Array", array=True),
    **dict.fromkeys(
        ("hashtable", "collections.hashtable"), TypeFacts("System.Collections.Hashtable")
    ),
    "ordered": TypeFacts("System.Collections.Specialized.OrderedDictionary"),
    "collections.arraylist": TypeFacts("System.Collections.ArrayList"),
    "pscustomobject": TypeFacts(_AUTOMATION + "PSCustomObject", serial=False),
    "psobject": TypeFacts(_AUTOMATION + "PSObject"),
    "scriptblock": TypeFacts(_AUTOMATION + "ScriptBlock", serial=False),
    "regex": TypeFacts("System.Text.RegularExpressions.Regex"),
    "text.stringbuilder": TypeFacts("System.Text.StringBuilder"),
    "version": TypeFacts("System.Version"),
    "semver": TypeFacts(_AUTOMATION + "SemanticVersion", serial=False),
    "type": TypeFacts("System.Type", "System.Reflection.MemberInfo", serial=False),
    "runtimetype": TypeFacts("System.RuntimeType", "System.Reflection.TypeInfo"),
    "exception": TypeFacts("System.Exception"),
    "errorrecord": TypeFacts(_AUTOMATION + "ErrorRecord"),
    "uri": TypeFacts("System.Uri"),
    "ipaddress": TypeFacts("System.Net.IPAddress"),
    "xml": TypeFacts("System.Xml.XmlDocument", "System.Xml.XmlNode"),
    **{
        name: TypeFacts(f"System.{name.title()}", serial=False)
        for name in ("math", "convert", "environment", "console")
    },
}


def facts_of(written: str) -> TypeFacts:
    """The facts of the type ``written`` names (``int``, ``System.Int32``, ``string[]``)."""
    low = written.strip().lower()
    short = low.removeprefix("system.")
    known = FACTS.get(short)
    if known is not None:
        return known
    if short.endswith("[]"):
        element = facts_of(written.strip()[:-2])
        return TypeFacts(element.full + "[]", "System.Array", array=True)
    text = written.strip()  # IO.Path, Text.Encoding ... as written
    return TypeFacts(text if low.startswith("system.") else f"System.{text}")
