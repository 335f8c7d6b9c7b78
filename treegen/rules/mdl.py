"""The description lengths c4.5rules compares rule subsets by (docs/C45.md, "c4.5rules").

A class's subset of rules costs its exception bits plus half its rules' theory bits.
Everything is in Release 8's float arithmetic (C ``float`` variables, double
intermediates), since the searches of :mod:`treegen.rules.subsets` compare costs
for strict improvement and the bits of different subsets can tie:

* :class:`Logs`: ``log2(i)`` of the integers as floats and ``log2(i!)`` as doubles,
  the tables c4.5rules builds once;
* :class:`AttributeCodes`: the bits of naming a test on each attribute.  An attribute's
  *branch bits* are, for a nominal one, the entropy of its values over all the
  training cases (``sum p log2 1/p`` over the values that occur, unknown cases
  counting in the total), for a continuous one ``1 + log2(distinct values) / 2``
  (the unknown value counting as one more value; 0 with a single value).  The
  attribute itself costs the entropy of the branch bits' shares, the same for every
  condition (``att_test_bits``).  A condition costs that plus its attribute's branch
  bits (a subset test: plus the attribute's number of values);
* :func:`rule_bits_many`: each rule's theory bits: its conditions' bits summed as
  floats, plus ``log2`` of their number, less ``log2`` of its factorial (their order
  does not matter);
* :func:`exception_bits`: the false positives among the cases the subset covers and
  the false negatives among the others, each side coded by the binomial code at a
  rate: the side with more cases at half of all the errors, the other at its own
  rate (Quinlan, "MDL and categorical theories (continued)", 1995); plus ``log2``
  of the number of cases.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset
from treegen.rules.constants import CERTAIN, IMPOSSIBLE_BITS
from treegen.rules.core import Condition
from treegen.trainer.stats import log2_c45, to_f32

# How many more log table entries than cases (c4.5rules makes room for 99 more).
LOG_ROOM = 100

# How many rules rule_bits_many sums at a time (at 1M rows 139,200 rules of some 1.1M
# conditions: all at once, its arrays were about 40 MB).
RULES_BLOCK = 8192


def log2_f(x: float) -> float:
    """Release 8's ``Log(x)``: ``log`` of ``x`` as a float, over ``ln 2``, in double; 0 for
    ``x <= 0`` (numpy's log, as every entropy of the trainer: :func:`log2_c45`)."""
    return float(log2_c45(to_f32(x)))


class Logs:
    """``log2(i)`` (float) and ``log2(i!)`` (double) for i up to the number of cases + 99."""

    def __init__(self, n_items: int) -> None:
        size = n_items + LOG_ROOM
        ints = np.arange(size, dtype=np.float32).astype(np.float64)
        item = log2_c45(ints).astype(np.float32)
        item[0] = np.float32(-1e38)
        fact = np.zeros(size, dtype=np.float64)
        fact[2:] = np.cumsum(item[2:].astype(np.float64))  # in order, as Release 8 adds
        # array('d'), not lists: 8 bytes an entry instead of a float object's 32 (64 MB
        # at a million cases); an entry reads back as the same Python float
        self.item: array[float] = array("d", item.astype(np.float64).tobytes())
        self.fact: array[float] = array("d", fact.tobytes())


class AttributeCodes:
    """Release 8's bits for naming a test on each attribute (``FindTestCodes``)."""

    def __init__(self, ds: Dataset, logs: Logs) -> None:
        n = ds.n_rows
        bits: list[float] = []
        for a, attr in enumerate(ds.attributes):
            col = ds.X[:, a]
            if attr.is_nominal:
                # each value's count among the known cases (the unknown ones count in n
                # only): one bincount of the known codes, no code array for every case
                known_codes = col[~np.isnan(col)].astype(np.intp)
                counts = np.bincount(known_codes, minlength=len(attr.values)).tolist()
                total = 0.0
                for count in counts[: len(attr.values)]:
                    if count:
                        share = count / float(n)
                        total = to_f32(total + share * to_f32(logs.item[n] - logs.item[count]))
                bits.append(total)
            elif attr.is_continuous:
                # the column's known values as float32, Release 8's storage (this
                # column only, not a float32 copy of the whole table)
                with np.errstate(over="ignore"):
                    known = col[~np.isnan(col)].astype(np.float32)
                # its distinct values as np.unique counts them (which imports numpy.ma)
                known.sort()
                distinct = int(np.count_nonzero(known[1:] != known[:-1])) + int(known.size > 0)
                cuts = distinct + int(known.size < n)
                half = to_f32(logs.item[cuts] / 2) if cuts > 1 else 0.0
                bits.append(to_f32(1 + half) if cuts > 1 else 0.0)
            else:
                bits.append(0.0)
        total_bits = 0.0
        for b in bits:
            total_bits = to_f32(total_bits + b)
        att = 0.0
        for b in bits:
            p = to_f32(b / total_bits) if total_bits else 0.0
            if p > 0:
                logs2 = np.log(np.asarray([p, 2.0]))  # log(p) / log(2.0), as Release 8 divides
                att = to_f32(att - p * float(logs2[0]) / float(logs2[1]))
        self.branch_bits = bits
        self.att_test_bits = att
        self.n_values = [len(a.values) for a in ds.attributes]


def rule_bits_many(
    rules: Sequence[tuple[Condition, ...]], codes: AttributeCodes, logs: Logs
) -> list[float]:
    """Each rule's theory bits (Release 8's ``FindRuleCodes``), in a few numpy calls a
    block of rules (one Python call a rule took 3 us at 100k rows, 19,188 rules).  A
    condition's bits (``CondBits``) are naming its attribute (``att_test_bits``) plus its
    branch (the attribute's branch bits; a subset test: its number of values), rounded
    to float; a rule's are summed in float32 place by place over every rule at once (a
    sum of two floats rounded to float is the same rounded from double, as Release 8
    adds), plus ``log2`` of their number, less ``log2`` of its factorial."""
    out: list[float] = []
    for lo in range(0, len(rules), RULES_BLOCK):  # a block at a time: small temporaries
        out += _rule_bits_block(rules[lo : lo + RULES_BLOCK], codes, logs)
    return out


def _rule_bits_block(
    rules: Sequence[tuple[Condition, ...]], codes: AttributeCodes, logs: Logs
) -> list[float]:
    """:func:`rule_bits_many` of a block of rules (at least one)."""
    m = len(rules)
    k = np.fromiter(map(len, rules), dtype=np.intp, count=m)
    size = int(k.sum())
    attrs = np.fromiter((c.attribute for cs in rules for c in cs), dtype=np.intp, count=size)
    subset = np.fromiter((c.op == "in" for cs in rules for c in cs), dtype=bool, count=size)
    extra = np.where(
        subset,
        np.asarray(codes.n_values, dtype=np.float64)[attrs],
        np.asarray(codes.branch_bits, dtype=np.float64)[attrs],
    )
    bits = (codes.att_test_bits + extra).astype(np.float32)
    starts = np.cumsum(k) - k
    total = np.zeros(m, dtype=np.float32)
    for place in range(int(k.max())):
        has = np.flatnonzero(k > place)
        total[has] += bits[starts[has] + place]  # float32 + float32: rounded as to_f32 does
    item = np.frombuffer(logs.item, dtype=np.float64)[k]
    fact = np.frombuffer(logs.fact, dtype=np.float64)[k]
    named = (total.astype(np.float64) + item).astype(np.float32)
    out: list[float] = (named.astype(np.float64) - fact).astype(np.float32).tolist()
    return out


def biased(n: int, e: int, expected: float) -> float:
    """Bits to say which ``e`` of ``n`` items are errors when ``expected`` of them are
    expected to be (Release 8's ``Biased``, a float)."""
    exp_e = to_f32(expected)
    if exp_e <= CERTAIN:
        return 0.0 if e == 0 else IMPOSSIBLE_BITS
    if exp_e >= n - CERTAIN:
        return 0.0 if e == n else IMPOSSIBLE_BITS
    rate = to_f32(exp_e / n)
    return to_f32(-e * log2_f(rate) - (n - e) * log2_f(to_f32(1 - rate)))


def exception_bits(n_items: int, fires: int, fp: int, fn: int) -> float:
    """Release 8's ``ExceptionBits`` of a subset firing on ``fires`` of ``n_items`` cases
    with ``fp`` false positives and ``fn`` false negatives."""
    half = 0.5 * (fp + fn)
    if fires > 0.5 * n_items:
        bits = log2_f(n_items) + biased(fires, fp, half) + biased(n_items - fires, fn, fn)
    else:
        bits = log2_f(n_items) + biased(fires, fp, fp) + biased(n_items - fires, fn, half)
    return to_f32(bits)


def _log2_many(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """:func:`log2_f` of each value."""
    out: npt.NDArray[np.float64] = log2_c45(x.astype(np.float64)).astype(np.float64)
    return out


def biased_many(
    n: npt.NDArray[np.int64], e: npt.NDArray[np.int64], expected: npt.NDArray[np.float64]
) -> npt.NDArray[np.float32]:
    """:func:`biased` of each (n, e, expected), the same floats."""
    exp_e = expected.astype(np.float32)
    low = exp_e <= CERTAIN
    high = ~low & (exp_e >= n - CERTAIN)
    mid = ~low & ~high
    out = np.where(
        low,
        np.where(e == 0, 0.0, IMPOSSIBLE_BITS),
        np.where(e == n, 0.0, IMPOSSIBLE_BITS),
    ).astype(np.float32)
    if mid.any():
        nm, em = n[mid], e[mid]
        rate = (exp_e[mid].astype(np.float64) / nm).astype(np.float32)
        other = (np.float32(1) - rate).astype(np.float32)
        bits = -em * _log2_many(rate) - (nm - em) * _log2_many(other)
        out[mid] = bits.astype(np.float32)
    return out


def exception_bits_many(
    n_items: int, fires: npt.NDArray[np.int64], fp: npt.NDArray[np.int64], fn: npt.NDArray[np.int64]
) -> npt.NDArray[np.float32]:
    """:func:`exception_bits` of each (fires, fp, fn), the same floats."""
    half = 0.5 * (fp + fn)
    big = fires > 0.5 * n_items
    rest = n_items - fires
    covered = biased_many(fires, fp, np.where(big, half, fp.astype(np.float64)))
    uncovered = biased_many(rest, fn, np.where(big, fn.astype(np.float64), half))
    bits = (log2_f(n_items) + covered.astype(np.float64)) + uncovered.astype(np.float64)
    out: npt.NDArray[np.float32] = bits.astype(np.float32)
    return out
