"""Growth in Release 8's case order: ``FormTree`` (docs/C45.md section 1).

A node is a segment ``fp..lp`` of the case array (:class:`Cases`).  Its steps:
count it and its classes, stop as a leaf (pure, or fewer than ``2 MINOBJS``),
score the attributes (:mod:`treegen.trainer.release8.evaluate`, which reorders
the segment), pick one, then:

1. the cases whose tested value is unknown go to the front of the segment
   (positions ``fp..kp-1``); if there are any, ``AllKnown`` is off below;
2. for each branch in turn, its cases are moved to ``kp..ep`` (scanning from
   ``kp``, where the previous branch's cases still are), the unknown cases'
   weights are multiplied by the branch's ``Factor`` (its known weight over the
   node's known weight), the child is grown on ``fp..ep``, the unknown cases are
   moved back to the front (the child has reordered them) and their weights
   divided by ``Factor``: in float32 that round trip leaves them a little off,
   and the next branch starts from there;
3. a branch with no known case is an empty leaf;
4. a subtree no better than a leaf on the training data is undone.

The recursion is a generator run by :func:`treegen.trainer.tree.run`, so deep
trees need no Python stack.  ``max_depth`` and ``min_gain_ratio`` are treegen's
pre-pruning options (``TrainOptions``), applied as in the other engines.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.model.dist import SPARSE_MIN_CLASSES, SparseDist
from treegen.model.options import refuse_subsets_with
from treegen.trainer import native
from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context
from treegen.trainer.options import GrowOptions
from treegen.trainer.release8 import segments
from treegen.trainer.release8.cases import F32, Cases
from treegen.trainer.release8.evaluate import State, choose, evaluate, in_average
from treegen.trainer.route import subset_table
from treegen.trainer.select import gain_ratio
from treegen.trainer.thresholds import cut_for
from treegen.trainer.tree import TNode, held_dist, run

PROGRESS_EVERY = 256  # nodes between calls of the progress callback


def passes_branch(cases: Cases, node: TNode, v: int, fp: int, lp: int) -> npt.NDArray[np.bool_]:
    """Which cases of ``fp..lp`` take branch ``v`` of ``node`` (v = -1: the unknown value)."""
    ctx = cases.ctx
    rows = cases.rows(fp, lp)
    a = node.attribute
    out: npt.NDArray[np.bool_]
    if node.kind == "continuous":
        vals = ctx.value_col(a)[rows]
        if v < 0:
            out = np.isnan(vals)
        else:
            below = vals <= np.float32(node.threshold)
            out = below if v == 0 else ~below & ~np.isnan(vals)
        return out
    codes = ctx.codes_at(a, rows)
    if v < 0:
        out = codes == 0
    elif node.kind == "subset":
        out = subset_table(ctx.n_values[a], node.subsets)[codes] == v
    else:
        out = codes == v + 1
    return out


def group(cases: Cases, node: TNode, v: int, fp: int, lp: int) -> int:
    """``cases.to_front(passes_branch(...), fp)``: branch ``v``'s cases of ``fp..lp``
    to the front, the position after them returned.  A continuous test's cases are
    picked and moved in one accelerator call (r8_cont_front)."""
    lib = native.cscan
    if node.kind == "continuous" and lib is not None and hasattr(lib, "r8_cont_front"):
        col = cases.ctx.value_col(node.attribute)
        if col.dtype == F32:
            k: int = lib.r8_cont_front(col, node.threshold, v, cases.order, cases.weight, fp, lp)
            return fp + k
    return cases.to_front(passes_branch(cases, node, v, fp, lp), fp)


def branches_taken(cases: Cases, node: TNode, forks: int, kp: int, lp: int) -> int:
    """How many of the ``forks`` branches some case of ``kp..lp`` (all known) takes."""
    lib = native.cscan
    if node.kind == "continuous" and lib is not None and hasattr(lib, "r8_cont_sides"):
        col = cases.ctx.value_col(node.attribute)
        if col.dtype == F32:
            below, above = lib.r8_cont_sides(col, node.threshold, cases.order, kp, lp)
            return int(below > 0) + int(above > 0)
    return sum(bool(passes_branch(cases, node, v, kp, lp).any()) for v in range(forks))


def node_classes(
    cases: Cases, fp: int, lp: int
) -> tuple[int, np.float32, npt.NDArray[np.floating] | SparseDist, npt.NDArray[np.float32] | None]:
    """The class sums of ``fp..lp`` as a node needs them: its class (the first of the
    largest weight, numpy's argmax), that weight, its dist as :func:`held_dist` keeps
    it, and the dense sums (None where the dist is sparse: then no dense array is
    made).  With thousands of classes and a few cases a node, the dense 4,000-float
    sums, their argmax and :func:`~treegen.model.dist.make_dist`'s scan of them were
    most of a node's cost; the classes present (:meth:`Cases.class_pairs`, one
    accelerator call) give the same class, weight and ``SparseDist`` (make_dist's
    rule: at most a quarter of the classes present, the +0.0 sums left out)."""
    n = cases.ctx.n_classes
    if n >= SPARSE_MIN_CLASSES:
        pairs = cases.class_pairs(fp, lp)
        if pairs is not None:
            cls, w, at, ws = pairs
            return cls, F32(w), SparseDist._trusted(n, at, ws), None
    freq = cases.class_freq(fp, lp)
    best = int(np.argmax(freq))
    return best, freq[best], held_dist(freq), freq


def greatest_value_below(cases: Cases, att: int, bar: float) -> float:
    """The threshold of a cut at ``bar``: the largest training value of ``att`` not above
    it (section 1 step 8), found as Release 8 finds it, scanning every case in the
    array's current order and keeping the first of the largest.  Only zero has two
    equal values, 0.0 and -0.0: which of them becomes the threshold (and is printed,
    ``0`` or ``-0``) is the one met first."""
    cut = cut_for(cases.ctx, att, bar)
    if cut != 0.0:
        return cut
    vals = cases.ctx.value_col(att)[cases.order]
    first = int(np.argmax(vals == 0))  # vals holds a zero: cut is one of its values
    return float(vals[first])


def form_tree(
    cases: Cases, fp: int, lp: int, state: State, opts: GrowOptions, depth: int
) -> Generator[Any, Any, TNode]:
    """Release 8's ``FormTree`` on the segment ``fp..lp``."""
    ctx = cases.ctx
    state.nodes += 1
    if state.progress is not None and state.nodes % PROGRESS_EVERY == 0:
        state.progress("growing", state.nodes)
    items = cases.count(fp, lp)
    best, fbest, held, freq = node_classes(cases, fp, lp)
    node = TNode("leaf", best, items, float(F32(F32(items) - fbest)), held)
    if float(fbest) == items or items < 2 * state.min_cases:
        return node
    if opts.max_depth is not None and depth >= opts.max_depth:
        return node
    scores = evaluate(cases, fp, lp, items, state)
    att = choose(scores, state)
    if att < 0:
        return node
    score = scores[att]
    if opts.min_gain_ratio and gain_ratio(score.gain, score.info) < opts.min_gain_ratio:
        return node
    node.attribute = att
    if ctx.kinds[att] == "continuous":
        node.kind = "continuous"
        assert score.bar is not None  # a continuous attribute's score has its cut
        node.threshold = greatest_value_below(cases, att, score.bar)
        forks = 2
    elif score.subsets:
        node.kind = "subset"
        node.subsets = score.subsets
        forks = len(score.subsets)
    else:
        node.kind = "nominal"
        forks = ctx.n_values[att]
    kp = group(cases, node, -1, fp, lp)
    if branches_taken(cases, node, forks, kp, lp) < 2:
        # Every known case in one branch: that child would be this node again, and
        # Release 8 recurses until it crashes (docs/RELEASE8_BUGS.md); no split.
        node.make_leaf()
        return node
    was_known = cases.all_known
    if kp != fp:
        cases.all_known = False
    known_cases = F32(F32(items) - F32(cases.count(fp, kp - 1)))
    state.tested[att] += 1
    errors = F32(0)
    for v in range(forks):
        ep = group(cases, node, v, kp, lp) - 1
        if kp > ep:
            # The parent's weights (a SparseDist is immutable and shared; an array is copied).
            kept = held if freq is None else freq.copy()
            node.children.append(TNode("leaf", best, 0.0, 0.0, kept))
            continue
        factor = F32(F32(cases.count(kp, ep)) / known_cases)
        cases.scale(fp, kp, factor)
        child = yield form_tree(cases, fp, ep, state, opts, depth + 1)
        node.children.append(child)
        errors = F32(errors + F32(child.errors))
        group(cases, node, -1, fp, ep)
        cases.scale(fp, kp, factor, divide=True)
    state.tested[att] -= 1
    cases.all_known = was_known
    node.errors = float(errors)
    if opts.collapse and node.errors >= float(F32(F32(items) - fbest)) - EPSILON:
        node.make_leaf()
    return node


def grow(
    ctx: Context, opts: GrowOptions, progress: Callable[[str, int], None] | None = None
) -> tuple[TNode, Cases]:
    """The unpruned tree grown in Release 8's case order, and the case array as growth
    leaves it (pruning starts from that order).  ``progress("growing", nodes)`` is
    called every :data:`PROGRESS_EVERY` nodes."""
    refuse_subsets_with(ctx.flavor, opts.subsets)
    cases = Cases(ctx)
    state = State(
        min_cases=ctx.min_cases,
        tested=[0] * len(ctx.kinds),
        subsets=opts.subsets,
        gainratio=opts.criterion != "gain",
        progress=progress,
    )
    state.in_average = in_average(cases)
    if segments.available(ctx):
        state.scratch = segments.Scratch.of(ctx)
    root: TNode = run(form_tree(cases, 0, ctx.n_rows - 1, state, opts, 0))
    return root, cases
