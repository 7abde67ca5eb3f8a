"""Syscall pairing on decoded batches, with numpy, before the rows reach DuckDB.

Within one CPU's stream the running thread only changes at sched_switch, so an entry followed by
an exit of the same thread with no switch between is a complete syscall: paired here, in bulk.
What cannot be decided locally (the first and last syscall of each run of a thread, i.e. calls
that block across a switch or a batch/chunk boundary) goes on as "edge" rows that SQL pairs per
thread in time order (see derived.py). Dangling halves inside a run are dropped, as a global
per-thread pairing would drop them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from fayshell.ctf.types import EventClass

_ENTRY = re.compile(r"^(?:compat_)?syscall_entry_(.+)$|^sys_(.+)$")
_EXIT = re.compile(r"^(?:compat_)?syscall_exit_(.+)$|^exit_syscall$")
OTHER, ENTRY, EXIT, SWITCH = 0, 1, 2, 3


def classify(classes: list[EventClass]) -> tuple[list[int], list[str], list[int]]:
    """Per class: kind, and the syscall name index (names list)."""
    kinds: list[int] = []
    sysid: list[int] = []
    names: list[str] = []
    index: dict[str, int] = {}
    for ev in classes:
        m = _ENTRY.match(ev.name)
        kind, name = (ENTRY, m.group(1) or m.group(2)) if m else (OTHER, "")
        if kind == OTHER:
            m = _EXIT.match(ev.name)
            if m:
                kind, name = EXIT, m.group(1) or ""
        if ev.name == "sched_switch":
            kind = SWITCH
        kinds.append(kind)
        if kind in (ENTRY, EXIT):
            if name not in index:
                index[name] = len(names)
                names.append(name)
            sysid.append(index[name])
        else:
            sysid.append(-1)
    return kinds, names, sysid


@dataclass
class Carry:
    """The running thread of a stream's CPU at the end of the last batch seen."""

    tid: int | None = None
    comm: str | None = None
    cpu: int | None = None


@dataclass
class SyscallStager:
    """Turns batches into paired ``pairs`` rows and undecided ``edges`` rows (Arrow)."""

    classes: list[EventClass]
    start: dict[int, tuple[int | None, str | None]] = field(default_factory=dict)
    carry: dict[str, Carry] = field(default_factory=dict)
    pairs: list[pa.Table] = field(default_factory=list)
    edges: list[pa.Table] = field(default_factory=list)

    def __post_init__(self) -> None:
        import numpy as np

        kinds, self.names, sysid = classify(self.classes)
        self.kind = np.array(kinds or [0], dtype=np.int8)
        self.sysid = np.array(sysid or [-1], dtype=np.int32)
        self.switch_cls = [i for i, k in enumerate(kinds) if k == SWITCH]
        self.relevant = any(k in (ENTRY, EXIT) for k in kinds)

    def add(self, stream: str, common: pa.Table, payload: dict[int, pa.Table], eid0: int,
            tid_col: str | None) -> None:
        """Stage one batch of one stream (rows in stream order, eids from ``eid0``)."""
        import numpy as np

        if not self.relevant or common.num_rows == 0:
            return
        cls = common.column("cls").to_numpy()
        kind = self.kind[cls]
        carry = self.carry.setdefault(stream, Carry())
        cpu = common.column("cpu").to_numpy(zero_copy_only=False)
        if carry.cpu is None:
            carry.cpu = int(cpu[0]) if len(cpu) and cpu[0] == cpu[0] else None
            carry.tid, carry.comm = self.start.get(carry.cpu if carry.cpu is not None else -1,
                                                   (None, None))
        tid, comm, swpos = self._running(kind, cls, payload, carry)
        if tid_col is not None:
            ctx = common.column(tid_col).to_numpy(zero_copy_only=False)
            tid = np.where(np.isnan(ctx), tid, ctx) if ctx.dtype.kind == "f" else ctx
        sc = np.nonzero((kind == ENTRY) | (kind == EXIT))[0]
        if len(sc) == 0:
            return
        k, t = kind[sc], tid[sc]
        run = swpos[sc]
        new = np.ones(len(sc), bool)
        new[1:] = (run[1:] != run[:-1]) | (t[1:] != t[:-1])
        pair = (k[:-1] == ENTRY) & (k[1:] == EXIT) & ~new[1:]
        local = np.zeros(len(sc), bool)
        local[:-1] |= pair
        local[1:] |= pair
        last = np.ones(len(sc), bool)
        last[:-1] = new[1:]
        ts = common.column("ts").to_numpy()
        ret = self._ret(common.num_rows, payload)
        e_at, x_at = sc[:-1][pair], sc[1:][pair]
        self.pairs.append(self._rows(cpu[e_at], tid[e_at], comm, e_at, self.sysid[cls[e_at]],
                                     ts[e_at], ts[x_at], ret[x_at]))
        ed = sc[new | last]
        self.edges.append(self._edges(cpu[ed], tid[ed], comm, ed, kind[ed], self.sysid[cls[ed]],
                                      ts[ed], ret[ed], local[new | last], eid0 + ed))

    def _running(self, kind: np.ndarray, cls: np.ndarray, payload: dict[int, pa.Table],
                 carry: Carry) -> tuple[np.ndarray, _Names, np.ndarray]:
        """Thread id and name running at each row, and the run number (switches so far)."""
        import numpy as np
        import pyarrow as pa

        n = len(kind)
        sw_rows: list[np.ndarray] = []
        sw_tid: list[np.ndarray] = []
        sw_comm: list[pa.Array] = []
        for c in self.switch_cls:
            t = payload.get(c)
            if t is not None and t.num_rows:
                sw_rows.append(t.column("row").to_numpy())
                sw_tid.append(t.column("next_tid").to_numpy().astype(np.int64))
                sw_comm.append(t.column("next_comm").combine_chunks())
        rows = np.concatenate(sw_rows) if sw_rows else np.zeros(0, np.int64)
        order = np.argsort(rows, kind="stable")
        rows = rows[order]
        tids = np.concatenate(sw_tid)[order] if sw_tid else np.zeros(0, np.int64)
        comms = pa.concat_arrays(sw_comm) if sw_comm else pa.array([], pa.string())
        if len(sw_comm) > 1:
            comms = comms.take(pa.array(order))
        idx = np.full(n, -1, np.int64)
        idx[rows] = np.arange(len(rows))
        last = np.maximum.accumulate(idx) if n else idx
        start_tid = -1 if carry.tid is None else carry.tid
        tid = np.where(last >= 0, tids[np.maximum(last, 0)] if len(tids) else start_tid,
                       start_tid)
        # names stay indexed (last + 1 into [carried name, switch names...]) until needed
        comm = _Names(pa.concat_arrays([pa.array([carry.comm], pa.string()), comms]), last + 1)
        if len(rows):
            carry.tid, carry.comm = int(tids[-1]), comms[-1].as_py()
        swpos = np.cumsum(kind == SWITCH)
        return tid, comm, swpos

    def _ret(self, n: int, payload: dict[int, pa.Table]) -> np.ndarray:
        import numpy as np

        ret = np.zeros(n, np.int64)
        for c, t in payload.items():
            if self.kind[c] == EXIT and "ret" in t.column_names and t.num_rows:
                ret[t.column("row").to_numpy()] = t.column("ret").to_numpy(
                    zero_copy_only=False).astype(np.int64)
        return ret

    def _names(self, ids: np.ndarray) -> pa.Array:
        import pyarrow as pa

        return pa.DictionaryArray.from_arrays(pa.array(ids, pa.int32()),
                                              pa.array(self.names or [""], pa.string()))

    def _rows(self, cpu: np.ndarray, tid: np.ndarray, comm: _Names, at: np.ndarray,
              sysid: np.ndarray, t0: np.ndarray, t1: np.ndarray, ret: np.ndarray) -> pa.Table:
        import pyarrow as pa

        return pa.table({"cpu": pa.array(cpu, pa.int32()), "tid": _tid(tid),
                         "procname": comm.at(at), "name": self._names(sysid),
                         "ts_entry": pa.array(t0), "ts_exit": pa.array(t1),
                         "dur_ns": pa.array(t1 - t0), "ret": pa.array(ret)})

    def _edges(self, cpu: np.ndarray, tid: np.ndarray, comm: _Names, at: np.ndarray,
               kind: np.ndarray, sysid: np.ndarray, ts: np.ndarray, ret: np.ndarray,
               local: np.ndarray, eid: np.ndarray) -> pa.Table:
        import pyarrow as pa

        return pa.table({"cpu": pa.array(cpu, pa.int32()), "tid": _tid(tid),
                         "procname": comm.at(at), "kind": pa.array(kind, pa.int8()),
                         "sysname": self._names(sysid), "ts": pa.array(ts),
                         "ret": pa.array(ret), "local": pa.array(local), "eid": pa.array(eid)})

    def take(self) -> tuple[pa.Table | None, pa.Table | None]:
        """The staged pairs and edges (and forget them)."""
        import pyarrow as pa

        pairs = pa.concat_tables(self.pairs) if self.pairs else None
        edges = pa.concat_tables(self.edges) if self.edges else None
        self.pairs, self.edges = [], []
        return pairs, edges

    def end_state(self) -> list[tuple[int, int | None, str | None]]:
        """(cpu, tid, comm) running at the end of each stream (for the next chunk)."""
        return [(c.cpu, c.tid, c.comm) for c in self.carry.values()
                if c.cpu is not None and c.tid is not None]


@dataclass
class _Names:
    """Thread names by row, kept as an index into a small array of distinct values."""

    values: pa.Array
    index: np.ndarray

    def at(self, rows: np.ndarray) -> pa.Array:
        import pyarrow as pa

        return pa.DictionaryArray.from_arrays(pa.array(self.index[rows], pa.int32()),
                                              self.values)


def _tid(tid: Any) -> pa.Array:
    import pyarrow as pa

    return pa.array(tid, pa.int64(), mask=tid < 0)
