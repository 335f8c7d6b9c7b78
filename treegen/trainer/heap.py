"""Memory handling during training: the C heap's large blocks (glibc only; elsewhere nothing).

glibc serves a block above its mmap threshold with a mapping of its own, which goes
back to the OS when freed; but each such free raises the threshold (up to 32 MB), so
that later blocks of that size come from the heap, which keeps their pages after they
are freed.  Training allocates and frees arrays of one to tens of MB, so with the
sliding threshold resident memory at 1M rows stays tens of MB above what is live.
:func:`map_large_blocks` fixes the threshold instead (``treegen train`` does), and
:func:`blocks_mapped_from` lowers it for a step.

Also Python's own memory work during long steps: :func:`collection_paused` stops the
cycle collector walking the many objects training and the rules make.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from types import TracebackType

M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter number for the mmap threshold (malloc.h)."""

M_TRIM_THRESHOLD = -1
"""glibc's ``mallopt`` parameter number for the free space at the heap's top above
which ``free`` gives it back to the OS (malloc.h)."""

LARGE_BLOCK = 1 << 24
"""The threshold :func:`map_large_blocks` sets: blocks of 16 MB and up (at 1M rows the
data's and the context's tables, the root's arrays) get their own mapping.  Growth makes
and frees arrays of 1 to 16 MB bucket after bucket; a fresh mapping for each would
fault its pages in again (at 1M rows a threshold of 1 MB cost about 2 s more of system
time, for 17 MB less at growth's peak), and
:func:`release_freed_memory` gives back what the heap
keeps between rounds."""

STEP_BLOCK = 1 << 20
"""The threshold for steps that make few large arrays and free them soon (reading in
pieces, the context's build, pruning): :func:`blocks_mapped_from` sets it for their
length."""

KEEP_ROWS = 1 << 17
"""Up to this many training rows ``treegen train`` keeps freed blocks on the heap
(:func:`freed_blocks_kept`): at 100k rows the peak is then 92 MB, not 80, within the
100 MB target, and the process takes a quarter of the page faults."""

KEEP_BYTES = 1 << 25
"""``treegen train`` keeps the heap while it reads a data file of at most this many
bytes (the bench's 100k rows: 14 MB), then as :data:`KEEP_ROWS` says: the reader's
freed pieces are reused by the steps after it instead of mapped afresh (at 100k rows
32,000 page faults a run became 19,000)."""

KEEP_TOP = 1 << 30
"""The trim threshold :func:`freed_blocks_kept` sets: the heap's free top is not
handed back during the run."""

DEFAULT_TRIM = 128 * 1024
"""glibc's own trim threshold (``DEFAULT_TRIM_THRESHOLD``), set again after
:func:`freed_blocks_kept` (with the mmap threshold fixed glibc no longer moves it)."""

_state: dict[str, Callable[[int, int], int]] = {}


def _mallopt() -> Callable[[int, int], int] | None:
    # The process's own symbols (dlopen(NULL)), as for malloc_trim below: no
    # ctypes.util.find_library (which imports subprocess and runs ldconfig).
    try:
        fn = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
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
def freed_blocks_kept() -> Iterator[None]:
    """For a small run (up to :data:`KEEP_ROWS` rows), within the block: freed blocks
    below :data:`LARGE_BLOCK` stay on the heap, its top is not trimmed, and neither
    :func:`blocks_mapped_from` nor :func:`release_freed_memory` does anything.  A block
    mapped on its own, or a heap page handed back, is faulted in again (zeroed by the
    kernel) when next used: at 100k rows 76,000 page faults a run, about 0.1 s of
    system time, with a peak of 80 MB; with the heap kept, 18,500 and 92 MB.  Nothing
    unless :func:`map_large_blocks` set a threshold."""
    fn = _state.pop("mallopt", None)
    if fn is None or not fn(M_TRIM_THRESHOLD, KEEP_TOP):
        if fn is not None:
            _state["mallopt"] = fn
        yield
        return
    fn(M_MMAP_THRESHOLD, LARGE_BLOCK)
    _state["keep"] = fn
    try:
        yield
    finally:
        del _state["keep"]
        _state["mallopt"] = fn
        fn(M_TRIM_THRESHOLD, DEFAULT_TRIM)


class SmallRunHeap:
    """:func:`freed_blocks_kept` for a run of up to :data:`KEEP_ROWS` rows, the rule
    ``treegen train`` and ``treegen rules`` share: from the start where the data file
    has at most :data:`KEEP_BYTES` bytes (``file_bytes``), then as :meth:`rows` says
    once the rows are counted; undone when the block ends."""

    def __init__(self, file_bytes: int) -> None:
        self.small_file = file_bytes <= KEEP_BYTES
        self._kept = ExitStack()

    def __enter__(self) -> SmallRunHeap:
        if self.small_file:
            self._kept.enter_context(freed_blocks_kept())
        return self

    def rows(self, n_rows: int) -> None:
        """The rows read: more than the file's size said, growth's arrays go back to
        the OS again; fewer, the heap is kept from here."""
        if self.small_file and n_rows > KEEP_ROWS:
            self._kept.close()
        elif not self.small_file and n_rows <= KEEP_ROWS:
            self._kept.enter_context(freed_blocks_kept())

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._kept.close()


@contextmanager
def blocks_mapped_from(threshold: int) -> Iterator[None]:
    """Within the block, the threshold is ``threshold`` bytes, then :data:`LARGE_BLOCK`
    again; nothing unless :func:`map_large_blocks` set one (a library caller's process
    keeps glibc's own behaviour), or within :func:`freed_blocks_kept`."""
    fn = _state.get("mallopt")
    if fn is not None:
        fn(M_MMAP_THRESHOLD, threshold)
    try:
        yield
    finally:
        if fn is not None:
            fn(M_MMAP_THRESHOLD, LARGE_BLOCK)


def _load_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none.

    Looked up in the process's own symbols (``dlopen(NULL)``), where the C library
    is: ``ctypes.util.find_library`` imported subprocess and ran ``ldconfig``, about
    0.02 s of every start.
    """
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
        return trim
    except (OSError, AttributeError, TypeError):  # not glibc: nothing to do
        return None


_TRIM = _load_trim()


def release_freed_memory() -> None:
    """Hand freed heap pages back to the OS (glibc ``malloc_trim``).

    Each level allocates and frees many arrays of a few MB, which glibc
    serves from its heap (its mmap threshold grows with use) and keeps
    after they are freed; without trimming, resident memory on 1M rows
    stays hundreds of MB above what is live.
    """
    if _TRIM is not None and "keep" not in _state:  # freed_blocks_kept: the heap stays
        _TRIM(0)


@contextmanager
def collection_paused() -> Iterator[None]:
    """Python's cycle collector paused for a step, and resumed as it was.

    Training and the rules' generalisation make objects by the ten thousand (tree
    nodes, path tests, conditions, rules), none of them in a reference cycle; each
    collection they set off walks all of them again (at 100k rows about 220
    collections, a tenth of the generalisation's time).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
