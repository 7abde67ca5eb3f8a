"""The process's memory: a command reuses the memory it freed; the shell gives it back after.

glibc serves big allocations (32 MiB and more at most, by its own adaptive rule) with a fresh
``mmap`` each and unmaps them when freed, so an import that builds and drops large temporaries
(decoded batches, pairing arrays) pays a page fault for every page of every temporary, again and
again. On a virtual machine a fault costs far more than on bare metal (about 0.45 s per GiB
touched measured on the development VM, where babeltrace2 reading the same trace stays in 60 MiB).
:func:`reuse_freed_memory` lets glibc keep freed memory for the next allocation instead, and
:func:`give_back` returns what is free to the system once a command is over (the REPL calls it
before each prompt, the live views after each refresh), so an idle shell does not sit on the
peak of its last import.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache

#: mallopt parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

#: Allocations below this come from the heap, where freed memory is reused.
REUSE_BELOW = 512 << 20
#: Free memory at the top of the heap kept for the next allocation (beyond it, given back).
KEEP_FREE = 1 << 30


@cache
def _libc() -> ctypes.CDLL | None:
    """The C library when it is glibc (mallopt and malloc_trim are glibc's), else None."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.gnu_get_libc_version  # noqa: B018  (raises AttributeError on other C libraries)
    except (OSError, AttributeError):
        return None
    return libc


def reuse_freed_memory() -> bool:
    """Let freed memory serve the next allocation (True when the C library is glibc)."""
    libc = _libc()
    if libc is None:
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, REUSE_BELOW)) and bool(
        libc.mallopt(M_TRIM_THRESHOLD, KEEP_FREE)
    )


def give_back() -> bool:
    """Return the memory malloc holds free to the system (True when some was returned)."""
    libc = _libc()
    return libc is not None and bool(libc.malloc_trim(0))


class _Mallinfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2``: ten size_t fields in this order."""

    _fields_ = [  # noqa: RUF012  (ctypes declares a structure's layout this way)
        (n, ctypes.c_size_t)
        for n in [
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        ]
    ]


def mallinfo() -> tuple[int, int] | None:
    """Bytes malloc has handed out (heap and mmapped) and bytes it holds free, over every
    arena (glibc's mallinfo2); None on another C library or a glibc before 2.33."""
    libc = _libc()
    fn = getattr(libc, "mallinfo2", None)
    if fn is None:
        return None
    fn.restype = _Mallinfo2
    m = fn()
    return m.uordblks + m.hblkhd, m.fordblks + m.fsmblks
