"""The rules' inputs straight from the trainer's growth: the unpruned tree as the
level-wise grower's arrays, and the values from the context's own tables.

``treegen rules`` made the unpruned tree's model nodes (about 300 bytes a node as
Python objects: 200 MB for the 700,000 nodes of 1M rows) and held a float32 copy of
the data through the growth (80 MB at 1M rows of 20 attributes), besides the
context's tables of the same values.  Here :class:`GrownTree` keeps the tree as
narrow arrays in pre-order (about 40 bytes a node) and makes each model node only
when it is read, and :func:`context_values` gives the rules the context's own tables
as their table of values (the file's table goes before the growth).

The nodes are the ones :func:`treegen.trainer.levelwise.flat.grown_nodes` makes,
field for field and in the same order (a test holds them equal), so the rules are
the same.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset, Schema
from treegen.model.constants import KIND_CONTINUOUS, KIND_LEAF, KIND_NOMINAL
from treegen.model.core import (
    ContinuousTest,
    Leaf,
    Node,
    NominalTest,
    SubsetTest,
    flavor_compares_float32,
)
from treegen.model.dist import SPARSE_MIN_CLASSES, Dist, make_dist
from treegen.model.options import ModelOptions
from treegen.rules.columns import ContextTable
from treegen.rules.shape import TreeShape, of_nodes, view
from treegen.trainer.context import Context
from treegen.trainer.levelwise.flat import FlatTree

RECENT = 4096
"""Nodes read by index that :class:`GrownNodes` keeps (the last ones, first in first
out): a depth-first walk reads a node when it looks at its parent's branches and again
when it goes down, mostly soon after; remade each time, a node cost twice the time of
the walk's model nodes (at 100k rows, 4.2 reads a node)."""


class GrownNodes(Sequence[Node]):
    """A :class:`FlatTree`'s reachable nodes in pre-order, each made when read.

    Holds per node its kind, class, weights, test and children (positions in
    pre-order), in the narrowest types that hold them exactly, instead of a Python
    object per node; reading a node makes a fresh one, equal to
    :func:`~treegen.trainer.levelwise.flat.grown_nodes`'s."""

    def __init__(self, tree: FlatTree) -> None:
        order = _pre_order(tree)
        m = order.size
        place = np.zeros(tree.n, dtype=np.int32)
        place[order] = np.arange(m, dtype=np.int32)
        kind = tree.kind[order]
        count = np.where(kind == KIND_LEAF, 0, tree.count[order]).astype(np.int32)
        # A test's children are consecutive in the grower's numbering: their places in
        # pre-order, one run per test.
        kid_at = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(count, out=kid_at[1:])
        assert kid_at[-1] < m
        first = tree.first[order]
        tests = np.flatnonzero(count)
        kids = np.repeat(first[tests] - kid_at[tests], count[tests]) + np.arange(
            int(kid_at[-1]), dtype=np.int64
        )
        # memoryviews: an element read is a Python number (a numpy scalar costs more).
        self._kids = view(place[kids])
        self._kid_at = view(kid_at.astype(np.int32))
        self._kind = view(kind.astype(np.int8))
        self._cls = view(tree.cls[order].astype(np.int32))
        self._items = view(_narrow(tree.items[order]))
        self._errors = view(_narrow(tree.errors[order]))
        self._attribute = view(tree.attribute[order].astype(np.int32))
        self._threshold = view(_narrow(tree.threshold[order]))
        self._dist = tree.dist[order]
        self._sparse = tree.n_classes >= SPARSE_MIN_CLASSES
        at = {int(i): k for k, i in enumerate(order.tolist())} if tree.subsets else {}
        self._subsets = {at[i]: s for i, s in tree.subsets.items() if i in at}
        self._n = m
        self._recent: dict[int, Node] = {}
        self._ring = [-1] * RECENT  # the keys of _recent, in the order they came
        self._at = 0

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, k: int) -> Node: ...

    @overload
    def __getitem__(self, k: slice) -> tuple[Node, ...]: ...

    def __getitem__(self, k: int | slice) -> Node | tuple[Node, ...]:
        if isinstance(k, slice):
            return tuple(self._node(j) for j in range(*k.indices(self._n)))
        node = self._recent.get(k)
        if node is not None:
            return node
        if not 0 <= k < self._n:
            if -self._n <= k < 0:
                return self[k + self._n]
            raise IndexError(k)
        node = self._recent[k] = self._node(k)
        # The one read longest ago goes (its key in the ring's next slot).
        gone = self._ring[self._at]
        if gone >= 0:
            del self._recent[gone]
        self._ring[self._at] = k
        self._at = (self._at + 1) % len(self._ring)
        return node

    def __iter__(self) -> Iterator[Node]:
        make = self._node
        for k in range(self._n):
            yield make(k)

    def shape(self) -> TreeShape:
        """The nodes' shape, from the view's own arrays (no node made)."""
        return TreeShape(
            self._kind,
            self._cls,
            self._items,
            self._attribute,
            self._threshold,
            self._kid_at,
            self._kids,
            self._subsets,
        )

    def _node(self, k: int) -> Node:
        kind, cls, items, errors = self._kind[k], self._cls[k], self._items[k], self._errors[k]
        dist: Dist = make_dist(self._dist[k]) if self._sparse else tuple(self._dist[k].tolist())
        if kind == KIND_LEAF:
            return Leaf(cls, items, errors, dist)
        kids = tuple(self._kids[self._kid_at[k] : self._kid_at[k + 1]])
        attribute = self._attribute[k]
        if kind == KIND_CONTINUOUS:
            return ContinuousTest(
                cls, items, errors, dist, attribute, self._threshold[k], (kids[0], kids[1])
            )
        if kind == KIND_NOMINAL:
            return NominalTest(cls, items, errors, dist, attribute, kids)
        return SubsetTest(cls, items, errors, dist, attribute, self._subsets.get(k, ()), kids)


def _narrow(a: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """``a`` as float32 where every value is a float32 one (a c45 tree's weights, errors
    and cuts), else as it is: the same numbers, read back as Python floats."""
    with np.errstate(over="ignore"):
        narrow = a.astype(np.float32)
    return narrow if np.array_equal(narrow, a, equal_nan=True) else a


def shape_of(nodes: Sequence[Node]) -> TreeShape:
    """The shape of a model's nodes or of the grower's arrays."""
    return nodes.shape() if isinstance(nodes, GrownNodes) else of_nodes(nodes)


def _pre_order(tree: FlatTree) -> npt.NDArray[np.int64]:
    """The ids of ``tree``'s nodes reachable from the root, in pre-order (a node, then its
    subtrees in branch order), as :func:`~treegen.trainer.levelwise.flat.model_nodes`
    numbers them.

    A level at a time in numpy (a stack walk was one Python step a node, 20 ms at 100k
    rows): the levels' nodes from the root, each subtree's size from the deepest level
    up, then each node's place, its parent's plus one plus its elder siblings' sizes."""
    n = tree.n
    kind = tree.kind[:n]
    first = tree.first[:n].astype(np.int64)
    count = np.where(kind == KIND_LEAF, 0, tree.count[:n]).astype(np.int64)
    levels = [np.zeros(1, dtype=np.int64)]
    while True:
        c = count[levels[-1]]
        total = int(c.sum())
        if total == 0:
            break
        # each node's children, in the order of their parents (consecutive ids)
        levels.append(np.repeat(first[levels[-1]] - (np.cumsum(c) - c), c) + np.arange(total))
    size = np.ones(n, dtype=np.int64)
    groups = []  # per level: its parents (nodes with children) and where each one's start
    for parents in levels[:-1]:
        c = count[parents]
        tests = parents[c > 0]
        groups.append((tests, np.cumsum(c[c > 0]) - c[c > 0]))
    for (tests, at), kids in reversed(list(zip(groups, levels[1:], strict=True))):
        size[tests] += np.add.reduceat(size[kids], at)
    place = np.zeros(n, dtype=np.int64)
    for (tests, at), kids in zip(groups, levels[1:], strict=True):
        c = count[tests]
        before = np.cumsum(size[kids]) - size[kids]  # the elder kids' sizes, level-wide
        place[kids] = np.repeat(place[tests] + 1 - before[at], c) + before
    reached = np.concatenate(levels)
    order = np.empty(reached.size, dtype=np.int64)
    order[place[reached]] = reached
    return order


@dataclass(frozen=True)
class GrownTree:
    """An unpruned tree for the rules, its nodes read from the grower's arrays: what the
    rules read of a :class:`~treegen.model.core.Model` (``nodes``, ``options``,
    ``compares_float32``)."""

    nodes: GrownNodes
    options: ModelOptions

    @classmethod
    def of(cls, tree: FlatTree, options: ModelOptions) -> GrownTree:
        """The view of ``tree``, grown with ``options``; ``tree`` may go afterwards."""
        return cls(GrownNodes(tree), options)

    @property
    def compares_float32(self) -> bool:
        """As :attr:`treegen.model.core.Model.compares_float32`."""
        return flavor_compares_float32(self.options.flavor)


def context_values(
    ctx: Context, schema: Schema, source: str = "<memory>", labels: str = "str"
) -> Dataset:
    """The training data as the rules read it, from a c45 ``ctx``'s tables (no copy of
    them: :class:`~treegen.rules.columns.ContextTable`): each continuous attribute's
    values as the context holds them (float32), each nominal one's value index (NaN for
    an unknown code), NaN for an ignored one, and the classes.

    For a context made from a file this is the file's table narrowed to float32, value
    for value: the context holds a continuous value as that float32, and a nominal
    value as its index + 1 (a file's nominal cells are indices of declared values)."""
    n = ctx.n_rows
    table = ContextTable(ctx, len(schema.attributes))
    y = ctx.y[:n].astype(np.int32)
    # The table answers the forms of X[...] the rules read, as float32 values.
    return Dataset(schema, table, y, source, labels)  # type: ignore[arg-type]
