"""The rule-subset search's arithmetic (treegen/rules/subsets.py).

A descent's step costs every subset one drop or addition away at once
(``SubsetCosts.toggled``, from how many chosen rules cover each case); these
tests hold it to costing each of those subsets alone, float for float, and the
descents built on it, in Python and in C where the accelerator is built
(``rulecost.c``, which updates its counts step by step), to the reference
descent, end and cost.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.rules import native
from treegen.rules.core import Rule
from treegen.rules.subsets import SubsetCosts, _descents, descend, subset_cost


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


def _accelerate(accelerated: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if accelerated and native.crules is None:
        pytest.skip("accelerator off or not built")
    if not accelerated:
        monkeypatch.setattr(native, "crules", None)


@pytest.mark.parametrize("seed", range(12))
def test_toggled_costs_equal_each_subset_costed_alone(seed: int) -> None:
    """Float for float."""
    y, covers, bits = _instance(seed)
    m = len(covers)
    costs = SubsetCosts(covers, y != 0, bits)
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
        # The theory bits are summed exactly and rounded once, so the order is moot.
        assert costs.cost(chosen) == costs.cost(frozenset(sorted(chosen, reverse=True)))
        # cost() is the exhaustive search's subset_cost, float for float.
        picked = [rules[i] for i in sorted(chosen)]
        assert costs.cost(chosen) == subset_cost(y, 0, picked, covers_of, bits_of)[0]


@pytest.mark.parametrize("accelerated", [False, True])
@pytest.mark.parametrize("seed", range(24))
def test_descent_equals_the_reference_descent(
    seed: int, accelerated: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end and its cost, float for float, in Python and in C."""
    _accelerate(accelerated, monkeypatch)
    y, covers, bits = _instance(seed)
    m = len(covers)
    costs = SubsetCosts(covers, y != 0, bits)
    assert (costs._lists is not None) == accelerated
    rng = np.random.default_rng([13, seed])
    starts = [frozenset(range(m)), frozenset()]
    starts += [frozenset(int(i) for i in np.flatnonzero(rng.random(m) < 0.5)) for _ in range(4)]
    moved = 0
    for start in starts:
        end, cost = costs.descend(start)
        assert (end, cost) == descend(start, costs.cost, m)
        moved += end != start
    assert moved  # the descents do take steps


@pytest.mark.parametrize("accelerated", [False, True])
def test_descent_on_a_ruleset_of_many_overlapping_rules(
    accelerated: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hundreds of rules that overlap: the C descent's per-step updates (a case's count
    crossing 0/1 and 1/2, many rules per case) keep it equal to the reference."""
    _accelerate(accelerated, monkeypatch)
    rng = np.random.default_rng(14)
    n, m = 600, 150
    y = rng.integers(0, 2, size=n)
    centres = rng.integers(0, n, size=m)
    widths = rng.integers(1, 60, size=m)
    covers = [np.abs(np.arange(n) - c) < w for c, w in zip(centres, widths, strict=True)]
    bits = [float(b) for b in rng.uniform(0.5, 12.0, size=m)]
    costs = SubsetCosts(covers, y != 0, bits)
    for start in (frozenset(range(m)), frozenset(range(0, m, 3)), frozenset()):
        end, cost = costs.descend(start)
        assert (end, cost) == descend(start, costs.cost, m)
        assert end != start


def test_the_c_descent_refuses_bad_lists() -> None:
    """The kernel checks the lists it walks: an index out of range is an error, not a
    stray read."""
    if native.crules is None:
        pytest.skip("accelerator off or not built")
    costs = SubsetCosts([np.array([True, False, True])], np.array([False, True, False]), [2.0])
    assert costs._lists is not None
    cover_ptr, cover_idx, case_ptr, case_rules = costs._lists
    bad = cover_idx.copy()
    bad[0] = 7
    args = (costs._negative_u8, costs._bits_row, np.zeros(1, dtype=np.uint8), 3, 2)
    numbers = (1e-9, 1e9, 0.5, 0.5, 1e-9)
    with pytest.raises(ValueError, match="bad cover lists"):
        native.crules.rule_descend(cover_ptr, bad, case_ptr, case_rules, *args, *numbers)
    native.crules.rule_descend(cover_ptr, cover_idx, case_ptr, case_rules, *args, *numbers)


def test_descents_in_threads_end_as_one_after_another() -> None:
    """The C descents run in threads (the GIL released): each end and cost is the one a
    lone descent from that start reaches, in the starts' order."""
    if native.crules is None:
        pytest.skip("accelerator off or not built")
    rng = np.random.default_rng(15)
    n, m = 2000, 300
    y = rng.integers(0, 2, size=n)
    covers = [rng.random(n) < rng.choice([0.01, 0.05, 0.2]) for _ in range(m)]
    bits = [float(b) for b in rng.uniform(0.5, 12.0, size=m)]
    costs = SubsetCosts(covers, y != 0, bits)
    assert costs.in_c
    starts = [frozenset(int(i) for i in np.flatnonzero(rng.random(m) < 0.5)) for _ in range(8)]
    alone = [costs.descend(s) for s in starts]
    assert _descents(costs, starts * 3) == alone * 3
    assert len({end for end, _ in alone}) > 1
