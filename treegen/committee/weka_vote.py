"""The committee's vote in double, as Weka casts it: the yardstick for the integer vote.

Weka's ``AdaBoostM1.distributionForInstance`` adds ``beta_i`` to the class each tree's
``classifyInstance`` picks and turns the sums into probabilities (``logs2probs``: the
exponentials of the sums over their total); with one tree it is that tree's own
distribution.  ``Bagging`` adds the trees' distributions and normalises them.  Weka
predicts the first largest probability.  For the j48 flavour the trees answer as
J48 does (:mod:`treegen.committee.weka`); for c45 they answer as treegen's trees do,
in double (:func:`treegen.model.classify.predict_proba`).

:func:`disagreements` lists the rows of a data set on which the committee's integer
vote (:mod:`treegen.committee.vote`) picks another class than this double vote, with how
close the double vote's two largest probabilities are there: ``verify`` reports them,
and the docs say how close such rows must be (docs/committees.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.committee import vote, weka
from treegen.committee.core import Committee
from treegen.data.dataset import Dataset
from treegen.model.classify import predict as tree_predict
from treegen.model.classify import predict_proba as tree_proba

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

NEAR_TIE = 0.002
"""Two probabilities closer than this make a near tie (the yardstick of the committee tests)."""


def _member_distribution(c: Committee, i: int, x: FloatArray) -> FloatArray:
    m = c.members[i]
    return weka.distribution(m, x) if c.flavor == "j48" else tree_proba(m, x)


def _member_class(c: Committee, i: int, x: FloatArray) -> IntArray:
    m = c.members[i]
    return weka.classify(m, x) if c.flavor == "j48" else tree_predict(m, x)


def logs2probs(sums: FloatArray) -> FloatArray:
    """Weka's ``Utils.logs2probs`` per row: ``exp(s - max)`` over its total."""
    e = np.exp(sums - sums.max(axis=1, keepdims=True))
    total = np.cumsum(e, axis=1)[:, -1:]  # Java's loop: a sum in class order
    out: FloatArray = e / total
    return out


def distribution(c: Committee, X: npt.ArrayLike) -> FloatArray:
    """Weka's ``distributionForInstance`` of the committee for every row of ``X``."""
    x = np.asarray(X, dtype=np.float64)
    n_classes = len(c.schema.classes)
    if c.method == "boost":
        if c.n_members == 1:
            return _member_distribution(c, 0, x)
        sums = np.zeros((x.shape[0], n_classes))
        rows = np.arange(x.shape[0])
        for i in range(c.n_members):
            sums[rows, _member_class(c, i, x)] += c.betas[i]
        return logs2probs(sums)
    sums = np.zeros((x.shape[0], n_classes))
    for i in range(c.n_members):
        sums += _member_distribution(c, i, x)
    total = np.cumsum(sums, axis=1)[:, -1:]
    zero = np.abs(total[:, 0]) < weka.WEKA_TOL  # Utils.eq(sum, 0): left as it is
    out: FloatArray = np.where(zero[:, None], sums, sums / np.where(zero[:, None], 1.0, total))
    return out


@dataclass(frozen=True)
class Disagreements:
    """Rows where the integer vote and the double vote pick different classes, the double
    vote's gap between its two largest probabilities on each, and whether a member's two
    largest probabilities are that close there (its class, on the integer side, is the
    tree's fixed-point one: :func:`treegen.model.classify.predict`)."""

    rows: IntArray
    gaps: FloatArray
    member_near: npt.NDArray[np.bool_]
    n_rows: int

    @property
    def near(self) -> int:
        """How many of them are near ties (gap below :data:`NEAR_TIE`, of the committee's
        vote or of a member's)."""
        return int(np.count_nonzero((self.gaps < NEAR_TIE) | self.member_near))


def _top_gap(dist: FloatArray) -> FloatArray:
    if dist.shape[1] < 2:
        return np.full(dist.shape[0], np.inf)
    top = np.sort(dist, axis=1)
    out: FloatArray = top[:, -1] - top[:, -2]
    return out


def disagreements(
    c: Committee, ds: Dataset, theirs: npt.NDArray[np.integer] | None = None
) -> Disagreements:
    """The rows of ``ds`` the two votes decide differently (module docstring); ``theirs``:
    the double vote's classes when known (Weka's own), else computed here."""
    x = ds.X[ds.y >= 0] if theirs is not None else ds.X
    dist = distribution(c, x)
    if theirs is None:
        theirs = weka.evaluation_class(dist)
    ours = vote.predict(c, x)
    rows = np.flatnonzero(ours != theirs)
    near = np.zeros(rows.size, dtype=bool)
    if rows.size:
        for i in range(c.n_members):
            near |= _top_gap(_member_distribution(c, i, x[rows])) < NEAR_TIE
    return Disagreements(rows, _top_gap(dist[rows]), near, x.shape[0])


def disagreement_line(c: Committee, ds: Dataset) -> str:
    """``verify``'s line about ``ds``: how many rows the integer vote decides otherwise
    than the double vote, and how many of those are near ties."""
    d = disagreements(c, ds)
    who = "Weka's double vote (j48)" if c.flavor == "j48" else "the double vote"
    if d.rows.size == 0:
        return f"{ds.source}: integer vote vs {who}: the same class on all {d.n_rows} rows"
    return (
        f"{ds.source}: integer vote vs {who}: {d.rows.size} of {d.n_rows} rows differ, "
        f"{d.near} of them near ties (top two probabilities of the vote or of a tree "
        f"within {NEAR_TIE}); largest gap {float(d.gaps.max()):.3g}"
    )
