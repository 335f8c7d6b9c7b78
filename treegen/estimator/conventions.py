"""scikit-learn's conventions for a classifier's inputs and errors, without scikit-learn.

What scikit-learn's own estimators and its ``check_estimator`` expect of
:class:`~treegen.estimator.classifier.C45Classifier`: its exception and warning classes
when scikit-learn is loaded (:func:`sklearn_class`), the not-fitted error, ``y`` checked
and worded as scikit-learn words it (:func:`labels_of`), ``sample_weight`` as C4.5's
case weights (:func:`as_counts`) and ``X``'s column names against the fitted ones
(:func:`check_feature_names`).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.data import frame as table
from treegen.errors import EstimatorError, NotFittedError, users_stacklevel


def sklearn_class(
    module: str,
    name: str,
    fallback: type[Exception | Warning],
) -> Any:
    """scikit-learn's exception or warning class when scikit-learn is loaded, else ours.

    scikit-learn's checks test for its own classes (``NotFittedError``,
    ``DataConversionWarning``).  Looking in ``sys.modules`` never imports it:
    if nothing loaded scikit-learn, nobody catches its classes.
    """
    mod = sys.modules.get(module)
    return getattr(mod, name, fallback) if mod is not None else fallback


class _DataConversionWarning(UserWarning):
    """A column vector ``y`` was flattened (scikit-learn's ``DataConversionWarning``)."""


def not_fitted(estimator: object) -> Exception:
    """The error a method of an unfitted ``estimator`` raises, in scikit-learn's words
    and, when scikit-learn is loaded, of its class too."""
    message = (
        f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' "
        "with appropriate arguments before using this estimator."
    )
    theirs = sklearn_class("sklearn.exceptions", "NotFittedError", NotFittedError)
    if theirs is NotFittedError:
        return NotFittedError(message)
    # Both: treegen's hierarchy for treegen's callers, scikit-learn's for its own.
    both = type("NotFittedError", (NotFittedError, theirs), {})
    return both(message)  # type: ignore[no-any-return]


def labels_of(y: object, n_rows: int) -> npt.NDArray[np.generic]:
    """``y`` as one label per row of ``X``'s ``n_rows``: a column vector flattened with
    scikit-learn's warning; any other shape, a missing, complex or continuous label an
    error worded as scikit-learn words it."""
    if y is None:
        raise EstimatorError(
            "C45Classifier requires y to be passed, but the target y is None", option="y"
        )
    try:
        labels = np.asarray(y)
    except ValueError as exc:  # ragged: labels of different lengths, numpy's "inhomogeneous"
        raise EstimatorError(f"y should be a 1d array: {exc}", option="y") from None
    if labels.ndim == 2 and labels.shape[1] == 1:
        warnings.warn(
            sklearn_class("sklearn.exceptions", "DataConversionWarning", _DataConversionWarning)(
                "A column-vector y was passed when a 1d array was expected. Please change the "
                "shape of y to (n_samples, ), for example using ravel()."
            ),
            stacklevel=users_stacklevel(),
        )
        labels = labels.ravel()
    if labels.ndim != 1:
        raise EstimatorError(
            f"y should be a 1d array, got an array of shape {labels.shape} instead.", option="y"
        )
    if labels.shape[0] != n_rows:
        raise EstimatorError(
            "Found input variables with inconsistent numbers of samples: "
            f"[{n_rows}, {labels.shape[0]}]",
            option="y",
        )
    if labels.dtype.kind == "c":
        raise EstimatorError("Complex data not supported", option="y")
    if labels.dtype.kind == "f":
        if np.any(~np.isfinite(labels)):
            raise EstimatorError("Input y contains NaN or infinity.", option="y")
        if np.any(labels != np.floor(labels)):
            # A classifier's classes are a finite set; scikit-learn says so this way.
            raise EstimatorError(
                "Unknown label type: continuous. Maybe you are trying to fit "
                "a classifier, which expects discrete classes on a regression "
                "target with continuous values.",
                option="y",
            )
    if labels.dtype.kind == "O" and any(table.is_missing(v) for v in labels):
        raise EstimatorError("Input y contains a missing value.", option="y")
    return labels


# How near 1 the sum of sample_weight is for the weights to be proportions (as_counts):
# far above the rounding of scikit-learn's normalised sums, far below the gap to the
# next sum whole-number weights have (0 or 2).
_PROPORTIONS = 1e-6


def as_counts(sample_weight: Any, n_rows: int) -> Any:
    """``sample_weight`` as C4.5's case weights, which are counts (a branch needs
    ``min_cases`` of weight): weights that sum to 1 are proportions of the rows
    (scikit-learn's AdaBoostClassifier normalises its weights so, and on a total of 1
    every tree would be a leaf), scaled to sum to the number of rows, as Weka's
    AdaBoostM1 keeps J48's weights; any other weights are counts as given (a
    whole-number weight is that many copies of the row, as scikit-learn's checks hold
    an estimator's weights to be).  Weights that are not ``n_rows`` finite, non-negative
    numbers are left for :func:`treegen.train`'s errors."""
    if sample_weight is None:
        return None
    try:
        w = table.float64_of(sample_weight)
    except (TypeError, ValueError):
        return sample_weight
    if w.shape != (n_rows,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        return sample_weight
    with np.errstate(over="ignore"):  # past a double's range, inf: counts, as given
        total = float(np.sum(w))
    if abs(total - 1.0) > _PROPORTIONS:
        return sample_weight
    return w * (n_rows / total)


def check_feature_names(estimator: Any, X: Any) -> None:
    """``X``'s column names against those ``estimator`` was fitted with, as
    scikit-learn checks them: a warning when one side has names and the other none, an
    error when they differ."""
    names = table.feature_names(X)
    fitted = getattr(estimator, "feature_names_in_", None)
    who = type(estimator).__name__
    if names is None and fitted is None:
        return
    if fitted is None:
        warnings.warn(
            f"X has feature names, but {who} was fitted without feature names",
            UserWarning,
            stacklevel=users_stacklevel(),
        )
        return
    if names is None:
        warnings.warn(
            f"X does not have valid feature names, but {who} was fitted with feature names",
            UserWarning,
            stacklevel=users_stacklevel(),
        )
        return
    if list(fitted) != names:
        unseen = [n for n in names if n not in set(fitted)]
        missing = [n for n in fitted if n not in set(names)]
        detail = "".join(
            [
                "Feature names unseen at fit time:\n" + "".join(f"- {n}\n" for n in unseen)
                if unseen
                else "",
                "Feature names seen at fit time, yet now missing:\n"
                + "".join(f"- {n}\n" for n in missing)
                if missing
                else "",
                "Feature names must be in the same order as they were in fit.\n"
                if not unseen and not missing
                else "",
            ]
        )
        raise EstimatorError(
            "The feature names should match those that were passed during fit.\n" + detail,
            option="X",
        )
