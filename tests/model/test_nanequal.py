"""Records with NaN in a float field compare and hash equal on every Python.

Python 3.13 compares dataclasses field by field, where ``nan == nan`` is false;
treegen.nanequal keeps equal nodes, conditions and scores equal.  Distinct NaN
objects (``float("nan")``) make the point on any Python: a tuple comparison of
fields, Python 3.11's, would find them different too.
"""

from __future__ import annotations

import math

from treegen.codegen.ir import Compare
from treegen.model.core import Node
from treegen.rules.core import Condition
from treegen.trainer.splits import Score


def _nan() -> float:
    return float("nan")  # a new NaN object each time


def test_nodes_with_no_cut_are_equal() -> None:
    a = Node("nominal", 0, 3.0, 1.0, (2.0, 1.0), 2, _nan(), (), (1, 2))
    b = Node("nominal", 0, 3.0, 1.0, (2.0, 1.0), 2, _nan(), (), (1, 2))
    assert a == b and hash(a) == hash(b) and (a,) == (b,)
    assert a != Node("nominal", 0, 3.0, 1.0, (2.0, 1.0), 3, _nan(), (), (1, 2))
    assert Node("continuous", 0, 3.0, 1.0, (2.0, 1.0), 2, 0.5, (), (1, 2)) != a


def test_equal_conditions_merge_in_a_set() -> None:
    """generate.py finds equal candidate rules with a set of their conditions."""
    first = frozenset({Condition(1, "=", value=2, threshold=_nan())})
    again = frozenset({Condition(1, "=", value=2, threshold=_nan())})
    assert first == again and len({first, again}) == 1
    assert Condition(1, "<=", threshold=0.5) != Condition(1, "<=", threshold=_nan())
    assert Condition(1, "=", value=2) != Condition(1, "=", value=3)


def test_scores_and_compares_without_a_midpoint_are_equal() -> None:
    assert Score(0.5, 1.0, _nan()) == Score(0.5, 1.0, _nan())
    assert Score(0.5, 1.0, _nan()) != Score(0.5, 1.0, 0.25)
    a = Compare(0, "le", 3, (1, 1), (1, 2), 0, _nan())
    assert a == Compare(0, "le", 3, (1, 1), (1, 2), 0, _nan())
    assert a != Compare(0, "le", 3, (1, 1), (1, 2), 0, 3.0)
    assert math.isnan(a.cut)


def test_other_classes_are_not_equal() -> None:
    node = Node("leaf", 0, 1.0, 0.0, (1.0,))
    assert node != ("leaf", 0, 1.0, 0.0, (1.0,)) and node != Score(1.0, 1.0)
