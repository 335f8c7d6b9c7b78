"""Tree growth: Release 8's ``FormTree`` (docs/C45.md section 1), node by node.

This is the readable reference engine (``train(..., engine="dfs")``); the
rules both engines share are in :mod:`treegen.trainer.select` (leaf or
test, which attribute) and :mod:`treegen.trainer.route` (which branch).  The
default batched engine is :mod:`treegen.trainer.levelwise.grow`, tested to
grow the same tree bit for bit.  Growth is depth first in branch order.  The
unknown cases' weights in branch v are ``fl(w * Factor_v)``, and the next
branch starts from ``fl(fl(w * Factor_v) / Factor_v)``: Release 8's
multiply-then-divide round trip, which is not exact in float.  The
recursion is written as generators run by :func:`treegen.trainer.tree.run`
(an explicit stack), so deep trees cannot exhaust Python's stack.

Each node keeps, for every continuous attribute, its known rows in sorted
order; a split partitions those arrays stably with one boolean mask per
branch, so no node ever sorts.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.model.options import refuse_subsets_with
from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context, IntArray, cell_sums, seq_sum
from treegen.trainer.nominal import eval_nominal, nominal_freq
from treegen.trainer.options import GrowOptions
from treegen.trainer.route import branch_of
from treegen.trainer.select import gain_ratio, select, stays_leaf
from treegen.trainer.splits import Score, eval_continuous
from treegen.trainer.subsets import (
    LEAKED_MINOBJS,
    eval_subset,
    is_grouping,
    leaking_attribute,
)
from treegen.trainer.thresholds import cut_for
from treegen.trainer.tree import TNode, run

Sorted = npt.NDArray[np.int32]


def _unknown_weights(
    ctx: Context, rows: IntArray, w: npt.NDArray[np.floating], lens: IntArray
) -> npt.NDArray[np.floating]:
    """``ValFreq[0]`` per continuous attribute: summed weight of unknown values."""
    dt = ctx.dtype
    out = np.zeros(lens.size, dtype=dt)
    need = np.flatnonzero(lens < rows.size)
    if need.size:
        unk = np.isnan(ctx.cvals[np.ix_(need, rows)])
        out[need] = np.cumsum(np.where(unk, w[None, :], dt(0)), axis=1, dtype=dt)[:, -1]
    return out


def _partition(srt: Sorted, b: IntArray, v: int, n_rows: int) -> tuple[Sorted, IntArray]:
    """Stable per-attribute filter of the padded sorted rows to branch ``v`` (+ unknowns)."""
    mask = (b == v) | (b == -1)
    lens = mask.sum(axis=1)
    width = int(lens.max()) if lens.size else 0
    out = np.full((srt.shape[0], width), n_rows, dtype=np.int32)
    pos = np.cumsum(mask, axis=1) - 1
    r, _ = np.nonzero(mask)
    out[r, pos[mask]] = srt[mask]
    return out, lens


def _plain_scores(
    ctx: Context,
    rows: IntArray,
    w: npt.NDArray[np.floating],
    srt: Sorted,
    lens: IntArray,
    cases: float,
    tested: frozenset[int],
    opts: GrowOptions,
    atts: list[int],
) -> dict[int, Score]:
    """The scores of the attributes in ``atts`` at a node (section 1 step 4): multiway
    tests for the nominal ones not tested above, groupings for those of more than two
    values with ``--subsets`` (which may be tested again), thresholds for the
    continuous ones."""
    scores: dict[int, Score] = {}
    keep = set(atts)
    multi = [a for a in ctx.nom_pos if a in keep and opts.subsets and ctx.n_values[a] > 2]
    nom = [a for a in ctx.nom_pos if a in keep and a not in multi and a not in tested]
    if nom:
        scores.update(eval_nominal(ctx, nom, rows, w, cases))
    if multi:
        freq3 = nominal_freq(ctx, multi, rows, w)
        for j, a in enumerate(multi):
            f = freq3[j, : ctx.n_values[a] + 1]
            sub = eval_subset(ctx, f, cases, cases, ctx.min_cases, opts.criterion != "gain").score
            if sub is not None:
                scores[a] = sub
    cont = [a for a in ctx.cont_pos if a in keep]
    if cont:
        unk_w = _unknown_weights(ctx, rows, w, lens)
        kpos = np.asarray([j for j, a in enumerate(ctx.cont_pos) if a in keep], dtype=np.intp)
        cs = eval_continuous(
            ctx,
            kpos,
            srt[kpos],
            ctx.weights[srt[kpos]],
            lens[kpos],
            np.full(len(cont), cases),
            unk_w[kpos],
        )
        for j in np.flatnonzero(cs.ok).tolist():
            scores[cont[j]] = Score(float(cs.gain[j]), float(cs.info[j]), float(cs.bar[j]))
    return scores


def _scores(
    ctx: Context,
    rows: IntArray,
    w: npt.NDArray[np.floating],
    srt: Sorted,
    lens: IntArray,
    cases: float,
    tested: frozenset[int],
    opts: GrowOptions,
) -> dict[int, Score]:
    """Every admissible attribute's score at a node, in attribute order as Release 8
    evaluates them: from the first grouping with no known case on, MINOBJS is 1 for
    good (:func:`~treegen.trainer.subsets.leaking_attribute`)."""
    atts = list(range(len(ctx.kinds)))
    leak = leaking_attribute(ctx, rows, w, cases) if opts.subsets else None
    if leak is None:
        return _plain_scores(ctx, rows, w, srt, lens, cases, tested, opts, atts)
    scores = _plain_scores(ctx, rows, w, srt, lens, cases, tested, opts, atts[:leak])
    ctx.min_cases = LEAKED_MINOBJS
    after = atts[leak + 1 :]
    scores.update(_plain_scores(ctx, rows, w, srt, lens, cases, tested, opts, after))
    return scores


def form_tree(
    ctx: Context,
    rows: IntArray,
    w: npt.NDArray[np.floating],
    srt: list[Sorted],
    lens: IntArray,
    all_known: bool,
    tested: frozenset[int],
    opts: GrowOptions,
    depth: int = 0,
) -> Generator[Any, Any, TNode]:
    """Release 8's ``FormTree`` on ``rows`` with weights ``w``; ``srt[0]`` is the sorted rows.

    ``srt`` is a one-element list so that this frame can drop the arrays
    (the caller keeps the list, not the arrays) once the children have theirs.
    Weights are per node, with the unknown cases' ``Factor`` round trip
    carried from branch to branch as in :mod:`treegen.trainer.levelwise.grow` (so
    both engines grow the same tree bit for bit).
    """
    dt = ctx.dtype
    ctx.weights[rows] = w  # scratch lookup for the sorted arrays, valid while scoring
    yr = ctx.y[rows]
    cases = float(rows.size) if all_known and ctx.unit_weights else seq_sum(w, dt)
    freq = cell_sums(yr, w, ctx.n_classes, dt).astype(dt)
    best = int(np.argmax(freq))
    node = TNode("leaf", best, cases, ctx.fl(cases - float(freq[best])), freq.copy())
    if stays_leaf(ctx, cases, float(freq[best])):
        return node
    if opts.max_depth is not None and depth >= opts.max_depth:
        return node  # pre-pruning: --max-depth

    scores = _scores(ctx, rows, w, srt[0], lens, cases, tested, opts)
    att = select(ctx, scores, opts.criterion)
    if att < 0:
        return node
    if opts.min_gain_ratio and gain_ratio(scores[att].gain, scores[att].info) < opts.min_gain_ratio:
        return node  # pre-pruning: --min-gain-ratio

    if ctx.kinds[att] == "continuous":
        node.kind = "continuous"
        bar = scores[att].bar
        assert bar is not None  # a continuous attribute's score has its cut
        node.threshold = cut_for(ctx, att, bar)
        forks = 2
    elif is_grouping(scores[att].subsets):
        node.kind = "subset"
        node.subsets = scores[att].subsets
        forks = len(node.subsets)
    else:
        node.kind = "nominal"
        forks = ctx.n_values[att]
    node.attribute = att
    br = branch_of(ctx, node, rows)
    unk_mask = br < 0
    if np.count_nonzero(ctx.sums(br[~unk_mask], w[~unk_mask], forks) > 0) < 2:
        # All the known weight in one branch: that child would be this node
        # again (and split the same way forever), so the test is no split
        # (as in partition.partition).
        node.make_leaf()
        return node
    unk_rows = rows[unk_mask]
    unk_weight = seq_sum(w[unk_mask], dt)
    known_cases = ctx.fl(cases - unk_weight)
    child_known = all_known and unk_rows.size == 0
    child_tested = tested | {att} if node.kind == "nominal" else tested
    # Partition the sorted arrays for all branches now, before any child
    # runs: the scratch array of branch ids is shared by the whole run.
    scratch = ctx.scratch
    scratch[rows] = br
    b2 = scratch[srt[0]] if ctx.cont_pos else np.zeros((0, 0), dtype=np.intp)
    scratch[rows] = -3
    parts: list[tuple[npt.NDArray[np.bool_], IntArray, list[Sorted], IntArray] | None] = []
    for v in range(forks):
        in_v = br == v
        if not in_v.any():
            parts.append(None)
            continue
        sorted_v, lens_v = _partition(srt[0], b2, v, ctx.n_rows)
        parts.append((in_v, rows[in_v | unk_mask], [sorted_v], lens_v))
    srt.clear()  # the caller keeps only this list: clearing frees the arrays
    del b2
    errors = dt(0)
    cur_unk = w[unk_mask].astype(dt)
    nonempty: list[int] = []
    factors = [math.nan] * forks
    for v in range(forks):
        part = parts[v]
        if part is None:
            node.children.append(TNode("leaf", best, 0.0, 0.0, freq.copy()))
            continue
        parts[v] = None  # the child frame owns its arrays now
        in_v, child_rows, child_srt, child_lens = part
        del part
        child_w = w[in_v | unk_mask]
        known_v = seq_sum(w[in_v], dt)
        factor = dt(ctx.fl(known_v / known_cases) if known_cases else math.nan)
        nonempty.append(v)
        factors[v] = float(factor)
        if unk_rows.size:
            scaled = (cur_unk * factor).astype(dt)
            child_w[unk_mask[in_v | unk_mask]] = scaled
            if not ctx.j48:  # Release 8 divides back; J48 scales a copy
                cur_unk = (scaled / factor).astype(dt)
        child = yield form_tree(
            ctx,
            child_rows,
            child_w,
            child_srt,
            child_lens,
            child_known,
            child_tested,
            opts,
            depth + 1,
        )
        node.children.append(child)
        errors = dt(errors + dt(child.errors))
    node.errors = float(errors)
    node.nonempty, node.factors = tuple(nonempty), tuple(factors)
    # Collapse: a subtree no better than a leaf on the training data.
    if opts.collapse and node.errors >= cases - float(freq[best]) - EPSILON:
        node.make_leaf()
    return node


def grow(ctx: Context, opts: GrowOptions) -> TNode:
    """Grow the unpruned tree on all rows at their starting weights, node by node."""
    refuse_subsets_with(ctx.flavor, opts.subsets)
    ctx.reset_weights()
    rows = np.arange(ctx.n_rows, dtype=np.intp)
    srt = [ctx.presorted]
    w = ctx.start_weights()
    min_cases = ctx.min_cases
    try:
        root: TNode = run(form_tree(ctx, rows, w, srt, ctx.presorted_len, True, frozenset(), opts))
    finally:
        ctx.min_cases = min_cases  # growth may have leaked MINOBJS (subsets.leaking_attribute)
    return root
