"""Subcommand ``rules`` (c4.5rules' ruleset from DATA's unpruned tree, printed in its
layout, saved with ``-o``), and what ``eval`` and ``predict`` do with a ruleset file."""

from __future__ import annotations

import argparse
import sys

from treegen.cli.common import (
    add_data_options,
    add_min_cases_and_cf,
    add_subsets_and_criterion,
    evaluation_label,
    note,
    note_unlabelled,
    read_data,
    write_predictions,
)
from treegen.errors import UsageError
from treegen.rules.core import RuleSet, predict
from treegen.rules.file import save_ruleset
from treegen.rules.generate import rules_of_data
from treegen.rules.show import format_rules, format_rules_evaluation


def run_rules(args: argparse.Namespace) -> int:
    """Train the unpruned c45 tree on DATA, make its rules and print them and their evaluation."""
    ds = read_data(args, args.data, float32=True)
    printed, final = rules_of_data(
        ds, min_cases=args.min_cases, cf=args.cf, subsets=args.subsets, criterion=args.criterion
    )
    if args.output is not None:
        save_ruleset(final, args.output)
    sys.stdout.write(format_rules(printed))
    sys.stdout.write(format_rules_evaluation(printed, "training", ds.X, ds.y, drop=True))
    if args.output is not None:
        note(args, f"treegen: wrote {args.output}: {len(final.rules)} rules")
    return 0


def eval_ruleset(args: argparse.Namespace, rs: RuleSet) -> int:
    """``treegen eval RULES DATA``: c4.5rules' evaluation table and confusion matrix."""
    if args.unpruned is not None:
        raise UsageError("applies to trees, not to a ruleset", option="--unpruned")
    ds = read_data(args, args.data, schema=rs.schema, float32=rs.compares_float32)
    label = evaluation_label(ds, rs.data_fingerprint)
    labelled = ds.y >= 0
    sys.stdout.write(format_rules_evaluation(rs, label, ds.X[labelled], ds.y[labelled]))
    note_unlabelled(args, ds)
    return 0


def predict_ruleset(args: argparse.Namespace, rs: RuleSet) -> int:
    """``treegen predict RULES DATA``: the class of every row, one per line."""
    if args.proba:
        raise UsageError("a ruleset gives a class, not class probabilities", option="--proba")
    ds = read_data(args, args.data, schema=rs.schema, float32=rs.compares_float32)
    classes = rs.schema.classes
    text = "class\n" if args.header else ""
    text += "".join(classes[int(c)] + "\n" for c in predict(rs, ds.X))
    write_predictions(args, text, ds.n_rows)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the rules subcommand to ``sub``."""
    p = sub.add_parser(
        "rules",
        help="make C4.5's rules (c4.5rules) from DATA",
        description="Grow DATA's unpruned C4.5 tree, turn it into c4.5rules' ruleset and print "
        "it in c4.5rules' layout ('Final rules', 'Default class', the training evaluation "
        "with each 'Drop rule' step, the confusion matrix).",
        epilog="With -o the ruleset that classifies (after the 'Drop rule' steps) is saved as "
        "JSON (format treegen-rules), which 'treegen eval', 'predict', 'export' and "
        "'verify' take in place of a model: the first rule whose conditions all hold "
        "gives the class, else the default class; a condition on a missing value does "
        "not hold.",
    )
    p.add_argument("data", metavar="DATA")
    p.add_argument(
        "-o",
        "--output",
        metavar="RULES",
        default=None,
        help="write the ruleset to RULES (JSON, atomically)",
    )
    add_min_cases_and_cf(p, "confidence of the pessimistic bound (default 0.25)")
    add_subsets_and_criterion(p)
    add_data_options(p)
    p.set_defaults(func=run_rules)
