"""Node sets in ClusterShell syntax: ``web[01-16]``, ``node[1-9]!node6``, ``@group``, ``a,b``.

Parsing and folding are ClusterShell's :class:`ClusterShell.NodeSet.NodeSet`; groups come from
the inventory through a :class:`GroupSource`. Unknown groups are an error, not an empty set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from fayshell.errors import InventoryError


def _resolver(groups: Mapping[str, str]):  # -> GroupResolver
    from ClusterShell.NodeUtils import GroupResolver, GroupSource

    class StrictSource(GroupSource):
        def resolv_map(self, group: str) -> str:
            if group not in self.groups:
                raise InventoryError(f"unknown node group @{group}")
            return str(self.groups[group])

    return GroupResolver(StrictSource("inventory", dict(groups), allgroups=None))


def expand(expr: str | Sequence[str], groups: Mapping[str, str] | None = None) -> list[str]:
    """Node names of a node-set expression (or of a list of them), in sorted order."""
    from ClusterShell.NodeSet import NodeSet, NodeSetParseError
    from ClusterShell.RangeSet import RangeSetParseError

    exprs = [expr] if isinstance(expr, str) else list(expr)
    resolver = _resolver(groups or {})
    result = NodeSet(resolver=resolver)
    for item in exprs:
        try:
            result.update(NodeSet(str(item), resolver=resolver))
        except (NodeSetParseError, RangeSetParseError) as exc:
            raise InventoryError(f"bad node set {item!r}: {exc}") from None
    return list(result)


def fold(names: Iterable[str]) -> str:
    """Names folded back into one expression: ``['web01','web02','web07']`` -> ``web[01-02,07]``."""
    from ClusterShell.NodeSet import NodeSet

    return str(NodeSet.fromlist(list(names)))
