"""Scoring every continuous attribute at one node at once (docs/C45.md section 3), and
the :class:`Score` of an attribute.

Per-node Python overhead dominates C4.5 on large data (most nodes are
small), so each node scores *all* continuous attributes in one pass over a
padded 2-D array of their sorted known rows (and all nominal attributes in one
weighted count, :mod:`treegen.trainer.nominal`).  Release 8 accumulates
``LowItems`` and the below/above class counts one case at a time in float:
``np.cumsum`` and ``np.subtract.accumulate`` along axis 1 do exactly that
(sequential, in the array's dtype), and zero-weight padding leaves the sums
unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.trainer.constants import CUT_GAP, EPSILON
from treegen.trainer.context import Context, IntArray
from treegen.trainer.stats import base_info_many, cut_base_info, log2_c45, total_info

FloatArray = npt.NDArray[np.floating]

CHUNK = 1 << 20  # max cells (attributes x sorted rows) scored together: bounds memory


@dataclass(frozen=True, slots=True)
class Score:
    """An admissible attribute: its (penalised) gain, split info and, for a continuous
    attribute, the midpoint of its cut (None for a nominal one)."""

    gain: float
    info: float
    bar: float | None = None
    subsets: tuple[tuple[int, ...], ...] = ()  # value groups (0-based) for --subsets


def cut_midpoint(lo: FloatArray, hi: FloatArray, dt: type[np.floating]) -> FloatArray:
    """``Bar`` of the cuts between sorted values ``lo < hi``: their midpoint in ``dt``.

    The midpoint is computed as Release 8 (float) and J48 (double) do,
    ``(lo + hi) / 2``, except where that sum overflows (two values of the same sign
    near the type's limit): then ``lo / 2 + hi / 2``, which cannot, and lies between
    them (Release 8 takes an infinite midpoint there, and what it then does with it is
    undefined: docs/RELEASE8_BUGS.md).  Where the midpoint is not strictly below
    ``hi`` (two adjacent floats whose midpoint ties to even onto ``hi``, or a halved
    sum that rounds up) a threshold there would send every case of the node left:
    Release 8 then splits the same node forever (and crashes).  Those cuts take
    ``lo``, as J48 does when its midpoint equals ``hi``; the threshold then separates
    the two values as the cut was scored.  Either way the threshold is the largest
    training value not above the midpoint (section 1 step 8), ``lo`` itself where no
    training value lies between the two.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        total = (lo + hi).astype(dt)
        bar = (total / dt(2)).astype(dt)
        halves = (lo / dt(2) + hi / dt(2)).astype(dt)
    bar = np.where(np.isfinite(total), bar, halves)
    out: FloatArray = np.where(bar < hi, bar, lo).astype(dt)
    return out


@dataclass(frozen=True, slots=True)
class ContScores:
    """Per (node, attribute) row: best cut's penalised gain, split info, midpoint."""

    gain: npt.NDArray[np.float64]
    info: npt.NDArray[np.float64]
    bar: npt.NDArray[np.float64]
    ok: npt.NDArray[np.bool_]


def eval_continuous(
    ctx: Context,
    kpos: IntArray,
    rows2d: npt.NDArray[np.integer],
    w2d: npt.NDArray[np.floating],
    lens: IntArray,
    cases: npt.NDArray[np.floating],
    unknown_w: npt.NDArray[np.floating],
) -> ContScores:
    """Best threshold per row from sorted known cases (section 3).

    Row r scores continuous attribute ``kpos[r]`` (index into ``ctx.cvals``)
    on one node: ``rows2d[r]`` are the node's cases with a known value in
    value order and ``w2d[r]`` their weights, padded with the dummy row
    ``ctx.n_rows`` and weight 0; ``lens[r]`` counts the real ones,
    ``cases[r]`` is the node's total weight and ``unknown_w[r]`` the weight
    of its cases with the value unknown.
    """
    R = kpos.size
    out = ContScores(np.zeros(R), np.zeros(R), np.full(R, np.nan), np.zeros(R, dtype=np.bool_))
    width = max(int(rows2d.shape[1]), 1)
    step = max(1, CHUNK // width)
    for lo in range(0, R, step):
        hi = min(R, lo + step)
        _eval_cont_chunk(
            ctx,
            kpos[lo:hi],
            rows2d[lo:hi],
            w2d[lo:hi],
            lens[lo:hi],
            cases[lo:hi],
            unknown_w[lo:hi],
            out,
            lo,
        )
    return out


def _eval_cont_chunk(
    ctx: Context,
    kpos: IntArray,
    rows2d: npt.NDArray[np.integer],
    wts: npt.NDArray[np.floating],
    lens: IntArray,
    cases_r: npt.NDArray[np.floating],
    unknown_w: npt.NDArray[np.floating],
    out: ContScores,
    base_row: int,
) -> None:
    """:func:`eval_continuous` on one chunk of rows, written to ``out`` from ``base_row``."""
    dt = ctx.dtype
    C = ctx.n_classes
    m = ctx.min_cases
    K, L = rows2d.shape
    if L < 2:
        return
    cases = cases_r.astype(dt)
    known = (cases - unknown_w.astype(dt)).astype(dt)
    cls = ctx.y_small[rows2d]
    n1 = ctx.cvals.shape[1]
    vals = np.take(ctx.cvals.ravel(), rows2d + (kpos * n1)[:, None]).astype(np.float64)
    low = np.cumsum(wts, axis=1, dtype=dt)
    # w * (class == c): the weight or +0 (weights are finite and >= 0), as
    # np.where would give, several times faster.
    per_class = [wts * (cls == c) for c in range(C)]
    below = [np.cumsum(wc, axis=1, dtype=dt) for wc in per_class]
    tot = np.stack([b[:, -1] for b in below], axis=1)  # (K, C): known class weights
    min_split = (0.10 * known.astype(np.float64) / C).astype(dt).astype(np.float64)
    valid = np.arange(L - 1)[None, :] < (lens - 1)[:, None]
    low_i = low[:, :-1]
    if ctx.j48:
        min_split = np.where(
            min_split - m < J48_TOL, m, np.where(min_split - 25 > J48_TOL, 25.0, min_split)
        )
        enough = ~(2 * min_split - lens > J48_TOL)
        ok = (min_split[:, None] - low_i < J48_TOL) & (
            min_split[:, None] - (known[:, None] - low_i) < J48_TOL
        )
        distinct = vals[:, :-1] + CUT_GAP < vals[:, 1:]
    else:
        # MinSplit (stats.min_split, vectorised): raised to MINOBJS, capped at 25.
        min_split = np.where(min_split <= m, m, np.where(min_split > 25, 25.0, min_split))
        enough = known >= 2 * m
        lim = (known - min_split.astype(dt)).astype(dt)
        # Release 8 stops at the first cut with LowItems > limit; the running
        # sum of non-negative weights never decreases (float rounding is
        # monotone), so every later cut is over the limit too.
        ok = (low_i >= min_split[:, None].astype(dt)) & (low_i <= lim[:, None])
        distinct = vals[:, :-1] < vals[:, 1:] - CUT_GAP
    # Candidates as flat positions into the (K, L) arrays: 1-D takes are
    # much cheaper than paired fancy indices.
    cand = np.zeros((K, L), dtype=np.bool_)
    cv = cand[:, :-1]
    np.logical_and(ok, distinct, out=cv)
    cv &= valid
    cv &= enough[:, None]
    fi = np.flatnonzero(cand)
    if fi.size == 0:
        return
    kk = fi // L
    ii = fi - kk * L
    tries = np.bincount(kk, minlength=K)
    bel = [np.take(b, fi) for b in below]
    abv = []
    for c, wc in enumerate(per_class):
        # Freq[2][c] starts at the known total and loses each case in turn:
        # fold the total into the first element, then accumulate in place.
        wc[:, 0] = tot[:, c] - wc[:, 0]
        np.subtract.accumulate(wc, axis=1, dtype=dt, out=wc)
        abv.append(np.take(wc, fi))
    vf1 = np.take(low, fi)
    if not ctx.j48:

        def bounds(k: IntArray, i: IntArray) -> tuple[FloatArray, FloatArray]:
            return ctx.cvals[kpos[k], rows2d[k, i]], ctx.cvals[kpos[k], rows2d[k, i + 1]]

        cand_c = Candidates(kk, ii, vf1, bel, abv, tot, tries)
        finish_c45(ctx, cand_c, known, cases, unknown_w, bounds, out, base_row)
        return
    base = base_info_many(tot, known, dt)
    vf2 = (known[kk] - vf1).astype(dt)
    this_info = (total_info(bel, dt) + total_info(abv, dt)).astype(dt)
    unk_rate = (dt(1) - (known / cases).astype(dt)).astype(dt)
    gain = ((dt(1) - unk_rate[kk]) * (base[kk] - (this_info / known[kk]).astype(dt))).astype(dt)
    gain[(m - vf1 > J48_TOL) | (m - vf2 > J48_TOL)] = dt(-EPSILON)
    unk_w = unknown_w.astype(dt)
    rows_with = np.flatnonzero(tries)
    starts = np.concatenate(([0], np.cumsum(tries)[:-1]))
    picked: list[int] = []  # chosen candidate per row with an admissible cut
    bounds_j: list[tuple[float, float]] = []  # its values on either side
    for k in rows_with.tolist():
        s, e = int(starts[k]), int(starts[k] + tries[k])
        best, best_gain = -1, 0.0
        for j, g in enumerate(gain[s:e].tolist()):
            if g - best_gain > J48_TOL:  # J48: earlier cut kept unless beaten by > J48_TOL
                best, best_gain = j, g
        if best < 0:
            continue
        pen = best_gain - float(log2_c45(float(tries[k]))) / float(cases[k])
        if pen < J48_TOL:
            continue
        i = int(ii[s + best])
        r = base_row + k
        out.gain[r], out.ok[r] = pen, True
        picked.append(s + best)
        bounds_j.append((float(vals[k, i]), float(vals[k, i + 1])))
    if picked:
        jp = np.asarray(picked, dtype=np.intp)
        kp = kk[jp]
        lo_hi = np.asarray(bounds_j, dtype=np.float64)
        out.bar[base_row + kp] = cut_midpoint(lo_hi[:, 0], lo_hi[:, 1], np.float64)
        out.info[base_row + kp] = (
            total_info([unk_w[kp], vf1[jp], vf2[jp]], dt) / cases[kp]
        ).astype(dt)


@dataclass(frozen=True, slots=True)
class Candidates:
    """The admissible cuts of a chunk of segments (one segment = one node x attribute).

    ``kk``/``ii``: segment and position (the cut lies between sorted entries
    ``ii`` and ``ii + 1``), ascending; ``low``: LowItems at the cut;
    ``bel``/``abv``: per class, the weight below and above it; ``tot``
    (segments x classes): the known class weights; ``tries``: cuts per
    segment.  All float32 sums in case order, as Release 8 accumulates.
    """

    kk: IntArray
    ii: IntArray
    low: FloatArray
    bel: list[FloatArray]
    abv: list[FloatArray]
    tot: FloatArray
    tries: IntArray


def finish_c45(
    ctx: Context,
    cand: Candidates,
    known: FloatArray,
    cases: FloatArray,
    unknown_w: FloatArray,
    bounds: Callable[[IntArray, IntArray], tuple[FloatArray, FloatArray]],
    out: ContScores,
    base_row: int,
) -> None:
    """Gains of the candidate cuts, MDL penalty and the first best cut per segment (c45).

    ``known``, ``cases``, ``unknown_w``: per segment, float32.  ``bounds(k,
    i)`` gives the float32 values on either side of cut ``i`` of segment ``k``.
    """
    dt = ctx.dtype
    base = cut_base_info(cand.tot, known)
    this_info = (total_info(cand.bel, dt) + total_info(cand.abv, dt)).astype(dt)
    pick_c45(
        ctx,
        cand.kk,
        cand.ii,
        cand.low,
        cand.tries,
        base,
        this_info,
        known,
        cases,
        unknown_w,
        bounds,
        out,
        base_row,
    )


def pick_c45(
    ctx: Context,
    kk: IntArray,
    ii: IntArray,
    vf1: FloatArray,
    tries: IntArray,
    base: FloatArray,
    this_info: FloatArray,
    known: FloatArray,
    cases: FloatArray,
    unknown_w: FloatArray,
    bounds: Callable[[IntArray, IntArray], tuple[FloatArray, FloatArray]],
    out: ContScores,
    base_row: int,
) -> None:
    """:func:`finish_c45` from the candidates' ``this_info`` (the two sides' TotalInfo)
    and the segments' ``base`` info: gains, MDL penalty, the first best cut per segment."""
    dt = ctx.dtype
    m = ctx.min_cases
    vf2 = (known[kk] - vf1).astype(dt)
    unk_rate = (dt(1) - (known / cases).astype(dt)).astype(dt)
    gain = ((dt(1) - unk_rate[kk]) * (base[kk] - (this_info / known[kk]).astype(dt))).astype(dt)
    gain[(vf1 < m) | (vf2 < m)] = dt(-EPSILON)
    rows_with = np.flatnonzero(tries)
    starts = np.concatenate(([0], np.cumsum(tries)[:-1]))
    # ThreshCost (stats.thresh_cost, vectorised) and the first cut maximising gain - cost.
    cost = (log2_c45(tries.astype(np.float64)) / cases.astype(np.float64)).astype(dt)
    pen = (gain - cost[kk]).astype(dt)
    row_max = np.maximum.reduceat(pen, starts[rows_with])
    is_max = pen == np.repeat(row_max, tries[rows_with])
    first = np.flatnonzero(is_max)
    _, pick = np.unique(kk[first], return_index=True)
    jsel = first[pick]  # first maximum of each row with candidates
    jsel = jsel[pen[jsel] > 0]
    k = kk[jsel]
    lo32, hi32 = bounds(k, ii[jsel])
    bars = cut_midpoint(lo32, hi32, dt)
    r = base_row + k
    out.gain[r] = pen[jsel]
    out.info[r] = (
        total_info([unknown_w.astype(dt)[k], vf1[jsel], vf2[jsel]], dt) / cases[k]
    ).astype(dt)
    out.bar[r] = bars
    out.ok[r] = True
