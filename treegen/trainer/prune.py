"""Pessimistic pruning with subtree raising: Release 8's ``EstimateErrors`` (section 4).

All weights are reset to 1 and the training cases are pushed through the
grown tree again with the same fractional rule as growth (including the
float ``Factor`` round trip).  Each node compares three estimates: as a
leaf, as its largest branch (subtree raising) and as the subtree.  Written
as generators run by :func:`treegen.trainer.tree.run` to avoid Python
recursion.

For the j48 flavour the bound is J48's (exact z, ``max(N-e,0)``, double),
leaves take the first majority class of their cases, and comparisons use
Weka's 1e-6 tolerance.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.trainer.context import Context, IntArray, class_sums, seq_sum
from treegen.trainer.grow import branch_of
from treegen.trainer.splits import J48_TOL
from treegen.trainer.stats import ErrorBound
from treegen.trainer.tree import TNode, run, walk


def _le(ctx: Context, a: float, b: float) -> bool:
    """``a <= b`` (Weka's ``smOrEq`` for j48)."""
    return a - b < J48_TOL if ctx.j48 else a <= b


def estimate_errors(
    ctx: Context, bound: ErrorBound, t: TNode, rows: IntArray, update: bool
) -> Generator[Any, Any, float]:
    dt = ctx.dtype
    w_all = ctx.weights
    w = w_all[rows]
    cases = seq_sum(w, dt)
    dist = class_sums(ctx.y[rows], w, ctx.n_classes, dt).astype(dt)
    if ctx.j48:
        best = int(np.argmax(dist))
    else:
        best = t.cls  # ties keep the current label
        for c in range(ctx.n_classes):
            if dist[c] > dist[best]:
                best = c
    leaf_errors = ctx.fl(cases - float(dist[best]))
    leaf_est = bound.estimate(cases, leaf_errors)
    if update:
        t.items = cases
        t.cls = best
        t.dist = dist
    if t.kind == "leaf":
        if update:
            t.errors = leaf_est
        return leaf_est

    br = branch_of(ctx, t, rows)
    unk_mask = br < 0
    unk_rows = rows[unk_mask]
    known_cases = ctx.fl(cases - seq_sum(w[unk_mask], dt))
    tree_est = dt(0)
    max_br, max_factor = 0, -1.0
    for v, child in enumerate(t.children):
        in_v = br == v
        if not in_v.any():
            continue
        factor = ctx.fl(seq_sum(w[in_v], dt) / known_cases)
        saved: npt.NDArray[np.floating] | None = None
        if unk_rows.size:
            if ctx.j48:
                saved = w_all[unk_rows].copy()
            w_all[unk_rows] = (w_all[unk_rows] * dt(factor)).astype(dt)
        if factor >= max_factor:  # ties go to the later branch
            max_br, max_factor = v, factor
        est = yield estimate_errors(ctx, bound, child, rows[in_v | unk_mask], update)
        tree_est = dt(tree_est + dt(est))
        if unk_rows.size:
            if saved is not None:
                w_all[unk_rows] = saved
            else:
                w_all[unk_rows] = (w_all[unk_rows] / dt(factor)).astype(dt)
    if not update:
        return float(tree_est)
    branch = t.children[max_br]
    branch_est = yield estimate_errors(ctx, bound, branch, rows, False)
    tree_f = float(tree_est)
    if _le(ctx, leaf_est, branch_est + 0.1) and _le(ctx, leaf_est, tree_f + 0.1):
        t.make_leaf()
        t.errors = leaf_est
    elif _le(ctx, branch_est, tree_f + 0.1):
        yield estimate_errors(ctx, bound, branch, rows, True)
        t.copy_from(branch)
    else:
        t.errors = tree_f
    return t.errors


def prune(ctx: Context, root: TNode, cf: float) -> None:
    """Prune ``root`` in place with confidence ``cf``."""
    bound = ErrorBound(cf, "j48" if ctx.j48 else "c45")
    ctx.reset_weights()
    rows = np.arange(ctx.n_rows, dtype=np.intp)
    run(estimate_errors(ctx, bound, root, rows, True))


def training_errors(ctx: Context, root: TNode) -> None:
    """Set every node's ``errors`` to its training errors (what J48 prints).

    A leaf's errors are its cases minus its class's weight (zero for empty
    leaves); a test's are the sum over its leaves.
    """
    order: list[TNode] = []
    walk(root, order.append)
    for t in reversed(order):  # children before parents
        if t.kind == "leaf":
            t.errors = 0.0 if t.items <= 0 else float(t.items - float(t.dist[t.cls]))
        else:
            t.errors = float(sum(c.errors for c in t.children))
