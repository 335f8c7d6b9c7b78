"""The rule-subset search's arithmetic (treegen/rules/subsets.py).

A descent's step costs every subset one drop or addition away at once
(``SubsetCosts.toggled``, from how many chosen rules cover each case, in C
where the accelerator is built); these tests hold it to costing each of those
subsets alone, float for float, and the descent built on it to the reference
descent, end and cost.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.rules.core import Rule
from treegen.rules.subsets import SubsetCosts, descend, subset_cost
from treegen.trainer import native


def _instance(seed: int) -> tuple[np.ndarray, list[np.ndarray], list[float]]:
    """Classes of n cases (class 0 is the rules' class) and m rules' covers and bits."""
    rng = np.random.default_rng([11, seed])
    n, m = int(rng.integers(5, 400)), int(rng.integers(1, 40))
    y = rng.integers(0, 3, size=n)
    covers = []
    for _ in range(m):
        share = rng.choice([0.0, 0.02, 0.1, 0.4])
        covers.append(rng.random(n) < share)  # some rules cover nothing
    bits = [float(b) for b in rng.uniform(0.5, 40.0, size=m)]
    return y, covers, bits


@pytest.mark.parametrize("accelerated", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_toggled_costs_equal_each_subset_costed_alone(
    seed: int, accelerated: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Float for float, in Python and through the C accelerator (rulecost.c)."""
    if accelerated and native.cscan is None:
        pytest.skip("accelerator off or not built")
    if not accelerated:
        monkeypatch.setattr(native, "cscan", None)
    y, covers, bits = _instance(seed)
    m = len(covers)
    costs = SubsetCosts(covers, y != 0, bits)
    assert (costs._words is not None) == accelerated
    rules = [Rule(i + 1, (), 0, 0.0) for i in range(m)]
    covers_of = {i + 1: c for i, c in enumerate(covers)}
    bits_of = {i + 1: b for i, b in enumerate(bits)}
    rng = np.random.default_rng([12, seed])
    for _ in range(5):
        chosen = frozenset(int(i) for i in np.flatnonzero(rng.random(m) < 0.5))
        counts = np.zeros(len(y), dtype=np.int32)
        for i in chosen:
            counts += covers[i]
        got = costs.toggled(chosen, counts)
        want = [costs.cost(chosen ^ {i}) for i in range(m)]
        assert got == want  # the same floats, not merely close
        # cost() is the exhaustive search's subset_cost, float for float.
        picked = [rules[i] for i in sorted(chosen)]
        assert costs.cost(chosen) == subset_cost(y, 0, picked, covers_of, bits_of)[0]


@pytest.mark.parametrize("seed", range(12))
def test_descent_equals_the_reference_descent(seed: int) -> None:
    y, covers, bits = _instance(seed)
    m = len(covers)
    costs = SubsetCosts(covers, y != 0, bits)
    rng = np.random.default_rng([13, seed])
    starts = [frozenset(range(m)), frozenset()]
    starts += [frozenset(int(i) for i in np.flatnonzero(rng.random(m) < 0.5)) for _ in range(4)]
    moved = 0
    for start in starts:
        end, cost = costs.descend(start)
        assert (end, cost) == descend(start, costs.cost, m)
        moved += end != start
    assert moved  # the descents do take steps
