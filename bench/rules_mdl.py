"""Which description length picks c4.5rules' rules (issue 13): ``python bench/rules_mdl.py``.

For each of the nine reference sets (tests/data/reference) and each class, the subset
of treegen's candidate rules (steps 1-2 of treegen.rules.generate) that each encoding
below makes cheapest is compared with the rules Release 8 prints in ``c45rules.out``.
Rules are matched by their conditions and class (every rule Release 8 prints is
treegen's candidate of its number on all nine sets; a class whose printed rules were
not all candidates would not be scored).

Columns: how many of the 30 classes with at most 10 candidates (searched exhaustively
by Release 8, so the cost alone decides) get Release 8's subset; then, for each class
of more than 10 (searched at random by Release 8), ``=`` when treegen's search (the
cheapest end of descents, by the single change that lowers the cost most, from all the
rules and from RANDOM_STARTS random subsets) ends at Release 8's subset, else
how many bits the cheapest single change (dropping or adding one rule) would save on
Release 8's subset (``+x``: none saves, it is a local minimum by ``x`` bits; ``-x``: it
is not a local minimum, so no search that stops at one can end there).

Every encoding costs a subset ``S`` of class C's rules ``exceptions + W * theory``.
Exceptions: ``log2 C(covered, fp) + log2 C(uncovered, fn)`` (the book's), its entropy
approximation, or "expected" (Quinlan 1995): the side with more cases (covered or
uncovered) codes its errors at the rate of half of all the errors ``(fp + fn) / 2``,
the other side at its own rate.  Theory: per condition ``log2`` of its attribute's
values (nominal) or distinct values - 1 (continuous), or ``log2`` of the number of
possible tests (``tests``), or (``attribute-left``) which attribute among those the
rule's earlier conditions leave and which value (treegen's: by the value's share of
the cases, ``value_code="share"``), with the variations named in ENCODINGS.

The last table gives, per set, the window of a per-condition offset of theory bits
under which Release 8's subsets are the least cost (classes of at most 10 candidates)
or local minima (the others), for the previous ``log2 T`` encoding (with the counts
``T * 2**x`` of possible tests that would do) and for treegen's.
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.rules.core import Rule, covers, format_condition
from treegen.rules.generate import candidates
from treegen.rules.glibc import GlibcRandom
from treegen.rules.mdl import ConditionBits, subset_bits
from treegen.rules.subsets import EXHAUSTIVE_MAX, RANDOM_STARTS, descend
from treegen.trainer import TrainOptions, train
from treegen.trainer.stats import ErrorBound

REF = Path(__file__).resolve().parent.parent / "tests" / "data" / "reference"


@dataclass(frozen=True)
class Encoding:
    weight: float = 0.5  # W
    attribute_bits: float = 0.0  # + this times log2(number of attributes) per condition
    condition_extra: float = 0.0  # + this many bits per condition
    rule_extra: float = 0.0  # + this many bits per rule
    rule_factorial: bool = True  # - log2(k!) per rule of k conditions
    set_factorial: bool = True  # - log2(n!) per subset of n rules
    choose_rules: bool = False  # + log2 C(candidates, n) to say which rules are in S
    exceptions: str = "binomial"  # binomial | entropy | expected | expected-both
    # "tests": a condition costs log2(T), T = sum over the attributes of their values
    # (nominal) and `continuous_tests` per continuous attribute (or, with
    # cuts_as_tests, its distinct values - 1), plus cut_weight * log2(distinct - 1)
    # for a cut; "values": log2 of its own attribute's values or cuts.
    condition: str = "values"
    continuous_tests: int = 1
    cuts_as_tests: bool = False
    cut_weight: float = 1.0
    nominal_tests_less: int = 0  # a nominal attribute counts values - this as tests
    fp_share: float = 0.5  # of the errors, expected to be false positives
    # Per rule, its conditions in the printed order: "tests-left" is "tests" with T less
    # the values of the nominal attributes that the rule's earlier conditions test (a
    # rule tests a nominal attribute once); "attribute-left" is log2 of the attributes
    # not yet tested in the rule plus log2 of the attribute's values (nominal) or
    # cut_weight * log2(distinct - 1) (continuous); with value_code "share" the value
    # costs -log2 of its share of the cases whose value is known instead of log2(values)
    # (treegen.rules.mdl.ConditionBits), and with attributes_left False the
    # attribute is named among all of them.
    value_code: str = "values"
    attributes_left: bool = True


_BOOK = Encoding()
_TESTS = Encoding(condition="tests", cut_weight=0.5, set_factorial=False, exceptions="expected")
_SHARES = replace(_TESTS, condition="attribute-left", value_code="share")
_NO_FACTORIALS = Encoding(condition_extra=1.0, rule_factorial=False, set_factorial=False)
# Each hypothesis as the change it makes to the book's encoding or to one of the bases.
ENCODINGS = {
    "book": _BOOK,
    "+ log2(attributes) per condition": replace(_BOOK, attribute_bits=1.0),
    "W = 1": replace(_BOOK, weight=1.0),
    "no log2(k!)": replace(_BOOK, rule_factorial=False),
    "no log2(n!)": replace(_BOOK, set_factorial=False),
    "no factorials": replace(_BOOK, rule_factorial=False, set_factorial=False),
    "entropy exceptions": replace(_BOOK, exceptions="entropy"),
    "+1 bit per condition": replace(_BOOK, condition_extra=1.0),
    "+1 bit per condition, no log2(k!)": replace(_BOOK, condition_extra=1.0, rule_factorial=False),
    "+1 bit per condition, no log2(n!)": replace(_BOOK, condition_extra=1.0, set_factorial=False),
    "+3 bits per rule, no factorials": replace(
        _BOOK, rule_extra=3.0, rule_factorial=False, set_factorial=False
    ),
    "+1 bit per condition, no factorials (treegen before)": _NO_FACTORIALS,
    "... and + log2 C(candidates, n)": replace(_NO_FACTORIALS, choose_rules=True),
    "... and expected exceptions": replace(_NO_FACTORIALS, exceptions="expected"),
    "tests, all cuts as tests": replace(
        _TESTS, cuts_as_tests=True, cut_weight=0.0, exceptions="binomial"
    ),
    "tests, binomial exceptions": replace(_TESTS, exceptions="binomial"),
    "tests, expected exceptions, all cuts as tests": replace(
        _TESTS, cuts_as_tests=True, cut_weight=0.0
    ),
    "tests, expected exceptions, full cut bits": replace(_TESTS, cut_weight=1.0),
    "tests, expected exceptions, no cut bits": replace(_TESTS, cut_weight=0.0),
    "tests, expected exceptions, 2 tests per continuous": replace(_TESTS, continuous_tests=2),
    "tests, expected exceptions on both sides": replace(_TESTS, exceptions="expected-both"),
    "tests, expected, + log2(n!)": replace(_TESTS, set_factorial=True),
    "tests, expected, no log2(k!)": replace(_TESTS, rule_factorial=False),
    "tests, expected, + log2 C(candidates, n)": replace(_TESTS, choose_rules=True),
    "tests, expected, a nominal attribute's values - 1 as tests": replace(
        _TESTS, nominal_tests_less=1
    ),
    "tests, expected, 0.6 of the errors expected as fp": replace(_TESTS, fp_share=0.6),
    "tests, expected, W = 1": replace(_TESTS, weight=1.0),
    "tests, expected, T less the rule's earlier nominal tests": replace(
        _TESTS, condition="tests-left"
    ),
    "expected, log2(attributes left) + log2(values)": replace(_TESTS, condition="attribute-left"),
    "tests, expected, half a cut's bits (treegen before)": _TESTS,
    "expected, log2(attributes) + value's share": replace(_SHARES, attributes_left=False),
    "expected, attributes left + value's share, no cut bits": replace(_SHARES, cut_weight=0.0),
    "expected, attributes left + value's share, full cut bits": replace(_SHARES, cut_weight=1.0),
    "expected, attributes left + value's share, W = 0.45": replace(_SHARES, weight=0.45),
    "expected, attributes left + value's share, W = 0.55": replace(_SHARES, weight=0.55),
    "expected, attributes left + value's share (treegen)": _SHARES,
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


def _expected_bits(
    covered: int, uncovered: int, fp: int, fn: int, both: bool, share: float
) -> float:
    exp_fp, exp_fn = share * (fp + fn), (1 - share) * (fp + fn)

    def cov(rate: float) -> float:
        return subset_bits(covered, fp, rate) if covered else (0.0 if fp == 0 else 1e6)

    def unc(rate: float) -> float:
        return subset_bits(uncovered, fn, rate) if uncovered else (0.0 if fn == 0 else 1e6)

    if both:
        return cov(exp_fp / max(covered, 1)) + unc(exp_fn / max(uncovered, 1))
    if covered > uncovered:
        return cov(exp_fp / covered) + unc(fn / max(uncovered, 1))
    return cov(fp / max(covered, 1)) + unc(exp_fn / uncovered)


def _log2_fact(n: int) -> float:
    return math.lgamma(n + 1) / math.log(2)


def _released(name: str, ds: Dataset) -> dict[int, set[tuple[frozenset[str], int]]]:
    """Class -> (conditions, class) of the rules c45rules.out prints under "Final rules"."""
    text = (REF / name / "c45rules.out").read_text()
    text = text[text.index("Final rules") : text.index("Default class")]
    out: dict[int, set[tuple[frozenset[str], int]]] = {}
    for m in re.finditer(r"Rule \d+:\n((?:    \t.*\n)*)\t->  class (.*)  \[", text):
        cls = ds.classes.index(m.group(2))
        conds = frozenset(c.strip() for c in m.group(1).splitlines())
        out.setdefault(cls, set()).add((conds, cls))
    return out


@dataclass
class _Class:
    name: str
    rules: list[Rule]
    covers: list[int]  # bitsets of the training rows each rule covers
    negatives: int  # bitset of the rows of other classes
    positives: int
    n: int
    values: list[int]  # per attribute: its values, or its distinct values if continuous
    continuous: list[bool]
    released: tuple[int, ...]  # indices into rules
    shares: ConditionBits  # the value bits of treegen's encoding


def _classes(name: str) -> list[_Class]:
    ds = read_dataset(str(REF / name / f"{name}.data"))
    cands = candidates(ds, train(ds, TrainOptions(prune=False)), ErrorBound(0.25, "c45"))
    released = _released(name, ds)
    values = []
    for a, attr in enumerate(ds.attributes):
        if attr.is_continuous:
            col = ds.x32[:, a]
            values.append(len(np.unique(col[~np.isnan(col)])))
        else:
            values.append(len(attr.values))
    continuous = [a.is_continuous for a in ds.attributes]

    def bitset(rows: np.ndarray) -> int:
        return int.from_bytes(np.packbits(rows, bitorder="little").tobytes(), "little")

    out = []
    for cls in sorted({r.cls for r in cands}):
        mine = [r for r in cands if r.cls == cls]
        keys = [
            (frozenset(format_condition(c, ds.schema) for c in r.conditions), r.cls) for r in mine
        ]
        printed = released.get(cls, set())
        if not printed <= set(keys):
            continue  # a rule Release 8 prints is no candidate: not scored
        out.append(
            _Class(
                name,
                mine,
                [bitset(covers(r, ds.X)) for r in mine],
                bitset(ds.y != cls),
                int(np.count_nonzero(ds.y == cls)),
                ds.n_rows,
                values,
                continuous,
                tuple(i for i, k in enumerate(keys) if k in printed),
                ConditionBits(ds),
            )
        )
    return out


def _condition_bits(c: _Class, enc: Encoding) -> list[float]:
    cuts = [
        math.log2(max(v - 1, 1)) if cont else 0.0
        for v, cont in zip(c.values, c.continuous, strict=True)
    ]
    if enc.condition == "tests":
        per_cont = (
            (lambda v: max(v - 1, 1)) if enc.cuts_as_tests else (lambda v: enc.continuous_tests)
        )
        tests = sum(
            per_cont(v) if cont else v - enc.nominal_tests_less
            for v, cont in zip(c.values, c.continuous, strict=True)
        )
        out = [math.log2(tests) + enc.cut_weight * cut for cut in cuts]
    else:
        out = [
            cut if cont else math.log2(max(v, 1))
            for v, cont, cut in zip(c.values, c.continuous, cuts, strict=True)
        ]
    extra = enc.condition_extra + enc.attribute_bits * math.log2(len(c.values))
    return [b + extra for b in out]


def _cost(c: _Class, enc: Encoding, bits: list[float], chosen: tuple[int, ...]) -> float:
    fired = 0
    for i in chosen:
        fired |= c.covers[i]
    n_fired = fired.bit_count()
    fp = (fired & c.negatives).bit_count()
    fn = c.positives - (n_fired - fp)
    if enc.exceptions.startswith("expected"):
        both = enc.exceptions == "expected-both"
        exceptions = _expected_bits(n_fired, c.n - n_fired, fp, fn, both, enc.fp_share)
    else:
        ex = _entropy_bits if enc.exceptions == "entropy" else _log2_choose
        exceptions = ex(n_fired, fp) + ex(c.n - n_fired, fn)
    theory = sum(bits[i] for i in chosen)
    if enc.set_factorial:
        theory -= _log2_fact(len(chosen))
    if enc.choose_rules:
        theory += _log2_choose(len(c.rules), len(chosen))
    return exceptions + enc.weight * theory


def _sequential_bits(c: _Class, enc: Encoding, rule: Rule) -> float:
    """A rule's condition bits when each condition is coded among those its earlier
    conditions leave possible (``tests-left`` and ``attribute-left``)."""
    tests = sum(
        enc.continuous_tests if cont else v for v, cont in zip(c.values, c.continuous, strict=True)
    )
    tested: set[int] = set()
    bits = 0.0
    for d in rule.conditions:
        a = d.attribute
        cut = enc.cut_weight * math.log2(max(c.values[a] - 1, 1)) if c.continuous[a] else 0.0
        if enc.condition == "tests-left":
            bits += math.log2(tests) + cut
        else:
            if c.continuous[a]:
                own = cut
            elif enc.value_code == "share":
                own = c.shares.value_bits(d)
            else:
                own = math.log2(c.values[a])
            left = len(c.values) - len(tested - {a}) if enc.attributes_left else len(c.values)
            bits += math.log2(left) + own
        bits += enc.condition_extra
        if not c.continuous[a] and a not in tested:
            tested.add(a)
            tests -= c.values[a]
    return bits


def _rule_bits(c: _Class, enc: Encoding) -> list[float]:
    sequential = enc.condition in ("tests-left", "attribute-left")
    cond = [] if sequential else _condition_bits(c, enc)
    out = []
    for r in c.rules:
        k = len(r.conditions)
        if sequential:
            b = _sequential_bits(c, enc, r)
        else:
            b = sum(cond[d.attribute] for d in r.conditions)
        b += enc.rule_extra
        out.append(b - (_log2_fact(k) if enc.rule_factorial else 0.0))
    return out


def _search(c: _Class, enc: Encoding, bits: list[float], rng: GlibcRandom) -> tuple[int, ...]:
    """treegen's search: every subset up to EXHAUSTIVE_MAX rules, else the cheapest end
    of descents from all the rules and from RANDOM_STARTS random subsets."""
    m = len(c.rules)
    if m <= EXHAUSTIVE_MAX:
        subsets = (s for k in range(m + 1) for s in itertools.combinations(range(m), k))
        return min(subsets, key=lambda s: _cost(c, enc, bits, s))

    def cost_of(chosen: frozenset[int]) -> float:
        return _cost(c, enc, bits, tuple(sorted(chosen)))

    starts = [tuple(range(m))]
    for _ in range(RANDOM_STARTS):
        starts.append(tuple(i for i in range(m) if rng.next() & 1))
    found: tuple[tuple[int, ...], float] | None = None
    for start in starts:
        end, cost = descend(frozenset(start), cost_of, m)
        if found is None or cost < found[1] - 1e-9:
            found = (tuple(sorted(end)), cost)
    assert found is not None
    return found[0]


def _local_margin(c: _Class, enc: Encoding, bits: list[float]) -> float:
    """Least cost increase of one change to Release 8's subset (< 0: one lowers it)."""
    base = _cost(c, enc, bits, c.released)
    flips = (tuple(sorted(set(c.released) ^ {i})) for i in range(len(c.rules)))
    return min(_cost(c, enc, bits, s) for s in flips) - base


def _offset_window(cs: list[_Class], enc: Encoding) -> tuple[float, float]:
    """The per-condition offset ``x`` of theory bits (each condition costs ``x`` bits more)
    for which Release 8's subset of each class in ``cs`` is cheaper than every other
    subset (classes of at most EXHAUSTIVE_MAX rules) or than every single change (the
    others: a local minimum, needed for any search that stops at one to end there).

    Each comparison is linear in ``x``, so the window is an intersection of half-lines;
    it is empty (lo > hi) when no offset gives every class.
    """
    lo, hi = -math.inf, math.inf
    for c in cs:
        bits = _rule_bits(c, enc)
        conds = [len(r.conditions) for r in c.rules]
        base = _cost(c, enc, bits, c.released)
        k_base = sum(conds[i] for i in c.released)
        m = len(c.rules)
        if m <= EXHAUSTIVE_MAX:
            others: Iterable[tuple[int, ...]] = (
                s for k in range(m + 1) for s in itertools.combinations(range(m), k)
            )
        else:
            others = (tuple(sorted(set(c.released) ^ {i})) for i in range(m))
        for s in others:
            if s == c.released:
                continue
            # cost(s) - cost(released) = gap + W * x * more, which must stay above 0.
            gap = _cost(c, enc, bits, s) - base
            more = sum(conds[i] for i in s) - k_base
            if more > 0:
                lo = max(lo, -gap / (enc.weight * more))
            elif more < 0:
                hi = min(hi, -gap / (enc.weight * more))
            elif gap <= 0:
                return math.inf, -math.inf
    return lo, hi


def main() -> int:
    names = sorted(p.name for p in REF.iterdir() if (p / "c45rules.out").exists())
    classes = [c for name in names for c in _classes(name)]
    small = [c for c in classes if len(c.rules) <= EXHAUSTIVE_MAX]
    large = [c for c in classes if len(c.rules) > EXHAUSTIVE_MAX]
    heads = " ".join(f"{c.name[:6]}:{c.rules[0].cls}" for c in large)
    print(f"of {len(small)} classes of <= {EXHAUSTIVE_MAX} candidates, Release 8's subset on")
    print(f"{'':3s}  {'encoding':52s} {heads}")
    for label, enc in ENCODINGS.items():
        rng = GlibcRandom()  # the small classes draw nothing
        matched = sum(_search(c, enc, _rule_bits(c, enc), rng) == c.released for c in small)
        rngs: dict[str, GlibcRandom] = {}  # one per run of treegen rules
        cells = []
        for c in large:
            bits = _rule_bits(c, enc)
            if _search(c, enc, bits, rngs.setdefault(c.name, GlibcRandom())) == c.released:
                cells.append(f"{'=':>8s}")
            else:
                cells.append(f"{_local_margin(c, enc, bits):+8.2f}")
        print(f"{matched:3d}  {label:52s} {''.join(cells)}")
    # How far each encoding is from one that gives every class of a set: the window of
    # per-condition offsets x, and for the previous log2(T) the counts T * 2**x of
    # possible tests a condition could be coded among instead of T (on monk2 no whole
    # number fits).  The new encoding's window on monk2 is 0.06 bits wide.
    print()
    print("per set, the per-condition offsets (bits) under which Release 8's subsets are")
    print("the least cost (<= 10 candidates) or local minima (more): the log2(T) encoding")
    print("(and T * 2**x), then treegen's")
    for name in names:
        cs = [c for c in classes if c.name == name]
        lo, hi = _offset_window(cs, _TESTS)
        t = sum(1 if cont else v for v, cont in zip(cs[0].values, cs[0].continuous, strict=True))
        span = f"{lo:+7.2f} .. {hi:+7.2f}   T = {t:3d}: {t * 2**lo:8.2f} .. {t * 2**hi:8.2f}"
        lo2, hi2 = _offset_window(cs, _SHARES)
        now = f"{lo2:+7.3f} .. {hi2:+7.3f}" if lo2 < hi2 else "none"
        print(f"  {name:12s} {span if lo < hi else 'none':48s} {now}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
