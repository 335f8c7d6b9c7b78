"""An ensemble's prediction in numpy: the float64 arithmetic the C reproduces, step by step.

:func:`raw_scores` routes every row through every tree (one numpy pass per node, rows
grouped by node, as treegen.model.classify does for a tree) and adds each reached
leaf's value row to the running float64 sums in estimator order, exactly as
scikit-learn's ``predict`` adds them (module docstring of treegen.ensemble.core);
:func:`scores` divides by the ensemble's divisor; :func:`predict` decides the class.
These are the reference the exported C is held to, and equal ``estimator.predict``
(tests/ensemble/test_sklearn_parity.py) and XGBoost's and LightGBM's ``predict``
(tests/ensemble/test_gbm_parity.py).  An ensemble with ``sum="float32"`` (XGBoost) adds
in float32, one rounding per addition as the library's float accumulators.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from treegen.ensemble import libm
from treegen.ensemble.core import LEAF, ZERO_BAND, Ensemble, Tree
from treegen.errors import CellError, UsageError

FloatArray = npt.NDArray[np.float64]


def _as_compared(ens: Ensemble, X: npt.ArrayLike) -> FloatArray:
    """The rows as the trees compare them: float32 values (scikit-learn's trees cast X
    to float32; beyond float32's range a value is +-inf) held in float64, or float64."""
    x = np.asarray(X, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(ens.schema.attributes):
        raise ValueError(f"X must have shape (n, {len(ens.schema.attributes)}), got {x.shape}")
    if ens.compare == "float32":
        with np.errstate(over="ignore"):
            return x.astype(np.float32).astype(np.float64)
    return x


def refuse_unanswered(ens: Ensemble, X: npt.ArrayLike) -> None:
    """A :class:`CellError` naming the first cell the estimator's ``predict`` refuses:
    NaN (:attr:`Ensemble.refuses_nan`), or a value float32 cannot hold finite
    (:attr:`Ensemble.refuses_infinite`): a prediction for it would be one scikit-learn
    never makes.  verify holds the C's rows of such values to :func:`decide` on
    :func:`scores`, which do not refuse.  (A one-class AdaBoost's :func:`predict_proba`
    answers NaN rows without asking, as scikit-learn's does.)"""
    if not (ens.refuses_nan or ens.refuses_infinite):
        return
    x = np.asarray(X, dtype=np.float64)
    if x.ndim != 2:
        return
    bad = np.zeros(x.shape, dtype=bool)
    if ens.refuses_nan:
        bad |= np.isnan(x)
    if ens.refuses_infinite:
        with np.errstate(over="ignore"):
            bad |= np.isinf(x.astype(np.float32))  # as scikit-learn's check_array reads X
    if not bad.any():
        return
    row, col = (int(i[0]) for i in np.nonzero(bad))
    source = ens.estimator_name or "the estimator"
    value = x[row, col]
    if np.isnan(value):
        what, how = "a missing value (NaN)", "each node's missing-value side"
    else:
        what, how = f"{float(value)!r}, not finite in float32", "by its comparisons"
    raise CellError(
        f"feature {ens.schema.attributes[col].name!r}: {what}, which {source}'s predict "
        f"refuses (scikit-learn raises); the exported C answers it ({how})",
        row=row,
        attribute=col,
        option="X",  # predict's rows (a command names the file's line and column instead)
    )


def codes(
    ens: Ensemble, feature: int, col: FloatArray, k: int | None = None
) -> npt.NDArray[np.int64]:
    """A categorical feature's codes, -1 for NaN and for a value that is no code below
    ``k`` (default: the feature's code count).  scikit-learn: the index of the raw value
    equal to x, or x itself where it is a whole number (the input is the code).
    LightGBM: x truncated toward zero, for ``-1 < x`` (its ``static_cast<int>``, then
    ``< 0`` is no category).  XGBoost: x (a float32) truncated, for ``0 <= x``."""
    raw = ens.categories[feature] if ens.categories else ()
    if raw:
        table = np.asarray(raw, dtype=np.float64)
        pos = np.searchsorted(table, col)
        hit = (pos < len(table)) & (table[np.minimum(pos, len(table) - 1)] == col)
        return np.where(hit, pos, -1).astype(np.int64)
    if k is None:
        k = ens.code_counts()[feature]
    with np.errstate(invalid="ignore"):
        if ens.categorical_rule == "lightgbm":
            ok = (col > -1) & (col < k)
        elif ens.categorical_rule == "xgboost":
            ok = (col >= 0) & (col < k)
        else:
            ok = (col >= 0) & (col < k) & (col == np.floor(col))
    return np.where(ok, np.trunc(np.nan_to_num(col)), -1).astype(np.int64)


def leaves(
    ens: Ensemble, tree: Tree, x: FloatArray, counts: tuple[int, ...] | None = None
) -> npt.NDArray[np.intp]:
    """The leaf (node index) every row reaches in ``tree``; ``x`` as :func:`_as_compared`,
    ``counts`` the ensemble's :meth:`~Ensemble.code_counts`."""
    if counts is None:
        counts = ens.code_counts()
    n = x.shape[0]
    out = np.zeros(n, dtype=np.intp)
    at = {0: np.arange(n)}
    for i in range(tree.n_nodes):  # pre-order: a node's rows are known before it is visited
        rows = at.pop(i, None)
        if rows is None:
            continue
        if tree.feature[i] == LEAF:
            out[rows] = i
            continue
        col = x[rows, tree.feature[i]]
        nan = np.isnan(col)
        if tree.categorical[i]:
            code = codes(ens, tree.feature[i], col, counts[tree.feature[i]])
            go_left = np.isin(code, np.asarray(tree.left_codes[i], dtype=np.int64))
            # scikit-learn sends an unknown code the missing way; the others right.
            missing = code < 0 if ens.categorical_rule == "sklearn" else nan
            go_left = np.where(missing, tree.nan_left[i], go_left)
        else:
            if tree.zero(i):
                nan = nan | (np.abs(col) <= ZERO_BAND)
            with np.errstate(invalid="ignore"):
                go_left = np.where(nan, tree.nan_left[i], col <= tree.threshold[i])
        at[tree.left[i]] = rows[go_left]
        at[tree.right[i]] = rows[~go_left]
    return out


def raw_scores(ens: Ensemble, X: npt.ArrayLike) -> FloatArray:
    """The sums after the last tree, before any division (``n`` x outputs): float64, or
    float32 for ``sum="float32"`` (then held in float64, exactly)."""
    x = _as_compared(ens, X)
    counts = ens.code_counts()
    reached = [
        np.asarray(tree.value, dtype=np.intp)[leaves(ens, tree, x, counts)] for tree in ens.trees
    ]
    return _sums(ens, reached, x.shape[0])


def _sums(ens: Ensemble, reached: list[npt.NDArray[np.intp]], n: int) -> FloatArray:
    """The init row plus, tree after tree, the value row ``reached[t][i]`` of row i."""
    dtype = np.float32 if ens.sum == "float32" else np.float64
    acc = np.tile(np.asarray(ens.init, dtype=dtype), (n, 1))
    values = np.asarray(ens.values, dtype=dtype)
    # A sum that overflows is infinity in the estimator and in the C alike: IEEE's
    # result, not an error, so numpy is not to warn of it.
    with np.errstate(over="ignore"):
        for tree, rows_at in zip(ens.trees, reached, strict=True):
            rows = values[rows_at]
            if tree.output < 0:
                acc += rows  # one IEEE addition per element, in tree order
            else:
                acc[:, tree.output] += rows[:, 0]
    return acc.astype(np.float64)


def _divided(ens: Ensemble, acc: FloatArray) -> FloatArray:
    """``acc`` divided by the ensemble's divisor (none: ``acc`` itself)."""
    if ens.divisor is not None:
        with np.errstate(over="ignore"):
            if ens.sum == "float32":
                return (acc.astype(np.float32) / np.float32(ens.divisor)).astype(np.float64)
            acc /= ens.divisor
    return acc


def scores(ens: Ensemble, X: npt.ArrayLike) -> FloatArray:
    """:func:`raw_scores` divided by the divisor: a forest's ``predict_proba``, AdaBoost's
    per-class ``decision_function`` before its binary difference, boosting's raw scores."""
    return _divided(ens, raw_scores(ens, X))


def row_classes(ens: Ensemble) -> tuple[int, ...]:
    """A one-tree classifier's class for each of its value rows: what :func:`predict`
    decides for a row whose leaf adds that value row (the same sums, division and
    :func:`decide`), so the C can return it with no arithmetic of its own."""
    if len(ens.trees) != 1:
        raise ValueError(f"row_classes needs one tree, not {len(ens.trees)}")
    rows = np.arange(len(ens.values), dtype=np.intp)
    return tuple(int(c) for c in decide(ens, _divided(ens, _sums(ens, [rows], len(rows)))))


def values(ens: Ensemble, X: npt.ArrayLike) -> FloatArray | None:
    """A regressor's prediction (``n`` x outputs float64, the estimator's ``predict``
    bit for bit), None for a classifier; NaN and infinities refused where the
    estimator refuses them."""
    if not ens.regressor:
        return None
    refuse_unanswered(ens, X)
    return scores(ens, X)


def decide(ens: Ensemble, s: FloatArray) -> npt.NDArray[np.intp]:
    """The class index of every row from its :func:`scores` (a regressor has none)."""
    if ens.decision == "value":
        raise UsageError("a regressor predicts numbers, not classes", option="model")
    if ens.decision == "ge0":
        return (s[:, 0] >= 0).astype(np.intp)
    if ens.decision == "gt0":
        return (s[:, 0] > 0).astype(np.intp)
    if ens.decision == "gt":
        return (s[:, 0] > ens.cut).astype(np.intp)
    if ens.decision == "diff":
        return (-s[:, 0] + s[:, 1] > 0).astype(np.intp)
    if ens.decision == "bound":
        assert ens.anomaly is not None
        return (s[:, 0] >= ens.anomaly.boundary).astype(np.intp)
    best: npt.NDArray[np.intp] = np.argmax(s, axis=1).astype(np.intp)
    return best


def predict(ens: Ensemble, X: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """The class index of every row, as ``estimator.predict`` decides it (NaN and infinities
    refused where the estimator refuses them)."""
    refuse_unanswered(ens, X)
    return decide(ens, scores(ens, X))


def decision_values(ens: Ensemble, X: npt.ArrayLike) -> FloatArray:
    """What the class is decided on, per row: a forest's probabilities, boosting's raw
    scores (one column for two classes), AdaBoost's ``decision_function`` (its
    difference for two classes) -- the numbers ``export --proba`` returns."""
    s = scores(ens, X)
    if ens.decision == "diff":
        return (-s[:, 0] + s[:, 1])[:, None]
    return s


def predict_proba(ens: Ensemble, X: npt.ArrayLike) -> FloatArray:
    """Class probabilities: a forest's are its scores (scikit-learn's ``predict_proba``
    exactly); a scikit-learn boosted model's are its raw scores through the logistic
    function or the softmax, computed with numpy's ``exp`` (the class is decided on the
    raw scores, not on these); XGBoost's and LightGBM's are the library's own
    (:func:`_library_proba`)."""
    if ens.regressor or ens.decision == "bound":
        raise UsageError(
            f"{'a regressor' if ens.regressor else 'an IsolationForest'} has no class "
            "probabilities",
            option="model",
        )
    k = len(ens.schema.classes)
    if ens.method == "adaboost" and k == 1:
        # Fitted on one label, scikit-learn's predict_proba is a column of ones that reads
        # nothing of X, NaN rows too (its predict refuses them); no softmax of 0 / 0.
        return np.ones((_as_compared(ens, X).shape[0], 1))
    refuse_unanswered(ens, X)
    s = scores(ens, X)
    if ens.method == "forest":
        return s
    if ens.method == "adaboost":
        if ens.decision == "diff":
            d = (-s[:, 0] + s[:, 1])[:, None] / 2
            s = np.hstack([-d, d])
        else:
            s = s / (k - 1)
        # Its decision_function is Fortran-ordered (np.where of a transposed array).
        return _softmax(s, "F")
    if ens.method in ("xgboost", "lightgbm"):
        return _library_proba(ens, s)
    if s.shape[1] == 1:
        z = s[:, 0] * float(ens.options.get("sigmoid", 1.0))  # type: ignore[arg-type]
        # scipy's expit, 1 / (1 + exp(-x)) with the C library's exp: numpy's np.exp is
        # its own code on some processors (AVX-512), and may differ in the last bit.
        p1 = 1.0 / (1.0 + libm.c_library_exp(-z))
        return np.column_stack([1.0 - p1, p1])
    # HistGradientBoosting's _raw_predict makes its scores Fortran-ordered,
    # GradientBoosting's are C-ordered.
    return _softmax(s, "F" if ens.method == "hist" else "C")


_XGBOOST_NO_SIGMOID = ("XGBoost binary:logitraw", "XGBoost binary:hinge")
"""XGBoost objectives whose ``predict`` (without ``output_margin``) is no sigmoid: the
margin itself (logitraw) or 0/1 (hinge)."""


def _library_proba(ens: Ensemble, s: FloatArray) -> FloatArray:
    """XGBoost's or LightGBM's ``predict_proba`` of the margins ``s``, bit for bit: each
    library's sigmoid or softmax, step by step, with the C library's ``expf``/``exp``
    (:mod:`treegen.ensemble.libm`); ``multi:softmax``'s as ``XGBClassifier.predict_proba``
    computes it, scipy's softmax of the float32 margins (numpy's float32 ``exp``)."""
    if ens.estimator_name in _XGBOOST_NO_SIGMOID:
        return _xgboost_pair(ens, s[:, 0])
    if ens.method == "lightgbm":
        if s.shape[1] == 1:
            sigmoid = float(ens.options.get("sigmoid", 1.0))  # type: ignore[arg-type]
            p = libm.lightgbm_sigmoid(s[:, 0], sigmoid)
            return np.column_stack([1.0 - p, p])
        return libm.lightgbm_softmax(s)
    m = s.astype(np.float32)  # the float32 margins themselves (widened exactly)
    out: npt.NDArray[np.float32]
    if s.shape[1] == 1:
        p32 = libm.xgboost_sigmoid(m[:, 0])
        out = np.column_stack([np.float32(1.0) - p32, p32])
    elif ens.estimator_name == "XGBoost multi:softmax":
        e = np.exp(m - m.max(axis=1, keepdims=True))
        out = e / e.sum(axis=1, keepdims=True)
    else:
        out = libm.xgboost_softmax(m)
    return out.astype(np.float64)


def _xgboost_pair(ens: Ensemble, margin: FloatArray) -> FloatArray:
    """``XGBClassifier.predict_proba`` of a logitraw or hinge model, exactly: ``[1 - p,
    p]`` in float32 for ``p`` what its predict transforms the margin to (the margin
    itself; 1.0 where it is above 0, else 0.0).  A sigmoid of the margin here would not
    be the library's numbers, and for logitraw its largest column would not be the
    class (``predict`` compares the margin with 0.5)."""
    p = margin.astype(np.float32)
    if ens.estimator_name == "XGBoost binary:hinge":
        p = (p > 0).astype(np.float32)
    out: FloatArray = np.column_stack([np.float32(1.0) - p, p]).astype(np.float64)
    return out


def _softmax(s: FloatArray, order: Literal["C", "F"] = "C") -> FloatArray:
    """scikit-learn's ``softmax`` (sklearn.utils.extmath) of the rows of ``s`` laid out
    in ``order``, as the estimator's raw scores are: numpy sums a C-ordered row pairwise
    (from 8 classes on, 8 partial sums) and a Fortran-ordered one class after class,
    and the last bit of the sum, so of every probability, can differ."""
    x: FloatArray = np.array(s, dtype=np.float64, order=order)
    x -= x.max(axis=1).reshape(-1, 1)
    np.exp(x, out=x)
    x /= x.sum(axis=1).reshape(-1, 1)
    return x
