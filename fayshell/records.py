"""Uniform, case-insensitive access to the properties of records (dataclasses, dicts, objects)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

MISSING = object()
_NOT_GIVEN = object()


def property_names(obj: Any) -> list[str]:
    """The properties a record shows, in declaration order; [] for scalars."""
    if isinstance(obj, Mapping):
        hidden = getattr(obj, "ps_hidden", None)  # a class's hidden properties
        return [str(k) for k in obj if not hidden or str(k) not in hidden]
    adapted = getattr(obj, "ps_names", None)  # properties of its own content (an XML element)
    if adapted is not None and not isinstance(obj, type):
        return list(adapted())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [f.name for f in dataclasses.fields(obj) if f.repr]
    members = getattr(type(obj), "MEMBERS", None)  # objects shown as text, e.g. MatchInfo
    return list(members) if isinstance(members, tuple) else []


def all_property_names(obj: Any) -> list[str]:
    """Every property of a record, those its table or list leaves out too (a file's FullName,
    a command's Source): what ``Select-Object *``, ``Format-List *`` and CSV take, as
    PowerShell's take every property and its views show a few."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        shown = [f.name for f in dataclasses.fields(obj) if f.repr]
        rest = [f.name for f in dataclasses.fields(obj) if not f.repr and f.name[:1].isupper()]
        return shown + rest
    return property_names(obj)


def all_properties(obj: Any) -> dict[str, Any]:
    """Every property of a record and its value (:func:`all_property_names`)."""
    return {name: get_property(obj, name) for name in all_property_names(obj)}


def is_record(obj: Any) -> bool:
    """True for values rendered as rows with columns: dicts, dataclass instances, and objects
    whose type lists its MEMBERS and writes no text of its own (a Stopwatch) or names its VIEW
    (a StringBuilder reads as its text, and shows as its properties)."""
    if isinstance(obj, Mapping) or (dataclasses.is_dataclass(obj) and not isinstance(obj, type)):
        return True
    kind = type(obj)
    if hasattr(kind, "ps_names"):
        return True
    listed = isinstance(getattr(kind, "MEMBERS", None), tuple)
    return listed and (kind.__str__ is object.__str__ or hasattr(kind, "VIEW"))


def get_property(obj: Any, name: str, default: Any = _NOT_GIVEN) -> Any:
    """``obj.name`` the PowerShell way: case-insensitive, dict keys or attributes.

    Returns ``default`` (or None when no default is given) when there is no such property.
    """
    if obj is None:
        return None if default is _NOT_GIVEN else default
    if isinstance(obj, Mapping):
        if name in obj:
            return obj[name]
        low = name.lower()
        for key, value in obj.items():
            if str(key).lower() == low:
                return value
        return None if default is _NOT_GIVEN else default
    adapted = getattr(type(obj), "ps_get", None)  # its content's names first (XML's adapter)
    if adapted is not None:
        value = adapted(obj, name)
        if value is not MISSING:
            return value
    value = getattr(obj, name, MISSING)
    if value is MISSING:
        attr = attribute_named(obj, name)
        if attr is None:
            return None if default is _NOT_GIVEN else default
        value = getattr(obj, attr)
    return value


def attribute_named(obj: Any, name: str) -> str | None:
    """The public attribute of ``obj`` that ``name`` names in any case (``length`` ->
    ``Length``), or None."""
    if name.startswith("_"):
        return None
    low = name.lower()
    return next((a for a in dir(obj) if a.lower() == low and not a.startswith("_")), None)


def has_property(obj: Any, name: str) -> bool:
    return get_property(obj, name, MISSING) is not MISSING


def to_plain(obj: Any) -> Any:
    """A JSON-friendly copy: records to dicts, sequences to lists, other values unchanged."""
    if isinstance(obj, Mapping):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if is_record(obj):
        return {name: to_plain(get_property(obj, name)) for name in property_names(obj)}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_plain(v) for v in obj]
    return obj


def as_dict(obj: Any) -> dict[str, Any]:
    """A record as an ordered dict of its properties; a scalar as ``{"Value": obj}``."""
    if is_record(obj):
        return {name: get_property(obj, name) for name in property_names(obj)}
    return {"Value": obj}
