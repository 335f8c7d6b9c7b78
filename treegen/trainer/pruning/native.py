"""Release 8's pruning walk in C (the accelerator's ``_cprune``), over arrays.

:func:`prune_flat` hands a grown tree given as arrays to the C walk and
returns every node's record; :func:`prune_native` does so for the
level-wise engine's :class:`~treegen.trainer.levelwise.flat.FlatTree`,
:func:`prune_tnodes` for a :class:`~treegen.trainer.tree.TNode` tree (the
reference engine).  The C walk is tested equal to the Python pruner
(:mod:`treegen.trainer.pruning.prune`); each returns None (or False) when
the accelerator is missing or the tree is deeper than C's recursion allows,
and the caller prunes in Python.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.model.constants import KIND_CONTINUOUS, KIND_LEAF, KIND_SUBSET
from treegen.model.core import Node, NodeKind
from treegen.trainer import native
from treegen.trainer.constants import MAX_CLASSES
from treegen.trainer.context import Context, IntArray
from treegen.trainer.levelwise.flat import (
    KIND_CODE,
    FlatTree,
    NodeRecords,
    TreeArrays,
    model_nodes,
)
from treegen.trainer.route import routing_cuts, subset_table
from treegen.trainer.stats import ErrorBound, coeff_c45
from treegen.trainer.tree import TNode

FloatArray = npt.NDArray[np.floating]

# The C walk recurses once per tree level (a few hundred bytes of C stack
# each); deeper trees, far beyond any real one, stay in Python.
_MAX_NATIVE_DEPTH = 2000


def prune_flat(
    ctx: Context,
    cf: float,
    grown: TreeArrays,
    estimated_errors: bool = False,
    spend: bool = False,
) -> NodeRecords | None:
    """Prune a grown tree given as arrays, in C: every node's record; None when C cannot.

    The walk is :func:`estimate_errors` from the root with ``update``
    (recomputing every sum, which :func:`prune`'s ``reuse_growth`` shows gives
    the same numbers).  None without the accelerator or for a tree deeper
    than C's recursion allows.

    For the j48 flavour the pruned tree's records hold its training errors
    (:func:`training_errors`, what ``train`` keeps), unless
    ``estimated_errors`` asks for the estimates the walk leaves (as
    :func:`estimate_errors` does).

    ``spend=True`` hands the context's classes, values and codes to the walk, which
    copies the classes (2 bytes a row) and lets them go, and reads the values and codes
    where they are until it ends: the context has none after (its ``y``, ``cvals`` and
    ``ncodes`` are empty).  Where the walk declines (None), the context keeps them.

    The per-node arrays are as narrow as their values allow (kinds one byte, node and
    column numbers and classes four; a tree of 1M rows has about 700,000 nodes).
    """
    mod = native.cprune
    if mod is None or ctx.n_classes > MAX_CLASSES:
        return None
    kind, attribute, first, count = grown.kind, grown.attribute, grown.first, grown.count
    N = int(kind.size)
    kind8 = np.ascontiguousarray(kind, dtype=np.int8)
    tests = np.flatnonzero(kind8 != KIND_LEAF)
    pos_of = np.zeros((2, len(ctx.kinds)), dtype=np.int32)
    for a, j in ctx.cont_pos.items():
        pos_of[0, a] = j
    for a, j in ctx.nom_pos.items():
        pos_of[1, a] = j
    attr = np.asarray(attribute)[tests]
    attr_pos = np.zeros(N, dtype=np.int32)
    attr_pos[tests] = np.where(kind8[tests] == KIND_CONTINUOUS, pos_of[0, attr], pos_of[1, attr])
    del attr, tests
    tab_start = np.zeros(N, dtype=np.int32)
    tab: list[int] = [-1]
    for i in np.flatnonzero(kind8 == KIND_SUBSET).tolist():
        tab_start[i] = len(tab)
        tab.extend(subset_table(ctx.n_values[int(attribute[i])], grown.subsets[i]).tolist())
    assert N < 1 << 31, "node numbers are int32 in the C walk"
    rec = NodeRecords(
        kind=kind8.copy(),
        src=np.arange(N, dtype=np.int32),
        cls=np.array(grown.cls, dtype=np.int32),
        items=np.zeros(N),
        errors=np.zeros(N),
        dist=np.zeros((N, ctx.n_classes), dtype=ctx.dtype),
        updated=np.zeros(N, dtype=np.int8),
    )
    ncodes = ctx.ncodes if ctx.ncodes.size else np.zeros((ctx.n_rows + 1, 0), dtype=np.int16)
    if ctx.j48:
        walk_c, first_arg, coeff = mod.prune_j48, cf, ErrorBound(cf, "j48").coeff
    else:
        walk_c, first_arg, coeff = mod.prune_c45, ErrorBound(cf, "c45").log_cf, coeff_c45(cf)
    # The classes from the narrow ones (ctx.y would make and keep an 8-byte copy): the
    # list below is the only holder of this one, which the walk lets go once copied.
    data: list[npt.NDArray[Any]] = [
        ctx.y_small.astype(np.int64),
        np.ascontiguousarray(ctx.cvals, dtype=ctx.dtype),
        np.ascontiguousarray(ncodes),
    ]
    code_size = ncodes.dtype.itemsize
    if spend:
        # The list is the only holder left: the walk empties it once it has read them.
        held = (ctx.cvals, ctx.ncodes)
        ctx.cvals, ctx.ncodes = (np.zeros((0,) * a.ndim, a.dtype) for a in held)
        ctx.y = np.zeros(0, dtype=np.intp)
        # Nor does anything read growth's narrow classes (remade below where the walk
        # declines) or the weights array the Python pruner scales (made on next use).
        ctx.y_small = np.zeros(0, dtype=ctx.y_small.dtype)
        ctx.drop_weights()
        del held, ncodes
    done = walk_c(
        first_arg,
        coeff,
        ctx.n_rows,
        ctx.n_classes,
        data,
        code_size,
        kind8,
        attr_pos,
        np.ascontiguousarray(routing_cuts(grown.threshold, ctx.j48), dtype=np.float64),
        np.ascontiguousarray(first, dtype=np.int64),
        np.ascontiguousarray(count, dtype=np.int64),
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
        ctx.case_weights,
    )
    if spend and data:  # the walk declined before reading them: the context's again
        ctx.y, ctx.cvals, ctx.ncodes = data
        ctx.y_small = ctx.y.astype(ctx.y_small.dtype)
    if not done:
        return None
    if ctx.j48 and not estimated_errors:
        _training_errors_flat(rec, kind8, first, count)
    return rec


def _training_errors_flat(
    rec: NodeRecords,
    grown_kind: npt.NDArray[np.integer],
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
    leaf = (rec.kind == KIND_LEAF) | (grown_kind[src] == KIND_LEAF)
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


def prune_tnodes(ctx: Context, root: TNode, cf: float) -> bool:
    """:func:`prune_flat` over a breadth-first copy of the tree, written back to it.

    Returns False (nothing changed) when C cannot prune it.
    """
    if native.cprune is None:  # skip building the arrays for nothing
        return False
    order = [root]
    n_kids: list[int] = []
    kinds: list[NodeKind] = []
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
    kind = np.fromiter(map(KIND_CODE.__getitem__, kinds), dtype=np.int64, count=N)
    tests = kind != KIND_LEAF
    attribute = np.full(N, -1, dtype=np.int64)
    attribute[tests] = attrs
    threshold = np.full(N, math.nan)
    threshold[tests] = cuts
    grown = TreeArrays(
        kind,
        np.asarray(classes, dtype=np.int64),
        attribute,
        threshold,
        np.cumsum(counts) - counts + 1,  # root 0, then each node's children in turn
        counts,
        subsets,
    )
    rec = prune_flat(ctx, cf, grown, estimated_errors=True)
    if rec is None:
        return False
    _write_back(order, kind, rec)
    return True


def _write_back(order: list[TNode], kind: IntArray, rec: NodeRecords) -> None:
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
    restructured = in_tree & (moved | ((cur_kind == KIND_LEAF) & (kind != KIND_LEAF)))
    for i in np.flatnonzero(restructured).tolist():
        t, s = order[i], int(src[i])
        if cur_kind[i] == KIND_LEAF and kind[s] != KIND_LEAF:
            t.make_leaf()
            continue
        assert not in_tree[s]
        o = order[s]
        t.kind, t.attribute, t.threshold, t.subsets = o.kind, o.attribute, o.threshold, o.subsets
        t.children, t.nonempty, t.factors = o.children, o.nonempty, o.factors


def prune_native(
    ctx: Context, tree: FlatTree, cf: float, spend: bool = False, keep_data: bool = False
) -> tuple[Node, ...] | None:
    """The pruned tree (either flavour) by the C pruner, straight to model nodes.

    :func:`prune_flat` (the C walk, tested equal to the Python pruner; for
    j48 its records carry the training errors J48 prints) takes the tree's
    arrays as they are.  None when it cannot (no accelerator, or a tree
    deeper than its recursion allows): the caller then prunes in Python.
    ``spend``: as :func:`prune_flat`'s (the context's data let go during the walk),
    and where the walk takes the tree, its Factors and depths go too (only
    :meth:`FlatTree.to_tnodes` reads them); with ``keep_data`` only the latter (the
    context keeps its data: trainer/errcount.py reads them).
    """
    walks = native.cprune is not None and ctx.n_classes <= MAX_CLASSES
    if spend and walks and int(tree.depth[: tree.n].max()) < _MAX_NATIVE_DEPTH:
        # The walk will take the tree (it declines only deeper trees, and without the
        # accelerator): what only the Python pruner's TNodes read can go (Factors and
        # depths: 15 MB at 1M rows).
        tree.branch_blocks = []
        tree.depth = np.zeros(0, dtype=tree.depth.dtype)
    n = tree.n
    # The tree's own arrays, not FlatTree.arrays()'s copies (a leaf's threshold 0 and
    # no children): the walk reads neither field of a leaf.
    grown = TreeArrays(
        tree.kind[:n],
        tree.cls[:n],
        tree.attribute[:n],
        tree.threshold[:n],
        tree.first[:n],
        tree.count[:n],
        tree.subsets,
    )
    rec = prune_flat(ctx, cf, grown, spend=spend and not keep_data)
    if rec is None:
        return None
    return model_nodes(tree, rec)
