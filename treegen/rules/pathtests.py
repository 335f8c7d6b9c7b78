"""A leaf's path as Release 8's tests, what c4.5rules compares of them (its ``Before``
and ``SameRule``), and the paths of a tree's leaves as :class:`PathTest` tuples, for
the generalisation in :mod:`treegen.rules.paths`.

Each distinct test is one record, the first met in depth-first order (so a cut of
-0.0 met after one of 0.0 on the same attribute is the 0.0 one: :func:`leaf_tests`),
and the C walk's edges (:class:`EdgeTests`) give the same conditions and tests as
:func:`shape_tests`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from treegen.model.constants import KIND_CONTINUOUS, KIND_LEAF, KIND_SUBSET
from treegen.model.core import Model
from treegen.rules.core import Condition, Rule
from treegen.rules.grown import shape_of
from treegen.rules.shape import TreeShape
from treegen.rules.walk import RANK


@dataclass(frozen=True, slots=True)
class PathTest:
    """A path condition with what Release 8's comparisons of tests see: the kind's rank,
    the cut (0 for a nominal test) and, for a subset test, the tree node it comes from
    (tests of different nodes are different tests, even with equal value sets).

    ``order`` and ``key`` are what ``Before`` and ``SameRule`` compare, worked out once
    (every leaf below the test's node compares them)."""

    cond: Condition
    rank: int
    cut: float
    node: int
    # the attribute, the kind's rank and the cut
    order: tuple[int, int, float] = field(init=False, compare=False, repr=False)
    # the kind, the attribute, and the value (nominal), the cut (threshold: not the
    # side) or the tree node (subset: not the branch)
    key: tuple[int, int, float] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        rank, a = self.rank, self.cond.attribute
        if rank == 1:
            key = (rank, a, float(self.cond.value))
        else:
            key = (rank, a, self.cut if rank == 2 else float(self.node))
        object.__setattr__(self, "order", (a, rank, self.cut))
        object.__setattr__(self, "key", key)

    def before(self, other: PathTest) -> bool:
        """Release 8's ``Before`` of two conditions' tests."""
        return before_order(self.order, other.order)

    def same_as(self, other: PathTest) -> bool:
        """Release 8's ``SameRule`` on one condition."""
        return self.key == other.key


def before_order(x: tuple[int, int, float], y: tuple[int, int, float]) -> bool:
    """Release 8's ``Before`` on two tests' :attr:`PathTest.order`: a lower attribute, or
    a lower kind, or the same attribute with a lower cut (not an order: see
    ``treegen.rules.paths._sorted``)."""
    return x[0] < y[0] or x[1] < y[1] or (x[0] == y[0] and x[2] < y[2])


def leaf_tests(model: Model, min_items: float = 0.0) -> Iterator[tuple[int, tuple[PathTest, ...]]]:
    """(leaf index, path tests from the root) of every leaf of at least ``min_items``
    training cases, in depth-first order, one at a time (a path's tests are shared with
    the paths of its leaf's neighbours, and each is freed once no later path and no
    rule holds it).

    Release 8 keeps one record per distinct test, the first met in depth-first order:
    two threshold tests of an attribute at equal cuts share it, so a cut of -0.0 met
    after one of 0.0 on the same attribute is the 0.0 one (and prints as ``0``).
    """
    return shape_tests(shape_of(model.nodes), min_items)


def shape_tests(
    shape: TreeShape, min_items: float = 0.0
) -> Iterator[tuple[int, tuple[PathTest, ...]]]:
    """:func:`leaf_tests` on the tree's shape (its arrays: no node is made)."""
    kind, items, attribute = shape.kind, shape.items, shape.attribute
    threshold, kid_at, kids, subsets = shape.threshold, shape.kid_at, shape.kids, shape.subsets
    stack: list[tuple[int, tuple[PathTest, ...]]] = [(0, ())]
    first_cut: dict[tuple[int, float], float] = {}  # 0.0 and -0.0 are one key
    while stack:
        i, path = stack.pop()
        k = kind[i]
        if k == KIND_LEAF:
            yield i, path
            continue
        a = attribute[i]
        start = kid_at[i]
        cut = 0.0
        if k == KIND_CONTINUOUS:
            cut = first_cut.setdefault((a, threshold[i]), threshold[i])
        kids_paths = []
        for b in range(kid_at[i + 1] - start):
            child = kids[start + b]
            if kind[child] == KIND_LEAF and not items[child] >= min_items:
                continue
            cond = _edge_condition(k, a, b, cut, subsets.get(i))
            kids_paths.append((child, (*path, PathTest(cond, RANK[k], cut, i))))
        stack.extend(reversed(kids_paths))


def _edge_condition(
    kind: int, attribute: int, branch: int, cut: float, subsets: Sequence[Sequence[int]] | None
) -> Condition:
    """The condition of branch ``branch`` of a test of ``kind`` on ``attribute`` (``cut``:
    a threshold test's first equal cut, see :func:`leaf_tests`; ``subsets``: a subset
    test's value sets, one a branch)."""
    if kind == KIND_CONTINUOUS:
        return Condition(attribute, "<=" if branch == 0 else ">", threshold=cut)
    if kind == KIND_SUBSET:
        assert subsets is not None
        return Condition(attribute, "in", values=tuple(subsets[branch]))
    return Condition(attribute, "=", value=branch)


class EdgeTests:
    """Each tree edge's condition, made when first asked for, and its :class:`PathTest`
    (as :func:`shape_tests` makes them: a cut is the first of its attribute's equal
    ones in pre-order, so a -0.0 met after a 0.0 is the 0.0)."""

    def __init__(self, shape: TreeShape, owner: npt.NDArray[np.int32]) -> None:
        self.shape = shape
        self.owner = owner.data
        self.made: list[Condition | None] = [None] * len(owner)
        self.zero: dict[int, float] = {}  # each attribute's first cut equal to 0
        # the conditions made, by (kind, attribute, branch, cut): at 100k rows 23,786
        # edges' conditions are some 2,600 distinct ones, and a Condition costs 2 us
        self.shared: dict[tuple[int, int, int, float], Condition] = {}
        kind, threshold = shape.array("kind"), shape.array("threshold")
        at_zero = np.flatnonzero((kind == KIND_CONTINUOUS) & (threshold == 0))
        for i in at_zero.tolist():
            self.zero.setdefault(shape.attribute[i], shape.threshold[i])

    def condition(self, e: int) -> Condition:
        """Edge ``e``'s condition (``e`` an index into the shape's ``kids``)."""
        cond = self.made[e]
        if cond is not None:
            return cond
        s = self.shape
        i = self.owner[e]
        k = s.kind[i]
        branch = e - s.kid_at[i]
        if k == KIND_SUBSET:
            cond = _edge_condition(k, s.attribute[i], branch, 0.0, s.subsets.get(i))
        else:
            # a nominal value or a side of a cut recurs over the tree: one condition each
            cut = self._cut(i) if k == KIND_CONTINUOUS else 0.0
            key = (k, s.attribute[i], branch, cut)
            found = self.shared.get(key)
            if found is None:
                found = self.shared[key] = _edge_condition(k, s.attribute[i], branch, cut, None)
            cond = found
        self.made[e] = cond
        return cond

    def test(self, e: int) -> PathTest:
        """Edge ``e``'s test."""
        i = self.owner[e]
        k = self.shape.kind[i]
        cut = self._cut(i) if k == KIND_CONTINUOUS else 0.0
        return PathTest(self.condition(e), RANK[k], cut, i)

    def _cut(self, i: int) -> float:
        cut: float = self.shape.threshold[i]
        return self.zero.get(self.shape.attribute[i], cut) if cut == 0 else cut


def _same_rule(rule: Rule, tests: tuple[PathTest, ...], new: list[PathTest], cls: int) -> bool:
    """Release 8's ``SameRule``: as many conditions, the same class, and each condition
    the same test (:meth:`PathTest.same_as`)."""
    if rule.cls != cls or len(tests) != len(new):
        return False
    return all(a.same_as(b) for a, b in zip(tests, new, strict=True))
