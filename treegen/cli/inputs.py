"""A file given where another kind belongs is named as what it is, before it is read.

``treegen show golf.names`` said "truncated file" (the model reader's view of a
names file), and ``treegen train golf.tree`` a row-width error.  Every command's
inputs are looked at by content (:func:`treegen.data.filekind.file_kind`) before it
runs, by the role their argument has, whatever the command:

* MODEL takes a model or ruleset, ``--unpruned`` a tree: data, a pickle or C source
  there (and another kind of model at ``--unpruned``) is an error saying what the file
  is and what the command reads;
* DATA and ``--validation`` take data: a model, ruleset, pickle, C source or other
  JSON there is an error (for C4.5 DATA, each of the files read: STEM.names and
  STEM.data), and so is an ARFF file whose name makes it CSV;
* import-sklearn's FILE takes a pickle or a skops file: data, a treegen file, C or JSON
  there is one; import-xgboost's and import-lightgbm's FILE is no treegen file and no
  pickle;
* a library's own model file (XGBoost's, LightGBM's, a skops file) is wrong in every
  role but its importer's, and the error names the import command that converts it.

When MODEL is data and DATA a model, the message says the two are swapped.  A file
whose kind is not recognised is left to its reader, whose error stands.
"""

from __future__ import annotations

import argparse

from treegen.data.filekind import (
    ARFF,
    DATA_WANTED,
    LIBRARY_ROLES,
    MODEL_WANTED,
    FileKind,
    data_kinds,
    file_kind,
    wrong_for_data,
    wrong_for_model,
)
from treegen.data.filekind import MODEL as TREE_FILE
from treegen.data.readers import detect_format
from treegen.errors import UsageError

# The roles in which a kind is wrong for import-sklearn's FILE (a model's and data's
# are filekind's).
_WRONG_FOR_PICKLE = ("data", "model", "source", "json", *LIBRARY_ROLES)
# What the gradient-boosting importers' FILE is.
_GBM_FILES = {
    "import-xgboost": "an XGBoost model (JSON or UBJSON, from save_model)",
    "import-lightgbm": "a LightGBM text model (from save_model)",
}


def _model_wanted(command: str, dest: str) -> str:
    if dest == "unpruned":
        return "--unpruned reads a model file (.tree)"
    if command == "plot":
        return "plot reads a model file (.tree)"
    return f"{command} reads {MODEL_WANTED}"


def _hint(kind: FileKind, path: str) -> str:
    """What to do instead, where there is something to say."""
    if kind.role == "pickle":
        return f" (a scikit-learn estimator? 'treegen import-sklearn {path} -o MODEL' converts it)"
    if kind.role in LIBRARY_ROLES:
        return f" ('treegen {kind.role} {path} -o MODEL' converts it)"
    return ""


def _wrong_model(args: argparse.Namespace, command: str) -> tuple[str, FileKind, str] | None:
    for dest in ("model", "unpruned"):
        path = getattr(args, dest, None)
        if isinstance(path, str):
            kind = wrong_for_model(path)
            if kind is not None:
                return path, kind, _model_wanted(command, dest)
    return None


def _wrong_data(args: argparse.Namespace, command: str) -> tuple[str, FileKind, str] | None:
    for dest in ("data", "validation"):
        given = getattr(args, dest, None)
        paths = given if isinstance(given, list) else [given]
        for path in paths:
            if not isinstance(path, str):
                continue
            where = "--validation reads" if dest == "validation" else f"{command} reads"
            kinds = data_kinds(path)  # looked at once, for both questions
            wrong = wrong_for_data(path, kinds)
            if wrong is not None:
                return wrong[0], wrong[1], f"{where} {DATA_WANTED}"
            if detect_format(path) == "csv" and kinds[0][1] == ARFF:  # CSV reads path alone
                # The format follows the name: the CSV reader's row error said nothing of it.
                return (
                    path,
                    ARFF,
                    f"{where} it as CSV by its name (an ARFF file's name ends in .arff)",
                )
    return None


def check_input_kinds(args: argparse.Namespace) -> None:
    """A :class:`UsageError` naming the first input whose content is of a kind its
    argument does not take (module docstring); nothing when all look right."""
    command = str(getattr(args, "command", "") or "")
    model = _wrong_model(args, command)
    data = _wrong_data(args, command)
    if model is not None and data is not None and data[1].role == "model":
        raise UsageError(
            f"{model[0]} is {model[1].name} and {data[0]} is {data[1].name}: "
            f"{command} takes MODEL first, then DATA (the two are swapped)"
        )
    for wrong in (model, data):
        if wrong is not None:
            path, kind, wanted = wrong
            raise UsageError(f"{path} is {kind.name}; {wanted}{_hint(kind, path)}")
    unpruned = getattr(args, "unpruned", None)
    found = file_kind(unpruned) if isinstance(unpruned, str) else None
    if found is not None and found.role == "model" and found != TREE_FILE:
        # a tree only: a ruleset there was "format: not a treegen model file (expected
        # "treegen-model")"
        raise UsageError(
            f"{unpruned} is {found.name}; it takes a tree trained with --no-prune",
            option="--unpruned",
        )
    estimator = getattr(args, "file", None)
    if command == "import-sklearn" and isinstance(estimator, str):
        found = file_kind(estimator)
        if found is not None and found.role in _WRONG_FOR_PICKLE and found.role != command:
            raise UsageError(
                f"{estimator} is {found.name}; import-sklearn reads a scikit-learn "
                "estimator saved with skops, pickle or joblib"
                + (", and a treegen file needs no import" if found.role == "model" else "")
                + _hint(found, estimator)
            )
    if command in _GBM_FILES and isinstance(estimator, str):
        # Only what cannot be such a model: a LightGBM model's text lines could look like
        # data, and an XGBoost model is JSON.
        found = file_kind(estimator)
        refused = ("model", "pickle", *LIBRARY_ROLES)
        if found is not None and found.role in refused and found.role != command:
            raise UsageError(
                f"{estimator} is {found.name}; {command} reads {_GBM_FILES[command]}"
                + (
                    ", and a treegen file needs no import"
                    if found.role == "model"
                    else " (a pickled model? write it with its save_model)"
                    if found.role == "pickle"
                    else _hint(found, estimator)
                )
            )
