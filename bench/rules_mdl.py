"""Which description length picks c4.5rules' rules (issue 13): ``python bench/rules_mdl.py``.

For each of the nine reference sets (tests/data/reference) and each class, the subset
of treegen's candidate rules (steps 1-2 of treegen.rules.generate) that each encoding
below makes cheapest is compared with the rule numbers Release 8 prints in
``c45rules.out``.  The search is treegen's: every subset up to 10 rules, else a descent
from all the rules by the single change that lowers the cost most.  A class matches
when the two sets of rule numbers are equal (every rule Release 8 prints is treegen's
candidate of its number on all nine sets: docs/C45.md, section 12).

Every encoding costs a subset ``S`` of class C's rules ``exceptions + W * theory``:
exceptions ``log2 C(covered, fp) + log2 C(uncovered, fn)`` (or its entropy
approximation), theory the sum over the rules of the sum over their conditions of
``log2`` of the attribute's values (nominal) or distinct values - 1 (continuous),
with the variations named in ENCODINGS.
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.rules.core import Rule, covers
from treegen.rules.generate import EXHAUSTIVE_MAX, candidates
from treegen.trainer import TrainOptions, train
from treegen.trainer.stats import ErrorBound

REF = Path(__file__).resolve().parent.parent / "tests" / "data" / "reference"


@dataclass(frozen=True)
class Encoding:
    weight: float = 0.5  # W
    attribute_bits: bool = False  # + log2(number of attributes) per condition
    condition_extra: float = 0.0  # + this many bits per condition
    rule_extra: float = 0.0  # + this many bits per rule
    rule_factorial: bool = True  # - log2(k!) per rule of k conditions
    set_factorial: bool = True  # - log2(n!) per subset of n rules
    entropy: bool = False  # exceptions as n H(k/n) instead of log2 C(n, k)


ENCODINGS = {
    "book (treegen before)": Encoding(),
    "+ log2(attributes) per condition": Encoding(attribute_bits=True),
    "W = 1": Encoding(weight=1.0),
    "no log2(k!)": Encoding(rule_factorial=False),
    "no log2(n!)": Encoding(set_factorial=False),
    "no factorials": Encoding(rule_factorial=False, set_factorial=False),
    "entropy exceptions": Encoding(entropy=True),
    "+1 bit per condition": Encoding(condition_extra=1.0),
    "+1 bit per condition, no log2(k!)": Encoding(condition_extra=1.0, rule_factorial=False),
    "+1 bit per condition, no log2(n!)": Encoding(condition_extra=1.0, set_factorial=False),
    "+3 bits per rule, no factorials": Encoding(
        rule_extra=3.0, rule_factorial=False, set_factorial=False
    ),
    "+1 bit per condition, no factorials (treegen)": Encoding(
        condition_extra=1.0, rule_factorial=False, set_factorial=False
    ),
}


def _log2_choose(n: int, k: int) -> float:
    if k <= 0 or k >= n:
        return 0.0
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)


def _entropy_bits(n: int, k: int) -> float:
    if k <= 0 or k >= n:
        return 0.0
    p = k / n
    return -n * (p * math.log2(p) + (1 - p) * math.log2(1 - p))


def _log2_fact(n: int) -> float:
    return math.lgamma(n + 1) / math.log(2)


def _released(name: str, ds: Dataset) -> dict[int, set[int]]:
    """Class -> the rule numbers c45rules.out prints under "Final rules"."""
    text = (REF / name / "c45rules.out").read_text()
    text = text[text.index("Final rules") : text.index("Default class")]
    out: dict[int, set[int]] = {}
    for m in re.finditer(r"Rule (\d+):\n(?:    \t.*\n)*\t->  class (.*)  \[", text):
        out.setdefault(ds.classes.index(m.group(2)), set()).add(int(m.group(1)))
    return out


@dataclass
class _Class:
    rules: list[Rule]
    covers: list[int]  # bitsets of the training rows each rule covers
    negatives: int  # bitset of the rows of other classes
    positives: int
    n: int
    condition_bits: list[float]
    n_attributes: int
    released: set[int]


def _classes(name: str) -> list[tuple[int, _Class]]:
    ds = read_dataset(str(REF / name / f"{name}.data"))
    cands = candidates(ds, train(ds, TrainOptions(prune=False)), ErrorBound(0.25, "c45"))
    released = _released(name, ds)
    bits = []
    for a, attr in enumerate(ds.attributes):
        if attr.is_continuous:
            col = ds.x32[:, a]
            bits.append(math.log2(max(len(np.unique(col[~np.isnan(col)])) - 1, 1)))
        else:
            bits.append(math.log2(max(len(attr.values), 1)))

    def bitset(rows: np.ndarray) -> int:
        return int.from_bytes(np.packbits(rows, bitorder="little").tobytes(), "little")

    out = []
    for cls in sorted({r.cls for r in cands}):
        mine = [r for r in cands if r.cls == cls]
        out.append(
            (
                cls,
                _Class(
                    mine,
                    [bitset(covers(r, ds.X)) for r in mine],
                    bitset(ds.y != cls),
                    int(np.count_nonzero(ds.y == cls)),
                    ds.n_rows,
                    bits,
                    len(ds.attributes),
                    released.get(cls, set()),
                ),
            )
        )
    return out


def _cost(c: _Class, enc: Encoding, chosen: tuple[int, ...]) -> float:
    fired = 0
    for i in chosen:
        fired |= c.covers[i]
    n_fired = fired.bit_count()
    fp = (fired & c.negatives).bit_count()
    fn = c.positives - (n_fired - fp)
    ex = _entropy_bits if enc.entropy else _log2_choose
    exceptions = ex(n_fired, fp) + ex(c.n - n_fired, fn)
    theory = 0.0
    per_condition = enc.condition_extra + (math.log2(c.n_attributes) if enc.attribute_bits else 0)
    for i in chosen:
        conds = c.rules[i].conditions
        theory += sum(c.condition_bits[d.attribute] + per_condition for d in conds)
        theory += enc.rule_extra - (_log2_fact(len(conds)) if enc.rule_factorial else 0.0)
    if enc.set_factorial:
        theory -= _log2_fact(len(chosen))
    return exceptions + enc.weight * theory


def _search(c: _Class, enc: Encoding) -> set[int]:
    m = len(c.rules)
    if m <= EXHAUSTIVE_MAX:
        subsets = (s for k in range(m + 1) for s in itertools.combinations(range(m), k))
        best = min(subsets, key=lambda s: _cost(c, enc, s))
    else:
        best = tuple(range(m))
        cost = _cost(c, enc, best)
        while True:
            flips = [tuple(sorted(set(best) ^ {i})) for i in range(m)]
            trial = min(flips, key=lambda s: _cost(c, enc, s))
            if not _cost(c, enc, trial) < cost - 1e-9:
                break
            best, cost = trial, _cost(c, enc, trial)
    return {c.rules[i].number for i in best}


def main() -> int:
    names = sorted(p.name for p in REF.iterdir() if (p / "c45rules.out").exists())
    sets = {name: _classes(name) for name in names}
    total = sum(len(v) for v in sets.values())
    print(f"classes whose chosen rules are Release 8's (of {total}); sets matching in full")
    for label, enc in ENCODINGS.items():
        matched = 0
        full = []
        for name, classes in sets.items():
            ok = [_search(c, enc) == c.released for _, c in classes]
            matched += sum(ok)
            if all(ok):
                full.append(name)
        print(f"{matched:3d}  {label:48s} {' '.join(full)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
