"""The context's continuous values row by row while growth runs below the root.

The context keeps them one attribute a row (``Context.cvals``, (Kc, n_rows + 1)): a
column is what pruning, the thresholds' scan and the reference engine read.  Growth's
gathers read all Kc values of cases scattered over every row, one cache line a value
from the columns: at 1M rows the buckets of 2^15 cases took 70 ns a case.  So after
the root is split, growth holds the values row by row (``Context.cvals_rows``, one or
two cache lines a case) instead, and gives the columns back when it ends.  Only one
table is held at a time (each is 40 MB at 1M rows, and the memory target leaves no
room for both through growth): the columns go once the rows are copied, and the rows'
pages go back block by block as the columns are made again.
"""

from __future__ import annotations

import mmap

import numpy as np
import numpy.typing as npt

from treegen.trainer import native, sparse
from treegen.trainer.context import Context

ROW_BLOCK = 1 << 16
"""Rows copied at a time between the layouts."""


def can_hold_by_row(ctx: Context) -> bool:
    """Whether growth reads only the C gathers and routing while the rows are held:
    the C scan (not numpy's, nor the sparse one of many classes), and c45 (J48's
    thresholds scan a column as they are placed)."""
    return (
        native.cscan is not None
        and ctx.c_scan
        and not ctx.j48
        and ctx.cvals.size > 0
        and ctx.cvals_rows is None
        and not (ctx.n_classes >= sparse.MANY_CLASSES and sparse.available(ctx))
    )


def values_by_row(ctx: Context) -> None:
    """Hold ``ctx``'s values row by row (``cvals_rows``) instead of by column
    (``cvals`` is then empty: a reader of it fails its bounds check) until
    :func:`values_by_column`; nothing where :func:`can_hold_by_row` says no."""
    if not can_hold_by_row(ctx):
        return
    cols = ctx.cvals
    kc, n1 = cols.shape
    ctx.rows_map, rows = _mapped((n1, kc), cols.dtype)
    for lo in range(0, n1, ROW_BLOCK):
        rows[lo : lo + ROW_BLOCK] = cols[:, lo : lo + ROW_BLOCK].T
    ctx.cvals_rows = rows
    ctx.cvals = np.empty((kc, 0), dtype=cols.dtype)


def values_by_column(ctx: Context) -> None:
    """Give ``ctx`` its values by column again (nothing unless held by row), the rows'
    pages handed back as each block is copied."""
    rows = ctx.cvals_rows
    if rows is None:
        return
    n1, kc = rows.shape
    cols = np.empty((kc, n1), dtype=rows.dtype)
    buf = ctx.rows_map
    item = kc * rows.itemsize
    freed = 0  # the rows' bytes handed back so far (whole pages copied)
    for lo in range(0, n1, ROW_BLOCK):
        hi = min(n1, lo + ROW_BLOCK)
        cols[:, lo:hi] = rows[lo:hi].T
        end = hi * item - hi * item % mmap.PAGESIZE
        if buf is not None and hasattr(mmap, "MADV_DONTNEED") and end > freed:
            buf.madvise(mmap.MADV_DONTNEED, freed, end - freed)
            freed = end
    ctx.cvals = cols
    ctx.cvals_rows = ctx.rows_map = None


def value_table(ctx: Context) -> tuple[npt.NDArray[np.floating], int]:
    """The table the C kernels read the values from, and its width: the rows' (width
    Kc), or the columns' (width 0, as the kernels take it)."""
    if ctx.cvals_rows is not None:
        return ctx.cvals_rows, ctx.cvals_rows.shape[1]
    return ctx.cvals, 0


def _mapped(
    shape: tuple[int, int], dtype: np.dtype[np.floating]
) -> tuple[mmap.mmap | None, npt.NDArray[np.floating]]:
    """An array in an anonymous private mapping of its own (its pages can be given back a
    block at a time) and the mapping, or np.empty's and None where the platform has no
    such mapping."""
    size = shape[0] * shape[1] * dtype.itemsize
    flags = getattr(mmap, "MAP_PRIVATE", None), getattr(mmap, "MAP_ANONYMOUS", None)
    if flags[0] is None or flags[1] is None or size == 0:
        return None, np.empty(shape, dtype=dtype)
    buf = mmap.mmap(-1, size, flags=flags[0] | flags[1])
    huge = getattr(mmap, "MADV_HUGEPAGE", None)
    if huge is not None:
        # Huge pages where the kernel gives them, as numpy asks for its large arrays (the
        # columns' table among them): with 4 KB pages the gathers of cases scattered
        # over 40 MB missed the TLB too (the routing took 0.1 s more at 1M rows).
        try:
            buf.madvise(huge)
        except OSError:
            pass
    return buf, np.frombuffer(buf, dtype=dtype).reshape(shape)
