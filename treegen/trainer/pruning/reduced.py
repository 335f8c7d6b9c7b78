"""Reduced-error pruning, as Weka J48 ``-R`` does it (``PruneableClassifierTree``).

The tree is grown (without growth's collapse) on one part of the data and
pruned on another, the *pruning set*: each pruning case is sent down the
tree, a case with an unknown tested value down every branch with the weight
share of that branch's training cases (``perBag / total``, J48's
``C45Split.weights``).  Then, bottom-up, a test becomes a leaf when the
pruning cases it would misclassify as a leaf are no more than its subtree
misclassifies (``Utils.smOrEq``: within 1e-6); an empty branch (no training
case) counts the pruning cases that reach it against its parent's class.

:func:`j48_split` is J48's split of a file into the growing and the pruning
set: ``Instances.stratify(folds)``, then ``trainCV(folds, folds - 1,
new Random(seed))`` (shuffled with Java's ``Random``) and ``testCV(folds,
folds - 1)``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.trainer.constants import J48_TOL
from treegen.trainer.context import Context, IntArray, cell_sums
from treegen.trainer.route import branch_of
from treegen.trainer.tree import TNode, walk

_MULT = 0x5DEECE66D
_MASK = (1 << 48) - 1


class JavaRandom:
    """``java.util.Random``: the 48-bit linear congruential generator, bit for bit."""

    def __init__(self, seed: int) -> None:
        self.state = (seed ^ _MULT) & _MASK

    def next_bits(self, bits: int) -> int:
        """``next(bits)``: the top ``bits`` of the new state, as Java's signed int."""
        self.state = (self.state * _MULT + 0xB) & _MASK
        r = self.state >> (48 - bits)
        return r - (1 << 32) if r >= 1 << 31 else r

    def next_int(self, bound: int) -> int:
        """``nextInt(bound)``: uniform in ``0..bound-1`` (Java's rejection loop)."""
        assert bound > 0
        r = self.next_bits(31)
        m = bound - 1
        if bound & m == 0:  # a power of two: the high bits
            return (bound * r) >> 31
        u = r
        while True:
            r = u % bound
            if u - r + m < 1 << 31:  # Java: no int overflow
                return r
            u = self.next_bits(31)


def stratified_order(y: npt.NDArray[np.integer], folds: int) -> list[int]:
    """Row order after ``Instances.stratify(folds)`` of rows ``0..n-1`` with classes ``y``.

    Stratify first groups the rows by class (its own swap sort, reproduced
    as written: the order within a class matters), then deals them out in
    ``folds`` interleaved strides (``stratStep``).
    """
    order = list(range(len(y)))
    n = len(order)
    index = 1
    while index < n:
        first = y[order[index - 1]]
        for j in range(index, n):
            if y[order[j]] == first:
                order[index], order[j] = order[j], order[index]
                index += 1
        index += 1
    out: list[int] = []
    start = 0
    while len(out) < n:
        out.extend(order[start::folds])
        start += 1
    return out


def j48_split(y: npt.NDArray[np.integer], folds: int, seed: int) -> tuple[IntArray, IntArray]:
    """Rows of J48 -R's growing set (in J48's order) and of its pruning set.

    The pruning set is the last of ``folds`` folds of the stratified order;
    the growing set, the others, shuffled by ``Instances.randomize`` with
    ``new Random(seed)`` (treegen sums in row order, so the order matters
    at rounding level, as it does in Weka).
    """
    order = stratified_order(y, folds)
    n = len(order)
    per, extra = divmod(n, folds)
    last = folds - 1
    size = per + 1 if last < extra else per
    first = last * per + (last if last < extra else extra)
    grow = order[:first] + order[first + size :]
    prune = order[first : first + size]
    rnd = JavaRandom(seed)
    for j in range(len(grow) - 1, 0, -1):
        k = rnd.next_int(j + 1)
        grow[j], grow[k] = grow[k], grow[j]
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
        leaf_err = float(dist.sum() - dist[t.cls])
        if t.kind == "leaf":
            tree_err[id(t)] = leaf_err
            continue
        sub = 0.0
        for child in t.children:
            if child.items == 0:  # empty branch: its pruning cases against the parent's class
                cd = test[id(child)]
                sub += float(cd.sum() - cd[t.cls])
            else:
                sub += tree_err[id(child)]
        if leaf_err - sub < J48_TOL:  # Utils.smOrEq(leaf, subtree)
            t.make_leaf()
            tree_err[id(t)] = leaf_err
        else:
            tree_err[id(t)] = sub
