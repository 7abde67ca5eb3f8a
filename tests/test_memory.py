"""The allocator settings of fayshell.memory, on this machine's real C library."""

from __future__ import annotations

import platform
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
