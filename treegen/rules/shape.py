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


_KINDS = {
    Leaf: KIND_LEAF,
    ContinuousTest: KIND_CONTINUOUS,
    NominalTest: KIND_NOMINAL,
    SubsetTest: KIND_SUBSET,
}


def of_nodes(nodes: Sequence[Node]) -> TreeShape:
    """The shape of a model's ``nodes`` (pre-order, children by index)."""
    kid_at: list[int] = [0]
    kids: list[int] = []
    for node in nodes:
        kids.extend(node.children)  # a leaf's are ()
        kid_at.append(len(kids))
    return TreeShape(
        view(np.asarray([_KINDS[type(v)] for v in nodes], dtype=np.int8)),
        view(np.asarray([v.cls for v in nodes], dtype=np.int32)),
        view(np.asarray([v.items for v in nodes], dtype=np.float64)),
        view(np.asarray([getattr(v, "attribute", 0) for v in nodes], dtype=np.int32)),
        view(np.asarray([getattr(v, "threshold", 0.0) for v in nodes], dtype=np.float64)),
        view(np.asarray(kid_at, dtype=np.int32)),
        view(np.asarray(kids, dtype=np.int32)),
        {i: v.subsets for i, v in enumerate(nodes) if isinstance(v, SubsetTest)},
    )
