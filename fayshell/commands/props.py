"""Property specifications shared by Select-, Sort-, Group- and Measure-Object.

A property is a name (wildcards allowed), a script block, or a calculated property
``@{n='ms'; e={ $_.dur_ns / 1e6 }}``. Each can be evaluated on a record (row-wise) or
translated to SQL over a relation's columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fayshell.errors import ParameterError, UnknownProperty
from fayshell.lang.ops import has_wildcard, to_number, to_string, truthy, wildcard_match
from fayshell.lang.sqlgen import Translator, Untranslatable
from fayshell.lang.values import ScriptBlock
from fayshell.records import get_property
from fayshell.store.relation import quote_ident

#: The keys a calculated property may have in each command (about_Calculated_Properties);
#: any prefix that names one key alone names it (``desc`` is Descending).
CALCULATED_KEYS: dict[str, tuple[str, ...]] = {
    "Sort-Object": ("expression", "ascending", "descending"),
    "Format-Table": ("name", "label", "expression", "formatstring", "width", "alignment"),
    "Format-List": ("name", "label", "expression", "formatstring"),
    "Format-Wide": ("expression", "formatstring"),
}
DEFAULT_KEYS = ("name", "label", "expression")
#: A calculated column's Alignment values (Format-Table).
ALIGNMENTS = ("left", "right", "center")


@dataclass(frozen=True)
class PropSpec:
    """One property to select, sort or group by."""

    label: str
    source: str | ScriptBlock
    descending: bool | None = None
    #: Format-Table's and Format-List's ``FormatString`` ('N2', 'yyyy-MM-dd'), if any.
    format_string: str | None = None
    #: Format-Table's ``Width`` (a fixed column width) and ``Alignment`` (Left, Right, Center).
    width: int | None = None
    alignment: str | None = None

    @property
    def is_wildcard(self) -> bool:
        return isinstance(self.source, str) and has_wildcard(self.source)


def parse_props(command: str, items: list[Any] | None) -> list[PropSpec]:
    """Turn the -Property argument into PropSpecs, or raise a ParameterError naming the item."""
    specs: list[PropSpec] = []
    for item in items or []:
        if isinstance(item, str):
            specs.append(PropSpec(item, item))
        elif isinstance(item, ScriptBlock):
            specs.append(PropSpec(item.text.strip(), item))
        elif isinstance(item, Mapping):
            specs.append(_calculated(command, item))
        else:
            raise ParameterError(command, "Property", f"cannot use {item!r} as a property")
    return specs


def _keys(command: str, table: Mapping[str, Any]) -> dict[str, Any]:
    """A calculated property's entries by their full key names; a key this command does not
    take (or a prefix of two) is PowerShell's error."""
    valid = CALCULATED_KEYS.get(command, DEFAULT_KEYS)
    out: dict[str, Any] = {}
    for key, value in table.items():
        low = str(key).lower()
        hits = [k for k in valid if k == low] or [k for k in valid if k.startswith(low)]
        if len(hits) != 1:
            raise ParameterError(
                command,
                "Property",
                f"the {key} key is not valid (here: {', '.join(valid)})",
                f"The {key} key is not valid.",
            )
        out[hits[0]] = value
    return out


def _calculated(command: str, table: Mapping[str, Any]) -> PropSpec:
    low = _keys(command, table)
    expr = low.get("expression")
    if expr is None:
        raise ParameterError(
            command, "Property", "a calculated property needs an Expression (e) entry"
        )
    name = low.get("name", low.get("label"))
    label = (
        to_string(name)
        if name is not None
        else (expr if isinstance(expr, str) else expr.text.strip())
    )
    desc: bool | None = None
    if "descending" in low:
        desc = truthy(low["descending"])
    elif "ascending" in low:
        desc = not truthy(low["ascending"])
    source = expr if isinstance(expr, (str, ScriptBlock)) else to_string(expr)
    fmt = low.get("formatstring")
    width = low.get("width")
    align = low.get("alignment")
    if align is not None and to_string(align).lower() not in ALIGNMENTS:
        raise ParameterError(
            command, "Property", f"Alignment {to_string(align)!r} is not Left, Right or Center"
        )
    return PropSpec(
        label,
        source,
        desc,
        None if fmt is None else to_string(fmt),
        None if width is None else max(int(to_number(width)), 1),
        None if align is None else to_string(align).lower(),
    )


async def evaluate(item: Any, spec: PropSpec) -> Any:
    """The value of a property on one record."""
    if isinstance(spec.source, ScriptBlock):
        out = await spec.source.invoke(dollar_under=item)
        return out[0] if len(out) == 1 else (out or None)
    return prop_value(item, spec.source)


def prop_value(item: Any, name: str) -> Any:
    """``item.name`` as the pipeline cmdlets read it: also a string's Length and an array's
    Count/Length."""
    if isinstance(item, str) and name.lower() == "length":
        return len(item)
    if isinstance(item, (list, tuple)) and name.lower() in ("count", "length"):
        return len(item)
    return get_property(item, name)


def expand_wildcards(specs: list[PropSpec], names: list[str]) -> list[PropSpec]:
    """Replace name patterns with the matching property names, in the record's order."""
    out: list[PropSpec] = []
    for spec in specs:
        if spec.is_wildcard and isinstance(spec.source, str):
            pattern = spec.source
            out.extend(PropSpec(n, n, spec.descending) for n in names if wildcard_match(n, pattern))
        else:
            out.append(spec)
    return out


def sql_of(spec: PropSpec, schema: Mapping[str, str]) -> str:
    """The SQL expression for a property over a relation with ``schema``."""
    if isinstance(spec.source, ScriptBlock):
        return Translator(spec.source, schema).value().text
    lowered = {name.lower(): name for name in schema}
    found = lowered.get(spec.source.lower())
    if found is None:
        if not spec.source.replace("_", "").isalnum():
            raise Untranslatable(f"{spec.source!r} is not a column name")
        raise UnknownProperty(spec.source, list(schema))
    return quote_ident(found)


def column_of(spec: PropSpec, schema: Mapping[str, str]) -> str | None:
    """The real column name a plain-name spec refers to (case-insensitive), else None."""
    if isinstance(spec.source, ScriptBlock):
        return None
    lowered = {name.lower(): name for name in schema}
    return lowered.get(spec.source.lower())
