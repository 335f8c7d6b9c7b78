"""c4.5rules' search of a class's rule subsets (treegen/rules/subsets.py).

The search compares subsets by cost (their description length) through each rule's
value, the change in cost of adding or dropping it.  These tests hold the values to
the costs of the subsets one change away, the exhaustive search to the cheapest
subset, each climb to an end where no change lowers the cost, and the random search
to its use of glibc's ``random()``: one number per rule per start, eleven starts.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from treegen.rules.glibc import GlibcRandom
from treegen.rules.mdl import Logs
from treegen.rules.subsets import TRIALS, ClassSearch, best_subset


def _search(seed: int, m: int) -> ClassSearch:
    rng = np.random.default_rng([31, seed])
    n = int(rng.integers(30, 200))
    positive = rng.random(n) < 0.4
    match = rng.random((m, n)) < rng.uniform(0.05, 0.4, size=(m, 1))
    # Rules mostly right: each fires on positives more than on the rest.
    match &= positive | (rng.random((m, n)) < 0.3)
    bits = [float(np.float32(b)) for b in rng.uniform(2.0, 12.0, size=m)]
    rows = [np.flatnonzero(r).astype(np.int32) for r in match]
    return ClassSearch(rows, positive, bits, Logs(n))


def _cost(search: ClassSearch, chosen: list[bool]) -> float:
    """The cost of ``chosen``, computed from scratch by a new search."""
    probe = ClassSearch(search.rows, search.positive, search.bits, search.logs)
    probe.set_subset(chosen)
    probe.values()
    return probe.best_cost


@pytest.mark.parametrize("seed", range(6))
def test_values_are_the_cost_changes_of_one_rule(seed: int) -> None:
    """A rule's value is the cost saved by adding it (dropping it, when in): within
    float rounding of the two subsets' costs computed on their own."""
    search = _search(seed, 8)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        chosen = [bool(b) for b in rng.random(8) < 0.5]
        search.set_subset(chosen)  # kept up to date from the previous subset
        values = search.values().tolist()
        base = _cost(search, chosen)
        for r in range(8):
            other = list(chosen)
            other[r] = not other[r]
            saved = base - _cost(search, other)
            want = -saved if chosen[r] else saved
            assert values[r] == pytest.approx(want, abs=1e-3)


@pytest.mark.parametrize("seed", range(6))
def test_values_kept_from_step_to_step_equal_values_from_scratch(seed: int) -> None:
    """The coverage and per-rule counts updated rule by rule give the values a new search
    computes for the same subset, bit for bit."""
    search = _search(seed, 12)
    rng = np.random.default_rng([32, seed])
    for _ in range(30):
        search.toggle(int(rng.integers(0, 12)))
        fresh = ClassSearch(search.rows, search.positive, search.bits, search.logs)
        fresh.set_subset(search.chosen.tolist())
        assert np.array_equal(search.values().view(np.uint32), fresh.values().view(np.uint32))


@pytest.mark.parametrize("seed", range(6))
def test_exhaustive_search_keeps_the_first_cheapest_subset(seed: int) -> None:
    search = _search(seed, 7)
    search.all_subsets()
    costs = []
    for bits in range(1 << 7):
        costs.append(_cost(search, [bool(bits >> r & 1) for r in range(7)]))
    first = int(np.argmin(costs))
    assert search.best == [bool(first >> r & 1) for r in range(7)]
    assert search.best_cost == min(costs)


@pytest.mark.parametrize("seed", range(6))
def test_a_climb_ends_where_no_change_lowers_the_cost(seed: int) -> None:
    search = _search(seed, 14)
    chosen = [bool(b) for b in np.random.default_rng(seed).random(14) < 0.5]
    search.climb(chosen)
    end = search.chosen.tolist()
    values = search.values().tolist()
    assert all((-v if c else v) <= 0 for v, c in zip(values, end, strict=True))


class _Counting(GlibcRandom):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def next(self) -> int:
        self.calls += 1
        return super().next()

    def draws(self, k: int) -> npt.NDArray[np.uint32]:
        self.calls += k
        return super().draws(k)


def test_random_search_draws_one_number_per_rule_per_start() -> None:
    """Beyond 10 rules: 11 starts, each rule in with probability k / 10 at the k-th,
    one ``random()`` per rule (at k = 0 too); at most 10 rules, no draw at all."""
    big, small = _search(1, 13), _search(2, 10)
    rng = _Counting()
    best_subset(big.rows, big.positive, big.bits, big.logs, rng)
    assert rng.calls == TRIALS * 13
    best_subset(small.rows, small.positive, small.bits, small.logs, rng)
    assert rng.calls == TRIALS * 13
