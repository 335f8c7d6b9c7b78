"""The committee's vote in integers: the one arithmetic Python and the exported C share.

Boosting: member ``i`` adds ``votes[i]`` to the class it predicts; ``votes[i]`` is
its double vote weight ``beta_i`` on the scale ``2**shift``, rounded to the nearest
integer (:func:`integer_votes`), the scale the largest that keeps the sum of all votes
within ``2**31 - 1`` (so every class sum fits a 32-bit integer on any target).
Bagging: every member adds its class distribution as its C computes it,
``predict_proba`` in units of 1/32768 (:mod:`treegen.model.fixedpoint`), weight 1.
The class is the first with the largest sum.  A member's class is the tree's own
(:func:`treegen.model.classify.predict`, what its exported C returns).

How close this is to a double vote (Weka's, or the betas summed in double): each
``votes[i] / 2**shift`` is within ``2**-(shift + 1)`` of ``beta_i``, so two classes'
integer sums can order differently from their double sums only when the double sums
are within ``n_members * 2**-(shift + 1)`` of each other (:func:`tie_margin`); for ten
members that is below 1e-7.  A bagged vote adds fifteen-bit probabilities, each at
most 1/32768 below the double one on a row without missing values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from treegen.committee.core import Committee
from treegen.model.classify import predict as tree_predict
from treegen.model.fixedpoint import (
    DOUBLE,
    ONE,
    FixedPointClassifier,
    ValueDomain,
)

VOTE_LIMIT = (1 << 31) - 1
"""The largest a sum of votes may be: a class sum fits ``int32_t`` and ``uint32_t``."""
MAX_SHIFT = 30

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]


def integer_votes(betas: Sequence[float]) -> tuple[tuple[int, ...], int]:
    """``(votes, shift)``: each beta times ``2**shift`` rounded to the nearest integer
    (halves up; exact, a power of two scales a double exactly), ``shift`` the largest
    in 0..30 whose votes sum to at most :data:`VOTE_LIMIT`; at least 1 each."""
    for shift in range(MAX_SHIFT, -1, -1):
        votes = tuple(max(1, math.floor(math.ldexp(b, shift) + 0.5)) for b in betas)
        if sum(votes) <= VOTE_LIMIT:
            return votes, shift
    raise ValueError("vote weights too large for 32-bit sums")


def tie_margin(committee: Committee) -> float:
    """How far apart two classes' double vote sums can be and still be ordered the
    other way by the integer vote (boosting; module docstring)."""
    return committee.n_members * math.ldexp(1.0, -(committee.shift + 1))


def member_classifier(committee: Committee, i: int, enc: ValueDomain) -> FixedPointClassifier:
    """Tree ``i``'s fixed-point classifier for values of ``enc``, as the committee's C
    runs it (a j48 tree's empty leaves answer as J48's: :mod:`treegen.model.j48rule`)."""
    return FixedPointClassifier(committee.members[i], enc)


def member_outputs(committee: Committee, X: npt.ArrayLike) -> list[npt.NDArray[np.generic]]:
    """Per member, what it adds to the vote for every row of ``X`` (model values, NaN
    missing): its class (boosting) or its fixed-point distribution (bagging)."""
    x = np.asarray(X, dtype=np.float64)
    if committee.method == "boost":
        return [tree_predict(m, x) for m in committee.members]
    return [
        member_classifier(committee, i, DOUBLE).predict(x)[1] for i in range(committee.n_members)
    ]


def tally(
    committee: Committee, outputs: Sequence[npt.NDArray[np.generic]]
) -> npt.NDArray[np.int64]:
    """The class sums (rows x classes, integers) from the members' outputs."""
    n_classes = len(committee.schema.classes)
    n = outputs[0].shape[0] if outputs else 0
    sums = np.zeros((n, n_classes), dtype=np.int64)
    rows = np.arange(n)
    for out, vote in zip(outputs, committee.votes, strict=True):
        if committee.method == "boost":
            np.add.at(sums, (rows, np.asarray(out, dtype=np.intp)), vote)
        else:
            sums += np.asarray(out, dtype=np.int64)
    return sums


def decide(sums: npt.NDArray[np.int64]) -> IntArray:
    """The first class with the largest sum."""
    best: IntArray = np.argmax(sums, axis=1).astype(np.intp)
    return best


def predict(committee: Committee, X: npt.ArrayLike) -> IntArray:
    """The committee's class for every row of ``X`` (float64, NaN missing)."""
    return decide(tally(committee, member_outputs(committee, X)))


def predict_proba(committee: Committee, X: npt.ArrayLike) -> FloatArray:
    """The vote as shares of its whole: class sums over the sum of every member's vote
    (boosting) or over ``members x 32768`` (bagging)."""
    sums = tally(committee, member_outputs(committee, X))
    whole = sum(committee.votes) if committee.method == "boost" else committee.n_members * ONE
    out: FloatArray = sums.astype(np.float64) / float(whole)
    return out
