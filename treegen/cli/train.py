"""Subcommands ``train``, ``show``, ``eval``, ``predict`` and ``cv``.

Each is a thin edge around pure functions: read the inputs
(:mod:`treegen.cli.common`, :mod:`treegen.model.file`), call the trainer,
:mod:`treegen.model.show`, :mod:`treegen.analysis.evaluate` or :mod:`treegen.analysis.cv`, and write
results to stdout (or a file, atomically); progress and summaries go to
stderr unless ``--quiet``.  Bad option values are argparse usage errors, so
they are one line naming the option with exit status 2, like every
:class:`~treegen.errors.TreegenError` (see :mod:`treegen.cli.main`).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.analysis.cv import check_folds, cross_validate, format_cv
from treegen.analysis.evaluate import evaluate, format_evaluation, test_set_beside
from treegen.cli.common import (
    add_data_options,
    add_min_cases_and_cf,
    float_range,
    int_range,
    note,
    read_data,
    write_predictions,
)
from treegen.cli.progress import Progress, progress_line
from treegen.cli.rules import eval_ruleset, predict_ruleset
from treegen.data.dataset import Dataset
from treegen.errors import UsageError
from treegen.model.classify import predict, predict_proba
from treegen.model.core import Model, flavor_compares_float32
from treegen.model.file import load_model, save_model
from treegen.model.picture import format_dot
from treegen.model.show import STYLES, format_tree, is_pruned
from treegen.rules.core import RuleSet
from treegen.rules.file import load_model_or_ruleset
from treegen.rules.show import format_path_rules, format_rules
from treegen.trainer import TrainOptions, train
from treegen.trainer.options import PRUNINGS

# show --format dot: the Graphviz graph instead of a text layout; rules: a tree's paths.
DOT = "dot"
RULES = "rules"

TRAIN_EPILOG = (
    "DATA is a CSV file (class: last column or --target), an ARFF file, or C4.5 files "
    "given as STEM, STEM.names or STEM.data. Without -o the model is written to the "
    "current folder as DATA's name with its extension replaced by .tree (golf.data -> "
    "./golf.tree), replacing it atomically. Release 8 equivalents: -m N is its -m N, "
    "--cf 0.25 its -c 25, --subsets its -s, --criterion gain its -g; --no-prune keeps the "
    "tree it prints as 'Decision Tree:'. Weka J48 equivalents (with --flavor j48): "
    "--prune reduced-error is its -R, --folds N its -N N, --seed S its -Q S. When C4.5 DATA "
    "has a STEM.test beside it, Release 8's -u evaluation of the tree on it (before and "
    "after pruning, confusion matrix; a pruned run trains the unpruned tree too for it) "
    "follows the summary on stderr; -q leaves both out, 'treegen eval MODEL STEM.test "
    "--unpruned RAW' prints it on stdout."
)


def _add_train_options(parser: argparse.ArgumentParser, *, cv: bool = False) -> None:
    """The training options; ``cv``: for ``treegen cv``, whose --folds/--seed are its own."""
    group = parser.add_argument_group("training options")
    add_min_cases_and_cf(group, "pruning confidence in (0, 1); smaller prunes more (default 0.25)")
    group.add_argument(
        "--no-prune",
        dest="prune",
        action="store_false",
        default=True,
        help="keep the unpruned tree",
    )
    group.add_argument(
        "--prune",
        dest="pruning",
        choices=PRUNINGS,
        default="error-based",
        help="how to prune: error-based (default; C4.5's, with --cf) or reduced-error "
        "(Weka J48's -R: grow on all folds but one, prune on the held-out fold"
        + ("" if cv else ", or on --validation")
        + ")",
    )
    folds_flag, seed_flag = ("--prune-folds", "--prune-seed") if cv else ("--folds", "--seed")
    group.add_argument(
        folds_flag,
        dest="rep_folds",
        metavar="N",
        type=int_range(2),
        default=3,
        help="reduced-error pruning: N folds, one for pruning (J48's -N; default 3)",
    )
    group.add_argument(
        seed_flag,
        dest="rep_seed",
        metavar="S",
        type=int,
        default=1,
        help="reduced-error pruning: the seed of J48's shuffle of the growing folds "
        "(J48's -Q; default 1)",
    )
    if not cv:
        group.add_argument(
            "--validation",
            metavar="FILE",
            default=None,
            help="reduced-error pruning on FILE's rows (same attributes as DATA) "
            "instead of a held-out fold; the tree grows on all of DATA",
        )
    group.add_argument(
        "--max-depth",
        metavar="N",
        type=int_range(0),
        default=None,
        help="pre-pruning: nodes at depth N stay leaves (the root is depth 0)",
    )
    group.add_argument(
        "--min-gain-ratio",
        metavar="G",
        type=float_range(0.0, 1.0),
        default=0.0,
        help="pre-pruning: a test whose gain ratio is below G is not made (default 0)",
    )
    group.add_argument(
        "--subsets",
        action="store_true",
        default=False,
        help="group nominal values into subsets (C4.5's -s)",
    )
    group.add_argument(
        "--criterion",
        choices=("gainratio", "gain"),
        default="gainratio",
        help="split criterion: gain ratio (default) or information gain",
    )
    group.add_argument(
        "--flavor",
        choices=("c45", "j48"),
        default="c45",
        help="follow C4.5 Release 8 (default) or Weka J48",
    )


def train_options(args: argparse.Namespace) -> TrainOptions:
    """The :class:`TrainOptions` the command line asks for."""

    return TrainOptions(
        min_cases=args.min_cases,
        cf=args.cf,
        prune=args.prune,
        subsets=args.subsets,
        criterion=args.criterion,
        flavor=args.flavor,
        max_depth=args.max_depth,
        min_gain_ratio=args.min_gain_ratio,
        pruning=args.pruning,
        folds=args.rep_folds,
        seed=args.rep_seed,
    )


def _fit(
    args: argparse.Namespace,
    progress: Progress | None = None,
) -> Callable[[Dataset], Model]:
    """A one-argument training function with the command line's options."""

    opts = train_options(args)
    validation_file = getattr(args, "validation", None)
    if validation_file is not None and not opts.reduced_error:
        raise UsageError("needs --prune reduced-error", option="--validation")

    def fit(ds: Dataset) -> Model:
        validation = None
        if validation_file is not None:
            validation = read_data(
                args,
                validation_file,
                schema=ds.schema,
                float32=flavor_compares_float32(args.flavor),
            )
        return train(
            ds,
            opts,
            progress=progress.nodes if progress is not None else None,
            validation=validation,
        )

    return fit


def default_output(data: str) -> Path:
    """``./STEM.tree`` for DATA ``some/dir/STEM.ext`` (or the C4.5 stem ``STEM``)."""
    return Path(Path(data).stem + ".tree")


# ------------------------------------------------------------------ train


def run_train(args: argparse.Namespace) -> int:
    """Train on DATA and save the model; summary on stderr."""

    output = Path(args.output) if args.output else default_output(args.data)
    if os.path.exists(args.data) and output.exists() and output.samefile(args.data):
        raise UsageError(
            f"would overwrite the data file {args.data}; choose another", option="-o/--output"
        )
    with progress_line(args) as progress:
        ds = read_data(
            args, args.data, float32=flavor_compares_float32(args.flavor), progress=progress
        )
        progress.update("growing", rows=ds.n_rows)
        model = _fit(args, progress)(ds)
        progress.update("writing", nodes=model.size)
        save_model(model, str(output))
        quiet = getattr(args, "quiet", False)
        if not quiet:
            progress.update("counting training errors")
            errors = int(np.count_nonzero(np.asarray(predict(model, ds.X)) != ds.y))
    if not quiet:
        percent = 100.0 * errors / ds.n_rows if ds.n_rows else 0.0
        kind = "pruned" if args.prune else "unpruned"
        note(
            args,
            f"treegen: wrote {output}: {kind} {args.flavor} tree of {model.size} nodes "
            f"({model.n_leaves} leaves, depth {model.depth()}), "
            f"{errors} training errors ({percent:.1f}%) on {ds.n_rows} rows",
        )
        test = test_set_beside(args.data)
        if test is not None:
            sys.stderr.write(_test_evaluation(args, ds, model, test))
    return 0


def _test_evaluation(args: argparse.Namespace, ds: Dataset, model: Model, test: str) -> str:
    """Release 8's ``-u`` block for STEM.test: before and after pruning, confusion matrix.

    The "Before Pruning" columns need the unpruned tree, so a pruned run
    trains a second time with ``--no-prune`` (the same growth).
    """
    test_ds = read_data(args, test, schema=model.schema, float32=model.compares_float32)
    ev = evaluate(model, test_ds)
    if not args.prune:
        return format_evaluation("test", None, ev)
    raw = train(ds, dataclasses.replace(train_options(args), prune=False))
    return format_evaluation("test", ev, evaluate(raw, test_ds))


# ------------------------------------------------------------------- show


def run_show(args: argparse.Namespace) -> int:
    """Print MODEL's tree in the chosen layout (a ruleset in c4.5rules')."""

    model = load_model_or_ruleset(args.model)
    if isinstance(model, RuleSet):
        if args.format != "c45":
            raise UsageError(
                "a ruleset prints in c4.5rules' layout only (the default c45)", option="--format"
            )
        sys.stdout.write(format_rules(model))
        return 0
    if args.format == DOT:
        sys.stdout.write(format_dot(model))
        return 0
    if args.format == RULES:
        sys.stdout.write(format_path_rules(model))
        return 0
    sys.stdout.write(format_tree(model, args.format))
    return 0


# ------------------------------------------------------------------- eval


def run_eval(args: argparse.Namespace) -> int:
    """Print MODEL's evaluation on DATA (and RAW_MODEL's with --unpruned)."""

    model = load_model_or_ruleset(args.model)
    if isinstance(model, RuleSet):
        return eval_ruleset(args, model)
    with progress_line(args) as progress:
        ds = read_data(
            args, args.data, schema=model.schema, float32=model.compares_float32, progress=progress
        )
        progress.update("evaluating")
        ev = evaluate(model, ds)
    label = "training" if ds.fingerprint() == model.data_fingerprint else "test"
    if args.unpruned is None:
        pruned_ev = ev if ev.estimate is not None else None
        unpruned_ev = None if pruned_ev is not None else ev
    else:
        raw = load_model(args.unpruned)
        if not is_pruned(model) or is_pruned(raw):
            raise UsageError(
                f"expects MODEL pruned and {args.unpruned} unpruned (trained with --no-prune)",
                option="--unpruned",
            )
        if raw.schema != model.schema:
            raise UsageError(
                f"{args.unpruned} was trained on other attributes or classes than {args.model}",
                option="--unpruned",
            )
        pruned_ev, unpruned_ev = ev, evaluate(raw, ds)
    sys.stdout.write(format_evaluation(label, pruned_ev, unpruned_ev))
    skipped = int(np.count_nonzero(ds.y < 0))
    if skipped:
        note(args, f"treegen: {skipped} rows without a class value were not evaluated")
    return 0


# ---------------------------------------------------------------- predict


def format_predictions(model: Model, x: npt.NDArray[np.float64], proba: bool) -> str:
    """One line per row: the class, and with ``proba`` the class probabilities.

    Probabilities follow the model's class order, tab-separated, with six
    decimals (``%.6f``), so the text is the same on every platform.
    """

    classes = model.schema.classes
    predicted = np.asarray(predict(model, x))
    if not proba:
        return "".join(classes[int(c)] + "\n" for c in predicted)
    probs = np.asarray(predict_proba(model, x), dtype=np.float64)
    lines = []
    for c, row in zip(predicted, probs, strict=True):
        # "+ 0.0" turns a -0.0 into 0.0 so it never prints as "-0.000000".
        lines.append(classes[int(c)] + "".join(f"\t{p + 0.0:.6f}" for p in row) + "\n")
    return "".join(lines)


def run_predict(args: argparse.Namespace) -> int:
    """Print (or write) one prediction line per row of DATA."""

    model = load_model_or_ruleset(args.model)
    if isinstance(model, RuleSet):
        return predict_ruleset(args, model)
    with progress_line(args) as progress:
        ds = read_data(
            args, args.data, schema=model.schema, float32=model.compares_float32, progress=progress
        )
        progress.update("predicting")
        text = ""
        if args.header:
            text = "class" + ("".join(f"\t{c}" for c in model.schema.classes) if args.proba else "")
            text += "\n"
        text += format_predictions(model, ds.X, args.proba)
    write_predictions(args, text, ds.n_rows)
    return 0


# --------------------------------------------------------------------- cv


def run_cv(args: argparse.Namespace) -> int:
    """Cross-validate training on DATA and print the fold table and summary."""

    with progress_line(args) as progress:
        # Read once; every fold trains on rows of this one Dataset.
        ds = read_data(
            args, args.data, float32=flavor_compares_float32(args.flavor), progress=progress
        )
        if not args.loo:
            check_folds(args.folds, ds.n_rows)
        train_fold = _fit(args)
        folds_done = [0]

        def fit(train_ds: Dataset) -> Model:
            folds_done[0] += 1
            progress.update(f"cross-validating: fold {folds_done[0]}", rows=train_ds.n_rows)
            return train_fold(train_ds)

        result = cross_validate(ds, fit, predict, folds=args.folds, seed=args.seed, loo=args.loo)
    sys.stdout.write(format_cv(result, args.data, per_fold=not args.loo))
    return 0


# --------------------------------------------------------------- register


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the train, show, eval, predict and cv subcommands to ``sub``."""
    p = sub.add_parser(
        "train",
        help="train a C4.5 tree from DATA",
        description="Train a C4.5 decision tree on DATA and save it as a model "
        "file (a one-line summary goes to stderr).",
        epilog=TRAIN_EPILOG,
    )
    p.add_argument("data", metavar="DATA")
    p.add_argument(
        "-o",
        "--output",
        metavar="MODEL",
        default=None,
        help="model file to write (default: ./STEM.tree, see below)",
    )
    add_data_options(p)
    _add_train_options(p)
    p.set_defaults(func=run_train)

    p = sub.add_parser(
        "show",
        help="print a model's tree",
        description="Print MODEL's tree in C4.5 Release 8's layout (the "
        "'Decision Tree:' or 'Simplified Decision Tree:' section of "
        "its output), in Weka J48's, or as a Graphviz graph. A ruleset "
        "('treegen rules -o') prints in c4.5rules' layout ('Final rules', "
        "'Default class').",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument(
        "--format",
        choices=(*STYLES, DOT, RULES),
        default="c45",
        help="c45 (default): leaves (N/E) with E the tree's stored errors, "
        "estimated for a pruned c45 tree; j48: J48's layout and footer; "
        "dot: Graphviz DOT, one box per node (test or class, class "
        "distribution, N/E), leaves coloured by class, edges labelled "
        "(render with 'treegen plot' or 'dot -Tsvg'); rules: one line per leaf, "
        "'IF test AND test ... THEN class C', the tests on its path from the root, "
        "leaves in pre-order (branch order, as in the model file)",
    )
    p.set_defaults(func=run_show)

    p = sub.add_parser(
        "eval",
        help="evaluate a model on DATA",
        description="Classify DATA with MODEL and print tree size, errors, error "
        "rate (and, for a pruned tree, C4.5's pessimistic estimate) "
        "in C4.5 Release 8's evaluation layout, then its confusion "
        "matrix (rows: actual class, columns: predicted). MODEL may be a "
        "ruleset ('treegen rules -o'): then c4.5rules' table (per rule used: "
        "size, error estimate, cases used, wrong, advantage), the errors and "
        "the confusion matrix, as c4.5rules -u prints them.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("data", metavar="DATA")
    p.add_argument(
        "--unpruned",
        metavar="RAW_MODEL",
        default=None,
        help="also evaluate RAW_MODEL (the same data trained with --no-prune) and "
        "print Release 8's Before/After Pruning table",
    )
    p.set_defaults(func=run_eval)

    p = sub.add_parser(
        "predict",
        help="predict DATA rows with a model",
        description="Print one line per row of DATA: the predicted class, and "
        "with --proba the class probabilities in the model's class "
        "order, tab-separated with six decimals. MODEL may be a ruleset "
        "('treegen rules -o'; classes only).",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("data", metavar="DATA")
    p.add_argument(
        "--proba",
        action="store_true",
        default=False,
        help="append the probability of every class to each line",
    )
    p.add_argument(
        "--header",
        action="store_true",
        default=False,
        help="start with a header line naming the columns",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=None,
        help="write to FILE (atomically) instead of stdout",
    )
    p.set_defaults(func=run_predict)

    p = sub.add_parser(
        "cv",
        help="cross-validate training on DATA",
        description="Estimate the error of training on DATA by stratified k-fold "
        "cross-validation (printing a line per fold) or leave-one-out; ends "
        "with the mean error and its standard error.",
    )
    p.add_argument("data", metavar="DATA")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument(
        "--folds",
        metavar="K",
        type=int_range(2),
        default=None,
        help="K stratified folds (2 <= K <= number of rows)",
    )
    how.add_argument(
        "--loo", action="store_true", default=False, help="leave-one-out: one fold per row"
    )
    p.add_argument(
        "--seed",
        metavar="S",
        type=int_range(0),
        default=1,
        help="seed of the fold assignment (default 1; same seed, same folds)",
    )
    add_data_options(p)
    _add_train_options(p, cv=True)
    p.set_defaults(func=run_cv)
