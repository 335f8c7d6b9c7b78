"""J48's training replayed on the tree treegen grew, in Weka's orders (:class:`Replay`).

:mod:`treegen.trainer.j48order` says when the j48 trainer replays and takes the
numbers from the replayed tree (:class:`WTree`).  What it reproduces, as Weka 3.6.14's
bytecode does it (its counters and sort: :mod:`treegen.trainer.j48counts`):

* **Orders.**  A node's cases are an ``Instances`` in some order.  Choosing the test sorts
  that object in place by every continuous attribute in turn (attribute order), with
  ``Utils.sortWithNoMissingValues``: a median-of-three quicksort (not stable), unknown
  values keyed as ``Double.MAX_VALUE`` (:func:`weka_sort`).  The node keeps the cases in
  the order the last sort left; its branches receive them in that order
  (``ClassifierSplitModel.split``), an unknown value's case in every branch whose share
  exceeds 1e-6, at its weight times the share.
* **Sums.**  ``Distribution``'s counters add case after case from 0.  A continuous test's
  counts add its two ranges of the sorted known cases, left then right (``addRange``:
  the range's weight summed first, then added to the bag and the total), a nominal
  test's the known cases in the
  order at its turn in the attribute loop; then ``addInstWithUnknown`` adds the cases
  whose value is unknown (class and total at full weight, each bag at its share of the
  known weight).  A leaf's counts are the node's cases in the order they arrived.
* **Pruning.**  ``collapse`` then ``prune`` (subtree raising), whose raised branch is
  recounted on the parent's cases (``newDistribution``: each test's counts made afresh,
  its known cases by branch, then its unknown ones at the known shares, as
  ``C45Split.resetDistribution`` does; the cases sent down at the new counts' shares)
  and pruned again.

The error estimates use :class:`~treegen.trainer.stats.ErrorBound` (J48's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.trainer.constants import EPSILON
from treegen.trainer.j48counts import JAVA_MAX_DOUBLE, WDist, count_events, seq_add, weka_sort
from treegen.trainer.stats import ErrorBound
from treegen.trainer.tree import TNode

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@dataclass(eq=False)
class Split:
    """A node's ``localModel``: its test (``kind`` "leaf" for ``NoSplit``) and counts."""

    kind: str
    attribute: int
    threshold: float
    n_bags: int
    dist: WDist


@dataclass(eq=False)
class WTree:
    """A ``C45PruneableClassifierTree`` node: its cases (``m_train``) and model."""

    rows: IntArray
    w: FloatArray
    model: Split
    leaf: bool
    empty: bool = False
    sons: list[WTree] = field(default_factory=list)


class Replay:
    """J48's training replayed on ``plan`` (treegen's grown, uncollapsed tree)."""

    def __init__(
        self, X: FloatArray, y: IntArray, kinds: tuple[str, ...], n_classes: int, cf: float
    ) -> None:
        self.X = X
        self.y = y
        self.kinds = kinds
        self.C = n_classes
        self.bound = ErrorBound(cf, "j48")

    # -- a model's routing -------------------------------------------------------------
    def which(self, m: Split, rows: IntArray) -> IntArray:
        """``whichSubset`` of each case: its branch, -1 where the value is unknown."""
        if m.kind == "leaf":
            return np.zeros(rows.size, dtype=np.intp)
        v = self.X[rows, m.attribute]
        out = np.full(rows.size, -1, dtype=np.intp)
        known = ~np.isnan(v)
        if m.kind == "continuous":
            out[known] = np.where(v[known] - m.threshold < J48_TOL, 0, 1)
        else:
            out[known] = v[known].astype(np.intp)
        return out

    def shares(self, m: Split) -> FloatArray:
        """``weights``: ``perBag(b) / total()`` of the model's counts."""
        return m.dist.per_bag / m.dist.total

    def split(self, m: Split, rows: IntArray, w: FloatArray) -> list[tuple[IntArray, FloatArray]]:
        """``split``: each branch's cases in order, an unknown one where its share > 1e-6."""
        sub = self.which(m, rows)
        unknown = sub < 0
        if unknown.any():
            sh = self.shares(m)
        out = []
        for b in range(m.n_bags):
            take = sub == b
            if unknown.any() and sh[b] > J48_TOL:
                take = take | unknown
                wb = np.where(sub[take] == b, w[take], sh[b] * w[take])
            else:
                wb = w[take]
            out.append((rows[take], wb))
        return out

    def reset(self, m: Split, rows: IntArray, w: FloatArray) -> WDist:
        """``resetDistribution``: a test's (``C45Split``) known cases added to their
        branches in order, then its unknown ones by ``addInstWithUnknown``; a leaf's
        (``NoSplit``) every case in order."""
        sub = self.which(m, rows)
        known = sub >= 0
        d = count_events(sub[known], self.y[rows[known]], w[known], m.n_bags, self.C)
        if m.kind != "leaf":
            self.add_unknown(d, rows, w, m.attribute)
        return d

    # -- growth ------------------------------------------------------------------------
    def leaf_dist(self, rows: IntArray, w: FloatArray) -> WDist:
        """``new Distribution(data)``: every case in bag 0, in order (so the bag's
        counters hold the same sums as the class and total counters)."""
        per_class = np.zeros(self.C)
        np.add.at(per_class, self.y[rows], w)
        total = seq_add(w)
        return WDist(per_class.copy()[None, :], np.array([total]), per_class, total)

    def grow(self, plan: TNode, rows: IntArray, w: FloatArray) -> WTree:
        """``buildTree`` at a node treegen made ``plan``."""
        check = self.leaf_dist(rows, w)
        if plan.kind == "leaf":
            empty = abs(check.total) < J48_TOL
            return WTree(rows, w, Split("leaf", -1, math.nan, 1, check), True, empty)
        att = plan.attribute
        dist: WDist | None = None
        for a, kind in enumerate(self.kinds):
            if kind == "continuous":
                v = self.X[rows, a]
                perm = weka_sort(np.where(np.isnan(v), JAVA_MAX_DOUBLE, v))
                rows, w = rows[perm], w[perm]
                if a == att:
                    dist = self.continuous_dist(rows, w, a, plan.threshold)
            elif a == att:
                dist = self.nominal_dist(rows, w, att, len(plan.children))
        assert dist is not None
        self.add_unknown(dist, rows, w, att)
        model = Split(plan.kind, att, plan.threshold, len(plan.children), dist)
        t = WTree(rows, w, model, False)
        t.sons = [
            self.grow(p, r, ww)
            for p, (r, ww) in zip(plan.children, self.split(model, rows, w), strict=True)
        ]
        return t

    def continuous_dist(self, rows: IntArray, w: FloatArray, att: int, threshold: float) -> WDist:
        """``handleNumericAttribute``'s counts of the chosen cut, on the cases just sorted:
        the known ones the test sends left (its cut within J48's 1e-6, as ``whichSubset``
        compares), then the other known ones (``addRange``: a range's weight summed on
        its own, then added to its bag and to the total)."""
        v = self.X[rows, att]
        m = int(np.count_nonzero(~np.isnan(v)))
        k = int(np.count_nonzero(v[:m] - threshold < J48_TOL))
        cls = self.y[rows[:m]]
        ww = w[:m]
        d = count_events((np.arange(m) >= k).astype(np.intp), cls, ww, 2, self.C)
        s0, s1 = seq_add(ww[:k]), seq_add(ww[k:])
        d.per_bag[:] = (s0, s1)
        d.total = (0.0 + s0) + s1
        return d

    def nominal_dist(self, rows: IntArray, w: FloatArray, att: int, n_bags: int) -> WDist:
        """``handleEnumeratedAttribute``: the known cases added in their order."""
        v = self.X[rows, att]
        known = ~np.isnan(v)
        return count_events(v[known].astype(np.intp), self.y[rows[known]], w[known], n_bags, self.C)

    def add_unknown(self, d: WDist, rows: IntArray, w: FloatArray, att: int) -> None:
        """``addInstWithUnknown``: the unknown cases at full weight in class and total,
        at the known shares in each bag."""
        unknown = np.isnan(self.X[rows, att])
        if not unknown.any():
            return
        n_bags = d.per_bag.size
        if abs(d.total) < J48_TOL:
            probs = np.full(n_bags, 1.0 / n_bags)
        else:
            probs = d.per_bag / d.total
        uw, uc = w[unknown], self.y[rows[unknown]]
        np.add.at(d.per_class, uc, uw)  # onward from the known cases' sums, in order
        d.total = seq_add(uw, d.total)
        for b in range(n_bags):
            nw = probs[b] * uw
            d.per_bag[b] = seq_add(nw, float(d.per_bag[b]))
            np.add.at(d.pcb[b], uc, nw)

    # -- collapse and pruning ----------------------------------------------------------
    def make_leaf(self, t: WTree) -> None:
        """The node becomes a leaf with ``NoSplit(localModel().distribution())``."""
        t.sons = []
        t.leaf = True
        t.model = Split("leaf", -1, math.nan, 1, t.model.dist.merged())

    def collapse(self, t: WTree) -> None:
        """``collapse``, top down: a test no better on the training cases than a leaf
        becomes one.  A subtree's training errors are summed once, bottom up (in
        branch order, as Weka's recursion adds them): collapsing a node changes no
        subtree that is still to be asked."""
        errors: dict[int, float] = {}
        for n in reversed(preorder(t)):
            if n.leaf:
                errors[id(n)] = n.model.dist.num_incorrect()
            else:
                total = 0.0
                for s in n.sons:
                    total = total + errors[id(s)]
                errors[id(n)] = total
        stack = [t]
        while stack:
            n = stack.pop()
            if n.leaf:
                continue
            if errors[id(n)] >= n.model.dist.num_incorrect() - EPSILON:
                self.make_leaf(n)
            else:
                stack.extend(n.sons)

    def dist_errors(self, d: WDist) -> float:
        """``getEstimatedErrorsForDistribution``."""
        return self.bound.estimate(d.total, d.num_incorrect())

    def estimated_errors(self, t: WTree) -> float:
        """``getEstimatedErrors``: the leaves' estimates, summed in branch order."""
        if t.leaf:
            return self.dist_errors(t.model.dist)
        errors = 0.0
        for s in t.sons:
            errors = errors + self.estimated_errors(s)
        return errors

    def branch_errors(self, t: WTree, rows: IntArray, w: FloatArray) -> float:
        """``getEstimatedErrorsForBranch``: the subtree's estimate on other cases."""
        if t.leaf:
            return self.dist_errors(self.leaf_dist(rows, w))
        saved = t.model.dist
        t.model.dist = self.reset(t.model, rows, w)
        parts = self.split(t.model, rows, w)
        t.model.dist = saved
        errors = 0.0
        for s, (r, ww) in zip(t.sons, parts, strict=True):
            errors = errors + self.branch_errors(s, r, ww)
        return errors

    def new_distribution(self, t: WTree, rows: IntArray, w: FloatArray) -> None:
        """``newDistribution``: a raised subtree recounted on its new cases."""
        t.model.dist = self.reset(t.model, rows, w)
        t.rows, t.w = rows, w
        if not t.leaf:
            for s, (r, ww) in zip(t.sons, self.split(t.model, rows, w), strict=True):
                self.new_distribution(s, r, ww)
        elif abs(seq_add(w)) >= J48_TOL:
            t.empty = False

    def prune(self, t: WTree) -> None:
        """``C45PruneableClassifierTree.prune``: the branches first, then a leaf, the
        largest branch raised, or the test kept, by the estimated errors (0.1 slack)."""
        if t.leaf:
            return
        for s in t.sons:
            self.prune(s)
        big = t.model.dist.max_bag()
        err_branch = self.branch_errors(t.sons[big], t.rows, t.w)
        err_leaf = self.dist_errors(t.model.dist)
        err_tree = self.estimated_errors(t)
        if err_leaf - (err_tree + 0.1) < J48_TOL and err_leaf - (err_branch + 0.1) < J48_TOL:
            self.make_leaf(t)
            return
        if err_branch - (err_tree + 0.1) < J48_TOL:
            son = t.sons[big]
            t.sons, t.model, t.leaf = son.sons, son.model, son.leaf
            self.new_distribution(t, t.rows, t.w)
            self.prune(t)


def preorder(root: WTree) -> list[WTree]:
    """The replayed tree's nodes in pre-order (a test, then its branches in order)."""
    out, stack = [], [root]
    while stack:
        t = stack.pop()
        out.append(t)
        stack.extend(reversed(t.sons))
    return out
