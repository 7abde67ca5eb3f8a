"""``-OnNode`` queries: a relation over every node's store, split, run by the agents, merged here.

:class:`NodeDatabase` is an in-memory DuckDB holding *empty* copies of the store's tables: the
pipeline cmdlets ask it for schemas and wrap SQL exactly as they do on the shell's database, so
the same pipeline text works. Nothing runs until the relation is fetched; then the whole SQL is
split (:mod:`fayshell.lang.plansplit`), the node parts run on every node's agent in parallel,
the partial Arrow results are loaded into a fresh in-memory DuckDB, and the merge part runs
there, its columns cast back to the types the query has on one database. The shell's own
database is never touched. Nodes that did not answer are named in a warning and in
:attr:`NodeDatabase.missing`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fayshell.errors import SqlError
from fayshell.lang.plansplit import PART, SplitOptions, Splitter
from fayshell.store.database import Database, insert_rows, registered, sql_error
from fayshell.store.relation import Relation as StoreRelation
from fayshell.store.relation import quote_ident

if TYPE_CHECKING:
    from fayshell.remote.agenthub import AgentHub, NodeAnswers

Say = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


class NodeDatabase(Database):
    """Empty copies of the store's tables plus what an ``-OnNode`` query needs to run."""

    def __init__(
        self,
        path: str,
        con: Any,
        *,
        hub: AgentHub | None = None,
        session: str = "",
        nodes: list[str] | None = None,
        remembered: dict[str, str] | None = None,
        split_options: SplitOptions | None = None,
        verbose: Say = _quiet,
        warn: Say = _quiet,
    ) -> None:
        super().__init__(path, con)
        self.hub = hub
        self.session = session
        self.nodes = list(nodes or [])
        self.remembered = dict(remembered or {})
        self.split_options = split_options or SplitOptions()
        self.verbose = verbose
        self.warn = warn
        self.missing: dict[str, str] = {}
        #: Seconds the last run spent splitting, waiting for the nodes and merging (bench/).
        self.phases: dict[str, float] = {}
        self.ready = False

    @classmethod
    def scratch(cls, **kw: Any) -> NodeDatabase:
        hub = kw.get("hub")
        if hub is not None:  # a connection to the hub's copy: a new database costs ~40 ms
            db = cls(path=":memory:", con=hub.scratch_connection(), **kw)
            db.schema_ready = True
        else:
            import duckdb

            from fayshell.store.schema import ensure_schema

            db = cls(path=":memory:", con=duckdb.connect(), **kw)
            ensure_schema(db)
        db.ready = True
        return db

    def execute(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """Statements on the relation's database: ``COPY (query) TO …`` (Export-Csv) writes
        the merged answer; anything else is refused (the nodes' stores are read-only here)."""
        if not self.ready:
            return super().execute(sql, params)
        m = re.fullmatch(r"\s*COPY \((.*)\) TO (.*)", sql, re.S | re.I)
        if m is None or params:
            raise SqlError("-OnNode: only queries run over the nodes' stores")
        names, rows = self.run(m.group(1))
        import duckdb

        con = duckdb.connect()
        try:
            schema = self.schema_of(m.group(1))
            con.execute(
                "CREATE TABLE fay_out ("
                + ", ".join(f"{quote_ident(n)} {t}" for n, t in schema.items())
                + ")"
            ).fetchall()
            insert_rows(con, "fay_out", rows)
            return con.execute(f"COPY fay_out TO {m.group(2)}").fetchall()
        except duckdb.Error as exc:
            raise sql_error(exc) from None
        finally:
            con.close()

    def run(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Split, run on the nodes, merge: column names and rows."""
        t0 = time.perf_counter()
        schema = self.schema_of(sql)  # also validates the query, as on one database
        plan = Splitter(self.con, self.split_options).split(sql)
        for line in plan.describe():
            self.verbose(line)
        assert self.hub is not None
        t1 = time.perf_counter()
        answers = self.hub.call(
            self.hub.run_parts(self.nodes, self.session, self.remembered, plan.node_sql)
        )
        t2 = time.perf_counter()
        self.report(answers)
        out = merge(self, plan.node_sql, plan.merge_sql, answers, schema)
        self.phases = {"split": t1 - t0, "nodes": t2 - t1, "merge": time.perf_counter() - t2}
        return out

    def report(self, answers: NodeAnswers) -> None:
        self.missing = dict(answers.missing)
        for node, why in answers.pulled.items():
            self.warn(f"{node}: no agent ({why}); pulled its chunks instead")
        for node, why in answers.missing.items():
            self.warn(f"{node}: missing from the result: {why}")


def merge(
    db: NodeDatabase,
    node_sql: tuple[str, ...],
    merge_sql: str,
    answers: NodeAnswers,
    schema: dict[str, str],
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Load each part's answers into temporary tables of a connection of its own (typed as the
    query is typed on the scratch database, never running it here) and run the merge there."""
    import duckdb

    con = db.con.cursor()  # temporary tables belong to this connection alone
    try:
        for i, sql in enumerate(node_sql):
            load_part(con, f"{PART}{i}", db.schema_of(sql), answers.tables[i])
        cols = [
            f"CAST(#{k + 1} AS {t}) AS {quote_ident(n)}" for k, (n, t) in enumerate(schema.items())
        ]
        try:
            rel = con.sql(f"SELECT {', '.join(cols)} FROM ({merge_sql}) AS _f")
            return list(rel.columns), rel.fetchall()
        except duckdb.Error:
            rel = con.sql(merge_sql)  # a type the cast cannot take: as merged
            return list(rel.columns), rel.fetchall()
    except duckdb.Error as exc:
        raise sql_error(exc) from None
    finally:
        con.close()


def load_part(con: Any, name: str, schema: dict[str, str], tables: list[Any]) -> None:
    """Temporary table ``name`` with ``schema``, holding every node's rows (columns a node has
    beyond the schema, e.g. stream context columns, are added). The nodes' tables go in as one
    Arrow table when they concatenate (same or promotable types), else one by one."""
    cols = ", ".join(f"{quote_ident(c)} {t}" for c, t in schema.items())
    con.execute(f"CREATE TEMP TABLE {name} ({cols})").fetchall()
    have = {c.lower() for c in schema}
    whole = union(tables)
    for k, table in enumerate([whole] if whole is not None else tables):
        view = f"{name}_node{k}"
        with registered(con, **{view: table}):
            for col, typ in con.execute(
                f"SELECT column_name, column_type FROM (DESCRIBE {view})"
            ).fetchall():
                if col.lower() not in have:
                    con.execute(
                        f"ALTER TABLE {name} ADD COLUMN {quote_ident(col)} {typ}"
                    ).fetchall()
                    have.add(col.lower())
            con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM {view}").fetchall()


def union(tables: list[Any]) -> Any:
    """The nodes' Arrow tables as one (columns matched by name, a column a node lacks is null),
    or None when their types do not combine."""
    import pyarrow as pa

    if len(tables) < 2:
        return tables[0] if tables else None
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None


@dataclass(frozen=True)
class Relation(StoreRelation):
    """A relation over the nodes' stores (named Relation: the pipeline treats it as one)."""

    def wrap(self, select: str = "*", tail: str = "") -> Relation:
        return Relation(self.db, f"SELECT {select} FROM ({self.sql}) AS _r {tail}".rstrip())

    def node_db(self) -> NodeDatabase:
        assert isinstance(self.db, NodeDatabase)
        return self.db

    def fetch(self) -> tuple[list[str], list[tuple[Any, ...]]]:
        return self.node_db().run(self.sql)

    def iter_records(self, batch: int = 4096) -> Iterator[dict[str, Any]]:
        names, rows = self.fetch()
        for row in rows:
            yield dict(zip(names, row, strict=True))

    @property
    def missing(self) -> dict[str, str]:
        """Nodes missing from the last fetch, with the reason."""
        return dict(self.node_db().missing)
