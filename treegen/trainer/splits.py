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

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.trainer.context import Context, IntArray
from treegen.trainer.stats import EPSILON, base_info_many, log2_c45, thresh_cost, total_info
from treegen.trainer.stats import min_split as min_split_f

J48_TOL = 1e-6  # Weka's Utils.eq / gr / sm tolerance
CHUNK = 1 << 22  # max cells (attributes x sorted rows) scored together: bounds memory


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
    codes = ctx.ncodes[rows][:, cols]  # (n, K)
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
    ctx: Context, freq: npt.NDArray[np.floating], cases: float, min_cases: float
) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating], npt.NDArray[np.bool_]]:
    """Gain, split info and admissibility of splits given as ``Freq[v][c]`` (section 2).

    ``freq`` has shape (K, outcomes + 1, C) with outcome 0 the unknowns; an
    outcome with no weight adds nothing (padding is harmless).
    """
    dt = ctx.dtype
    C = ctx.n_classes
    val_freq = np.cumsum(freq, axis=2, dtype=dt)[:, :, -1]  # ValFreq[v] = sum over classes
    known = (dt(cases) - val_freq[:, 0]).astype(dt)
    unk_rate = (val_freq[:, 0] / dt(cases)).astype(dt)
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
    split = (total_info([val_freq[:, v] for v in range(n_out)], dt) / dt(cases)).astype(dt)
    ok = (val_freq[:, 1:] > 0).any(axis=1) & (reasonable >= 2)
    return gain, split, ok


def eval_nominal(
    ctx: Context, atts: list[int], rows: IntArray, w: npt.NDArray[np.floating], cases: float
) -> dict[int, Score]:
    """Gain and split info of a multiway split on each nominal attribute in ``atts``."""
    freq = nominal_freq(ctx, atts, rows, w)
    gain, split, ok = score_outcomes(ctx, freq, cases, ctx.min_cases)
    return {a: Score(float(gain[j]), float(split[j])) for j, a in enumerate(atts) if ok[j]}


def eval_continuous(
    ctx: Context,
    atts: list[int],
    srt: npt.NDArray[np.int32],
    lens: IntArray,
    cases: float,
    unknown_w: npt.NDArray[np.floating],
) -> dict[int, Score]:
    """Best threshold of each continuous attribute from its sorted known rows (section 3).

    ``srt[k]`` holds the node's known rows for ``atts[k]`` in value order,
    padded with the dummy row ``ctx.n_rows`` (weight 0) to a common length.
    """
    out: dict[int, Score] = {}
    width = max(int(srt.shape[1]), 1)
    step = max(1, CHUNK // width)
    for lo in range(0, len(atts), step):
        hi = min(len(atts), lo + step)
        out.update(
            _eval_cont_chunk(ctx, atts[lo:hi], srt[lo:hi], lens[lo:hi], cases, unknown_w[lo:hi])
        )
    return out


def _eval_cont_chunk(
    ctx: Context,
    atts: list[int],
    srt: npt.NDArray[np.int32],
    lens: IntArray,
    cases: float,
    unknown_w: npt.NDArray[np.floating],
) -> dict[int, Score]:
    dt = ctx.dtype
    C = ctx.n_classes
    m = ctx.min_cases
    K, L = srt.shape
    if L < 2:
        return {}
    known = (dt(cases) - unknown_w.astype(dt)).astype(dt)
    kpos = np.asarray([ctx.cont_pos[a] for a in atts], dtype=np.intp)
    wts = ctx.weights[srt]
    cls = ctx.y[srt]
    vals = ctx.cvals[kpos[:, None], srt].astype(np.float64)
    low = np.cumsum(wts, axis=1, dtype=dt)
    per_class = [np.where(cls == c, wts, dt(0)) for c in range(C)]
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
        min_split = np.asarray([min_split_f(float(k), C, m, dt) for k in known])
        enough = known >= 2 * m
        lim = (known - min_split.astype(dt)).astype(dt)
        over = np.logical_or.accumulate(low_i > lim[:, None], axis=1)
        ok = (low_i >= min_split[:, None].astype(dt)) & ~over
        distinct = vals[:, :-1] < vals[:, 1:] - 1e-5
    cand = ok & distinct & valid & enough[:, None]
    kk, ii = np.nonzero(cand)
    if kk.size == 0:
        return {}
    tries = np.bincount(kk, minlength=K)
    bel = [b[kk, ii] for b in below]
    abv = []
    for c, wc in enumerate(per_class):
        seq = np.concatenate((tot[:, c : c + 1], wc), axis=1)
        abv.append(np.subtract.accumulate(seq, axis=1, dtype=dt)[kk, ii + 1])
    vf1 = low[kk, ii]
    vf2 = (known[kk] - vf1).astype(dt)
    this_info = (total_info(bel, dt) + total_info(abv, dt)).astype(dt)
    unk_rate = (dt(1) - (known / dt(cases)).astype(dt)).astype(dt)
    gain = ((dt(1) - unk_rate[kk]) * (base[kk] - (this_info / known[kk]).astype(dt))).astype(dt)
    if ctx.j48:
        gain[(m - vf1 > J48_TOL) | (m - vf2 > J48_TOL)] = dt(-EPSILON)
    else:
        gain[(vf1 < m) | (vf2 < m)] = dt(-EPSILON)
    unk = unknown_w.astype(dt)[kk]
    split = (total_info([unk, vf1, vf2], dt) / dt(cases)).astype(dt)
    starts = np.concatenate(([0], np.cumsum(tries)[:-1]))
    out: dict[int, Score] = {}
    for k in np.flatnonzero(tries).tolist():
        s, e = int(starts[k]), int(starts[k] + tries[k])
        if ctx.j48:
            best, best_gain = -1, 0.0
            for j, g in enumerate(gain[s:e].tolist()):
                if g - best_gain > J48_TOL:
                    best, best_gain = j, g
            if best < 0:
                continue
            pen = best_gain - float(log2_c45(float(tries[k]))) / cases
            if pen < J48_TOL:
                continue
            i = int(ii[s + best])
            lo_v, hi_v = float(vals[k, i]), float(vals[k, i + 1])
            bar = (lo_v + hi_v) / 2
            if bar == hi_v:
                bar = lo_v
            out[atts[k]] = Score(pen, float(split[s + best]), bar)
            continue
        cost = dt(thresh_cost(int(tries[k]), cases, dt))
        pen_arr = (gain[s:e] - cost).astype(dt)
        j = int(np.argmax(pen_arr))
        if not pen_arr[j] > 0:
            continue
        i = int(ii[s + j])
        v32 = ctx.cvals[kpos[k], srt[k, i : i + 2]]
        bar = float(dt((v32[0] + v32[1]) / dt(2)))
        out[atts[k]] = Score(float(pen_arr[j]), float(split[s + j]), bar)
    return out
