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
the chosen rules cover each case, to the same floats (tested equal): 3 s in
numpy and Python; where the accelerator is built the whole descent runs in C
(``treegen/rules/native/rulecost.c``), which keeps each rule's moving cases
and updates them from the cases the step's rule covers: 1.0 s.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numpy.typing as npt

from treegen.rules import native
from treegen.rules.core import Rule
from treegen.rules.glibc import GlibcRandom
from treegen.rules.mdl import (
    CERTAIN,
    EXPECTED_SHARE,
    IMPOSSIBLE_BITS,
    THEORY_WEIGHT,
    exception_bits,
)

# Release 8 searches a class's subsets exhaustively up to this many rules.
EXHAUSTIVE_MAX = 10
# Above EXHAUSTIVE_MAX rules, descents from this many random subsets besides all the
# rules (10 suffice for monk2's two classes, which the descent from all the rules alone
# misses; crx's class 1 needs one).
RANDOM_STARTS = 20

# Cost differences below this are ties (the earlier subset or step stays).
_TIE = 1e-9

# Each rule's covered cases (by rule number): row indices, ascending (a boolean mask
# over the cases is taken too).
Covers = dict[int, npt.NDArray[np.integer]]


def as_rows(cover: npt.NDArray[np.generic]) -> npt.NDArray[np.integer]:
    """A rule's covered cases as row indices (given as indices or as a boolean mask)."""
    if cover.dtype == np.bool_:
        return np.flatnonzero(cover)
    return cover  # type: ignore[return-value]


def _union(rows: list[npt.NDArray[np.integer]]) -> npt.NDArray[np.integer]:
    if not rows:
        return np.zeros(0, dtype=np.int32)
    return np.unique(np.concatenate(rows)) if len(rows) > 1 else rows[0]


def subset_cost(
    y: npt.NDArray[np.integer],
    cls: int,
    chosen: list[Rule],
    covers_of: Covers,
    bits: dict[int, float],
) -> tuple[float, int]:
    """Description length of ``chosen`` as the rules of ``cls``, and its false positives
    (``y``: the training cases' classes; ``covers_of``: each rule's covered cases)."""
    fired = _union([as_rows(covers_of[r.number]) for r in chosen])
    n_fired = int(fired.size)
    fp = int(np.count_nonzero(y[fired] != cls))
    positives = int(np.count_nonzero(y == cls))
    theory = math.fsum(bits[r.number] for r in chosen)
    return _length(len(y), positives, n_fired, fp, theory), fp


def _length(n: int, positives: int, n_fired: int, fp: int, theory: float) -> float:
    """The description length of a subset of rules that fires ``n_fired`` of ``n`` cases,
    ``fp`` of them of other classes, the class having ``positives``; ``theory``: the
    rules' bits, summed with ``math.fsum`` (exact, rounded once: the same float in any
    order, so a descent can cost a trial from the chosen rules' sum and one rule's
    bits instead of summing the trial's rules again; and the same on every Python,
    whose ``sum`` of floats is compensated from 3.12 on).  (rulecost.c computes the
    same, for the accelerator.)"""
    fn = positives - (n_fired - fp)
    # No log2(n!) for the rules' order: with it one class of 10 rules or fewer keeps
    # another subset, and monk2's are no longer local minima (bench/rules_mdl.py).
    return exception_bits(n_fired, n - n_fired, fp, fn) + THEORY_WEIGHT * theory


def _bitset(rows: npt.NDArray[np.bool_]) -> int:
    return int.from_bytes(np.packbits(rows, bitorder="little").tobytes(), "little")


def _exhaustive(
    y: npt.NDArray[np.integer],
    cls: int,
    rules: list[Rule],
    covers_of: Covers,
    bits: dict[int, float],
) -> tuple[list[Rule], int]:
    """Every subset of ``rules`` (at most EXHAUSTIVE_MAX), costed as :func:`subset_cost`
    costs it, on the cases some rule covers only (the others fire in no subset)."""
    rows = [as_rows(covers_of[r.number]) for r in rules]
    local = _union(rows)
    masks = [_bitset(np.isin(local, r, assume_unique=True)) for r in rows]
    negative = _bitset(y[local] != cls)
    positives = int(np.count_nonzero(y == cls))
    best: tuple[float, list[Rule], int] | None = None
    for size in range(len(rules) + 1):
        for combo in itertools.combinations(range(len(rules)), size):
            fired = 0
            for i in combo:
                fired |= masks[i]
            fp = (fired & negative).bit_count()
            theory = math.fsum(bits[rules[i].number] for i in combo)
            cost = _length(len(y), positives, fired.bit_count(), fp, theory)
            if best is None or cost < best[0] - _TIE:
                best = (cost, [rules[i] for i in combo], fp)
    assert best is not None
    return best[1], best[2]


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

    ``rows[i]``: the cases rule i covers (row indices, or a boolean mask);
    ``negative``: the cases of other classes; ``rule_bits[i]``: rule i's theory bits.
    """

    def __init__(
        self,
        rows: list[npt.NDArray[np.generic]],
        negative: npt.NDArray[np.bool_],
        rule_bits: list[float],
    ) -> None:
        self.m = len(rows)
        self.n = len(negative)
        self._rows = [as_rows(r) for r in rows]
        self._negative_mask = negative
        self._positives = int(np.count_nonzero(~negative))
        self._bits = list(rule_bits)
        self._bits_row = np.ascontiguousarray(rule_bits, dtype=np.float64)
        # The C descent's cover lists: rule i's cases, and case c's rules.
        self._lists: tuple[npt.NDArray[np.integer], ...] | None = None
        self._cover_bits: list[int] | None = None
        self._negative = 0  # negative as a bitset, made with _cover
        if native.crules is not None and self.m:
            idx = self._rows
            cover_idx = np.concatenate(idx).astype(np.int32)
            cover_ptr = np.concatenate([[0], np.cumsum([len(i) for i in idx])]).astype(np.int64)
            owner = np.repeat(np.arange(self.m, dtype=np.int32), np.diff(cover_ptr))
            order = np.argsort(cover_idx, kind="stable")
            per_case = np.bincount(cover_idx, minlength=self.n)
            case_ptr = np.concatenate([[0], np.cumsum(per_case)]).astype(np.int64)
            self._lists = (cover_ptr, cover_idx, case_ptr, owner[order])
            self._negative_u8 = np.ascontiguousarray(negative, dtype=np.uint8)

    def _total(self, n_fired: int, fp: int, theory: float) -> float:
        return _length(self.n, self._positives, n_fired, fp, theory)

    @property
    def _cover(self) -> list[int]:
        """Each rule's cases as a Python int bitset (the Python descent's; made once)."""
        if self._cover_bits is None:
            mask = np.zeros(self.n, dtype=bool)
            out = []
            for r in self._rows:
                mask[:] = False
                mask[r] = True
                out.append(_bitset(mask))
            self._cover_bits = out
            self._negative = _bitset(self._negative_mask)
        return self._cover_bits

    def cost(self, chosen: frozenset[int]) -> float:
        """The cost of the subset ``chosen``."""
        cover = self._cover
        fired = 0
        for i in chosen:
            fired |= cover[i]
        theory = math.fsum(self._bits[i] for i in chosen)
        return self._total(fired.bit_count(), (fired & self._negative).bit_count(), theory)

    def toggled(self, chosen: frozenset[int], counts: npt.NDArray[np.int32]) -> list[float]:
        """``[cost(chosen ^ {i}) for i in range(m)]``, the same floats, given ``counts``:
        how many rules of ``chosen`` cover each case.

        Dropping rule i unfires the cases only i covers, adding it fires the
        cases none covers; the theory bits are the chosen rules' exact sum with
        rule i's taken away or added, rounded once (``math.fsum``, as :meth:`cost`
        sums them).
        """
        cover = self._cover
        fired_now = counts > 0
        n_fired = int(np.count_nonzero(fired_now))
        fp = (_bitset(fired_now) & self._negative).bit_count()
        only = _bitset(counts == 1)
        none = _bitset(counts == 0)
        member = np.zeros(self.m, dtype=bool)
        member[list(chosen)] = True
        base = [self._bits[i] for i in chosen]
        out = []
        for i in range(self.m):
            toggle = -self._bits[i] if member[i] else self._bits[i]
            theory = math.fsum([*base, toggle])
            if member[i]:
                moved = cover[i] & only
                f, e = n_fired - moved.bit_count(), fp - (moved & self._negative).bit_count()
            else:
                moved = cover[i] & none
                f, e = n_fired + moved.bit_count(), fp + (moved & self._negative).bit_count()
            out.append(self._total(f, e, theory))
        return out

    @property
    def in_c(self) -> bool:
        """Whether :meth:`descend` runs in C (rulecost.c)."""
        return self._lists is not None and native.crules is not None

    def descend(self, start: frozenset[int]) -> tuple[frozenset[int], float]:
        """:func:`descend` from ``start`` with :meth:`cost`, the same end and cost: by
        :meth:`toggled` per step, or where the accelerator is built in C
        (``rulecost.c``), which updates each rule's moving cases from the cases the
        step's rule covers instead of costing every rule against every case."""
        if self.in_c:
            assert self._lists is not None and native.crules is not None
            member = np.zeros(self.m, dtype=np.uint8)
            member[list(start)] = 1
            end_cost = native.crules.rule_descend(
                *self._lists,
                self._negative_u8,
                self._bits_row,
                member,
                self.n,
                self._positives,
                CERTAIN,
                IMPOSSIBLE_BITS,
                EXPECTED_SHARE,
                THEORY_WEIGHT,
                _TIE,
            )
            return frozenset(int(i) for i in np.flatnonzero(member)), float(end_cost)
        chosen, cost = start, self.cost(start)
        counts = np.zeros(self.n, dtype=np.int32)
        for i in chosen:
            counts[self._rows[i]] += 1
        while True:
            step: tuple[float, int] | None = None
            for i, c in enumerate(self.toggled(chosen, counts)):
                if c < cost - _TIE and (step is None or c < step[0] - _TIE):
                    step = (c, i)
            if step is None:
                return chosen, cost
            cost, i = step
            if i in chosen:
                counts[self._rows[i]] -= 1
            else:
                counts[self._rows[i]] += 1
            chosen = chosen ^ {i}


def _descents(
    costs: SubsetCosts, starts: list[frozenset[int]]
) -> list[tuple[frozenset[int], float]]:
    """``costs.descend`` from each start, in the starts' order.  The C descent lets other
    threads run, so there the descents are spread over the machine's cores; the ends
    are the same as one after another."""
    workers = min(len(starts), os.cpu_count() or 1)
    if not costs.in_c or workers < 2:
        return [costs.descend(s) for s in starts]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(costs.descend, starts))


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
        return _exhaustive(y, cls, rules, covers_of, bits)
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
    for end, cost in _descents(costs, starts):
        if found is None or cost < found[1] - _TIE:
            found = (end, cost)
    assert found is not None
    chosen = [rules[i] for i in sorted(found[0])]
    return chosen, subset_cost(y, cls, chosen, covers_of, bits)[1]
