"""treegen: train C4.5 decision trees and compile them to portable, exact C.

    import treegen
    model = treegen.train("golf.csv", target="play")      # or treegen.train((X, y))
    model.predict(X)                                        # labels; NaN = missing
    model.export_c("build/")                                # predict.c, predict.h
    assert model.verify().ok                                # the C equals the model
    rules = treegen.train_rules("golf.csv", target="play")  # c4.5rules' ruleset
    treegen.C45Classifier(cf=0.25).fit(X, y)                # the scikit-learn estimator
    treegen.from_sklearn(DecisionTreeClassifier().fit(X, y)) # a scikit-learn tree, exact
    treegen.from_xgboost("m.json"); treegen.from_lightgbm("m.txt")  # their models, exact

:mod:`treegen.api` documents each function; the stages behind them are the
sub-packages ``data``, ``trainer``, ``model``, ``analysis``, ``codegen``, ``estimator``
and ``cli``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from treegen.lazy import lazy_attributes

if TYPE_CHECKING:
    from treegen.api import Model, VerifyReport, load, train, train_rules
    from treegen.codegen.options import ExportOptions
    from treegen.errors import TreegenError
    from treegen.estimator import C45Classifier, from_lightgbm, from_sklearn, from_xgboost
    from treegen.model.version import __version__

__all__ = [
    "C45Classifier",
    "ExportOptions",
    "Model",
    "TreegenError",
    "VerifyReport",
    "__version__",
    "from_lightgbm",
    "from_sklearn",
    "from_xgboost",
    "load",
    "train",
    "train_rules",
]

# Where each public name lives.  They are imported on first use (PEP 562), so that
# ``import treegen`` or ``treegen train`` (which imports treegen.cli, so this package
# first) does not pay for code generation, the ensembles and jinja2 it does not use.
# ``__version__`` too: its module's package imports numpy, which treegen.cli must
# import only after it has set up numpy's environment (treegen/cli/__init__.py).
_HOMES = {
    "C45Classifier": "treegen.estimator",
    "ExportOptions": "treegen.codegen.options",
    "Model": "treegen.api",
    "TreegenError": "treegen.errors",
    "VerifyReport": "treegen.api",
    "__version__": "treegen.model.version",
    "from_lightgbm": "treegen.estimator",
    "from_sklearn": "treegen.estimator",
    "from_xgboost": "treegen.estimator",
    "load": "treegen.api",
    "train": "treegen.api",
    "train_rules": "treegen.api",
}


__getattr__, __dir__ = lazy_attributes(__name__, _HOMES, globals())
