"""An ensemble printed: its summary (``show``), its report (``info``), its evaluation (``eval``)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from treegen.analysis.evaluate import confusion_matrix, format_confusion, labelled_rows
from treegen.analysis.report import attribute_lines, class_list, provenance_lines
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.ensemble import classify, emit
from treegen.ensemble.core import LEAF, Ensemble
from treegen.ensemble.lower import lower_ensemble
from treegen.errors import DatasetError, TreegenError

_DECISIONS = {
    "argmax": "the first class with the largest score",
    "ge0": "class 1 when the score is >= 0",
    "gt0": "class 1 when the score is > 0",
    "gt": "class 1 when the score is > {cut!r} (where the library's sigmoid passes 0.5)",
    "diff": "class 1 when -score[0] + score[1] > 0",
    "value": "none, the scores are the predicted values (a regressor)",
    "bound": "an inlier (1) when the summed path length is >= the boundary (IsolationForest)",
}


def format_summary(e: Ensemble) -> str:
    """What ``treegen show`` prints for an ensemble: where it came from, its trees, nodes,
    leaves and depth, its classes and how it decides."""
    source = str(e.options.get("source", e.method))
    depths = [t.depth() for t in e.trees]
    lines = [
        f"{source}: {counted(len(e.trees), 'tree')}, {counted(e.n_nodes, 'node')}, "
        f"{counted(e.n_leaves, 'leaf')}, "
        f"depth {min(depths)}..{max(depths)}",
        f"{'outputs' if e.regressor else 'classes'} ({len(e.schema.classes)}): "
        f"{class_list(e.schema)}",
        f"outputs {e.n_outputs}, {len(e.values)} distinct leaf values; "
        f"scores summed in {e.sum}"
        + (f", divided by {e.divisor!r}" if e.divisor is not None else "")
        + f"; decision: {_DECISIONS[e.decision].format(cut=e.cut)}",
        f"tests compare {'float32(x)' if e.compare == 'float32' else 'x'} <= threshold; "
        "a missing value goes the way each test learnt"
        + (
            "; x within 1e-35 of 0 counts as missing where a test says so"
            if any(t.zero_missing for t in e.trees)
            else ""
        ),
    ]
    return "\n".join(lines) + "\n"


def format_info(e: Ensemble, input_type: str) -> str:
    """``treegen info``: the summary, tests per attribute, provenance (the importer's
    record; an imported model's data fingerprint is unknown, as predict.h says) and the
    size of the C's tables for ``input_type``."""
    tests: Counter[str] = Counter()
    for t in e.trees:
        for f in t.feature:
            if f != LEAF:
                tests[e.schema.attributes[f].name] += 1
    lines = [format_summary(e).rstrip("\n"), "attributes (tests on each):"]
    lines += attribute_lines(e.schema, {a.name: tests[a.name] for a in e.schema.attributes})
    made = f"made by treegen {e.treegen_version}"
    # Nothing was trained: the options are what the importer recorded (its source, the
    # labels' type, a sigmoid's scale), as predict.h names the unknown fingerprint.
    lines += provenance_lines(
        e.options, e.data_fingerprint or "unknown", made, heading="import record"
    )
    lines.append(
        f"table bytes, --style table --input-type {input_type} (not compiled): "
        f"{table_bytes(e, input_type)}"
    )
    return "\n".join(lines) + "\n"


def table_bytes(e: Ensemble, input_type: str) -> str:
    """The table style's constant bytes for ``input_type`` (exact, from its layout), or
    why that input type has no C for ``e``."""
    try:
        ir = lower_ensemble(e, ExportOptions(prefix="e", input_type=input_type))  # type: ignore[arg-type]
    except TreegenError as exc:
        return f"none ({exc.args[0]})"
    return str(emit.table_bytes(ir))


def format_ensemble_evaluation(e: Ensemble, ds: Dataset, label: str) -> str:
    """``treegen eval``: the errors on the labelled rows and the confusion matrix."""
    if e.regressor:
        raise DatasetError(
            "eval counts misclassified rows; a regressor predicts numbers "
            "(use 'treegen predict' for its values)",
            file=ds.source,
        )
    classify.refuse_unanswered(e, ds.X)  # before the labelled rows are picked: a file's row
    known = labelled_rows(ds)
    predicted = classify.predict(e, ds.X[known])
    matrix = confusion_matrix(ds.y[known], predicted, len(e.schema.classes))
    n = int(matrix.sum())
    errors = n - int(np.trace(matrix))
    # The table as Release 8 prints a tree's (its Errors cell), trees in place of size.
    head = (
        f"\nEvaluation on {label} data ({n} items):\n\n"
        f"\tTrees     Errors\n\n\t{len(e.trees):5d}  {errors:3d}({100.0 * errors / n:4.1f}%)\n"
    )
    return head + format_confusion(matrix, e.schema.classes)
