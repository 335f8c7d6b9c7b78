"""The unpruned tree's shape as flat arrays, for the rules' walks over it.

The generalisation walks the tree three times (counting its leaves, sorting the cases
by the node they end at, and every leaf's path).  Read as model nodes, a node of the
grower's arrays (:class:`treegen.rules.grown.GrownNodes`) is made each time it is read,
about four makings a node; the walks read only a node's kind, class, weight, test and
children, which :class:`TreeShape` gives as array elements (a memoryview's element is
a Python number, as the node's field is).  :func:`shape_of` takes either tree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.model.constants import KIND_CONTINUOUS, KIND_LEAF, KIND_NOMINAL, KIND_SUBSET
from treegen.model.core import ContinuousTest, Leaf, Node, NominalTest, SubsetTest


@dataclass(frozen=True)
class TreeShape:
    """A tree's nodes in pre-order as arrays: node ``i``'s kind (``KIND_*``), class,
    training weight, attribute and cut (0 where it has none), its children's indices
    ``kids[kid_at[i]:kid_at[i + 1]]`` in branch order, and a subset test's value groups
    (``subsets[i]``)."""

    kind: memoryview
    cls: memoryview
    items: memoryview
    attribute: memoryview
    threshold: memoryview
    kid_at: memoryview
    kids: memoryview
    subsets: Mapping[int, tuple[tuple[int, ...], ...]]

    def __len__(self) -> int:
        return len(self.kind)

    def array(self, name: str) -> npt.NDArray[Any]:
        """The field ``name`` as a numpy array (no copy)."""
        return np.asarray(getattr(self, name))

    def n_leaves(self, min_items: float) -> int:
        """How many leaves have at least ``min_items`` training cases."""
        leaf = self.array("kind") == KIND_LEAF
        return int(np.count_nonzero(leaf & (self.array("items") >= min_items)))


def view(a: npt.NDArray[Any]) -> memoryview:
    """``a``'s elements as a memoryview (its own buffer, made contiguous)."""
    return np.ascontiguousarray(a).data


def of_nodes(nodes: Sequence[Node]) -> TreeShape:
    """The shape of a model's ``nodes`` (pre-order, children by index)."""
    m = len(nodes)
    kind = np.zeros(m, dtype=np.int8)
    cls = np.zeros(m, dtype=np.int32)
    items = np.zeros(m, dtype=np.float64)
    attribute = np.zeros(m, dtype=np.int32)
    threshold = np.zeros(m, dtype=np.float64)
    kid_at = np.zeros(m + 1, dtype=np.int32)
    kids: list[int] = []
    subsets: dict[int, tuple[tuple[int, ...], ...]] = {}
    for i, node in enumerate(nodes):
        cls[i], items[i] = node.cls, node.items
        kid_at[i] = len(kids)
        if isinstance(node, Leaf):
            continue
        attribute[i] = node.attribute
        kids.extend(node.children)
        if isinstance(node, ContinuousTest):
            kind[i], threshold[i] = KIND_CONTINUOUS, node.threshold
        elif isinstance(node, NominalTest):
            kind[i] = KIND_NOMINAL
        else:
            assert isinstance(node, SubsetTest)
            kind[i], subsets[i] = KIND_SUBSET, node.subsets
    kid_at[m] = len(kids)
    return TreeShape(
        view(kind),
        view(cls),
        view(items),
        view(attribute),
        view(threshold),
        view(kid_at),
        view(np.asarray(kids, dtype=np.int32)),
        subsets,
    )
