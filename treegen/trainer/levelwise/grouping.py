"""The c45 value-grouping search for many (node, attribute) pairs at once (``--subsets``).

:func:`treegen.trainer.subsets.best_subsets` searches one attribute at one
node; the level-wise engine has thousands of such searches per bucket, most
of a few blocks, where numpy's per-call cost is the whole cost (about 40x
plain training).  :func:`best_subsets_many` runs them in lockstep: each step
builds, scores and rates every search's candidate mergers in one set of
array operations, then each search takes its merger or stops.  Every number
is the one the single search computes, in the same order (a block's values
summed value by value, zero rows as padding, which adds nothing), so each
search ends where :func:`~treegen.trainer.subsets.best_subsets` ends
(tests/trainer/test_subsets_search.py and the engine-equality tests hold them equal).
:func:`group_values` gathers a bucket's searches for levelwise/grow.py.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context
from treegen.trainer.groups import Blocks, FloatArray, merge
from treegen.trainer.levelwise.bucket import Bucket, BucketScores
from treegen.trainer.options import GrowOptions
from treegen.trainer.select import average_gain
from treegen.trainer.splits import Score, nominal_freq, score_nominal
from treegen.trainer.subsets import (
    SPARE_CASES,
    admissible_mergers,
    best_subsets,
    final_scores,
    leaking_attribute,
    search_zeros,
    worths,
)

IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]


@cache
def _pair_arrays(n: int) -> tuple[IntArray, IntArray]:
    """The pairs (i, j), i < j, of n blocks in the order the search tries them."""
    i, j = np.triu_indices(n, 1)
    return i.astype(np.intp), j.astype(np.intp)


class _Batch:
    """Every search's state, one row per search.

    ``values`` are each search's ``Freq[v][c]`` rows of its values (zero rows
    past them), ``label`` the block of each value (-1: step 1's block or
    padding); ``current`` the grouping each search is at (the unknown row,
    the blocks' sums, step 1's block, zero rows), ``gain``/``val`` its gain
    and worth, ``block_w`` its blocks' weights.
    """

    def __init__(self, freqs: list[FloatArray], cases: list[float], averages: list[float]) -> None:
        S = len(freqs)
        kmax = max(f.shape[0] - 1 for f in freqs)
        c = freqs[0].shape[1]
        dt = freqs[0].dtype
        self.values = np.zeros((S, kmax, c), dtype=dt)
        self.width = kmax + 2
        self.current = np.zeros((S, self.width, c), dtype=dt)
        real = np.zeros((S, kmax), dtype=np.bool_)
        for t, f in enumerate(freqs):
            self.values[t, : f.shape[0] - 1] = f[1:]
            self.current[t, 0] = f[0]
            real[t, : f.shape[0] - 1] = True
        val_freq = self.values.sum(axis=2)  # each value's weight, as best_subsets sums it
        is_block = real & (val_freq > SPARE_CASES)
        is_spare = real & ~is_block
        self.n_blocks = np.count_nonzero(is_block, axis=1).astype(np.intp)
        self.has_tail = is_spare.any(axis=1)
        self.spare_held = (is_spare & (val_freq > 0.0)).any(axis=1)
        self.empty_tail = self.has_tail & ~self.spare_held
        self.valid = self.n_blocks + self.has_tail >= 2
        self.label = np.where(is_block, np.cumsum(is_block, axis=1) - 1, -1).astype(np.intp)
        rows, vals = np.nonzero(is_block)
        self.current[rows, 1 + self.label[rows, vals]] = self.values[rows, vals]
        # Step 1's block: its values summed in order (adding +0 for the others).
        tail = np.zeros((S, c), dtype=dt)
        for v in range(kmax):
            tail = tail + np.where(is_spare[:, v, None], self.values[:, v], 0)
        held = np.flatnonzero(self.has_tail)
        self.current[held, 1 + self.n_blocks[held]] = tail[held]
        self.blocks: list[Blocks] = [[[int(v)] for v in np.flatnonzero(r)] for r in is_block]
        self.tails: list[Blocks] = [
            [np.flatnonzero(r).tolist()] if r.any() else [] for r in is_spare
        ]
        self.cases = np.asarray(cases, dtype=np.float64)
        self.average = np.asarray(averages, dtype=np.float64)
        self.gain = np.zeros(
            S, dtype=np.float64
        )  # the three set by _search from the first groupings
        self.val = np.full(S, -EPSILON)
        self.block_w = np.zeros((S, self.width - 1), dtype=np.float64)
        self.done = ~self.valid


def _scores(
    ctx: Context, f: FloatArray, cases: npt.NDArray[np.float64]
) -> tuple[FloatArray, FloatArray, BoolArray, BoolArray, FloatArray]:
    """Gain, split info, MINOBJS test, two outcomes with weight, and the outcomes'
    weights of each grouping (as ``best_subsets``' ``score`` sees them)."""
    g, s, passes = score_nominal(ctx, f, cases)
    out_w = np.cumsum(f, axis=2, dtype=f.dtype)[:, 1:, -1]
    ok = np.count_nonzero(out_w > 0, axis=1) >= 2
    return g, s, passes, ok, out_w


def _candidates(bt: _Batch, active: IntArray) -> tuple[IntArray, IntArray, IntArray, FloatArray]:
    """Every merger of two blocks of the active searches: the search of each, its pair
    (in ``best_subsets``' order) and the grouping it makes, laid out as ``current``."""
    made = [_pair_arrays(int(n)) for n in bt.n_blocks[active]]
    owner = np.repeat(active, [len(i) for i, _ in made])
    first = np.concatenate([i for i, _ in made])
    second = np.concatenate([j for _, j in made])
    label = bt.label[owner]
    # The merged block: its values added in order, as freq_of sums them.  Column t
    # of ``order`` is each merger's t-th value (kmax, a zero row, past its last).
    inside = (label == first[:, None]) | (label == second[:, None])
    kmax = label.shape[1]
    rank = np.cumsum(inside, axis=1) - 1
    order = np.full((len(owner), int(rank[:, -1].max()) + 1), kmax, dtype=np.intp)
    rows, cols = np.nonzero(inside)
    order[rows, rank[rows, cols]] = cols
    padded = np.concatenate([bt.values, np.zeros_like(bt.values[:, :1])], axis=1)
    merged = padded[owner, order[:, 0]]
    for t in range(1, order.shape[1]):
        merged = merged + padded[owner, order[:, t]]  # adding the padding's 0 changes nothing
    # The other blocks keep their order, the merged one at the first's place, then
    # step 1's block (the current grouping's row after its blocks), then zeros.
    width = bt.width
    n = bt.n_blocks[owner][:, None]
    r = np.arange(width - 1, dtype=np.intp)[None, :]
    src = r + (r >= second[:, None])
    keep = r < n - 1
    out = np.zeros((len(owner), width, bt.current.shape[2]), dtype=bt.current.dtype)
    out[:, 0] = bt.current[owner, 0]
    body = bt.current[owner[:, None], np.where(keep, 1 + src, 0)]
    body[~keep] = 0
    at = np.nonzero(src == first[:, None])
    body[at] = merged[at[0]]
    out[:, 1:] = body
    tail = np.flatnonzero(bt.has_tail[owner])
    out[tail, bt.n_blocks[owner[tail]]] = bt.current[owner[tail], bt.n_blocks[owner[tail]] + 1]
    return owner, first, second, out


def _choices(
    owner: IntArray, vals: npt.NDArray[np.float64], g64: npt.NDArray[np.float64], bt: _Batch
) -> tuple[IntArray, IntArray]:
    """Per search with candidates, the merger it takes (-1: none improves on its
    grouping): the first best one, where one that loses no gain goes first, the
    one keeping most gain, then worth most, then the first (``best_subsets``'
    rule, for every search at once).  Returns (searches, mergers)."""
    change = np.r_[True, owner[1:] != owner[:-1]]
    start = np.flatnonzero(change)
    seg = np.cumsum(change) - 1
    index = np.arange(len(owner))
    best = np.maximum.reduceat(vals, start)
    at_best = vals == best[seg]
    first_best = np.full(len(start), len(owner))
    np.minimum.at(first_best, seg[at_best], index[at_best])
    chosen = np.where(best > bt.val[owner[start]], first_best, -1)
    lossless = np.flatnonzero((vals > bt.val[owner]) & (g64 >= bt.gain[owner] - EPSILON))
    if lossless.size:
        order = lossless[np.lexsort((lossless, -vals[lossless], -g64[lossless], seg[lossless]))]
        lead = order[np.r_[True, seg[order][1:] != seg[order][:-1]]]
        chosen[seg[lead]] = lead
    return owner[start], chosen


def _search(ctx: Context, bt: _Batch, criterion: str) -> None:
    """Run every search to its end (``best_subsets``' loop, in lockstep)."""
    g, s, _, ok, w = _scores(ctx, bt.current, bt.cases)
    bt.gain = g.astype(np.float64)
    bt.val = np.where(ok, worths(g, s, criterion, bt.average), -EPSILON)
    bt.block_w = np.where(np.arange(bt.width - 1)[None, :] < bt.n_blocks[:, None], w, 0.0)
    m = float(ctx.min_cases)
    while True:
        active = np.flatnonzero(~bt.done & (bt.n_blocks >= 2) & (bt.n_blocks + bt.spare_held > 2))
        if not active.size:
            return
        owner, first, second, f = _candidates(bt, active)
        g, s, _, ok, w = _scores(ctx, f, bt.cases[owner])
        n = bt.n_blocks[owner]
        # The blocks' weights after each merger (columns past them can never count).
        weights = np.where(np.arange(w.shape[1])[None, :] < (n - 1)[:, None], w, -np.inf)
        pair_w = (bt.block_w[owner, first], bt.block_w[owner, second])
        admit = ok & admissible_mergers(m, pair_w, weights, g, bt.gain[owner], bt.empty_tail[owner])
        vals = np.where(admit, worths(g, s, criterion, bt.average[owner]), -EPSILON)
        assert not np.isnan(vals).any(), "blocks hold known cases: finite gains"
        searches, chosen = _choices(owner, vals, g.astype(np.float64), bt)
        bt.done[searches[chosen < 0]] = True  # no merger improves on their grouping
        take, p = searches[chosen >= 0], chosen[chosen >= 0]
        for a, q in zip(take.tolist(), p.tolist(), strict=True):
            bt.blocks[a] = merge(bt.blocks[a], int(first[q]), int(second[q]))
        lab = bt.label[take]
        i, j = first[p][:, None], second[p][:, None]
        lab = np.where(lab == j, i, lab)
        bt.label[take] = np.where(lab > j, lab - 1, lab)
        bt.current[take] = f[p]
        bt.n_blocks[take] -= 1
        bt.val[take] = vals[p]
        bt.gain[take] = g[p]
        left = np.arange(bt.width - 1)[None, :] < bt.n_blocks[take][:, None]
        bt.block_w[take] = np.where(left, w[p], 0.0)


def best_subsets_many(
    ctx: Context,
    freqs: list[FloatArray],
    cases: list[float],
    criterion: str,
    averages: list[float],
) -> list[Score | None]:
    """:func:`~treegen.trainer.subsets.best_subsets` (c45) of each ``freqs[t]``
    (``Freq[v][c]`` of one attribute at one node, ``cases[t]`` its weight,
    ``averages[t]`` its node's average plain gain), all searched at once."""
    if ctx.j48 or not freqs:
        return [
            best_subsets(ctx, f, c, criterion, a)
            for f, c, a in zip(freqs, cases, averages, strict=True)
        ]
    bt = _Batch(freqs, cases, averages)
    _search(ctx, bt, criterion)
    valid = np.flatnonzero(bt.valid)
    tail_row = np.where(bt.spare_held, 1 + bt.n_blocks, -1)[valid]
    subsets = [tuple(tuple(b) for b in bt.blocks[t] + bt.tails[t]) for t in valid]
    scores = final_scores(
        ctx,
        bt.current[valid],
        bt.cases[valid],
        tail_row,
        bt.gain[valid].tolist(),
        subsets,
        bt.n_blocks[valid].tolist(),
    )
    out: list[Score | None] = [None] * len(freqs)
    for t, score in zip(valid.tolist(), scores, strict=True):
        out[t] = score
    return out


def group_values(
    ctx: Context, bucket: Bucket, opts: GrowOptions, scores: BucketScores
) -> npt.NDArray[np.bool_] | None:
    """``--subsets`` (c45): replace the plain scores of attributes with more than two
    values by their best grouping, searched against each node's average plain gain
    (all of the bucket's searches at once, :func:`best_subsets_many`).

    Returns, per task, whether it has that average (elsewhere no attribute
    counts in it and the node stays a leaf), which
    :func:`~treegen.trainer.levelwise.choose.choose` then uses, as the
    node-by-node engine does; None where a node would leave MINOBJS at
    1 for the rest of the growth (:func:`~treegen.trainer.subsets.minobjs_leaks`),
    which only a depth-first growth can follow (treegen.trainer.fit grows those so).
    """
    multi = [a for a in ctx.nom_pos if ctx.n_values[a] > 2]
    grouped = np.zeros(bucket.n_tasks, dtype=np.bool_)
    f3s = [nominal_freq(ctx, multi, t.rows, t.w) for t in bucket.tasks] if multi else []
    if any(leaking_attribute(ctx, multi, f3) is not None for f3 in f3s):
        return None
    # Every (node, attribute) search of the bucket at once.
    where: list[tuple[int, int]] = []
    freqs: list[npt.NDArray[np.floating]] = []
    cases: list[float] = []
    averages: list[float] = []
    for b in range(bucket.n_tasks):
        average = average_gain(ctx, scores.of_task(b), search_zeros(ctx, bucket.tasks[b].tested))
        if average is None:
            continue
        grouped[b] = True
        for j, a in enumerate(multi):
            where.append((b, a))
            freqs.append(f3s[b][j, : ctx.n_values[a] + 1])
            cases.append(float(bucket.cases[b]))
            averages.append(average)
    subs = best_subsets_many(ctx, freqs, cases, opts.criterion, averages) if where else []
    for (b, a), sub in zip(where, subs, strict=True):
        if sub is None:
            scores.ok[b, a] = False
        else:
            scores.set_subset(b, a, sub)
    return grouped
