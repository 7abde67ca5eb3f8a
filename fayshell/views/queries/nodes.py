"""The nodes view: every node scored against the median profile of the nodes (Compare-Node's
query, fayshell.store.profile), over the view's window."""

from __future__ import annotations

from dataclasses import dataclass

from fayshell.store.profile import EMPTY, ProfileQuery, Window, compare_sql
from fayshell.store.relation import quote_literal
from fayshell.views.model import Query
from fayshell.views.queries.common import Con


@dataclass(frozen=True)
class NodeScore:
    """One node: how far it is from the median profile, and the features that make it so."""

    node: str
    score: float
    compared: int
    features: str

    @property
    def key(self) -> str:
        return self.node


def scope_condition(q: Query) -> str:
    """The view's -Session/-Node scope as a SQL condition on node and session."""
    parts = []
    if q.scope.session is not None:
        parts.append(f"session = {quote_literal(q.scope.session)}")
    if q.scope.nodes:
        parts.append(f"node IN ({', '.join(quote_literal(n) for n in q.scope.nodes)})")
    return " AND ".join(parts) or "true"


def node_scores(con: Con, q: Query, top: int = 3) -> list[NodeScore]:
    """Nodes most different first (fewer than two nodes with data: nothing to compare)."""
    have = {
        r[0]
        for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
    }
    query = ProfileQuery(
        Window(q.lo_ns, q.now_ns + 1),
        scope_condition(q),
        top=top,
        tables=frozenset(t for t in EMPTY if t in have),
    )
    rows = con.execute(compare_sql(query)).fetchall()
    if len(rows) < 2:
        return []
    return [NodeScore(str(r[0]), float(r[1]), int(r[3]), "; ".join(r[2])) for r in rows]
