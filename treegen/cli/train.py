"""Subcommands ``train`` and ``cv`` (``show``, ``eval`` and ``predict``: treegen.cli.use).

Each is a thin edge around pure functions: read the inputs
(:mod:`treegen.cli.common`, :mod:`treegen.model.file`), call the trainer,
:mod:`treegen.analysis.evaluate` (a test set beside the data) or
:mod:`treegen.analysis.cv`, and write
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
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from treegen.cli.common import (
    add_data_options,
    add_min_cases_and_cf,
    add_subsets_and_criterion,
    add_verbose,
    float_range,
    int_range,
    note,
    note_peak_memory,
    read_data,
)
from treegen.cli.progress import Progress, progress_line
from treegen.data.atomic import write_text_atomic
from treegen.data.dataset import Dataset
from treegen.errors import UsageError
from treegen.model.core import Model, flavor_compares_float32
from treegen.model.file import model_to_json
from treegen.trainer import TrainOptions, train
from treegen.trainer.fit import grow_prepared, prepare
from treegen.trainer.heap import (
    KEEP_BYTES,
    KEEP_ROWS,
    STEP_BLOCK,
    blocks_mapped_from,
    collection_paused,
    freed_blocks_kept,
    map_large_blocks,
)
from treegen.trainer.options import PRUNINGS

if TYPE_CHECKING:
    from treegen.committee.core import Committee

# Imported where used, not here: the kinds' registry (it loads codegen's export
# options), the committees, evaluation and cross-validation are not needed by a plain
# `treegen --quiet train`, whose start-up they lengthened (issue 36).

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
    add_subsets_and_criterion(group)
    group.add_argument(
        "--flavor",
        choices=("c45", "j48"),
        default="c45",
        help="follow C4.5 Release 8 (default) or Weka J48",
    )
    committee = parser.add_argument_group(
        "committees (boosted or bagged trees; docs/committees.md)"
    )
    which = committee.add_mutually_exclusive_group()
    which.add_argument(
        "--boost",
        metavar="N",
        type=int_range(1),
        default=None,
        help="AdaBoost.M1 with N rounds of trees, by reweighting (with --flavor j48 Weka's "
        "AdaBoostM1 -I N -W J48); writes a committee",
    )
    which.add_argument(
        "--bag",
        metavar="N",
        type=int_range(1),
        default=None,
        help="N trees, each on a bootstrap sample of DATA (with --flavor j48 Weka's "
        "Bagging -I N -W J48); writes a committee",
    )
    committee.add_argument(
        "--bag-seed",
        metavar="S",
        type=int,
        default=1,
        help="--bag: the seed of the bootstrap draws (Weka's -S, java.util.Random; default 1)",
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
) -> Callable[[Dataset], Any]:
    """A one-argument training function with the command line's options: a tree, or
    with --boost / --bag a committee."""

    opts = train_options(args)
    validation_file = getattr(args, "validation", None)
    if validation_file is not None and not opts.reduced_error:
        raise UsageError("needs --prune reduced-error", option="--validation")
    if args.bag is None and args.bag_seed != 1:
        raise UsageError("needs --bag", option="--bag-seed")
    if args.boost is not None or args.bag is not None:
        if validation_file is not None:
            raise UsageError("trains one tree, not a committee", option="--validation")
        report = progress.nodes if progress is not None else None

        def fit_committee(ds: Dataset) -> Committee:
            from treegen.committee.bag import bag  # here: a tree's training needs neither
            from treegen.committee.boost import boost

            if args.boost is not None:
                return boost(ds, opts, args.boost, progress=report)
            return bag(ds, opts, args.bag, args.bag_seed, progress=report)

        return fit_committee

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


def default_output(data: str, suffix: str = ".tree") -> Path:
    """``./STEM.tree`` for DATA ``some/dir/STEM.ext`` (or the C4.5 stem ``STEM``);
    ``./STEM.committee`` for a committee."""
    return Path(Path(data).stem + suffix)


def _default_output(args: argparse.Namespace) -> Path:
    from treegen.kinds import kind_named

    committee = args.boost is not None or args.bag is not None
    return default_output(args.data, kind_named("committee").suffix if committee else ".tree")


# ------------------------------------------------------------------ train


def run_train(args: argparse.Namespace) -> int:
    """Train on DATA and save the model; summary on stderr."""

    output = Path(args.output) if args.output else _default_output(args)
    quiet = getattr(args, "quiet", False)
    map_large_blocks()  # freed arrays go back to the OS (trainer/heap.py)
    float32 = flavor_compares_float32(args.flavor)
    # Up to KEEP_ROWS rows freed arrays stay on the heap (trainer/heap.py): from the
    # start where the file is small, else once the rows are counted.
    small = _file_bytes(args.data) <= KEEP_BYTES
    with progress_line(args) as progress, ExitStack() as kept:
        if small:
            kept.enter_context(freed_blocks_kept())
        with blocks_mapped_from(STEP_BLOCK):  # the reader's pieces: a few MB each
            ds = read_data(args, args.data, float32=float32, progress=progress)
        # STEM.test is read before anything is written: an error in it leaves no model.
        test = None
        if not quiet:
            from treegen.analysis.evaluate import test_set_beside

            test = test_set_beside(args.data)
        test_ds = None if test is None else read_data(args, test, schema=ds.schema, float32=float32)
        progress.update("growing", rows=ds.n_rows)
        if small and ds.n_rows > KEEP_ROWS:
            kept.close()  # more rows than the file's size said: growth's arrays go back
        elif not small and ds.n_rows <= KEEP_ROWS:
            kept.enter_context(freed_blocks_kept())
        # The trainer's objects (tree nodes, model nodes, options) form no reference
        # cycles; at 100k rows the collector ran about 100 times over them.
        with collection_paused():
            model: Any
            if quiet and _one_tree(args):
                # Nothing reads the data after training: its float64 matrix goes as the
                # trainer copies it (at 1M rows of 20 attributes, 160 MB, which was held
                # beside the context's tables).
                prepared = prepare(ds, train_options(args), spend=True)
                del ds
                model = grow_prepared(prepared, progress=progress.nodes)
                del prepared
            else:
                model = _fit(args, progress)(ds)
            progress.update("writing", nodes=model.size)
            # A tree is written as the tree kind writes it (model_to_json), without the
            # kinds' registry; any other value through its kind.
            text = model_to_json(model) if type(model) is Model else _kind(model).to_json(model)
            write_text_atomic(output, text)
        if not quiet:
            kind = _kind(model)
            progress.update("counting training errors")
            errors = int(np.count_nonzero(np.asarray(kind.predict(model, ds.X)) != ds.y))
    if not quiet:
        percent = 100.0 * errors / ds.n_rows if ds.n_rows else 0.0
        pruned = "pruned" if args.prune else "unpruned"
        if kind.name == "committee":
            from treegen.committee.core import ADJECTIVE

            what = (
                f"{ADJECTIVE[model.method]} committee of {model.n_members} {pruned} "
                f"{args.flavor} trees ({model.size} nodes, {model.n_leaves} leaves)"
                + (f", stopped at {model.stopped}" if model.stopped else "")
            )
        else:
            what = (
                f"{pruned} {args.flavor} tree of {model.size} nodes "
                f"({model.n_leaves} leaves, depth {model.depth()})"
            )
        note(
            args,
            f"treegen: wrote {output}: {what}, "
            f"{errors} training errors ({percent:.1f}%) on {ds.n_rows} rows",
        )
        if test_ds is not None:
            if kind.name == "committee":
                sys.stderr.write(kind.evaluate(model, test_ds, "test", None))
            else:
                sys.stderr.write(_test_evaluation(args, ds, model, test_ds))
    note_peak_memory(args)
    return 0


def _kind(value: object) -> Any:
    """The kind of a model value (treegen.kinds, imported here: see the imports)."""
    from treegen.kinds import kind_of

    return kind_of(value)


def _file_bytes(path: str) -> int:
    """The size of the file DATA names; for a C4.5 stem (no such file) or anything
    unreadable, more than any limit."""
    try:
        return os.path.getsize(path)
    except OSError:
        return sys.maxsize


def _one_tree(args: argparse.Namespace) -> bool:
    """Whether the command trains one tree with no more data than DATA (no committee,
    no reduced-error pruning, none of the options :func:`_fit` refuses)."""
    return (
        args.boost is None
        and args.bag is None
        and args.bag_seed == 1
        and args.pruning != "reduced-error"
        and getattr(args, "validation", None) is None
    )


def _test_evaluation(args: argparse.Namespace, ds: Dataset, model: Model, test_ds: Dataset) -> str:
    """Release 8's ``-u`` block for STEM.test: before and after pruning, confusion matrix.

    The "Before Pruning" columns need the unpruned tree, so a pruned run
    trains a second time with ``--no-prune`` (the same growth).
    """
    from treegen.analysis.evaluate import evaluate, format_evaluation

    assert test_ds.schema == model.schema
    ev = evaluate(model, test_ds)
    if not args.prune:
        return format_evaluation("test", None, ev)
    raw = train(ds, dataclasses.replace(train_options(args), prune=False))
    return format_evaluation("test", ev, evaluate(raw, test_ds))


# --------------------------------------------------------------------- cv


def run_cv(args: argparse.Namespace) -> int:
    """Cross-validate training on DATA and print the fold table and summary."""
    from treegen.analysis.cv import check_folds, cross_validate, format_cv

    with progress_line(args) as progress:
        # Read once; every fold trains on rows of this one Dataset.
        ds = read_data(
            args, args.data, float32=flavor_compares_float32(args.flavor), progress=progress
        )
        if not args.loo:
            check_folds(args.folds, ds.n_rows)
        train_fold = _fit(args)
        folds_done = [0]

        def fit(train_ds: Dataset) -> Any:
            folds_done[0] += 1
            progress.update(f"cross-validating: fold {folds_done[0]}", rows=train_ds.n_rows)
            return train_fold(train_ds)

        def predict(value: Any, x: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
            return np.asarray(_kind(value).predict(value, x), dtype=np.intp)

        if args.weka_folds and args.loo:
            raise UsageError("takes --folds K, not --loo", option="--weka-folds")
        result = cross_validate(
            ds, fit, predict, folds=args.folds, seed=args.seed, loo=args.loo, weka=args.weka_folds
        )
    sys.stdout.write(format_cv(result, args.data, per_fold=not args.loo))
    return 0


# --------------------------------------------------------------- register


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the train subcommand to ``sub``."""
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
    # default_output: for the check that no output overwrites an input (cli.common).
    add_verbose(p)
    p.set_defaults(func=run_train, default_output=default_output)


def register_cv(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the cv subcommand to ``sub``."""
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
    p.add_argument(
        "--weka-folds",
        action="store_true",
        default=False,
        help="the folds Weka's -x K -s S makes (Evaluation.crossValidateModel: the rows "
        "shuffled by java.util.Random(S), stratified, each training fold shuffled again), "
        "so that a run can be compared with Weka's fold for fold",
    )
    add_data_options(p)
    _add_train_options(p, cv=True)
    p.set_defaults(func=run_cv)
