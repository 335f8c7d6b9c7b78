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

import importlib.util
import json
import pickle
import re
import warnings
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from treegen.data.npstate import numpy_defaults
from treegen.data.readers.text import read_model_bytes
from treegen.ensemble.regress import ALL_SUPPORTED as SUPPORTED
from treegen.ensemble.regress import from_estimator
from treegen.errors import EstimatorError, ModelFileError, TreegenError, UsageError, a_name
from treegen.model.version import VERSION

if TYPE_CHECKING:
    from treegen.api import Model

__all__ = ["SKOPS_TRUSTED", "SUPPORTED", "from_sklearn", "load_estimator"]

SKOPS_TRUSTED = (
    "sklearn.tree._tree.Tree",
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
    "sklearn.utils.validation.check_array",
    "functools.partial",
)
"""The types a skops file of a supported estimator holds beyond those skops trusts by
itself (scikit-learn's estimators, numpy arrays): the trees' node arrays, histogram
boosting's predictors, and the partial of check_array its preprocessing keeps.  A file
with any other type is refused, naming it."""


@numpy_defaults
def from_sklearn(
    estimator: Any, feature_names: Sequence[str] | None = None, target: str = "class"
) -> Model:
    """The fitted ``estimator`` (one of :data:`SUPPORTED`) as a treegen model.
    ``feature_names`` names the columns (default: the estimator's ``feature_names_in_``,
    else x0, x1, ...); ``target`` names the class column (the one ``eval`` reads labels
    from), or a regressor's output (``target[k]`` for output k of several)."""
    _refuse_a_wrapper(estimator)
    try:
        ens = from_estimator(estimator, feature_names, target)
    except TreegenError:
        raise
    except (AttributeError, TypeError, ValueError, IndexError, KeyError) as exc:
        # An estimator is read through the fitted attributes scikit-learn gives it; one
        # altered after fitting, or unpickled from an edited file (a member without its
        # tree_, arrays of another shape or type), fails where they are read.
        raise EstimatorError(
            f"not a fitted estimator treegen can read ({type(exc).__name__}: {exc})"
        ) from exc
    # Imported here: `treegen import-sklearn`'s parser (built for every command) reads
    # this module's constants, and the API imports the trainer.
    from treegen.api import Model

    return Model.of(replace(ens, treegen_version=VERSION))


# The libraries whose scikit-learn-like estimators treegen reads through their files.
_LIBRARIES = {
    "xgboost": "it is XGBoost's: treegen.from_xgboost(estimator), or its "
    "save_model('m.json') and 'treegen import-xgboost m.json'",
    "lightgbm": "it is LightGBM's: treegen.from_lightgbm(estimator), or its "
    "Booster's save_model('m.txt') and 'treegen import-lightgbm m.txt'",
}


def _refuse_a_wrapper(estimator: Any) -> None:
    """A usage error saying what to import instead when ``estimator`` wraps one that
    treegen reads (a Pipeline, a hyper-parameter search, a calibration, treegen's own
    C45Classifier) or is XGBoost's or LightGBM's (their importers); those it does not
    wrap get from_estimator's list of the supported."""
    name = type(estimator).__name__
    why = None
    if isinstance(estimator, type):
        name = f"{estimator.__name__} class"
        why = "it is no estimator but its class: fit an instance and import that"
    elif hasattr(estimator, "steps") and hasattr(estimator, "named_steps"):
        before = ", ".join(type(step).__name__ for _, step in estimator.steps[:-1])
        why = (
            "only its final estimator can be compiled (pipeline[-1]), and only when the steps "
            f"before it ({before or 'none'}) leave X unchanged: the C would not run them"
        )
    elif hasattr(estimator, "best_estimator_"):
        why = "import the estimator it chose, search.best_estimator_ (refit=True)"
    elif hasattr(estimator, "calibrated_classifiers_"):
        why = (
            "its calibration maps are not compiled: import the uncalibrated estimator, "
            "whose probabilities differ"
        )
    elif name == "C45Classifier":
        why = "it is treegen's own: its to_model() is the treegen model"
    elif type(estimator).__module__.split(".")[0] in _LIBRARIES:
        why = _LIBRARIES[type(estimator).__module__.split(".")[0]]
    if why is not None:
        raise UsageError(f"cannot import {a_name(name)}: {why}", option="estimator")


def load_estimator(path: str) -> Any:
    """The estimator in ``path``: a skops file (a zip archive; loaded with skops's safe
    loader, trusting only :data:`SKOPS_TRUSTED` beyond skops's own), else a pickle or
    joblib file.  Unpickling runs code from the file: only files one trusts."""
    head = read_model_bytes(path, 4)
    if not head:  # unpickling it said "EOFError: ; starts with b''"
        raise ModelFileError("empty file: no saved estimator", file=path)
    if head.startswith(b"PK\x03\x04"):
        if not zipfile.is_zipfile(path):  # no pickle starts so: unpickling it said nonsense
            raise ModelFileError(
                "a zip archive (a skops file?) that is damaged or cut short", file=path
            )
        return _one_version(path, lambda: _load_skops(path))
    return _one_version(path, lambda: _unpickle(path, head))


def _one_version(path: str, load: Callable[[], Any]) -> Any:
    """``load()``, refused where scikit-learn warns that the estimator was saved by
    another version of it (InconsistentVersionWarning): it promises nothing of such
    an estimator's predictions, so treegen cannot promise to equal them.  Other
    warnings pass on."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = load()
    for w in caught:
        if type(w.message).__name__ == "InconsistentVersionWarning":
            old = getattr(w.message, "original_sklearn_version", "another version")
            new = getattr(w.message, "current_sklearn_version", "this one")
            name = getattr(w.message, "estimator_name", "estimator")
            raise _other_version(path, name, old, new)
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return est


def _other_version(path: str, name: str, old: str, new: str, failed: str = "") -> ModelFileError:
    """The one-line refusal of an estimator saved by scikit-learn ``old``, read by
    ``new``; ``failed``: why ``new`` could not even load it."""
    if failed:
        return ModelFileError(
            f"{a_name(name)} saved by scikit-learn {old}, which {new} cannot load ({failed}): "
            f"import it where scikit-learn {old} is installed",
            file=path,
        )
    return ModelFileError(
        f"{a_name(name)} saved by scikit-learn {old}, read by {new}: scikit-learn does "
        f"not promise its predictions across versions, nor then can treegen (load "
        f"and check it with {new}, save it again, and import that file)",
        file=path,
    )


# A pickle's "_sklearn_version" key, the opcode memoizing it, the value's string opcode.
_PICKLED_VERSION = re.compile(rb"_sklearn_version(?:\x94|q.|r....)?(?:\x8c(.)|X(....))", re.S)


def _saved_version(path: str) -> tuple[str, str] | None:
    """The estimator's class name (in a skops file; a pickle's: "estimator") and the
    scikit-learn version that saved it, read without loading it; None where the file
    does not say (a compressed joblib file)."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                schema = json.loads(z.read("schema.json"))
            v = json.loads(schema["content"]["content"]["_sklearn_version"]["content"])
            name = schema["__class__"]
        else:
            with open(path, "rb") as f:
                m = _PICKLED_VERSION.search(f.read())
            if m is None:
                return None
            size = m.group(1)[0] if m.group(1) else int.from_bytes(m.group(2), "little")
            v, name = m.string[m.end() : m.end() + size].decode("ascii"), "estimator"
    except (OSError, LookupError, TypeError, ValueError, zipfile.BadZipFile):
        return None
    if not (isinstance(v, str) and isinstance(name, str) and re.fullmatch(r"\d+\.\d+\S*", v)):
        return None
    return name, v


def _installed_sklearn() -> str | None:
    try:
        import sklearn  # optional
    except ImportError:
        return None
    return str(sklearn.__version__)


def _importable(qualname: str) -> bool:
    """Whether the module of type ``qualname`` (``module.Class``) is found here."""
    try:
        return importlib.util.find_spec(qualname.rpartition(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def _unpickle(path: str, head: bytes) -> Any:
    try:
        import joblib  # type: ignore[import-untyped]  # optional, comes with scikit-learn
    except ImportError:
        joblib = None
    try:
        if joblib is not None:
            return joblib.load(path)  # joblib's numpy arrays are not plain pickle
        with open(path, "rb") as f:
            return pickle.load(f)  # the user's own file, as joblib would read it
    except Exception as exc:  # unpickling runs arbitrary code: any failure is the file's
        saved, new = _saved_version(path), _installed_sklearn()
        if saved is not None and new is not None and saved[1] != new:
            # scikit-learn's own modules moved (1.9 cannot load 1.8's GradientBoosting):
            # the error names a module, the version says why.
            raise _other_version(path, *saved, new, f"{type(exc).__name__}: {exc}") from None
        raise ModelFileError(
            f"cannot unpickle ({type(exc).__name__}: {exc}; starts with {head[:2]!r})", file=path
        ) from None


def _load_skops(path: str) -> Any:
    try:
        import skops.io as sio  # type: ignore[import-untyped]  # optional
    except ImportError:
        raise ModelFileError(
            "a skops file: reading it needs the skops package (pip install skops)", file=path
        ) from None
    try:
        untrusted = sorted(set(sio.get_untrusted_types(file=path)) - set(SKOPS_TRUSTED))
        saved, new = _saved_version(path), _installed_sklearn()
        if saved is not None and new is not None and saved[1] != new:
            # Before the types: another version's may be gone from this one (1.8's
            # loss objects), which no trust would load.
            gone = next((t for t in untrusted if not _importable(t)), None)
            raise _other_version(path, *saved, new, f"it holds {gone}" if gone else "")
        if untrusted:
            raise ModelFileError(
                f"the skops file holds types treegen does not trust: {', '.join(untrusted)}",
                file=path,
            )
        return sio.load(path, trusted=list(SKOPS_TRUSTED))
    except ModelFileError:
        raise
    except Exception as exc:  # a damaged archive or schema: the file's fault
        raise ModelFileError(
            f"cannot read the skops file ({type(exc).__name__}: {exc})", file=path
        ) from None
