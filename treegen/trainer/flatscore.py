"""Scoring continuous attributes through the C accelerator (``native.cscan``).

The C path of :func:`treegen.trainer.splits.eval_continuous`: segments (one
node x attribute, its known cases in value order) are not padded into a
2-D array but scanned in C, which does the running sums and candidate tests
(``scan_cont``; ``scan_cont_j48`` with J48's rules), writes the inputs of
the candidates' logarithms, lets numpy take the logs (so they are the numpy
path's, bit for bit) and picks the best cut per segment (``best_cuts``).
What stays numpy is the per-segment arithmetic the numpy path does the same
way (:func:`~treegen.trainer.splits.finish_c45` shows the formulas).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import numpy.typing as npt

from treegen.trainer.context import Context, IntArray
from treegen.trainer.splits import J48_TOL, ContScores, FloatArray
from treegen.trainer.stats import base_info_many, log2_c45, total_info

# Segments scored per C call, about: their scratch arrays (Context.work) are
# reused from call to call, so they are kept small.
NATIVE_CHUNK = 1 << 18


def eval_continuous_flat(
    ctx: Context,
    rec: FloatArray,
    seg_att: IntArray,
    flat: IntArray,
    seg_len: IntArray,
    cases: FloatArray,
    unknown_w: FloatArray,
) -> ContScores:
    """``splits.eval_continuous`` through the C accelerator, on unpadded segments.

    The cases are numbered 0..E-1; ``rec[p]`` (shape (E, Kc + 2), in the
    flavour's float type) is case p's record: its values of the Kc
    continuous attributes, its weight and its class.  Segment r (one node x
    attribute ``seg_att[r]``) is ``flat[start_r : start_r + seg_len[r]]``:
    its known cases in value order; ``cases[r]`` is the node's weight and
    ``unknown_w[r]`` that of its cases with the value unknown.  Returns the
    same scores as the numpy path, bit for bit.
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
    lib: ModuleType,
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
    """``splits.finish_c45`` for a chunk scanned in C: logs by numpy, the rest in C.

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
    lib.best_cuts(
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
    lib: ModuleType,
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


def score_outcomes_native(
    ctx: Context, freq: FloatArray, cases: FloatArray
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """``splits.score_outcomes`` (c45 flavour) in C: the same gains, split infos, flags.

    ``nominal_prep`` writes every value whose logarithm the scores need,
    numpy takes the logs (so they are the numpy path's), ``nominal_finish``
    does the rest, operation for operation as the numpy code.
    """
    from treegen.trainer import native

    lib = native.cscan
    assert lib is not None and not ctx.j48
    K, n_out, C = freq.shape
    f = np.ascontiguousarray(freq, dtype=np.float32)
    cs = np.ascontiguousarray(np.broadcast_to(np.asarray(cases, dtype=np.float32), (K,)))
    L = (n_out - 1) * C + n_out + C + 2
    x = ctx.work.get("nominal_x", K * L, np.float64)
    known = np.empty(K, dtype=np.float32)
    unk_rate = np.empty(K, dtype=np.float32)
    ok = np.empty(K, dtype=np.uint8)
    lib.nominal_prep(f, n_out, C, cs, ctx.min_cases, x, known, unk_rate, ok)
    lg = np.log(x, out=ctx.work.get("nominal_lg", K * L, np.float64))
    gain = np.empty(K, dtype=np.float32)
    info = np.empty(K, dtype=np.float32)
    lib.nominal_finish(x, lg, n_out, C, cs, known, unk_rate, gain, info)
    return gain, info, ok.astype(np.bool_)
