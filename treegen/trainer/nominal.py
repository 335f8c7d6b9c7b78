"""Scoring nominal attributes from their weighted counts (docs/C45.md section 2).

:func:`nominal_freq` counts ``Freq[v][c]`` for a node's cases and a list of
attributes in one pass; :func:`score_outcomes` turns counts of outcomes into gain,
split info and admissibility (multiway tests, and value groupings through
:mod:`treegen.trainer.subsets`); :func:`score_nominal` is the same through the C
accelerator (``nominal_prep`` / ``nominal_finish``) where it is built, and
:func:`eval_nominal` scores a node's nominal attributes (a
:class:`~treegen.trainer.splits.Score` each).  The continuous attributes are
:mod:`treegen.trainer.splits`'.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.trainer import native
from treegen.trainer.context import Context, IntArray
from treegen.trainer.splits import FloatArray, Score
from treegen.trainer.stats import base_info_many, j48_logs, total_info


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
    *,
    unknown_of: npt.NDArray[np.floating] | None = None,
    val_freq: npt.NDArray[np.floating] | None = None,
    base: npt.NDArray[np.floating] | None = None,
) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating], npt.NDArray[np.bool_]]:
    """Gain, split info and admissibility of splits given as ``Freq[v][c]`` (section 2).

    ``freq`` has shape (K, outcomes + 1, C) with outcome 0 the unknowns; an
    outcome with no weight adds nothing (padding is harmless).  By default the
    unknown rate is ``ValFreq[0] / cases``, ``ValFreq[v]`` the sum of ``Freq[v]``
    over the classes and the base information that of the known cases' classes;
    Release 8's case-order engine passes its own (``unknown_of``: the node's
    ``CountItems`` when the attribute was evaluated; ``val_freq`` and ``base``: a
    value grouping's, treegen/trainer/release8/subset.py).
    """
    dt = ctx.dtype
    cases_a = np.broadcast_to(np.asarray(cases, dtype=dt), freq.shape[:1])
    if val_freq is None:
        val_freq = np.cumsum(freq, axis=2, dtype=dt)[:, :, -1]  # ValFreq[v] = sum over classes
    known = (cases_a - val_freq[:, 0]).astype(dt)
    unk_of = cases_a if unknown_of is None else np.asarray(unknown_of, dtype=dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        unk_rate = (val_freq[:, 0] / unk_of).astype(dt)
    if ctx.j48:
        reasonable = np.count_nonzero(val_freq[:, 1:] - min_cases > -J48_TOL, axis=1)
    else:
        reasonable = np.count_nonzero(val_freq[:, 1:] >= min_cases, axis=1)
    if base is None:
        known_class = np.cumsum(freq[:, 1:, :], axis=1, dtype=dt)[:, -1, :]
        base = base_info_many(known_class, known, dt)
    # A class of no weight at any outcome adds +0.0 to every sum (which never holds
    # -0.0): leaving it out is exact, and with thousands of classes most are such.
    present = np.flatnonzero(freq[:, 1:, :].any(axis=(0, 1))).tolist() or [0]
    infos = total_info([freq[:, 1:, c] for c in present], dt)  # (K, outcomes)
    this_info = np.cumsum(infos, axis=1, dtype=dt)[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):  # all-unknown attributes: 0/0
        gain = ((dt(1) - unk_rate) * (base - (this_info / known).astype(dt))).astype(dt)
    n_out = freq.shape[1]
    split = (total_info([val_freq[:, v] for v in range(n_out)], dt) / cases_a).astype(dt)
    ok = (val_freq[:, 1:] > 0).any(axis=1) & (reasonable >= 2)
    return gain, split, ok


def score_nominal(
    ctx: Context, freq: npt.NDArray[np.floating], cases: float | npt.NDArray[np.floating]
) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating], npt.NDArray[np.bool_]]:
    """:func:`score_outcomes` at the context's MINOBJS, through the C accelerator
    where it is built: the same gains, split infos and flags.

    ``nominal_prep`` writes every value whose logarithm the scores need, numpy
    takes the logs (so they are the numpy path's), ``nominal_finish`` does the
    rest, operation for operation as :func:`score_outcomes`
    (tests/trainer/test_trainer_native.py holds the two equal); the j48 flavour
    has both steps in double (``nominal_prep_j48``, ``nominal_finish_j48``).
    """
    lib = native.cscan
    if lib is None or (ctx.j48 and freq.shape[1] < 2):
        return score_outcomes(ctx, freq, cases, ctx.min_cases)
    if ctx.j48:
        return _score_nominal_j48(ctx, lib, freq, cases)
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


def _score_nominal_j48(
    ctx: Context, lib: ModuleType, freq: npt.NDArray[np.floating], cases: float | FloatArray
) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating], npt.NDArray[np.bool_]]:
    """:func:`score_nominal`'s two C steps in double, for the j48 flavour."""
    K, n_out, C = freq.shape
    f = np.ascontiguousarray(freq, dtype=np.float64)
    cs = np.ascontiguousarray(np.broadcast_to(np.asarray(cases, dtype=np.float64), (K,)))
    L = (n_out - 1) * C + n_out + C + 2
    x = ctx.work.get("nominal_x", K * L, np.float64)
    known = np.empty(K)
    unk_rate = np.empty(K)
    ok = np.empty(K, dtype=np.uint8)
    lib.nominal_prep_j48(f, n_out, C, cs, ctx.min_cases, x, known, unk_rate, ok)
    lg = j48_logs(x, ctx.work.get("nominal_lg", K * L, np.float64))
    gain = np.empty(K)
    info = np.empty(K)
    lib.nominal_finish_j48(f, lg, n_out, C, cs, known, unk_rate, gain, info)
    return gain, info, ok.astype(np.bool_)


def eval_nominal(
    ctx: Context,
    atts: list[int],
    rows: IntArray,
    w: npt.NDArray[np.floating],
    cases: float,
) -> dict[int, Score]:
    """Gain and split info of a multiway split on each nominal attribute in ``atts``."""
    freq = nominal_freq(ctx, atts, rows, w)
    gain, split, ok = score_outcomes(ctx, freq, cases, ctx.min_cases)
    return {a: Score(float(gain[j]), float(split[j])) for j, a in enumerate(atts) if ok[j]}
