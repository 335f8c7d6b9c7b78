"""Subcommand ``import-sklearn``: a saved scikit-learn tree or ensemble as a model file."""

from __future__ import annotations

import argparse

from treegen.cli.common import name_list, note
from treegen.data.atomic import write_text_atomic
from treegen.errors import ModelFileError, TreegenError, UsageError
from treegen.estimator.sklearn_import import SKOPS_TRUSTED, SUPPORTED, from_sklearn, load_estimator
from treegen.kinds import kind_of, loads


def run_import_sklearn(args: argparse.Namespace) -> int:
    est = load_estimator(args.file)
    try:
        model = from_sklearn(est, feature_names=args.feature_names, target=args.target)
    except TreegenError as exc:
        # The estimator's faults are FILE's; a bad name is the option's, when given (the
        # default names are the estimator's own).
        given = {"feature_names": args.feature_names is not None, "target": True}
        flag = {"feature_names": "--feature-names", "target": "--target"}.get(exc.option or "")
        flag = flag if given.get(exc.option or "") else None
        exc.file, exc.option = (None, flag) if flag else (args.file, None)
        raise
    write_imported(args, model.value, "estimator")
    return 0


def write_imported(args: argparse.Namespace, value: object, source: str) -> None:
    """Write an imported model ``value`` to ``args.output`` and say so (as train does):
    what is written must load, by the file's own validation, before anything is written."""
    kind = kind_of(value)
    text = kind.to_json(value)
    try:
        text.encode("utf-8")
        loads(text, args.output)
    except UnicodeEncodeError as exc:
        # A name holding half of a surrogate pair (from a pickle's or skops file's str).
        raise UsageError(
            f"the {source} makes no valid model file (a name holds {exc.object[exc.start]!r}, "
            "half of a UTF-16 surrogate pair, no character)",
            file=args.file,
        ) from None
    except ModelFileError as exc:
        raise UsageError(
            f"the {source} makes no valid model file ({exc.message})", file=args.file
        ) from None
    write_text_atomic(args.output, text)
    size = kind.size(value) if kind.size is not None else kind.name
    note(args, f"treegen: wrote {args.output}: {size}")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the import-sklearn subcommand to ``sub``."""
    p = sub.add_parser(
        "import-sklearn",
        help="convert a saved (skops, pickle, joblib) scikit-learn tree or ensemble into a "
        "model file",
        description="Read FILE holding a fitted scikit-learn "
        f"{', '.join(SUPPORTED)} and write it as a treegen model file (an ensemble; "
        "a single tree is an ensemble of one). It predicts exactly what "
        "estimator.predict predicts, in Python and in the exported C, NaN included "
        "where the estimator takes it (GradientBoosting's and AdaBoost's Python "
        "predictions refuse NaN as theirs do; docs/ensembles.md; a regressor's float64 "
        "values bit for bit: docs/regression.md). FILE is a skops file (skops.io.dump; "
        "read with skops's safe loader, trusting beyond skops's own types only "
        f"{', '.join(SKOPS_TRUSTED)}) or a pickle or joblib file (unpickling runs code "
        "from FILE: import only files you trust; needs scikit-learn installed).",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "-o", "--output", metavar="MODEL", required=True, help="model file to write (.trees)"
    )
    p.add_argument(
        "--feature-names",
        metavar="A,B,...",
        type=name_list,
        default=None,
        help="names for the columns (default: the estimator's feature_names_in_, else x0, x1, "
        "...; \\, is a comma in a name)",
    )
    p.add_argument(
        "--target",
        metavar="NAME",
        default="class",
        help="name of the class column, the one 'treegen eval' reads the labels from, "
        "or of a regressor's output (NAME[k] for output k of several) (default: class)",
    )
    p.set_defaults(func=run_import_sklearn)
