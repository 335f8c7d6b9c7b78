"""Pruning in Release 8's case order: ``EstimateErrors`` (docs/C45.md section 4).

Pruning takes the case array in the order growth left it, sets every weight back
to 1 and sends the cases through the tree again, grouping them branch by branch
exactly as growth does (:mod:`treegen.trainer.release8.grow`).  At each node the
estimated errors of the node as a leaf, of the subtree, and of its largest branch
(all the node's cases sent down that branch alone, which reorders them too)
decide between a leaf, the largest branch raised in the node's place, or the
subtree (section 4 step 6).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from treegen.trainer.release8.cases import F32, Cases
from treegen.trainer.release8.grow import passes_branch
from treegen.trainer.release8.native import prune_native
from treegen.trainer.stats import ErrorBound
from treegen.trainer.tree import TNode, count_nodes, held_dist, run, walk

MARGIN = 0.1  # errors a simpler tree may add and still be preferred (section 4 step 6)


def _estimate(
    cases: Cases, node: TNode, fp: int, lp: int, update: bool, bound: ErrorBound
) -> Generator[Any, Any, float]:
    n = cases.count(fp, lp)
    dist = cases.class_freq(fp, lp)
    # Release 8 keeps the node's class unless a class is heavier; scanning from class 0,
    # the first class of the largest weight replaces it (one pass over the classes).
    best = node.cls
    top = dist.max()
    if dist[best] != top:
        best = int(np.argmax(dist))
    leaf_errors = float(F32(F32(n) - dist[best]))
    leaf_est = float(F32(F32(leaf_errors) + F32(bound.add_errs(n, leaf_errors))))
    if update:
        node.items, node.cls, node.dist = n, best, held_dist(dist)
    if node.kind == "leaf":
        if update:
            node.errors = leaf_est
        return leaf_est
    kp = cases.to_front(passes_branch(cases, node, -1, fp, lp), fp)
    known_cases = F32(cases.count(kp, lp))
    was_known = cases.all_known
    if kp != fp:
        cases.all_known = False
    tree_errors, max_factor, largest = F32(0), F32(0), -1
    for v, child in enumerate(node.children):
        ep = cases.to_front(passes_branch(cases, node, v, kp, lp), kp) - 1
        if kp > ep:
            continue
        factor = F32(F32(cases.count(kp, ep)) / known_cases)
        if factor >= max_factor:
            largest, max_factor = v, factor
        cases.scale(fp, kp, factor)
        sub = yield _estimate(cases, child, fp, ep, update, bound)
        tree_errors = F32(tree_errors + F32(sub))
        cases.to_front(passes_branch(cases, node, -1, fp, ep), fp)
        cases.scale(fp, kp, factor, divide=True)
    cases.all_known = was_known
    if not update:
        return float(tree_errors)
    # Every case with a known value went somewhere, so some branch has a Factor.
    branch = node.children[largest]
    branch_errors = yield _estimate(cases, branch, fp, lp, False, bound)
    if leaf_est <= branch_errors + MARGIN and leaf_est <= float(tree_errors) + MARGIN:
        node.make_leaf()
        node.errors = leaf_est
    elif branch_errors <= float(tree_errors) + MARGIN:
        yield _estimate(cases, branch, fp, lp, True, bound)
        node.copy_from(branch)
    else:
        node.errors = float(tree_errors)
    cases.all_known = was_known
    return node.errors


def prune(cases: Cases, root: TNode, cf: float) -> None:
    """Release 8's pruning of ``root`` (grown on ``cases``, in the order growth left).

    Where pruning replaces nothing (``Prune`` returns false: no "Simplified Decision
    Tree"), Release 8 prints the grown tree, so its counts, classes and distributions
    are growth's: pruning's pass adds the fractional weights of cases with unknown
    values in another order, which can move a printed count by 0.1.  The tree then
    keeps those, with pruning's estimated errors (docs/C45.md section 4)."""
    nodes: list[TNode] = []
    walk(root, nodes.append)
    grown = [(t, t.items, t.cls, t.dist) for t in nodes]
    cases.reset_weights()
    if not prune_native(cases, root, cf):
        run(_estimate(cases, root, 0, cases.ctx.n_rows - 1, True, ErrorBound(cf, "c45")))
    # Every replacement (a leaf, or the largest branch raised) removes nodes.
    if count_nodes(root) == len(grown):
        for t, items, cls, dist in grown:
            t.items, t.cls, t.dist = items, cls, dist
