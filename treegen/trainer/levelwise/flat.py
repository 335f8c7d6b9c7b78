"""The grown tree as arrays: what the level-wise grower writes.

A tree of a million training rows has close to a million nodes; as Python
objects they cost seconds to create and a quarter of a gigabyte to hold.
:class:`FlatTree` keeps one array per node field instead.  Node 0 is the
root; a test's children are consecutive (``first[i]`` .. ``first[i] +
count[i] - 1``, in branch order) and numbered after it, so any bottom-up
pass can run deepest level first.

Consumers: :func:`collapse` (growth's last step), the C pruner (which takes
these arrays as they are), :func:`model_nodes` (the pruned result straight
to model nodes) and :meth:`FlatTree.to_tnodes` (the reachable tree as
:class:`~treegen.trainer.tree.TNode` objects, for the Python pruner).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from treegen.model.constants import KIND_CONTINUOUS, KIND_LEAF, KIND_NOMINAL, KIND_SUBSET
from treegen.model.core import Node, NodeKind, make_node
from treegen.model.dist import SPARSE_MIN_CLASSES, Dist, make_dist
from treegen.trainer.constants import EPSILON
from treegen.trainer.heap import STEP_BLOCK, blocks_mapped_from, release_freed_memory
from treegen.trainer.tree import TNode

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.floating]


# The node kind of each code in FlatTree.kind (and in the C pruner's records), and back.
KIND_NAME: dict[int, NodeKind] = {
    KIND_LEAF: "leaf",
    KIND_CONTINUOUS: "continuous",
    KIND_NOMINAL: "nominal",
    KIND_SUBSET: "subset",
}
KIND_CODE: dict[NodeKind, int] = {name: code for code, name in KIND_NAME.items()}


@dataclass(frozen=True, slots=True)
class TreeArrays:
    """A grown tree's structure as arrays, by node id (the C pruner's input).

    Node 0 is the root; ``kind`` holds KIND_* codes; a test's children are
    nodes ``first[i] .. first[i] + count[i] - 1`` in branch order, each
    numbered after its parent (nodes no test reaches are ignored);
    ``subsets`` maps subset tests to their value groups.
    """

    kind: npt.NDArray[np.integer]
    cls: npt.NDArray[np.integer]
    attribute: npt.NDArray[np.integer]
    threshold: FloatArray
    first: npt.NDArray[np.integer]
    count: npt.NDArray[np.integer]
    subsets: Mapping[int, tuple[tuple[int, ...], ...]]


class NodeRecords(NamedTuple):
    """Every node's record by node id, as pruning leaves them (:func:`model_nodes`'s input)."""

    kind: npt.NDArray[np.integer]  # the node's kind now (a test made a leaf is KIND_LEAF)
    src: npt.NDArray[np.integer]  # whose grown test and children the node has (subtree raising)
    cls: npt.NDArray[np.integer]
    items: FloatArray
    errors: FloatArray
    dist: FloatArray  # (nodes, classes): float32 for c45, float64 for j48
    updated: npt.NDArray[np.int8]  # bit 1: record set by pruning; bit 2: in the pruned tree


class FlatTree:
    """Node fields in growable arrays (amortised doubling), ``n`` nodes in use."""

    def __init__(self, n_classes: int, dtype: type[np.floating], capacity: int = 1024) -> None:
        self.n_classes = n_classes
        self.dtype = dtype
        self.n = 0
        # Set when a --subsets (c45) node would leave MINOBJS at 1 for the rest
        # of the growth (subsets.leaking_attribute): the tree is then incomplete.
        self.leaks_minobjs = False
        # Left unwritten (no page touched) until add() sets a node's fields, each in a
        # mapping of its own (not the heap's freed pages, which may be resident): the
        # spare capacity takes no memory.
        cap = max(capacity, 1)
        with blocks_mapped_from(STEP_BLOCK):
            self.kind = np.empty(cap, dtype=np.int8)
            # Classes, attributes and depths in four bytes (at 1M rows, 700,000 nodes:
            # 8 MB less); the C pruner's first and count stay int64, as it reads them.
            self.cls = np.empty(cap, dtype=np.int32)
            # Weights and errors in the flavour's type, as growth computes them (c45's
            # are float32 values: 5.6 MB less at 1M rows, held through the C pruner's walk).
            self.items = np.empty(cap, dtype=dtype)
            self.errors = np.empty(cap, dtype=dtype)
            self.dist = np.empty((cap, n_classes), dtype=dtype)
            self.attribute = np.empty(cap, dtype=np.int32)
            self.threshold = np.empty(cap)
            self.first = np.empty(cap, dtype=np.int64)
            self.count = np.empty(cap, dtype=np.int64)
            self.depth = np.empty(cap, dtype=np.int32)
        self.subsets: dict[int, tuple[tuple[int, ...], ...]] = {}
        # Per batch of tests: their ids, non-empty branches and Factors (for
        # the Python pruner's first pass, see TNode.factors).
        self.branch_blocks: list[tuple[IntArray, npt.NDArray[np.bool_], FloatArray]] = []

    _FIELDS = (
        "kind",
        "cls",
        "items",
        "errors",
        "dist",
        "attribute",
        "threshold",
        "first",
        "count",
        "depth",
    )
    _ZEROED = ("cls", "items", "errors", "dist", "first", "count", "depth")

    def add(self, k: int) -> int:
        """Append ``k`` nodes (leaves, zero records); returns the first new id."""
        start = self.n
        need = start + k
        cap = self.kind.size
        if need > cap:
            new_cap = max(need, cap + cap // 2)
            for name in self._FIELDS:
                old = getattr(self, name)
                with blocks_mapped_from(STEP_BLOCK):
                    grown = np.empty((new_cap,) + old.shape[1:], dtype=old.dtype)
                grown[:start] = old[:start]
                setattr(self, name, grown)
                del old, grown
                # The old array's pages, freed to the heap (below the mmap threshold
                # at 1M rows), back to the OS before the next field's copy: the copies
                # of a doubling at 563k nodes took 28 MB more at their peak.
                release_freed_memory()
        new = slice(start, need)
        self.kind[new] = KIND_LEAF
        self.attribute[new] = -1
        self.threshold[new] = math.nan
        for name in self._ZEROED:
            getattr(self, name)[new] = 0
        self.n = need
        return start

    def compact(self) -> None:
        """Drop the spare capacity (growth is over)."""
        for name in self._FIELDS:
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[: self.n]))

    def arrays(self) -> TreeArrays:
        """The grown structure of the ``n`` nodes (a leaf's threshold 0, no children)."""
        n = self.n
        test = self.kind[:n] != KIND_LEAF
        return TreeArrays(
            self.kind[:n],
            self.cls[:n],
            self.attribute[:n],
            np.where(test, self.threshold[:n], 0.0),
            self.first[:n],
            np.where(test, self.count[:n], 0),
            self.subsets,
        )

    def children(self, i: int) -> range:
        """The ids of node ``i``'s children, in branch order (empty for a leaf)."""
        return range(int(self.first[i]), int(self.first[i] + self.count[i]))

    def to_tnodes(self) -> TNode:
        """The tree reachable from the root as TNode objects (the Python pruner's input)."""
        branch: dict[int, tuple[tuple[int, ...], tuple[float, ...]]] = {}
        for ids, ne, fac in self.branch_blocks:
            for i, ne_row, fac_row in zip(ids.tolist(), ne.tolist(), fac.tolist(), strict=True):
                f = int(self.count[i])
                branch[i] = (tuple(v for v in range(f) if ne_row[v]), tuple(fac_row[:f]))
        kind, cls = self.kind.tolist(), self.cls.tolist()
        items, errors = self.items.tolist(), self.errors.tolist()
        attribute, threshold = self.attribute.tolist(), self.threshold.tolist()
        first, count = self.first.tolist(), self.count.tolist()

        def make(i: int) -> TNode:
            t = TNode(KIND_NAME[kind[i]], cls[i], items[i], errors[i], self.dist[i])
            if kind[i] != KIND_LEAF:
                # math.nan itself where there is no cut, as TNode has it (node
                # tuples compare NaN fields by identity).
                th = threshold[i]
                t.attribute, t.threshold = attribute[i], math.nan if math.isnan(th) else th
                t.subsets = self.subsets.get(i, ())
                t.nonempty, t.factors = branch[i]
            return t

        root = make(0)
        stack = [(root, 0)]
        while stack:
            t, i = stack.pop()
            if kind[i] == KIND_LEAF:
                continue
            for j in range(first[i], first[i] + count[i]):
                c = make(j)
                t.children.append(c)
                stack.append((c, j))
        return root


def collapse(tree: FlatTree, j48: bool) -> None:
    """Growth's last step, collapsing useless subtrees, deepest level first.

    A test's errors become the sum of its children's, added in branch order
    (float32 for c45); a test no better than a leaf becomes one.
    """
    n = tree.n
    internal = np.flatnonzero(tree.kind[:n] != KIND_LEAF)
    if internal.size == 0:
        return
    depth = tree.depth[internal]
    order = np.argsort(-depth, kind="stable")
    internal, depth = internal[order], depth[order]
    bounds = np.flatnonzero(np.diff(depth)) + 1
    for level in np.split(internal, bounds):
        first, count = tree.first[level], tree.count[level]
        acc = np.zeros(level.size)
        for j in range(int(count.max())):
            has = count > j
            v = tree.errors[first[has] + j]
            if j48:
                acc[has] = acc[has] + v
            else:  # Context.add_all: fl(acc + v), v already a float32 value
                acc[has] = (acc[has] + v).astype(np.float32)
        items = tree.items[level]
        best = tree.dist[level, tree.cls[level]].astype(np.float64)
        leaf_err = items - best
        if not j48:
            leaf_err = leaf_err.astype(np.float32).astype(np.float64)
        tree.errors[level] = acc
        to_leaf = level[acc >= leaf_err - EPSILON]
        tree.kind[to_leaf] = KIND_LEAF


def model_nodes(tree: FlatTree, rec: NodeRecords) -> tuple[Node, ...]:
    """The pruned tree as model nodes (pre-order), from the C pruner's records.

    Node i of the pruned tree has the grown test and children of
    ``rec.src[i]`` (itself unless subtree raising moved a branch up), is a
    leaf where ``rec.kind[i]`` says so, and takes class, items, errors and
    distribution from the pruner where bit 1 of ``rec.updated`` is set, else
    as grown.
    """
    cls, items, errors, dist, updated = rec.cls, rec.items, rec.errors, rec.dist, rec.updated
    # Read in place, a Python int an item (memoryview), not as lists: the walk visits
    # only the pruned tree's nodes, and lists of the grown tree's (700,000 at 1M rows)
    # were a peak of about 60 MB after pruning.
    cur_l, src_l = _ints(rec.kind), _ints(rec.src)
    okind, first, count = _ints(tree.kind), _ints(tree.first), _ints(tree.count)
    order: list[int] = []
    kids: list[list[int] | None] = []  # None: a leaf
    stack = [0]
    while stack:  # pre-order: a node, then its subtrees in branch order
        i = stack.pop()
        order.append(i)
        s = src_l[i]
        if cur_l[i] == KIND_LEAF or okind[s] == KIND_LEAF:
            kids.append(None)
            continue
        ch = list(range(first[s], first[s] + count[s]))
        kids.append(ch)
        stack.extend(reversed(ch))
    idx = np.asarray(order, dtype=np.intp)
    upd = (updated[idx] & 1) != 0
    cls_l = np.where(upd, cls[idx], tree.cls[idx]).tolist()
    items_l = np.where(upd, items[idx], tree.items[idx]).tolist()
    err_l = np.where(upd, errors[idx], tree.errors[idx]).tolist()
    dists: list[Dist]
    if tree.n_classes >= SPARSE_MIN_CLASSES:
        # Row by row, the classes present (make_dist): a float object per class and node
        # was 400 MB at 4,000 classes and 3,300 nodes.
        dists = [
            make_dist(dist[i] if u else tree.dist[i])
            for i, u in zip(order, upd.tolist(), strict=True)
        ]
    else:
        dists = [
            tuple(row)
            for row in np.where(
                upd[:, None], dist[idx].astype(np.float64), tree.dist[idx].astype(np.float64)
            ).tolist()
        ]
    index = {i: k for k, i in enumerate(order)}
    out = []
    for k, i in enumerate(order):
        s = src_l[i]
        ch_k = kids[k]
        leaf = ch_k is None
        out.append(
            make_node(
                "leaf" if ch_k is None else KIND_NAME[okind[s]],
                cls=int(cls_l[k]),
                items=float(items_l[k]),
                errors=float(err_l[k]),
                dist=dists[k],
                attribute=-1 if leaf else int(tree.attribute[s]),
                threshold=float(tree.threshold[s]),
                subsets=() if leaf else tree.subsets.get(s, ()),
                children=() if ch_k is None else tuple(index[c] for c in ch_k),
            )
        )
    return tuple(out)


def _ints(a: npt.NDArray[np.integer]) -> memoryview:
    """``a``'s items as Python ints by index, without a copy where ``a`` is contiguous."""
    return np.ascontiguousarray(a).data


def grown_nodes(tree: FlatTree) -> tuple[Node, ...]:
    """The (collapsed) grown tree as model nodes: the unpruned model."""
    n = tree.n
    grown = NodeRecords(
        kind=tree.kind[:n].astype(np.intp),
        src=np.arange(n, dtype=np.intp),
        cls=tree.cls[:n],
        items=tree.items[:n],
        errors=tree.errors[:n],
        dist=tree.dist[:n],
        updated=np.zeros(n, dtype=np.int8),
    )
    return model_nodes(tree, grown)
