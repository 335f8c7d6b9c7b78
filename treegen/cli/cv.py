"""Subcommand ``cv``: cross-validate training on DATA (:mod:`treegen.analysis.cv`).

DATA is read once and every fold trains, with the training options of ``train``
(:mod:`treegen.cli.trainargs`, where ``--folds``/``--seed`` are cv's own and reduced-error
pruning's are ``--prune-folds``/``--prune-seed``), on rows of that one Dataset; the fold
table and summary go to stdout.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.cli.common import add_data_options, add_weights_option, int_range, read_data
from treegen.cli.progress import progress_line
from treegen.cli.trainargs import (
    add_train_options,
    check_train_args,
    option_names,
    training_function,
)
from treegen.data.dataset import Dataset
from treegen.errors import TrainError, UsageError
from treegen.model.core import flavor_compares_float32
from treegen.trainer import TrainOptions


def run_cv(args: argparse.Namespace) -> int:
    """Cross-validate training on DATA and print the fold table and summary."""
    from treegen.analysis.cv import check_folds, cross_validate, format_cv
    from treegen.kinds import kind_of

    if args.weka_folds and args.loo:
        raise UsageError("takes --folds K, not --loo", option="--weka-folds")
    if args.loo and args.seed is not None:
        # leave-one-out's folds are the rows themselves: no seed could change them
        raise UsageError("assigns --folds K's folds; --loo has one fold per row", option="--seed")
    if args.seed is None:
        args.seed = 1
    # the trainer's errors name train's flags; cv's are add_train_options' rep_flags
    renamed = dict(zip(("--folds", "--seed"), args.rep_flags, strict=True))
    try:  # the options' conflicts before DATA is read, not at the first fold
        opts = check_train_args(args)
    except TrainError as err:
        if err.option not in renamed:
            raise
        raise TrainError(err.message, option=renamed[err.option]) from err
    train_fold = training_function(args, opts)
    with progress_line(args) as progress:
        # Read once; every fold trains on rows of this one Dataset.
        ds = read_data(
            args, args.data, float32=flavor_compares_float32(args.flavor), progress=progress
        )
        if not args.loo:
            check_folds(args.folds, ds.n_rows)
        if ds.weights is not None:
            _check_weighted(args, opts, ds)
        folds_done = [0]

        def fit(train_ds: Dataset) -> Any:
            folds_done[0] += 1
            progress.update(f"cross-validating: fold {folds_done[0]}", rows=train_ds.n_rows)
            try:
                return train_fold(train_ds)
            except TrainError as err:
                if err.option not in renamed:
                    raise
                raise TrainError(err.message, option=renamed[err.option]) from err

        def predict(value: Any, x: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
            return np.asarray(kind_of(value).predict(value, x), dtype=np.intp)

        result = cross_validate(
            ds, fit, predict, folds=args.folds, seed=args.seed, loo=args.loo, weka=args.weka_folds
        )
    sys.stdout.write(format_cv(result, args.data, per_fold=not args.loo))
    return 0


def _check_weighted(args: argparse.Namespace, opts: TrainOptions, ds: Dataset) -> None:
    """What training refuses of weighted rows (a committee, reduced-error pruning, rows
    without a class...), said once before the first fold rather than as its error."""
    from treegen.committee.boost import refuse_instance_weights
    from treegen.trainer.prepare import checked

    for option, members in (("--boost", args.boost), ("--bag", args.bag)):
        if members is not None:
            refuse_instance_weights(ds, option)
    checked(ds, opts, None, None, option_names(args))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the cv subcommand to ``sub``."""
    p = sub.add_parser(
        "cv",
        help="cross-validate training on DATA",
        description="Estimate the error of training on DATA by stratified k-fold "
        "cross-validation (printing a line per fold) or leave-one-out; ends "
        "with the mean error and its standard error. On an ARFF file with instance "
        "weights ({w} after a row) each fold trains on its rows' weights and counts its "
        "test rows by theirs, as Weka's cross-validation does (with --weka-folds, "
        "Weka's figures); not with --boost or --bag.",
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
        default=None,
        help="seed of the fold assignment (default 1; same seed, same folds; not with --loo)",
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
    add_weights_option(p)
    add_train_options(p, cv=True)
    # reads_weights: a fold trains on its rows' instance weights and counts its test
    # rows by theirs (treegen.analysis.cv)
    p.set_defaults(func=run_cv, reads_weights=True)
