"""Subcommand ``rules``: c4.5rules' ruleset from DATA's unpruned tree, printed in its layout."""

from __future__ import annotations

import argparse
import sys

from treegen.cli.common import add_data_options, add_min_cases_and_cf, read_data
from treegen.rules.generate import generate
from treegen.rules.show import format_rules, format_rules_evaluation
from treegen.trainer import TrainOptions, train


def run_rules(args: argparse.Namespace) -> int:
    """Train the unpruned c45 tree on DATA, make its rules and print them and their evaluation."""
    ds = read_data(args, args.data, float32=True)
    tree = train(ds, TrainOptions(min_cases=args.min_cases, cf=args.cf, prune=False))
    printed, _final = generate(ds, tree, args.cf)
    sys.stdout.write(format_rules(printed))
    sys.stdout.write(format_rules_evaluation(printed, "training", ds.X, ds.y, drop=True))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the rules subcommand to ``sub``."""
    p = sub.add_parser(
        "rules",
        help="make C4.5's rules (c4.5rules) from DATA",
        description="Grow DATA's unpruned C4.5 tree, turn it into c4.5rules' ruleset and print "
        "it in c4.5rules' layout ('Final rules', 'Default class', the training evaluation "
        "with each 'Drop rule' step, the confusion matrix).",
    )
    p.add_argument("data", metavar="DATA")
    add_min_cases_and_cf(p, "confidence of the pessimistic bound (default 0.25)")
    add_data_options(p)
    p.set_defaults(func=run_rules)
