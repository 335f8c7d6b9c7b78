"""c4.5rules: rules from the unpruned tree (Quinlan 1993, chapter 5).

1. Every leaf of at least one training case (fractional cases from unknown
   values count as they add up: soybean-r8's leaves of 0.40 and 0.23 cases give
   no rule) gives a rule: its path's tests, all of them (two tests of one
   attribute in one direction stay two conditions: crx's rule 8 keeps
   ``A15 <= 228`` where a deeper ``A15 <= 8`` was the tighter one).
2. Each rule is generalised greedily: the condition whose removal gives the
   lowest pessimistic error rate ``(E + AddErrs(N, E)) / N`` (Release 8's
   bound, :class:`~treegen.trainer.stats.ErrorBound`) is dropped while that
   rate is no higher than the rule's; of equal rates the condition deeper in
   the path goes.  A rule that covers no case (hypo's rule 6 comes from a path
   that covers none) has rate 1 and ranks below every lower rate but above a
   rule whose every case is an error (:meth:`_Data.rank`).  A rule that
   ends with no condition, equal to an earlier one, or whose rate is not
   below ``1 - (n_C + 1) / (N + 2)`` (it is no more accurate than guessing its
   class C, with Laplace's correction: golf keeps ``outlook = rain, windy =
   false`` at 0.370 against 0.375, monk2 drops one at 0.390 against 0.380) is
   discarded; the others are numbered in leaf order (the numbers c4.5rules
   prints).  Conditions are listed nominal tests first, then continuous ones,
   each by attribute and then in path order (c4.5rules' layout).
3. Per class, the subset of its rules with the least description length is
   kept (treegen.rules.mdl): exception bits (the false positives among the
   covered cases and the false negatives among the others, the larger side's
   coded at the rate of half the errors, Quinlan 1995) plus half the theory
   bits, a rule's theory bits being, per condition, which attribute it tests
   among those its earlier conditions leave (``log2`` of their number: a rule
   tests a nominal attribute once) and which value (``-log2`` of the value's
   share of the training cases) or, continuous, half the bits of its cut,
   less ``log2(k!)`` for the order of its k conditions.  Up to 10 rules every
   subset is tried; beyond, where Release 8 draws from ``random()``, the
   cheapest end of descents (the single drop or addition that lowers the cost
   most, until none does) from all the rules and from RANDOM_STARTS random
   subsets: Release 8's subsets on every class of the nine reference sets
   (:mod:`treegen.rules.subsets`).
4. Classes are ordered greedily, each time the one whose subset has the fewest
   false positives among the cases no earlier class covers (:func:`_class_order`),
   rules within a class by error rate; the default class is the most
   frequent among the cases no rule covers (ties: the more frequent class).
5. While some rule has a negative advantage (it misclassifies more of the
   cases it classifies than the rules after it and the default would), the
   one with the most negative advantage is dropped (:mod:`treegen.rules.final`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset
from treegen.errors import TrainError
from treegen.model.core import Model
from treegen.model.version import VERSION
from treegen.rules.core import CaseColumns, Condition, Rule, RuleSet
from treegen.rules.final import dropping
from treegen.rules.glibc import GlibcRandom
from treegen.rules.mdl import ConditionBits, rule_bits
from treegen.rules.paths import generalise_paths, rank_of
from treegen.rules.subsets import Covers, best_subset
from treegen.trainer import Criterion, TrainOptions, train
from treegen.trainer.fit import recorded_options
from treegen.trainer.stats import ErrorBound


def leaf_paths(model: Model, *, empty: bool = False) -> list[tuple[int, tuple[Condition, ...]]]:
    """(leaf index, path conditions from the root) for every leaf with training cases
    (``empty``: every leaf), in leaf order."""
    out: list[tuple[int, tuple[Condition, ...]]] = []
    stack: list[tuple[int, tuple[Condition, ...]]] = [(0, ())]
    while stack:
        i, path = stack.pop()
        node = model.nodes[i]
        if node.is_leaf:
            if empty or node.items > 0:
                out.append((i, path))
            continue
        kids = []
        for b, child in enumerate(node.children):
            if node.kind == "continuous":
                cond = Condition(node.attribute, "<=" if b == 0 else ">", threshold=node.threshold)
            elif node.kind == "subset":
                cond = Condition(node.attribute, "in", values=tuple(node.subsets[b]))
            else:
                cond = Condition(node.attribute, "=", value=b)
            kids.append((child, (*path, cond)))
        stack.extend(reversed(kids))
    return out


class _Data:
    """The training cases and each condition's satisfied rows, cached."""

    def __init__(self, ds: Dataset, bound: ErrorBound) -> None:
        self.X = ds.X
        self.y = ds.y
        self.n = ds.n_rows
        self.bound = bound
        self._columns = CaseColumns(ds.X)
        self._sat: dict[Condition, npt.NDArray[np.bool_]] = {}

    def sat(self, c: Condition) -> npt.NDArray[np.bool_]:
        got = self._sat.get(c)
        if got is None:
            got = self._columns.satisfied(c)
            self._sat[c] = got
        return got

    def cover(self, conds: tuple[Condition, ...]) -> npt.NDArray[np.bool_]:
        out = np.ones(self.n, dtype=bool)
        for c in conds:
            out &= self.sat(c)
        return out

    def rank(self, conds: tuple[Condition, ...], cls: int) -> tuple[float, int]:
        """How good ``IF conds THEN cls`` is for generalisation (:func:`rank_of`)."""
        cov = self.cover(conds)
        e = int(np.count_nonzero(cov & (self.y != cls)))
        return rank_of(self.bound, int(np.count_nonzero(cov)), e)


def generalise(
    data: _Data, conds: tuple[Condition, ...], cls: int
) -> tuple[tuple[Condition, ...], float]:
    """Drop conditions while the best removal does not make the rule rank worse
    (:meth:`_Data.rank`; of equal ranks, the later condition's removal); the rule's
    conditions and pessimistic error rate (1 if it covers no case).

    The rule as stated, recounting every trial over every case;
    :func:`~treegen.rules.paths.generalise_paths` gives the same for every leaf at
    once from running counts, and is what ``candidates`` uses (tests/rules/test_rules_paths.py).
    """
    current = data.rank(conds, cls)
    while conds:
        best_j, best = -1, (math.inf, 0)
        for j in range(len(conds)):
            r = data.rank(conds[:j] + conds[j + 1 :], cls)
            if r <= best:
                best_j, best = j, r
        if best > current:
            break
        conds = conds[:best_j] + conds[best_j + 1 :]
        current = best
    return conds, current[0]


def _class_order(data: _Data, per_class: dict[int, list[Rule]], covers_of: Covers) -> list[int]:
    """The classes in the order their rules come: repeatedly the one whose rules have the
    fewest false positives among the cases no class before it covers (the lower class
    index of equal ones).

    Counting every false positive instead (the subset's own) orders soybean-r8 otherwise
    than Release 8: it puts cyst-nematode (1 false positive, covered by an earlier class)
    before herbicide-injury (0) and 2-4-d-injury (4, all covered) before
    diaporthe-stem-canker (1); on the other eight sets the two orders are the same.
    """
    fired: dict[int, npt.NDArray[np.bool_]] = {}
    for cls, chosen in per_class.items():
        f = np.zeros(data.n, dtype=bool)
        for r in chosen:
            f |= covers_of[r.number]
        fired[cls] = f
    left = sorted(per_class)
    covered = np.zeros(data.n, dtype=bool)
    order: list[int] = []
    while left:
        best = min(
            left, key=lambda c: (int(np.count_nonzero(fired[c] & ~covered & (data.y != c))), c)
        )
        order.append(best)
        left.remove(best)
        covered |= fired[best]
    return order


def _default_class(data: _Data, cover: npt.NDArray[np.bool_], n_classes: int) -> int:
    """The most frequent class among the cases no rule covers (``cover``: the rules')."""
    fired = cover.any(axis=0)
    left = np.bincount(data.y[~fired], minlength=n_classes)
    total = np.bincount(data.y, minlength=n_classes)
    return int(max(range(n_classes), key=lambda c: (left[c], total[c], -c)))


# A leaf whose (fractional) training cases add up to less than this gives no rule:
# soybean-r8's leaves of 0.40 and 0.23 cases give none in Release 8.  Any threshold
# above 0.6197 (its leaves of 0.62 cases must give none either) and at most 1 (leaves
# of one case give rules on every set) numbers the rules as it does (docs/C45.md, 12).
MIN_LEAF_ITEMS = 1.0


def _candidates(data: _Data, ds: Dataset, tree: Model) -> list[Rule]:
    counts = np.bincount(ds.y, minlength=len(ds.classes))
    out: list[Rule] = []
    seen: set[tuple[int, frozenset[Condition]]] = set()  # each rule's class and conditions
    leaves = [
        (path, tree.nodes[leaf].cls)
        for leaf, path in leaf_paths(tree)
        if tree.nodes[leaf].items >= MIN_LEAF_ITEMS
    ]
    generalised = generalise_paths(data.X, data.y, leaves, data.bound)
    for (_, cls), (conds, rate) in zip(leaves, generalised, strict=True):
        conds = tuple(
            sorted(conds, key=lambda c: (ds.attributes[c.attribute].is_continuous, c.attribute))
        )
        if not conds or not rate < 1.0 - (counts[cls] + 1) / (ds.n_rows + 2):
            continue
        if (cls, frozenset(conds)) in seen:
            continue  # equal to an earlier rule
        seen.add((cls, frozenset(conds)))
        out.append(Rule(len(out) + 1, conds, cls, rate))
    return out


def candidates(ds: Dataset, tree: Model, bound: ErrorBound) -> list[Rule]:
    """Steps 1 and 2: the generalised rules of ``tree``'s leaves, numbered."""
    return _candidates(_Data(ds, bound), ds, tree)


def generate(ds: Dataset, tree: Model, cf: float = 0.25) -> tuple[RuleSet, RuleSet]:
    """c4.5rules on ``ds`` from its unpruned c45 tree ``tree``: the ruleset Release 8 prints
    as "Final rules" and the one left after the final pass (the one that classifies)."""
    if not tree.compares_float32:
        # The rules keep the tree's thresholds, and a c45 ruleset compares float32.
        raise TrainError("c4.5rules makes rules from a c45 tree, not a j48 one", option="--flavor")
    data = _Data(ds, ErrorBound(cf, "c45"))
    candidates = _candidates(data, ds, tree)
    covers_of = {r.number: data.cover(r.conditions) for r in candidates}
    cond_bits = ConditionBits(ds)
    bits = {r.number: rule_bits(r, cond_bits) for r in candidates}
    n_classes = len(ds.classes)
    per_class: dict[int, list[Rule]] = {}
    # One generator for the run, as c4.5rules never seeds its random(): the classes
    # searched at random draw from it in class order.
    rng = GlibcRandom()
    for cls in range(n_classes):
        mine = [r for r in candidates if r.cls == cls]
        chosen, _ = best_subset(data.y, cls, mine, covers_of, bits, rng)
        if chosen:
            per_class[cls] = sorted(chosen, key=lambda r: (r.error, r.number))
    rules = tuple(r for cls in _class_order(data, per_class, covers_of) for r in per_class[cls])
    cover = np.zeros((len(rules), ds.n_rows), dtype=bool)
    for i, r in enumerate(rules):
        cover[i] = covers_of[r.number]
    default = _default_class(data, cover, n_classes)
    options: dict[str, object] = {"cf": float(cf)}
    if "min_cases" in tree.options:
        options["min_cases"] = tree.options["min_cases"]
    options = recorded_options(options, ds)
    printed = RuleSet(
        ds.schema,
        rules,
        default,
        options=options,
        treegen_version=VERSION,
        data_fingerprint=ds.fingerprint(),
    )
    final = tuple(
        rules[i] for i in dropping(cover, [r.cls for r in rules], default, ds.y)[-1].index
    )
    return printed, RuleSet(
        ds.schema,
        final,
        default,
        options=printed.options,
        treegen_version=VERSION,
        data_fingerprint=printed.data_fingerprint,
    )


def rules_of_data(
    ds: Dataset,
    *,
    min_cases: int = 2,
    cf: float = 0.25,
    subsets: bool = False,
    criterion: Criterion = "gainratio",
) -> tuple[RuleSet, RuleSet]:
    """c4.5rules as ``treegen rules`` runs it: :func:`generate` from ``ds``'s unpruned c45
    tree, grown with ``min_cases``, ``subsets`` and ``criterion`` (c4.5's ``-m``, ``-s``,
    ``-g``); ``cf`` is the confidence of the rules' pessimistic error rate."""
    opts = TrainOptions(
        min_cases=min_cases, cf=cf, prune=False, subsets=subsets, criterion=criterion
    )
    return generate(ds, train(ds, opts), cf)
