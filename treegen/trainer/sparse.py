"""Continuous scores in time linear in the cases and the classes present (c45, accelerator).

:func:`treegen.trainer.splits.eval_continuous` keeps, per class, a running sum over a
segment's sorted cases and adds every class's ``TotalInfo`` term at every candidate
cut: time and memory grow with cases x classes, which with one class per case is the
square of the cases.  Here the C accelerator (``native/sparse.c``) keeps only the
classes present in the segments and, at a cut, adds only the terms that are not zero
(a class of weight 0 or 1 adds none), in class order as numpy does; numpy takes the
logs between its two passes (``sparse_scan``, ``sparse_info``), and the gains, the
penalty and the pick of the cut are :func:`treegen.trainer.splits.pick_c45`.  The
scores are :func:`~treegen.trainer.splits.eval_continuous`'s bit for bit
(tests/trainer/test_sparse_scan.py); Release 8's case-order grower uses this one
(:mod:`treegen.trainer.release8.evaluate`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.trainer import native, splits
from treegen.trainer.context import Context, IntArray
from treegen.trainer.splits import ContScores, FloatArray, pick_c45
from treegen.trainer.stats import log2_c45, total_info

F32 = np.float32

# From this many classes the level-wise grower scores continuous attributes here: the
# dense kernels' log inputs (2 x classes + 2 doubles per candidate cut) grow past the
# cases' own size (at 4,000 classes, 512 MB for one level of 4,000 rows).
MANY_CLASSES = 32


def available(ctx: Context) -> bool:
    """Whether :func:`eval_continuous_sparse` can score for ``ctx`` (c45, accelerator built)."""
    return native.cscan is not None and not ctx.j48 and hasattr(native.cscan, "sparse_scan")


def eval_continuous_sparse(
    ctx: Context,
    kpos: IntArray,
    rows: list[IntArray],
    weights: list[npt.NDArray[np.float32]],
    cases: FloatArray,
    unknown_w: FloatArray,
) -> ContScores:
    """:func:`~treegen.trainer.splits.eval_continuous` on unpadded segments.

    Segment r scores continuous attribute ``kpos[r]`` (a row of ``ctx.cvals``):
    ``rows[r]`` are its node's cases with a known value, in value order, and
    ``weights[r]`` their weights; ``cases[r]`` is the node's weight and
    ``unknown_w[r]`` that of its cases with the value unknown.
    """
    R = len(rows)
    if R == 0:
        return ContScores(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.bool_))
    lens = np.asarray([r.size for r in rows], dtype=np.intp)
    all_rows = np.concatenate(rows) if R > 1 else rows[0]
    w = np.concatenate(weights) if R > 1 else weights[0]
    return eval_segments(ctx, kpos, all_rows, w, lens, cases, unknown_w)


def eval_segments(
    ctx: Context,
    kpos: IntArray,
    all_rows: IntArray,
    weights: FloatArray,
    lens: IntArray,
    cases: FloatArray,
    unknown_w: FloatArray,
) -> ContScores:
    """:func:`eval_continuous_sparse` on segments stored one after another: segment r
    is the next ``lens[r]`` of ``all_rows`` and ``weights``."""
    lib = native.cscan
    assert lib is not None and not ctx.j48
    R = lens.size
    out = ContScores(np.zeros(R), np.zeros(R), np.full(R, np.nan), np.zeros(R, dtype=np.bool_))
    if R == 0:
        return out
    m = ctx.min_cases
    lens = np.ascontiguousarray(lens, dtype=np.intp)
    start = np.cumsum(lens) - lens
    seg = np.repeat(np.arange(R), lens)
    vals = np.ascontiguousarray(ctx.cvals[kpos[seg], all_rows], dtype=F32)
    del seg
    w = np.ascontiguousarray(weights, dtype=F32)
    present, local = np.unique(ctx.y[all_rows], return_inverse=True)
    C = max(int(present.size), 1)
    cls = np.ascontiguousarray(local, dtype=np.int32)
    cs = np.asarray(cases, dtype=F32)
    known = (cs - np.asarray(unknown_w, dtype=F32)).astype(F32)
    # MinSplit as splits._eval_cont_chunk computes it (over all the classes declared).
    ms64 = (0.10 * known.astype(np.float64) / ctx.n_classes).astype(F32).astype(np.float64)
    ms = np.where(ms64 <= m, m, np.where(ms64 > 25, 25.0, ms64)).astype(F32)
    lim = (known - ms).astype(F32)
    enough = (known >= 2 * m).astype(np.uint8)
    E = int(lens.sum())
    cap = max(int(np.maximum(lens - 1, 0).sum()), 1)
    kk = np.empty(cap, dtype=np.intp)
    ii = np.empty(cap, dtype=np.intp)
    low = np.empty(cap, dtype=F32)
    xb, xa = np.empty(E), np.empty(E)
    xt, xc, xs = np.empty(R * C), np.empty(2 * cap), np.empty(R)
    exact = np.empty(R, dtype=np.uint8)
    n = int(
        lib.sparse_scan(
            vals, w, cls, lens, ms, lim, enough, C, kk, ii, low, xb, xa, xt, xc, xs, exact
        )
    )
    if n == 0:
        return out
    kk, ii, low = kk[:n], ii[:n], low[:n]
    info = np.empty(n, dtype=F32)
    tinfo = np.empty(R, dtype=F32)
    xc = xc[: 2 * n]
    lib.sparse_info(
        cls, lens, C, kk, ii, n,
        xb, np.log(xb), xa, np.log(xa), xt, np.log(xt), xc, np.log(xc), xs, np.log(xs),
        info, tinfo,
    )  # fmt: skip
    with np.errstate(divide="ignore", invalid="ignore"):
        base = (tinfo / known).astype(F32)  # stats.cut_base_info's division

    tries = np.bincount(kk, minlength=R)
    unk = np.asarray(unknown_w, dtype=F32)
    if not hasattr(lib, "sparse_pick"):

        def bounds(k: IntArray, i: IntArray) -> tuple[FloatArray, FloatArray]:
            at = start[k] + i
            return vals[at], vals[at + 1]

        pick_c45(ctx, kk, ii, low, tries, base, info, known, cs, unk, bounds, out, 0)
        return out
    # pick_c45 with its per-candidate arithmetic and the pick in C (sparse_pick): with
    # one class per row most nodes have a few cases, and its numpy calls cost more
    # than their work.
    cost = (log2_c45(tries.astype(np.float64)) / cs.astype(np.float64)).astype(F32)
    best = np.empty(R, dtype=np.intp)
    pen = np.empty(R, dtype=F32)
    lib.sparse_pick(kk, low, info, known, cs, base, cost, float(m), best, pen)
    seg = np.flatnonzero((best >= 0) & (pen > 0))
    if seg.size == 0:
        return out
    j = best[seg]
    at = start[seg] + ii[j]
    vf1 = low[j]
    vf2 = (known[seg] - vf1).astype(F32)
    out.gain[seg] = pen[seg]
    out.info[seg] = (total_info([unk[seg], vf1, vf2], F32) / cs[seg]).astype(F32)
    out.bar[seg] = splits.cut_midpoint(vals[at], vals[at + 1], F32)
    out.ok[seg] = True
    return out
