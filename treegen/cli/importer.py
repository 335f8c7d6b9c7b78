"""Subcommand ``import-sklearn``: a pickled scikit-learn tree or ensemble as a model file."""

from __future__ import annotations

import argparse
import pickle
from typing import Any

from treegen.data.atomic import write_text_atomic
from treegen.errors import ModelFileError, TreegenError, UsageError
from treegen.estimator.sklearn_import import SUPPORTED, from_sklearn
from treegen.kinds import loads


def _load_pickle(path: str) -> Any:
    """The object in ``path``, written by pickle or joblib (joblib's numpy arrays are
    not plain pickle, so joblib reads its own files when it is installed)."""
    try:
        with open(path, "rb") as f:
            head = f.read(2)
    except OSError as exc:
        raise ModelFileError(exc.strerror or str(exc), file=path) from None
    try:
        import joblib  # type: ignore[import-untyped]  # optional, comes with scikit-learn
    except ImportError:
        joblib = None
    try:
        if joblib is not None:
            return joblib.load(path)
        with open(path, "rb") as f:
            return pickle.load(f)  # the user's own file, as joblib would read it
    except Exception as exc:  # unpickling runs arbitrary code: any failure is the file's
        raise ModelFileError(
            f"cannot unpickle ({type(exc).__name__}: {exc}; starts with {head!r})", file=path
        ) from None


def run_import_sklearn(args: argparse.Namespace) -> int:
    est = _load_pickle(args.file)
    names = args.feature_names.split(",") if args.feature_names else None
    try:
        model = from_sklearn(est, feature_names=names, target=args.target)
    except TreegenError as exc:
        # The estimator's faults are FILE's; a bad name is the option's.
        flag = {"feature_names": "--feature-names", "target": "--target"}.get(exc.option or "")
        exc.file, exc.option = (None, flag) if flag else (args.file, None)
        raise
    text = model.kind.to_json(model.value)
    try:
        # What is written must load: the file's own validation, before anything is written.
        loads(text, args.output)
    except ModelFileError as exc:
        raise UsageError(
            f"the estimator makes no valid model file ({exc.message})", file=args.file
        ) from None
    write_text_atomic(args.output, text)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the import-sklearn subcommand to ``sub``."""
    p = sub.add_parser(
        "import-sklearn",
        help="convert a pickled scikit-learn tree or ensemble into a model file",
        description="Read FILE (pickle or joblib) holding a fitted scikit-learn "
        f"{', '.join(SUPPORTED)} and write it as a treegen model file (an ensemble; "
        "a single tree is an ensemble of one). It predicts exactly what "
        "estimator.predict predicts, in Python and in the exported C, NaN included "
        "(docs/ensembles.md). Unpickling runs code from FILE: import only files you "
        "trust. Needs scikit-learn installed.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "-o", "--output", metavar="MODEL", required=True, help="model file to write (.trees)"
    )
    p.add_argument(
        "--feature-names",
        metavar="A,B,...",
        default=None,
        help="names for the columns (default: the estimator's feature_names_in_, else x0, x1, ...)",
    )
    p.add_argument(
        "--target",
        metavar="NAME",
        default="class",
        help="name of the class column, the one 'treegen eval' reads the labels from "
        "(default: class)",
    )
    p.set_defaults(func=run_import_sklearn)
