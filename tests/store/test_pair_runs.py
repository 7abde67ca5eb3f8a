"""kernel.pair_runs (numpy, the answer-first path) against derived.PAIR_RUNS_SELECT (SQL, the
flushed path): the same run rows kept with the same lagged and led values, on random runs
with unknown tids, several CPUs, carried open entries (heid -1) and equal times."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from fayshell.store.derived import PAIR_RUNS_SELECT
from fayshell.store.kernel import ENTRY, EXIT, pair_runs


def random_runs(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    tid = rng.integers(0, 12, n)
    hts = rng.integers(0, n // 2 + 1, n)  # many equal times: heid breaks the tie
    heid = rng.permutation(n).astype(np.int64)
    kinds = np.array([ENTRY, EXIT], np.int8)
    cols: dict[str, pa.Array] = {
        "tid": pa.array(tid, pa.int64(), mask=rng.random(n) < 0.1),
        "cpu": pa.array(rng.integers(0, 4, n), pa.int32()),
        "hkind": pa.array(kinds[rng.integers(0, 2, n)]),
        "hts": pa.array(hts),
        "heid": pa.array(np.where(rng.random(n) < 0.05, -1, heid)),
        "hret": pa.array(rng.integers(-5, 100, n)),
        "tkind": pa.array(kinds[rng.integers(0, 2, n)]),
        "tts": pa.array(hts + rng.integers(0, 50, n)),
        "tname": pa.array(rng.integers(0, 6, n), pa.int32()),
        "tprocname": pa.array(rng.integers(0, 3, n), pa.int32(), mask=rng.random(n) < 0.2),
        "pid": pa.array(rng.integers(100, 103, n), pa.int64(), mask=rng.random(n) < 0.5),
    }
    return pa.table(cols)


def rows(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple[object, ...]]:
    return sorted(con.sql(f"SELECT * FROM {name}").fetchall(), key=repr)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 500, 20_000])
def test_numpy_pairing_matches_sql(n: int) -> None:
    runs = random_runs(n, seed=n + 3)
    # equal (thread, hts, heid) make SQL's lag order undefined: the generator's heids are
    # unique except the carried -1 rows, which must then differ in time
    con = duckdb.connect()
    con.register("runs", runs)
    [(ties,)] = con.execute(
        "SELECT count(*) FROM (SELECT coalesce(tid, -1 - cpu), hts, heid FROM runs "
        "GROUP BY ALL HAVING count(*) > 1)"
    ).fetchall()
    if ties:
        runs = con.sql(
            "SELECT * FROM runs QUALIFY row_number() OVER "
            "(PARTITION BY coalesce(tid, -1 - cpu), hts, heid) = 1"
        ).to_arrow_table()
        con.register("runs", runs)
    con.register("got", pair_runs(runs))
    expected = con.sql(PAIR_RUNS_SELECT.format(runs="runs")).to_arrow_table()
    con.register("want", expected)
    assert con.sql("SELECT * FROM got").to_arrow_table().schema.names == expected.schema.names
    assert rows(con, "got") == rows(con, "want")
    if n >= 500:
        assert expected.num_rows > 0  # the comparison is not between two empty sets
