"""Pessimistic pruning with subtree raising: Release 8's ``EstimateErrors`` (section 4).

The training cases are pushed through the grown tree again, starting at
weight 1, with the same fractional rule as growth (per-node weights, the
unknown cases' ``Factor`` round trip carried from branch to branch), so the
first pass sees at every node exactly the cases growth saw.  Each test
compares three estimates: as a leaf, as its largest branch (subtree
raising) and as the subtree.  Written as generators run by
:func:`treegen.trainer.tree.run` to avoid Python recursion; the leaf
children of a node are estimated together, which is where most of the
work is.

For the j48 flavour the bound is J48's (exact z, ``max(N-e,0)``, double),
leaves take the first majority class of their cases, and comparisons use
Weka's tolerance (``J48_TOL``).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.model.dist import SparseDist
from treegen.trainer.context import Context, IntArray, cell_sums, seq_sum
from treegen.trainer.pruning.native import prune_tnodes
from treegen.trainer.route import branch_of
from treegen.trainer.stats import ErrorBound
from treegen.trainer.tree import TNode, run, walk

FloatArray = npt.NDArray[np.floating]
_NO_DIST: FloatArray = np.zeros(0)


def _le(ctx: Context, a: float, b: float) -> bool:
    """``a <= b`` (Weka's ``smOrEq`` for j48)."""
    return a - b < J48_TOL if ctx.j48 else a <= b


def _label(ctx: Context, current: int, dist: list[float]) -> int:
    """Leaf class for a distribution: Release 8 keeps ``current`` unless beaten."""
    if ctx.j48:
        return int(np.argmax(dist))
    best = current
    for c, v in enumerate(dist):
        if v > dist[best]:
            best = c
    return best


def _array(ctx: Context, dist: FloatArray | SparseDist) -> FloatArray:
    """A node's stored weights as an array (a SparseDist in the flavour's dtype)."""
    return dist if isinstance(dist, np.ndarray) else np.asarray(dist, dtype=ctx.dtype)


def _leaf_estimate(
    ctx: Context, bound: ErrorBound, t: TNode, cases: float, dist: FloatArray, update: bool
) -> float:
    """Estimated errors of leaf ``t`` with these cases; ``update`` stores its new records."""
    best = _label(ctx, t.cls, dist.tolist())
    est = bound.estimate(cases, ctx.fl(cases - float(dist[best])))
    if update:
        t.items, t.cls, t.dist, t.errors = cases, best, dist, est
    return est


def estimate_errors(
    ctx: Context,
    bound: ErrorBound,
    t: TNode,
    rows: IntArray | None,
    w: FloatArray | None,
    update: bool,
    pristine: bool = False,
) -> Generator[Any, Any, float]:
    """``EstimateErrors(T, cases, update)``; returns T's estimated errors.

    ``pristine``: the cases are exactly the ones growth sent to ``t`` (the
    first bottom-up pass, before any raising above), so the node's and its
    leaf children's weights and distributions are the stored ones, bit for
    bit, and need not be summed again.  A pristine test whose non-empty
    branches are all leaves needs no cases at all (:func:`_needs_no_cases`):
    ``rows`` and ``w`` are then None.
    """
    dt = ctx.dtype
    if pristine:
        cases, dist = t.items, np.asarray(t.dist, dtype=dt)
    else:
        assert rows is not None and w is not None
        cases = seq_sum(w, dt)
        if update or t.kind == "leaf":
            dist = cell_sums(ctx.y[rows], w, ctx.n_classes, dt).astype(dt)
        else:  # a test's own class sums only serve the update step
            dist = _NO_DIST
    if t.kind == "leaf":
        return _leaf_estimate(ctx, bound, t, cases, dist, update)
    leaf_est = 0.0  # used by the update step only
    if update:
        best = _label(ctx, t.cls, dist.tolist())
        leaf_est = bound.estimate(cases, ctx.fl(cases - float(dist[best])))
        t.items, t.cls, t.dist = cases, best, dist

    kids = t.children
    if rows is None:
        # Pristine, all non-empty branches leaves: growth recorded which
        # branches are non-empty and their factors, and the leaves' sums.
        assert pristine and update and _needs_no_cases(t)
        max_br = _largest_branch(ctx, list(t.nonempty), list(t.factors), cases)
        est_v = {
            v: _leaf_estimate(ctx, bound, kids[v], kids[v].items, _array(ctx, kids[v].dist), True)
            for v in t.nonempty
        }
        return (yield from _decide(ctx, bound, t, None, None, cases, dist, leaf_est, est_v, max_br))
    assert w is not None
    F = len(t.children)
    br = branch_of(ctx, t, rows)
    unk = br < 0
    u_idx = np.flatnonzero(unk)
    if u_idx.size:
        kn = ~unk
        known_cases = ctx.fl(cases - seq_sum(w[u_idx], dt))
        br_kn, w_kn = br[kn], w[kn]
    else:  # no unknown value here: no masks, and KnownCases is the total
        known_cases = ctx.fl(cases)
        br_kn, w_kn = br, w
    known_v = ctx.sums(br_kn, w_kn, F)
    ne_list = np.flatnonzero(np.bincount(br_kn, minlength=F)).tolist()
    factor = (known_v / dt(known_cases)).astype(dt)  # under prune()'s errstate
    # Unknown cases' weight in each branch (the round trip, as in growth).
    cw = np.zeros((u_idx.size, F), dtype=dt)
    if u_idx.size:
        cur = w[u_idx].astype(dt)
        for v in ne_list:
            val = (cur * factor[v]).astype(dt)
            cw[:, v] = val
            if not ctx.j48:
                cur = (val / factor[v]).astype(dt)
    max_br = _largest_branch(ctx, ne_list, factor.tolist(), cases)
    leaf_kids = [v for v in ne_list if kids[v].kind == "leaf"]
    if pristine:
        est_v = {
            v: _leaf_estimate(ctx, bound, kids[v], kids[v].items, _array(ctx, kids[v].dist), True)
            for v in leaf_kids
        }
    else:
        est_v = dict(_leaf_children(ctx, bound, t, rows, w, br, u_idx, cw, leaf_kids, update))
    for v in ne_list:
        if v in est_v:
            continue
        if pristine and _needs_no_cases(kids[v]):
            est_v[v] = yield estimate_errors(ctx, bound, kids[v], None, None, update, True)
            continue
        if u_idx.size:
            sel = (br == v) | unk
            w_v = w[sel].astype(dt)
            w_v[unk[sel]] = cw[:, v]
            rows_v = rows[sel]
        else:
            sel_i = np.flatnonzero(br == v)
            w_v = w[sel_i].astype(dt)
            rows_v = rows[sel_i]
        est_v[v] = yield estimate_errors(ctx, bound, kids[v], rows_v, w_v, update, pristine)
    if not update:
        return float(_tree_estimate(ctx, est_v))
    return (yield from _decide(ctx, bound, t, rows, w, cases, dist, leaf_est, est_v, max_br))


def _needs_no_cases(t: TNode) -> bool:
    """A grown test (branches recorded) whose non-empty branches are all leaves."""
    return (
        t.kind != "leaf"
        and bool(t.nonempty)
        and all(t.children[v].kind == "leaf" for v in t.nonempty)
    )


def _largest_branch(ctx: Context, ne_list: list[int], factors: list[float], cases: float) -> int:
    """Largest non-empty branch by known fraction; ties go to the later branch.

    j48: J48's ``Distribution.maxBag`` over the branches' weights (``perBag``, each
    branch's share of all ``cases``): a branch replaces the heaviest so far when
    less than 1e-6 lighter (``Utils.grOrEq``), so of two branches whose weights are
    equal but for rounding the later is raised, whichever sum rounded higher."""
    max_br, max_factor = 0, -1.0
    if ctx.j48:
        top = 0.0
        for v in ne_list:
            bag = factors[v] * cases
            if top - bag < J48_TOL:
                max_br, top = v, bag
        return max_br
    for v in ne_list:
        if factors[v] >= max_factor:
            max_br, max_factor = v, factors[v]
    return max_br


def _tree_estimate(ctx: Context, est_v: dict[int, float]) -> float:
    """The branches' estimates summed in branch order (in the flavour's precision)."""
    return ctx.add_all(est_v[v] for v in sorted(est_v))


def _decide(
    ctx: Context,
    bound: ErrorBound,
    t: TNode,
    rows: IntArray | None,
    w: FloatArray | None,
    cases: float,
    dist: FloatArray,
    leaf_est: float,
    est_v: dict[int, float],
    max_br: int,
) -> Generator[Any, Any, float]:
    """Leaf, largest branch (subtree raising) or subtree: the update step.

    ``rows is None`` only for a pristine test whose branches are all leaves:
    raising a leaf then takes the node's own (pristine) sums, which are what
    the cases would sum to.
    """
    tree_f = _tree_estimate(ctx, est_v)
    branch = t.children[max_br]
    if branch.kind == "leaf":
        b_label = _label(ctx, branch.cls, dist.tolist())
        branch_est = bound.estimate(cases, ctx.fl(cases - float(dist[b_label])))
    else:
        branch_est = yield estimate_errors(ctx, bound, branch, rows, w, False)
    if _le(ctx, leaf_est, branch_est + 0.1) and _le(ctx, leaf_est, tree_f + 0.1):
        t.make_leaf()
        t.errors = leaf_est
    elif _le(ctx, branch_est, tree_f + 0.1):
        if rows is None:
            _leaf_estimate(ctx, bound, branch, cases, dist.copy(), True)
        else:
            yield estimate_errors(ctx, bound, branch, rows, w, True)
        t.copy_from(branch)
    else:
        t.errors = tree_f
    return t.errors


def _leaf_children(
    ctx: Context,
    bound: ErrorBound,
    t: TNode,
    rows: IntArray,
    w: FloatArray,
    br: IntArray,
    u_idx: IntArray,
    cw: FloatArray,
    kids: list[int],
    update: bool,
) -> list[tuple[int, float]]:
    """Estimates of the leaf children ``kids`` from one weighted count.

    Each child's cases are its branch's known cases plus every unknown one
    (with that branch's weight), summed in row order as a separate visit
    would sum them.
    """
    if not kids:
        return []
    dt = ctx.dtype
    C = ctx.n_classes
    n = rows.size
    is_kid = np.zeros(len(t.children), dtype=np.bool_)
    is_kid[kids] = True
    k_pos = np.flatnonzero((br >= 0) & is_kid[np.maximum(br, 0)])
    slot = np.arange(len(kids))
    kid_slot = np.full(len(t.children), -1, dtype=np.intp)
    kid_slot[kids] = slot
    u_rep = np.repeat(u_idx, len(kids))
    v_rep = np.tile(np.asarray(kids, dtype=np.intp), u_idx.size)
    pos = np.concatenate((k_pos, u_rep))
    kid = np.concatenate((kid_slot[br[k_pos]], kid_slot[v_rep]))
    wt = np.concatenate(
        (w[k_pos].astype(dt), cw[np.repeat(np.arange(u_idx.size), len(kids)), v_rep])
    )
    order = np.argsort(kid.astype(np.int64) * (n + 1) + pos, kind="stable")
    kid, pos, wt = kid[order], pos[order], wt[order]
    cases = ctx.sums(kid, wt, len(kids))
    dist = ctx.sums(kid * C + ctx.y[rows[pos]], wt, len(kids) * C).reshape(len(kids), C)
    out = []
    for j, v in enumerate(kids):
        out.append((v, _leaf_estimate(ctx, bound, t.children[v], float(cases[j]), dist[j], update)))
    return out


def prune(ctx: Context, root: TNode, cf: float, reuse_growth: bool = True) -> None:
    """Prune ``root`` in place with confidence ``cf``.

    ``reuse_growth=False`` recomputes every weight instead of reusing the
    ones growth stored (the same numbers; tests check that).  Both flavours
    run in C when the accelerator is built (:func:`~treegen.trainer.pruning.native.prune_tnodes`,
    which always recomputes: summing is cheap there).
    """
    bound = ErrorBound(cf, ctx.flavor)
    if prune_tnodes(ctx, root, cf):
        return
    rows = np.arange(ctx.n_rows, dtype=np.intp)
    w = ctx.start_weights()
    # Factor = known_v / KnownCases divides by zero when every case is unknown
    # (never for a non-empty branch, whose factor is all that is used).
    with np.errstate(divide="ignore", invalid="ignore"):
        run(estimate_errors(ctx, bound, root, rows, w, True, pristine=reuse_growth))


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
