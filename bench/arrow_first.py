"""Design measurement for "answers before the data is on disk" (issue 14), not a feature:
how soon the top-10-syscalls answer could come if nothing were stored before it.

One fresh process decodes a kernel-layout trace and stages its syscalls in Arrow (the loader's
SyscallStager), finishes the cross-run pairing with DuckDB scanning the staged Arrow (the SQL of
fayshell.store.derived, no table written), and answers the query over the Arrow rows. Its wall
time is compared with ``babeltrace2 DIR -c sink.utils.counter`` run right after it. A fresh
database is assumed (no pending entries or thread facts of earlier chunks), as in
bench/first_answer.py; the answer is printed to compare with that bench's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import sys, time
t0 = time.perf_counter()
import duckdb
import pyarrow as pa
from fayshell.ctf.decode import stream_readers
from fayshell.ctf.trace import find_traces, open_trace
from fayshell.store import derived
from fayshell.store.kernel import SyscallStager
from fayshell.store.settings import LoadSettings

settings = LoadSettings()
trace = open_trace(find_traces(sys.argv[1])[0])
st = SyscallStager(trace.classes)
base = 0
for reader, batch in settings.batches(stream_readers(trace, True, settings.batch_rows)):
    cols = batch.common.column_names
    st.add(str(batch.path), batch.common, batch.payload, base,
           next((c for c in ("tid", "vtid") if c in cols), None))
    base += batch.common.num_rows
t1 = time.perf_counter()
out = st.outcome(True)
con = duckdb.connect()
con.register("direct", st.resolved())
runs = pa.concat_tables(st.runs, promote_options="default")
if "pid" not in runs.column_names:
    runs = runs.append_column("pid", pa.nulls(runs.num_rows, pa.int64()))
con.register("fay_runs", runs)
con.register("fay_names", derived._id_table(out.names))
con.register("fay_comms", derived._id_table(out.comms))
con.execute(derived._PAIR_RUNS_SQL)
parts = ["SELECT name::VARCHAR AS name, dur_ns FROM direct",
         "SELECT n.value, p.hts - p.p_ts FROM fay_paired p JOIN fay_names n ON n.id = p.p_name "
         "WHERE p.hkind = 2 AND p.p_kind = 1"]
if st.pairs:
    con.register("pairs", pa.concat_tables(st.pairs))
    parts.append("SELECT name::VARCHAR, dur_ns FROM pairs")
answer = con.execute("SELECT name, count(*), sum(dur_ns) FROM (" + " UNION ALL ".join(parts)
                     + ") GROUP BY ALL ORDER BY 3 DESC LIMIT 10").fetchall()
t2 = time.perf_counter()
print(answer[:3])
print(f"decode and stage {t1 - t0:.2f} s, pairing and query over Arrow {t2 - t1:.2f} s")
"""


def wall(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return time.perf_counter() - start, out


def main() -> int:
    if len(sys.argv) != 2:
        print(
            f"usage: {sys.argv[0]} KERNEL_TRACE_DIR (e.g. from bench/ingest.py's cache)",
            file=sys.stderr,
        )
        return 2
    trace = sys.argv[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ours, out = wall([sys.executable, "-c", CHILD, trace], env)
    bt2, _ = wall(["babeltrace2", trace, "-c", "sink.utils.counter"])
    print(out.rstrip())
    print(f"Arrow-first answer {ours:.2f} s; babeltrace2 counter {bt2:.2f} s ({bt2 / ours:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
