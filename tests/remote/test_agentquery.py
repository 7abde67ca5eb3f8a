"""The shell's half of an -OnNode query without nodes: the nodes' Arrow answers merged into the
answer of the whole query (the real-cluster tests are in tests/agent/test_onnode.py)."""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

from fayshell.lang.plansplit import SplitOptions, Splitter
from fayshell.remote.agenthub import AgentHub, NodeAnswers
from fayshell.remote.agentquery import NodeDatabase, load_part, merge
from fayshell.state import Options

QUESTION = (
    "SELECT name, count(*) AS calls, sum(dur_ns) AS total FROM syscalls "
    "GROUP BY name ORDER BY total DESC"
)
ROWS = {
    "node01": [("read", 10), ("read", 30), ("write", 5)],
    "node02": [("write", 7)],
    "node03": [],
}


def node_answers(db: NodeDatabase, node_sql: tuple[str, ...]) -> NodeAnswers:
    """Each node's answer to each node query, run over that node's rows in its own DuckDB."""
    tables: list[list[Any]] = [[] for _ in node_sql]
    for node, rows in ROWS.items():
        con = duckdb.connect()
        con.execute("CREATE TABLE syscalls (node VARCHAR, name VARCHAR, dur_ns BIGINT)")
        for name, dur in rows:
            con.execute("INSERT INTO syscalls VALUES (?, ?, ?)", [node, name, dur])
        for i, sql in enumerate(node_sql):
            tables[i].append(con.sql(sql).to_arrow_table())
    return NodeAnswers(tables)


def test_merge_of_every_nodes_answer_equals_the_query_over_all_rows() -> None:
    hub = AgentHub(Options())
    db = NodeDatabase.scratch(hub=hub)
    plan = Splitter(db.con, SplitOptions()).split(QUESTION)
    answers = node_answers(db, plan.node_sql)
    for _ in range(2):  # the parts are temporary tables of each merge: merging again works
        names, rows = merge(db, plan.node_sql, plan.merge_sql, answers, db.schema_of(QUESTION))
        assert names == ["name", "calls", "total"]
        assert rows == [("read", 2, 40), ("write", 2, 12)]
    assert "fay_part0" not in {r[0] for r in db.con.execute("SHOW TABLES").fetchall()}


def test_scratch_databases_of_one_hub_share_its_tables_not_their_merges() -> None:
    hub = AgentHub(Options())
    one, two = NodeDatabase.scratch(hub=hub), NodeDatabase.scratch(hub=hub)
    assert one.con is not two.con
    assert one.schema_of("SELECT * FROM syscalls") == two.schema_of("SELECT * FROM syscalls")
    alone = NodeDatabase.scratch()  # without a hub: a database of its own
    assert alone.schema_of("SELECT * FROM spans") == one.schema_of("SELECT * FROM spans")
    hub.close()
    assert one.schema_of("SELECT count(*) AS n FROM logs") == {"n": "BIGINT"}


def test_nodes_with_other_columns_and_types_load_into_one_table() -> None:
    con = duckdb.connect()
    tables = [
        pa.table({"k": pa.array(["a"]), "n": pa.array([1], pa.int32())}),
        pa.table({"k": pa.array(["b"]), "n": pa.array([2], pa.int64()), "cpu": [3]}),
        pa.table({"k": pa.array([], pa.string()), "n": pa.array([], pa.int64())}),
    ]
    load_part(con, "fay_part0", {"k": "VARCHAR", "n": "BIGINT"}, tables)
    rows = con.execute("SELECT k, n, cpu FROM fay_part0 ORDER BY k").fetchall()
    assert rows == [("a", 1, None), ("b", 2, 3)]


def test_nodes_whose_types_do_not_combine_load_one_by_one() -> None:
    con = duckdb.connect()
    tables = [pa.table({"n": pa.array([1], pa.int64())}), pa.table({"n": pa.array(["2"])})]
    load_part(con, "fay_part0", {"n": "BIGINT"}, tables)
    assert con.execute("SELECT n FROM fay_part0 ORDER BY n").fetchall() == [(1,), (2,)]
