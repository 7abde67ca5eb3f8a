"""Helpers for the differential tests: babeltrace2's view and ours of the same trace."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from fayshell.ctf.decode import stream_readers
from fayshell.ctf.trace import open_trace

BT2_PYTHON = "/usr/bin/python3"
HERE = Path(__file__).parent
SHARED = Path(__file__).resolve().parents[3] / "shared" / "traces"
REAL_TRACES = ("kernel-many-threads", "kernel-be-flipping-endianness", "ust-ros2")


@dataclass
class View:
    """A trace as a sorted list of canonical event lines plus the loss counters."""

    lines: list[str]
    discarded_events: int
    discarded_packets: int


def canon(name: str, ts: int, cpu: int | None, ctx: dict[str, Any], payload: dict[str, Any]) -> str:
    """One event as a JSON line; nested structures flattened as our columns are (a_b)."""
    return json.dumps([name, ts, cpu, _flat(ctx), _flat(payload)], sort_keys=True)


def _flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}_"))
        elif v is not None:  # our columns of variant options not taken are NULL
            out[prefix + k] = v
    return out


_RUNNING: dict[str, subprocess.Popen[str]] = {}


def prefetch(*paths: str) -> None:
    """Start babeltrace2 on ``paths`` in the background (they run while other tests do)."""
    for path in paths:
        if path not in _RUNNING:
            _RUNNING[path] = subprocess.Popen(
                [BT2_PYTHON, str(HERE / "bt2dump.py"), path],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )


@lru_cache(maxsize=16)
def _bt2_output(path: str) -> list[str]:
    prefetch(path)
    proc = _RUNNING.pop(path)
    stdout, stderr = proc.communicate()
    assert proc.returncode == 0, stderr
    return stdout.splitlines()


@lru_cache(maxsize=8)
def bt2_raw(path: str) -> list[list[Any]]:
    """babeltrace2's events in its order: [name, ns, cpu, context, payload] each."""
    return [json.loads(line) for line in _bt2_output(path)[:-1]]


def bt2_view(path: str) -> View:
    """babeltrace2 (bt2 Python bindings under the system python) reading ``path``."""
    out = _bt2_output(path)
    tail = json.loads(out[-1])
    lines = sorted(canon(*json.loads(line)) for line in out[:-1])
    return View(lines, tail["discarded_events"], tail["discarded_packets"])


def fay_view(path: str, prefer_c: bool) -> View:
    """Our decoder reading ``path``, through the same canonical form."""
    trace = open_trace(path)
    lines: list[str] = []
    disc = lost = 0
    for reader in stream_readers(trace, prefer_c=prefer_c, batch_rows=50_000):
        for batch in reader.batches():
            lines.extend(_batch_lines(trace, batch))
        assert reader.stats.error is None, reader.stats.error
        disc += reader.stats.discarded
        lost += reader.stats.lost_packets
    return View(sorted(lines), disc, lost)


def _batch_lines(trace: Any, batch: Any) -> list[str]:
    common = batch.common.to_pydict()
    n = len(common["ts"])
    ctx_names = [c for c in common if c not in ("ts", "cls", "cpu")]
    per_row: list[tuple[dict[str, Any], dict[str, Any]]] = [({}, {}) for _ in range(n)]
    for cls, table in batch.payload.items():
        prog = _program_of(trace, batch.stream_id, cls)
        nctx = {c.name for c in prog.columns[: prog.context_columns]}
        data = table.to_pydict()
        for i, row in enumerate(data["row"]):
            ectx, pay = per_row[row]
            for k, vals in data.items():
                if k != "row":
                    (ectx if k in nctx else pay)[k] = vals[i]
    out = []
    for i in range(n):
        ctx = {k: common[k][i] for k in ctx_names}
        ctx.update(per_row[i][0])
        out.append(
            canon(
                trace.classes[common["cls"][i]].name,
                common["ts"][i],
                common["cpu"][i],
                ctx,
                per_row[i][1],
            )
        )
    return out


def _program_of(trace: Any, stream_id: int, cls: int) -> Any:
    sc = trace.streams[stream_id]
    for eid, g in sc.class_of_id.items():
        if g == cls:
            return sc.events.classes[eid]
    raise KeyError(cls)
