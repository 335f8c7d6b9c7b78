"""Subcommands ``show``, ``eval`` and ``predict``: using a model (or a ruleset).

Each reads MODEL with :func:`treegen.rules.file.load_model_or_ruleset` and
hands a ruleset to treegen.cli.rules; for a tree it calls
:mod:`treegen.model.show` (or :mod:`treegen.model.picture`),
:mod:`treegen.analysis.evaluate` or :mod:`treegen.model.classify` and writes
the result to stdout (predictions optionally to a file, atomically).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import numpy.typing as npt

from treegen.analysis.evaluate import evaluate, format_evaluation
from treegen.cli.common import (
    add_class_column_option,
    evaluation_label,
    note_unlabelled,
    read_data,
    write_predictions,
)
from treegen.cli.progress import Progress, progress_line
from treegen.cli.rules import eval_ruleset, predict_ruleset
from treegen.data.dataset import Dataset
from treegen.errors import UsageError
from treegen.model.classify import predict, predict_proba
from treegen.model.core import Model
from treegen.model.file import load_model
from treegen.model.picture import format_dot
from treegen.model.show import STYLES, format_tree, is_pruned
from treegen.rules.core import RuleSet
from treegen.rules.file import load_model_or_ruleset
from treegen.rules.show import format_path_rules, format_rules

# show --format dot: the Graphviz graph instead of a text layout; rules: a tree's paths.
DOT = "dot"
RULES = "rules"


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


def _read_for(args: argparse.Namespace, model: Model, progress: Progress) -> Dataset:
    """DATA read onto MODEL's attributes and classes, its values as MODEL compares them."""
    return read_data(
        args, args.data, schema=model.schema, float32=model.compares_float32, progress=progress
    )


# ------------------------------------------------------------------- eval


def run_eval(args: argparse.Namespace) -> int:
    """Print MODEL's evaluation on DATA (and RAW_MODEL's with --unpruned)."""

    model = load_model_or_ruleset(args.model)
    if isinstance(model, RuleSet):
        return eval_ruleset(args, model)
    with progress_line(args) as progress:
        ds = _read_for(args, model, progress)
        progress.update("evaluating")
        ev = evaluate(model, ds)
    label = evaluation_label(ds, model.data_fingerprint)
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
    note_unlabelled(args, ds)
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
        ds = _read_for(args, model, progress)
        progress.update("predicting")
        text = ""
        if args.header:
            text = "class" + ("".join(f"\t{c}" for c in model.schema.classes) if args.proba else "")
            text += "\n"
        text += format_predictions(model, ds.X, args.proba)
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
    add_class_column_option(p)
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
    p.set_defaults(func=run_predict, wants_labels=False)
