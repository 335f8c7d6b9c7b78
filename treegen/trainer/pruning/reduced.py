"""Reduced-error pruning, as Weka J48 ``-R`` does it (``PruneableClassifierTree``).

The tree is grown (without growth's collapse) on one part of the data and
pruned on another, the *pruning set*: each pruning case is sent down the
tree, a case with an unknown tested value down every branch with the weight
share of that branch's training cases (``perBag / total``, J48's
``C45Split.weights``).  Then, bottom-up, a test becomes a leaf when the
pruning cases it would misclassify as a leaf are no more than its subtree
misclassifies (``Utils.smOrEq``: within 1e-6); an empty branch (no training
case) counts the pruning cases that reach it against its parent's class.  A
node's class there is, for j48, J48's ``maxClass`` of its growing-set weights
(1e-6 again).

:func:`j48_split` is J48's split of a file into the growing and the pruning
set: ``Instances.stratify(folds)``, then ``trainCV(folds, folds - 1,
new Random(seed))`` (shuffled with Java's ``Random``) and ``testCV(folds,
folds - 1)``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.data.weka_rows import JavaRandom, fold_bounds, randomize, stratified_order
from treegen.model.constants import J48_TOL
from treegen.trainer.context import Context, IntArray, cell_sums
from treegen.trainer.route import branch_of
from treegen.trainer.stats import weka_max_class
from treegen.trainer.tree import TNode, walk


def j48_split(y: npt.NDArray[np.integer], folds: int, seed: int) -> tuple[IntArray, IntArray]:
    """Rows of J48 -R's growing set (in J48's order) and of its pruning set.

    The pruning set is the last of ``folds`` folds of the stratified order;
    the growing set, the others, shuffled by ``Instances.randomize`` with
    ``new Random(seed)`` (treegen sums in row order, so the order matters
    at rounding level, as it does in Weka).
    """
    order = stratified_order(y, folds)
    first, end = fold_bounds(len(order), folds, folds - 1)
    grow = randomize(order[:first] + order[end:], JavaRandom(seed))
    prune = order[first:end]
    return np.asarray(grow, dtype=np.intp), np.asarray(prune, dtype=np.intp)


def reduced_error_prune(pctx: Context, root: TNode) -> None:
    """Prune ``root`` (grown without collapse) in place on ``pctx``'s rows, J48 -R's way.

    ``pctx`` is a context built on the pruning set (same schema as the
    training data); its rows are routed with the training tree's tests.
    """
    dt = pctx.dtype
    test: dict[int, npt.NDArray[np.floating]] = {}
    # Route the pruning cases top-down (explicit stack), keeping each node's
    # class distribution of pruning weight.
    stack: list[tuple[TNode, IntArray, npt.NDArray[np.floating]]] = [
        (root, np.arange(pctx.n_rows, dtype=np.intp), np.ones(pctx.n_rows, dtype=dt))
    ]
    while stack:
        t, rows, w = stack.pop()
        test[id(t)] = cell_sums(pctx.y[rows], w, pctx.n_classes, dt).astype(np.float64)
        if t.kind == "leaf":
            continue
        br = branch_of(pctx, t, rows)
        unknown = br < 0
        for v, child in enumerate(t.children):
            share = dt(child.items / t.items) if t.items > 0 else dt(0)
            take = (br == v) | unknown
            cw = np.where(unknown[take], w[take] * share, w[take]).astype(dt)
            stack.append((child, rows[take], cw))
    order: list[TNode] = []
    walk(root, order.append)
    tree_err: dict[int, float] = {}
    for t in reversed(order):  # children before parents
        dist = test[id(t)]
        # j48: J48's class of the node, maxClass of its growing-set weights: where two
        # classes are equal but for rounding (unknown values' fractional weights) the
        # first, which the first largest of treegen's own sums need not be.
        cls = t.cls
        if pctx.j48:
            # -R grows with the level or reference engine (fit.grow), whose nodes (empty
            # branches too; -R grows without collapse) hold dense arrays: only Release 8's
            # c45 engine holds a SparseDist.
            assert isinstance(t.dist, np.ndarray)
            cls = weka_max_class(t.dist.tolist())
        leaf_err = float(dist.sum() - dist[cls])
        if t.kind == "leaf":
            tree_err[id(t)] = leaf_err
            continue
        sub = 0.0
        for child in t.children:
            if child.items == 0:  # empty branch: its pruning cases against the parent's class
                cd = test[id(child)]
                sub += float(cd.sum() - cd[cls])
            else:
                sub += tree_err[id(child)]
        if leaf_err - sub < J48_TOL:  # Utils.smOrEq(leaf, subtree)
            t.make_leaf()
            tree_err[id(t)] = leaf_err
        else:
            tree_err[id(t)] = sub
