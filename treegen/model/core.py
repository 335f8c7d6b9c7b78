"""The trained model: a flat, pre-order list of tree nodes plus its schema.

A :class:`Model` is what the trainer returns, what ``model.tree`` stores
(see :mod:`treegen.model.file` for the JSON form) and what lowering to C
reads.  Nodes live in a flat tuple (root at index 0, children referenced by
index) so that no stage needs recursion over a tree that may be hundreds of
levels deep.

A node is one of four classes, one per kind: :class:`Leaf`,
:class:`ContinuousTest`, :class:`NominalTest` and :class:`SubsetTest`
(:data:`Node` is their union).  Each holds only the fields its kind has, so no
field holds a "none" marker and two nodes are equal exactly when their
dataclass fields are.  Every node carries what C4.5 needs to classify with
unknown values (docs/C45.md section 6): ``items`` (the training weight that
reached it, whose ratio to the parent's ``items`` is the branch's share when a
value is unknown), ``dist`` (per-class weights: a tuple, or for many classes the
classes present, :mod:`treegen.model.dist`) and ``cls`` (the node's class:
the leaf label, and for empty leaves the class to vote for).

A test may also carry J48's own counts of its branches (a j48 tree trained in Weka's
order, :mod:`treegen.trainer.j48order`; else both are empty): ``per_bag``, each
branch's weight (``Distribution.perBag``), by which Weka splits a missing value
(``per_bag[b] / items``), and ``bag_dist``, each branch's class weights
(``perClassPerBag``), from which J48 prints a leaf (its parent's ``dumpLabel``).  They
are not the branch's own ``items`` and ``dist``: Weka counts a test's unknown cases in
each branch at the known shares, then sends them down at the shares of those sums, and
adds in other orders.  Only the Weka-style answers and printout read them
(:mod:`treegen.committee.weka`, :mod:`treegen.model.show`); treegen's own classifier and
the C split by the branches' ``items``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, TypeAlias

from treegen.data.dataset import Schema
from treegen.model.dist import Dist
from treegen.model.options import ModelOptions

NodeKind = Literal["leaf", "continuous", "nominal", "subset"]


@dataclass(frozen=True, slots=True)
class Leaf:
    """A leaf: the class ``cls`` and the class weights ``dist`` that reached it."""

    kind: ClassVar[Literal["leaf"]] = "leaf"
    # A leaf has no branches; stages that walk the tree read ``children`` of any node.
    children: ClassVar[tuple[int, ...]] = ()

    cls: int
    items: float
    errors: float
    dist: Dist


@dataclass(frozen=True, slots=True)
class ContinuousTest:
    """``attribute <= threshold``: branch 0 when true, branch 1 when false.

    ``threshold`` is a float64 holding the exact cut (a float32 value for the
    c45 flavour)."""

    kind: ClassVar[Literal["continuous"]] = "continuous"

    cls: int
    items: float
    errors: float
    dist: Dist
    attribute: int
    threshold: float
    children: tuple[int, int]
    per_bag: tuple[float, ...] = ()  # () or J48's perBag (module docstring)
    bag_dist: tuple[tuple[float, ...], ...] = ()  # () or J48's perClassPerBag


@dataclass(frozen=True, slots=True)
class NominalTest:
    """One branch per declared value of nominal ``attribute``, in order."""

    kind: ClassVar[Literal["nominal"]] = "nominal"

    cls: int
    items: float
    errors: float
    dist: Dist
    attribute: int
    children: tuple[int, ...]
    per_bag: tuple[float, ...] = ()
    bag_dist: tuple[tuple[float, ...], ...] = ()

    def value_branches(self, n_values: int) -> tuple[int, ...]:
        """The branch of each value ``0..n_values-1``: its own (see :data:`ValueTest`)."""
        return tuple(range(n_values))


@dataclass(frozen=True, slots=True)
class SubsetTest:
    """A test on nominal ``attribute`` (``--subsets``): branch ``b`` takes the value
    codes in ``subsets[b]``."""

    kind: ClassVar[Literal["subset"]] = "subset"

    cls: int
    items: float
    errors: float
    dist: Dist
    attribute: int
    subsets: tuple[tuple[int, ...], ...]
    children: tuple[int, ...]
    per_bag: tuple[float, ...] = ()
    bag_dist: tuple[tuple[float, ...], ...] = ()

    def value_branches(self, n_values: int) -> tuple[int, ...]:
        """The branch of each value ``0..n_values-1`` (see :data:`ValueTest`)."""
        return subset_branches(self.subsets, n_values)


Test: TypeAlias = ContinuousTest | NominalTest | SubsetTest
ValueTest: TypeAlias = NominalTest | SubsetTest
"""A test on a nominal attribute.  Its ``value_branches(n_values)`` is the one rule
every stage (trainer, classifier, lowering, fixed-point model) routes nominal values
by: a nominal test has one branch per value; a subset test sends value ``v`` to the
branch whose subset lists it, and a value in no subset (none reached the node in
growth) to -1, where it counts as unknown."""
Node: TypeAlias = Leaf | ContinuousTest | NominalTest | SubsetTest
NODE_TYPES: tuple[type[Leaf], type[ContinuousTest], type[NominalTest], type[SubsetTest]] = (
    Leaf,
    ContinuousTest,
    NominalTest,
    SubsetTest,
)


def make_node(
    kind: NodeKind,
    cls: int,
    items: float,
    errors: float,
    dist: Dist,
    attribute: int,
    threshold: float,
    subsets: tuple[tuple[int, ...], ...],
    children: tuple[int, ...],
    per_bag: tuple[float, ...] = (),
    bag_dist: tuple[tuple[float, ...], ...] = (),
) -> Node:
    """The node of ``kind`` from columns that hold every kind's fields (the trainer's
    arrays, a model file's node object): the fields ``kind`` has no use for are dropped."""
    if kind == "leaf":
        return Leaf(cls, items, errors, dist)
    if kind == "continuous":
        assert len(children) == 2, children
        return ContinuousTest(
            cls,
            items,
            errors,
            dist,
            attribute,
            threshold,
            (children[0], children[1]),
            per_bag,
            bag_dist,
        )
    if kind == "nominal":
        return NominalTest(cls, items, errors, dist, attribute, children, per_bag, bag_dist)
    return SubsetTest(cls, items, errors, dist, attribute, subsets, children, per_bag, bag_dist)


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
    """A trained tree and everything needed to use, print and export it: its schema,
    its nodes, what it records of its training (:class:`ModelOptions`) and where it
    came from."""

    schema: Schema
    nodes: tuple[Node, ...]
    options: ModelOptions = ModelOptions()
    treegen_version: str = ""
    data_fingerprint: str = ""

    @property
    def compares_float32(self) -> bool:
        """True when a continuous test means ``float32(v) <= threshold``.

        The c45 flavour reproduces Release 8, which stores every value as a C
        ``float`` before comparing; the j48 flavour compares doubles.
        """
        return flavor_compares_float32(self.options.flavor)

    @property
    def root(self) -> Node:
        return self.nodes[0]

    @property
    def size(self) -> int:
        """Number of nodes, empty leaves included (C4.5's and J48's size)."""
        return len(self.nodes)

    @property
    def n_leaves(self) -> int:
        return sum(1 for n in self.nodes if isinstance(n, Leaf))

    def depth(self) -> int:
        """Longest root-to-leaf path in edges, computed without recursion."""
        depth = [0] * len(self.nodes)
        best = 0
        for i, n in enumerate(self.nodes):  # pre-order: parents come first
            for c in n.children:
                depth[c] = depth[i] + 1
                best = max(best, depth[c])
        return best
