"""The C heap's handling of large blocks during training (glibc only; elsewhere nothing).

glibc serves a block above its mmap threshold with a mapping of its own, which goes
back to the OS when freed; but each such free raises the threshold (up to 32 MB), so
that later blocks of that size come from the heap, which keeps their pages after they
are freed.  Training allocates and frees arrays of one to tens of MB, so with the
sliding threshold resident memory at 1M rows stays tens of MB above what is live.
:func:`map_large_blocks` fixes the threshold instead (``treegen train`` does), and
:func:`blocks_mapped_from` lowers it for a step.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterator
from contextlib import contextmanager

M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter number for the mmap threshold (malloc.h)."""

LARGE_BLOCK = 1 << 24
"""The threshold :func:`map_large_blocks` sets: blocks of 16 MB and up (at 1M rows the
data's and the context's tables, the root's arrays) get their own mapping.  Growth makes
and frees arrays of 1 to 16 MB bucket after bucket; a fresh mapping for each would
fault its pages in again (at 1M rows a threshold of 1 MB cost about 2 s more of system
time, for 17 MB less at growth's peak), and
:func:`treegen.trainer.levelwise.grow.release_freed_memory` gives back what the heap
keeps between rounds."""

STEP_BLOCK = 1 << 20
"""The threshold for steps that make few large arrays and free them soon (reading in
pieces, the context's build, pruning): :func:`blocks_mapped_from` sets it for their
length."""

_state: dict[str, Callable[[int, int], int]] = {}


def _mallopt() -> Callable[[int, int], int] | None:
    # In the process's own symbols (dlopen(NULL)), where the C library is, as
    # levelwise/grow.py finds malloc_trim: ctypes.util.find_library imported subprocess
    # and ran ldconfig at every start (about 0.01 s of CPU).
    try:
        fn = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # not glibc
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_int]
    fn.restype = ctypes.c_int
    setter: Callable[[int, int], int] = fn
    return setter


def map_large_blocks(threshold: int = LARGE_BLOCK) -> bool:
    """Give every block of at least ``threshold`` bytes its own mapping, returned to the
    OS when freed, for the rest of the process (``mallopt(M_MMAP_THRESHOLD)``, which
    also stops glibc raising the threshold), and let :func:`blocks_mapped_from` move
    it.  False where the C library has no ``mallopt`` (not glibc) or refuses the value."""
    fn = _mallopt()
    if fn is None or not fn(M_MMAP_THRESHOLD, threshold):
        return False
    _state["mallopt"] = fn
    return True


@contextmanager
def blocks_mapped_from(threshold: int) -> Iterator[None]:
    """Within the block, the threshold is ``threshold`` bytes, then :data:`LARGE_BLOCK`
    again; nothing unless :func:`map_large_blocks` set one (a library caller's process
    keeps glibc's own behaviour)."""
    fn = _state.get("mallopt")
    if fn is not None:
        fn(M_MMAP_THRESHOLD, threshold)
    try:
        yield
    finally:
        if fn is not None:
            fn(M_MMAP_THRESHOLD, LARGE_BLOCK)
