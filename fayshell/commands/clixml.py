"""CLIXML, PowerShell's XML form of objects (Export-Clixml, Import-Clixml): numbers, strings,
booleans, dates, time spans, GUIDs and $null as typed elements; arrays as lists, hashtables as
dictionaries and other objects as property sets under their type names, two levels deep by
default. Objects read back are [pscustomobject]s of their properties, as PowerShell's
deserialized objects are."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any
from xml.etree import ElementTree

from fayshell.lang.integers import NAMES, kind_of, make
from fayshell.lang.ops import to_string
from fayshell.lang.single import Single
from fayshell.lang.values import (
    Char,
    Duration,
    Guid,
    Hashtable,
    OrderedDictionary,
    PSCustomObject,
    TimeSpan,
)
from fayshell.records import all_properties, is_record

NS = "http://schemas.microsoft.com/powershell/2004/04"
HEAD = f'<Objs Version="1.1.0.1" xmlns="{NS}">'
#: The type names of the containers, as PowerShell writes them.
ARRAY_TYPES = ("System.Object[]", "System.Array", "System.Object")
HASHTABLE_TYPES = ("System.Collections.Hashtable", "System.Object")
ORDERED_TYPES = ("System.Collections.Specialized.OrderedDictionary", "System.Object")
CUSTOM_TYPES = ("System.Management.Automation.PSCustomObject", "System.Object")
#: A character CLIXML writes as _xHHHH_ (control characters, and the _ that starts such a
#: sequence, so that text reads back as written).
#: The CLIXML element of each integer type.
INT_TAGS = {
    "SByte": "SB",
    "Byte": "By",
    "Int16": "I16",
    "UInt16": "U16",
    "Int32": "I32",
    "UInt32": "U32",
    "Int64": "I64",
    "UInt64": "U64",
}
ESCAPED = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\n\r\t]|_(?=x[0-9A-Fa-f]{4}_)")


class Writer:
    """One Export-Clixml document: objects get RefIds in order, and a list of type names
    written once is referred to after (TNRef)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.lines = [HEAD]
        self.objects = 0
        self.type_names: dict[tuple[str, ...], int] = {}

    def text(self, items: Iterable[Any]) -> str:
        for item in items:
            self.value(item, "", 1, self.depth)
        return "\n".join([*self.lines, "</Objs>"])

    def value(self, value: Any, name: str, level: int, depth: int) -> None:
        """One value's element, ``N="name"`` when it is a property."""
        pad, attr = "  " * level, f' N="{_attr(name)}"' if name else ""
        simple = _simple(value)
        if simple is not None:
            tag, text = simple
            self.lines.append(
                f"{pad}<{tag}{attr} />" if text is None else f"{pad}<{tag}{attr}>{text}</{tag}>"
            )
        elif depth <= 0:
            self.lines.append(f"{pad}<S{attr}>{_text(to_string(value))}</S>")
        else:
            self.container(value, attr, level, depth)

    def container(self, value: Any, attr: str, level: int, depth: int) -> None:
        pad = "  " * level
        self.lines.append(f'{pad}<Obj{attr} RefId="{self.objects}">')
        self.objects += 1
        if isinstance(value, (list, tuple)):
            self.types(ARRAY_TYPES, level + 1)
            self.lines.append(f"{pad}  <LST>")
            for item in value:
                self.value(item, "", level + 2, depth - 1)
            self.lines.append(f"{pad}  </LST>")
        elif isinstance(value, Mapping) and not is_record(value) or isinstance(value, Hashtable):
            ordered = isinstance(value, OrderedDictionary)
            self.types(ORDERED_TYPES if ordered else HASHTABLE_TYPES, level + 1)
            self.lines.append(f"{pad}  <DCT>")
            for key, item in value.items():
                self.lines.append(f"{pad}    <En>")
                self.value(key, "Key", level + 3, depth - 1)
                self.value(item, "Value", level + 3, depth - 1)
                self.lines.append(f"{pad}    </En>")
            self.lines.append(f"{pad}  </DCT>")
        else:
            self.types(_type_names(value), level + 1)
            self.lines.append(f"{pad}  <MS>")
            # every property, not only those the object's table shows
            for key, item in all_properties(value).items():
                self.value(item, str(key), level + 2, depth - 1)
            self.lines.append(f"{pad}  </MS>")
        self.lines.append(f"{pad}</Obj>")

    def types(self, names: tuple[str, ...], level: int) -> None:
        pad = "  " * level
        known = self.type_names.get(names)
        if known is not None:
            self.lines.append(f'{pad}<TNRef RefId="{known}" />')
            return
        self.type_names[names] = len(self.type_names)
        self.lines.append(f'{pad}<TN RefId="{self.type_names[names]}">')
        self.lines += [f"{pad}  <T>{_text(n)}</T>" for n in names]
        self.lines.append(f"{pad}</TN>")


def _type_names(value: Any) -> tuple[str, ...]:
    """An object's type and its base, as CLIXML lists them."""
    if isinstance(value, PSCustomObject) or type(value) is dict:
        return CUSTOM_TYPES
    from fayshell.lang.dotnet import full_type_name_of

    return (full_type_name_of(value), "System.Object")


def _simple(value: Any) -> tuple[str, str | None] | None:
    """The element of a value CLIXML writes as one typed element, or None."""
    if value is None:
        return "Nil", None
    if isinstance(value, bool):
        return "B", "true" if value else "false"
    if isinstance(value, Char):
        return "C", str(ord(value))
    if isinstance(value, str):
        return "S", _text(value)
    if isinstance(value, Duration):  # a TimeSpan (2s, New-TimeSpan) before the int it is
        return "TS", _duration(value)
    if isinstance(value, int):
        return INT_TAGS[kind_of(value).net], str(int(value))
    if isinstance(value, Single):
        return "Sg", repr(float(value)).replace("inf", "INF").replace("nan", "NaN")
    if isinstance(value, float):
        return "Db", repr(value).replace("inf", "INF").replace("nan", "NaN")
    if isinstance(value, Decimal):
        return "D", format(value, "f")
    if isinstance(value, dt.datetime):
        return "DT", value.isoformat(timespec="microseconds") + "0"
    if isinstance(value, Guid):
        return "G", value.Guid
    return None


def _duration(span: Duration) -> str:
    """An xsd:duration as .NET's XmlConvert writes it: P1DT2H3M4.5S, zero parts left out
    (PT0S for none)."""
    total = int(span) / 1e9
    days, rest = divmod(abs(total), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    second_text = f"{seconds:.7f}".rstrip("0").rstrip(".")  # to the tick (100 ns)
    parts = ((int(hours), str(int(hours)), "H"), (int(minutes), str(int(minutes)), "M"))
    time = "".join(f"{t}{unit}" for v, t, unit in (*parts, (seconds, second_text, "S")) if v)
    text = ("-" if total < 0 else "") + "P" + (f"{int(days)}D" if days else "")
    return text + ("T" + time if time else "" if days else "T0S")


def _text(text: str) -> str:
    escaped = ESCAPED.sub(lambda m: f"_x{ord(m.group(0)):04X}_", text)
    return escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(text: str) -> str:
    return _text(text).replace('"', "&quot;")


def dumps(items: Iterable[Any], depth: int = 2) -> str:
    """The CLIXML document of ``items``."""
    return Writer(depth).text(items)


# ---- reading ----------------------------------------------------------------------------------

UNESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")
DURATION = re.compile(r"(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)?")


class ClixmlError(ValueError):
    """A document that is not CLIXML, or an element that cannot be read."""


def loads(text: str) -> list[Any]:
    """The objects of a CLIXML document."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise ClixmlError(f"not XML: {exc}") from None
    if _tag(root) != "Objs":
        raise ClixmlError(f"not CLIXML: the root element is <{_tag(root)}>, not <Objs>")
    reader = Reader()
    return [reader.value(child) for child in root]


class Reader:
    """Reads one document; remembers type names by RefId (TNRef)."""

    def __init__(self) -> None:
        self.type_names: dict[str, list[str]] = {}

    def value(self, el: ElementTree.Element) -> Any:
        tag, text = _tag(el), el.text or ""
        scalar = SCALARS.get(tag)
        if scalar is not None:
            try:
                return scalar(_unescape(text))
            except ValueError as exc:
                raise ClixmlError(f"<{tag}> holds {text!r}: {exc}") from None
        if tag == "Nil":
            return None
        if tag == "Obj":
            return self.obj(el)
        raise ClixmlError(f"unknown element <{tag}>")

    def obj(self, el: ElementTree.Element) -> Any:
        names = self.names(el)
        for child in el:
            tag = _tag(child)
            if tag in ("LST", "IE", "STK", "QUE"):
                return [self.value(c) for c in child]
            if tag == "DCT":
                table = OrderedDictionary() if names[:1] == [ORDERED_TYPES[0]] else Hashtable()
                for entry in child:
                    key = next((c for c in entry if c.get("N") == "Key"), None)
                    item = next((c for c in entry if c.get("N") == "Value"), None)
                    if key is not None:
                        table[self.value(key)] = None if item is None else self.value(item)
                return table
        props = {
            c.get("N", ""): self.value(c) for ms in el if _tag(ms) in ("MS", "Props") for c in ms
        }
        if not props:
            found = next((c.text or "" for c in el if _tag(c) == "ToString"), "")
            return _unescape(found)
        return PSCustomObject(props)

    def names(self, el: ElementTree.Element) -> list[str]:
        for child in el:
            if _tag(child) == "TN":
                names = [t.text or "" for t in child]
                self.type_names[child.get("RefId", "")] = names
                return names
            if _tag(child) == "TNRef":
                return self.type_names.get(child.get("RefId", ""), [])
        return []


def _tag(el: ElementTree.Element) -> str:
    return el.tag.rsplit("}", 1)[-1]


def _unescape(text: str) -> str:
    return UNESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def _timespan(text: str) -> TimeSpan:
    m = DURATION.fullmatch(text)
    if m is None:
        raise ValueError("not a duration")
    sign = -1 if m.group(1) else 1
    days, hours, minutes = (int(g or 0) for g in m.group(2, 3, 4))
    seconds = float(m.group(5) or 0)
    total = days * 86400 + hours * 3600 + minutes * 60 + seconds
    return TimeSpan(sign * round(total * 1e9))


def _datetime(text: str) -> dt.datetime:
    from fayshell.lang.dates import to_datetime

    return to_datetime(text)


def _sized(net: str, text: str) -> int:
    """An integer element's number, as the type its tag names."""
    return make(NAMES[net.lower()], int(text))


SCALARS: dict[str, Any] = {
    "S": str,
    "B": lambda t: t == "true",
    **{tag: functools.partial(_sized, net) for net, tag in INT_TAGS.items()},
    "Db": float,
    "Sg": lambda t: Single(float(t)),
    "D": Decimal,
    "C": lambda t: Char(chr(int(t))),
    "G": Guid.parse,
    "TS": _timespan,
    "DT": _datetime,
    "URI": str,
    "Version": str,
}
