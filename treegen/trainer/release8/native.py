"""Release 8's pruning in its case order, in C (the accelerator's ``_cprune.r8_prune``).

:func:`prune_native` hands the grown tree (as arrays, breadth first) and the case
array to the C walk, which does what :func:`treegen.trainer.release8.prune._estimate`
does step for step (native/r8walk.c; its arguments read in r8prune.c), and writes its
records back to the :class:`~treegen.trainer.tree.TNode` objects of the pruned tree:
the same tree, the same numbers, and the case array left in the same order.  With one
class per row the Python walk's numpy calls per node and branch were a third of
``train``'s time.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from treegen.model.constants import KIND_LEAF, KIND_SUBSET
from treegen.model.dist import SPARSE_MIN_CLASSES, SparseDist
from treegen.trainer import native
from treegen.trainer.levelwise.flat import KIND_CODE
from treegen.trainer.release8.cases import F32, Cases
from treegen.trainer.route import subset_table
from treegen.trainer.stats import ErrorBound, coeff_c45
from treegen.trainer.tree import TNode, held_dist

# The C walk recurses once per tree level (a few hundred bytes of C stack each);
# deeper trees, far beyond any real one, are pruned in Python.
MAX_DEPTH = 2000


def available() -> bool:
    """Whether the accelerator has the walk."""
    return native.cprune is not None and hasattr(native.cprune, "r8_prune")


def prune_native(cases: Cases, root: TNode, cf: float) -> bool:
    """Prune ``root`` as :func:`treegen.trainer.release8.prune.prune` does, in C, the
    weights already reset; False, nothing done, without the accelerator or for a tree
    deeper than :data:`MAX_DEPTH`."""
    mod = native.cprune
    if mod is None or not hasattr(mod, "r8_prune"):
        return False
    ctx = cases.ctx
    nodes = [root]
    depth = [0]
    n_kids: list[int] = []
    for i, t in enumerate(nodes):  # grows while iterated: breadth first
        kids = t.children
        if kids and depth[i] + 1 >= MAX_DEPTH:
            return False
        nodes.extend(kids)
        depth.extend([depth[i] + 1] * len(kids))
        n_kids.append(len(kids))
    N = len(nodes)
    kind = np.fromiter((KIND_CODE[t.kind] for t in nodes), dtype=np.int64, count=N)
    attr_pos = np.zeros(N, dtype=np.int64)
    thresh = np.full(N, math.nan)
    tab_start = np.zeros(N, dtype=np.int64)
    tab: list[int] = [-1]
    for i in np.flatnonzero(kind != KIND_LEAF).tolist():
        t = nodes[i]
        a = t.attribute
        if t.kind == "continuous":
            attr_pos[i] = ctx.cont_pos[a]
            thresh[i] = t.threshold
        else:
            attr_pos[i] = ctx.nom_pos[a]
        if kind[i] == KIND_SUBSET:
            tab_start[i] = len(tab)
            tab.extend(subset_table(ctx.n_values[a], t.subsets).tolist())
    counts = np.asarray(n_kids, dtype=np.int64)
    rec_kind = kind.copy()
    src = np.arange(N, dtype=np.int64)
    cls = np.fromiter((t.cls for t in nodes), dtype=np.int64, count=N)
    items, errors = np.zeros(N), np.zeros(N)
    snap = np.full(N, -1, dtype=np.int64)
    ncodes = ctx.ncodes if ctx.ncodes.size else np.zeros((ctx.n_rows + 1, 0), dtype=np.int16)
    s_cls, s_w, s_start = mod.r8_prune(
        ErrorBound(cf, "c45").log_cf,
        coeff_c45(cf),
        ctx.n_classes,
        np.ascontiguousarray(ctx.y, dtype=np.int64),
        np.ascontiguousarray(ctx.cvals, dtype=F32),
        np.ascontiguousarray(ncodes),
        ncodes.dtype.itemsize,
        cases.order,
        cases.weight,
        kind,
        attr_pos,
        thresh,
        np.cumsum(counts) - counts + 1,  # root 0, then each node's children in turn
        counts,
        np.arange(N, dtype=np.int64),
        tab_start,
        np.asarray(tab, dtype=np.int32),
        rec_kind,
        src,
        cls,
        items,
        errors,
        snap,
    )
    _write_back(
        nodes,
        kind,
        counts,
        (rec_kind, src, cls, items, errors, snap),
        (np.frombuffer(s_cls, dtype=np.int32), np.frombuffer(s_w, dtype=F32)),
        np.frombuffer(s_start, dtype=np.int64),
        ctx.n_classes,
    )
    return True


def _write_back(
    nodes: list[TNode],
    grown_kind: np.ndarray,
    counts: np.ndarray,
    rec: tuple[np.ndarray, ...],
    snaps: tuple[np.ndarray, np.ndarray],
    starts: np.ndarray,
    n_classes: int,
) -> None:
    """The C walk's records onto the nodes of the pruned tree, as the Python walk
    leaves them: an updated node's items, class, errors and dist (its snapshot as the
    dense float32 sums ``held_dist`` keeps); a node made a leaf gets ``make_leaf``; a
    node given another's structure (subtree raising) that node's grown test and
    children, as ``copy_from`` gives them.  A source node is off the pruned tree, so
    still as grown."""
    kind, src, cls, items, errors, snap = rec
    kind_l, src_l, snap_l = kind.tolist(), src.tolist(), snap.tolist()
    cls_l, items_l, errors_l = cls.tolist(), items.tolist(), errors.tolist()
    s_cls, s_w = snaps
    start_l = starts.tolist()
    # A snapshot of few classes is held as held_dist holds it, straight from its
    # pairs: with thousands of classes a dense array per node, and make_dist's scan
    # of it, were most of this loop's time.
    sparse_ok = n_classes >= SPARSE_MIN_CLASSES
    grown_leaf = (grown_kind == KIND_LEAF).tolist()
    # The pruned tree's nodes, from the root: a test's children are its source's.
    first_l = (np.cumsum(counts) - counts + 1).tolist()
    count_l = counts.tolist()
    todo = [0]
    while todo:
        i = todo.pop()
        t = nodes[i]
        k = snap_l[i]
        if k >= 0:
            lo, hi = start_l[k], start_l[k + 1]
            sparse = None
            if sparse_ok and 4 * (hi - lo) <= n_classes:  # else held_dist decides
                sparse = _sparse_snapshot(n_classes, s_cls[lo:hi].tolist(), s_w[lo:hi].tolist())
            dist: npt.NDArray[np.floating] | SparseDist
            if sparse is not None:
                dist = sparse
            else:
                freq = np.zeros(n_classes, dtype=F32)
                freq[s_cls[lo:hi]] = s_w[lo:hi]
                dist = held_dist(freq)
            t.items, t.cls, t.errors, t.dist = items_l[i], cls_l[i], errors_l[i], dist
        if kind_l[i] == KIND_LEAF:
            if not grown_leaf[i]:
                t.make_leaf()
            continue
        s = src_l[i]
        if s != i:
            o = nodes[s]  # off the pruned tree: as grown
            t.kind, t.attribute, t.threshold = o.kind, o.attribute, o.threshold
            t.subsets = o.subsets
            t.children, t.nonempty, t.factors = o.children, o.nonempty, o.factors
        todo.extend(range(first_l[s], first_l[s] + count_l[s]))


def _sparse_snapshot(n_classes: int, cls: list[int], w: list[float]) -> SparseDist | None:
    """The :class:`SparseDist` :func:`held_dist` makes of a snapshot (its classes, each
    once, and their float32 sums), where it makes one for certain: at most a quarter
    of the classes in it.  make_dist's rule: the classes whose sum is not +0.0,
    ascending."""
    if 4 * len(cls) > n_classes:
        return None
    pairs = sorted(zip(cls, w, strict=True))
    if 0.0 in w:  # a sum of +0.0 (or -0.0, which stays) is no class present
        pairs = [(c, x) for c, x in pairs if x != 0 or math.copysign(1.0, x) < 0]
    at, weights = zip(*pairs, strict=True) if pairs else ((), ())
    return SparseDist._trusted(n_classes, at, weights)
