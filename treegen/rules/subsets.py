"""c4.5rules' choice of a class's rules: the subset of least description length.

Step 3 of :mod:`treegen.rules.generate`.  A subset costs its exception bits
plus :data:`~treegen.rules.mdl.THEORY_WEIGHT` times its rules' theory bits
(:mod:`treegen.rules.mdl`).  Up to :data:`EXHAUSTIVE_MAX` rules every subset
is costed; beyond, where Release 8 draws from ``random()``, the search takes
the cheapest end of descents (the single drop or addition that lowers the
cost most, until none does) from all the rules and from
:data:`RANDOM_STARTS` random subsets.

A descent's step costs every subset one drop or addition away.  One at a
time (:func:`descend`, the reference) that is a union of the subset's covers
per trial, quadratic in the rules per step: 27 s of a 3,000-row ruleset.
:class:`SubsetCosts` costs all of a step's trials at once from how many of
the chosen rules cover each case, to the same floats (tested equal), in C
where the accelerator is built (``treegen/trainer/native/rulecost.c``): 3 s.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from treegen.rules.core import Rule
from treegen.rules.glibc import GlibcRandom
from treegen.rules.mdl import (
    CERTAIN,
    EXPECTED_SHARE,
    IMPOSSIBLE_BITS,
    THEORY_WEIGHT,
    exception_bits,
)
from treegen.trainer import native

# Release 8 searches a class's subsets exhaustively up to this many rules.
EXHAUSTIVE_MAX = 10
# Above EXHAUSTIVE_MAX rules, descents from this many random subsets besides all the
# rules (10 suffice for monk2's two classes, which the descent from all the rules alone
# misses; crx's class 1 needs one).
RANDOM_STARTS = 20

# Cost differences below this are ties (the earlier subset or step stays).
_TIE = 1e-9

Covers = dict[int, npt.NDArray[np.bool_]]


def subset_cost(
    y: npt.NDArray[np.integer],
    cls: int,
    chosen: list[Rule],
    covers_of: Covers,
    bits: dict[int, float],
) -> tuple[float, int]:
    """Description length of ``chosen`` as the rules of ``cls``, and its false positives
    (``y``: the training cases' classes; ``covers_of``: each rule's covered cases)."""
    fired = np.zeros(len(y), dtype=bool)
    for r in chosen:
        fired |= covers_of[r.number]
    n_fired = int(np.count_nonzero(fired))
    fp = int(np.count_nonzero(fired & (y != cls)))
    positives = int(np.count_nonzero(y == cls))
    theory = sum(bits[r.number] for r in chosen)
    return _length(len(y), positives, n_fired, fp, theory), fp


def _length(n: int, positives: int, n_fired: int, fp: int, theory: float) -> float:
    """The description length of a subset of rules that fires ``n_fired`` of ``n`` cases,
    ``fp`` of them of other classes, the class having ``positives``; ``theory``: the
    rules' bits.  (rulecost.c computes the same, for the accelerator.)"""
    fn = positives - (n_fired - fp)
    # No log2(n!) for the rules' order: with it one class of 10 rules or fewer keeps
    # another subset, and monk2's are no longer local minima (bench/rules_mdl.py).
    return exception_bits(n_fired, n - n_fired, fp, fn) + THEORY_WEIGHT * theory


def _bitset(rows: npt.NDArray[np.bool_]) -> int:
    return int.from_bytes(np.packbits(rows, bitorder="little").tobytes(), "little")


def _words(rows: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint64]:
    """``rows`` as a bitset of 64-bit words (the C accelerator's; bits in case order)."""
    packed = np.packbits(rows, bitorder="little")
    padded = np.zeros(-(-len(packed) // 8) * 8 or 8, dtype=np.uint8)
    padded[: len(packed)] = packed
    return padded.view(np.uint64)


def descend(
    start: frozenset[int], cost_of: Callable[[frozenset[int]], float], m: int
) -> tuple[frozenset[int], float]:
    """From ``start``, the single drop or addition that lowers the cost most (the lowest
    index of equal ones), until none does."""
    chosen, cost = start, cost_of(start)
    while True:
        step: tuple[float, frozenset[int]] | None = None
        for i in range(m):
            trial = chosen ^ {i}
            c = cost_of(trial)
            if c < cost - _TIE and (step is None or c < step[0] - _TIE):
                step = (c, trial)
        if step is None:
            return chosen, cost
        cost, chosen = step


class SubsetCosts:
    """The costs of subsets of one class's rules 0..m-1.

    ``rows[i]``: the cases rule i covers; ``negative``: the cases of other
    classes; ``rule_bits[i]``: rule i's theory bits.
    """

    def __init__(
        self,
        rows: list[npt.NDArray[np.bool_]],
        negative: npt.NDArray[np.bool_],
        rule_bits: list[float],
    ) -> None:
        self.m = len(rows)
        self.n = len(negative)
        self._rows = rows
        self._cover = [_bitset(r) for r in rows]
        self._negative = _bitset(negative)
        self._positives = int(np.count_nonzero(~negative))
        self._bits = list(rule_bits)
        self._bits_row = np.asarray(rule_bits, dtype=np.float64)
        self._words: npt.NDArray[np.uint64] | None = None
        if native.cscan is not None and self.m:
            self._words = np.stack([_words(r) for r in rows])
            self._negative_words = _words(negative)

    def _total(self, n_fired: int, fp: int, theory: float) -> float:
        return _length(self.n, self._positives, n_fired, fp, theory)

    def cost(self, chosen: frozenset[int]) -> float:
        """The cost of the subset ``chosen``."""
        fired = 0
        for i in chosen:
            fired |= self._cover[i]
        theory = sum(self._bits[i] for i in sorted(chosen))
        return self._total(fired.bit_count(), (fired & self._negative).bit_count(), theory)

    def toggled(self, chosen: frozenset[int], counts: npt.NDArray[np.int32]) -> list[float]:
        """``[cost(chosen ^ {i}) for i in range(m)]``, the same floats, given ``counts``:
        how many rules of ``chosen`` cover each case.

        Dropping rule i unfires the cases only i covers, adding it fires the
        cases none covers; the theory bits are summed in rule order as
        :meth:`cost` sums them (a running sum, with +0.0 for the rules left out).
        """
        fired_now = counts > 0
        n_fired = int(np.count_nonzero(fired_now))
        fp = (_bitset(fired_now) & self._negative).bit_count()
        if self._words is not None and native.cscan is not None:
            member_u8 = np.zeros(self.m, dtype=np.uint8)
            member_u8[list(chosen)] = 1
            got = np.empty(self.m, dtype=np.float64)
            native.cscan.rule_toggles(
                self._words,
                self._negative_words,
                _words(counts == 1),
                _words(counts == 0),
                member_u8,
                self._bits_row,
                self.n,
                self._positives,
                n_fired,
                fp,
                CERTAIN,
                IMPOSSIBLE_BITS,
                EXPECTED_SHARE,
                THEORY_WEIGHT,
                got,
            )
            listed: list[float] = got.tolist()
            return listed
        only = _bitset(counts == 1)
        none = _bitset(counts == 0)
        member = np.zeros(self.m, dtype=bool)
        member[list(chosen)] = True
        trials = np.tile(member, (self.m, 1))
        np.fill_diagonal(trials, ~member)
        theory = np.cumsum(np.where(trials, self._bits_row, 0.0), axis=1)[:, -1]
        out = []
        for i in range(self.m):
            if member[i]:
                moved = self._cover[i] & only
                f, e = n_fired - moved.bit_count(), fp - (moved & self._negative).bit_count()
            else:
                moved = self._cover[i] & none
                f, e = n_fired + moved.bit_count(), fp + (moved & self._negative).bit_count()
            out.append(self._total(f, e, float(theory[i])))
        return out

    def descend(self, start: frozenset[int]) -> tuple[frozenset[int], float]:
        """:func:`descend` from ``start`` with :meth:`cost`, the same end and cost."""
        chosen, cost = start, self.cost(start)
        counts = np.zeros(self.n, dtype=np.int32)
        for i in chosen:
            counts += self._rows[i]
        while True:
            step: tuple[float, int] | None = None
            for i, c in enumerate(self.toggled(chosen, counts)):
                if c < cost - _TIE and (step is None or c < step[0] - _TIE):
                    step = (c, i)
            if step is None:
                return chosen, cost
            cost, i = step
            if i in chosen:
                counts -= self._rows[i]
            else:
                counts += self._rows[i]
            chosen = chosen ^ {i}


def best_subset(
    y: npt.NDArray[np.integer],
    cls: int,
    rules: list[Rule],
    covers_of: Covers,
    bits: dict[int, float],
    rng: GlibcRandom,
) -> tuple[list[Rule], int]:
    """The least-cost subset of ``rules`` (all of class ``cls``) and its false positives:
    exhaustive up to EXHAUSTIVE_MAX rules, else the cheapest end of descents from all
    the rules and from RANDOM_STARTS random subsets drawn from ``rng``."""
    if len(rules) <= EXHAUSTIVE_MAX:
        best: tuple[float, list[Rule], int] | None = None
        for size in range(len(rules) + 1):
            for combo in itertools.combinations(rules, size):
                cost, fp = subset_cost(y, cls, list(combo), covers_of, bits)
                if best is None or cost < best[0] - _TIE:
                    best = (cost, list(combo), fp)
        assert best is not None
        return best[1], best[2]
    # Release 8 searches at random here, and its subsets are, on crx, monk1, monk2 and
    # soybean-r8's class of 11, the cheapest ends of descents from many random subsets;
    # the descent from all the rules alone misses crx's class 1 and both of monk2's
    # (bench/rules_mdl.py).  How Release 8 draws is not reproduced: the starts are
    # treegen's own (docs/C45.md, section 12).
    m = len(rules)
    costs = SubsetCosts(
        [covers_of[r.number] for r in rules], y != cls, [bits[r.number] for r in rules]
    )
    starts = [frozenset(range(m))]
    for _ in range(RANDOM_STARTS):
        starts.append(frozenset(i for i in range(m) if rng.next() & 1))
    found: tuple[frozenset[int], float] | None = None
    for start in starts:
        end, cost = costs.descend(start)
        if found is None or cost < found[1] - _TIE:
            found = (end, cost)
    assert found is not None
    chosen = [rules[i] for i in sorted(found[0])]
    return chosen, subset_cost(y, cls, chosen, covers_of, bits)[1]
