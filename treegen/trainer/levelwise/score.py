"""Scoring continuous attributes through the C accelerator (``native.cscan``).

The C path of :func:`treegen.trainer.splits.eval_continuous`: segments (one
node x attribute, its known cases in value order) are not padded into a
2-D array but scanned in C, which does the running sums and candidate tests.
For c45, ``scan_best`` does the scan, the logs (numpy's, called from C a block
of cuts at a time, so they are the numpy path's, bit for bit; only for the cuts
that bounds from an approximate log2 do not rule out) and the pick of each
segment's best cut in one pass, whatever the segment's length: no cut is written
out.  For j48, ``scan_cont_j48`` writes
the candidates' log inputs out, chunk by chunk, numpy takes their logs and
``best_cuts_j48`` picks with J48's rules.  What stays numpy is the per-segment
arithmetic the numpy path does the same way
(:func:`~treegen.trainer.splits.finish_c45` shows the formulas), in
:mod:`~treegen.trainer.levelwise.cutpick` with the segments' and chunks' records.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.trainer import native
from treegen.trainer.context import Context, IntArray
from treegen.trainer.levelwise.cutpick import Chunk, Pick, Segments, best_j48, finish_c45
from treegen.trainer.splits import ContScores, FloatArray

# Cases scored per C call by ``scan_cont_j48``, about: their scratch arrays
# (Context.work) are reused from call to call, so they are kept small.  (c45's
# ``scan_best`` takes a bucket's segments in one call; those longer than this
# copy their cases out into a scratch reused from attribute to attribute.)
NATIVE_CHUNK = 1 << 17
# The log inputs held at once by ``scan_best`` (doubles; their logs as many): a block of
# cuts whose logs numpy takes while it is in cache, then each cut's TotalInfo and
# penalised gain (128 KB each: in a core's L2 beside the scan's records).
LOG_BLOCK = 1 << 14


@dataclass(frozen=True, slots=True)
class LogBlock:
    """``scan_best``'s block: the log inputs of up to ``LOG_BLOCK // (2C + 2)`` cuts
    (scratch) and, in ``lg``, the inputs of the cuts that can win, logged in place
    (every one a valid log input: no NaN or negative, so no warning)."""

    x: npt.NDArray[np.float64]
    lg: npt.NDArray[np.float64]

    @staticmethod
    def of(ctx: Context) -> LogBlock:
        """The block for ``ctx``'s classes, about :data:`LOG_BLOCK` doubles of each."""
        rows = 2 * ctx.n_classes + 2
        size = max(LOG_BLOCK // rows, 1) * rows
        x = ctx.work.get("log_x", size, np.float64)
        x.fill(1.0)
        return LogBlock(x, ctx.work.get("log_lg", size, np.float64))


def _scan_chunks(
    ctx: Context,
    segs: Segments,
    ms: FloatArray,
    bound: FloatArray,
    enough: npt.NDArray[np.uint8],
) -> Iterator[Chunk]:
    """Run ``scan_cont_j48`` chunk by chunk.

    Per segment, ``ms`` is its MinSplit, ``bound`` the flavour's upper limit
    on LowItems and ``enough`` whether it has cases enough to split at all.
    Chunks are whole segments, about NATIVE_CHUNK cases, so the
    candidate arrays stay small enough to reuse; a chunk's arrays are let go
    before the next chunk's are made (a segment alone can be larger).
    """
    lib = native.cscan
    assert lib is not None
    rec, seg_att, flat = segs.rec, segs.att, segs.flat
    seg_len, seg_start = segs.length, segs.start
    dt = rec.dtype.type
    C = ctx.n_classes
    R = seg_att.size
    n1, rs = rec.shape
    ends = np.cumsum(seg_len)
    lo = 0
    while lo < R:
        hi = int(np.searchsorted(ends, ends[lo] - seg_len[lo] + NATIVE_CHUNK, side="right"))
        hi = min(max(hi, lo + 1), R)
        cap = max(int(ends[hi - 1] - seg_start[lo]), 1)
        kk = ctx.work.get("kk", cap, np.intp)
        ii = ctx.work.get("ii", cap, np.intp)
        low = ctx.work.get(f"low_{dt.__name__}", cap, dt)
        tot = np.empty((hi - lo, C), dtype=dt)
        x = ctx.work.get("x", cap * (2 * C + 2), np.float64)
        n = lib.scan_cont_j48(
            rec,
            n1,
            rs,
            rs - 2,
            flat,
            seg_start[lo:hi],
            seg_len[lo:hi],
            seg_att[lo:hi],
            np.ascontiguousarray(ms[lo:hi]),
            np.ascontiguousarray(bound[lo:hi]),
            np.ascontiguousarray(enough[lo:hi]),
            C,
            kk,
            ii,
            low,
            x,
            tot,
            np.ascontiguousarray(segs.off[lo:hi]),
        )
        if n:
            tries = np.bincount(kk[:n], minlength=hi - lo)
            yield Chunk(lo, hi, n, kk[:n], ii, low, x[: n * (2 * C + 2)], tot, tries)
        del kk, ii, low, x, tot  # the caller has let the chunk go too
        lo = hi


def scan_scratch(
    longest: int, scratch: npt.NDArray[np.uint8] | None = None
) -> npt.NDArray[np.uint8]:
    """``scratch`` where it holds the scan of a segment of ``longest`` cases, else a new
    one (its bytes a case as the C accelerator states them: cscan.h ``SCAN_SCRATCH``)."""
    lib = native.cscan
    assert lib is not None
    size = longest * int(lib.SCAN_SCRATCH_FLOAT)
    if scratch is not None and scratch.size >= size:
        return scratch
    return np.empty(size, dtype=np.uint8)


def eval_continuous_flat(
    ctx: Context,
    rec: FloatArray,
    seg_att: IntArray,
    flat: npt.NDArray[np.integer],
    seg_len: IntArray,
    cases: FloatArray,
    unknown_w: FloatArray,
    seg_off: IntArray | None = None,
    scratch: npt.NDArray[np.uint8] | None = None,
) -> ContScores:
    """``splits.eval_continuous`` through the C accelerator, on unpadded segments.

    The cases are numbered 0..E-1; ``rec[p]`` (shape (E, Kc + 2), in the
    flavour's float type) is case p's record: its values of the Kc
    continuous attributes, its weight and its class.  Segment r (one node x
    attribute ``seg_att[r]``) is ``flat[start_r : start_r + seg_len[r]]``:
    its known cases in value order; ``cases[r]`` is the node's weight and
    ``unknown_w[r]`` that of its cases with the value unknown (see
    :class:`Segments`); ``seg_off[r]`` (zeros without it) is added to segment r's
    positions.  ``scratch`` (:func:`scan_scratch`, c45): where a long segment's cases
    are copied out, for a caller that scores several such.  Returns the same scores
    as the numpy path, bit for bit.
    """
    lib = native.cscan
    assert lib is not None
    R = seg_att.size
    out = ContScores(np.zeros(R), np.zeros(R), np.full(R, np.nan), np.zeros(R, dtype=np.bool_))
    if R == 0:
        return out
    dt = ctx.dtype
    C = ctx.n_classes
    m = ctx.min_cases
    cs = np.asarray(cases, dtype=dt)
    unk = np.asarray(unknown_w, dtype=dt)
    known = (cs - unk).astype(dt)
    seg_len = np.ascontiguousarray(seg_len, dtype=np.intp)
    segs = Segments(
        rec=np.ascontiguousarray(rec, dtype=dt),
        att=np.ascontiguousarray(seg_att, dtype=np.intp),
        flat=np.ascontiguousarray(flat, dtype=np.int32),
        length=seg_len,
        start=np.cumsum(seg_len) - seg_len,
        cases=cs,
        unknown=unk,
        known=known,
        off=np.zeros(R, dtype=np.intp)
        if seg_off is None
        else np.ascontiguousarray(seg_off, dtype=np.intp),
    )
    if ctx.j48:
        # MinSplit raised and capped within J48's tolerance; "enough" counts cases.
        ms = 0.10 * known / C
        ms = np.where(ms - m < J48_TOL, m, np.where(ms - 25 > J48_TOL, 25.0, ms))
        enough = (~(2 * ms - seg_len > J48_TOL)).astype(np.uint8)
        for ch in _scan_chunks(ctx, segs, ms, known, enough):
            best_j48(ctx, lib, ch, segs, out)
            del ch  # before the next chunk's arrays are made
        return out
    # MinSplit (stats.min_split, vectorised): raised to MINOBJS, capped at 25.
    ms64 = (0.10 * known.astype(np.float64) / C).astype(dt).astype(np.float64)
    ms = np.where(ms64 <= m, m, np.where(ms64 > 25, 25.0, ms64)).astype(dt)
    lim = (known - ms).astype(dt)
    enough = (known >= 2 * m).astype(np.uint8)
    # The best cut of every segment, then the chosen cuts' scores in one pass for the bucket.
    pick = Pick(np.zeros(R, np.bool_), np.zeros(R, dt), np.zeros(R, np.intp), np.zeros(R, dt))
    with np.errstate(divide="ignore", invalid="ignore"):  # a segment of no weight: no cuts
        frac = (dt(1) - (dt(1) - (known / cs).astype(dt)).astype(dt)).astype(dt)
    _scan_best(ctx, segs, ms, lim, enough, frac, LogBlock.of(ctx), scratch, pick)
    finish_c45(ctx, segs, pick, out)
    return out


def _scan_best(
    ctx: Context,
    segs: Segments,
    ms: FloatArray,
    bound: FloatArray,
    enough: npt.NDArray[np.uint8],
    frac: FloatArray,
    block: LogBlock,
    scratch: npt.NDArray[np.uint8] | None,
    pick: Pick,
) -> None:
    """Every segment's best cut into ``pick``, by one ``scan_best`` call (c45).

    The C scan counts a segment's cuts, then takes their logs a block at a time and
    picks as :func:`~treegen.trainer.splits.pick_c45` does (its header row in the block
    gives the base info's and the cost's logs), so no cut is written out.  A long
    segment's cases are copied out into ``scratch``.
    """
    lib = native.cscan
    assert lib is not None
    R = segs.att.size
    rec = segs.rec
    n1, rs = rec.shape
    longest = int(segs.length.max())
    if longest > NATIVE_CHUNK:  # the same pages for the large tasks' attributes
        scratch = scan_scratch(longest, scratch)
    elif scratch is not None and scratch.size < longest * int(lib.SCAN_SCRATCH_FLOAT):
        scratch = None  # (the C scan then allocates its own)
    segf = np.empty((R, 3), dtype=np.float32)  # known, 1 - unknown rate, cases
    segf[:, 0], segf[:, 1], segf[:, 2] = segs.known, frac, segs.cases
    best = np.empty(R, dtype=np.intp)
    pen = np.empty(R, dtype=np.float32)
    low = np.empty(R, dtype=np.float32)
    tot = np.empty((R, ctx.n_classes), dtype=np.float32)
    lib.scan_best(
        rec, n1, rs, rs - 2, segs.flat, segs.start, segs.length, segs.att,
        np.ascontiguousarray(ms), np.ascontiguousarray(bound), enough, ctx.n_classes,
        best, segf, pen, low, tot, segs.off, ctx.min_cases, block.x, block.lg, np.log, scratch,
    )  # fmt: skip
    found = np.flatnonzero(best >= 0)
    pick.found[found] = True
    pick.pen[found], pick.ii[found], pick.low[found] = pen[found], best[found], low[found]
