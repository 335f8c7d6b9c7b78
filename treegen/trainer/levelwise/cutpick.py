"""Each segment's best cut from what the C scan of continuous attributes gives.

:class:`Segments` are what :mod:`~treegen.trainer.levelwise.score` scans (one per
node and continuous attribute).  For c45 the C scan picks each segment's best cut
into a :class:`Pick` and :func:`finish_c45` writes the picked cuts' gain, split
info and midpoint; for j48 a :class:`Chunk` is one C scan's candidate cuts and
:func:`best_j48` picks among them and writes the scores, the J48 way.  Logs are
numpy's, so the scores are the numpy path's (:mod:`treegen.trainer.splits`), bit
for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.trainer import splits
from treegen.trainer.context import Context, IntArray
from treegen.trainer.splits import ContScores, FloatArray
from treegen.trainer.stats import base_info_many, j48_logs, log2_c45, total_info


@dataclass(frozen=True, slots=True)
class Segments:
    """The segments to score: one per (node, continuous attribute), its known cases in order.

    ``rec[p]`` (shape (E, Kc + 2), in the flavour's float type) is case p's
    record: its values of the Kc continuous attributes, its weight and its
    class.  Segment r scores attribute ``att[r]`` (a column of ``rec``) on
    cases ``flat[start[r] : start[r] + length[r]]`` (positions into
    ``rec``, in value order); ``cases[r]`` is its node's weight,
    ``unknown[r]`` that of the node's cases with the value unknown and
    ``known[r]`` the rest.  ``off[r]`` is added to every position of segment r.
    """

    rec: FloatArray
    att: IntArray
    flat: npt.NDArray[np.int32]
    length: IntArray
    start: IntArray
    cases: FloatArray
    unknown: FloatArray
    known: FloatArray
    off: IntArray


@dataclass(frozen=True, slots=True)
class Chunk:
    """One C scan (``scan_cont_j48``) over segments ``lo``..``hi`` - 1: its ``n``
    candidate cuts.

    ``kk``/``ii``: each cut's segment (relative to ``lo``) and position,
    ``low``: LowItems at it, ``x``: its 2C + 2 log inputs, ``tot``: each
    segment's known class weights, ``tries``: each segment's number of candidate
    cuts.  The arrays are scratch (Context.work), valid until the next chunk.
    """

    lo: int
    hi: int
    n: int
    kk: IntArray
    ii: IntArray
    low: FloatArray
    x: npt.NDArray[np.float64]
    tot: FloatArray
    tries: IntArray


@dataclass(slots=True)
class Pick:
    """The best cut of each segment (c45): whether one was found, its penalised gain,
    its position in the segment and LowItems."""

    found: npt.NDArray[np.bool_]
    pen: FloatArray
    ii: IntArray
    low: FloatArray


def finish_c45(ctx: Context, segs: Segments, pick: Pick, out: ContScores) -> None:
    """The chosen cuts of all segments into ``out``: gain, split info (numpy) and the
    threshold's midpoint."""
    dt = ctx.dtype
    vals, flat = segs.rec, segs.flat
    pen = pick.pen
    seg = np.flatnonzero(pick.found & (pen > 0))
    if seg.size == 0:
        return
    at = segs.start[seg] + pick.ii[seg]
    a = segs.att[seg]
    o = segs.off[seg]
    lo32, hi32 = vals[flat[at] + o, a], vals[flat[at + 1] + o, a]
    vf1 = pick.low[seg]
    vf2 = (segs.known[seg] - vf1).astype(dt)
    out.gain[seg] = pen[seg]
    out.info[seg] = (total_info([segs.unknown[seg], vf1, vf2], dt) / segs.cases[seg]).astype(dt)
    out.bar[seg] = splits.cut_midpoint(lo32, hi32, dt)
    out.ok[seg] = True


def best_j48(ctx: Context, lib: ModuleType, ch: Chunk, segs: Segments, out: ContScores) -> None:
    """The j48 branch of ``splits._eval_cont_chunk`` for a chunk scanned in C.

    ``best_cuts_j48`` computes the gains (numpy's logs) and J48's pick; the
    MDL penalty, the ``J48_TOL`` test, the midpoint and the split info
    follow in numpy, as there.
    """
    vals, flat, seg_start, att = segs.rec, segs.flat, segs.start, segs.att
    known, cases, unk = segs.known, segs.cases, segs.unknown
    lo, hi = ch.lo, ch.hi
    kn, cs_ = known[lo:hi], cases[lo:hi]
    lg = j48_logs(ch.x, ctx.work.get("lg", ch.x.size, np.float64))
    best = np.empty(hi - lo, dtype=np.intp)
    bgain = np.empty(hi - lo)
    frac = 1.0 - (1.0 - kn / cs_)  # 1 - UnknownRate, rounded as numpy computes it
    lib.best_cuts_j48(
        ch.x,
        lg,
        ctx.n_classes,
        ch.n,
        ch.kk,
        ch.low[: ch.n],
        np.ascontiguousarray(kn),
        base_info_many(ch.tot, kn, np.float64).astype(np.float64),
        frac,
        ctx.min_cases,
        best,
        bgain,
    )
    tries = ch.tries
    seg = np.flatnonzero(best >= 0)
    # J48: the MDL penalty, then a cut must still gain at least J48_TOL.
    pen = bgain[seg] - log2_c45(tries[seg].astype(np.float64)) / cs_[seg]
    seg, pen = seg[pen >= J48_TOL], pen[pen >= J48_TOL]
    if seg.size == 0:
        return
    j = best[seg]
    at = seg_start[lo + seg] + ch.ii[j]
    a = att[lo + seg]
    o = segs.off[lo + seg]
    lo_v, hi_v = vals[flat[at] + o, a], vals[flat[at + 1] + o, a]
    vf1 = ch.low[j]
    r = lo + seg
    out.gain[r], out.ok[r] = pen, True
    out.bar[r] = splits.cut_midpoint(lo_v, hi_v, np.float64)
    out.info[r] = total_info([unk[r], vf1, kn[seg] - vf1], np.float64) / cases[r]
