""".NET's List[T], ArrayList, HashSet[T], Queue[T] and Stack[T] as lists (so the pipeline enumerates them and
tables show them) with their own methods, called case-insensitively as PowerShell calls them.

``[System.Collections.Generic.HashSet[string]]::new()`` and ``New-Object`` make them (see
:func:`new_collection`); ``Dictionary[K,V]`` is a hashtable there.
"""

from __future__ import annotations

from typing import Any

from fayshell.lang.ops import OperatorError, compare, convert, to_number
from fayshell.lang.values import TypeInfo


class DotNetCollection(list[Any]):
    """A list with .NET-named methods (the evaluator finds them whatever the case)."""

    TYPE_NAME = "System.Collections.Generic.Collection"

    def GetType(self) -> TypeInfo:  # noqa: N802 - .NET method name
        return TypeInfo(f"{type(self).__name__}`1", f"{self.TYPE_NAME}`1")

    def Contains(self, item: Any) -> bool:  # noqa: N802 - .NET method name
        return any(compare("ceq", v, item) for v in self)

    def Clear(self) -> None:  # noqa: N802 - .NET method name
        self.clear()

    def ToArray(self) -> list[Any]:  # noqa: N802 - .NET method name
        return list(self)


class HashSet(DotNetCollection):
    """``HashSet[T]``: each item once (strings compared case-sensitively, as .NET's default)."""

    TYPE_NAME = "System.Collections.Generic.HashSet"

    def Add(self, item: Any) -> bool:  # noqa: N802 - .NET method name
        if self.Contains(item):
            return False
        self.append(item)
        return True

    def Remove(self, item: Any) -> bool:  # noqa: N802 - .NET method name
        for i, v in enumerate(self):
            if compare("ceq", v, item):
                del self[i]
                return True
        return False

    def UnionWith(self, items: Any) -> None:  # noqa: N802 - .NET method name
        for item in _items(items):
            self.Add(item)

    def IntersectWith(self, items: Any) -> None:  # noqa: N802 - .NET method name
        other = HashSet(_items(items))
        self[:] = [v for v in self if other.Contains(v)]

    def ExceptWith(self, items: Any) -> None:  # noqa: N802 - .NET method name
        for item in _items(items):
            self.Remove(item)


class Queue(DotNetCollection):
    """``Queue[T]``: first in, first out."""

    TYPE_NAME = "System.Collections.Generic.Queue"

    def Enqueue(self, item: Any) -> None:  # noqa: N802 - .NET method name
        self.append(item)

    def Dequeue(self) -> Any:  # noqa: N802 - .NET method name
        return self.pop(0) if self else _empty("Queue")

    def Peek(self) -> Any:  # noqa: N802 - .NET method name
        return self[0] if self else _empty("Queue")


class Stack(DotNetCollection):
    """``Stack[T]``: last in, first out; kept top first, the order .NET enumerates it in."""

    TYPE_NAME = "System.Collections.Generic.Stack"

    def Push(self, item: Any) -> None:  # noqa: N802 - .NET method name
        self.insert(0, item)

    def Pop(self) -> Any:  # noqa: N802 - .NET method name
        return self.pop(0) if self else _empty("Stack")

    def Peek(self) -> Any:  # noqa: N802 - .NET method name
        return self[0] if self else _empty("Stack")


class ArrayList(DotNetCollection):
    """``System.Collections.ArrayList``: Add returns the new item's index (scripts write
    ``[void]$list.Add(x)`` for that); its other methods are an array's."""

    TYPE_NAME = "System.Collections.ArrayList"

    def GetType(self) -> TypeInfo:  # noqa: N802 - .NET method name
        return TypeInfo("ArrayList", self.TYPE_NAME)

    def Add(self, item: Any) -> int:  # noqa: N802 - .NET method name
        self.append(item)
        return len(self) - 1


class GenericList(DotNetCollection):
    """``List[T]``: Add and Insert convert to T ([List[int]] takes '5' as 5); Remove says
    whether it removed the item (PowerShell prints True unless the script discards it)."""

    TYPE_NAME = "System.Collections.Generic.List"
    #: T as short_type writes it ('' for object).
    element = ""

    def GetType(self) -> TypeInfo:  # noqa: N802 - .NET method name
        return TypeInfo("List`1", f"{self.TYPE_NAME}`1")

    def typed(self, item: Any) -> Any:
        return item if self.element in ("", "object", "psobject") else convert(item, self.element)

    def Add(self, item: Any) -> None:  # noqa: N802 - .NET method name
        self.append(self.typed(item))

    def Insert(self, index: Any, item: Any) -> None:  # noqa: N802 - .NET method name
        self.insert(int(to_number(index)), self.typed(item))

    def Remove(self, item: Any) -> bool:  # noqa: N802 - .NET method name
        for i, value in enumerate(self):
            if compare("ceq", value, item):
                del self[i]
                return True
        return False


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _empty(kind: str) -> Any:
    raise OperatorError(f"{kind} empty.")


#: The short type names (``collections.generic.hashset``) each class answers to.
KINDS: dict[str, type[DotNetCollection]] = {
    "arraylist": ArrayList,
    "list": GenericList,
    "hashset": HashSet,
    "queue": Queue,
    "stack": Stack,
}


def new_collection(type_name: str, items: Any = None) -> DotNetCollection | None:
    """``[…HashSet[string]]::new()`` (or New-Object's): the collection, with ``items`` in it
    (a set keeps each once); None when ``type_name`` is no such type."""
    base = type_name.lower().split("[", 1)[0].removeprefix("system.")
    cls = KINDS.get(base.removeprefix("collections.generic.").removeprefix("collections."))
    if cls is None:
        return None
    made = cls()
    if isinstance(made, GenericList):  # List[int]: its items are ints
        made.element = type_name.lower().partition("[")[2].removesuffix("]").removeprefix("system.")
    if isinstance(items, int) and not isinstance(items, bool):
        items = None  # a capacity: the collection starts empty
    for item in _items(items) if items is not None else []:
        if isinstance(made, (HashSet, GenericList)):
            made.Add(item)
        else:
            made.append(item)
    if isinstance(made, Stack):
        made.reverse()  # Stack(items) pushes them in order: the last is on top
    return made
