"""Where a continuous test's threshold lands: the largest training value not above its
midpoint (docs/C45.md section 1 step 8).

:func:`cut_for` places one threshold (a binary search in the attribute's distinct
values; J48's ``setSplitPoint`` scan in file order where values lie closer than
``J48_TOL``); :func:`cuts_below` places a bucket's thresholds of one attribute at once
(through the presorted rows where c45 keeps no distinct values, in C where built);
:func:`cuts_by_scan` places many at once in one pass over the column, once growth
has let the presorted rows go.  The state they read is the
:class:`~treegen.trainer.context.Context`'s.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL

# (SAMPLE and CODE_BLOCK read at call time through the module: tests shrink them.)
from treegen.trainer import context as _context
from treegen.trainer import native
from treegen.trainer.context import Context, IntArray


def cut_for(ctx: Context, att: int, bar: float) -> float:
    """Largest training value of ``att`` not above ``bar`` (section 1.8).

    J48's ``setSplitPoint`` accepts values up to ``bar`` within ``J48_TOL``.
    """
    if not ctx.j48 and att not in ctx.distinct:
        return float(cuts_below(ctx, att, np.asarray([bar]))[0])
    d = ctx.distinct[att]
    limit = bar + J48_TOL if ctx.j48 else bar
    # In d's own type: a Python float would make numpy convert all of d
    # to double on every call.  A c45 midpoint is a float32 value, exact.
    key = d.dtype.type(limit)
    assert float(key) == limit or ctx.j48
    i = int(np.searchsorted(d, key, side="right")) - 1
    if ctx.j48:
        while i >= 0 and not (float(d[i]) - bar < J48_TOL):
            i -= 1
        if i > 0 and float(d[i]) - float(d[i - 1]) <= J48_TOL:
            return _weka_split_point(ctx, att, bar)
    assert i >= 0, "midpoint lies above a training value by construction"
    return float(d[i])


def _weka_split_point(ctx: Context, att: int, bar: float) -> float:
    """J48's ``setSplitPoint`` as written: a scan of the values in file order.

    A value replaces the one kept when it is more than ``J48_TOL`` above
    it and less than ``J48_TOL`` above ``bar`` (``Utils.gr``,
    ``Utils.smOrEq``), so among values closer than ``J48_TOL`` the file
    order decides.  The result lies within ``J48_TOL`` below the largest
    such value, which ``cut_for`` returns when no other value is that
    close; it calls this scan only otherwise.
    """
    col = ctx.file_values.get(att)
    if col is None:
        col = ctx.value_col(att)[: ctx.n_rows]
    # NaN: not eligible; a difference that overflows (values of opposite signs near
    # DBL_MAX) is +-inf, as in Java, and compares as it should.
    with np.errstate(invalid="ignore", over="ignore"):
        eligible = col[(col.astype(np.float64) - bar) < J48_TOL]
    cut = -float(np.finfo(np.float64).max)
    for v in eligible.astype(np.float64).tolist():
        if v - cut > J48_TOL:
            cut = v
    return cut


def cuts_below(ctx: Context, att: int, bars: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """For each of ``bars`` (c45: float32 midpoints), the largest training value of
    ``att`` not above it, as :func:`cut_for` gives it: the first of its equal values
    in value order (0.0 and -0.0 are equal; the first met, by row, is the one).

    Found through the presorted rows: the blocks of
    :data:`~treegen.trainer.context.SAMPLE` rows from their first values, then within
    one block, in a few numpy calls for all bars."""
    d = ctx.distinct.get(att)
    if d is not None:
        key = np.asarray(bars).astype(d.dtype)
        i = np.searchsorted(d, key, side="right") - 1
        assert (i >= 0).all(), "midpoint lies above a training value by construction"
        return d[i]
    j = ctx.cont_pos[att]
    col = ctx.cvals[j]
    start = int(ctx.presorted_len[:j].sum())
    srt = ctx.sorted_flat[start : start + int(ctx.presorted_len[j])]
    sample = ctx.samples[j]
    key = np.asarray(bars).astype(col.dtype)
    if native.cscan is not None and col.dtype == np.float32:
        # The same search in C, by bisection (this is called once a bucket with a
        # few midpoints, where numpy's calls cost more than their work).
        out = np.empty(key.size, dtype=np.float32)
        native.cscan.cuts_below(
            np.ascontiguousarray(col),
            col.size,
            np.ascontiguousarray(srt),
            np.ascontiguousarray(sample),
            _context.SAMPLE,
            key,
            out,
        )
        return out
    # The last value not above key: in the last block whose first value is not.
    b = np.searchsorted(sample, key, side="right") - 1
    assert (b >= 0).all(), "midpoint lies above a training value by construction"
    i = b * _context.SAMPLE + np.count_nonzero(_block(col, srt, b) <= key[:, None], axis=1) - 1
    val: npt.NDArray[np.floating] = col[srt[i]]
    # The first of its equal values, which differs from val only for a zero (0.0
    # and -0.0): in the block before the first whose first value is not below it
    # (or at the very start).
    zero = np.flatnonzero(val == 0)
    if zero.size == 0:
        return val
    b2 = np.searchsorted(sample, val[zero], side="left") - 1
    first = np.where(
        b2 < 0,
        0,
        np.maximum(b2, 0) * _context.SAMPLE
        + np.count_nonzero(_block(col, srt, np.maximum(b2, 0)) < val[zero][:, None], axis=1),
    )
    val[zero] = col[srt[first]]
    return val


def _block(
    col: npt.NDArray[np.floating], srt: npt.NDArray[np.int32], b: IntArray
) -> npt.NDArray[np.floating]:
    """The values of blocks ``b`` of ``srt`` (one row each), padded with +inf."""
    pos = b[:, None] * _context.SAMPLE + np.arange(_context.SAMPLE)[None, :]
    inside = pos < srt.size
    vals = col[srt[np.minimum(pos, max(srt.size - 1, 0))]]
    return np.where(inside, vals, col.dtype.type(np.inf))


def cuts_by_scan(
    ctx: Context, att: int, bars: npt.NDArray[np.floating]
) -> npt.NDArray[np.floating]:
    """:func:`cuts_below` for many ``bars`` at once (c45: float32 midpoints) without
    the presorted rows: one pass over the column,
    :data:`~treegen.trainer.context.CODE_BLOCK` rows at a time, each value kept as the
    largest below the first bar not under it; then the largest so far, bar after bar.
    A zero is the column's first by row (0.0 or -0.0), as :func:`cuts_below` gives it."""
    col = ctx.value_col(att)[: ctx.n_rows]
    want = np.asarray(bars).astype(col.dtype)
    key = np.unique(want)  # ascending; a known value v counts for the bars >= v
    best = np.full(key.size + 1, -np.inf, dtype=col.dtype)
    if native.cscan is not None and col.dtype == np.float32 and key.size:
        # The same maxima in C (numpy's searchsorted of a million values into a
        # few thousand bars took 0.09 s an attribute at 1M rows).
        native.cscan.cuts_by_scan(np.ascontiguousarray(col), key, best[:-1])
    else:
        for lo in range(0, col.size, _context.CODE_BLOCK):
            vals = col[lo : lo + _context.CODE_BLOCK]
            # NaN (unknown) sorts after every bar: it lands in the spare last slot.
            with np.errstate(invalid="ignore"):
                np.maximum.at(best, np.searchsorted(key, vals, side="left"), vals)
    below = np.maximum.accumulate(best[:-1])
    out: npt.NDArray[np.floating] = below[np.searchsorted(key, want, side="left")]
    assert (out > -np.inf).all(), "midpoint lies above a training value by construction"
    zero = out == 0
    if zero.any():
        out[zero] = col[int(np.flatnonzero(col == 0)[0])]
    return out
