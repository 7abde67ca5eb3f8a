"""The agent process itself (``python -m fayshell.agent``), driven through the shell's client."""

from __future__ import annotations

import asyncio
import io
import os
import platform
import shutil
import struct
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from fayshell.agent import protocol as p
from fayshell.remote.agentclient import AgentClient, AgentError, LocalAgentProcess
from fayshell.store.database import Database
from fayshell.store.loader import import_trace

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = (
    "SELECT node, session, name, count(*) AS calls, sum(dur_ns) AS total, "
    "min(dur_ns) AS lo, max(dur_ns) AS hi FROM syscalls GROUP BY ALL ORDER BY name"
)


async def start(cache: Path, home: Path) -> AgentClient:
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)}
    proc = await LocalAgentProcess.start(
        [sys.executable, "-B", "-m", "fayshell.agent", "--cache", str(cache)], env
    )
    return AgentClient("node01", proc)


@pytest.fixture
async def agent(tmp_path: Path) -> AsyncIterator[AgentClient]:
    client = await start(tmp_path / "cache", tmp_path / "home")
    await client.hello()
    yield client
    await client.close()


async def test_hello_reports_version_python_and_arch(tmp_path: Path) -> None:
    client = await start(tmp_path / "cache", tmp_path / "home")
    try:
        with pytest.raises(AgentError, match="Query before Hello"):
            await client.query("SELECT 1")
        w = await client.hello()
        assert (w.version, w.python, w.arch) == (1, platform.python_version(), platform.machine())
        assert w.store == str(tmp_path / "cache" / "store.duckdb")
    finally:
        await client.close()
    assert client.proc.proc.returncode == 0  # type: ignore[attr-defined]


async def test_import_is_incremental_and_matches_the_shell_store(
    agent: AgentClient, session_dir: Path, tmp_path: Path
) -> None:
    first = await agent.import_session(str(session_dir), "incident", stopped=False)
    assert (first.chunks, first.skipped, first.errors) == (3, 0, [])
    again = await agent.import_session(str(session_dir), "incident", stopped=False)
    assert (again.chunks, again.skipped, again.events) == (0, 3, 0)
    on_node = (await agent.query(SUMMARY)).table()
    db = Database.open(str(tmp_path / "shell.duckdb"))
    for chunk in sorted((session_dir / "archives").iterdir()):
        import_trace(db, chunk / "kernel", node="node01", session="incident")
    shell = db.con.sql(SUMMARY).to_arrow_table()
    assert on_node.num_rows > 3
    assert on_node.equals(shell)
    assert first.events == db.execute("SELECT count(*) FROM events")[0][0]


async def test_bad_requests_are_errors_and_the_store_survives(
    agent: AgentClient, session_dir: Path
) -> None:
    await agent.import_session(str(session_dir), "incident", stopped=False)
    before = (await agent.query("SELECT count(*) AS n FROM syscalls")).table()
    with pytest.raises(AgentError, match="node01: agent: .*syntax error"):
        await agent.query("SELEC nonsense")
    with pytest.raises(AgentError, match="exactly one SELECT query \\(got DROP\\)"):
        await agent.query("DROP TABLE syscalls")
    with pytest.raises(AgentError, match="exactly one SELECT"):
        await agent.query("SELECT 1; DELETE FROM syscalls")
    with pytest.raises(AgentError, match="no such session directory"):
        await agent.import_session("/nonexistent/session", "x", stopped=True)
    assert (await agent.query("SELECT count(*) AS n FROM syscalls")).table().equals(before)


#: Days of work for DuckDB: answered only if the cancel stopped it (else the test times out).
ENDLESS = "SELECT count(*) FROM range(9000000000000000000) a"


async def test_cancel_interrupts_a_running_query(agent: AgentClient) -> None:
    """Cancelled right after it is sent (the Cancel then reaches the agent before DuckDB has
    begun the query, which forgets an interrupt that comes that early), five times over."""
    for n in range(5):
        task = asyncio.ensure_future(agent.query(ENDLESS))
        while not agent.waiting:
            await asyncio.sleep(0)  # the request is on its way
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        answer = await agent.query(f"SELECT {n} AS x")  # the agent is free: the query stopped
        assert answer.table().column("x").to_pylist() == [n]


async def test_cancel_while_the_query_runs(agent: AgentClient) -> None:
    task = asyncio.ensure_future(agent.query(ENDLESS))
    await asyncio.sleep(0.5)  # well into the query (either way it must stop)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (await agent.query("SELECT 42 AS x")).table().column("x").to_pylist() == [42]


async def test_malformed_frame_ends_the_agent_with_one_error(tmp_path: Path) -> None:
    client = await start(tmp_path / "cache", tmp_path / "home")
    await client.hello()
    client.proc.write(p.encode(p.Query(1, "SELECT 1")) + b"JUNK" + struct.pack(">BI", 1, 0))
    await client.proc.drain()
    await asyncio.wait_for(client.reader, 30)
    assert client.dead is not None
    assert "protocol error at byte" in client.dead.message
    await client.close()
    assert client.proc.proc.returncode == 0  # type: ignore[attr-defined]


async def test_agent_exits_when_stdin_closes_and_writes_only_its_cache(
    tmp_path: Path, session_dir: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    client = await start(tmp_path / "cache", home)
    await client.hello()
    await client.import_session(str(session_dir), "incident", stopped=False)
    client.proc.write_eof()  # no Bye: just the end of stdin
    await client.proc.wait(30)
    assert client.proc.proc.returncode == 0  # type: ignore[attr-defined]
    assert list(home.iterdir()) == []
    written = {f.name for f in (tmp_path / "cache").iterdir()}
    assert written <= {"store.duckdb", "store.duckdb.wal", "store.duckdb.tmp"}


async def test_bundled_agent_runs_on_the_system_python(
    agent_bundle, session_dir: Path, tmp_path: Path
) -> None:  # noqa: ANN001
    """The bundle alone (no shell environment: ``python3 -I``) imports, loads and answers."""
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = await LocalAgentProcess.start(
        ["/usr/bin/python3", "-I", "-B", str(agent_bundle.path / "agent.py")], env
    )
    client = AgentClient("node01", proc)
    try:
        w = await client.hello()
        assert w.python.startswith("3.11")
        done = await client.import_session(str(session_dir), "incident", stopped=False)
        assert done.chunks == 3 and done.errors == []
        res = (await client.query("SELECT count(*) AS n FROM syscalls")).table()
        assert res.column("n")[0].as_py() > 0
    finally:
        await client.close()
    store = agent_bundle.path / "store"
    assert (store / "store.duckdb").is_file()  # its store lives inside the bundle
    shutil.rmtree(store)


async def test_new_chunks_are_seen_after_an_unchanged_listing(
    agent: AgentClient, session_dir: Path, tmp_path: Path
) -> None:
    from tests.agent.conftest import make_session_dir

    await agent.import_session(str(session_dir), "incident", stopped=False)
    same = await agent.import_session(str(session_dir), "incident", stopped=False)
    assert (same.chunks, same.skipped) == (0, 3)
    other = make_session_dir(tmp_path / "other", chunks=1, events=5_000, seed=9)
    (chunk,) = (other / "archives").iterdir()
    shutil.move(
        str(chunk), session_dir / "archives" / "20261124T051000+0000-20261124T051100+0000-7"
    )
    more = await agent.import_session(str(session_dir), "incident", stopped=False)
    assert (more.chunks, more.skipped) == (1, 3)


async def test_a_loaded_chunk_is_not_opened_again(
    agent: AgentClient, session_dir: Path, tmp_path: Path
) -> None:
    """A live view imports every second: a finished chunk already loaded (same files, same
    sizes) is skipped without being opened, so the cost of an import follows the new chunks,
    not the session's length. Here the loaded chunks' metadata is made unreadable (same size):
    opening them would fail; they are skipped, and a new chunk still loads."""
    from tests.agent.conftest import make_session_dir

    await agent.import_session(str(session_dir), "incident", stopped=False)
    for meta in (session_dir / "archives").glob("*/kernel/metadata"):
        meta.write_bytes(b"\0" * meta.stat().st_size)
    other = make_session_dir(tmp_path / "other", chunks=1, events=5_000, seed=9)
    (chunk,) = (other / "archives").iterdir()
    shutil.move(
        str(chunk), session_dir / "archives" / "20261124T051000+0000-20261124T051100+0000-7"
    )
    more = await agent.import_session(str(session_dir), "incident", stopped=False)
    assert (more.chunks, more.skipped, more.errors) == (1, 3, [])


async def test_import_and_queries_go_together_and_answer_in_order(
    agent: AgentClient, session_dir: Path
) -> None:
    """One round trip: the import, then each query, answered in the order sent."""
    done, (calls, names) = await agent.import_and_query(
        str(session_dir),
        "incident",
        False,
        ("SELECT count(*) AS n FROM syscalls", "SELECT DISTINCT name FROM syscalls ORDER BY 1"),
    )
    assert (done.chunks, done.errors) == (3, [])
    alone = (await agent.query("SELECT count(*) AS n FROM syscalls")).table()
    assert calls.table().equals(alone) and alone.column("n")[0].as_py() > 0
    assert names.table().num_rows == len(set(names.table().column("name").to_pylist())) > 1
    with pytest.raises(AgentError, match="no such session directory"):
        await agent.import_and_query("/nonexistent/session", "x", True, ("SELECT 1",))
    with pytest.raises(AgentError, match="exactly one SELECT"):
        await agent.import_and_query(str(session_dir), "incident", False, ("DROP TABLE x",))
    again, (same,) = await agent.import_and_query(
        str(session_dir), "incident", False, ("SELECT count(*) AS n FROM syscalls",)
    )
    assert (again.chunks, again.skipped) == (0, 3) and same.table().equals(alone)


class Writes(io.BytesIO):
    """An agent's stdout that counts the writes reaching it."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, data: Any) -> int:
        self.writes += 1
        return super().write(data)


def test_answers_to_requests_queued_together_leave_in_one_write(tmp_path: Path) -> None:
    from fayshell.agent.server import Agent, AgentSettings

    out = Writes()
    r, w = os.pipe()  # a stdin that stays open (its end would cancel what runs)
    with open(r, "rb") as stdin, open(w, "wb") as end:
        agent = Agent(AgentSettings(tmp_path / "cache"), stdin, out)
        for frame in (p.Hello([1], "x"), p.Query(1, "SELECT 1 AS a"), p.Query(2, "SELECT 2 AS b")):
            agent.requests.put(frame)  # queued before serving, as if read at once
        agent.requests.put(None)
        assert agent.serve() == 0
        end.close()
    frames = list(p.iter_frames(out.getvalue()))
    assert [type(f).__name__ for f in frames] == ["Welcome", "Result", "Result"]
    assert [f.table().column(0).to_pylist() for f in frames[1:]] == [[1], [2]]  # type: ignore[attr-defined]
    assert out.writes == 1
