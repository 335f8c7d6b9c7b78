"""c4.5rules' subset selection (step 3 of treegen.rules.generate) against Release 8.

On a class with at most EXHAUSTIVE_MAX candidate rules Release 8 tries every subset,
so the description length alone decides which rules it prints: wherever every rule
Release 8 prints for such a class is one of treegen's candidates (the same conditions
and class, matched by content rather than number), treegen must print the same rules
for that class.  So must treegen's search on the larger classes, but monk2's class 1
(a strict xfail).  This checks the subsets class by class, where the golden tests
check whole outputs (monk2's class 0 is Release 8's, its output is not).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from treegen.data.readers import read_dataset
from treegen.rules.core import format_condition
from treegen.rules.generate import EXHAUSTIVE_MAX, candidates, generate
from treegen.trainer import TrainOptions, train
from treegen.trainer.stats import ErrorBound

REF = Path(__file__).resolve().parent / "data" / "reference"
DATASETS = sorted(p.name for p in REF.iterdir() if (p / "c45rules.out").exists())

Printed = dict[str, set[frozenset[str]]]


def _release8(name: str) -> Printed:
    """Class name -> the condition sets of the rules c45rules.out prints for it."""
    text = (REF / name / "c45rules.out").read_text()
    text = text[text.index("Final rules") : text.index("Default class")]
    out: Printed = {}
    for m in re.finditer(r"Rule \d+:\n((?:    \t.*\n)*)\t->  class (.*)  \[", text):
        conds = frozenset(c.strip() for c in m.group(1).splitlines())
        out.setdefault(m.group(2), set()).add(conds)
    return out


@functools.cache
def _ours(name: str) -> tuple[Printed, Printed]:
    """(treegen's printed rules per class, its candidates per class), as condition sets."""
    ds = read_dataset(str(REF / name / f"{name}.data"))
    tree = train(ds, TrainOptions(prune=False))
    printed, _ = generate(ds, tree)

    def by_class(rules: object) -> Printed:
        out: Printed = {}
        for r in rules:  # type: ignore[attr-defined]
            conds = frozenset(format_condition(c, ds.schema) for c in r.conditions)
            out.setdefault(ds.classes[r.cls], set()).add(conds)
        return out

    return by_class(printed.rules), by_class(candidates(ds, tree, ErrorBound(0.25, "c45")))


def _scored_classes(name: str) -> list[str]:
    """Classes whose rules in c45rules.out (none, for some) are all treegen candidates."""
    _, cands = _ours(name)
    ref = _release8(name)
    return [c for c in sorted(set(ref) | set(cands)) if ref.get(c, set()) <= cands.get(c, set())]


def _exhaustive_classes(name: str) -> list[str]:
    _, cands = _ours(name)
    return [c for c in _scored_classes(name) if len(cands.get(c, ())) <= EXHAUSTIVE_MAX]


def test_the_check_covers_every_class() -> None:
    # Every class of the nine sets (every printed rule is a candidate); 30 of them have
    # at most 10 candidates, the six in SEARCHED more.
    assert sum(len(_scored_classes(n)) for n in DATASETS) == 36
    assert sum(len(_exhaustive_classes(n)) for n in DATASETS) == 30


@pytest.mark.parametrize("name", DATASETS)
def test_exhaustive_classes_keep_release8s_rules(name: str) -> None:
    ours, _ = _ours(name)
    ref = _release8(name)
    classes = _exhaustive_classes(name)
    assert {c: ours.get(c, set()) for c in classes} == {c: ref.get(c, set()) for c in classes}


# The classes of more than EXHAUSTIVE_MAX candidates, which Release 8 searches at random.
SEARCHED = [
    ("crx", "+"),
    ("crx", "-"),
    ("monk1", "0"),
    ("monk2", "0"),
    ("monk2", "1"),
    ("soybean-r8", "frog-eye-leaf-spot"),
]
_MONK2_1 = pytest.mark.xfail(
    strict=True,
    reason="Release 8's 8, 12, 15, 31, 35 is no local minimum under treegen's cost: "
    "dropping rule 35 saves 0.65 bits (docs/C45.md, section 12)",
)


def test_searched_lists_every_larger_class() -> None:
    _, cands = zip(*(_ours(n) for n in DATASETS), strict=True)
    larger = [
        (n, c)
        for n, by_class in zip(DATASETS, cands, strict=True)
        for c in _scored_classes(n)
        if len(by_class.get(c, ())) > EXHAUSTIVE_MAX
    ]
    assert larger == SEARCHED


@pytest.mark.parametrize(
    ("name", "cls"),
    [p if p != ("monk2", "1") else pytest.param(*p, marks=_MONK2_1) for p in SEARCHED],
)
def test_searched_classes_keep_release8s_rules(name: str, cls: str) -> None:
    """Above 10 candidates Release 8 searches at random; the cheapest end of treegen's
    descents (from all the rules and from random subsets) is its subset but on monk2's
    class 1."""
    ours, _ = _ours(name)
    assert ours.get(cls, set()) == _release8(name).get(cls, set())
