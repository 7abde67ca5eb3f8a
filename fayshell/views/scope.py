"""Turning -Node values (node-set strings, node records) into the names a view keeps."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def expand_nodes(value: Any) -> tuple[str, ...]:
    """``'web[01-02]'`` -> ``('web01', 'web02')``; lists and node records are flattened.

    A record counts by its ``name`` or ``node`` attribute (or key). None means every node.
    """
    if value is None:
        return ()
    items: Iterable[Any] = [value] if isinstance(value, str) or not _iterable(value) else value
    names: list[str] = []
    for item in items:
        for name in _names_of(item):
            if name not in names:
                names.append(name)
    return tuple(names)


def _iterable(value: Any) -> bool:
    return (
        isinstance(value, (list, tuple, set, frozenset))
        or hasattr(value, "__iter__")
        and not isinstance(value, (str, bytes, dict))
    )


def _names_of(item: Any) -> list[str]:
    if isinstance(item, dict):
        item = item.get("name") or item.get("node") or item.get("Name")
    elif not isinstance(item, str):
        item = getattr(item, "name", None) or getattr(item, "node", None) or str(item)
    text = str(item).strip()
    if not text:
        return []
    if any(c in text for c in "[,!@&^"):
        from fayshell.remote.nodeset import expand

        return expand(text)
    return [text]
