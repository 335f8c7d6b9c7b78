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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset
from treegen.errors import TrainError
from treegen.model.core import Model
from treegen.model.version import VERSION
from treegen.rules.core import CaseColumns, Condition, Rule, RuleSet
from treegen.rules.final import iter_dropping
from treegen.rules.glibc import GlibcRandom
from treegen.rules.mdl import ConditionBits, rule_bits
from treegen.rules.paths import iter_generalised, rank_of
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


def _class_order(
    y: npt.NDArray[np.integer], per_class: dict[int, list[Rule]], covers_of: Covers
) -> list[int]:
    """The classes in the order their rules come: repeatedly the one whose rules have the
    fewest false positives among the cases no class before it covers (the lower class
    index of equal ones).

    Counting every false positive instead (the subset's own) orders soybean-r8 otherwise
    than Release 8: it puts cyst-nematode (1 false positive, covered by an earlier class)
    before herbicide-injury (0) and 2-4-d-injury (4, all covered) before
    diaporthe-stem-canker (1); on the other eight sets the two orders are the same.
    """
    n = len(y)
    placed = sorted(per_class)
    # Every (case, class) pair of a false positive: the class's rules fire the case, and
    # it is of another class.  Placing a class covers its cases; pairs on them go.
    cases_of = [
        np.unique(np.concatenate([covers_of[r.number] for r in per_class[c]])) for c in placed
    ]
    at = {c: i for i, c in enumerate(placed)}
    pair_case = np.concatenate([np.zeros(0, np.int32), *cases_of]).astype(np.intp)
    pair_cls = np.repeat(np.asarray(placed, dtype=np.intp), [len(c) for c in cases_of])
    wrong = y[pair_case] != pair_cls
    pair_case, pair_cls = pair_case[wrong], pair_cls[wrong]
    size = max(placed, default=-1) + 1
    fp = np.bincount(pair_cls, minlength=size).astype(np.int64)
    # Classes without rules (or already ordered) never win: above every count (<= n).
    unplaced = np.full(size, n + 1, dtype=np.int64)
    unplaced[placed] = 0
    covered = np.zeros(n, dtype=bool)
    order: list[int] = []
    for _ in placed:
        best = int(np.argmin(fp + unplaced))  # argmin: the lower class of equal counts
        order.append(best)
        unplaced[best] = n + 1
        covered[cases_of[at[best]]] = True
        hit = covered[pair_case]
        if hit.any():
            fp -= np.bincount(pair_cls[hit], minlength=size)
            pair_case, pair_cls = pair_case[~hit], pair_cls[~hit]
    return order


def _default_class(
    y: npt.NDArray[np.integer], covers: Sequence[npt.NDArray[np.integer]], n_classes: int
) -> int:
    """The most frequent class among the cases no rule covers (``covers``: the rules')."""
    fired = np.zeros(len(y), dtype=bool)
    for c in covers:
        fired[c] = True
    left = np.bincount(y[~fired], minlength=n_classes)
    total = np.bincount(y, minlength=n_classes)
    return int(max(range(n_classes), key=lambda c: (left[c], total[c], -c)))


# A leaf whose (fractional) training cases add up to less than this gives no rule:
# soybean-r8's leaves of 0.40 and 0.23 cases give none in Release 8.  Any threshold
# above 0.6197 (its leaves of 0.62 cases must give none either) and at most 1 (leaves
# of one case give rules on every set) numbers the rules as it does (docs/C45.md, 12).
MIN_LEAF_ITEMS = 1.0


# progress(phase, done, total): what the rules command shows while it works.
RulesProgress = Callable[[str, int, int], None]


def _candidates(
    ds: Dataset, tree: Model, bound: ErrorBound, progress: RulesProgress | None = None
) -> tuple[list[Rule], Covers]:
    """The numbered candidates and the rows each covers (kept for those rules only)."""
    counts = np.bincount(ds.y, minlength=len(ds.classes))
    out: list[Rule] = []
    covers_of: Covers = {}
    seen: set[tuple[int, frozenset[Condition]]] = set()  # each rule's class and conditions
    leaves = [
        (path, tree.nodes[leaf].cls)
        for leaf, path in leaf_paths(tree)
        if tree.nodes[leaf].items >= MIN_LEAF_ITEMS
    ]
    generalised = iter_generalised(ds.X, ds.y, leaves, bound)
    for i, ((_, cls), (conds, rate, rows)) in enumerate(zip(leaves, generalised, strict=True)):
        if progress is not None and i % 256 == 0:
            progress("generalising rules", i, len(leaves))
        conds = tuple(
            sorted(conds, key=lambda c: (ds.attributes[c.attribute].is_continuous, c.attribute))
        )
        if not conds or not rate < 1.0 - (counts[cls] + 1) / (ds.n_rows + 2):
            continue
        if (cls, frozenset(conds)) in seen:
            continue  # equal to an earlier rule
        seen.add((cls, frozenset(conds)))
        out.append(Rule(len(out) + 1, conds, cls, rate))
        covers_of[len(out)] = rows
    return out, covers_of


def candidates(ds: Dataset, tree: Model, bound: ErrorBound) -> list[Rule]:
    """Steps 1 and 2: the generalised rules of ``tree``'s leaves, numbered."""
    return _candidates(ds, tree, bound)[0]


@dataclass(frozen=True)
class Generated:
    """What :func:`make_rules` makes: the ruleset Release 8 prints as "Final rules", the
    one left after the final pass (the one that classifies), and the training rows
    each printed rule covers (ascending indices; in ``printed.rules`` order)."""

    printed: RuleSet
    final: RuleSet
    covers: list[npt.NDArray[np.integer]]


def make_rules(
    ds: Dataset, tree: Model, cf: float = 0.25, progress: RulesProgress | None = None
) -> Generated:
    """c4.5rules on ``ds`` from its unpruned c45 tree ``tree`` (:func:`generate`), with
    the printed rules' covers; ``progress(phase, done, total)`` is told how far it is."""
    if not tree.compares_float32:
        # The rules keep the tree's thresholds, and a c45 ruleset compares float32.
        raise TrainError("c4.5rules makes rules from a c45 tree, not a j48 one", option="--flavor")
    candidates, covers_of = _candidates(ds, tree, ErrorBound(cf, "c45"), progress)
    cond_bits = ConditionBits(ds)
    bits = {r.number: rule_bits(r, cond_bits) for r in candidates}
    n_classes = len(ds.classes)
    per_class: dict[int, list[Rule]] = {}
    # One generator for the run, as c4.5rules never seeds its random(): the classes
    # searched at random draw from it in class order.
    rng = GlibcRandom()
    for cls in range(n_classes):
        if progress is not None:
            progress("searching rule subsets", cls, n_classes)
        mine = [r for r in candidates if r.cls == cls]
        chosen, _ = best_subset(ds.y, cls, mine, covers_of, bits, rng)
        if chosen:
            per_class[cls] = sorted(chosen, key=lambda r: (r.error, r.number))
    if progress is not None:
        progress("final pass", 0, 0)
    rules = tuple(r for cls in _class_order(ds.y, per_class, covers_of) for r in per_class[cls])
    covers = [covers_of[r.number] for r in rules]
    del covers_of
    default = _default_class(ds.y, covers, n_classes)
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
    # The last list of the final pass is the one that classifies.
    *_, last = iter_dropping(covers, [r.cls for r in rules], default, ds.y)
    final = tuple(rules[i] for i in last.index)
    return Generated(
        printed,
        RuleSet(
            ds.schema,
            final,
            default,
            options=printed.options,
            treegen_version=VERSION,
            data_fingerprint=printed.data_fingerprint,
        ),
        covers,
    )


def generate(ds: Dataset, tree: Model, cf: float = 0.25) -> tuple[RuleSet, RuleSet]:
    """c4.5rules on ``ds`` from its unpruned c45 tree ``tree``: the ruleset Release 8 prints
    as "Final rules" and the one left after the final pass (the one that classifies)."""
    made = make_rules(ds, tree, cf)
    return made.printed, made.final


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
    return generate(ds, train(ds, unpruned_options(min_cases, cf, subsets, criterion)), cf)


def unpruned_options(
    min_cases: int, cf: float, subsets: bool, criterion: Criterion
) -> TrainOptions:
    """The options of the unpruned c45 tree c4.5rules starts from."""
    return TrainOptions(
        min_cases=min_cases, cf=cf, prune=False, subsets=subsets, criterion=criterion
    )
