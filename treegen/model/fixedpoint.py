"""Fixed-point C4.5 classification: the semantics the generated C implements, in Python.

C4.5 classifies a case with unknown values by visiting every branch of a test on an
unknown attribute, weighting branch b by ``items_b / items_parent``, and summing
``weight * dist / items`` over the leaves reached (docs/C45.md section 6).  The C
does this in integers so that it is exact on every target:

* Probabilities are Q15: ``ONE = 2**15`` stands for 1.0.  A leaf with ``items > 0``
  has ``p_c = floor(ONE * dist_c / N)``, N its item count ``items``, or the sum of
  its class counts where training's rounding left that the larger (so a leaf's
  probabilities never sum above ``ONE``); an empty leaf has ``ONE`` for its class.
  A row that meets no missing value gets the reached leaf's ``p``.
* Case weights and branch shares are Q31 (``W_ONE = 2**31`` stands for 1.0), so the
  sums of a row that meets missing values stay within two units of 1/32768 of the
  float ones however many leaves it reaches.  A branch share is ``floor(W_ONE *
  items_b / D)`` with ``D = max(items_parent, sum of children's items)`` (C4.5's
  divisor whenever the tree is consistent; the shares of one test then sum to at
  most ``W_ONE``); the root weight is ``W_ONE`` and a weight passing a test on a
  missing value becomes ``(w * share_b) >> 31``.  A leaf reached with weight w adds
  ``(w * p_c) >> 15`` to class c's Q31 sum, and the probabilities are the sums
  rounded down once, ``sum_c >> 16``.  Every step rounds down, so the sums never
  exceed ``W_ONE`` and the probabilities never sum above ``ONE`` (they fit
  ``uint16_t``: ``predict_proba``'s output, scale ``ONE`` = 1.0).
* If no missing value was met on the way, the predicted class is the reached leaf's
  class as Release 8's float classifier computes it (first maximum of
  ``dist_c / items``, or the leaf's class when empty): exact, not approximated.
  Otherwise it is the first class with the largest probability (the Q15 value
  ``predict_proba`` returns), so on a row with missing values the class and the
  probabilities always agree.

Which branch a *known* value v takes is the model's own test, as one exact boundary in
the C input's domain (:mod:`treegen.model.bounds`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Protocol

import numpy as np
import numpy.typing as npt

from treegen.model import bounds, j48rule
from treegen.model.core import ContinuousTest, Leaf, Model, Node
from treegen.model.dist import SparseDist

Q15_SHIFT = 15
"""Fraction bits of the probabilities (Q15)."""
ONE = 1 << Q15_SHIFT
"""Fixed-point 1.0 of the probabilities (Q15): ``PREFIX_PROBA_ONE`` in the C."""
W_SHIFT = 31
"""Fraction bits of the case weights, branch shares and class sums (Q31)."""
W_ONE = 1 << W_SHIFT
"""Fixed-point 1.0 of the case weights, branch shares and class sums (Q31)."""


class ValueDomain(Protocol):
    """What the fixed-point classifier needs to know of the values it is given: integers
    (each continuous one meaning x / scale, ``missing`` the sentinel) or floats (NaN
    missing).  treegen.codegen.ir.Encoding is one; :data:`DOUBLE` is the model's own."""

    @property
    def is_int(self) -> bool: ...

    @property
    def missing(self) -> int | None: ...

    @property
    def scales(self) -> tuple[Fraction, ...]: ...


@dataclass(frozen=True, slots=True)
class FloatDomain:
    """Values given as doubles, NaN for missing: how the model itself reads them."""

    is_int: bool = False
    missing: int | None = None
    scales: tuple[Fraction, ...] = ()


DOUBLE = FloatDomain()


def _dyadic(xs: Sequence[float]) -> tuple[int, int]:
    """Exact sum of non-negative floats as (numerator, denominator): floats are dyadic
    rationals, so one power-of-two denominator holds them all (and integers are fast,
    where Fraction is slow on 6,000-node trees)."""
    ratios = [max(x, 0.0).as_integer_ratio() for x in xs]
    den = max((d for _, d in ratios), default=1)
    return sum(n * (den // d) for n, d in ratios), den


def _floor_share(x: float, total: tuple[int, int], one: int = ONE) -> int:
    """floor(one * x / total) exactly, for x >= 0 and total > 0."""
    n, d = max(x, 0.0).as_integer_ratio()
    tn, td = total
    return (one * n * td) // (d * tn)


def _divisor(own: float, parts: Sequence[float]) -> tuple[int, int]:
    a, b = _dyadic([own]), _dyadic(parts)
    return a if a[0] * b[1] >= b[0] * a[1] else b


def branch_shares(parent_items: float, child_items: Sequence[float]) -> tuple[int, ...]:
    """Quantized shares of a test's branches, Q31 (sum <= W_ONE)."""
    den = _divisor(parent_items, child_items)
    if den[0] <= 0:
        # No training weight at all: C4.5 would divide by zero.  Split evenly.
        return tuple(W_ONE // len(child_items) for _ in child_items)
    return tuple(_floor_share(c, den, W_ONE) for c in child_items)


def leaf_class(node: Node) -> int:
    """Release 8's answer at a leaf reached with weight 1: the first class with the
    largest ``dist_c / items`` (computed in float64 like the Python classifier), or
    the node's class for an empty leaf."""
    if not node.items > 0:
        return node.cls
    dist = node.dist
    if isinstance(dist, SparseDist):
        # The classes left out weigh 0: unless every ratio is 0 (then class 0, as the
        # argmax over all of them), the first largest is a class present, and those
        # are in class order.
        present = np.asarray([w / node.items for w in dist.weights], dtype=np.float64)
        if present.size and present.max() > 0:
            return dist.at[int(np.argmax(present))]
        return 0
    ratios = [d / node.items for d in dist]
    return int(np.argmax(np.asarray(ratios, dtype=np.float64)))


def answer_class(model: Model, i: int, parents: dict[int, int]) -> int:
    """Leaf ``i``'s answer reached with weight 1 (``parents``: ``j48rule.empty_parents``):
    an empty j48 leaf's own class (J48's label for it, whatever weight it holds), else
    :func:`leaf_class`."""
    node = model.nodes[i]
    return node.cls if i in parents else leaf_class(node)


def leaf_proba(node: Node, n_classes: int) -> tuple[int, ...]:
    """Quantized class distribution of a leaf, Q15 (sum <= ONE): ``floor(ONE * dist_c /
    N)``, N = ``items``, or ``sum(dist)`` where rounding in training left that larger."""
    out = [0] * n_classes
    for c, p in zip(*leaf_proba_pairs(node), strict=True):
        out[c] = p
    return tuple(out)


def leaf_proba_pairs(node: Node) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:func:`leaf_proba` as the classes whose probability is not 0 and those
    probabilities, in class order (what the C classifier's table holds: with thousands
    of classes the dense tuples were 4,000 entries a leaf)."""
    if not node.items > 0:
        return (node.cls,), (ONE,)
    dist = node.dist
    if isinstance(dist, SparseDist):
        # A weight of 0 adds nothing to the divisor and has a share of 0.
        at, weights = dist.at, dist.weights
        den = _divisor(node.items, weights)
    else:
        den = _divisor(node.items, dist)
        at, weights = tuple(range(len(dist))), tuple(dist)
    pairs = [(c, _floor_share(w, den)) for c, w in zip(at, weights, strict=True)]
    kept = [(c, p) for c, p in pairs if p]
    return tuple(c for c, _ in kept), tuple(p for _, p in kept)


def scaled_weight(w: int, share: int) -> int:
    """A Q31 weight passing a branch with Q31 ``share``."""
    return (w * share) >> W_SHIFT


def leaf_weight(w: int, p: int) -> int:
    """What a leaf with Q15 probability ``p`` adds to a Q31 class sum at weight ``w``."""
    return (w * p) >> Q15_SHIFT


SUM_TO_PROBA = W_SHIFT - Q15_SHIFT
"""A Q31 class sum is rounded down once to a Q15 probability: ``sum >> SUM_TO_PROBA``."""


def known_value(x: float, enc: ValueDomain) -> bool:
    """False when ``x`` (a value of the C input type) means 'missing'."""
    if enc.is_int:
        return int(x) != enc.missing
    return not math.isnan(x)


def nominal_code(x: float, k: int, enc: ValueDomain) -> int:
    """Value code 0..k-1, or -1 (missing) for anything else: NaN, the missing
    sentinel, non-integers and codes out of range."""
    if not known_value(x, enc):
        return -1
    if not 0 <= x < k or x != math.floor(x):
        return -1
    return int(x)


class FixedPointClassifier:
    """Per-model precomputation for :meth:`predict_row` (thresholds as fractions)."""

    @cached_property
    def proba(self) -> list[tuple[int, ...]]:
        """Per node, a leaf's :func:`leaf_proba` (``()`` for a test); made on first use:
        the C classifier reads :func:`leaf_proba_pairs` instead."""
        model, parents = self.model, self.parents
        return [
            leaf_proba(j48rule.answering_node(model, i, parents), self.n_classes)
            if isinstance(n, Leaf)
            else ()
            for i, n in enumerate(model.nodes)
        ]

    def __init__(self, model: Model, enc: ValueDomain) -> None:
        self.model = model
        self.enc = enc
        self.n_classes = len(model.schema.classes)
        self.parents = parents = j48rule.empty_parents(model)
        self.shares = [
            branch_shares(n.items, j48rule.branch_items(model, i, parents)) if n.children else ()
            for i, n in enumerate(model.nodes)
        ]
        self.cls = [
            answer_class(model, i, parents) if isinstance(n, Leaf) else -1
            for i, n in enumerate(model.nodes)
        ]
        # Each finite continuous test as its boundary in the C input domain: an
        # integer cut (x <= cut) for integer types, (B, inclusive) for floats.
        narrow = model.compares_float32
        self.cut: list[int | None] = []
        self.fbound: list[tuple[float, bool] | None] = []
        cuts = j48rule.test_cuts(model)
        for i, n in enumerate(model.nodes):
            if isinstance(n, ContinuousTest) and math.isfinite(n.threshold):
                t = float(cuts[i])
                if enc.is_int:
                    k = enc.scales[n.attribute] if enc.scales else Fraction(1)
                    self.cut.append(bounds.bound_int(bounds.read_bound(t, narrow), k))
                    self.fbound.append(None)
                else:
                    self.cut.append(None)
                    self.fbound.append(bounds.bound_float(bounds.model_bound(t, narrow)))
            else:
                self.cut.append(None)
                self.fbound.append(None)

    def _goes_left(self, i: int, x: float) -> bool:
        node = self.model.nodes[i]
        assert isinstance(node, ContinuousTest)
        t = node.threshold
        if math.isinf(t):
            return t > 0
        if not self.enc.is_int:
            fb = self.fbound[i]
            assert fb is not None
            return x < fb[0] or (fb[1] and x == fb[0])  # exact: x and B are doubles
        cut = self.cut[i]
        assert cut is not None
        return int(x) <= cut

    def _branch(self, i: int, x: float) -> int:
        """Branch for a known value, or -1 when the value is missing at node i."""
        node = self.model.nodes[i]
        assert not isinstance(node, Leaf)
        if isinstance(node, ContinuousTest):
            if not known_value(x, self.enc):
                return -1
            return 0 if self._goes_left(i, x) else 1
        k = len(self.model.schema.attributes[node.attribute].values)
        code = nominal_code(x, k, self.enc)
        if code < 0:
            return -1
        return node.value_branches(k)[code]

    def predict_row(self, x: Sequence[float]) -> tuple[int, tuple[int, ...]]:
        """Class and fixed-point (Q15) probabilities for one row of C input values."""
        acc = [0] * self.n_classes
        met_missing = False
        reached = 0
        stack: list[tuple[int, int]] = [(0, W_ONE)]
        while stack:
            i, w = stack.pop()
            node = self.model.nodes[i]
            if isinstance(node, Leaf):
                reached = i
                for c, p in enumerate(self.proba[i]):
                    acc[c] += leaf_weight(w, p)
                continue
            b = self._branch(i, x[node.attribute])
            if b >= 0:
                stack.append((node.children[b], w))
                continue
            met_missing = True
            for child, share in zip(node.children, self.shares[i], strict=True):
                stack.append((child, scaled_weight(w, share)))
        assert max(acc) <= W_ONE
        proba = tuple(a >> SUM_TO_PROBA for a in acc)
        if not met_missing:
            return self.cls[reached], proba
        return int(np.argmax(np.asarray(proba))), proba

    def _branches(self, i: int, col: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
        """Vectorized :meth:`_branch` over one column (values as float64)."""
        node = self.model.nodes[i]
        assert not isinstance(node, Leaf)
        miss = np.isnan(col) if not self.enc.is_int else col == self.enc.missing
        if isinstance(node, ContinuousTest):
            cut, fb = self.cut[i], self.fbound[i]
            if math.isinf(node.threshold):
                left = np.full(col.shape, node.threshold > 0)
            elif cut is not None:
                left = col <= cut
            else:
                assert fb is not None
                with np.errstate(invalid="ignore"):
                    left = (col < fb[0]) | ((col == fb[0]) if fb[1] else False)
            return np.where(miss, -1, np.where(left, 0, 1))
        k = len(self.model.schema.attributes[node.attribute].values)
        with np.errstate(invalid="ignore"):
            ok = ~miss & (col >= 0) & (col < k) & (col == np.floor(col))
        code = np.where(ok, np.nan_to_num(col), k).astype(np.int64)
        table = np.asarray(node.value_branches(k) + (-1,), dtype=np.int64)  # k: not a code
        return table[code]

    def predict(self, X: npt.ArrayLike) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint16]]:
        """:meth:`predict_row` for every row, vectorized over groups of rows per node."""
        rows = np.asarray(X)
        n = rows.shape[0]
        # Exact for every supported input type.  A signalling NaN becomes a quiet NaN
        # (still missing); the 'invalid' flag that conversion raises is expected.
        with np.errstate(invalid="ignore"):
            vals = rows.astype(np.float64)
        acc = np.zeros((n, self.n_classes), dtype=np.uint64)
        met = np.zeros(n, dtype=bool)
        known_cls = np.zeros(n, dtype=np.int32)
        stack = [(0, np.arange(n), np.full(n, W_ONE, dtype=np.uint64))]
        while stack:
            i, idx, w = stack.pop()
            node = self.model.nodes[i]
            if isinstance(node, Leaf):
                p = np.asarray(self.proba[i], dtype=np.uint64)
                np.add.at(acc, idx, (w[:, None] * p[None, :]) >> np.uint64(Q15_SHIFT))
                known_cls[idx] = self.cls[i]
                continue
            b = self._branches(i, vals[idx, node.attribute])
            miss = b < 0
            met[idx[miss]] = True
            for j, (child, share) in enumerate(zip(node.children, self.shares[i], strict=True)):
                take = (b == j) | miss
                if take.any():
                    wj = np.where(miss, (w * np.uint64(share)) >> np.uint64(W_SHIFT), w)[take]
                    stack.append((child, idx[take], wj))
        proba = (acc >> np.uint64(SUM_TO_PROBA)).astype(np.uint16)
        cls = np.where(met, np.argmax(proba, axis=1), known_cls).astype(np.int32)
        return cls, proba
