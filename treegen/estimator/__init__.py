"""The scikit-learn estimator, :class:`C45Classifier`, built on :mod:`treegen.api`.

It follows scikit-learn's estimator conventions (``get_params``/``set_params``,
``fit`` returning ``self``, fitted attributes ending in ``_``, the tags) without
importing scikit-learn: scikit-learn is needed only by the code that uses it
(``Pipeline``, ``GridSearchCV``, ``check_estimator``), never by treegen.
``treegen.data.frame`` turns ``X`` (arrays, lists, pandas DataFrames) into treegen's
float matrix with nominal columns as codes; ``classifier.py`` is the estimator, with
scikit-learn's conventions for its inputs and errors in ``conventions.py``;
``sklearn_import.py`` turns a fitted scikit-learn decision tree into a treegen model,
``gbm_import.py`` an XGBoost or LightGBM model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from treegen.lazy import lazy_attributes

if TYPE_CHECKING:
    from treegen.estimator.classifier import C45Classifier
    from treegen.estimator.gbm_import import from_lightgbm, from_xgboost
    from treegen.estimator.sklearn_import import from_sklearn

__all__ = ["C45Classifier", "from_lightgbm", "from_sklearn", "from_xgboost"]

# Imported on first use (PEP 562): the CLI's import commands import one module of this
# package, which should not import the others (and the whole API with them).
_HOMES = {
    "C45Classifier": "treegen.estimator.classifier",
    "from_lightgbm": "treegen.estimator.gbm_import",
    "from_xgboost": "treegen.estimator.gbm_import",
    "from_sklearn": "treegen.estimator.sklearn_import",
}


__getattr__, __dir__ = lazy_attributes(__name__, _HOMES, globals())
