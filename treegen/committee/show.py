"""A committee printed: as Weka prints it (``show``), its report (``info``), its
evaluation (``eval``: each tree's errors and the committee's, as C5.0 prints a boosted
classifier's trials, then the confusion matrix).

``show`` prints ``AdaBoostM1``'s and ``Bagging``'s ``toString()``: every tree (J48's
text for the j48 flavour, Release 8's for c45) with, for boosting, its vote weight
rounded to two decimals (``Weight: 3.66``) and the number of rounds, or "No boosting
possible, one classifier used!" when the first tree already had no error or half of it.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from treegen.analysis.evaluate import confusion_matrix, format_confusion, labelled_rows
from treegen.analysis.report import (
    attribute_lines,
    class_list,
    model_report,
    provenance_lines,
)
from treegen.codegen.flash import source_flash
from treegen.codegen.options import ExportOptions, InputType
from treegen.committee import vote
from treegen.committee.ccode import emit_committee, lower_committee
from treegen.committee.core import Committee
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.model.classify import predict as tree_predict
from treegen.model.show import _weka_round2, format_tree, java_double


def _style(c: Committee, style: str | None) -> str:
    return style or ("j48" if c.flavor == "j48" else "c45")


def _tree_text(c: Committee, i: int, style: str) -> str:
    """One member as J48's ``toString()`` (j48) or Release 8's printed tree (c45), each
    with its own header (a c45 member printed "Decision Tree:" above the "Simplified
    Decision Tree:" of its pruned tree, or twice over an unpruned one)."""
    return format_tree(c.members[i], style).rstrip("\n")


def format_committee(c: Committee, style: str | None = None) -> str:
    """``AdaBoostM1.toString()`` or ``Bagging.toString()`` (module docstring)."""
    st = _style(c, style)
    if c.method == "bag":
        parts = ["All the base classifiers: \n\n"]
        parts += [_tree_text(c, i, st) + "\n\n\n" for i in range(c.n_members)]
        return "".join(parts)
    if c.n_members == 1:
        return (
            "AdaBoostM1: No boosting possible, one classifier used!\n"
            + _tree_text(c, 0, st)
            + "\n\n"
        )
    parts = ["AdaBoostM1: Base classifiers and their weights: \n\n"]
    for i in range(c.n_members):
        weight = java_double(_weka_round2(c.betas[i]))
        parts.append(f"{_tree_text(c, i, st)}\n\n\nWeight: {weight}\n\n")
    parts.append(f"Number of performed Iterations: {c.n_members}\n")
    return "".join(parts)


def format_summary(c: Committee) -> str:
    """Rounds, trees' sizes and how the committee votes, in a few lines."""
    sizes = [m.size for m in c.members]
    if c.method == "boost":
        how = (
            f"AdaBoost.M1, {c.n_members} of {c.options.get('boost', c.n_members)} rounds"
            + (f" (stopped at {c.stopped})" if c.stopped else "")
            + f"; votes: the betas on the scale 2**{c.shift}, summed as integers"
        )
    else:
        how = (
            f"bagging, {counted(c.n_members, 'tree')} "
            f"(bootstrap seed {c.options.get('bag_seed', 1)}); "
            "votes: the trees' 15-bit class distributions, summed as integers"
        )
    return (
        f"{how}\n"
        f"{c.flavor} trees: {counted(c.size, 'node')}, {counted(c.n_leaves, 'leaf')}, "
        f"sizes {min(sizes)}..{max(sizes)}, "
        f"depth up to {c.depth()}\n"
        f"classes ({len(c.schema.classes)}): {class_list(c.schema)}\n"
    )


def format_info(c: Committee, input_type: str) -> str:
    """``treegen info``: the summary, each tree, tests per attribute, provenance and the
    estimated flash of the exported C (the members' tables together, one walk)."""
    lines = [format_summary(c).rstrip("\n"), "trees (round: nodes, leaves, depth, vote):"]
    for i, m in enumerate(c.members):
        weight = (
            f"beta {c.betas[i]:.4f} = {c.votes[i]} / 2**{c.shift}" if c.method == "boost" else "1"
        )
        lines.append(f"  {i + 1:4d}: {m.size:6d} {m.n_leaves:6d} {m.depth():4d}   {weight}")
    tests = {a.name: 0 for a in c.schema.attributes}
    for m in c.members:
        for name, n in model_report(m).tests.items():
            tests[name] += n
    lines.append("attributes (tests on each, all trees):")
    lines += attribute_lines(c.schema, tests)
    lines += provenance_lines(
        c.options, c.data_fingerprint, f"trained by treegen {c.treegen_version}"
    )
    # The trees share one table and one walk (committee.ctable): its tables are counted
    # from that C, the code once.
    opts = ExportOptions(prefix="c", style="table", input_type=cast(InputType, input_type))

    def source() -> str:
        files = emit_committee(lower_committee(c, opts, ()), opts)
        return next(text for name, text in files.items() if name.endswith(".c"))

    flash = source_flash(source, input_type)
    lines.append(
        f"estimated flash, --style table --input-type {input_type} (not compiled; the "
        "tables its C declares, one walk's code a measured range, the vote's code not counted):"
    )
    lines += [f"  {target}: {size.text()}" for target, size in flash.items()]
    return "\n".join(lines) + "\n"


def format_evaluation(c: Committee, ds: Dataset, label: str) -> str:
    """``treegen eval``: per tree its size and errors, then the committee's errors (the
    ``boost`` or ``bag`` row) and its confusion matrix."""
    known = labelled_rows(ds)
    X, y = ds.X[known], ds.y[known]
    n = int(known.sum())
    lines = [
        f"\nEvaluation on {label} data ({n} items):\n",
        "Trial\t    Decision Tree",
        "-----\t  ----------------",
        "\t  Size      Errors\n",
    ]
    for i, m in enumerate(c.members):
        errors = int(np.count_nonzero(tree_predict(m, X) != y))
        lines.append(f"{i:4d}\t{m.size:6d}  {errors:6d}({100.0 * errors / n:4.1f}%)")
    predicted = vote.predict(c, X)
    matrix = confusion_matrix(y, predicted, len(c.schema.classes))
    errors = n - int(np.trace(matrix))
    lines.append(f"{c.method:>5}\t        {errors:6d}({100.0 * errors / n:4.1f}%)   <<")
    return "\n".join(lines) + "\n" + format_confusion(matrix, c.schema.classes)
