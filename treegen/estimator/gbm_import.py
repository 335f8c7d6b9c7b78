"""``treegen.from_xgboost`` and ``treegen.from_lightgbm``: their models as treegen models.

Neither library is imported.  A model is read from its own file
(:mod:`treegen.ensemble.xgboost`, :mod:`treegen.ensemble.lightgbm`): a path, the file's
bytes or text, or a fitted object whose own method writes that file (an XGBoost
``Booster`` or ``XGBClassifier``: ``save_raw("json")``; a LightGBM ``Booster`` or
``LGBMClassifier``: ``model_to_string()``).  A scikit-learn-style classifier also gives
its ``classes_`` as the class labels (a bare file names the classes 0 .. k-1, the
indices the libraries' ``predict`` returns).  docs/gbm.md states the arithmetic.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from treegen.api import Model
from treegen.api.common import path_of
from treegen.data.arrays import check_import_names, label_kind, label_names
from treegen.data.dataset import Schema
from treegen.data.npstate import numpy_defaults
from treegen.data.readers.text import read_model_bytes
from treegen.ensemble.core import Ensemble
from treegen.ensemble.lightgbm import lightgbm_from_text
from treegen.ensemble.xgboost import xgboost_from_bytes
from treegen.errors import ModelFileError, UsageError
from treegen.model.version import VERSION

__all__ = ["from_classes", "from_lightgbm", "from_xgboost"]


def _with_classes(ens: Ensemble, classes: Any) -> Ensemble:
    """``ens`` with the classifier's ``classes_`` as its labels (same count, distinct)."""
    if classes is None:
        return ens
    labels = np.asarray(classes)
    names = label_names(labels.tolist(), "model")
    if len(names) == 1 < len(ens.schema.classes):
        # LightGBM fits a one-class target as a binary model (its classes_ one label,
        # its score far below 0): say what happened, not that the counts differ.
        raise UsageError(
            f"the classifier was fitted on one class ({names[0]!r}); its model decides "
            f"between {len(ens.schema.classes)}: fit it on two or more",
            option="model",
        )
    if len(names) != len(ens.schema.classes) or len(set(names)) != len(names):
        raise UsageError(
            f"classes_ has {len(names)} labels for {len(ens.schema.classes)} classes",
            option="model",
        )
    schema = Schema(ens.schema.attributes, names, ens.schema.target)
    options = dict(ens.options)
    kind = label_kind(labels)
    if kind == "str":
        options.pop("labels", None)
    else:
        options["labels"] = kind
    return replace(ens, schema=schema, options=options)


def _check_missing(model: Any) -> None:
    """An XGBClassifier/XGBRegressor's ``missing`` must be NaN: its predict reads that
    value as missing (it is the wrapper's, not in the model), the exported C only NaN."""
    missing: Any = getattr(model, "missing", None)
    try:
        other = missing is not None and not np.isnan(float(missing))
    except (TypeError, ValueError):
        other = False
    if other:
        raise UsageError(
            f"the {type(model).__name__} was fitted with missing={float(missing)!r}, which "
            "its predict reads as missing and treegen's C does not (only NaN is missing): "
            "refit with the default missing=nan",
            option="model",
        )


def _fitted(model: Any, booster: str) -> Any:
    """The Booster of a scikit-learn-style wrapper (its method or property ``booster``),
    a usage error where it is not fitted (the libraries raise their own NotFittedError,
    LightGBM's an AttributeError); ``model`` itself where it has no such member."""
    if not hasattr(type(model), booster):
        return model
    try:
        member = getattr(model, booster)
        return member() if callable(member) else member
    except Exception:  # the library's own not-fitted error, whatever its class
        raise UsageError(f"the {type(model).__name__} is not fitted", option="model") from None


def _check_arguments(iterations: object, feature_names: object, target: object) -> None:
    """The importers' arguments, as the readers take them: ``iterations`` None or an
    integer (its range is the model's: the reader checks it), the names as every
    importer's (:func:`~treegen.data.arrays.check_import_names`); else a UsageError naming
    it, where a list's or an array's comparison with the rounds was a bare TypeError."""
    if iterations is not None and (
        isinstance(iterations, bool | np.bool_) or not isinstance(iterations, int | np.integer)
    ):
        raise UsageError(f"must be an integer, got {iterations!r}", option="iterations")
    check_import_names(feature_names, target)


@numpy_defaults
def from_xgboost(
    model: Any,
    iterations: int | None = None,
    feature_names: Sequence[str] | None = None,
    target: str = "class",
) -> Model:
    """An XGBoost classifier or regressor (a model file's path, bytes or JSON text, a ``Booster``,
    an ``XGBClassifier`` or ``XGBRegressor``) as a treegen model that predicts what its
    ``predict`` predicts (a regressor's float32 values, bit for bit).
    ``iterations``: the boosting rounds to use (default: the model's ``best_iteration``
    + 1 when it has one, else all)."""
    _check_arguments(iterations, feature_names, target)
    classes = None
    name = "<model>"
    if isinstance(model, str) and model.lstrip().startswith("{"):
        # The JSON text itself (docs/python.md: a file, its bytes or its text), not a path.
        data = model.encode()
    elif isinstance(model, str | os.PathLike):
        name = path_of(model, "model")
        data = read_model_bytes(name)
    elif isinstance(model, bytes | bytearray):
        data = bytes(model)
    else:
        booster = _fitted(model, "get_booster")
        classes = getattr(model, "classes_", None)
        _check_missing(model)
        if not hasattr(booster, "save_raw"):
            raise UsageError(
                f"cannot read a {type(model).__name__}: give an XGBoost model file, a "
                "Booster or an XGBClassifier",
                option="model",
            )
        data = bytes(booster.save_raw("json"))
    ens = xgboost_from_bytes(data, name, iterations, feature_names, target)
    return Model.of(replace(_with_classes(ens, classes), treegen_version=VERSION))


@numpy_defaults
def from_lightgbm(
    model: Any,
    iterations: int | None = None,
    feature_names: Sequence[str] | None = None,
    target: str = "class",
) -> Model:
    """A LightGBM classifier or regressor (a text model file's path, its text, a
    ``Booster``, an ``LGBMClassifier`` or ``LGBMRegressor``) as a treegen model that
    predicts what its ``predict`` predicts (a regressor's float64 values, bit for bit).
    ``iterations``: the rounds to use (default: all the model holds; a fitted
    object's text holds its best iteration's)."""
    _check_arguments(iterations, feature_names, target)
    classes = None
    name = "<model>"
    if isinstance(model, os.PathLike) or (isinstance(model, str) and "\n" not in model):
        name = path_of(model, "model")
        raw = read_model_bytes(name)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ModelFileError("not a LightGBM text model (not UTF-8)", file=name) from None
    elif isinstance(model, str):
        text = model
    else:
        booster = _fitted(model, "booster_")
        classes = getattr(model, "classes_", None)
        if not hasattr(booster, "model_to_string"):
            raise UsageError(
                f"cannot read a {type(model).__name__}: give a LightGBM text model file, "
                "a Booster or an LGBMClassifier",
                option="model",
            )
        text = str(booster.model_to_string())
    ens = lightgbm_from_text(text, name, iterations, feature_names, target)
    return Model.of(replace(_with_classes(ens, classes), treegen_version=VERSION))


def from_classes(model: Model, labels: list[str]) -> Model:
    """``model`` with its classes named ``labels`` (one per class, distinct)."""
    ens = model.value
    k = len(ens.schema.classes)
    if len(labels) != k or len(set(labels)) != k or not all(s.strip() for s in labels):
        raise UsageError(f"must name the {k} classes, distinct", option="classes")
    options = {key: v for key, v in ens.options.items() if key != "labels"}
    schema = Schema(ens.schema.attributes, tuple(labels), ens.schema.target)
    return Model.of(replace(ens, schema=schema, options=options))
