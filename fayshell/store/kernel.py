"""Syscall pairing on decoded batches, with numpy, before the rows reach DuckDB.

Within one CPU's stream the running thread only changes at sched_switch, so an entry followed by
an exit of the same thread with no switch between is a complete syscall: paired here, in bulk
(one pass of the compiled pair_scan of fayshell.store._algos, or numpy), and written straight into ``syscalls``
with the flushes (pid from the thread facts known then; tids whose facts change later in the
chunk are fixed at its end; rows without a switch name wait in fay_pairs for ``threads``).
What cannot be decided locally goes on as one fay_runs row per run of a thread between
switches (its first and last syscall: an exit opening the run may close the previous run's last
entry, maybe on another CPU), paired per thread in time order at the chunk's end (derived.py).
Dangling halves inside a run are dropped, as a global per-thread pairing would drop them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from fayshell.store.arrowsql import int_column, valid_mask
from fayshell.store.writer import Insert

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from fayshell.ctf.types import EventClass

ENTRY_RE = re.compile(r"^(?:compat_)?syscall_entry_(.+)$|^sys_(.+)$")
EXIT_RE = re.compile(r"^(?:compat_)?syscall_exit_(.+)$|^exit_syscall$")
OTHER, ENTRY, EXIT, SWITCH = 0, 1, 2, 3


@dataclass
class Interned:
    """Names numbered in order of appearance: syscall names (fay_runs.tname) and thread names
    (fay_runs.tprocname)."""

    values: list[str] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)

    @overload
    def id(self, name: str) -> int: ...

    @overload
    def id(self, name: None) -> None: ...

    def id(self, name: str | None) -> int | None:
        """The number of ``name`` (given one when new); None stays None."""
        if name is None:
            return None
        n = self.ids.get(name)
        if n is None:
            n = self.ids[name] = len(self.values)
            self.values.append(name)
        return n


def classify(classes: list[EventClass]) -> tuple[list[int], Interned, list[int]]:
    """Per class: kind, and the number of its syscall name in the returned names (-1: none)."""
    kinds: list[int] = []
    sysid: list[int] = []
    names = Interned()
    for ev in classes:
        m = ENTRY_RE.match(ev.name)
        kind, name = (ENTRY, m.group(1) or m.group(2)) if m else (OTHER, "")
        if kind == OTHER:
            m = EXIT_RE.match(ev.name)
            if m:
                kind, name = EXIT, m.group(1) or ""
        if ev.name == "sched_switch":
            kind = SWITCH
        kinds.append(kind)
        sysid.append(names.id(name) if kind in (ENTRY, EXIT) else -1)
    return kinds, names, sysid


@dataclass
class Carry:
    """The running thread of a stream's CPU at the end of the last batch seen."""

    tid: int | None = None
    comm: str | None = None
    cpu: int | None = None


#: Thread facts (tid -> pid) of a chunk: event name -> (tid field, pid field), as update_threads.
FACT_EVENTS = {
    "lttng_statedump_process_state": ("tid", "pid"),
    "sched_process_fork": ("child_tid", "child_pid"),
}


@dataclass
class ThreadFact:
    """The latest (by ts) pid seen for a tid."""

    ts: int
    pid: int


@dataclass
class StagedOutcome:
    """What the stager leaves to the chunk's final transaction (see derived.staged_syscalls)."""

    ok: bool  # stream-local pairing held: the staged rows are right
    rowid_lo: int  # syscalls rows at or past this rowid were written by this chunk
    cpu_end: list[tuple[int, int | None, str | None]]
    stale_tids: list[int]  # tids written with a pid that is not their final one
    names: list[str] = field(default_factory=list)  # fay_runs.tname ids
    comms: list[str] = field(default_factory=list)  # fay_runs.tprocname ids


@dataclass
class SyscallStager:
    """Turns batches into ``syscalls`` rows, ``fay_pairs`` rows (local pairs whose procname
    must come from ``threads``) and ``fay_runs`` rows (undecided run ends), all Arrow."""

    classes: list[EventClass]
    compiled: bool = True  # the compiled pair_scan when built (False: numpy)
    start: dict[int, tuple[int | None, str | None]] = field(default_factory=dict)
    carry: dict[str, Carry] = field(default_factory=dict)
    facts: dict[int, ThreadFact] = field(default_factory=dict)
    rowid_lo: int = 0
    ok: bool = True
    direct: list[pa.Table] = field(default_factory=list)
    direct_tid: list[np.ndarray] = field(default_factory=list)
    pairs: list[pa.Table] = field(default_factory=list)
    runs: list[pa.Table] = field(default_factory=list)
    written: dict[int, set[int | None]] = field(default_factory=dict)
    comms: Interned = field(default_factory=Interned)

    def __post_init__(self) -> None:
        import numpy as np

        kinds, self.names, sysid = classify(self.classes)
        self.kind = np.array(kinds or [0], dtype=np.int8)
        self.sysid = np.array(sysid or [-1], dtype=np.int32)
        self.switch_cls = [i for i, k in enumerate(kinds) if k == SWITCH]
        self.fact_cls = {
            i: FACT_EVENTS[ev.name] for i, ev in enumerate(self.classes) if ev.name in FACT_EVENTS
        }
        self.relevant = any(k in (ENTRY, EXIT) for k in kinds)

    def add(
        self,
        stream: str,
        common: pa.Table,
        payload: dict[int, pa.Table],
        eid0: int,
        tid_col: str | None,
    ) -> None:
        """Stage one batch of one stream (rows in stream order, eids from ``eid0``)."""
        import numpy as np

        if not self.relevant or common.num_rows == 0:
            return
        ts = common.column("ts").to_numpy()
        self._learn(payload, ts)
        cls = common.column("cls").to_numpy()
        cpu = common.column("cpu").to_numpy(zero_copy_only=False)
        carry = self._carry(stream, cpu)
        tid, comm, last = self._running(len(cls), payload, carry)
        if not self.ok:
            return
        if tid_col is not None:
            ctx = common.column(tid_col).to_numpy(zero_copy_only=False)
            tid = np.where(np.isnan(ctx), tid, ctx) if ctx.dtype.kind == "f" else ctx
        scan = scan_batch(cls, self.kind, tid.astype(np.int64, copy=False), last, self.compiled)
        if len(scan.heads) == 0:
            return
        ret = self._ret(common.num_rows, payload)
        nameless = comm.nameless(scan.entries)
        for to, keep in ((self.direct, ~nameless), (self.pairs, nameless)):
            e, x = scan.entries[keep], scan.exits[keep]
            if len(e):
                to.append(
                    self._rows(cpu[e], tid[e], comm, e, self.sysid[cls[e]], ts[e], ts[x], ret[x])
                )
                if to is self.direct:
                    self.direct_tid.append(tid[e])
        h, tl = scan.heads, scan.tails
        self.runs.append(
            self._runs(
                tid[h],
                cpu[h],
                self.kind[cls[h]],
                ts[h],
                eid0 + h,
                ret[h],
                self.kind[cls[tl]],
                ts[tl],
                self.sysid[cls[tl]],
                comm.ids(tl, self.comms),
            )
        )

    def _carry(self, stream: str, cpu: np.ndarray) -> Carry:
        """The stream's carried state; a stream without a CPU of its own stops the fast path."""
        carry = self.carry.get(stream)
        if carry is None:
            carry = self.carry[stream] = Carry()
            carry.cpu = int(cpu[0]) if len(cpu) and cpu[0] == cpu[0] else None
            carry.tid, carry.comm = self.start.get(
                carry.cpu if carry.cpu is not None else -1, (None, None)
            )
            others = [c.cpu for c in self.carry.values() if c is not carry]
            if carry.cpu is None or carry.cpu in others:
                self.ok = False
        return carry

    def _learn(self, payload: dict[int, pa.Table], ts: np.ndarray) -> None:
        """Keep the latest pid of each tid from statedump and fork events (tiny)."""
        for c, (tcol, pcol) in self.fact_cls.items():
            t = payload.get(c)
            if (
                t is None
                or not t.num_rows
                or tcol not in t.column_names
                or pcol not in t.column_names
            ):
                continue
            at = ts[t.column("row").to_numpy()].tolist()
            for when, tid, pid in zip(
                at, t.column(tcol).to_pylist(), t.column(pcol).to_pylist(), strict=True
            ):
                if tid is None or pid is None:
                    continue
                old = self.facts.get(tid)
                if old is None or when >= old.ts:
                    self.facts[tid] = ThreadFact(when, pid)

    def _running(
        self, n: int, payload: dict[int, pa.Table], carry: Carry
    ) -> tuple[np.ndarray, _Names, np.ndarray]:
        """Thread id and name running at each row, and the run number (switches so far)."""
        import numpy as np
        import pyarrow as pa

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
        tids = np.concatenate(sw_tid) if sw_tid else np.zeros(0, np.int64)
        comms = pa.concat_arrays(sw_comm) if sw_comm else pa.array([], pa.string())
        if len(sw_rows) > 1:
            order = np.argsort(rows, kind="stable")
            rows, tids, comms = rows[order], tids[order], comms.take(pa.array(order))
        swpos = np.zeros(n, np.int64)
        swpos[rows] = 1
        last = np.cumsum(swpos) - 1  # index of the last switch at or before each row
        start_tid = -1 if carry.tid is None else carry.tid
        tid = tids[np.maximum(last, 0)] if len(tids) else np.full(n, start_tid, np.int64)
        if len(tids):
            tid[last < 0] = start_tid
        # names stay indexed (last + 1 into [carried name, switch names...]) until needed
        comm = _Names(pa.concat_arrays([pa.array([carry.comm], pa.string()), comms]), last + 1)
        if len(rows):
            carry.tid, carry.comm = int(tids[-1]), comms[-1].as_py()
        return tid, comm, last

    def _ret(self, n: int, payload: dict[int, pa.Table]) -> np.ndarray:
        import numpy as np

        ret = np.zeros(n, np.int64)
        for c, t in payload.items():
            if self.kind[c] == EXIT and "ret" in t.column_names and t.num_rows:
                ret[t.column("row").to_numpy()] = (
                    t.column("ret").to_numpy(zero_copy_only=False).astype(np.int64)
                )
        return ret

    def _names(self, ids: np.ndarray) -> pa.Array:
        import pyarrow as pa

        return pa.DictionaryArray.from_arrays(
            pa.array(ids, pa.int32()), pa.array(self.names.values or [""], pa.string())
        )

    def _rows(
        self,
        cpu: np.ndarray,
        tid: np.ndarray,
        comm: _Names,
        at: np.ndarray,
        sysid: np.ndarray,
        t0: np.ndarray,
        t1: np.ndarray,
        ret: np.ndarray,
    ) -> pa.Table:
        import pyarrow as pa

        return pa.table(
            {
                "cpu": pa.array(cpu, pa.int32()),
                "tid": _tid(tid),
                "procname": comm.at(at),
                "name": self._names(sysid),
                "ts_entry": pa.array(t0),
                "ts_exit": pa.array(t1),
                "dur_ns": pa.array(t1 - t0),
                "ret": pa.array(ret),
            }
        )

    @staticmethod
    def _runs(
        tid: np.ndarray,
        cpu: np.ndarray,
        hkind: np.ndarray,
        hts: np.ndarray,
        heid: np.ndarray,
        hret: np.ndarray,
        tkind: np.ndarray,
        tts: np.ndarray,
        tname: np.ndarray,
        tprocname: pa.Array,
    ) -> pa.Table:
        """One row per run: its head (first syscall) and tail (last syscall); names as ids
        (``names``, ``comms``) so that SQL orders and pairs them on numbers alone."""
        import pyarrow as pa

        return pa.table(
            {
                "tid": _tid(tid),
                "cpu": pa.array(cpu, pa.int32()),
                "hkind": pa.array(hkind, pa.int8()),
                "hts": pa.array(hts),
                "heid": pa.array(heid),
                "hret": pa.array(hret),
                "tkind": pa.array(tkind, pa.int8()),
                "tts": pa.array(tts),
                "tname": pa.array(tname, pa.int32()),
                "tprocname": tprocname,
            }
        )

    def carry_pending(
        self, rows: list[tuple[int | None, int | None, int | None, str | None, str, int]]
    ) -> None:
        """Open entries of earlier chunks (cpu, tid, pid, procname, name, ts) as run rows."""
        import numpy as np
        import pyarrow as pa

        if not rows:
            return
        cpu, tid, pid, procname, name, ts = (list(c) for c in zip(*rows, strict=True))
        ts_a = pa.array(ts, pa.int64())
        one = pa.array(np.full(len(rows), ENTRY, np.int8))
        self.runs.append(
            pa.table(
                {
                    "tid": pa.array(tid, pa.int64()),
                    "cpu": pa.array(cpu, pa.int32()),
                    "hkind": one,
                    "hts": ts_a,
                    "heid": pa.array(np.full(len(rows), -1, np.int64)),
                    "hret": pa.nulls(len(rows), pa.int64()),
                    "tkind": one,
                    "tts": ts_a,
                    "tname": pa.array([self.names.id(n) for n in name], pa.int32()),
                    "tprocname": pa.array([self.comms.id(c) for c in procname], pa.int32()),
                    "pid": pa.array(pid, pa.int64()),
                }
            )
        )

    def take(self, node: str, session: str) -> list[Insert]:
        """The inserts of what was staged since the last call (and forget it)."""
        import pyarrow as pa

        out: list[Insert] = []
        rows = self.resolved()  # the loader's RowGroupHold sizes the actual appends
        if rows is not None:
            out.append(Insert("syscalls", rows, "? AS node, ? AS session, *", [node, session]))
        if self.pairs:
            out.append(Insert("fay_pairs", pa.concat_tables(self.pairs)))
        if self.runs:
            out.append(Insert("fay_runs", pa.concat_tables(self.runs, promote_options="default")))
        self.pairs, self.runs = [], []
        return out

    def resolved(self) -> pa.Table | None:
        """The ``syscalls`` rows staged so far, with their pids (and forget them)."""
        import numpy as np
        import pyarrow as pa

        if not self.direct:
            return None
        rows = pa.concat_tables(self.direct)
        tid = np.concatenate(self.direct_tid).astype(np.int64, copy=False)
        self.direct, self.direct_tid = [], []
        return rows.add_column(2, "pid", self._pids(tid))

    def _pids(self, tid: np.ndarray) -> pa.Array:
        """The pid each tid (-1: none) has by the facts known now (remembered, to fix later)."""
        import numpy as np
        import pyarrow as pa

        keys = np.fromiter(self.facts.keys(), np.int64, len(self.facts))
        vals = np.fromiter((f.pid for f in self.facts.values()), np.int64, len(self.facts))
        pos = _positions(keys, tid)
        hit = pos >= 0
        used = np.flatnonzero(np.bincount(pos[hit], minlength=len(keys)))
        for t, v in zip(keys[used].tolist(), vals[used].tolist(), strict=True):
            self.written.setdefault(t, set()).add(v)  # to fix at the end if the pid changes
        for t in _distinct(tid[~hit & (tid >= 0)]).tolist():
            self.written.setdefault(t, set()).add(None)
        pid = vals[np.maximum(pos, 0)] if len(keys) else np.zeros(len(tid), np.int64)
        return pa.array(pid, pa.int64(), mask=~hit)

    def outcome(self, ok: bool) -> StagedOutcome:
        """The chunk's end: whether the staged rows hold, and what the last SQL must fix."""
        stale = [
            t
            for t, pids in self.written.items()
            if pids != {self.facts[t].pid if t in self.facts else None}
        ]
        return StagedOutcome(
            ok and self.ok,
            self.rowid_lo,
            self.end_state(),
            sorted(stale),
            list(self.names.values),
            list(self.comms.values),
        )

    def end_state(self) -> list[tuple[int, int | None, str | None]]:
        """(cpu, tid, comm) running at the end of each stream (for the next chunk)."""
        return [
            (c.cpu, c.tid, c.comm)
            for c in self.carry.values()
            if c.cpu is not None and c.tid is not None
        ]


#: Thread ids below this are looked up in a table indexed by tid (Linux's pid_max is 2**22).
DENSE_TIDS = 1 << 23


def _positions(keys: np.ndarray, tid: np.ndarray) -> np.ndarray:
    """Where each ``tid`` is in ``keys`` (distinct), -1 when absent or negative."""
    import numpy as np

    if not len(keys) or not len(tid):
        return np.full(len(tid), -1, np.int64)
    top = int(max(keys.max(), tid.max()))
    if keys.min() >= 0 and top < DENSE_TIDS:
        table = np.full(top + 2, -1, np.int64)  # the last slot answers negative tids
        table[keys] = np.arange(len(keys))
        return table[np.where(tid >= 0, tid, top + 1)]
    order = np.argsort(keys)
    at = np.minimum(np.searchsorted(keys[order], tid), len(keys) - 1)
    return np.where((keys[order][at] == tid) & (tid >= 0), order[at], -1)


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct non-negative ``values``, sorted (a flag per value when they are small)."""
    import numpy as np

    if not len(values) or values.max() >= DENSE_TIDS or values.min() < 0:
        return np.unique(values)
    seen = np.zeros(int(values.max()) + 1, bool)
    seen[values] = True
    return np.flatnonzero(seen)


@dataclass
class Scan:
    """Row indices one pass over a batch finds: each local pair's entry and exit (adjacent
    syscalls of one run), and each run's first and last syscall."""

    entries: np.ndarray
    exits: np.ndarray
    heads: np.ndarray
    tails: np.ndarray


def scan_batch(
    cls: np.ndarray, kinds: np.ndarray, tid: np.ndarray, run: np.ndarray, use_c: bool = True
) -> Scan:
    """Pairs and run ends of a batch: with the compiled pair_scan when built, else numpy."""
    import numpy as np

    if use_c:
        try:
            from fayshell.store._algos import pair_scan
        except ImportError:
            pass
        else:
            parts = pair_scan(
                np.ascontiguousarray(cls, np.int32),
                np.ascontiguousarray(kinds, np.int8),
                np.ascontiguousarray(tid, np.int64),
                np.ascontiguousarray(run, np.int64),
            )
            e, x, h, t = (np.frombuffer(b, np.int64) for b in parts)
            return Scan(e, x, h, t)
    return _scan_numpy(cls, kinds, tid, run)


def _scan_numpy(cls: np.ndarray, kinds: np.ndarray, tid: np.ndarray, run: np.ndarray) -> Scan:
    """scan_batch without the C extension."""
    import numpy as np

    kind = kinds[cls]
    sc = np.flatnonzero((kind == ENTRY) | (kind == EXIT))
    if len(sc) == 0:
        empty = np.zeros(0, np.int64)
        return Scan(empty, empty, empty, empty)
    k, t, r = kind[sc], tid[sc], run[sc]
    new = np.ones(len(sc), bool)
    new[1:] = (r[1:] != r[:-1]) | (t[1:] != t[:-1])
    pair = (k[:-1] == ENTRY) & (k[1:] == EXIT) & ~new[1:]
    heads = np.flatnonzero(new)
    return Scan(sc[:-1][pair], sc[1:][pair], sc[heads], sc[np.append(heads[1:] - 1, len(sc) - 1)])


@dataclass
class _Names:
    """Thread names by row, kept as an index into a small array of distinct values."""

    values: pa.Array
    index: np.ndarray

    def at(self, rows: np.ndarray) -> pa.Array:
        import pyarrow as pa

        return pa.DictionaryArray.from_arrays(pa.array(self.index[rows], pa.int32()), self.values)

    def ids(self, rows: np.ndarray, interned: Interned) -> pa.Array:
        """The names of ``rows`` as ``interned`` numbers."""
        import numpy as np
        import pyarrow as pa

        enc = self.values.dictionary_encode()
        known = [interned.id(v) for v in enc.dictionary.to_pylist()]
        lut = np.array([-1 if v is None else v for v in known] + [-1], np.int64)
        at = enc.indices.fill_null(len(known)).to_numpy()
        out = lut[at[self.index[rows]]]
        return pa.array(out, pa.int32(), mask=out < 0)

    def nameless(self, rows: np.ndarray) -> np.ndarray:
        """Which of ``rows`` have no name (procname must then come from ``threads``)."""
        valid = valid_mask(self.values)
        return ~valid[self.index[rows]]


def _tid(tid: Any) -> pa.Array:
    import pyarrow as pa

    return pa.array(tid, pa.int64(), mask=tid < 0)


#: What pair_runs adds to each run row: the previous run's tail (lag) and the next run's
#: head kind (lead), per thread in time order, as derived.PAIR_RUNS_SELECT names them.
LAGGED = {
    "p_kind": "tkind",
    "p_ts": "tts",
    "p_name": "tname",
    "p_cpu": "cpu",
    "p_procname": "tprocname",
    "p_pid": "pid",
}


def pair_runs(runs: pa.Table) -> pa.Table:
    """derived.PAIR_RUNS_SELECT in numpy (one sort, no window functions): the runs of each
    thread (``-1 - cpu`` when the tid is unknown) in (hts, heid) order, kept where a run's
    head exit closes the previous run's tail entry, or a thread's last run ends in an entry."""
    import numpy as np
    import pyarrow as pa

    runs = runs.combine_chunks()
    tid = runs.column("tid")
    cpu = np.asarray(runs.column("cpu").to_numpy(zero_copy_only=False), np.int64)
    key = np.where(valid_mask(tid), int_column(runs, "tid"), -1 - cpu)
    order = np.lexsort((int_column(runs, "heid"), int_column(runs, "hts"), key))
    k = key[order]
    first = np.ones(len(k), bool)
    first[1:] = k[1:] != k[:-1]
    last = np.append(first[1:], True)
    hkind, tkind = int_column(runs, "hkind")[order], int_column(runs, "tkind")[order]
    prev_entry = np.append(False, tkind[:-1] == ENTRY) & ~first
    kept = np.flatnonzero(((hkind == EXIT) & prev_entry) | (last & (tkind == ENTRY)))
    rows = order[kept]
    before = pa.array(order[np.maximum(kept - 1, 0)], mask=first[kept])
    after = pa.array(order[np.minimum(kept + 1, len(k) - 1)], mask=last[kept])
    out = runs.take(pa.array(rows))
    for name, col in LAGGED.items():
        out = out.append_column(name, runs.column(col).take(before))
    return out.append_column("n_kind", runs.column("hkind").take(after))
