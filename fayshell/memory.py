"""The process's memory: a command reuses the memory it freed; the shell gives it back after.

glibc serves big allocations (32 MiB and more at most, by its own adaptive rule) with a fresh
``mmap`` each and unmaps them when freed, so an import that builds and drops large temporaries
(decoded batches, pairing arrays) pays a page fault for every page of every temporary, again and
again. On a virtual machine a fault costs far more than on bare metal (about 0.45 s per GiB
touched measured on the development VM, where babeltrace2 reading the same trace stays in 60 MiB).
:func:`reuse_freed_memory` lets glibc keep freed memory for the next allocation instead, and
:func:`give_back` returns what is free to the system once a command is over (the REPL calls it
before each prompt, the live views after each refresh), so an idle shell does not sit on the
peak of its last import. It also keeps glibc to :data:`ARENAS` arenas: by default each thread
that allocates gets its own (up to eight per core), and memory freed in one arena serves only
that arena's threads, so a live view's threads (event loop, writer, decoders) each sat on their
own free memory, growing with the run.
"""

from __future__ import annotations

import ctypes
from functools import cache

#: mallopt parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8

#: Allocations below this come from the heap, where freed memory is reused.
REUSE_BELOW = 512 << 20
#: Free memory at the top of the heap kept for the next allocation (beyond it, given back).
KEEP_FREE = 1 << 30
#: malloc arenas at most. Measured in two 12-minute soaks (bench/soak.py, 8 nodes): glibc's free
#: memory 24 -> 7 MiB and the RSS slope after warm-up +2.03 -> +0.73 MiB/min.
ARENAS = 2


@cache
def _libc() -> ctypes.CDLL | None:
    """The C library when it is glibc (mallopt and malloc_trim are glibc's), else None. The
    symbols the interpreter already has: ``ctypes.util.find_library`` would run ``ldconfig -p``
    in a child process at every start (about 25 ms before any answer)."""
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (raises AttributeError on other C libraries)
    except (OSError, AttributeError):
        return None
    return libc


def reuse_freed_memory() -> bool:
    """Let freed memory serve the next allocation, of any thread (True when the C library is
    glibc). Call it before threads start: an arena made already stays."""
    libc = _libc()
    if libc is None:
        return False
    settings = (
        (M_MMAP_THRESHOLD, REUSE_BELOW),
        (M_TRIM_THRESHOLD, KEEP_FREE),
        (M_ARENA_MAX, ARENAS),
    )
    return all([libc.mallopt(param, value) for param, value in settings])  # every one tried


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
