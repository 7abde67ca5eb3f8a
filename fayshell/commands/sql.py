"""SQL on the session's DuckDB database: Invoke-Sql (alias ``sql``) and Connect-Database."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.errors import SqlError
from fayshell.store.database import QUERY_WORDS


@dataclass(frozen=True)
class DatabaseInfo:
    """The database the session now uses."""

    Path: str
    Tables: int


def _database(ctx: Invocation, path: str | None) -> Any:
    if path is None:
        return ctx.state.database
    from fayshell.store.database import Database

    if ctx.state.database_label == path:
        return ctx.state.database
    return Database.open(path if path == ":memory:" else str(ctx.state.resolve_path(path)))


@dataclass
class OnNodeOptions:
    """-OnNode and its companions, also accepted at the start of the raw text after ``sql``
    (``sql -OnNode -Session S -Node n1,n2 SELECT …``)."""

    on_node: bool
    session: str | None
    node: list[str] | None
    exact: bool

    def take_leading(self, text: str) -> str:
        while text.startswith("-") and not text.startswith("--"):
            word, _, rest = text.partition(" ")
            key = word[1:].lower()
            if key == "onnode":
                self.on_node = True
            elif key == "exactpercentile":
                self.exact = True
            elif key in ("session", "node"):
                value, _, rest = rest.strip().partition(" ")
                if not value:
                    raise SqlError(f"Invoke-Sql: {word} needs a value")
                if key == "session":
                    self.session = value.strip("'\"")
                else:
                    self.node = [v.strip("'\"") for v in value.split(",")]
            else:
                raise SqlError(f"Invoke-Sql: unknown option {word} before the query")
            text = rest.strip()
        return text


@cmdlet(
    "Invoke-Sql",
    aliases=("sql",),
    synopsis="Run SQL on the session's DuckDB database; a query returns a relation.",
    description="'sql' takes the rest of the line as raw SQL (up to a lone '|'), so a query can "
    "feed the pipeline cmdlets, which then extend the same DuckDB query; a quoted string or a "
    "variable after it is the query's value instead (sql \"... WHERE node = '$n'\"). "
    "Statements that are not queries (CREATE, INSERT, ...) run at once and output nothing.",
    params=[
        Param("Query", str, position=0, mandatory=True, help="The SQL text."),
        Param(
            "Database",
            str,
            complete="files",
            help="Run on this DuckDB file instead of the session's.",
        ),
        Param(
            "OnNode",
            bool,
            help="Run on every node's agent over its own store and merge "
            "the partial results here (needs -Session).",
        ),
        Param("Session", str, complete="sessions", help="With -OnNode: the session."),
        Param("Node", "strings", complete="nodes", help="With -OnNode: only these nodes."),
        Param("ExactPercentile", bool, help="With -OnNode: exact percentiles."),
    ],
    examples=[
        (
            "sql SELECT name, count(*) FROM syscalls GROUP BY ALL ORDER BY 2 DESC",
            "Counts per system call.",
        ),
        (
            "sql SELECT range AS i, range % 7 AS k FROM range(10000000) | "
            "Where-Object { $_.k -eq 3 } | Group-Object k | Select-Object Name, Count",
            "The whole pipeline runs as one DuckDB query (add -Verbose to a cmdlet to see it).",
        ),
        (
            "sql -OnNode -Session incident SELECT name, count(*) FROM syscalls GROUP BY name",
            "Counted on every node of the session, merged here (-Verbose shows both SQLs).",
        ),
    ],
    raw_tail=True,
)
def invoke_sql(
    ctx: Invocation,
    *,
    query: str,
    database: str | None = None,
    on_node: bool = False,
    session: str | None = None,
    node: list[str] | None = None,
    exact_percentile: bool = False,
) -> Any:
    opts = OnNodeOptions(on_node, session, node, exact_percentile)
    text = opts.take_leading(query.strip().rstrip(";").strip())
    if not text:
        raise SqlError("Invoke-Sql: the query is empty")
    if opts.on_node:
        from fayshell.commands.store import on_node_relation

        if text.split(None, 1)[0].lower().lstrip("(") not in QUERY_WORDS:
            raise SqlError("Invoke-Sql -OnNode: only queries run on the nodes")
        return on_node_relation(ctx, text, opts.session, opts.node, opts.exact)
    db = _database(ctx, database)
    first = text.split(None, 1)[0].lower().lstrip("(")
    if first in QUERY_WORDS:
        db.columns_of(text)  # validate now: errors belong to this command, not to rendering
        return db.relation(text)
    rows = db.execute(text)
    if rows and len(rows) == 1 and len(rows[0]) == 1 and isinstance(rows[0][0], int):
        ctx.write_verbose(f"{rows[0][0]} rows affected")
    return None


@cmdlet(
    "Connect-Database",
    synopsis="Switch the session to another DuckDB file (created if missing).",
    params=[Param("Path", str, position=0, mandatory=True, complete="files")],
    examples=[("Connect-Database incident.duckdb", "Work on the incident database.")],
)
def connect_database(ctx: Invocation, *, path: str) -> DatabaseInfo:
    from fayshell.store.database import Database

    db = Database.open(path if path == ":memory:" else str(ctx.state.resolve_path(path)))
    ctx.state.use_database(db)
    return DatabaseInfo(db.path, len(db.tables()))
