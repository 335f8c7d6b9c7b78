"""Subcommand ``rules``: c4.5rules' ruleset from DATA's unpruned tree, printed in its
layout, saved with ``-o`` (a ruleset file, which every command that reads a model takes)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, cast

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
    from treegen.data.dataset import Dataset
    from treegen.rules.file import save_ruleset
    from treegen.rules.generate import generalise, select, unpruned_options
    from treegen.rules.show import format_cover_evaluation, format_rules
    from treegen.trainer.fit import grow_prepared, prepare
    from treegen.trainer.levelwise.grow import release_freed_memory

    with progress_line(args) as progress:
        ds = read_data(args, args.data, float32=True, progress=progress)
        progress.update("growing the unpruned tree", rows=ds.n_rows)
        opts = unpruned_options(args.min_cases, args.cf, args.subsets, args.criterion)
        # The growth reads the trainer's context, the rules the values as float32 (the
        # file's values are float32 ones, and every comparison of the rules rounds to
        # float32): the float64 table goes before the growth (160 MB at 1M rows of 20
        # attributes, for a float32 one of 80).
        prepared = prepare(ds, opts)
        values = Dataset(
            ds.schema, cast("npt.NDArray[np.float64]", ds.x32), ds.y, ds.source, ds.labels
        )
        del ds
        tree = grow_prepared(prepared, progress=progress.nodes)
        del prepared
        # The growth's freed arrays stay in glibc's heap unless handed back (about 200 MB
        # at 1M rows).
        release_freed_memory()
        found = generalise(values, tree, args.cf, progress=progress.steps)
        # The rest reads neither the tree nor the values (the rules' cases are known, and
        # the tree's fingerprint is the data's).
        y, schema, fingerprint = values.y, values.schema, tree.data_fingerprint
        del tree, values
        cover: list[npt.NDArray[np.int32]] = []  # the printed rules' rows, for the evaluation
        printed, final = select(found, y, schema, fingerprint, progress.steps, cover)
        del found
        if args.output is not None:
            progress.update("writing")
            save_ruleset(final, args.output)
        progress.update("evaluating on the training data")
        evaluation = format_cover_evaluation(printed, "training", cover, y, drop=True)
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
