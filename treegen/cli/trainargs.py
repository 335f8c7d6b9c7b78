"""The training options ``train`` and ``cv`` share, and the training function they make.

:func:`add_train_options` adds the flags (C4.5's and J48's pruning, pre-pruning, the
flavour, the committees); :func:`check_train_args`, the one home of their checks, refuses
the combinations the options cannot make (before DATA is read) and returns the checked
:class:`~treegen.model.options.TrainOptions`, from which :func:`training_function`
makes a one-argument function training a tree or a committee on a Dataset.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from treegen.cli.common import (
    add_min_cases_and_cf,
    add_subsets_and_criterion,
    float_range,
    int_range,
    read_data,
)
from treegen.cli.progress import Progress
from treegen.data.dataset import Dataset
from treegen.errors import UsageError
from treegen.model.core import Model, flavor_compares_float32
from treegen.model.optnames import OptionNames, flags_renamed
from treegen.trainer import TrainOptions, train
from treegen.trainer.options import PRUNINGS

if TYPE_CHECKING:
    from treegen.committee.core import Committee

# The committees are imported where used: a tree's training needs neither.


def add_train_options(parser: argparse.ArgumentParser, *, cv: bool = False) -> None:
    """The training options; ``cv``: for ``treegen cv``, whose --folds/--seed are its own."""
    group = parser.add_argument_group("training options")
    add_min_cases_and_cf(group, "pruning confidence in (0, 1); smaller prunes more (default 0.25)")
    parser.set_defaults(cf=None)  # None: not given (0.25); given, error-based pruning uses it
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
    parser.set_defaults(rep_flags=(folds_flag, seed_flag))  # for _refuse_unused's messages
    group.add_argument(
        folds_flag,
        dest="rep_folds",
        metavar="N",
        type=int_range(2),
        default=None,  # None: not given (3); given, it needs reduced-error pruning
        help="reduced-error pruning: N folds, one for pruning (J48's -N; default 3)",
    )
    group.add_argument(
        seed_flag,
        dest="rep_seed",
        metavar="S",
        type=int,
        default=None,  # None: not given (1)
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
        help="follow C4.5 Release 8 (default) or Weka J48 (which has no --subsets and no "
        "--criterion gain)",
    )
    committee = parser.add_argument_group(
        "committees (boosted or bagged trees; docs/committees.md)"
    )
    # train writes the committee; cv trains one per fold and writes nothing.
    made = "each fold's model is a committee" if cv else "writes a committee"
    which = committee.add_mutually_exclusive_group()
    which.add_argument(
        "--boost",
        metavar="N",
        type=int_range(1),
        default=None,
        help="AdaBoost.M1 with N rounds of trees, by reweighting (with --flavor j48 Weka's "
        f"AdaBoostM1 -I N -W J48); {made}",
    )
    which.add_argument(
        "--bag",
        metavar="N",
        type=int_range(1),
        default=None,
        help="N trees, each on a bootstrap sample of DATA (with --flavor j48 Weka's "
        f"Bagging -I N -W J48); {made}",
    )
    committee.add_argument(
        "--bag-seed",
        metavar="S",
        type=int,
        default=1,
        help="--bag: the seed of the bootstrap draws (Weka's -S, java.util.Random; default 1)",
    )


def _refuse_unused(args: argparse.Namespace) -> None:
    """A usage error for a pruning option the chosen pruning does not use: silently
    ignored, it would look as if it had shaped the tree (Weka's J48 refuses -C with -R,
    -U with -R, and -C with -U, the same way)."""
    reduced_error = args.pruning == "reduced-error"
    if reduced_error and not args.prune:
        raise UsageError(
            "keeps the unpruned tree; --prune reduced-error prunes it", option="--no-prune"
        )
    if not args.prune and args.cf is not None:
        raise UsageError(
            "is error-based pruning's confidence; --no-prune keeps the unpruned tree",
            option="--cf",
        )
    if not reduced_error:
        for value, flag in zip((args.rep_folds, args.rep_seed), args.rep_flags, strict=True):
            if value is not None:
                raise UsageError("needs --prune reduced-error", option=flag)
    elif args.cf is not None:
        raise UsageError(
            "is error-based pruning's confidence; --prune reduced-error does not use it",
            option="--cf",
        )


def _train_options(args: argparse.Namespace) -> TrainOptions:
    """The :class:`TrainOptions` the command line asks for (refusing options that the
    chosen pruning would ignore).  An option not given (None) keeps TrainOptions'
    default."""

    _refuse_unused(args)
    given = {"cf": args.cf, "folds": args.rep_folds, "seed": args.rep_seed}
    return TrainOptions(
        min_cases=args.min_cases,
        prune=args.prune,
        subsets=args.subsets,
        criterion=args.criterion,
        flavor=args.flavor,
        max_depth=args.max_depth,
        min_gain_ratio=args.min_gain_ratio,
        pruning=args.pruning,
        **{k: v for k, v in given.items() if v is not None},
    )


def option_names(args: argparse.Namespace) -> OptionNames:
    """The command's flags, as the trainer's errors name them (``cv``'s reduced-error
    folds and seed are ``--prune-folds`` and ``--prune-seed``)."""
    folds_flag, seed_flag = getattr(args, "rep_flags", ("--folds", "--seed"))
    return flags_renamed(folds=folds_flag, seed=seed_flag)


def check_train_args(args: argparse.Namespace) -> TrainOptions:
    """The command line's :class:`TrainOptions`, checked with the combinations they cannot
    make refused: what ``train`` and ``cv`` call before reading DATA, so that a flag in
    conflict is named before a large file is read (``cv`` named it at its first fold).
    Called once a command: :func:`training_function` takes what it returns."""
    opts = _train_options(args)
    opts.validate(option_names(args))
    validation_file = getattr(args, "validation", None)
    if validation_file is not None and not opts.reduced_error:
        raise UsageError("needs --prune reduced-error", option="--validation")
    if validation_file is not None:
        # The tree grows on all of DATA and prunes on FILE's rows: no fold, no shuffle.
        for value, flag in zip((args.rep_folds, args.rep_seed), args.rep_flags, strict=True):
            if value is not None:
                raise UsageError(
                    "reduced-error pruning on --validation holds out no fold", option=flag
                )
    if args.bag is None and args.bag_seed != 1:
        raise UsageError("needs --bag", option="--bag-seed")
    if (args.boost is not None or args.bag is not None) and validation_file is not None:
        raise UsageError("trains one tree, not a committee", option="--validation")
    if getattr(args, "weight_column", None) is not None and (
        args.boost is not None or args.bag is not None
    ):
        # As committee/boost.py refuses an ARFF file's weights, but named before reading.
        committee = "--boost" if args.boost is not None else "--bag"
        raise UsageError(
            f"instance weights are for one tree: {committee} weights or draws the cases itself",
            option="--weights",
        )
    return opts


def training_function(
    args: argparse.Namespace,
    opts: TrainOptions,
    progress: Progress | None = None,
) -> Callable[[Dataset], Any]:
    """A one-argument training function with ``opts``, the command line's options as
    :func:`check_train_args` returned them (so checked): a tree, or with --boost / --bag
    a committee."""

    validation_file = getattr(args, "validation", None)
    names = option_names(args)
    if args.boost is not None or args.bag is not None:
        report = progress.nodes if progress is not None else None

        def fit_committee(ds: Dataset) -> Committee:
            from treegen.committee.bag import bag  # here: a tree's training needs neither
            from treegen.committee.boost import boost

            if args.boost is not None:
                return boost(ds, opts, args.boost, progress=report, names=names)
            return bag(ds, opts, args.bag, args.bag_seed, progress=report, names=names)

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
            names=names,
        )

    return fit
