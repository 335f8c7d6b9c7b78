"""Weka's ways of ordering and drawing rows, reproduced exactly: ``java.util.Random``,
``Instances.randomize``, ``stratify``, ``trainCV``/``testCV`` and ``resampleWithWeights``.

Weka trains J48, AdaBoostM1 and Bagging on rows in the order these produce, and the
order matters: a bootstrap sample is a sequence of draws, and sums of fractional
weights round in row order.  Each function returns row numbers of the data it was
given, so a caller takes ``ds.subset(rows)`` and gets Weka's rows in Weka's order.

``java.util.Random`` is a documented 48-bit linear congruential generator (multiplier
0x5DEECE66D, increment 11; ``next(bits)`` is the top ``bits`` of the state); its
``nextDouble`` is ``(next(26) * 2**27 + next(27)) * 2**-53``.  :meth:`JavaRandom.doubles`
draws many at once by jumping the generator ahead (numpy's unsigned 64-bit products
wrap modulo 2**64, which 2**48 divides), the same numbers as one call after another.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.intp]

_MULT = 0x5DEECE66D
_ADD = 0xB
_MASK = (1 << 48) - 1


class JavaRandom:
    """``java.util.Random``, bit for bit."""

    def __init__(self, seed: int) -> None:
        # A Python int: a numpy seed's fixed width overflowed (np.int8: OverflowError in
        # the XOR; np.int64: a warning at every step of the 48-bit state's product)
        self.state = (int(seed) ^ _MULT) & _MASK

    def next_bits(self, bits: int) -> int:
        """``next(bits)``: the top ``bits`` of the new state, as Java's signed int."""
        self.state = (self.state * _MULT + _ADD) & _MASK
        r = self.state >> (48 - bits)
        return r - (1 << 32) if r >= 1 << 31 else r

    def next_int(self, bound: int) -> int:
        """``nextInt(bound)``: uniform in ``0..bound-1`` (Java's rejection loop)."""
        assert bound > 0
        r = self.next_bits(31)
        m = bound - 1
        if bound & m == 0:  # a power of two: the high bits
            return (bound * r) >> 31
        u = r
        while True:
            r = u % bound
            if u - r + m < 1 << 31:  # Java: no int overflow
                return r
            u = self.next_bits(31)

    def next_double(self) -> float:
        """``nextDouble()``: 53 random bits over 2**53, in [0, 1)."""
        hi = self.next_bits(26)
        lo = self.next_bits(27)
        return float((hi << 27) + lo) * 2.0**-53

    def doubles(self, n: int) -> npt.NDArray[np.float64]:
        """``n`` calls of :meth:`next_double`, in order, as one array (block jumps)."""
        out = np.empty(n, dtype=np.float64)
        block = 1 << 16
        steps = min(2 * n, 2 * block)
        mult, add = _jumps(steps)
        done = 0
        mask = np.uint64(_MASK)
        while done < n:
            k = min(block, n - done)
            s0 = np.uint64(self.state)
            states = (mult[: 2 * k] * s0 + add[: 2 * k]) & mask  # wraps mod 2**64
            hi = (states[0::2] >> np.uint64(22)).astype(np.int64)  # next(26)
            lo = (states[1::2] >> np.uint64(21)).astype(np.int64)  # next(27)
            out[done : done + k] = ((hi << 27) + lo).astype(np.float64) * 2.0**-53
            self.state = int(states[2 * k - 1])
            done += k
        return out


_JUMPS: dict[int, tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]] = {}


def _jumps(steps: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """``(A_k, C_k)`` for k = 1..steps: ``state_k = A_k * state_0 + C_k`` (mod 2**48)."""
    have = _JUMPS.get(steps)
    if have is not None:
        return have
    mult = np.empty(steps, dtype=np.uint64)
    add = np.empty(steps, dtype=np.uint64)
    a, c = 1, 0
    for k in range(steps):
        a, c = (a * _MULT) & _MASK, (c * _MULT + _ADD) & _MASK
        mult[k], add[k] = a, c
    _JUMPS[steps] = (mult, add)
    return mult, add


def randomize(rows: list[int], rnd: JavaRandom) -> list[int]:
    """``Instances.randomize(random)`` of ``rows``: Java's backwards Fisher-Yates, in place."""
    for j in range(len(rows) - 1, 0, -1):
        k = rnd.next_int(j + 1)
        rows[j], rows[k] = rows[k], rows[j]
    return rows


def stratified_order(
    y: npt.NDArray[np.integer], folds: int, rows: list[int] | None = None
) -> list[int]:
    """``rows`` (default ``0..n-1``) after ``Instances.stratify(folds)``, classes ``y[row]``.

    Stratify first groups the rows by class (its own swap sort, reproduced
    as written: the order within a class matters), then deals them out in
    ``folds`` interleaved strides (``stratStep``).
    """
    order = list(range(len(y))) if rows is None else list(rows)
    n = len(order)
    index = 1
    while index < n:
        first = y[order[index - 1]]
        for j in range(index, n):
            if y[order[j]] == first:
                order[index], order[j] = order[j], order[index]
                index += 1
        index += 1
    out: list[int] = []
    start = 0
    while len(out) < n:
        out.extend(order[start::folds])
        start += 1
    return out


def fold_bounds(n: int, folds: int, fold: int) -> tuple[int, int]:
    """``testCV(folds, fold)``'s slice ``[first, first + size)`` of ``n`` ordered rows."""
    per, extra = divmod(n, folds)
    size = per + 1 if fold < extra else per
    first = fold * per + (fold if fold < extra else extra)
    return first, first + size


def cv_folds(y: npt.NDArray[np.integer], folds: int, seed: int) -> list[tuple[IntArray, IntArray]]:
    """Weka's ``Evaluation.crossValidateModel(..., folds, new Random(seed))``: per fold,
    the training rows in the order the fold's classifier sees them and the test rows.

    The data is randomized, stratified, then each fold's training set (``trainCV``) is
    randomized again by the same generator, fold after fold.
    """
    rnd = JavaRandom(seed)
    order = stratified_order(y, folds, randomize(list(range(len(y))), rnd))
    out = []
    for fold in range(folds):
        lo, hi = fold_bounds(len(order), folds, fold)
        train = randomize(order[:lo] + order[hi:], rnd)
        out.append((np.asarray(train, dtype=np.intp), np.asarray(order[lo:hi], dtype=np.intp)))
    return out


def resample_with_weights(weights: npt.NDArray[np.float64], rnd: JavaRandom) -> IntArray:
    """``Instances.resampleWithWeights(random, weights)``: ``n`` rows drawn with
    replacement, in draw order, by Walker's alias method as Weka sets it up
    (Ripley 1987, p. 232).

    ``P`` is the weights over their sum; row ``i`` is "small" when ``n * P[i] < 1``.
    Each draw takes ``U = n * nextDouble()`` and keeps row ``int(U)`` when ``U`` is
    below that row's ``Q + i``, else its alias.
    """
    w = np.asarray(weights, dtype=np.float64)
    m = int(w.size)
    if m == 0:
        return np.zeros(0, dtype=np.intp)
    total = float(np.cumsum(w)[-1])  # Utils.normalize: a sum in order, then divide
    p = w / total
    q = float(m) * p
    alias = np.zeros(m, dtype=np.intp)
    small = q < 1.0
    # W: the small rows from the front in row order, the large ones from the back
    # (so in reverse row order from index NP on).
    w_list = np.concatenate((np.flatnonzero(small), np.flatnonzero(~small)[::-1]))
    nn = int(small.sum()) - 1
    np_ = nn + 1
    if nn > -1 and np_ < m:
        ql = q.tolist()
        wl = w_list.tolist()
        al = alias.tolist()
        for s in range(m - 1):
            i = wl[s]
            j = wl[np_]
            al[i] = j
            ql[j] += ql[i] - 1.0
            if ql[j] < 1.0:
                np_ += 1
            if np_ >= m:
                break
        q = np.asarray(ql, dtype=np.float64)
        alias = np.asarray(al, dtype=np.intp)
    q = q + np.arange(m, dtype=np.float64)
    u = float(m) * rnd.doubles(m)
    i_idx = u.astype(np.intp)  # (int) U: truncation, U >= 0
    return np.where(u < q[i_idx], i_idx, alias[i_idx]).astype(np.intp)
