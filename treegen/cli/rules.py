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
    file_bytes,
    note,
    note_peak_memory,
    note_unlabelled,
    read_data,
    read_test_beside,
)
from treegen.cli.progress import progress_line
from treegen.data.words import counted

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from treegen.rules.final import ListState


def run_rules(args: argparse.Namespace) -> int:
    """Train the unpruned c45 tree on DATA, make its rules and print them and their evaluation."""
    # Imported here: every command builds this module's parser.
    from treegen.model.core import Model
    from treegen.model.options import ModelOptions
    from treegen.model.optnames import FLAGS
    from treegen.rules.file import save_ruleset
    from treegen.rules.generate import generalise, select, unpruned_options
    from treegen.rules.grown import GrownTree, context_values
    from treegen.rules.show import format_cover_evaluation, format_data_evaluation, format_rules
    from treegen.trainer.fit import grow_unpruned
    from treegen.trainer.heap import (
        SmallRunHeap,
        collection_paused,
        map_large_blocks,
        release_freed_memory,
    )
    from treegen.trainer.levelwise.flat import FlatTree
    from treegen.trainer.prepare import prepare

    # A small run keeps freed blocks on the heap, as `treegen train` does
    # (trainer/heap.py): at 100k rows the generalisation's and the search's arrays were
    # faulted in afresh each time (38,000 page faults a run against 14,000).  A larger
    # file's run keeps glibc's own thresholds and its trims, which the memory target at
    # 1M rows was measured with.
    heap = SmallRunHeap(file_bytes(args.data))
    if heap.small_file:
        map_large_blocks()
    with progress_line(args) as progress, heap:
        ds = read_data(args, args.data, float32=True, progress=progress)
        # STEM.test is read before anything is written (an error in it leaves no
        # ruleset), with DATA's attributes; the final ruleset is evaluated on it.
        test_ds = read_test_beside(args, ds, float32=True)
        heap.rows(ds.n_rows)
        progress.update("growing the unpruned tree", rows=ds.n_rows)
        opts = unpruned_options(args.min_cases, args.cf, args.subsets, args.criterion)
        # The growth reads the trainer's context; the rules read the same values from
        # the context's tables once the tree is grown (context_values), so the file's
        # table goes before the growth and no copy of it is held through the growth.
        prepared, source = prepare(ds, opts, names=FLAGS), ds.source
        del ds
        # The grower's objects form no reference cycles (train pauses the collector too).
        with collection_paused():
            grown = grow_unpruned(prepared, progress=progress.nodes)
        values = context_values(prepared.ctx, prepared.schema, source, prepared.labels)
        labels, fingerprint = prepared.labels, prepared.fingerprint
        del prepared
        # The unpruned tree stays the grower's arrays (GrownTree): its model nodes were
        # about 200 MB at 1M rows.
        tree: Model | GrownTree
        if isinstance(grown, FlatTree):
            tree = GrownTree.of(grown, ModelOptions.of(opts, labels))
        else:
            tree = grown
        del grown
        # The growth's, the context's and the grown arrays' freed blocks stay in glibc's
        # heap unless handed back (about 100 MB at 1M rows).
        release_freed_memory()
        found = generalise(values, tree, args.cf, progress=progress.steps)
        # The rest reads neither the tree nor the values (the rules' cases are known).
        y, schema = values.y, values.schema
        del tree, values
        release_freed_memory()  # the generalisation's columns and bitsets, the values
        cover: list[npt.NDArray[np.int32]] = []  # the printed rules' rows, for the evaluation
        lists: list[ListState] = []  # the final pass's rule lists, printed by the evaluation
        printed, final = select(found, y, schema, fingerprint, progress.steps, cover, lists)
        del found
        if args.output is not None:
            progress.update("writing")
            save_ruleset(final, args.output)
        progress.update("evaluating on the training data")
        evaluation = format_cover_evaluation(printed, "training", cover, y, drop=True, states=lists)
        if test_ds is not None:  # c4.5rules -u: the ruleset left after the drops
            progress.update("evaluating on the test data")
            # Each block ends with a blank line, which c4.5rules -u prints once, after
            # the last: the test block follows the training matrix after two, not three.
            evaluation = evaluation.removesuffix("\n")
            evaluation += format_data_evaluation(final, test_ds, "test")
    sys.stdout.write(format_rules(printed))
    sys.stdout.write(evaluation)
    if args.output is not None:
        note(args, f"treegen: wrote {args.output}: {counted(len(final.rules), 'rule')}")
    if test_ds is not None:
        note_unlabelled(args, test_ds)  # as eval notes them
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
        epilog="When C4.5 DATA has a STEM.test beside it, the evaluation of the ruleset that "
        "classifies (after the 'Drop rule' steps) on it follows, as Release 8's "
        "c4.5rules -u prints it ('Evaluation on test data'), as 'treegen train' evaluates "
        "its tree there. With -o the ruleset that classifies (after the 'Drop rule' steps) "
        "is saved as JSON (format treegen-rules), which 'treegen eval', 'predict', 'export' and "
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
