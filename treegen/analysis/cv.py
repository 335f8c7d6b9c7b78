"""Cross-validation: stratified k-fold (seeded) and leave-one-out.

Each fold trains a tree on the other folds with the same
:class:`~treegen.trainer.TrainOptions` and counts the misclassified rows of
the held-out fold.  The summary is the mean of the per-fold error rates and
its standard error (sample standard deviation of the fold rates over
sqrt(folds)), the figures C4.5's cross-validation scripts report; the pooled
count of misclassified rows is given too.

Fold assignment is deterministic for a given ``seed`` and independent of the
platform: rows are shuffled with numpy's PCG64 generator, stably grouped by
class, then dealt to folds round-robin.  Every fold therefore holds each
class's rows to within one, and fold sizes differ by at most one row.  With
``weka=True`` the folds are Weka's instead (``Evaluation.crossValidateModel``
with ``java.util.Random(seed)``), so a ``-x K`` run of Weka can be compared fold for
fold.  The model trained may be of any kind with a ``size`` (a tree, a committee).

On weighted rows (an ARFF file's instance weights) each fold trains on its rows'
weights and a held-out row counts by its weight, as Weka's cross-validation counts it:
a fold's errors are the weight of its misclassified rows and its error rate that over
its rows' weight; the pooled figures are sums of weights in fold order, then row order
(Weka's ``Evaluation`` over its folds), printed as Weka prints them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from treegen.analysis.evaluate import sequential_sum, weight_text
from treegen.data.dataset import Dataset
from treegen.data.weka_rows import cv_folds
from treegen.data.words import counted
from treegen.errors import TrainError, UsageError


class Sized(Protocol):
    """What cross-validation needs of a trained model: its size (a tree's nodes, a
    committee's nodes in all its trees)."""

    @property
    def size(self) -> int: ...


M = TypeVar("M", bound=Sized)
Fit = Callable[[Dataset], M]
Predict = Callable[[M, npt.NDArray[np.float64]], npt.NDArray[np.integer]]


@dataclass(frozen=True)
class FoldResult:
    """One fold: rows trained on and tested, tree size, test errors (on weighted rows:
    the misclassified rows' weight, and ``weight`` the test rows')."""

    fold: int
    n_train: int
    n_test: int
    size: int
    errors: float
    weight: float | None = None

    @property
    def error_rate(self) -> float:
        total = self.n_test if self.weight is None else self.weight
        return self.errors / total if total else 0.0


@dataclass(frozen=True)
class CVResult:
    """All folds plus the summary statistics; on weighted rows ``pooled`` holds the
    misclassified weight and the whole weight of the test rows, each added row by row
    in fold order (not the folds' sums added, which can round otherwise)."""

    folds: tuple[FoldResult, ...]
    method: str  # "10-fold stratified, seed 1" or "leave-one-out"
    pooled: tuple[float, float] | None = None

    @property
    def n_rows(self) -> int:
        return sum(f.n_test for f in self.folds)

    @property
    def errors(self) -> float:
        if self.pooled is not None:
            return self.pooled[0]
        return sum(f.errors for f in self.folds)

    @property
    def mean_error(self) -> float:
        """Mean of the per-fold error rates (a fraction)."""
        return sum(f.error_rate for f in self.folds) / len(self.folds)

    @property
    def standard_error(self) -> float:
        """Standard error of :attr:`mean_error`: sample SD of fold rates / sqrt(k)."""
        k = len(self.folds)
        if k < 2:
            return 0.0
        mean = self.mean_error
        var = sum((f.error_rate - mean) ** 2 for f in self.folds) / (k - 1)
        return math.sqrt(var / k)

    @property
    def mean_size(self) -> float:
        return sum(f.size for f in self.folds) / len(self.folds)


def check_folds(folds: int, n_rows: int, option: str = "--folds") -> None:
    """Reject a fold count below 2 or above the number of rows (UsageError)."""
    if folds < 2:
        raise UsageError(f"must be at least 2, got {folds}", option=option)
    if folds > n_rows:
        raise UsageError(
            f"{folds} folds but the data has only {counted(n_rows, 'row')}", option=option
        )


def stratified_folds(y: npt.NDArray[np.integer], folds: int, seed: int) -> npt.NDArray[np.intp]:
    """The fold number (0..folds-1) of every row, stratified by class ``y``."""
    n = int(y.shape[0])
    check_folds(folds, n)
    rng = np.random.default_rng(seed)
    shuffled = rng.permutation(n)
    # Stable sort by class keeps the shuffled order within each class; dealing
    # the concatenation round-robin spreads each class evenly over the folds.
    order = shuffled[np.argsort(y[shuffled], kind="stable")]
    assignment = np.empty(n, dtype=np.intp)
    assignment[order] = np.arange(n, dtype=np.intp) % folds
    return assignment


def leave_one_out_folds(n_rows: int) -> npt.NDArray[np.intp]:
    """Every row its own fold."""
    if n_rows < 2:
        raise UsageError(f"leave-one-out needs at least 2 rows, got {n_rows}", option="--loo")
    return np.arange(n_rows, dtype=np.intp)


def folds_of(
    assignment: npt.NDArray[np.intp],
) -> list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]]:
    """Per fold, its training rows (the others, in row order) and its test rows."""
    n_folds = int(assignment.max()) + 1
    return [
        (np.flatnonzero(assignment != fold), np.flatnonzero(assignment == fold))
        for fold in range(n_folds)
    ]


def run_folds(
    ds: Dataset,
    folds: list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]],
    fit: Fit[M],
    predict: Predict[M],
    method: str,
) -> CVResult:
    """Train on each fold's training rows (in the order given), test on its test rows."""
    results = []
    wrong_weights: list[npt.NDArray[np.float64]] = []  # per fold, each test row's or 0
    for fold, (train_rows, test_rows) in enumerate(folds):
        try:
            model = fit(ds.subset(train_rows))
        except TrainError as err:
            raise TrainError(
                f"fold {fold + 1}: {err.message}",
                file=err.file,
                line=err.line,
                col=err.col,
                option=err.option,
            ) from err
        test = ds.subset(test_rows)
        predicted = np.asarray(predict(model, test.X), dtype=np.intp)
        wrong = predicted != test.y
        if test.weights is None:
            errors = int(np.count_nonzero(wrong))
            results.append(
                FoldResult(fold + 1, len(train_rows), len(test_rows), model.size, errors)
            )
            continue
        wrong_weights.append(np.where(wrong, test.weights, 0.0))
        results.append(
            FoldResult(
                fold + 1,
                len(train_rows),
                len(test_rows),
                model.size,
                sequential_sum(test.weights[wrong]),
                sequential_sum(test.weights),
            )
        )
    if ds.weights is None:
        return CVResult(tuple(results), method)
    # Weka's m_Incorrect and m_WithClass: one running sum over every fold's test rows
    every = np.concatenate([ds.weights[test_rows] for _, test_rows in folds])
    # (a right row adds 0.0, which leaves a running sum as it was)
    pooled = (sequential_sum(np.concatenate(wrong_weights)), sequential_sum(every))
    return CVResult(tuple(results), method, pooled)


def cross_validate(
    ds: Dataset,
    fit: Fit[M],
    predict: Predict[M],
    *,
    folds: int | None = None,
    seed: int = 1,
    loo: bool = False,
    weka: bool = False,
) -> CVResult:
    """Stratified ``folds``-fold cross-validation with ``seed``, or leave-one-out; with
    ``weka``, Weka's folds for ``-x folds -s seed`` (:func:`treegen.data.weka_rows.cv_folds`,
    each fold's training rows in the order Weka trains on them)."""
    if loo:
        return run_folds(
            ds, folds_of(leave_one_out_folds(ds.n_rows)), fit, predict, "leave-one-out"
        )
    assert folds is not None, "cross_validate needs folds or loo"
    if weka:
        check_folds(folds, ds.n_rows)
        return run_folds(
            ds,
            cv_folds(ds.y, folds, seed),
            fit,
            predict,
            f"{folds}-fold stratified as Weka's -x {folds} -s {seed}",
        )
    assignment = stratified_folds(ds.y, folds, seed)
    return run_folds(
        ds, folds_of(assignment), fit, predict, f"{folds}-fold stratified, seed {seed}"
    )


def format_cv(result: CVResult, source: str, *, per_fold: bool = True) -> str:
    """The per-fold table (optional) and the summary lines."""
    lines = [f"Cross-validation of {source} ({counted(result.n_rows, 'row')}): {result.method}", ""]
    weighted = result.pooled is not None
    if per_fold:
        head = "     Weight   Size          Errors" if weighted else "   Size      Errors"
        lines.append("\tFold   Train   Test" + head)
        for f in result.folds:
            weight = f" {weight_text(f.weight):>10}" if f.weight is not None else ""
            lines.append(
                f"\t{f.fold:4d}  {f.n_train:6d} {f.n_test:6d}{weight}   {f.size:4d}  "
                f"{weight_text(f.errors):>{8 if weighted else 4}}({100.0 * f.error_rate:5.1f}%)"
            )
        lines.append("")
    lines.append(
        f"Mean error: {100.0 * result.mean_error:.1f}% "
        f"(standard error {100.0 * result.standard_error:.1f}%)"
    )
    if result.pooled is None:
        misclassified = f"{int(result.errors)} of {counted(result.n_rows, 'row')}"
    else:  # Weka's "Incorrectly Classified Instances" of its "Total Number of Instances"
        wrong, total = result.pooled
        percent = 100.0 * wrong / total if total else 0.0
        misclassified = (
            f"{weight_text(wrong)} ({percent:.1f}%) of weight {weight_text(total)} "
            f"in {counted(result.n_rows, 'row')}"
        )
    lines.append(f"Misclassified: {misclassified}; mean tree size {result.mean_size:.1f}")
    return "\n".join(lines) + "\n"
