"""``treegen.from_sklearn``: a fitted scikit-learn tree or ensemble as a treegen model.

scikit-learn is never imported here: the estimator is read through its attributes by
:mod:`treegen.ensemble.sklearn`, which makes every supported estimator (a single
``DecisionTreeClassifier`` or ``ExtraTreeClassifier`` too, as an ensemble of one) a model
of the ensemble kind whose Python arithmetic and exported C predict exactly what
``estimator.predict`` predicts, on every float32 input and on NaN (which goes where each
node learnt to send it, ``missing_go_to_left``).  docs/ensembles.md states each
estimator's arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from treegen.api import Model
from treegen.ensemble.sklearn import SUPPORTED, ensemble_from_sklearn
from treegen.model.version import VERSION

__all__ = ["SUPPORTED", "from_sklearn"]


def from_sklearn(
    estimator: Any, feature_names: Sequence[str] | None = None, target: str = "class"
) -> Model:
    """The fitted ``estimator`` (one of :data:`SUPPORTED`) as a treegen model.
    ``feature_names`` names the columns (default: the estimator's ``feature_names_in_``,
    else x0, x1, ...); ``target`` names the class column (the one ``eval`` reads labels
    from)."""
    ens = ensemble_from_sklearn(estimator, feature_names, target)
    return Model.of(replace(ens, treegen_version=VERSION))
