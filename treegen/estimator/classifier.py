"""``C45Classifier``: treegen's trainer as a scikit-learn classifier.

``fit`` calls :func:`treegen.api.train` on ``(X, y)``, so the fitted tree is the
one ``treegen.train((X, y), ...)`` (and the CLI on the same data) gives; the
estimator only adds scikit-learn's conventions around it.  Those are written
out here rather than inherited from ``sklearn.base.BaseEstimator`` so that
treegen never needs scikit-learn: ``get_params`` reads the ``__init__``
signature, ``set_params`` checks names, ``score`` is the accuracy, and
``__sklearn_tags__`` (which only scikit-learn calls) builds scikit-learn's tags.
What scikit-learn expects of the inputs and the errors (``y``, ``sample_weight``, the
column names, its exception classes) is :mod:`treegen.estimator.conventions`.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen import api
from treegen.data import frame as table
from treegen.data.arrays import column_list
from treegen.data.npstate import numpy_defaults
from treegen.errors import EstimatorError, TreegenError
from treegen.estimator.conventions import as_counts, check_feature_names, labels_of, not_fitted
from treegen.model import classify
from treegen.model.optnames import keyword_errors, one_of
from treegen.trainer import Criterion, Engine, Flavor
from treegen.trainer.options import Pruning


def _class_column(names: Sequence[str] | None) -> str:
    """The model's class column: ``class``, or ``class_2``, ... when a feature has that
    name (a DataFrame may have a column "class"; the model file needs them distinct)."""
    taken = set(names or ())
    return next(
        c for c in ("class", *(f"class_{k}" for k in range(2, 2 + len(taken)))) if c not in taken
    )


class C45Classifier:
    """A C4.5 decision tree (Release 8's or Weka J48's), as a scikit-learn classifier.

    Parameters are :func:`treegen.train`'s training options (``prune`` True,
    False or ``"reduced-error"``; ``max_depth``, ``min_gain_ratio``;
    ``folds`` and ``seed`` for reduced-error pruning).  ``nominal``
    lists the columns (by index, or by name for a DataFrame) whose values are
    categories rather than numbers; pandas categorical columns are nominal
    anyway.  NaN (or None) is a missing value.  A nominal value not seen in
    ``fit`` is treated as missing by ``predict``.

    Fitted attributes: ``classes_``, ``n_features_in_``, ``feature_names_in_``
    (only when ``X`` had string column names), ``categories_`` (column index
    -> its values in code order) and ``model_`` (the :class:`treegen.Model`).
    """

    def __init__(
        self,
        cf: float = 0.25,
        min_cases: int = 2,
        criterion: Criterion = "gainratio",
        flavor: Flavor = "c45",
        subsets: bool = False,
        prune: bool | Pruning = True,
        nominal: Sequence[int | str] | None = None,
        engine: Engine = "level",
        max_depth: int | None = None,
        min_gain_ratio: float = 0.0,
        folds: int = 3,
        seed: int = 1,
    ) -> None:
        self.cf = cf
        self.min_cases = min_cases
        self.criterion = criterion
        self.flavor = flavor
        self.subsets = subsets
        self.prune = prune
        self.nominal = nominal
        self.engine = engine
        self.max_depth = max_depth
        self.min_gain_ratio = min_gain_ratio
        self.folds = folds
        self.seed = seed

    # -- scikit-learn's estimator protocol -------------------------------------------------

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p for p in sig.parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters and values (none is an estimator: ``deep`` is moot)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> C45Classifier:
        """Set parameters by name; they are checked by ``fit``, as scikit-learn's are."""
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise EstimatorError(
                    f"Invalid parameter {name!r} for estimator {self}. "
                    f"Valid parameters are: {sorted(valid)!r}."
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()
        }
        shown = [
            f"{k}={v!r}"
            for k, v in self.get_params().items()
            if not (
                v is defaults.get(k) or (type(v) is type(defaults.get(k)) and v == defaults.get(k))
            )
        ]
        return f"{type(self).__name__}({', '.join(shown)})"

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "model_")

    def __sklearn_tags__(self) -> Any:
        # Only scikit-learn calls this, so scikit-learn is importable here.
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(),
            input_tags=InputTags(allow_nan=True),
        )

    # scikit-learn before 1.6 reads these instead of __sklearn_tags__.
    _estimator_type = "classifier"

    def _more_tags(self) -> dict[str, Any]:
        return {"allow_nan": True, "requires_y": True}

    # -- fitting and predicting -------------------------------------------------------------

    def _nominal_columns(self, names: list[str] | None, n: int) -> set[int]:
        try:
            refs = [] if self.nominal is None else column_list(self.nominal, "nominal")
            return {table.column_index(ref, n, names) for ref in refs}
        except TreegenError as exc:  # scikit-learn's callers expect a ValueError
            raise EstimatorError(exc.message, option=exc.option) from None

    @keyword_errors
    @numpy_defaults
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> C45Classifier:
        """Train the tree on ``X`` (rows of features, NaN missing) and the labels ``y``;
        ``sample_weight`` (one per row, finite and not negative) starts each case at
        that weight instead of 1 (:func:`treegen.train`'s ``weights``); weights that
        sum to 1, as scikit-learn's AdaBoostClassifier passes them, are proportions:
        scaled to sum to the number of rows first
        (:func:`~treegen.estimator.conventions.as_counts`)."""
        names = table.feature_names(X)
        cols = table.columns(X)
        labels = labels_of(y, cols.n_rows)
        n = len(cols.columns)
        nominal = self._nominal_columns(names, n) | set(cols.categorical)
        categories = {
            j: table.categories_of(cols.columns[j], cols.categorical.get(j))
            for j in sorted(nominal)
        }
        x = self._matrix(cols, categories, names, fitting=True)
        try:
            model = api.train(
                (x, labels),
                feature_names=names,
                target=_class_column(names),
                nominal=sorted(nominal),
                categories={j: [table.value_name(v) for v in vs] for j, vs in categories.items()},
                min_cases=self.min_cases,
                prune=self.prune,
                subsets=self.subsets,
                criterion=self.criterion,
                flavor=self.flavor,
                engine=self.engine,
                max_depth=self.max_depth,
                min_gain_ratio=self.min_gain_ratio,
                weights=as_counts(sample_weight, cols.n_rows),
                **self._pruning_parameters(),
            )
        except EstimatorError:
            raise
        except TreegenError as exc:  # scikit-learn's callers expect a ValueError
            if exc.option == "weights":  # treegen.train's name for sample_weight
                exc.option = "sample_weight"
            raise EstimatorError(str(exc)) from exc
        self.model_ = model
        self.classes_ = np.unique(labels)
        self.n_features_in_ = n
        self.categories_ = categories
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def _pruning_parameters(self) -> dict[str, Any]:
        """``cf``, or ``folds`` and ``seed``: those the chosen pruning uses, none for the
        unpruned tree (train refuses the others; a grid over ``cf`` may include
        ``prune="reduced-error"`` or ``prune=False``)."""
        if one_of(self.prune, ("reduced-error",)):
            return {"folds": self.folds, "seed": self.seed}
        if isinstance(self.prune, bool | np.bool_) and not self.prune:
            return {}
        return {"cf": self.cf}

    @staticmethod
    def _matrix(
        cols: table.Columns,
        categories: dict[int, tuple[object, ...]],
        names: Sequence[str] | None,
        *,
        fitting: bool = False,
    ) -> npt.NDArray[np.float64]:
        """The rows as float64, nominal columns as codes; a column that should hold
        numbers and does not is an error naming it as ``X`` does (its name, else its
        index), and in ``fit`` saying how to make it nominal."""
        x = np.empty((cols.n_rows, len(cols.columns)), dtype=np.float64)
        for j, col in enumerate(cols.columns):
            if j in categories:
                x[:, j] = table.codes(col, categories[j])
                continue
            ref: str | int = names[j] if names is not None else j
            try:
                x[:, j] = table.continuous(col, repr(ref))
            except EstimatorError as exc:
                # A text column is nominal only when named (treegen.train takes one as
                # labels by itself); objects that are no values (a dict, a TypeError)
                # are no labels either.
                if not fitting or isinstance(exc, TypeError):
                    raise
                raise EstimatorError(
                    f"{exc.message}; a column of labels is nominal: nominal=[{ref!r}]",
                    option="X",
                ) from None
        return x

    def _x(self, X: Any) -> npt.NDArray[np.float64]:
        if not self.__sklearn_is_fitted__():
            raise not_fitted(self)
        check_feature_names(self, X)
        cols = table.columns(X)
        if len(cols.columns) != self.n_features_in_:
            raise EstimatorError(
                f"X has {len(cols.columns)} features, but "
                f"{type(self).__name__} is expecting {self.n_features_in_} "
                "features as input.",
                option="X",
            )
        return self._matrix(cols, self.categories_, table.feature_names(X))

    @keyword_errors
    @numpy_defaults
    def predict(self, X: Any) -> npt.NDArray[np.generic]:
        """The predicted class of every row (C4.5's classifier: the most probable class)."""
        x = self._x(X)
        out: npt.NDArray[np.generic] = self.classes_[classify.predict(self.model_.value, x)]
        return out

    @keyword_errors
    @numpy_defaults
    def predict_proba(self, X: Any) -> npt.NDArray[np.float64]:
        """Class probabilities per row, columns in the order of ``classes_``."""
        x = self._x(X)
        return classify.predict_proba(self.model_.value, x)

    @keyword_errors
    @numpy_defaults
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy on ``(X, y)``, weighted by ``sample_weight`` if given."""
        predicted = self.predict(X)
        labels = np.asarray(y)
        if labels.ndim == 2 and labels.shape[1] == 1:
            labels = labels.ravel()  # a column: accepted without fit's warning, as accuracy_score
        right = predicted == labels_of(labels, predicted.shape[0])
        return float(np.average(right, weights=sample_weight))

    # -- treegen's side ---------------------------------------------------------------------

    def to_model(self) -> api.Model:
        """The fitted tree as a :class:`treegen.Model` (save, show, export, verify)."""
        if not self.__sklearn_is_fitted__():
            raise not_fitted(self)
        return self.model_

    @keyword_errors
    @numpy_defaults
    def export_c(self, out_dir: str | os.PathLike[str], **options: Any) -> list[Path]:
        """``predict.c``/``predict.h`` for the fitted tree: :meth:`treegen.Model.export_c`."""
        return self.to_model().export_c(out_dir, **options)
