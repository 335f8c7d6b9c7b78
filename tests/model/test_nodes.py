"""Model nodes are one frozen class per kind, compared as plain dataclasses.

A node holds only its kind's fields (no ``attribute=-1`` or ``threshold=nan``
marker), so equal nodes are equal and hash equal on every Python, and nodes of
two kinds never are.  The same holds for the other records that once held a NaN
"none": rule conditions (c4.5rules merges equal ones in a set) and the IR's
comparisons.
"""

from __future__ import annotations

import dataclasses

import pytest

from treegen.codegen.ir import Compare
from treegen.model.core import (
    ContinuousTest,
    Leaf,
    NominalTest,
    SubsetTest,
    make_node,
    subset_branches,
)
from treegen.rules.core import Condition


def test_equal_nodes_are_equal_and_hash_equal() -> None:
    a = NominalTest(0, 3.0, 1.0, (2.0, 1.0), 2, (1, 2))
    b = NominalTest(0, 3.0, 1.0, (2.0, 1.0), 2, (1, 2))
    assert a == b and hash(a) == hash(b) and (a,) == (b,) and len({a, b}) == 1
    assert a != NominalTest(0, 3.0, 1.0, (2.0, 1.0), 3, (1, 2))
    assert a != SubsetTest(0, 3.0, 1.0, (2.0, 1.0), 2, ((0,), (1,)), (1, 2))
    assert ContinuousTest(0, 3.0, 1.0, (2.0, 1.0), 2, 0.5, (1, 2)) != a
    leaf = Leaf(0, 1.0, 0.0, (1.0,))
    assert leaf == Leaf(0, 1.0, 0.0, (1.0,)) and leaf != ("leaf", 0, 1.0, 0.0, (1.0,))


def test_each_kind_has_only_its_fields() -> None:
    fields = {
        cls.__name__: [f.name for f in dataclasses.fields(cls)]
        for cls in (Leaf, ContinuousTest, NominalTest, SubsetTest)
    }
    common = ["cls", "items", "errors", "dist"]
    counts = ["per_bag", "bag_dist"]  # J48's own counts of a test's branches, or ()
    assert fields == {
        "Leaf": common,
        "ContinuousTest": [*common, "attribute", "threshold", "children", *counts],
        "NominalTest": [*common, "attribute", "children", *counts],
        "SubsetTest": [*common, "attribute", "subsets", "children", *counts],
    }
    assert Leaf(0, 1.0, 0.0, (1.0,)).children == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        Leaf(0, 1.0, 0.0, (1.0,)).cls = 1  # type: ignore[misc]


def test_make_node_keeps_only_the_kinds_fields() -> None:
    """The trainer's and the file reader's columns hold every kind's fields; a node
    keeps its own."""
    args = (1, 4.0, 0.5, (1.0, 3.0), 3, 2.5, ((0, 2), (1,)))
    assert make_node("leaf", *args, ()) == Leaf(1, 4.0, 0.5, (1.0, 3.0))
    assert make_node("continuous", *args, (1, 2)) == ContinuousTest(
        1, 4.0, 0.5, (1.0, 3.0), 3, 2.5, (1, 2)
    )
    assert make_node("nominal", *args, (1, 2, 3)) == NominalTest(
        1, 4.0, 0.5, (1.0, 3.0), 3, (1, 2, 3)
    )
    subset = make_node("subset", *args, (1, 2))
    assert subset == SubsetTest(1, 4.0, 0.5, (1.0, 3.0), 3, ((0, 2), (1,)), (1, 2))
    assert [make_node(k, *args, (1, 2)).kind for k in ("leaf", "continuous", "subset")] == [
        "leaf",
        "continuous",
        "subset",
    ]


def test_value_branches() -> None:
    nominal = NominalTest(0, 3.0, 0.0, (3.0,), 0, (1, 2, 3))
    assert nominal.value_branches(3) == (0, 1, 2)
    subset = SubsetTest(0, 3.0, 0.0, (3.0,), 0, ((0, 3), (2,)), (1, 2))
    assert subset.value_branches(4) == (0, -1, 1, 0) == subset_branches(subset.subsets, 4)


def test_equal_conditions_merge_in_a_set() -> None:
    """generate.py finds equal candidate rules with a set of their conditions."""
    first = frozenset({Condition(1, "=", value=2), Condition(0, "<=", threshold=0.5)})
    again = frozenset({Condition(0, "<=", threshold=0.5), Condition(1, "=", value=2)})
    assert first == again and len({first, again}) == 1
    assert Condition(1, "<=", threshold=0.5) != Condition(1, ">", threshold=0.5)
    assert Condition(1, "=", value=2) != Condition(1, "=", value=3)


def test_compares_are_equal_by_their_fields() -> None:
    a = Compare(0, "le", 3, (1, 1), (1, 2), 0, 3.25)
    assert a == Compare(0, "le", 3, (1, 1), (1, 2), 0, 3.25)
    assert a != Compare(0, "le", 3, (1, 1), (1, 2), 0, 3.0)
    assert hash(a) == hash(Compare(0, "le", 3, (1, 1), (1, 2), 0, 3.25))
