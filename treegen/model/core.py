"""The trained model: a flat, pre-order list of tree nodes plus its schema.

A :class:`Model` is what the trainer returns, what ``model.tree`` stores
(see :mod:`treegen.model.file` for the JSON form) and what lowering to C
reads.  Nodes live in a flat tuple (root at index 0, children referenced by
index) so that no stage needs recursion over a tree that may be hundreds of
levels deep.

Every node, leaf or test, carries what C4.5 needs to classify with unknown
values (docs/C45.md section 6): ``items`` (the training weight that reached
it, whose ratio to the parent's ``items`` is the branch's share when a value
is unknown), ``dist`` (per-class weights) and ``cls`` (the node's class:
the leaf label, and for empty leaves the class to vote for).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from treegen.data.dataset import Schema
from treegen.nanequal import nan_equal

NodeKind = Literal["leaf", "continuous", "nominal", "subset"]


@nan_equal
@dataclass(frozen=True, slots=True, eq=False)
class Node:
    """One tree node.

    * ``leaf``: ``children == ()``.
    * ``continuous``: two children; branch 0 is ``x <= threshold``, branch 1
      ``x > threshold``.  ``threshold`` is a float64 holding the exact cut
      (a float32 value for the c45 flavour).
    * ``nominal``: one child per declared value of ``attribute``, in order.
    * ``subset`` (``--subsets``): child ``b`` takes the value codes in
      ``subsets[b]``.
    """

    kind: NodeKind
    cls: int
    items: float
    errors: float
    dist: tuple[float, ...]
    attribute: int = -1
    threshold: float = math.nan
    subsets: tuple[tuple[int, ...], ...] = ()
    children: tuple[int, ...] = ()

    @property
    def is_leaf(self) -> bool:
        return self.kind == "leaf"

    def value_branches(self, n_values: int) -> tuple[int, ...]:
        """The branch of each value ``0..n_values-1`` at a nominal or subset test.

        A nominal test has one branch per value; a subset test sends value
        ``v`` to the branch whose subset lists it, and a value in no subset
        (none reached the node in growth) to -1, where it counts as unknown.
        The one rule every stage (trainer, classifier, lowering, fixed-point
        model) routes nominal values by.
        """
        if self.kind == "nominal":
            return tuple(range(n_values))
        assert self.kind == "subset", self.kind
        return subset_branches(self.subsets, n_values)


def subset_branches(subsets: tuple[tuple[int, ...], ...], n_values: int) -> tuple[int, ...]:
    """The branch of each value ``0..n_values-1`` at a subset test (-1: in no subset)."""
    table = [-1] * n_values
    for b, vals in enumerate(subsets):
        for v in vals:
            table[v] = b
    return tuple(table)


def flavor_compares_float32(flavor: str) -> bool:
    """Whether training flavor ``flavor`` keeps continuous values as float32 (c45) or as
    doubles (j48); see :attr:`Model.compares_float32`."""
    return flavor != "j48"


@dataclass(frozen=True, slots=True)
class Model:
    """A trained tree and everything needed to use, print and export it."""

    schema: Schema
    nodes: tuple[Node, ...]
    options: dict[str, object] = field(default_factory=dict)
    treegen_version: str = ""
    data_fingerprint: str = ""

    @property
    def compares_float32(self) -> bool:
        """True when a continuous test means ``float32(v) <= threshold``.

        The c45 flavour reproduces Release 8, which stores every value as a C
        ``float`` before comparing; the j48 flavour compares doubles.
        """
        return flavor_compares_float32(str(self.options.get("flavor", "c45")))

    @property
    def root(self) -> Node:
        return self.nodes[0]

    @property
    def size(self) -> int:
        """Number of nodes, empty leaves included (C4.5's and J48's size)."""
        return len(self.nodes)

    @property
    def n_leaves(self) -> int:
        return sum(1 for n in self.nodes if n.is_leaf)

    def depth(self) -> int:
        """Longest root-to-leaf path in edges, computed without recursion."""
        depth = [0] * len(self.nodes)
        best = 0
        for i, n in enumerate(self.nodes):  # pre-order: parents come first
            for c in n.children:
                depth[c] = depth[i] + 1
                best = max(best, depth[c])
        return best
