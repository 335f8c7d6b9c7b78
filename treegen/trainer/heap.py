"""The C heap's handling of large blocks during training (glibc only; elsewhere nothing).

glibc serves a block above its mmap threshold with a mapping of its own, which goes
back to the OS when freed; but each such free raises the threshold (up to 32 MB), so
that later blocks of that size come from the heap, which keeps their pages after they
are freed.  Growth and pruning allocate and free many arrays of one to tens of MB, so
with the sliding threshold resident memory at 1M rows stays tens of MB above what is
live (about 40 MB at growth's peak and at pruning's).  :func:`map_large_blocks` fixes
the threshold instead.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter number for the mmap threshold (malloc.h)."""

LARGE_BLOCK = 1 << 20
"""Blocks of at least this many bytes get a mapping of their own (a 1M-row array of
one byte per row and up)."""


def map_large_blocks(threshold: int = LARGE_BLOCK) -> bool:
    """Give every block of at least ``threshold`` bytes its own mapping, returned to the
    OS when freed, for the rest of the process (``mallopt(M_MMAP_THRESHOLD)``, which
    also stops glibc raising the threshold).  False where the C library has no
    ``mallopt`` (not glibc) or refuses the value."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, threshold))
