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
Weka's 1e-6 tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Mapping
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from treegen.trainer import native
from treegen.trainer.context import Context, IntArray, cell_sums, seq_sum
from treegen.trainer.grow import branch_of
from treegen.trainer.splits import J48_TOL
from treegen.trainer.stats import ErrorBound, coeff_c45
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


def _leaf_estimate(
    ctx: Context, bound: ErrorBound, t: TNode, cases: float, dist: FloatArray, update: bool
) -> float:
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
        max_br = _largest_branch(list(t.nonempty), list(t.factors))
        est_v = {
            v: _leaf_estimate(ctx, bound, kids[v], kids[v].items, kids[v].dist, True)
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
    max_br = _largest_branch(ne_list, factor.tolist())
    leaf_kids = [v for v in ne_list if kids[v].kind == "leaf"]
    if pristine:
        est_v = {
            v: _leaf_estimate(ctx, bound, kids[v], kids[v].items, kids[v].dist, True)
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


def _largest_branch(ne_list: list[int], factors: list[float]) -> int:
    """Largest non-empty branch by known fraction; ties go to the later branch."""
    max_br, max_factor = 0, -1.0
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
    run in C when the accelerator is built (:func:`_prune_native`, which
    always recomputes: summing is cheap there).
    """
    bound = ErrorBound(cf, "j48" if ctx.j48 else "c45")
    if native.cprune is not None and _prune_native(ctx, root, cf):
        return
    rows = np.arange(ctx.n_rows, dtype=np.intp)
    w = np.ones(ctx.n_rows, dtype=ctx.dtype)
    # Factor = known_v / KnownCases divides by zero when every case is unknown
    # (never for a non-empty branch, whose factor is all that is used).
    with np.errstate(divide="ignore", invalid="ignore"):
        run(estimate_errors(ctx, bound, root, rows, w, True, pristine=reuse_growth))


_KIND_CODE = {"leaf": 0, "continuous": 1, "nominal": 2, "subset": 3}
# The C walk recurses once per tree level (a few hundred bytes of C stack
# each); deeper trees, far beyond any real one, stay in Python.
_MAX_NATIVE_DEPTH = 2000


class PruneRecords(NamedTuple):
    """Every node's record after the C walk (:func:`prune_flat`), by node id."""

    kind: IntArray  # 0 leaf, 1 continuous, 2 nominal, 3 subset (now)
    src: IntArray  # whose grown test and children the node has (subtree raising)
    cls: IntArray
    items: FloatArray
    errors: FloatArray
    dist: FloatArray  # (nodes, classes): float32 for c45, float64 for j48
    updated: npt.NDArray[np.int8]  # bit 1: record set by pruning; bit 2: in the pruned tree


def prune_flat(
    ctx: Context,
    cf: float,
    kind: npt.NDArray[np.integer],
    cls: npt.NDArray[np.integer],
    attribute: npt.NDArray[np.integer],
    threshold: FloatArray,
    first: npt.NDArray[np.integer],
    count: npt.NDArray[np.integer],
    subsets: Mapping[int, tuple[tuple[int, ...], ...]],
    estimated_errors: bool = False,
) -> PruneRecords | None:
    """Prune a grown tree given as arrays, in C; None when C cannot.

    Node 0 is the root; ``kind`` codes as in :class:`PruneRecords`; a
    test's children are nodes ``first[i] .. first[i] + count[i] - 1`` in
    branch order, each numbered after its parent (nodes no test reaches are
    ignored); ``subsets`` maps subset tests to their value sets.  The walk
    is :func:`estimate_errors` from the root with ``update`` (recomputing
    every sum, which :func:`prune`'s ``reuse_growth`` shows gives the same
    numbers).  None without the accelerator or for a tree deeper than C's
    recursion allows.

    For the j48 flavour the pruned tree's records hold its training errors
    (:func:`training_errors`, what ``train`` keeps), unless
    ``estimated_errors`` asks for the estimates the walk leaves (as
    :func:`estimate_errors` does).
    """
    mod = native.cprune
    if mod is None or ctx.n_classes > native.MAX_CLASSES:
        return None
    N = int(kind.size)
    kind64 = np.ascontiguousarray(kind, dtype=np.int64)
    tests = np.flatnonzero(kind64 != 0)
    pos_of = np.zeros((2, len(ctx.kinds)), dtype=np.int64)
    for a, j in ctx.cont_pos.items():
        pos_of[0, a] = j
    for a, j in ctx.nom_pos.items():
        pos_of[1, a] = j
    attr = np.asarray(attribute, dtype=np.int64)[tests]
    attr_pos = np.zeros(N, dtype=np.int64)
    attr_pos[tests] = np.where(kind64[tests] == 1, pos_of[0, attr], pos_of[1, attr])
    tab_start = np.zeros(N, dtype=np.int64)
    tab: list[int] = [-1]
    for i in np.flatnonzero(kind64 == 3).tolist():
        table = [-1] * (ctx.n_values[int(attribute[i])] + 1)  # code 0, unlisted: unknown
        for b, vals in enumerate(subsets[i]):
            for val in vals:
                table[val + 1] = b
        tab_start[i] = len(tab)
        tab.extend(table)
    rec = PruneRecords(
        kind=kind64.copy(),
        src=np.arange(N, dtype=np.int64),
        cls=np.array(cls, dtype=np.int64),
        items=np.zeros(N),
        errors=np.zeros(N),
        dist=np.zeros((N, ctx.n_classes), dtype=ctx.dtype),
        updated=np.zeros(N, dtype=np.int8),
    )
    ncodes = ctx.ncodes if ctx.ncodes.size else np.zeros((ctx.n_rows + 1, 0), dtype=np.int16)
    if ctx.j48:
        walk_c, first_arg, coeff = mod.prune_j48, cf, ErrorBound(cf, "j48").coeff
    else:
        walk_c, first_arg, coeff = mod.prune_c45, math.log(cf), coeff_c45(cf)
    done = walk_c(
        first_arg,
        coeff,
        ctx.n_rows,
        ctx.n_classes,
        np.ascontiguousarray(ctx.y, dtype=np.int64),
        np.ascontiguousarray(ctx.cvals, dtype=ctx.dtype),
        np.ascontiguousarray(ncodes),
        ncodes.dtype.itemsize,
        kind64,
        attr_pos,
        np.ascontiguousarray(threshold, dtype=np.float64),
        np.ascontiguousarray(first, dtype=np.int64),
        np.ascontiguousarray(count, dtype=np.int64),
        np.arange(N, dtype=np.int64),
        tab_start,
        np.asarray(tab, dtype=np.int32),
        rec.kind,
        rec.src,
        rec.cls,
        rec.items,
        rec.errors,
        rec.dist,
        rec.updated,
        _MAX_NATIVE_DEPTH,
    )
    if not done:
        return None
    if ctx.j48 and not estimated_errors:
        _training_errors_flat(rec, kind64, first, count)
    return rec


def _training_errors_flat(
    rec: PruneRecords,
    grown_kind: IntArray,
    first: npt.NDArray[np.integer],
    count: npt.NDArray[np.integer],
) -> None:
    """:func:`training_errors` on the C walk's records of the pruned tree.

    The same numbers in the same order: a leaf's errors are its items minus
    its class's weight (zero when it has none), a test's the Python ``sum``
    of its children's in branch order.  The pruned tree's nodes the walk did
    not update are the leaves of branches no case reaches, which growth
    made empty leaves (no cases: zero training errors, as grown); their
    records are left alone, the pruned model taking the grown ones.
    """
    src, updated = rec.src, rec.updated
    in_tree = (updated & 2) != 0
    leaf = (rec.kind == 0) | (grown_kind[src] == 0)
    upd = (updated & 1) != 0
    assert not np.any(in_tree & ~leaf & ~upd), "a test of the pruned tree the walk skipped"
    idx = np.flatnonzero(in_tree & leaf & upd)
    items = rec.items[idx]
    own = rec.dist[idx, rec.cls[idx]].astype(np.float64)
    rec.errors[idx] = np.where(items <= 0, 0.0, items - own)
    errors = rec.errors.tolist()
    for i in np.flatnonzero(in_tree & leaf & ~upd).tolist():
        errors[i] = 0.0
    first_l, count_l, src_l = first.tolist(), count.tolist(), src.tolist()
    tests = np.flatnonzero(in_tree & ~leaf)[::-1].tolist()  # children before parents
    for i in tests:
        s = src_l[i]
        errors[i] = float(sum(errors[c] for c in range(first_l[s], first_l[s] + count_l[s])))
    rec.errors[tests] = [errors[i] for i in tests]


def _prune_native(ctx: Context, root: TNode, cf: float) -> bool:
    """:func:`prune_flat` over a breadth-first copy of the tree, written back to it.

    Returns False (nothing changed) when C cannot prune it.
    """
    order = [root]
    n_kids: list[int] = []
    kinds: list[str] = []
    classes: list[int] = []
    attrs: list[int] = []
    cuts: list[float] = []
    subsets: dict[int, tuple[tuple[int, ...], ...]] = {}
    # One visit per node (at 1M rows the tree's objects are scattered in
    # memory, so a pass per field costs more than these appends).
    for t in order:  # the list grows while iterated: breadth-first order
        kids = t.children
        order.extend(kids)
        n_kids.append(len(kids))
        k = t.kind
        kinds.append(k)
        classes.append(t.cls)
        if k != "leaf":  # most nodes are leaves
            attrs.append(t.attribute)
            cuts.append(t.threshold)
            if k == "subset":
                subsets[len(kinds) - 1] = t.subsets
    N = len(order)
    counts = np.asarray(n_kids, dtype=np.int64)
    kind = np.fromiter(map(_KIND_CODE.__getitem__, kinds), dtype=np.int64, count=N)
    tests = kind != 0
    attribute = np.full(N, -1, dtype=np.int64)
    attribute[tests] = attrs
    threshold = np.full(N, math.nan)
    threshold[tests] = cuts
    rec = prune_flat(
        ctx,
        cf,
        kind,
        np.asarray(classes, dtype=np.int64),
        attribute,
        threshold,
        np.cumsum(counts) - counts + 1,  # root 0, then each node's children in turn
        counts,
        subsets,
        estimated_errors=True,
    )
    if rec is None:
        return False
    _write_back(order, kind, rec)
    return True


def _write_back(order: list[TNode], kind: IntArray, rec: PruneRecords) -> None:
    """Apply the C walk's records to the nodes of the pruned tree.

    A node whose structure came from another (``src``) gets that node's
    grown test and children, as ``copy_from`` gives them; a test that ended
    as a leaf (itself or raised from a test made a leaf) gets ``make_leaf``.
    The source nodes are off the pruned tree, so still as grown.
    """
    cur_kind, src, dist, updated = rec.kind, rec.src, rec.dist, rec.updated
    in_tree = (updated & 2) != 0
    cls_l, items_l, errors_l = rec.cls.tolist(), rec.items.tolist(), rec.errors.tolist()
    for i in np.flatnonzero(in_tree & ((updated & 1) != 0)).tolist():
        t = order[i]
        t.items, t.cls, t.errors, t.dist = items_l[i], cls_l[i], errors_l[i], dist[i]
    moved = src != np.arange(len(order))
    restructured = in_tree & (moved | ((cur_kind == 0) & (kind != 0)))
    for i in np.flatnonzero(restructured).tolist():
        t, s = order[i], int(src[i])
        if cur_kind[i] == 0 and kind[s] != 0:
            t.make_leaf()
            continue
        assert not in_tree[s]
        o = order[s]
        t.kind, t.attribute, t.threshold, t.subsets = o.kind, o.attribute, o.threshold, o.subsets
        t.children, t.nonempty, t.factors = o.children, o.nonempty, o.factors


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
