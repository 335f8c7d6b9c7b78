"""Subcommand ``rules``: c4.5rules' ruleset from DATA's unpruned tree, printed in its
layout, saved with ``-o`` (a ruleset file, which every command that reads a model takes)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from treegen.cli.common import (
    add_data_options,
    add_min_cases_and_cf,
    add_subsets_and_criterion,
    add_verbose,
    note,
    note_peak_memory,
    read_data,
)
from treegen.cli.progress import progress_line

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def run_rules(args: argparse.Namespace) -> int:
    """Train the unpruned c45 tree on DATA, make its rules and print them and their evaluation."""
    # Imported here: every command builds this module's parser.
    from treegen.rules.file import save_ruleset
    from treegen.rules.generate import generate, unpruned_options
    from treegen.rules.show import format_rules, format_rules_evaluation
    from treegen.trainer import train

    with progress_line(args) as progress:
        ds = read_data(args, args.data, float32=True, progress=progress)
        progress.update("growing the unpruned tree", rows=ds.n_rows)
        opts = unpruned_options(args.min_cases, args.cf, args.subsets, args.criterion)
        tree = train(ds, opts, progress=progress.nodes)
        cover: list[npt.NDArray[np.int32]] = []  # the printed rules' rows, for the evaluation
        printed, final = generate(ds, tree, args.cf, progress=progress.steps, cover=cover)
        del tree
        if args.output is not None:
            progress.update("writing")
            save_ruleset(final, args.output)
        progress.update("evaluating on the training data")
        evaluation = format_rules_evaluation(
            printed, "training", ds.X, ds.y, drop=True, cover=cover
        )
    sys.stdout.write(format_rules(printed))
    sys.stdout.write(evaluation)
    if args.output is not None:
        note(args, f"treegen: wrote {args.output}: {len(final.rules)} rules")
    note_peak_memory(args)
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
    add_verbose(p)
    p.set_defaults(func=run_rules)
