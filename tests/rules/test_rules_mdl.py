"""c4.5rules' subset selection (step 3 of treegen.rules.generate) against Release 8,
and its description lengths (treegen/rules/mdl.py).

On a class with at most EXHAUSTIVE_MAX candidate rules Release 8 tries every subset,
so the description length alone decides which rules it prints: wherever every rule
Release 8 prints for such a class is one of treegen's candidates (the same conditions
and class, matched by content rather than number), treegen must print the same rules
for that class.  So must the random search on the larger classes, which treegen runs
with Release 8's draws from glibc's ``random()``.  This checks the subsets class by
class, where the golden tests check whole outputs.
"""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.rules.core import Condition, format_condition
from treegen.rules.generate import candidates, generate
from treegen.rules.mdl import (
    AttributeCodes,
    Logs,
    biased,
    exception_bits,
    rule_bits_many,
)
from treegen.rules.subsets import EXHAUSTIVE_MAX
from treegen.trainer import TrainOptions, train
from treegen.trainer.stats import ErrorBound, to_f32

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
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


@pytest.mark.slow
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


def test_searched_lists_every_larger_class() -> None:
    _, cands = zip(*(_ours(n) for n in DATASETS), strict=True)
    larger = [
        (n, c)
        for n, by_class in zip(DATASETS, cands, strict=True)
        for c in _scored_classes(n)
        if len(by_class.get(c, ())) > EXHAUSTIVE_MAX
    ]
    assert larger == SEARCHED


@pytest.mark.parametrize(("name", "cls"), SEARCHED)
def test_searched_classes_keep_release8s_rules(name: str, cls: str) -> None:
    """Above 10 candidates Release 8 climbs from random subsets (glibc's ``random()``,
    never seeded, one stream for the classes in order); treegen draws the same numbers
    in the same order and ends at the same subset on all six."""
    ours, _ = _ours(name)
    assert ours.get(cls, set()) == _release8(name).get(cls, set())


def test_branch_bits_are_value_entropies_and_cut_counts() -> None:
    """A nominal attribute's branch bits are the entropy of its values over all cases
    (unknown ones counting in the total, not as a value); a continuous one's are
    ``1 + log2(distinct values) / 2``, the unknown value counting as one more."""
    schema = Schema(
        (Attribute("n", "nominal", ("a", "b", "c")), Attribute("x", "continuous")), ("p", "q")
    )
    X = np.asarray([[0, 1.0], [0, 2.0], [1, 2.0], [np.nan, np.nan]], dtype=np.float64)
    ds = Dataset(schema, X, np.zeros(4, dtype=np.int32))
    logs = Logs(ds.n_rows)
    codes = AttributeCodes(ds, logs)
    want_n = 0.5 * math.log2(4 / 2) + 0.25 * math.log2(4 / 1)
    assert codes.branch_bits[0] == pytest.approx(want_n, rel=1e-6)
    assert codes.branch_bits[1] == pytest.approx(1 + math.log2(3) / 2, rel=1e-6)
    shares = [b / sum(codes.branch_bits) for b in codes.branch_bits]
    assert codes.att_test_bits == pytest.approx(-sum(p * math.log2(p) for p in shares), rel=1e-6)
    c = Condition(1, "<=", threshold=1.0)
    assert rule_bits_many([(c,)], codes, logs) == pytest.approx(
        [codes.att_test_bits + codes.branch_bits[1]], rel=1e-6
    )
    three = (c, Condition(0, "=", value=0), Condition(0, "in", values=(0, 1)))
    assert rule_bits_many([three], codes, logs) == pytest.approx(
        [
            3 * codes.att_test_bits
            + codes.branch_bits[1]
            + codes.branch_bits[0]
            + 3  # the subset test names its attribute's 3 values
            + math.log2(3)
            - math.log2(math.factorial(3))
        ],
        rel=1e-6,
    )


def test_exception_bits_code_the_larger_side_at_half_the_errors() -> None:
    """Of 100 cases a subset fires on 70 (10 false positives) and misses 6 of the class:
    the covered side is coded at the rate (10 + 6) / 2 / 70, the other at 6 / 30."""
    got = exception_bits(100, 70, 10, 6)
    r1, r2 = 8 / 70, 6 / 30
    want = (
        math.log2(100)
        - 10 * math.log2(r1)
        - 60 * math.log2(1 - r1)
        - 6 * math.log2(r2)
        - 24 * math.log2(1 - r2)
    )
    assert got == pytest.approx(want, rel=1e-6)
    assert biased(10, 0, 0.0) == 0.0 and biased(10, 1, 0.0) == 1e6


def _find_rule_codes(conditions: tuple[Condition, ...], codes: AttributeCodes, logs: Logs) -> float:
    """Release 8's FindRuleCodes, one float operation at a time: each condition's bits
    (CondBits: the attribute's naming plus its branch, a subset test its number of
    values) rounded to float and summed as floats, plus log2 of their number, less
    log2 of its factorial."""
    total = 0.0
    for c in conditions:
        extra = (
            float(codes.n_values[c.attribute]) if c.op == "in" else codes.branch_bits[c.attribute]
        )
        total = to_f32(total + to_f32(codes.att_test_bits + extra))
    k = len(conditions)
    return to_f32(to_f32(total + logs.item[k]) - logs.fact[k])


@pytest.mark.parametrize(
    ("name", "subsets"), [("hypo", False), ("soybean-r8", True), ("crx", True)]
)
def test_rule_bits_many_equal_one_by_one(
    name: str, subsets: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The theory bits of every candidate rule of a reference tree (with subset tests
    where grown with them), and of made-up rules of 0 to 14 conditions of every kind,
    in one call are exactly those of Release 8's FindRuleCodes worked one rule and one
    float operation at a time (:func:`_find_rule_codes`)."""
    ds = read_dataset(str(REF / name / f"{name}.data"))
    tree = train(ds, TrainOptions(prune=False, subsets=subsets))
    logs = Logs(ds.n_rows)
    codes = AttributeCodes(ds, logs)
    rules = [r.conditions for r in candidates(ds, tree, ErrorBound(0.25, "c45"))]
    ops = {c.op for cs in rules for c in cs}
    assert "=" in ops and ("in" in ops) == subsets and ("<=" in ops) == (name != "soybean-r8")
    rng = np.random.default_rng(5)
    for size in [*range(15), *rng.integers(0, 15, size=200)]:
        conds = []
        for a in rng.integers(0, len(ds.attributes), size=size).tolist():
            if ds.attributes[a].is_continuous:
                conds.append(Condition(a, "<=" if rng.random() < 0.5 else ">", threshold=1.5))
            elif rng.random() < 0.5:
                conds.append(Condition(a, "in", values=(0, 1)))
            else:
                conds.append(Condition(a, "=", value=0))
        rules.append(tuple(conds))
    want = [_find_rule_codes(cs, codes, logs) for cs in rules]
    assert rule_bits_many(rules, codes, logs) == want
    monkeypatch.setattr("treegen.rules.mdl.RULES_BLOCK", 7)  # many blocks, a short last one
    assert len(rules) % 7 and rule_bits_many(rules, codes, logs) == want
    assert rule_bits_many([], codes, logs) == []


def test_branch_bits_count_zero_and_minus_zero_as_one_value() -> None:
    """0.0 and -0.0 are one value of a continuous attribute (as np.unique counts them),
    a repeated value once, the unknown value one more."""
    schema = Schema((Attribute("x", "continuous"),), ("p", "q"))
    X = np.asarray([[0.0], [-0.0], [2.0], [2.0], [np.nan], [-1.5]], dtype=np.float64)
    ds = Dataset(schema, X, np.zeros(6, dtype=np.int32))
    codes = AttributeCodes(ds, Logs(ds.n_rows))
    assert codes.branch_bits[0] == pytest.approx(1 + math.log2(4) / 2, rel=1e-6)
    known = Dataset(schema, X[~np.isnan(X[:, 0])], np.zeros(5, dtype=np.int32))
    assert AttributeCodes(known, Logs(5)).branch_bits[0] == pytest.approx(
        1 + math.log2(3) / 2, rel=1e-6
    )
