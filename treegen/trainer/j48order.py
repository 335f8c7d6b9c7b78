"""Weka J48's own numbers for a j48 tree: its class weights summed in Weka's orders.

Where cases carry fractional weights (a value unknown, or boosting's weights) a sum of
weights depends on the order its terms are added in.  J48 (Weka 3.6) adds them in orders
of its own, which treegen's row-order engines do not follow, so a leaf's class weights
and a test's branch weights can differ from Weka's in the last bits; a bagged
committee's averaged probabilities then part from Weka's, and a class tie that rounding
decides can part a boosting round.  :func:`in_weka_order` replays J48's training on the
tree treegen grew (the same tests: only the sums differ; :func:`reduced_in_weka_order`
that of J48 -R) and returns the model nodes with Weka's numbers, each test with its
branches' weights (``per_bag``, which a missing value is split by) and class weights
(``bag_dist``, which J48 prints a leaf from).

The replay itself, what it reproduces of Weka 3.6.14's orders, sums and pruning, is
:mod:`treegen.trainer.j48replay` (J48's counters and sort:
:mod:`treegen.trainer.j48counts`); a replayed tree whose shape differs from treegen's (a
decision that the last bits tip) is not used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset
from treegen.model.core import ContinuousTest, Leaf, Node, SubsetTest
from treegen.model.dist import make_dist
from treegen.trainer.context import Context
from treegen.trainer.j48replay import Replay, WTree, preorder
from treegen.trainer.options import TrainOptions
from treegen.trainer.tables import build_context
from treegen.trainer.tree import TNode

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

MAX_DEPTH = 400  # deeper trees keep treegen's own numbers (the replay recurses)
# The replay walks every node of the unpruned tree in Python (about 0.9 s CPU a tree at
# 10k rows of the committee benchmark, where Weka builds one in 0.3 s): larger sets keep
# treegen's row-order sums.  Every set the Weka tests compare (at most 4,627 rows) is
# below it.
MAX_ROWS = 5_000
MAX_CLASSES = 63  # the dense class weights of the replay (many classes: treegen's own)


def _depth(plan: TNode) -> int:
    deepest, stack = 0, [(plan, 0)]
    while stack:
        t, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in t.children)
    return deepest


def replay(
    plan: TNode,
    X: FloatArray,
    y: IntArray,
    weights: FloatArray,
    kinds: tuple[str, ...],
    n_classes: int,
    cf: float,
    prune: bool,
) -> WTree | None:
    """J48's tree on the rows ``X``/``y`` at ``weights`` (Weka's order: the file's),
    grown along ``plan``, collapsed and (``prune``) pruned; None for too deep a plan."""
    if _depth(plan) > MAX_DEPTH:
        return None
    r = Replay(X, y, kinds, n_classes, cf)
    root = r.grow(plan, np.arange(y.size, dtype=np.intp), np.asarray(weights, dtype=np.float64))
    r.collapse(root)
    if prune:
        r.prune(root)
    return root


def same_shape(root: WTree, nodes: tuple[Node, ...]) -> bool:
    """Whether the replayed tree has ``nodes``' tests, node for node in pre-order."""
    order = preorder(root)
    if len(order) != len(nodes):
        return False
    index = {id(t): i for i, t in enumerate(order)}
    for t, n in zip(order, nodes, strict=True):
        if isinstance(n, Leaf) or t.leaf:
            if t.leaf != isinstance(n, Leaf):
                return False
            continue
        if isinstance(n, SubsetTest) or t.model.kind != n.kind or t.model.attribute != n.attribute:
            return False
        if isinstance(n, ContinuousTest) and t.model.threshold != n.threshold:
            return False
        if tuple(index[id(s)] for s in t.sons) != n.children:
            return False
    return True


def with_numbers(root: WTree, nodes: tuple[Node, ...]) -> tuple[Node, ...]:
    """``nodes`` (the replay's shape: :func:`same_shape`) with Weka's numbers: every
    node's class weights and total, a test's ``per_bag`` and ``bag_dist``, a leaf's
    errors (the weight not of its class).  A leaf no weight reached keeps treegen's
    convention: its parent's class weights."""
    out: list[Node] = list(nodes)
    for i, t in enumerate(preorder(root)):
        n, d = nodes[i], t.model.dist
        dist = make_dist(d.per_class)
        if isinstance(n, Leaf):
            errors = d.total - float(d.per_class[n.cls])
            out[i] = replace(n, items=d.total, dist=dist, errors=errors)
        else:
            per_bag = tuple(d.per_bag.tolist())
            bag_dist = tuple(tuple(row) for row in d.pcb.tolist())
            out[i] = replace(n, items=d.total, dist=dist, per_bag=per_bag, bag_dist=bag_dist)
    for n in list(out):
        for c in n.children:
            child = out[c]
            if isinstance(child, Leaf) and child.items == 0:
                out[c] = replace(child, dist=n.dist)
    return tuple(out)


def in_weka_order(
    ds: Dataset,
    opts: TrainOptions,
    weights: FloatArray | None,
    nodes: tuple[Node, ...],
    plan: Callable[[Context], TNode],
) -> tuple[Node, ...]:
    """``nodes`` (a j48 tree treegen trained on ``ds`` at ``weights``) with Weka's
    numbers, where they can differ from treegen's and the replay is affordable
    (:func:`uses_weka_order`); else ``nodes`` unchanged.  ``plan(ctx)`` grows the
    unpruned, uncollapsed tree that treegen's training started from."""
    if not uses_weka_order(ds, opts, weights):
        return nodes
    w = np.ones(ds.n_rows) if weights is None else np.asarray(weights, dtype=np.float64)
    ctx = build_context(ds, opts.min_cases, True, weights)
    kinds = tuple(a.kind for a in ds.attributes)
    y = ds.y.astype(np.intp)
    root = replay(plan(ctx), ds.X, y, w, kinds, len(ds.classes), float(opts.cf), opts.prune)
    if root is None or not same_shape(root, nodes):
        return nodes
    return with_numbers(root, nodes)


def uses_weka_order(ds: Dataset, opts: TrainOptions, weights: FloatArray | None) -> bool:
    """Whether training replays J48's orders: the j48 flavour with its own pruning (or
    none), on up to :data:`MAX_ROWS` rows of at most
    :data:`MAX_CLASSES` classes, every class known, where some sum of weights can depend
    on its order: a value is unknown (fractional weights) or the cases are weighted.
    Otherwise every weight is a whole 1 and every sum exact in any order.  (J48 -R's
    tree: :func:`reduced_in_weka_order`.)"""
    if opts.flavor != "j48" or opts.reduced_error:
        return False
    return order_matters(ds, weights)


def order_matters(ds: Dataset, weights: FloatArray | None) -> bool:
    """Whether some sum of J48's weights on ``ds`` can depend on its order (and the
    replay is affordable): see :func:`uses_weka_order`."""
    if ds.n_rows > MAX_ROWS or len(ds.classes) > MAX_CLASSES or np.any(ds.y < 0):
        return False
    return weights is not None or bool(np.isnan(ds.X).any())


def reduced_in_weka_order(
    grow_ds: Dataset, nodes: tuple[Node, ...], plan: TNode, pruned: TNode
) -> tuple[Node, ...]:
    """``nodes`` (a j48 tree of reduced-error pruning: ``plan`` grown on the growing set
    ``grow_ds``, in J48's order, then pruned to ``pruned``) with Weka's numbers, where
    they can differ from treegen's (the caller asks :func:`order_matters`); else
    ``nodes``.

    J48 -R (``PruneableClassifierTree``) grows without collapse and makes a pruned test
    a leaf with ``NoSplit(localModel().distribution())``: the replay grows along
    ``plan`` and makes a leaf of every test that ``pruned`` has as one."""
    if _depth(plan) > MAX_DEPTH:
        return nodes
    kinds = tuple(a.kind for a in grow_ds.attributes)
    y = grow_ds.y.astype(np.intp)
    r = Replay(grow_ds.X, y, kinds, len(grow_ds.classes), 0.25)  # cf: no error-based pruning
    root = r.grow(plan, np.arange(y.size, dtype=np.intp), np.ones(y.size))
    stack = [(root, pruned)]
    while stack:
        t, p = stack.pop()
        if t.leaf:
            continue
        if p.kind == "leaf":
            r.make_leaf(t)
            continue
        stack.extend(zip(t.sons, p.children, strict=True))
    if not same_shape(root, nodes):
        return nodes
    return with_numbers(root, nodes)
