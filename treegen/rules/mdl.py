"""The description lengths c4.5rules compares rule subsets by (Quinlan 1993, chapter 5; 1995).

A class's subset of rules costs its exception bits (:func:`exception_bits`:
the false positives among the cases it covers and the false negatives among
the others) plus :data:`THEORY_WEIGHT` times its rules' theory bits
(:func:`rule_bits`, from each condition's :class:`ConditionBits`).
treegen.rules.generate searches the subsets with these costs.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset
from treegen.rules.core import Condition, Rule

# Weight of the theory bits against the exception bits.
THEORY_WEIGHT = 0.5

# Bits of a subset's false positives and negatives are (Quinlan, "MDL and categorical
# theories (continued)", 1995) coded at an expected rate: of the e = fp + fn errors
# half are expected among the cases on the larger side (covered or not), the
# smaller side's errors are coded at their own rate.
EXPECTED_SHARE = 0.5


# A probability within this of 0 or 1 is taken as certain: naming the items then costs
# nothing if they agree with it, else IMPOSSIBLE_BITS.
CERTAIN = 1e-6
IMPOSSIBLE_BITS = 1e6


def subset_bits(t: int, k: int, p: float) -> float:
    """Bits to name ``k`` of ``t`` items when each is one with probability ``p``."""
    if p <= CERTAIN:
        return 0.0 if k == 0 else IMPOSSIBLE_BITS
    if p >= 1.0 - CERTAIN:
        return 0.0 if k == t else IMPOSSIBLE_BITS
    return -k * math.log2(p) - (t - k) * math.log2(1.0 - p)


def exception_bits(covered: int, uncovered: int, fp: int, fn: int) -> float:
    """Bits of the false positives among the ``covered`` cases and the false negatives
    among the ``uncovered`` ones (the larger side coded at the expected rate)."""
    expected = EXPECTED_SHARE * (fp + fn)
    if covered > uncovered:
        own = subset_bits(uncovered, fn, fn / uncovered) if uncovered else 0.0
        return subset_bits(covered, fp, expected / covered) + own
    own = subset_bits(covered, fp, fp / covered) if covered else 0.0
    return own + subset_bits(uncovered, fn, expected / uncovered)


class ConditionBits:
    """Theory bits of a condition: which attribute it tests, then which value or cut.

    The attribute is one of those the rule's earlier conditions leave: every attribute
    but the nominal ones already tested (a rule tests a nominal attribute once; a
    continuous one may be cut twice, crx's rule 8).  The value of a nominal test costs
    ``-log2`` of its share of the training cases whose value is known (a code that
    spends fewer bits on common values), an ``in`` test its values' share; a cut costs
    half of ``log2(distinct values - 1)``.  With these, and only with them among the
    encodings of ``bench/rules_mdl.py``, every class's subset is Release 8's on the nine
    reference sets; the previous cost, ``log2`` of the number of possible tests per
    condition, missed monk2's class 1 by 0.65 bits, and no count of tests fits monk2.
    """

    def __init__(self, ds: Dataset) -> None:
        self.attributes = len(ds.attributes)
        self.continuous = [a.is_continuous for a in ds.attributes]
        self._cut: list[float] = []
        self._shares: list[npt.NDArray[np.float64]] = []
        for a, attr in enumerate(ds.attributes):
            col = ds.X[:, a]
            known = col[~np.isnan(col)]
            if attr.is_continuous:
                distinct = len(np.unique(ds.x32[:, a][~np.isnan(col)]))
                self._cut.append(0.5 * math.log2(max(distinct - 1, 1)))
                self._shares.append(np.zeros(0))
            else:
                counts = np.bincount(known.astype(np.int64), minlength=len(attr.values))
                # A value no known case has (a path reached only by cases whose value is
                # unknown) is coded as if one case had it, so that its bits stay finite.
                self._shares.append(np.maximum(counts, 1) / max(len(known), 1))
                self._cut.append(0.0)

    def value_bits(self, c: Condition) -> float:
        """Bits of the value (nominal) or cut (continuous) of ``c``."""
        if self.continuous[c.attribute]:
            return self._cut[c.attribute]
        shares = self._shares[c.attribute]
        codes = c.values if c.op == "in" else (c.value,)
        return -math.log2(min(1.0, float(sum(shares[v] for v in codes))))


def rule_bits(rule: Rule, cond_bits: ConditionBits) -> float:
    """Theory bits of one rule: its conditions' bits (:class:`ConditionBits`), in the
    order c4.5rules lists them (nominal tests first), less ``log2(k!)`` for their order.

    With :func:`exception_bits`, the least-cost subsets are Release 8's on all 30
    classes of the nine sets that it searches exhaustively, and its subsets on the six
    larger ones are the cheapest ends of the descents of treegen.rules.generate
    (``bench/rules_mdl.py`` measures it against the other encodings tried).
    """
    tested: set[int] = set()
    bits = 0.0
    for c in rule.conditions:
        # A nominal attribute tested again (two subset tests on one path) is named among
        # the untested attributes and itself.
        left = cond_bits.attributes - len(tested - {c.attribute})
        bits += math.log2(left) + cond_bits.value_bits(c)
        if not cond_bits.continuous[c.attribute]:
            tested.add(c.attribute)
    return bits - math.log2(math.factorial(len(rule.conditions)))
