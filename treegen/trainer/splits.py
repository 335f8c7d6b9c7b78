"""Scoring every attribute at one node at once (C45_SEMANTICS sections 2 and 3).

Per-node Python overhead dominates C4.5 on large data (most nodes are
small), so each node scores *all* continuous attributes in one pass over a
padded 2-D array of their sorted known rows, and all nominal attributes in
one weighted count.  Release 8 accumulates ``LowItems`` and the below/above
class counts one case at a time in float: ``np.cumsum`` and
``np.subtract.accumulate`` along axis 1 do exactly that (sequential, in the
array's dtype), and zero-weight padding leaves the sums unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.trainer.context import Context, IntArray
from treegen.trainer.stats import EPSILON, base_info_many, log2_c45, total_info

FloatArray = npt.NDArray[np.floating]

J48_TOL = 1e-6  # Weka's Utils.eq / gr / sm tolerance
CHUNK = 1 << 20  # max cells (attributes x sorted rows) scored together: bounds memory
# The C path's chunks are smaller: their scratch arrays (Context.work) are reused.
NATIVE_CHUNK = 1 << 18


@dataclass(frozen=True, slots=True)
class Score:
    """An admissible attribute: its (penalised) gain, split info and midpoint."""

    gain: float
    info: float
    bar: float = float("nan")
    subsets: tuple[tuple[int, ...], ...] = ()  # value groups (0-based) for --subsets


def nominal_freq(
    ctx: Context, atts: list[int], rows: IntArray, w: npt.NDArray[np.floating]
) -> npt.NDArray[np.floating]:
    """``Freq[v][c]`` for each attribute: shape (K, max values + 1, C), v = 0 unknown."""
    dt = ctx.dtype
    C = ctx.n_classes
    kmax = max(ctx.n_values[a] for a in atts) + 1
    cols = np.asarray([ctx.nom_pos[a] for a in atts], dtype=np.intp)
    codes = ctx.ncodes[rows][:, cols].astype(np.intp)  # (n, K)
    flat = (np.arange(len(atts)) * (kmax * C))[None, :] + codes * C + ctx.y[rows][:, None]
    size = len(atts) * kmax * C
    freq: npt.NDArray[np.floating]
    if dt is np.float64:
        freq = np.bincount(flat.ravel(), np.repeat(w, len(atts)), minlength=size).astype(
            np.float64, copy=False
        )
    else:
        freq = np.zeros(size, dtype=dt)
        np.add.at(freq, flat, w[:, None])
    return freq.reshape(len(atts), kmax, C).astype(dt)


def score_outcomes(
    ctx: Context,
    freq: npt.NDArray[np.floating],
    cases: float | npt.NDArray[np.floating],
    min_cases: float,
) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating], npt.NDArray[np.bool_]]:
    """Gain, split info and admissibility of splits given as ``Freq[v][c]`` (section 2).

    ``freq`` has shape (K, outcomes + 1, C) with outcome 0 the unknowns; an
    outcome with no weight adds nothing (padding is harmless).
    """
    dt = ctx.dtype
    C = ctx.n_classes
    cases_a = np.broadcast_to(np.asarray(cases, dtype=dt), freq.shape[:1])
    val_freq = np.cumsum(freq, axis=2, dtype=dt)[:, :, -1]  # ValFreq[v] = sum over classes
    known = (cases_a - val_freq[:, 0]).astype(dt)
    unk_rate = (val_freq[:, 0] / cases_a).astype(dt)
    if ctx.j48:
        reasonable = np.count_nonzero(val_freq[:, 1:] - min_cases > -J48_TOL, axis=1)
    else:
        reasonable = np.count_nonzero(val_freq[:, 1:] >= min_cases, axis=1)
    known_class = np.cumsum(freq[:, 1:, :], axis=1, dtype=dt)[:, -1, :]
    base = base_info_many(known_class, known, dt)
    infos = total_info([freq[:, 1:, c] for c in range(C)], dt)  # (K, outcomes)
    this_info = np.cumsum(infos, axis=1, dtype=dt)[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):  # all-unknown attributes: 0/0
        gain = ((dt(1) - unk_rate) * (base - (this_info / known).astype(dt))).astype(dt)
    n_out = freq.shape[1]
    split = (total_info([val_freq[:, v] for v in range(n_out)], dt) / cases_a).astype(dt)
    ok = (val_freq[:, 1:] > 0).any(axis=1) & (reasonable >= 2)
    return gain, split, ok


def eval_nominal(
    ctx: Context, atts: list[int], rows: IntArray, w: npt.NDArray[np.floating], cases: float
) -> dict[int, Score]:
    """Gain and split info of a multiway split on each nominal attribute in ``atts``."""
    freq = nominal_freq(ctx, atts, rows, w)
    gain, split, ok = score_outcomes(ctx, freq, cases, ctx.min_cases)
    return {a: Score(float(gain[j]), float(split[j])) for j, a in enumerate(atts) if ok[j]}


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
    base = base_info_many(tot, known, dt)
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
        distinct = vals[:, :-1] + 1e-5 < vals[:, 1:]
    else:
        # MinSplit (stats.min_split, vectorised): raised to MINOBJS, capped at 25.
        min_split = np.where(min_split <= m, m, np.where(min_split > 25, 25.0, min_split))
        enough = known >= 2 * m
        lim = (known - min_split.astype(dt)).astype(dt)
        # Release 8 stops at the first cut with LowItems > limit; the running
        # sum of non-negative weights never decreases (float rounding is
        # monotone), so every later cut is over the limit too.
        ok = (low_i >= min_split[:, None].astype(dt)) & (low_i <= lim[:, None])
        distinct = vals[:, :-1] < vals[:, 1:] - 1e-5
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
    vf2 = (known[kk] - vf1).astype(dt)
    this_info = (total_info(bel, dt) + total_info(abv, dt)).astype(dt)
    unk_rate = (dt(1) - (known / cases).astype(dt)).astype(dt)
    gain = ((dt(1) - unk_rate[kk]) * (base[kk] - (this_info / known[kk]).astype(dt))).astype(dt)
    gain[(m - vf1 > J48_TOL) | (m - vf2 > J48_TOL)] = dt(-EPSILON)
    unk_w = unknown_w.astype(dt)
    rows_with = np.flatnonzero(tries)
    starts = np.concatenate(([0], np.cumsum(tries)[:-1]))
    picked: list[int] = []  # chosen candidate per row with an admissible cut
    for k in rows_with.tolist():
        s, e = int(starts[k]), int(starts[k] + tries[k])
        best, best_gain = -1, 0.0
        for j, g in enumerate(gain[s:e].tolist()):
            if g - best_gain > J48_TOL:  # J48: earlier cut kept unless beaten by > 1e-6
                best, best_gain = j, g
        if best < 0:
            continue
        pen = best_gain - float(log2_c45(float(tries[k]))) / float(cases[k])
        if pen < J48_TOL:
            continue
        i = int(ii[s + best])
        lo_v, hi_v = float(vals[k, i]), float(vals[k, i + 1])
        bar = (lo_v + hi_v) / 2
        if bar == hi_v:
            bar = lo_v
        r = base_row + k
        out.gain[r], out.bar[r], out.ok[r] = pen, bar, True
        picked.append(s + best)
    if picked:
        jp = np.asarray(picked, dtype=np.intp)
        kp = kk[jp]
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
    m = ctx.min_cases
    kk, ii, vf1, tries = cand.kk, cand.ii, cand.low, cand.tries
    base = base_info_many(cand.tot, known, dt)
    vf2 = (known[kk] - vf1).astype(dt)
    this_info = (total_info(cand.bel, dt) + total_info(cand.abv, dt)).astype(dt)
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
    bars = ((lo32 + hi32) / dt(2)).astype(dt)  # the float midpoint Release 8 computes
    r = base_row + k
    out.gain[r] = pen[jsel]
    out.info[r] = (
        total_info([unknown_w.astype(dt)[k], vf1[jsel], vf2[jsel]], dt) / cases[k]
    ).astype(dt)
    out.bar[r] = bars
    out.ok[r] = True


def eval_continuous_flat(
    ctx: Context,
    rec: FloatArray,
    seg_att: IntArray,
    flat: IntArray,
    seg_len: IntArray,
    cases: FloatArray,
    unknown_w: FloatArray,
) -> ContScores:
    """:func:`eval_continuous` with the C accelerator, unpadded.

    The cases are numbered 0..E-1; ``rec[p]`` (shape (E, Kc + 2), the
    flavour's float type) is
    case p's record: its values of the Kc continuous attributes, its weight
    and its class.  Segment r (one node x attribute ``seg_att[r]``) is
    ``flat[start_r : start_r + seg_len[r]]``: its known cases in value order.
    The C scan does the running sums and candidate tests; the rest is shared
    with the numpy path (:func:`finish_c45`), so both give the same bits.
    """
    from treegen.trainer import native

    lib = native.cscan
    assert lib is not None
    if ctx.j48:
        return _eval_flat_j48(ctx, lib, rec, seg_att, flat, seg_len, cases, unknown_w)
    dt = ctx.dtype
    C = ctx.n_classes
    m = ctx.min_cases
    R = seg_att.size
    out = ContScores(np.zeros(R), np.zeros(R), np.full(R, np.nan), np.zeros(R, dtype=np.bool_))
    if R == 0:
        return out
    cases32 = np.asarray(cases, dtype=dt)
    unk32 = np.asarray(unknown_w, dtype=dt)
    known = (cases32 - unk32).astype(dt)
    # MinSplit (stats.min_split, vectorised): raised to MINOBJS, capped at 25.
    ms = (0.10 * known.astype(np.float64) / C).astype(dt).astype(np.float64)
    ms32 = np.where(ms <= m, m, np.where(ms > 25, 25.0, ms)).astype(dt)
    lim32 = (known - ms32).astype(dt)
    enough = (known >= 2 * m).astype(np.uint8)
    seg_len = np.ascontiguousarray(seg_len, dtype=np.intp)
    seg_start = np.cumsum(seg_len) - seg_len
    flat = np.ascontiguousarray(flat, dtype=np.int32)
    rec = np.ascontiguousarray(rec, dtype=np.float32)
    n1, rs = rec.shape
    att = np.ascontiguousarray(seg_att, dtype=np.intp)
    # Chunks of whole segments of about CHUNK entries bound the candidate arrays.
    ends = np.cumsum(seg_len)
    lo = 0
    while lo < R:
        hi = int(np.searchsorted(ends, ends[lo] - seg_len[lo] + NATIVE_CHUNK, side="right"))
        hi = min(max(hi, lo + 1), R)
        cap = max(int(ends[hi - 1] - seg_start[lo]), 1)
        kk = ctx.work.get("kk", cap, np.intp)
        ii = ctx.work.get("ii", cap, np.intp)
        low = ctx.work.get("low", cap, dt)
        x = ctx.work.get("x", cap * (2 * C + 2), np.float64)  # per cut: TotalInfo's log inputs
        tot = np.empty((hi - lo, C), dtype=dt)
        n = lib.scan_cont(
            rec,
            n1,
            rs,
            rs - 2,
            flat,
            seg_start[lo:hi],
            seg_len[lo:hi],
            att[lo:hi],
            ms32[lo:hi],
            lim32[lo:hi],
            enough[lo:hi],
            C,
            kk,
            ii,
            low,
            x,
            tot,
        )
        if n:
            _best_native(
                ctx,
                lib,
                x,
                n,
                kk,
                ii,
                low,
                tot,
                rec,
                flat,
                seg_start,
                att,
                lo,
                hi,
                known,
                cases32,
                unk32,
                out,
            )
        lo = hi
    return out


def _best_native(
    ctx: Context,
    lib: object,
    x: npt.NDArray[np.float64],
    n: int,
    kk: IntArray,
    ii: IntArray,
    low: FloatArray,
    tot: FloatArray,
    vals: FloatArray,
    flat: IntArray,
    seg_start: IntArray,
    att: IntArray,
    lo: int,
    hi: int,
    known: FloatArray,
    cases: FloatArray,
    unk: FloatArray,
    out: ContScores,
) -> None:
    """:func:`finish_c45` for a chunk scanned in C: logs by numpy, the rest in C.

    Only ``np.log`` runs over the candidates in numpy (so the logs are the
    numpy path's); the per-cut arithmetic and the pick of the first best cut
    per segment are C (``best_cuts``), the chosen cuts' split info numpy.
    """
    dt = ctx.dtype
    kn, cs_, uk = known[lo:hi], cases[lo:hi], unk[lo:hi]
    kk_n = kk[:n]
    tries = np.bincount(kk_n, minlength=hi - lo)
    xn = x[: n * (2 * ctx.n_classes + 2)]
    lg = np.log(xn, out=ctx.work.get("lg", xn.size, np.float64))
    base = base_info_many(tot, kn, dt)
    frac = (dt(1) - (dt(1) - (kn / cs_).astype(dt)).astype(dt)).astype(dt)
    cost = (log2_c45(tries.astype(np.float64)) / cs_.astype(np.float64)).astype(dt)
    best = np.empty(hi - lo, dtype=np.intp)
    pen = np.empty(hi - lo, dtype=dt)
    lib.best_cuts(  # type: ignore[attr-defined]
        xn,
        lg,
        ctx.n_classes,
        n,
        kk_n,
        low[:n],
        np.ascontiguousarray(kn),
        base,
        frac,
        cost,
        ctx.min_cases,
        best,
        pen,
    )
    seg = np.flatnonzero((best >= 0) & (pen > 0))
    if seg.size == 0:
        return
    j = best[seg]
    i = ii[j]
    at = seg_start[lo + seg] + i
    a = att[lo + seg]
    lo32, hi32 = vals[flat[at], a], vals[flat[at + 1], a]
    vf1 = low[j]
    vf2 = (kn[seg] - vf1).astype(dt)
    r = lo + seg
    out.gain[r] = pen[seg]
    out.info[r] = (total_info([uk[seg], vf1, vf2], dt) / cs_[seg]).astype(dt)
    out.bar[r] = ((lo32 + hi32) / dt(2)).astype(dt)  # the float midpoint Release 8 computes
    out.ok[r] = True


def _eval_flat_j48(
    ctx: Context,
    lib: Any,
    rec: FloatArray,
    seg_att: IntArray,
    flat: IntArray,
    seg_len: IntArray,
    cases: FloatArray,
    unknown_w: FloatArray,
) -> ContScores:
    """:func:`eval_continuous_flat` with J48's rules (the j48 branch of _eval_cont_chunk)."""
    C = ctx.n_classes
    m = ctx.min_cases
    R = seg_att.size
    out = ContScores(np.zeros(R), np.zeros(R), np.full(R, np.nan), np.zeros(R, dtype=np.bool_))
    if R == 0:
        return out
    cs64 = np.asarray(cases, dtype=np.float64)
    unk64 = np.asarray(unknown_w, dtype=np.float64)
    known = cs64 - unk64
    ms = 0.10 * known / C
    ms = np.where(ms - m < J48_TOL, m, np.where(ms - 25 > J48_TOL, 25.0, ms))
    seg_len = np.ascontiguousarray(seg_len, dtype=np.intp)
    enough = (~(2 * ms - seg_len > J48_TOL)).astype(np.uint8)
    seg_start = np.cumsum(seg_len) - seg_len
    flat = np.ascontiguousarray(flat, dtype=np.int32)
    rec = np.ascontiguousarray(rec, dtype=np.float64)
    n1, rs = rec.shape
    att = np.ascontiguousarray(seg_att, dtype=np.intp)
    frac = 1.0 - (1.0 - known / cs64)  # 1 - UnknownRate, rounded as numpy computes it
    ends = np.cumsum(seg_len)
    lo = 0
    while lo < R:
        hi = int(np.searchsorted(ends, ends[lo] - seg_len[lo] + NATIVE_CHUNK, side="right"))
        hi = min(max(hi, lo + 1), R)
        cap = max(int(ends[hi - 1] - seg_start[lo]), 1)
        kk = ctx.work.get("kk", cap, np.intp)
        ii = ctx.work.get("ii", cap, np.intp)
        low = ctx.work.get("low64", cap, np.float64)
        x = ctx.work.get("x", cap * (2 * C + 2), np.float64)
        tot = np.empty((hi - lo, C))
        n = lib.scan_cont_j48(
            rec,
            n1,
            rs,
            rs - 2,
            flat,
            seg_start[lo:hi],
            seg_len[lo:hi],
            att[lo:hi],
            np.ascontiguousarray(ms[lo:hi]),
            np.ascontiguousarray(known[lo:hi]),
            enough[lo:hi],
            C,
            kk,
            ii,
            low,
            x,
            tot,
        )
        if n:
            kn = known[lo:hi]
            xn = x[: n * (2 * C + 2)]
            lg = np.log(xn, out=ctx.work.get("lg", xn.size, np.float64))
            best = np.empty(hi - lo, dtype=np.intp)
            bgain = np.empty(hi - lo)
            kk_n = kk[:n]
            lib.best_cuts_j48(
                xn,
                lg,
                C,
                n,
                kk_n,
                low[:n],
                np.ascontiguousarray(kn),
                base_info_many(tot, kn, np.float64).astype(np.float64),
                np.ascontiguousarray(frac[lo:hi]),
                m,
                best,
                bgain,
            )
            tries = np.bincount(kk_n, minlength=hi - lo)
            seg = np.flatnonzero(best >= 0)
            # J48: the MDL penalty, then a cut must still gain more than 1e-6.
            pen = bgain[seg] - log2_c45(tries[seg].astype(np.float64)) / cs64[lo + seg]
            seg, pen = seg[pen >= J48_TOL], pen[pen >= J48_TOL]
            if seg.size:
                j = best[seg]
                at = seg_start[lo + seg] + ii[j]
                a = att[lo + seg]
                lo_v, hi_v = rec[flat[at], a], rec[flat[at + 1], a]
                bar = (lo_v + hi_v) / 2
                bar = np.where(bar == hi_v, lo_v, bar)
                vf1 = low[j]
                r = lo + seg
                out.gain[r], out.bar[r], out.ok[r] = pen, bar, True
                out.info[r] = total_info([unk64[r], vf1, kn[seg] - vf1], np.float64) / cs64[r]
        lo = hi
    return out
