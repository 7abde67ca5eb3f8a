"""Export-Trace on real data: spans of the BlkKin C workload traced by a private lttng-sessiond,
system calls of a kernel-layout CTF trace, both imported with Import-Trace; and the known store.

* Zipkin: every file validates against the ``Span`` definition of ../shared/zipkin2-api.yaml (the
  OpenAPI definitions turned into a JSON Schema; Span and Endpoint made closed with
  ``additionalProperties: false`` so a misspelt field fails), and reads back equal to the
  spans table (times at the microsecond, the unit Zipkin carries).
* Chrome: every event has the fields the Trace Event Format documents for its phase (X:
  name, cat, ph, ts, dur, pid, tid, args; M: process_name/thread_name with args.name), and the
  complete events read back equal to the table to the nanosecond.
* Parquet: read back by DuckDB equal to the table (also partitioned by node).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import jsonschema
import pytest
import yaml

from fayshell.errors import FayError
from fayshell.lttng import CreateSession, EnableEvent, Start, Stop
from tests.fixtures.ctfgen import GenSpec, write_trace
from tests.fixtures.shell import new_shell
from tests.lttng.harness import PrivateSessiond

ZIPKIN_API = Path(__file__).resolve().parents[3] / "shared" / "zipkin2-api.yaml"
ZIPKIN_API_FALLBACK = Path("/work/shared/zipkin2-api.yaml")
REQUESTS = 50
SPAN_COLUMNS = "trace_id, span_id, parent_span_id, service, ip, port, name, ts_start, dur_ns"


def zipkin_schema() -> dict[str, Any]:
    """The ListOfSpans body of POST /api/v2/spans as a JSON Schema (draft 7)."""
    path = ZIPKIN_API if ZIPKIN_API.is_file() else ZIPKIN_API_FALLBACK
    if not path.is_file():
        pytest.fail(f"the Zipkin API schema is absent (looked for {ZIPKIN_API})", pytrace=False)
    defs = yaml.safe_load(path.read_text())["definitions"]
    for name in ("Span", "Endpoint", "Annotation"):
        defs[name]["additionalProperties"] = False
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": defs,
        "$ref": "#/definitions/ListOfSpans",
    }


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, blkkin_binary: Path) -> Path:
    """A DuckDB file with real BlkKin spans (node blk01) and generated kernel syscalls (k01)."""
    tmp = tmp_path_factory.mktemp("export")
    d = PrivateSessiond()
    try:
        d.start()
        out = d.output_dir("exp")
        d.ok(CreateSession("exp", output=str(out)).argv())
        d.ok(EnableEvent("exp", "user", ("zipkin:*",)).argv())
        d.ok(Start("exp").argv())
        d.workload([str(blkkin_binary), "--requests", str(REQUESTS), "--slow-every", "5"])
        d.ok(Stop("exp").argv())
        kernel = write_trace(tmp / "kernel", GenSpec(events=20_000, cpus=2, seed=5))
        db = tmp / "export.duckdb"
        import asyncio

        async def load() -> None:
            sh = new_shell(db)
            await sh.run(f"Import-Trace '{out}' -Node blk01 -Session exp")
            await sh.run(f"Import-Trace '{kernel.dirs[0]}' -Node k01 -Session kern")
            await sh.state.aclose()

        asyncio.run(load())
        return db
    finally:
        d.stop()


@pytest.fixture
async def sh(store: Path, tmp_path: Path):
    shell = new_shell(store)
    yield shell
    await shell.state.aclose()


def table(shell: Any, sql: str) -> list[tuple[Any, ...]]:
    """Rows of the store through the shell's own connection, sorted."""
    return sorted(shell.state.database.execute(sql))


def unhex(text: str) -> int:
    """16 hex digits back to a signed 64-bit id."""
    v = int(text, 16)
    return v - (1 << 64) if v >= 1 << 63 else v


def zipkin_rows(spans: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    out = []
    for s in spans:
        ep = s.get("localEndpoint", {})
        out.append(
            (
                unhex(s["traceId"]),
                unhex(s["id"]),
                unhex(s.get("parentId", "0" * 16)),
                ep.get("serviceName"),
                ep.get("ipv4"),
                ep.get("port", 0),
                s.get("name"),
                s["timestamp"],
                s["duration"],
                sorted((a["timestamp"], a["value"]) for a in s.get("annotations", [])),
                s.get("tags", {}),
            )
        )
    return sorted(out)


async def test_zipkin_export_of_real_spans_validates_and_reads_back_equal(
    sh, store, tmp_path
) -> None:
    target = tmp_path / "spans.json"
    [summary] = await sh.run(f"Get-Span | Export-Trace -Format zipkin -Path '{target}'")
    spans = json.loads(target.read_text())
    jsonschema.validate(spans, zipkin_schema(), format_checker=jsonschema.FormatChecker())
    assert summary.Rows == len(spans) == 3 * REQUESTS
    want = [
        (
            t,
            s,
            p,
            svc,
            ip,
            port,
            name,
            ts // 1000,
            max(1, -(-dur // 1000)),
            sorted({(a["ts"] // 1000, a["value"]) for a in ann}),
            dict(kv),
        )
        for t, s, p, svc, ip, port, name, ts, dur, ann, kv in table(
            sh, f"SELECT {SPAN_COLUMNS}, annotations, keyvals FROM spans WHERE session = 'exp'"
        )
    ]
    assert zipkin_rows(spans) == sorted(want)
    kinds = {s["kind"] for s in spans}
    assert kinds == {"CLIENT"}  # every BlkKin span here has the caller's cs/cr annotations
    roots = [s for s in spans if "parentId" not in s]
    assert len(roots) == REQUESTS


async def test_zipkin_of_the_known_store_validates(known_store, tmp_path) -> None:
    shell = new_shell(known_store)
    target = tmp_path / "known.json"
    await shell.run(f"sql SELECT * FROM spans | Export-Trace -Format zipkin -Path '{target}'")
    await shell.state.aclose()
    spans = json.loads(target.read_text())
    jsonschema.validate(spans, zipkin_schema(), format_checker=jsonschema.FormatChecker())
    assert {s["kind"] for s in spans} == {"SERVER"}  # the known store has sr/ss only
    errored = [s for s in spans if s.get("tags", {}).get("db.table") == "users"]
    assert len(errored) == 10 and len(spans) == 40


def check_chrome(doc: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[tuple[int, int], str]]:
    """The Trace Event Format's documented fields, per phase; (complete events, names)."""
    assert set(doc) == {"displayTimeUnit", "otherData", "traceEvents"}
    assert doc["displayTimeUnit"] in ("ms", "ns")
    complete, names = [], {}
    for ev in doc["traceEvents"]:
        assert isinstance(ev["pid"], int) and isinstance(ev["tid"], int)
        if ev["ph"] == "X":
            assert set(ev) == {"ph", "name", "cat", "ts", "dur", "pid", "tid", "args"}
            assert isinstance(ev["ts"], (int, float)) and ev["dur"] >= 0
            assert isinstance(ev["name"], str) and isinstance(ev["args"], dict)
            complete.append(ev)
        else:
            assert ev["ph"] == "M" and ev["name"] in ("process_name", "thread_name")
            assert set(ev) == {"ph", "name", "pid", "tid", "args"}
            names[(ev["pid"], ev["tid"] if ev["name"] == "thread_name" else 0)] = ev["args"]["name"]
    return complete, names


def ns(doc: dict[str, Any], us: float) -> int:
    """A Chrome microsecond value (three decimals) back to nanoseconds."""
    return int(doc["otherData"]["ts_base_ns"]) + round(us * 1000)


async def test_chrome_export_of_spans_reads_back_equal(sh, store, tmp_path) -> None:
    target = tmp_path / "spans-chrome.json"
    await sh.run(f"Get-Span -Session exp | Export-Trace -Format chrome -Path '{target}'")
    doc = json.loads(target.read_text())
    events, names = check_chrome(doc)
    got = sorted(
        (
            unhex(e["args"]["trace_id"]),
            unhex(e["args"]["span_id"]),
            unhex(e["args"]["parent_span_id"]),
            e["args"]["service"],
            e["name"],
            ns(doc, e["ts"]),
            round(e["dur"] * 1000),
        )
        for e in events
    )
    assert got == table(
        sh,
        "SELECT trace_id, span_id, parent_span_id, service, name, "
        "ts_start, dur_ns FROM spans WHERE session = 'exp'",
    )
    for e in events:  # every event's process and thread is named
        assert (e["pid"], 0) in names and (e["pid"], e["tid"]) in names
        assert names[(e["pid"], e["tid"])] == "trace " + e["args"]["trace_id"]


async def test_chrome_export_of_syscalls_per_thread_reads_back_equal(sh, store, tmp_path) -> None:
    target = tmp_path / "calls.json"
    [summary] = await sh.run(
        f"Get-Syscall -Node k01 | Export-Trace -Format chrome -Path '{target}'"
    )
    doc = json.loads(target.read_text())
    events, names = check_chrome(doc)
    got = sorted(
        (
            e["args"]["node"],
            e["args"]["tid"],
            e["tid"],
            e["name"],
            ns(doc, e["ts"]),
            round(e["dur"] * 1000),
            e["args"]["ret"],
        )
        for e in events
    )
    want = table(
        sh, "SELECT node, tid, tid, name, ts_entry, dur_ns, ret FROM syscalls WHERE node = 'k01'"
    )
    assert got == want and summary.Rows == len(want) > 1000
    procs = {n for (pid, tid), n in names.items() if tid == 0}
    assert all(n.endswith(" k01") for n in procs)


async def test_parquet_reads_back_equal_also_partitioned(sh, store, tmp_path) -> None:
    one = tmp_path / "spans.parquet"
    await sh.run(f"Export-Trace -Table spans -Format parquet -Path '{one}'")
    con = duckdb.connect()
    cols = f"{SPAN_COLUMNS}, annotations, keyvals, error"
    assert sorted(con.execute(f"SELECT {cols} FROM read_parquet('{one}')").fetchall()) == table(
        sh, f"SELECT {cols} FROM spans"
    )
    parts = tmp_path / "calls"
    await sh.run(
        f"sql SELECT * FROM syscalls | Export-Trace -Format parquet -Path '{parts}' "
        "-PartitionBy node"
    )
    assert {p.name for p in parts.iterdir()} == {"node=k01"}
    back = con.execute(
        f"SELECT node, tid, name, ts_entry, dur_ns, ret FROM read_parquet("
        f"'{parts}/*/*.parquet', hive_partitioning = true)"
    ).fetchall()
    assert sorted(back) == table(sh, "SELECT node, tid, name, ts_entry, dur_ns, ret FROM syscalls")


async def test_records_from_the_pipeline_export_too(sh, tmp_path) -> None:
    target = tmp_path / "records.parquet"
    await sh.run("$r = @(@{a = 1; b = 'x'}, @{a = 2; b = 'y'})")
    await sh.run(f"$r | Export-Trace -Format parquet -Path '{target}'")
    back = duckdb.connect().execute(f"SELECT a, b FROM '{target}' ORDER BY a").fetchall()
    assert back == [(1, "x"), (2, "y")]


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (
            "Get-Syscall | Export-Trace -Format zipkin -Path '{d}/x.json'",
            ("-Format zipkin needs spans", "trace_id"),
        ),
        (
            "sql SELECT 1 AS a | Export-Trace -Format chrome -Path '{d}/x.json'",
            ("-Format chrome needs spans", "system calls", "columns a"),
        ),
        (
            "Get-Span | Export-Trace -Format zipkin -Path '{d}/no/such/dir/x.json'",
            ("cannot write", "does not exist"),
        ),
        ("Export-Trace -Table nosuch -Format parquet -Path '{d}/x.parquet'", ("no table or view",)),
        (
            "Get-Span | Export-Trace -Format zipkin -Path '{d}/x.json' -PartitionBy node",
            ("-PartitionBy is for -Format parquet only",),
        ),
        (
            "Export-Trace -Table spans -Format parquet -Path '{d}/p' -PartitionBy nocol",
            ("-PartitionBy nocol", "no column"),
        ),
    ],
)
async def test_errors_are_one_clear_line(sh, tmp_path, line, words) -> None:
    with pytest.raises(FayError) as info:
        await sh.run(line.format(d=tmp_path))
    msg = info.value.one_line()
    assert "\n" not in msg and msg.startswith("<test>:1:") and "Export-Trace" in msg
    for w in words:
        assert w in msg
    assert not list(tmp_path.glob("*.json")) and not list(tmp_path.glob(".*.part"))


async def test_unwritable_targets_are_one_line(sh, tmp_path) -> None:
    """/proc takes no new files even for root; a directory or a file as parent is refused."""
    (tmp_path / "plain").write_text("x")
    cases = {
        "/proc/fayshell-export.json": "cannot write /proc/fayshell-export.json: ",
        f"{tmp_path}": f"cannot write {tmp_path}: it is a directory",
        f"{tmp_path}/plain/x.json": f"cannot write {tmp_path}/plain/x.json: "
        f"{tmp_path}/plain is not a directory",
    }
    for target, words in cases.items():
        with pytest.raises(FayError) as info:
            await sh.run(f"Get-Span | Export-Trace -Format zipkin -Path '{target}'")
        assert words in info.value.one_line() and "\n" not in info.value.one_line()


@pytest.mark.parametrize("fmt", ["zipkin"])
async def test_interrupted_export_leaves_no_file(sh, tmp_path, fmt) -> None:
    """Ctrl-C (the statement's task cancelled) while a large export runs: the worker stops at
    the next batch and removes its partial output; nothing appears under the target name."""
    import asyncio

    target = tmp_path / f"big.{fmt}"
    part = tmp_path / f".big.{fmt}.part"
    rows = (
        "SELECT range AS trace_id, range AS span_id, range * 1000 AS ts_start, "
        "1000 AS dur_ns, 'op' || (range % 7) AS name FROM range(30000000)"
    )
    run = asyncio.ensure_future(sh.run(f"sql {rows} | Export-Trace -Format {fmt} -Path '{target}'"))
    db = sh.state.database
    while not run.done() and not part.exists():  # until the export is under way
        await asyncio.sleep(0.02)
    assert not run.done()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert not target.exists() and not part.exists()
    assert db.execute("SELECT 42") == [(42,)]  # the connection is usable again


class Bar:
    """A progress task that remembers what it was told."""

    def __init__(self, description: str) -> None:
        self.description, self.total, self.done, self.closed = description, None, 0.0, False

    def advance(self, amount: float = 1.0) -> None:
        self.done += amount

    def update(self, *, completed=None, total=None, description=None) -> None:
        self.total = total if total is not None else self.total
        self.done = completed if completed is not None else self.done

    def close(self) -> None:
        self.closed = True


async def test_progress_bar_follows_the_rows(store, tmp_path) -> None:
    from fayshell.host import CaptureHost
    from fayshell.lang.interp import Interpreter
    from fayshell.state import Options, ShellState
    from tests.fixtures.shell import Shell

    bars: list[Bar] = []

    class BarHost(CaptureHost):
        def progress(self, description, total=None, unit=""):
            bars.append(Bar(description))
            return bars[-1]

    host = BarHost()
    state = ShellState(Options(database=str(store)), host)
    shell = Shell(state, host, Interpreter(state))
    try:
        [zipkin] = await shell.run(
            f"Get-Span | Export-Trace -Format zipkin -Path '{tmp_path}/s.json'"
        )
        await shell.run(
            f"Export-Trace -Table syscalls -Format parquet -Path '{tmp_path}/c.parquet'"
        )
    finally:
        await state.aclose()
    json_bar, parquet_bar = bars
    assert json_bar.description.startswith("Export-Trace zipkin")
    assert json_bar.total == json_bar.done == zipkin.Rows and json_bar.closed
    assert parquet_bar.total == parquet_bar.done == 100.0 and parquet_bar.closed
