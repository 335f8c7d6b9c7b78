"""Subcommand ``train`` (``cv``: treegen.cli.cv; ``show``, ``eval``, ``predict``: treegen.cli.use).

It is a thin edge around pure functions: read the inputs
(:mod:`treegen.cli.common`, :mod:`treegen.model.file`), call the trainer with
the options of :mod:`treegen.cli.trainargs` and :mod:`treegen.analysis.evaluate`
(a test set beside the data), and write
results to stdout (or a file, atomically); progress and summaries go to
stderr unless ``--quiet``.  Bad option values are argparse usage errors, so
they are one line naming the option with exit status 2, like every
:class:`~treegen.errors.TreegenError` (see :mod:`treegen.cli.main`).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from treegen.cli.common import (
    add_data_options,
    add_verbose,
    add_weights_option,
    file_bytes,
    note,
    note_peak_memory,
    note_unlabelled,
    read_data,
    read_test_beside,
)
from treegen.cli.progress import progress_line
from treegen.cli.trainargs import (
    add_train_options,
    check_train_args,
    option_names,
    training_function,
)
from treegen.data.atomic import write_text_atomic
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.model.core import flavor_compares_float32
from treegen.trainer import TrainOptions, train
from treegen.trainer.fit import grow_prepared
from treegen.trainer.heap import (
    STEP_BLOCK,
    SmallRunHeap,
    blocks_mapped_from,
    collection_paused,
    map_large_blocks,
)
from treegen.trainer.prepare import prepare

if TYPE_CHECKING:
    from treegen.kinds import Kind

# Imported where used, not here: the kinds (the tree's loads codegen's export options;
# the registry writes a tree without it), the committees and evaluation are not needed
# by a plain `treegen --quiet train`, whose start-up they lengthened.

TRAIN_EPILOG = (
    "DATA is a CSV file (class: last column or --target), an ARFF file (a row's instance "
    "weight {w} starts its case at that weight, as in J48, and the training errors are "
    "counted in weight), or C4.5 files given"
    " as STEM, STEM.names or STEM.data. Without -o the model is written to the current "
    "folder as DATA's name with its extension replaced by .tree (golf.data -> ./golf.tree; "
    ".committee with --boost or --bag), replacing it atomically. Release 8 equivalents: -m "
    "N is its -m N, --cf 0.25 its -c 25, --subsets its -s, --criterion gain its -g; "
    "--no-prune keeps the tree it prints as 'Decision Tree:'. Weka J48 equivalents (with "
    "--flavor j48): --prune reduced-error is its -R, --folds N its -N N, --seed S its -Q S."
    " When C4.5 DATA has a STEM.test beside it, Release 8's -u evaluation of the tree on it"
    " (before and after pruning, confusion matrix; a pruned run trains the unpruned tree "
    "too for it) follows the summary on stderr; -q leaves both out, 'treegen eval MODEL "
    "STEM.test --unpruned RAW' prints it on stdout."
)


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

    opts = check_train_args(args)  # a flag in conflict is named before DATA is read
    output = Path(args.output) if args.output else _default_output(args)
    quiet = getattr(args, "quiet", False)
    map_large_blocks()  # freed arrays go back to the OS (trainer/heap.py)
    float32 = flavor_compares_float32(args.flavor)
    # Up to KEEP_ROWS rows freed arrays stay on the heap (trainer/heap.py): from the
    # start where the file is small, else once the rows are counted.
    with progress_line(args) as progress, SmallRunHeap(file_bytes(args.data)) as kept:
        with blocks_mapped_from(STEP_BLOCK):  # the reader's pieces: a few MB each
            ds = read_data(args, args.data, float32=float32, progress=progress)
        # STEM.test is read before anything is written: an error in it leaves no model.
        test_ds = None if quiet else read_test_beside(args, ds, float32=float32)
        progress.update("growing", rows=ds.n_rows)
        kept.rows(ds.n_rows)
        # The trainer's objects (tree nodes, model nodes, options) form no reference
        # cycles; at 100k rows the collector ran about 100 times over them.
        # (The classes and weights stay for the summary: spending frees the matrix only.)
        n_rows, y, weights = ds.n_rows, ds.y, ds.weights
        with collection_paused():
            model: Any
            prepared = None
            if _one_tree(args) and test_ds is None:
                # Nothing reads the data after training: its float64 matrix goes as the
                # trainer copies it (at 1M rows of 20 attributes, 160 MB, which was held
                # beside the context's tables).  The training errors are counted from
                # the context's own tables (trainer/errcount.py), kept for that.
                prepared = prepare(ds, opts, spend=True, names=option_names(args))
                del ds
                model = grow_prepared(prepared, progress=progress.nodes, keep_data=not quiet)
            else:
                model = training_function(args, opts, progress)(ds)
            progress.update("writing", nodes=model.size)
            from treegen.kinds import to_json  # a tree: without loading its kind

            write_text_atomic(output, to_json(model))
        if not quiet:
            kind = _kind(model)
            progress.update("counting training errors")
            if prepared is not None:
                from treegen.trainer.errcount import misclassified

                wrong = misclassified(model, prepared.ctx)
            else:  # counted as eval counts them
                predict = kind.error_predict or kind.predict
                wrong = np.asarray(predict(model, ds.X)) != ds.y
            errors, total = _training_errors(wrong, y, weights)
        del prepared
    if not quiet:
        percent = 100.0 * errors / total if total else 0.0
        pruned = "pruned" if args.prune else "unpruned"
        assert kind.trained is not None  # train makes trees and committees, which say
        what = kind.trained(model, f"{pruned} {args.flavor}")
        if weights is None:
            counts = (
                f"{counted(int(errors), 'training error')} ({percent:.1f}%) "
                f"on {counted(n_rows, 'row')}"
            )
        else:  # Weka's "Error on training data": the wrong rows' weight of the total
            from treegen.analysis.evaluate import weight_text

            counts = (
                f"{weight_text(errors)} training errors ({percent:.1f}%) "
                f"on {counted(n_rows, 'row')} of weight {weight_text(total)}"
            )
        note(args, f"treegen: wrote {output}: {what}, {counts}")
        if test_ds is not None:
            sys.stderr.write(_test_evaluation(kind, opts, ds, model, test_ds))
            note_unlabelled(args, test_ds)  # as eval notes them
    note_peak_memory(args)
    return 0


def _training_errors(
    wrong: npt.NDArray[np.bool_],
    y: npt.NDArray[np.integer],
    weights: npt.NDArray[np.float64] | None,
) -> tuple[float, float]:
    """The misclassified training rows and all of them: counts, or on weighted rows
    the weights of the rows with a class value, added in row order as Weka's
    ``Evaluation`` adds them."""
    if weights is None:
        return float(np.count_nonzero(wrong)), float(y.shape[0])
    from treegen.analysis.evaluate import sequential_sum

    known = y >= 0
    return sequential_sum(weights[wrong & known]), sequential_sum(weights[known])


def _kind(value: object) -> Any:
    """The kind of a model value (treegen.kinds, imported here: see the imports)."""
    from treegen.kinds import kind_of

    return kind_of(value)


def _one_tree(args: argparse.Namespace) -> bool:
    """Whether the command trains one tree with no more data than DATA (no committee,
    no reduced-error pruning, none of the options
    :func:`~treegen.cli.trainargs.training_function` refuses)."""
    return (
        args.boost is None
        and args.bag is None
        and args.bag_seed == 1
        and args.pruning != "reduced-error"
        and getattr(args, "validation", None) is None
    )


def _test_evaluation(
    kind: Kind[Any, Any], opts: TrainOptions, ds: Dataset, model: object, test_ds: Dataset
) -> str:
    """The evaluation of ``model`` on STEM.test, as its kind words it for train (a tree:
    Release 8's ``-u`` block, whose Before Pruning columns are of the same growth trained
    again with ``--no-prune``, here); a kind with no such wording as eval prints it."""
    if kind.evaluate_trained is None:
        text: str = kind.evaluate(model, test_ds, "test", None)
        return text
    return kind.evaluate_trained(
        model, test_ds, "test", lambda: train(ds, dataclasses.replace(opts, prune=False))
    )


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
    add_weights_option(p)
    add_train_options(p)
    # default_output: for the check that no output overwrites an input (cli.common).
    add_verbose(p)
    p.set_defaults(func=run_train, default_output=default_output, reads_weights=True)
