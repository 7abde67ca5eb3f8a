"""The allocator settings of fayshell.memory, on this machine's real C library."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from fayshell import memory


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


glibc = pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc", reason="mallopt and malloc_trim are glibc's"
)


@glibc
def test_freed_memory_is_reused_and_given_back_after_the_command() -> None:
    import numpy as np

    assert memory.reuse_freed_memory()
    before = rss_kib()
    big = np.ones(64 << 20, np.uint8)  # 64 MiB: below REUSE_BELOW, so from the heap
    touched = rss_kib()
    del big
    kept = rss_kib()  # freed but kept for the next allocation (below KEEP_FREE)
    assert touched - before > 60 << 10
    assert kept - before > 60 << 10
    assert memory.give_back()
    assert rss_kib() - before < 16 << 10


@glibc
def test_mallinfo_counts_a_live_allocation_and_its_release() -> None:
    import ctypes

    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    got = memory.mallinfo()
    assert got is not None
    p = libc.malloc(8 << 20)  # 8 MiB held: counted as in use wherever glibc serves it
    held = memory.mallinfo()
    libc.free(p)
    after = memory.mallinfo()
    assert held is not None and after is not None
    assert held[0] - got[0] >= 8 << 20
    assert held[0] - after[0] >= 8 << 20


#: Eight threads each holding a malloc'd block at the same moment, then glibc's malloc_stats
#: (one "Arena N:" paragraph per arena, on stderr); argv[1] "limited" applies fayshell's
#: settings first, as the shell does at start.
ARENA_PROBE = """
import ctypes, sys, threading
from fayshell import memory
if sys.argv[1] == "limited":
    assert memory.reuse_freed_memory()
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
together = threading.Barrier(8)
def hold():
    block = libc.malloc(4096)
    together.wait()
    libc.free(block)
threads = [threading.Thread(target=hold) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
libc.malloc_stats()
"""


def arenas(mode: str) -> int:
    run = subprocess.run(
        [sys.executable, "-c", ARENA_PROBE, mode], capture_output=True, text=True, check=True
    )
    return sum(line.startswith("Arena ") for line in run.stderr.splitlines())


@glibc
def test_threads_share_at_most_the_set_number_of_arenas() -> None:
    assert arenas("default") > memory.ARENAS  # glibc's own limit lets eight threads spread
    assert 1 <= arenas("limited") <= memory.ARENAS
