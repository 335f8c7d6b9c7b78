"""Subcommands ``import-xgboost`` and ``import-lightgbm``: their model files as treegen models.

Neither library is needed: the files are read as they are written
(treegen.ensemble.xgboost, treegen.ensemble.lightgbm).  What is written is checked to
load before it is written, as import-sklearn's.
"""

from __future__ import annotations

import argparse

from treegen.cli.common import name_list, positive_int
from treegen.cli.importer import write_imported
from treegen.errors import TreegenError


def _run(args: argparse.Namespace, library: str) -> int:
    # Imported here, not at the top: every command builds this module's parser.
    from treegen.estimator.gbm_import import from_classes, from_lightgbm, from_xgboost

    read = from_xgboost if library == "xgboost" else from_lightgbm
    try:
        model = read(
            args.file, args.iterations, feature_names=args.feature_names, target=args.target
        )
        if args.classes is not None:
            model = from_classes(model, args.classes)
    except TreegenError as exc:
        flag = {
            "feature_names": "--feature-names",
            "target": "--target",
            "iterations": "--iterations",
            "classes": "--classes",
        }.get(exc.option or "")
        if flag:
            exc.file, exc.option = None, flag
        raise
    write_imported(args, model.value, "model")
    return 0


def _register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    library: str,
    what: str,
    how: tuple[str, str],
) -> None:
    name = "XGBoost" if library == "xgboost" else "LightGBM"
    p = sub.add_parser(
        f"import-{library}",
        help=f"convert an {name} model file into a model file"
        if library == "xgboost"
        else f"convert a {name} model file into a model file",
        description=f"Read FILE, {what}, and write it as a treegen model file (an "
        f"ensemble). It predicts exactly the class {how[0]} predicts (save a multiclass "
        "model's near ties: docs/gbm.md), or for a regression "
        f"objective the value {how[1]} predicts, bit for bit, in Python and in the "
        f"exported C, NaN included (docs/gbm.md). {name} is not needed.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "-o", "--output", metavar="MODEL", required=True, help="model file to write (.trees)"
    )
    p.add_argument(
        "--iterations",
        metavar="N",
        type=positive_int,
        default=None,
        help="use the first N boosting rounds (default: "
        + ("best_iteration + 1 when the model has one, else all)"
           if library == "xgboost" else "all the file holds)"),
    )  # fmt: skip
    p.add_argument(
        "--feature-names",
        metavar="A,B,...",
        type=name_list,
        default=None,
        help="names for the columns (default: the model's feature names; for a model fitted "
        + (
            "on an array, which has none (XGBoost's f0, f1, ...)"
            if library == "xgboost"
            else "on an array (LightGBM's Column_0, Column_1, ...)"
        )
        + ", x0, x1, ... as in scikit-learn; \\, is a comma in a name)",
    )
    p.add_argument(
        "--classes",
        metavar="A,B,...",
        type=name_list,
        default=None,
        help="names for the classes, in the model's order (default: 0, 1, ...; \\, is a comma "
        "in a name)",
    )
    p.add_argument(
        "--target",
        metavar="NAME",
        default="class",
        help="name of the class column, the one 'treegen eval' reads the labels from "
        "(default: class)",
    )
    p.set_defaults(func=lambda args: _run(args, library))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the import-xgboost and import-lightgbm subcommands to ``sub``."""
    _register(
        sub,
        "xgboost",
        "an XGBoost model (JSON or UBJSON, from Booster.save_model or XGBClassifier."
        "save_model) of objective binary:logistic, binary:logitraw, binary:hinge, "
        "multi:softmax, multi:softprob, reg:squarederror, reg:absoluteerror, "
        "reg:pseudohubererror, reg:quantileerror (one quantile) or reg:squaredlogerror",
        ("XGBClassifier.predict", "XGBRegressor.predict (a float32)"),
    )
    _register(
        sub,
        "lightgbm",
        "a LightGBM text model (from Booster.save_model) of objective binary, multiclass, "
        "regression, regression_l1, huber, fair, quantile or mape",
        ("LGBMClassifier.predict", "LGBMRegressor.predict (a float64)"),
    )
