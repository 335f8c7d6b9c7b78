"""c4.5rules: rules from the unpruned tree (Quinlan 1993, chapter 5; docs/C45.md).

Release 8's ``c4.5rules`` as it runs with its defaults:

1. every leaf of at least one training case gives a rule from its path, generalised,
   kept only when better than guessing its class, and numbered unless it repeats an
   earlier one (:mod:`treegen.rules.paths`);
2. each class's rules are narrowed to the subset of least description length, every
   subset tried up to 10 rules, a search from random subsets beyond
   (:mod:`treegen.rules.subsets`, :mod:`treegen.rules.mdl`);
3. the classes are ordered greedily: each time the one whose kept rules have the
   fewest false positives among the cases that no class placed before it covers
   (the first of equal ones); within a class, rules by error rate (the first of
   equal ones);
4. the default class is the most frequent among the cases no kept rule covers (of
   equal counts, the class more frequent overall, then the first);
5. evaluated on the training data, the first rule that misclassifies more of the
   cases it classifies than the rules after it and the default would is dropped,
   again until none does (:mod:`treegen.rules.final`).

A rule "covers" a case only if it fires on it: its conditions hold (none on an
unknown value) and its error rate is at most 0.7 (:func:`treegen.rules.core.fires`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset, Schema
from treegen.errors import TrainError
from treegen.model.core import ContinuousTest, Leaf, Model, SubsetTest
from treegen.model.version import VERSION
from treegen.rules.caselists import CaseLists, Unpacking
from treegen.rules.core import Condition, Rule, RuleSet, Steps, fires
from treegen.rules.final import ListState, dropping
from treegen.rules.glibc import GlibcRandom
from treegen.rules.grown import GrownTree
from treegen.rules.mdl import AttributeCodes, Logs, rule_bits_many
from treegen.rules.paths import CaseSink
from treegen.rules.paths import candidates as path_candidates
from treegen.rules.subsets import best_subset
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
        if isinstance(node, Leaf):
            if empty or node.items > 0:
                out.append((i, path))
            continue
        kids = []
        for b, child in enumerate(node.children):
            if isinstance(node, ContinuousTest):
                cond = Condition(node.attribute, "<=" if b == 0 else ">", threshold=node.threshold)
            elif isinstance(node, SubsetTest):
                cond = Condition(node.attribute, "in", values=tuple(node.subsets[b]))
            else:
                cond = Condition(node.attribute, "=", value=b)
            kids.append((child, (*path, cond)))
        stack.extend(reversed(kids))
    return out


def candidates(
    ds: Dataset,
    tree: Model | GrownTree,
    bound: ErrorBound,
    progress: Steps | None = None,
    rows: CaseSink | None = None,
) -> list[Rule]:
    """Step 1: the generalised rules of ``tree``'s leaves, numbered (``rows``: given,
    each one's cases satisfying its conditions are appended to it)."""
    # The paths read only the tree's nodes, which a GrownTree has as a Model has them.
    model = cast("Model", tree)
    return [r for r, _ in path_candidates(ds, model, bound, progress, rows, with_tests=False)]


def _class_order(
    y: npt.NDArray[np.integer],
    kept: Mapping[int, npt.NDArray[np.int32]],
    rules: list[Rule],
    n_classes: int,
) -> list[int]:
    """Step 3: the kept rules' indices in the ruleset's order (``kept``: each kept
    rule's cases, by its index, ascending)."""
    covered = np.zeros(y.size, dtype=bool)
    placed = [False] * n_classes
    order: list[int] = []
    for _ in range(n_classes):
        false_pos = {}
        for c in range(n_classes):
            if placed[c]:
                continue
            fired = np.zeros(y.size, dtype=bool)
            for i in kept:
                if rules[i].cls == c:
                    fired[kept[i]] = True
            false_pos[c] = int(np.count_nonzero(fired & ~covered & (y != c)))
        best = min(false_pos, key=lambda c: (false_pos[c], c))
        placed[best] = True
        # by error rate, the first of equal ones (a sort: the keys are distinct)
        mine = sorted((i for i in kept if rules[i].cls == best), key=lambda j: (rules[j].error, j))
        for i in mine:
            order.append(i)
            covered[kept[i]] = True
    return order


def _default_class(
    y: npt.NDArray[np.integer], covered: npt.NDArray[np.bool_], n_classes: int
) -> int:
    """Step 4: the most frequent class among the uncovered cases."""
    left = np.bincount(y[~covered], minlength=n_classes)
    total = np.bincount(y, minlength=n_classes)
    best = 0
    for c in range(1, n_classes):
        if left[c] > left[best] or (left[c] == left[best] and total[c] > total[best]):
            best = c
    return best


@dataclass
class Generalised:
    """Step 1's rules and what the later steps need besides the classes: each rule's
    cases satisfying its conditions (ascending; held packed, ``rows.rows(i)`` the
    rows of rule ``i``), the attributes' codes and the log tables of the description
    lengths, and the options the ruleset records.  Neither the tree nor the data's
    matrix is among them, so a caller that holds neither any more (``treegen rules``)
    searches the subsets without them."""

    rules: list[Rule]
    rows: CaseLists
    codes: AttributeCodes
    logs: Logs
    options: dict[str, object]


def generalise(
    ds: Dataset, tree: Model | GrownTree, cf: float = 0.25, progress: Steps | None = None
) -> Generalised:
    """Step 1 of :func:`generate`: the generalised rules of ``tree``'s leaves on ``ds``
    (``tree``: a model, or the grower's arrays seen as one, :mod:`treegen.rules.grown`)."""
    if not tree.compares_float32:
        # The rules keep the tree's thresholds, and a c45 ruleset compares float32.
        # treegen rules and treegen.train_rules grow a c45 tree and take no flavour:
        # only a direct call with a j48 tree gets here, so no option is named.
        raise TrainError("c4.5rules makes rules from a c45 tree, not a j48 one")
    bound = ErrorBound(cf, "c45")
    satisfied = CaseLists()  # held packed (rules/caselists.py)
    cands = candidates(ds, tree, bound, progress, satisfied)
    logs = Logs(ds.n_rows)
    options: dict[str, object] = {"cf": float(cf)}
    grown = tree.options.train
    if grown is not None:
        options["min_cases"] = int(grown.min_cases)
        # The growth options that change the rules, each only when not its default: the
        # file then says how its tree grew, and a default run's bytes stay as they were.
        if grown.subsets:
            options["subsets"] = True
        if grown.criterion != TrainOptions.criterion:
            options["criterion"] = grown.criterion
    return Generalised(
        cands, satisfied, AttributeCodes(ds, logs), logs, recorded_options(options, ds)
    )


def generate(
    ds: Dataset,
    tree: Model,
    cf: float = 0.25,
    progress: Steps | None = None,
    cover: list[npt.NDArray[np.int32]] | None = None,
) -> tuple[RuleSet, RuleSet]:
    """c4.5rules on ``ds`` from its unpruned c45 tree ``tree``: the ruleset Release 8 prints
    as "Final rules" and the one left after the final pass (the one that classifies).
    ``progress``: called now and then (the leaves generalised, the classes searched).
    ``cover``: given, the printed rules' covered rows of ``ds`` (in their order, as
    :func:`treegen.rules.core.cover_rows` gives them) are appended to it, for the
    evaluation on the training data not to work them out again."""
    found = generalise(ds, tree, cf, progress)
    return select(found, ds.y, ds.schema, ds.fingerprint(), progress, cover)


def select(
    found: Generalised,
    y: npt.NDArray[np.int32],
    schema: Schema,
    fingerprint: str,
    progress: Steps | None = None,
    cover: list[npt.NDArray[np.int32]] | None = None,
    lists: list[ListState] | None = None,
) -> tuple[RuleSet, RuleSet]:
    """Steps 2 to 5 of :func:`generate` on :func:`generalise`'s rules: ``y`` the training
    cases' classes, ``fingerprint`` the data's (:meth:`Dataset.fingerprint`).  Given,
    ``cover`` gets the printed rules' cases and ``lists`` the final pass's rule lists
    (:func:`~treegen.rules.final.dropping`), which the training evaluation prints."""
    cands, codes, logs = found.rules, found.codes, found.logs
    n_classes = len(schema.classes)
    # Each rule's cases (those it fires on: none when it cannot fire), as row lists
    # from the generalisation's sets, not a rows x rules matrix; unpacked where read
    # (one class's rules at a time, then the kept ones).
    none = np.zeros(0, dtype=np.int32)

    def match(i: int) -> npt.NDArray[np.int32]:
        return found.rows.rows(i) if fires(cands[i]) else none

    theory = rule_bits_many([r.conditions for r in cands], codes, logs)  # each rule's bits
    kept = [False] * len(cands)
    never = [not fires(r) for r in cands]
    by_class: list[list[int]] = [[] for _ in range(n_classes)]  # each class's rules, in order
    for i, r in enumerate(cands):
        by_class[r.cls].append(i)
    rng = GlibcRandom()  # c4.5rules never seeds random(): one stream, class after class
    for cls in range(n_classes):
        if progress is not None:
            progress("searching rule subsets", cls, n_classes)
        mine = by_class[cls]
        if not mine:
            continue
        chosen = best_subset(
            Unpacking(found.rows, mine, [never[i] for i in mine]),
            y == cls,
            [theory[i] for i in mine],
            logs,
            rng,
        )
        for i, keep in zip(mine, chosen, strict=True):
            kept[i] = keep
    kept_rows = {i: match(i) for i, keep in enumerate(kept) if keep}
    order = _class_order(y, kept_rows, cands, n_classes)
    rules = tuple(cands[i] for i in order)
    covered = np.zeros(y.size, dtype=bool)
    for i in order:
        covered[kept_rows[i]] = True
    default = _default_class(y, covered, n_classes)
    printed = RuleSet(
        schema,
        rules,
        default,
        options=found.options,
        treegen_version=VERSION,
        data_fingerprint=fingerprint,
    )
    covers = [kept_rows[i] for i in order]
    if cover is not None:
        cover.extend(covers)
    if progress is not None:
        progress("final pass", 0, 1)
    states = dropping(covers, [r.cls for r in rules], default, y)
    if lists is not None:
        lists.extend(states)
    final = tuple(rules[i] for i in states[-1].index)
    return printed, RuleSet(
        schema,
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
    return generate(ds, train(ds, unpruned_options(min_cases, cf, subsets, criterion)), cf)


def unpruned_options(
    min_cases: int, cf: float, subsets: bool, criterion: Criterion
) -> TrainOptions:
    """The options of the unpruned c45 tree c4.5rules starts from."""
    return TrainOptions(
        min_cases=min_cases, cf=cf, prune=False, subsets=subsets, criterion=criterion
    )
