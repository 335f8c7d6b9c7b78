"""Error counts, confusion matrix and C4.5 Release 8's evaluation layout.

:func:`evaluate` classifies a dataset with a model (Release 8's classifier,
:mod:`treegen.model.classify`) and returns an :class:`Evaluation`: tree size, the
number of misclassified rows, the confusion matrix and, for a pruned tree,
the pessimistic estimate Release 8 prints (the root's estimated errors over
its items).  :func:`format_evaluation` prints one or two evaluations in
Release 8's layout::

    Evaluation on training data (490 items):

             Before Pruning           After Pruning
        ----------------   ---------------------------
        Size      Errors   Size      Errors   Estimate

              90   19( 3.9%)     58   24( 4.9%)    (11.9%)   <<

followed by Release 8's confusion matrix (rows: actual class, columns:
predicted class, ``(a)``, ``(b)``... as in its test-data evaluation).  With a
single tree only its own columns are printed (``Size Errors Estimate`` for a
pruned tree, ``Size Errors`` for an unpruned one) under the same format.

On weighted rows (an ARFF file's instance weights) every row counts by its weight, as
Weka's ``Evaluation`` counts an instance: the items, the errors and each cell of the
confusion matrix are sums of weights, added in row order as Weka adds them, and printed
as Weka prints them (``Utils.doubleToString``: items and errors to 4 decimals, as its
"Total Number of Instances" and "Incorrectly Classified Instances", cells to 2, as its
"Confusion Matrix"; trailing zeros dropped, so whole weights print as counts do).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset, printed_name
from treegen.data.readers import detect_format
from treegen.data.readers.c45 import c45_paths
from treegen.errors import DatasetError
from treegen.model.core import Model
from treegen.model.show import is_pruned, weka_double_to_string

# Release 8 prints no confusion matrix for more than 21 classes (its letters
# (a)..(u) keep rows readable); treegen follows it.
MAX_MATRIX_CLASSES = 21


@dataclass(frozen=True, eq=False)  # eq would compare numpy arrays ambiguously
class Evaluation:
    """The result of classifying ``n_items`` labelled rows with one tree (on weighted
    rows: ``n_items``, ``errors`` and ``confusion`` are sums of the rows' weights)."""

    size: int
    n_items: float
    errors: float
    confusion: npt.NDArray[np.int64] | npt.NDArray[np.float64]  # [actual, predicted]
    classes: tuple[str, ...]
    estimate: float | None  # Release 8's "Estimate" in percent; None if unpruned

    @property
    def error_rate(self) -> float:
        """Misclassified fraction of the rows (0 for no rows)."""
        return self.errors / self.n_items if self.n_items else 0.0


def confusion_matrix(
    actual: npt.NDArray[np.integer], predicted: npt.NDArray[np.integer], n_classes: int
) -> npt.NDArray[np.int64]:
    """Counts of (actual, predicted) class pairs, shape ``(n_classes, n_classes)``."""
    matrix = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(matrix, (np.asarray(actual, np.intp), np.asarray(predicted, np.intp)), 1)
    return matrix


def weighted_confusion_matrix(
    actual: npt.NDArray[np.integer],
    predicted: npt.NDArray[np.integer],
    weights: npt.NDArray[np.float64],
    n_classes: int,
) -> npt.NDArray[np.float64]:
    """The sums of the rows' ``weights`` per (actual, predicted) class pair, each cell
    added in row order (``np.add.at`` is unbuffered and sequential), as Weka's
    ``Evaluation`` adds an instance's weight to its cell."""
    matrix = np.zeros((n_classes, n_classes), dtype=np.float64)
    np.add.at(matrix, (np.asarray(actual, np.intp), np.asarray(predicted, np.intp)), weights)
    return matrix


def sequential_sum(values: npt.NDArray[np.float64]) -> float:
    """``values`` added one after another in order, as a Java loop adds them (numpy's
    ``sum`` adds pairwise, which can round differently)."""
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def pessimistic_estimate(model: Model) -> float | None:
    """Release 8's Estimate column: 100 * root errors / root items, pruned trees only."""
    root = model.root
    if not is_pruned(model) or root.items <= 0:
        return None
    return 100.0 * root.errors / root.items


def evaluation_from_predictions(
    model: Model,
    actual: npt.NDArray[np.integer],
    predicted: npt.NDArray[np.integer],
    weights: npt.NDArray[np.float64] | None = None,
) -> Evaluation:
    """An :class:`Evaluation` of ``model`` from the rows' actual and predicted classes
    (and with ``weights``, each row counted by its weight)."""
    if weights is not None:
        wrong = np.asarray(actual) != np.asarray(predicted)
        return Evaluation(
            size=model.size,
            # Weka's m_WithClass and m_Incorrect: each row's weight added in row order
            n_items=sequential_sum(weights),
            errors=sequential_sum(weights[wrong]),
            confusion=weighted_confusion_matrix(
                actual, predicted, weights, len(model.schema.classes)
            ),
            classes=model.schema.classes,
            estimate=pessimistic_estimate(model),
        )
    matrix = confusion_matrix(actual, predicted, len(model.schema.classes))
    n_items = int(matrix.sum())
    return Evaluation(
        size=model.size,
        n_items=n_items,
        errors=n_items - int(np.trace(matrix)),
        confusion=matrix,
        classes=model.schema.classes,
        estimate=pessimistic_estimate(model),
    )


def labelled_rows(ds: Dataset) -> npt.NDArray[np.bool_]:
    """The rows of ``ds`` that have a class value, or a :class:`DatasetError` when none
    has: every kind's ``eval`` counts errors on those rows only."""
    known: npt.NDArray[np.bool_] = ds.y >= 0
    if not known.any():
        raise DatasetError(
            f"no row has a value in the class column {ds.schema.target!r} to evaluate "
            "against (another class column: --target; unlabelled data: 'treegen predict')",
            file=ds.source,
        )
    return known


def evaluate(model: Model, ds: Dataset) -> Evaluation:
    """Classify the labelled rows of ``ds`` with ``model`` and count the errors.

    ``ds`` must be encoded with the model's schema (read it with
    ``schema=model.schema``).  Rows without a class value (``y == -1``) are
    not counted; data with no labelled row at all is a :class:`DatasetError`.
    Weighted rows (``ds.weights``) count by their weights.
    """
    # Imported here: the classifiers (fixedpoint's fractions and decimal, 10 ms) are
    # not needed by the confusion matrix and its layout, all `treegen rules` reads.
    from treegen.model.classify_r8 import evaluation_classifier

    known = labelled_rows(ds)
    # Release 8's float sums for a c45 model, so the counts are the ones it prints; a
    # j48 model's are J48's.
    predicted = np.asarray(evaluation_classifier(model)(ds.X[known]), dtype=np.intp)
    weights = None if ds.weights is None else ds.weights[known]
    return evaluation_from_predictions(model, ds.y[known], predicted, weights)


def test_set_beside(data: str) -> str | None:
    """``STEM.test`` beside C4.5 training DATA (``STEM``, ``.names``, ``.data``), if it exists.

    Release 8 evaluates its tree on that file when run with ``-u``; ``treegen
    train`` does so whenever the file is there.
    """
    if detect_format(data) != "c45" or data.lower().endswith(".test"):
        return None
    names, _ = c45_paths(data)
    test = names[: -len(".names")] + ".test"
    return test if os.path.isfile(test) else None


# ------------------------------------------------------------------ layout


def weight_text(value: float, digits: int = 4) -> str:
    """A count or a sum of weights as Weka prints it (``Utils.doubleToString``): a
    whole number as an integer, else rounded to ``digits`` decimals, zeros trimmed."""
    return weka_double_to_string(value, digits)


def _errors_cell(ev: Evaluation) -> str:
    percent = 100.0 * ev.errors / ev.n_items if ev.n_items else 0.0
    return f"{weight_text(ev.errors):>3}({percent:4.1f}%)"


def _estimate_cell(ev: Evaluation) -> str:
    return f"({ev.estimate:4.1f}%)" if ev.estimate is not None else ""


def format_table(
    label: str,
    pruned: Evaluation | None = None,
    unpruned: Evaluation | None = None,
) -> str:
    """Release 8's "Evaluation on ... data" table for one or both trees.

    ``label`` is "training" or "test" (or a file name).  With both trees the
    text is Release 8's table exactly; with one, only its columns.
    """
    first = pruned if pruned is not None else unpruned
    assert first is not None, "format_table needs at least one evaluation"
    head = f"\nEvaluation on {label} data ({weight_text(first.n_items)} items):\n\n"
    if pruned is not None and unpruned is not None:
        return head + (
            "\t Before Pruning           After Pruning\n"
            "\t----------------   ---------------------------\n"
            "\tSize      Errors   Size      Errors   Estimate\n\n"
            f"\t{unpruned.size:4d}  {_errors_cell(unpruned)}   "
            f"{pruned.size:4d}  {_errors_cell(pruned)}    {_estimate_cell(pruned)}   <<\n"
        )
    if pruned is not None and pruned.estimate is not None:
        return head + (
            "\tSize      Errors   Estimate\n\n"
            f"\t{pruned.size:4d}  {_errors_cell(pruned)}    {_estimate_cell(pruned)}\n"
        )
    return head + f"\tSize      Errors\n\n\t{first.size:4d}  {_errors_cell(first)}\n"


def format_confusion(
    matrix: npt.NDArray[np.int64] | npt.NDArray[np.float64], classes: tuple[str, ...]
) -> str:
    """Release 8's confusion matrix: columns (a), (b)... are predicted classes.

    Zero cells are blank.  Returns '' above :data:`MAX_MATRIX_CLASSES`
    classes, where Release 8 prints none either.  Class names as the printouts show
    them (:func:`~treegen.data.dataset.printed_name`: a newline would break a row).
    Release 8's columns are five wide, so from 10,000 cases on its counts run into each
    other ("3706421924622235"); here every column then widens to keep a blank before
    the largest count (Release 8's bytes wherever its columns hold the counts).  A
    matrix of weights prints its cells as Weka does, to 2 decimals, in columns widened
    the same way to the longest.
    """
    k = len(classes)
    if k > MAX_MATRIX_CLASSES:
        return ""
    weighted = matrix.dtype.kind == "f"
    texts = [
        [(weight_text(float(v), 2) if weighted else str(int(v))) if v else "" for v in row]
        for row in matrix
    ]
    width = max([5] + [len(t) + 1 for row in texts for t in row])
    letters = [chr(ord("a") + i) for i in range(k)]
    head = "".join(f"({c})".rjust(width) for c in letters)
    lines = ["\n\n\t" + head + "\t<-classified as"]
    lines.append("\t" + (" " + "-" * (width - 1)) * k)
    for row in range(k):
        cells = "".join(t.rjust(width) for t in texts[row])
        lines.append(f"\t{cells}\t({letters[row]}): class {printed_name(classes[row])}")
    return "\n".join(lines) + "\n\n"


def format_evaluation(
    label: str,
    pruned: Evaluation | None = None,
    unpruned: Evaluation | None = None,
) -> str:
    """The table of :func:`format_table` plus the confusion matrix of the final tree."""
    final = pruned if pruned is not None else unpruned
    assert final is not None, "format_evaluation needs at least one evaluation"
    return format_table(label, pruned, unpruned) + format_confusion(final.confusion, final.classes)
