"""The test each task of a bucket splits on (section 1 step 6), all tasks at once.

:func:`choose` is :func:`treegen.trainer.select.select` over a bucket's
scores (:class:`~treegen.trainer.levelwise.bucket.BucketScores`): Release 8's
gain ratio rule vectorised in float32 as Release 8 computes it, J48's in its
own vectorised form (:func:`choose_j48`), the other criteria node by node
through ``select`` itself, so both engines choose the same test.
:func:`drop_below_min_gain_ratio` is the ``--min-gain-ratio`` pre-pruning.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context, IntArray
from treegen.trainer.levelwise.bucket import BucketScores
from treegen.trainer.options import GrowOptions
from treegen.trainer.select import gain_ratio, select


def choose(
    ctx: Context,
    opts: GrowOptions,
    scores: BucketScores,
    grouped: npt.NDArray[np.bool_] | None = None,
) -> IntArray:
    """The chosen attribute per task (-1: none), as :func:`~treegen.trainer.select.select` decides.

    Release 8's gain ratio rule is vectorised over the bucket (float32 as
    there); J48's has its own vectorised form (:func:`choose_j48`); the
    gain criterion, and the ``--subsets`` tasks ``grouped`` by
    treegen.trainer.levelwise.grow's value grouping (the others stay
    leaves), go node by node through ``select`` itself.
    """
    G, SI, OK = scores.gain, scores.info, scores.ok
    B, n_att = G.shape
    if grouped is not None:
        out = np.full(B, -1, dtype=np.intp)
        for b in np.flatnonzero(grouped).tolist():
            out[b] = select(ctx, scores.of_task(b), opts.criterion)  # its own average
        return out
    if ctx.j48 and opts.criterion == "gainratio":
        return choose_j48(ctx, scores)
    if ctx.j48 or opts.criterion != "gainratio":
        out = np.full(B, -1, dtype=np.intp)
        for b in range(B):
            out[b] = select(ctx, scores.of_task(b), opts.criterion)
        return out
    dt = ctx.dtype
    qual = OK & in_average(ctx, n_att)[None, :]
    g32 = np.where(OK, G, 0.0).astype(dt)
    av_sum = np.cumsum(np.where(qual, g32, dt(0)), axis=1, dtype=dt)[:, -1]
    count = qual.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        av = (av_sum / count.astype(dt)).astype(dt).astype(np.float64)
        ratio = (g32 / np.where(OK, SI, 1.0).astype(dt)).astype(dt).astype(np.float64)
    g64 = g32.astype(np.float64)
    good = OK & (g64 >= av[:, None] - EPSILON) & (SI > EPSILON)
    worth = np.where(good, ratio, -EPSILON)
    worth[~OK] = -np.inf
    best = np.argmax(worth, axis=1)
    ok = (worth[np.arange(B), best] > -EPSILON) & (count > 0)
    return np.where(ok, best, -1)


def drop_below_min_gain_ratio(chosen: IntArray, scores: BucketScores, threshold: float) -> None:
    """Pre-pruning: drop (set to -1) every chosen test whose gain ratio is below ``threshold``.

    Node by node with :func:`~treegen.trainer.select.gain_ratio`, the
    formula the node-by-node engine uses, on the same scores.
    """
    for b in np.flatnonzero(chosen >= 0).tolist():
        a = int(chosen[b])
        if gain_ratio(float(scores.gain[b, a]), float(scores.info[b, a])) < threshold:
            chosen[b] = -1


def in_average(ctx: Context, n_att: int) -> npt.NDArray[np.bool_]:
    """Attributes whose gain counts in the average gain (:meth:`Context.counts_in_average`)."""
    return np.asarray([ctx.counts_in_average(a) for a in range(n_att)], dtype=np.bool_)


def choose_j48(ctx: Context, scores: BucketScores) -> IntArray:
    """:func:`~treegen.trainer.select.select` for the j48 flavour, all tasks at once.

    The average gain is a double sum in attribute order; attributes are then
    taken in order, each replacing the best so far only when its ratio is
    more than ``J48_TOL`` higher (J48's ``Utils.gr``), as the node-by-node loop does.
    """
    G, SI, OK = scores.gain, scores.info, scores.ok
    B, n_att = G.shape
    qual = OK & in_average(ctx, n_att)[None, :]
    av_sum = np.cumsum(np.where(qual, G, 0.0), axis=1)[:, -1] if n_att else np.zeros(B)
    count = qual.sum(axis=1)
    best = np.full(B, -1, dtype=np.intp)
    best_val = np.zeros(B)
    with np.errstate(divide="ignore", invalid="ignore"):
        av = av_sum / count
        for a in range(n_att):
            g, info = G[:, a], SI[:, a]
            val = np.where(np.abs(info) < J48_TOL, 0.0, g / info)
            take = OK[:, a] & (g >= av - EPSILON) & (val - best_val > J48_TOL)
            best[take] = a
            best_val[take] = val[take]
    best[count == 0] = -1
    return best
