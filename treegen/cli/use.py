"""Subcommands ``show``, ``eval`` and ``predict``: using a model of any kind.

Each reads MODEL with :func:`treegen.kinds.load` and calls its kind's printer,
evaluation or classifier (the registry's entry, :mod:`treegen.kinds`), writing the
result to stdout (predictions optionally to a file, atomically).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.cli.common import (
    add_class_column_option,
    add_weights_option,
    evaluation_label,
    naming_cells,
    note_unlabelled,
    read_data,
    write_predictions,
)
from treegen.cli.progress import Progress, progress_line
from treegen.data.dataset import Dataset
from treegen.errors import UsageError
from treegen.kinds import Kind, a_kind, load, show_formats

# ------------------------------------------------------------------- show


def run_show(args: argparse.Namespace) -> int:
    """Print MODEL in the chosen layout."""
    kind, value = load(args.model)
    printer = kind.show.get(args.format or next(iter(kind.show)))
    if printer is None:
        layouts = ", ".join(kind.show)
        raise UsageError(f"{a_kind(kind.name)} prints as {layouts} only", option="--format")
    sys.stdout.write(printer(value))
    return 0


def _read_for(args: argparse.Namespace, value: Any, progress: Progress) -> Dataset:
    """DATA read onto MODEL's attributes and classes, its values as MODEL compares them."""
    return read_data(
        args, args.data, schema=value.schema, float32=value.compares_float32, progress=progress
    )


def _is_regressor(kind: Kind[Any, Any], value: Any) -> bool:
    """Whether ``value`` predicts numbers (its kind's ``values`` gives some, here for no
    rows), not classes."""
    no_rows = np.empty((0, len(value.schema.attributes)), dtype=np.float64)
    return kind.values is not None and kind.values(value, no_rows) is not None


# ------------------------------------------------------------------- eval


def run_eval(args: argparse.Namespace) -> int:
    """Print MODEL's evaluation on DATA (and RAW_MODEL's with --unpruned)."""
    kind, value = load(args.model)
    if _is_regressor(kind, value):
        # MODEL's fault, found before DATA is read: read as labelled data for a
        # regressor, DATA's numbers would be taken for class names and refused.
        raise UsageError(
            "eval counts misclassified rows; a regressor predicts numbers "
            "(use 'treegen predict' for its values)",
            file=args.model,
        )
    # A tree's evaluation counts an ARFF file's instance weights as Weka's Evaluation
    # does; the other kinds' layouts (c4.5rules', Weka's committees', scikit-learn's)
    # count rows, so for them the reader refuses a weight at its line.
    args.reads_weights = kind.reads_weights
    if args.weight_column is not None and not args.reads_weights:
        raise UsageError(f"{a_kind(kind.name)}'s evaluation counts rows", option="--weights")
    with progress_line(args) as progress:
        ds = _read_for(args, value, progress)
        progress.update("evaluating")
        label = evaluation_label(ds, value.data_fingerprint)
        with naming_cells(args, ds):
            text = kind.evaluate(value, ds, label, args.unpruned)
    sys.stdout.write(text)
    note_unlabelled(args, ds)
    return 0


# ---------------------------------------------------------------- predict


def format_predictions(
    kind: Kind[Any, Any], value: Any, x: npt.NDArray[np.float64], proba: bool
) -> str:
    """One line per row: the class, and with ``proba`` the class probabilities.

    Probabilities follow the model's class order, tab-separated, with six
    decimals (``%.6f``), so the text is the same on every platform.  A regressor's
    line is its outputs, tab-separated, each as Python's ``repr`` writes the float64
    (the shortest text that reads back as the same bits).  A class name is printed
    as show prints it (``Schema.printed``): a tab or newline in it would split the line.
    """

    classes = value.schema.printed().classes
    values = kind.values(value, x) if kind.values else None
    if values is not None:  # a regressor: each output as repr prints it (round-trips)
        assert not proba, "refused by _check_proba"
        return "".join("\t".join(repr(float(v)) for v in row) + "\n" for row in values)
    predicted = np.asarray(kind.predict(value, x))
    if not proba:
        return "".join(classes[int(c)] + "\n" for c in predicted)
    assert kind.predict_proba is not None
    probs = np.asarray(kind.predict_proba(value, x), dtype=np.float64)
    lines = []
    for c, row in zip(predicted, probs, strict=True):
        # "+ 0.0" turns a -0.0 into 0.0 so it never prints as "-0.000000".
        lines.append(classes[int(c)] + "".join(f"\t{p + 0.0:.6f}" for p in row) + "\n")
    return "".join(lines)


def _check_proba(kind: Kind[Any, Any], value: Any) -> None:
    """``--proba``'s usage error, before DATA is read, for a model without class
    probabilities: a kind without them (a ruleset), a regressor, or a value whose
    ``predict_proba`` refuses (an IsolationForest: asked here for no rows)."""
    if kind.predict_proba is None:
        raise UsageError(
            f"{a_kind(kind.name)} gives a class, not class probabilities", option="--proba"
        )
    if _is_regressor(kind, value):
        raise UsageError("a regressor predicts numbers, not class probabilities", option="--proba")
    try:
        kind.predict_proba(value, np.empty((0, len(value.schema.attributes))))
    except UsageError as exc:
        raise UsageError(exc.message, option="--proba") from None


def run_predict(args: argparse.Namespace) -> int:
    """Print (or write) one prediction line per row of DATA."""
    kind, value = load(args.model)
    if args.proba:
        _check_proba(kind, value)
    with progress_line(args) as progress:
        ds = _read_for(args, value, progress)
        progress.update("predicting")
        text = ""
        if args.header:
            classes = value.schema.printed().classes  # one line, as the rows print them
            if _is_regressor(kind, value):
                text = "\t".join(classes)  # a regressor's outputs
            else:
                text = "class" + ("".join(f"\t{c}" for c in classes) if args.proba else "")
            text += "\n"
        with naming_cells(args, ds):
            text += format_predictions(kind, value, ds.X, args.proba)
    write_predictions(args, text, ds.n_rows)
    return 0


# --------------------------------------------------------------- register


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the show, eval and predict subcommands to ``sub``."""
    p = sub.add_parser(
        "show",
        help="print a model's tree",
        description="Print MODEL's tree in C4.5 Release 8's layout (the "
        "'Decision Tree:' or 'Simplified Decision Tree:' section of "
        "its output), in Weka J48's, or as a Graphviz graph. A ruleset "
        "('treegen rules -o') prints in c4.5rules' layout ('Final rules', "
        "'Default class'); a committee ('train --boost/--bag') as Weka prints "
        "AdaBoostM1 and Bagging.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument(
        "--format",
        choices=show_formats(),
        default=None,
        help="the default is each kind's first: c45 for a tree, weka for a committee "
        "(--boost, --bag: every tree and its weight as Weka's AdaBoostM1 and Bagging print "
        "them, J48's layout for j48 trees, Release 8's for c45 ones; j48 or c45 choose the "
        "trees' layout). c45: leaves (N/E) with E the tree's stored errors, "
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
        "the confusion matrix, as c4.5rules -u prints them. A tree counts the rows of an "
        "ARFF file with instance weights ({w} after a row) by their weights, as Weka's "
        "Evaluation does: items, errors and cells are sums of weights, printed as Weka "
        "prints them (4 decimals, the cells 2); the other kinds refuse them.",
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
    add_class_column_option(p)
    add_weights_option(p)
    p.set_defaults(func=run_eval)

    p = sub.add_parser(
        "predict",
        help="predict DATA rows with a model",
        description="Print one line per row of DATA: the predicted class, and "
        "with --proba the class probabilities in the model's class "
        "order, tab-separated with six decimals. MODEL may be a ruleset "
        "('treegen rules -o'; classes only). An ARFF row's instance weight ({w}) is "
        "read and left out: a row's class does not depend on it.",
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
    add_weights_option(p)
    # reads_weights: a row's class does not depend on its instance weight, which
    # predict reads (so a weighted ARFF file is no error) and leaves out, as Weka's -p.
    p.set_defaults(func=run_predict, wants_labels=False, reads_weights=True)
