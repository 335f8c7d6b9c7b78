"""Scoring one attribute at one node (C45_SEMANTICS sections 2 and 3).

Continuous attributes are scored from the node's presorted known rows with
cumulative sums over the sorted weights, so every candidate cut is
evaluated by a handful of numpy passes instead of a Python loop over cases.
Release 8 accumulates ``LowItems`` and the below/above class counts one case
at a time in float; ``np.cumsum`` and ``np.subtract.accumulate`` do exactly
that (sequential, in the array's dtype).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.trainer.context import Context, IntArray, class_sums, seq_sum
from treegen.trainer.stats import EPSILON, base_info, log2_c45, total_info

J48_TOL = 1e-6  # Weka's Utils.eq / gr / sm tolerance


@dataclass(frozen=True, slots=True)
class Score:
    """An admissible attribute: its (penalised) gain, split info and midpoint."""

    gain: float
    info: float
    bar: float = float("nan")


def eval_discrete(
    ctx: Context, att: int, rows: IntArray, w: npt.NDArray[np.floating], cases: float
) -> Score | None:
    """Gain and split info of a multiway split on nominal ``att`` (section 2)."""
    dt = ctx.dtype
    k = ctx.n_values[att]
    C = ctx.n_classes
    codes = ctx.codes[att][rows]
    flat = codes * C + ctx.y[rows]
    freq = class_sums(flat, w, (k + 1) * C, dt).reshape(k + 1, C)
    if dt is np.float64:
        val_freq = freq.sum(axis=1)
    else:
        val_freq = np.cumsum(freq, axis=1, dtype=dt)[:, -1]
    if not (val_freq[1:] > 0).any():
        return None  # every value unknown
    known = ctx.fl(cases - float(val_freq[0]))
    unk_rate = ctx.fl(float(val_freq[0]) / cases)
    if ctx.j48:
        reasonable = int(np.count_nonzero(val_freq[1:] - ctx.min_cases > -J48_TOL))
    else:
        reasonable = int(np.count_nonzero(val_freq[1:] >= ctx.min_cases))
    if reasonable < 2:
        return None
    if dt is np.float64:
        known_class = freq[1:].sum(axis=0)
    else:
        known_class = np.cumsum(freq[1:], axis=0, dtype=dt)[-1]
    base = base_info(known_class, known, dt)
    parts = [freq[1:, c] for c in range(C)]
    infos = total_info(parts, dt)  # one TotalInfo per declared value
    this_info = float(np.cumsum(infos, dtype=dt)[-1]) if dt is np.float32 else float(infos.sum())
    gain = ctx.fl(ctx.fl(1.0 - unk_rate) * ctx.fl(base - ctx.fl(this_info / known)))
    split = total_info([np.asarray([v]) for v in val_freq], dt)[0]
    info = ctx.fl(float(split) / cases)
    return Score(gain, info)


def eval_continuous(
    ctx: Context, att: int, srt: IntArray, cases: float, unknown_w: float
) -> Score | None:
    """Best threshold of continuous ``att`` from its sorted known rows (section 3)."""
    dt = ctx.dtype
    C = ctx.n_classes
    m = ctx.min_cases
    n = srt.size
    known = ctx.fl(cases - unknown_w)
    if ctx.j48:
        pass  # J48 tests the count of known cases against 2*MinSplit below
    elif known < 2 * m:
        return None
    if n < 2:
        return None
    wts = ctx.weights[srt]
    cls = ctx.y[srt]
    vals = ctx.values[att][srt]
    tot = class_sums(cls, wts, C, dt)
    base = base_info(tot, known, dt)
    min_split = ctx.fl(0.10 * known / C)
    if ctx.j48:
        if min_split - m < J48_TOL:
            min_split = m
        elif min_split - 25 > J48_TOL:
            min_split = 25.0
        if 2 * min_split - n > J48_TOL:
            return None
    elif min_split <= m:
        min_split = m
    elif min_split > 25:
        min_split = 25.0
    low = np.cumsum(wts, dtype=dt)[:-1]
    v64 = vals.astype(np.float64)
    if ctx.j48:
        ok = (min_split - low < J48_TOL) & (min_split - (known - low) < J48_TOL)
        distinct = v64[:-1] + 1e-5 < v64[1:]
    else:
        lim = ctx.fl(known - min_split)
        over = np.flatnonzero(low > lim)
        ok = low >= min_split
        if over.size:
            ok[over[0]:] = False
        distinct = v64[:-1] < v64[1:] - 1e-5
    idx = np.flatnonzero(ok & distinct)
    tries = idx.size
    if tries == 0:
        return None
    below: list[npt.NDArray[np.floating]] = []
    above: list[npt.NDArray[np.floating]] = []
    for c in range(C):
        wc = np.where(cls == c, wts, dt(0))
        below.append(np.cumsum(wc, dtype=dt)[idx])
        seq = np.concatenate((np.asarray([tot[c]], dtype=dt), wc.astype(dt)))
        above.append(np.subtract.accumulate(seq, dtype=dt)[idx + 1])
    vf1 = low[idx].astype(dt)
    vf2 = (dt(known) - vf1).astype(dt)
    info_below = total_info(below, dt)
    info_above = total_info(above, dt)
    this_info = (info_below.astype(dt) + info_above.astype(dt)).astype(dt)
    unk_rate = ctx.fl(1.0 - ctx.fl(known / cases))
    gain = ((dt(1.0) - dt(unk_rate)) * (dt(base) - (this_info / dt(known)).astype(dt))).astype(dt)
    if ctx.j48:
        bad = (m - vf1 > J48_TOL) | (m - vf2 > J48_TOL)
    else:
        bad = (vf1 < m) | (vf2 < m)
    gain[bad] = dt(-EPSILON)
    unk = np.full(idx.size, unknown_w, dtype=dt)
    split = (total_info([unk, vf1, vf2], dt) / dt(cases)).astype(dt)
    if ctx.j48:
        # J48: best cut by gain, earlier cut kept unless beaten by > 1e-6.
        best, best_gain = -1, 0.0
        for i, g in enumerate(gain.tolist()):
            if g - best_gain > J48_TOL:
                best, best_gain = i, g
        if best < 0:
            return None
        pen = best_gain - float(log2_c45(tries)) / cases
        if pen < J48_TOL:
            return None
        j = best
        lo, hi = float(v64[idx[j]]), float(v64[idx[j] + 1])
        bar = (lo + hi) / 2
        if bar == hi:
            bar = lo
        info = float(split[j])
        return Score(pen, info, bar)
    cost = ctx.fl(float(log2_c45(tries)) / cases)
    pen_arr = (gain - dt(cost)).astype(dt)
    j = int(np.argmax(pen_arr))
    if not pen_arr[j] > 0:
        return None
    bar = float(dt((vals[idx[j]] + vals[idx[j] + 1]) / dt(2)))
    return Score(float(pen_arr[j]), float(split[j]), bar)


def unknown_weight(ctx: Context, att: int, rows: IntArray, w: npt.NDArray[np.floating]) -> float:
    """Summed weight of the node's cases with ``att`` unknown (``ValFreq[0]``)."""
    mask = np.isnan(ctx.values[att][rows])
    return seq_sum(w[mask], ctx.dtype)
