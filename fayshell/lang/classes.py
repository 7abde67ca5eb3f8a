"""Classes a script declares (about_Classes): the type and its objects. The evaluator runs
their constructors and methods (fayshell/lang/interp.py); this module holds what they are.

An object is a :class:`ClassInstance`, a record (a dict of its properties, as a
``[pscustomobject]`` is) that knows its class: tables, Select-Object and ConvertTo-Json show
it as they show any record, and setting a property converts the value to the property's
declared type, or fails for a property the class does not declare.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fayshell.lang import ast
from fayshell.lang.ops import OperatorError, no_method, no_property_to_set
from fayshell.lang.values import PSCustomObject, TypeInfo

#: Converts a value to a declared type: the evaluator's cast (it knows the script's types).
Cast = Callable[[Any, str], Any]


@dataclass(eq=False)
class ClassType:
    """A script's ``class`` declaration: what ``[Name]`` evaluates to."""

    Name: str
    base: ClassType | None = field(repr=False)
    properties: list[ast.ClassProperty] = field(repr=False)
    methods: list[ast.ClassMethod] = field(repr=False)
    #: Where the class was declared: its methods' code sees that scope's functions.
    scope: Any = field(repr=False)
    #: The static properties' values.
    statics: dict[str, Any] = field(default_factory=dict, repr=False)
    #: Each property's [Validate...] attributes, their arguments evaluated: lower-case
    #: property name -> (attribute, arguments) ...
    checks: dict[str, list[tuple[str, list[Any]]]] = field(default_factory=dict, repr=False)
    #: The .NET interfaces it declares, as ``-is`` compares type names (``icomparable``).
    interfaces: frozenset[str] = field(default=frozenset(), repr=False)
    cast: Cast = field(default=lambda value, type_name: value, repr=False)
    #: An object's text by its class's own ToString() (None: it has none, or it could not
    #: give it at once); the interpreter sets it.
    text_of: Callable[[ClassInstance], str | None] = field(default=lambda obj: None, repr=False)

    @property
    def BaseType(self) -> ClassType | TypeInfo:  # noqa: N802 - .NET property name
        return self.base if self.base is not None else TypeInfo("Object", "System.Object")

    @property
    def FullName(self) -> str:  # noqa: N802 - .NET property name
        return self.Name

    def __str__(self) -> str:
        return self.Name

    def GetType(self) -> TypeInfo:  # noqa: N802 - .NET method name
        return TypeInfo("RuntimeType", "System.RuntimeType")

    def lineage(self) -> list[ClassType]:
        """This class, then its base, its base's base ..."""
        out: list[ClassType] = []
        cls: ClassType | None = self
        while cls is not None:
            out.append(cls)
            cls = cls.base
        return out

    def instance_properties(self) -> list[ast.ClassProperty]:
        """Every object property, the base class's first (a redeclared one once)."""
        seen: dict[str, ast.ClassProperty] = {}
        for cls in reversed(self.lineage()):
            for prop in cls.properties:
                if not prop.static:
                    seen[prop.name.lower()] = prop
        return list(seen.values())

    def property_type(self, name: str) -> tuple[str, str | None] | None:
        """A declared object property's name (as declared) and type, or None."""
        for prop in self.instance_properties():
            if prop.name.lower() == name.lower():
                return prop.name, prop.type
        return None

    def overloads(
        self, name: str, count: int, static: bool
    ) -> list[tuple[ClassType, ast.ClassMethod]]:
        """The overloads of ``name`` taking ``count`` arguments, each with the class declaring
        it: this class's before its base's, a base's that a derived one overrides (the same
        parameter types) left out."""
        out: list[tuple[ClassType, ast.ClassMethod]] = []
        seen: set[tuple[str, ...]] = set()
        for cls in self.lineage():
            for m in cls.methods:
                if (
                    not m.constructor
                    and m.static == static
                    and m.name.lower() == name.lower()
                    and len(m.params) == count
                ):
                    types = tuple((p.type or "object").lower() for p in m.params)
                    if types not in seen:
                        seen.add(types)
                        out.append((cls, m))
        return out

    def constructors(self) -> list[ast.ClassMethod]:
        return [m for m in self.methods if m.constructor]

    def static_owner(self, name: str) -> ClassType | None:
        """The class (this one or a base) holding the static property ``name``."""
        for cls in self.lineage():
            if any(k.lower() == name.lower() for k in cls.statics):
                return cls
        return None

    def static_key(self, name: str) -> str:
        return next((k for k in self.statics if k.lower() == name.lower()), name)

    def is_instance(self, value: Any) -> bool:
        return isinstance(value, ClassInstance) and self in value.ps_class.lineage()

    def check(self, name: str, value: Any) -> None:
        """A property's new value against its [Validate...] attributes (a base class's too):
        PowerShell's "Exception setting" error when it fails ([ValidateScript] is not run
        here)."""
        from fayshell.lang.validate import problem

        for cls in self.lineage():
            for attr, args in cls.checks.get(name.lower(), []):
                why = problem(attr, args, value)
                if why is not None:
                    raise OperatorError(f'Exception setting "{name}": "{why}"')


class ClassInstance(PSCustomObject):
    """An object of a script's class: its properties, in declaration order."""

    __slots__ = ("ps_class",)

    def __init__(self, cls: ClassType) -> None:
        super().__init__()
        self.ps_class = cls

    def __setitem__(self, key: Any, value: Any) -> None:
        declared = self.ps_class.property_type(str(key))
        if declared is None:
            raise no_property_to_set(str(key))
        name, type_name = declared
        value = value if type_name is None else self.ps_class.cast(value, type_name)
        self.ps_class.check(name, value)
        super().__setitem__(name, value)

    def init(self, name: str, value: Any) -> None:
        """A property's first value (its default), without the type's conversion."""
        super().__setitem__(name, value)

    def __str__(self) -> str:  # its ToString(), else the class's name (.NET's default)
        text = self.ps_class.text_of(self)
        return self.ps_class.Name if text is None else text

    def GetType(self) -> ClassType:  # noqa: N802 - .NET method name
        return self.ps_class

    @property
    def ps_hidden(self) -> frozenset[str]:
        """Its ``hidden`` properties: read and set, not shown (records.property_names)."""
        return frozenset(p.name for p in self.ps_class.instance_properties() if p.hidden)

    def ps_is(self, low: str) -> bool | None:
        lineage = self.ps_class.lineage()
        return any(cls.Name.lower() == low or low in cls.interfaces for cls in lineage) or None

    def implements(self, interface: str) -> bool:
        """Does its class (or a base) declare the .NET interface (``icomparable``)?"""
        return any(interface in cls.interfaces for cls in self.ps_class.lineage())


def no_overload(cls: ClassType, name: str, count: int) -> OperatorError:
    """PowerShell's error for a method or constructor not taking this many arguments."""
    known = name.lower() == "new" or any(
        m.name.lower() == name.lower() for c in cls.lineage() for m in c.methods
    )
    return no_method(cls.Name, name, count, known)
