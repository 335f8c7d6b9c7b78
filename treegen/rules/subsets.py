"""c4.5rules' choice of each class's rules (step 3 of :mod:`treegen.rules.generate`;
Release 8's ``CoverClass``).

A subset of a class's rules costs half its theory bits plus its exception bits
(:mod:`treegen.rules.mdl`): the sum of its rules' bits less ``log2`` of the factorial
of their number, and the false positives and negatives of the cases it covers.  A
rule counts for a case only when it does not fire for the case: a rule with an
error rate above 0.7 covers nothing (:func:`treegen.rules.core.fires`).

* Up to :data:`EXHAUSTIVE_MAX` rules, every subset is costed, in the order of a
  binary count over the rules (the first rule the lowest bit), and the first of the
  cheapest is kept.
* Beyond, eleven descents, the k-th from a random subset where each rule is in with
  probability k / 10 (drawn from glibc's ``random()``, :mod:`treegen.rules.glibc`,
  one draw per rule in rule order; the generator is never seeded and one stream
  serves the classes in order): each step adds or drops the rule whose change
  lowers the cost most (the first of equal ones), while one does.  Every subset
  costed on the way counts, and the first of the cheapest is kept.

Each step needs every rule's *value*, the change in cost of adding or dropping it:
the cases only it would fire on (or the ones only it fires on) move between covered
and not covered, and the theory bits change by its bits and the order credit.  All
in Release 8's float arithmetic, so equal costs tie as they tie there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from treegen.rules.caselists import concatenated
from treegen.rules.constants import THEORY_WEIGHT
from treegen.rules.glibc import GlibcRandom
from treegen.rules.mdl import Logs, exception_bits, exception_bits_many, log2_f
from treegen.rules.native import crules
from treegen.trainer.heap import release_freed_memory
from treegen.trainer.stats import log2_c45, to_f32

# Release 8 searches a class's subsets exhaustively up to this many rules.
EXHAUSTIVE_MAX = 10
# Random starts beyond: the k-th (k = 0..10) takes each rule with probability k / 10.
TRIALS = 11
FULL_SCALE = 2147483648.0  # random() values divided by this are in [0, 1)
NO_COST = 1e10  # above every subset's cost: the search's starting "best"
Subset = Sequence[bool] | npt.NDArray[np.bool_]
"""A subset of a class's rules: each rule's flag, in rule order."""
TRIM_PAIRS = 1 << 20
"""After the search of a class of at least this many (rule, case) pairs (8 bytes each in
its tables) the heap's freed pages are handed back: the tables' pages that the heap
keeps otherwise (at 1M rows 41-67 MB after the largest class) were under the next
class's tables.  Not after every class: a trim walks the heap (thousands of classes)."""


class ClassSearch:
    """The subsets of one class's rules and their costs.

    ``rows``: for each of the class's rules, the training cases it fires on (ascending);
    ``positive``: the cases of the class; ``bits``: each rule's theory bits.  The
    current subset's coverage (how many chosen rules fire on each case) and each
    rule's cases that only it would decide are kept from step to step and updated
    where a changed rule fires (:meth:`toggle`), as a step changes one rule.
    """

    def __init__(
        self,
        rows: Sequence[npt.NDArray[np.int32]],
        positive: npt.NDArray[np.bool_],
        bits: list[float],
        logs: Logs,
    ) -> None:
        self._begin(positive, bits, logs, len(rows))
        self.rows = [np.asarray(r, dtype=np.intp) for r in rows]
        self.pairs = sum(r.size for r in self.rows)
        # Each case's rules (rule ids grouped by case, ascending): a change of one rule
        # reaches only the rules that fire on some of its cases.
        lens = np.asarray([r.size for r in rows], dtype=np.intp)
        flat = np.concatenate(self.rows) if self.m else np.zeros(0, dtype=np.intp)
        by_case = np.argsort(flat, kind="stable")  # rule order kept within a case
        case = flat[by_case]
        self.case_ptr = np.concatenate(([0], np.cumsum(np.bincount(case, minlength=self.n))))
        self.case_rules = np.repeat(np.arange(self.m, dtype=np.intp), lens)[by_case]
        # Per rule, its cases that no chosen rule covers (or, chosen, only it covers):
        # those of the class (right) and the others (wrong).
        self.right = np.asarray(
            [np.count_nonzero(positive[r]) for r in self.rows], dtype=np.int64
        ).reshape(self.m)
        self.wrong = lens.astype(np.int64) - self.right

    def _begin(
        self, positive: npt.NDArray[np.bool_], bits: list[float], logs: Logs, m: int
    ) -> None:
        """What both searches hold alike: the inputs, and the empty subset chosen."""
        self.positive = positive
        self.bits = bits
        self.bits32 = np.asarray(bits, dtype=np.float32)
        self.logs = logs
        self.n = positive.size
        self.m = m
        self.best_cost = NO_COST
        self.best: list[bool] = [False] * m
        self.chosen = np.zeros(m, dtype=bool)
        self.covered = np.zeros(self.n, dtype=np.int64)

    def _pairs(self, cols: npt.NDArray[np.intp]) -> tuple[npt.NDArray[np.intp], ...]:
        """(case, rule) for every rule firing on each of the cases ``cols``."""
        lo, hi = self.case_ptr[cols], self.case_ptr[cols + 1]
        counts = hi - lo
        case = np.repeat(cols, counts)
        start = np.repeat(lo - np.cumsum(counts) + counts, counts)
        rule = self.case_rules[start + np.arange(case.size)]
        return case, rule

    def _count(self, case: npt.NDArray[np.intp], rule: npt.NDArray[np.intp], sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) the pairs where the rule alone decides."""
        cov = self.covered[case]
        alone = (cov == 0) | ((cov == 1) & self.chosen[rule])
        pos = self.positive[case]
        self.right += sign * np.bincount(rule[alone & pos], minlength=self.m)
        self.wrong += sign * np.bincount(rule[alone & ~pos], minlength=self.m)

    def toggle(self, r: int) -> None:
        """Add rule ``r`` to the subset, or drop it."""
        cols = self.rows[r]
        case, rule = self._pairs(cols)
        self._count(case, rule, -1)
        self.chosen[r] = not self.chosen[r]
        self.covered[cols] += 1 if self.chosen[r] else -1
        self._count(case, rule, 1)

    def set_subset(self, chosen: Subset) -> None:
        """Make ``chosen`` the current subset."""
        for r in np.flatnonzero(np.asarray(chosen, dtype=bool) != self.chosen).tolist():
            self.toggle(r)

    def values(self) -> npt.NDArray[np.float32]:
        """Release 8's ``CalculateValue``: every rule's value for the current subset
        (remembered as the best when it is cheaper than every subset costed before)."""
        chosen = self.chosen
        fired = self.covered > 0
        sum_cover = int(np.count_nonzero(fired))
        fp = int(np.count_nonzero(fired & ~self.positive))
        fn = int(np.count_nonzero(~fired & self.positive))
        selected = int(np.count_nonzero(chosen))
        in_bits = self.bits32[chosen]
        theory = float(np.cumsum(in_bits, dtype=np.float32)[-1]) if selected else 0.0
        theory = to_f32(theory - self.logs.fact[selected])
        base = to_f32(to_f32(THEORY_WEIGHT * theory) + exception_bits(self.n, sum_cover, fp, fn))
        right, wrong = self.right, self.wrong
        sign = np.where(chosen, -1, 1)
        ex = exception_bits_many(
            self.n, sum_cover + sign * (right + wrong), fp + sign * wrong, fn - sign * right
        )
        f32 = np.float32
        item = self.logs.item
        t_in = ((f32(theory) - self.bits32).astype(f32) + f32(item[selected])).astype(f32)
        t_out = ((f32(theory) + self.bits32).astype(f32) - f32(item[selected + 1])).astype(f32)
        new = (ex + (f32(THEORY_WEIGHT) * np.where(chosen, t_in, t_out)).astype(f32)).astype(f32)
        gain = np.where(chosen, new - f32(base), f32(base) - new)
        out: npt.NDArray[np.float32] = gain.astype(f32)
        if base < self.best_cost:
            self.best_cost = base
            self.best = chosen.tolist()
        return out

    def all_subsets(self) -> None:
        """Every subset, in Release 8's order (``AllCombinations``): a binary count, the
        first rule the lowest bit."""
        for k in range(1 << self.m):
            self.set_subset([bool(k >> r & 1) for r in range(self.m)])
            self.values()

    def climb(self, chosen: Subset) -> None:
        """From ``chosen``, add or drop the rule of greatest value while one has a
        positive one (``HillClimb``)."""
        self.set_subset(chosen)
        while True:
            value = self.values()
            delta = np.where(self.chosen, -value, value)
            best = int(np.argmax(delta))  # the first of the largest
            if not delta[best] > 0:
                return
            self.toggle(best)

    def spot_search(self, rng: GlibcRandom) -> None:
        """Release 8's ``SpotSearch``: climbs from random subsets."""
        for trial in range(TRIALS):
            prob = to_f32(trial / 10.0)
            # each value exact in float64, its quotient by 2**31 too: Python's comparison
            chosen = rng.draws(self.m).astype(np.float64) / FULL_SCALE < prob
            self.climb(chosen)


class NativeClassSearch(ClassSearch):
    """:class:`ClassSearch` whose steps run in the C accelerator (``crules``): the
    subset's covered, false positive and false negative counts are kept as rules are
    toggled, and each step's changes of cost are computed in one pass over the rules
    (the logarithms by numpy, as :func:`treegen.rules.mdl.biased_many` takes them).
    Its case lists are int32 (half the memory of the Python search's), and its cases are
    numbered in the order the rules first reach them (``case_order[k]``: the row of case
    ``k``; ``covered`` and ``chosen_xor`` are in that order): a toggle reads each of
    its rule's cases, which in row order are spread over all the rows."""

    def __init__(
        self,
        rows: Sequence[npt.NDArray[np.int32]],
        positive: npt.NDArray[np.bool_],
        bits: list[float],
        logs: Logs,
    ) -> None:
        # Not ClassSearch.__init__: the state the kernels read, built narrower (the
        # Python search's rows and case lists are not kept: its steps are not used).
        self._begin(positive, bits, logs, len(rows))
        n, m = self.n, self.m
        self.covered = np.zeros(n, dtype=np.int32)  # at most m: half the bytes
        # Each list written straight into the table (an Unpacking's unpacked there).
        rule_ptr, rule_cases = concatenated(rows)
        lens = np.diff(rule_ptr)
        self.pairs = int(rule_cases.size)
        assert crules is not None
        self.case_order = np.empty(n, dtype=np.int32)
        positive8 = np.empty(n, dtype=bool)
        crules.number_cases(
            rule_ptr,
            rule_cases,
            np.ascontiguousarray(positive, dtype=bool),
            self.case_order,
            positive8,
        )
        # Each case's rules in rule order, by a counting sort (no int64 argsort).
        case_ptr = np.empty(n + 1, dtype=np.int64)
        case_rules = np.empty(rule_cases.size, dtype=np.int32)
        self.right = np.empty(m, dtype=np.int64)
        crules.case_lists(rule_ptr, rule_cases, positive8, case_ptr, case_rules, self.right)
        self.wrong = lens - self.right
        self.counts = np.asarray([0, 0, int(np.count_nonzero(positive))], dtype=np.int64)
        # Per case the XOR of its chosen rules' numbers: where one chosen rule fires,
        # that rule, found by a toggle without reading the case's rules.
        self.chosen_xor = np.zeros(n, dtype=np.int32)
        self.state = (
            rule_ptr,
            rule_cases,
            case_ptr,
            case_rules,
            positive8,
            self.covered,
            self.chosen,
            self.right,
            self.wrong,
            self.counts,
            self.chosen_xor,
        )
        self._logs_in = np.empty(4 * m, dtype=np.float64)
        self._gain = np.empty(m, dtype=np.float32)
        self._log2_items = log2_f(n)
        self.best_step = -1
        # best as an array for the climbs, and the list it was made from (a list
        # round trip a climb was 0.007 s over the 33 climbs at 100k rows)
        self._best = np.asarray(self.best, dtype=bool)
        self._best_of = self.best

    def toggle(self, r: int) -> None:
        assert crules is not None
        crules.subsets_toggle(self.state, r)

    def set_subset(self, chosen: Subset) -> None:
        assert crules is not None
        crules.subsets_set(self.state, np.asarray(chosen, dtype=bool))

    def values(self) -> npt.NDArray[np.float32]:
        assert crules is not None
        sum_cover, fp, fn = (int(v) for v in self.counts)
        chosen = self.chosen
        selected = int(np.count_nonzero(chosen))
        in_bits = self.bits32[chosen]
        theory = float(np.cumsum(in_bits, dtype=np.float32)[-1]) if selected else 0.0
        theory = to_f32(theory - self.logs.fact[selected])
        base = to_f32(to_f32(THEORY_WEIGHT * theory) + exception_bits(self.n, sum_cover, fp, fn))
        crules.subsets_prep(self.state, self._logs_in)
        log2s = log2_c45(self._logs_in)
        item = self.logs.item
        self.best_step = crules.subsets_finish(
            self.state,
            log2s,
            self._log2_items,
            theory,
            base,
            item[selected],
            item[selected + 1],
            self.bits32,
            self._gain,
        )
        if base < self.best_cost:
            self.best_cost = base
            self.best = chosen.tolist()
        return self._gain

    def climb(self, chosen: Subset) -> None:
        """:meth:`ClassSearch.climb` in one call of the C kernel, which costs each step
        over the rules grouped by what their change of cost depends on."""
        assert crules is not None
        self.set_subset(chosen)
        size = 4 * (self.m + 1)
        logs_in = np.ones(size, dtype=np.float64)
        logs_out = np.zeros(size, dtype=np.float64)

        # Each size's two views made once (a climb asks for some sizes many times) and
        # the output given by position: numpy's own log either way, about 0.9 us less a
        # call (32,792 calls at 100k rows)
        views: dict[int, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = {}
        log = np.log

        def take_logs(k: int) -> None:
            # log2_c45 is this log over LN2 (the kernel divides) where the input is
            # positive, which every input here is
            pair = views.get(k)
            if pair is None:
                pair = views[k] = (logs_in[:k], logs_out[:k])
            log(*pair)

        tables = min(self.m + 2, len(self.logs.fact))
        fact = np.asarray(self.logs.fact[:tables], dtype=np.float64)
        item = np.asarray(self.logs.item[:tables], dtype=np.float64)
        if self._best_of is not self.best:  # the list changed since the array was made
            self._best = np.asarray(self.best, dtype=bool)
            self._best_of = self.best
        best = self._best  # the climb writes a cheaper subset into it, and only then
        cost = crules.subsets_climb(
            self.state,
            self.bits32,
            fact,
            item,
            self._log2_items,
            logs_in,
            logs_out,
            take_logs,
            self.best_cost,
            best,
        )
        if cost != self.best_cost:
            self.best_cost = cost
            self.best = self._best_of = best.tolist()


def best_subset(
    rows: Sequence[npt.NDArray[np.int32]],
    positive: npt.NDArray[np.bool_],
    bits: list[float],
    logs: Logs,
    rng: GlibcRandom,
) -> list[bool]:
    """Which of a class's rules are kept (``CoverClass``)."""
    search = (NativeClassSearch if crules is not None else ClassSearch)(rows, positive, bits, logs)
    if search.m <= EXHAUSTIVE_MAX:
        search.all_subsets()
    else:
        search.spot_search(rng)
    best = search.best
    large = search.pairs >= TRIM_PAIRS
    del search
    if large:
        release_freed_memory()
    return best
