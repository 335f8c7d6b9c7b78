"""The tree kind's entry: a C4.5 / J48 tree (``treegen train``, ``import-sklearn``).

The tree is the pipeline's own kind, so its parts live in the stage folders: the value,
file, classifier and printing in :mod:`treegen.model`, the evaluation and report in
:mod:`treegen.analysis`, the lowering and emitters in :mod:`treegen.codegen`, the rows
and oracles in :mod:`treegen.verify`.  This module binds them into one record.

The C side (lowering, emitters, verify's rows and oracles, the flash estimate), the
report, the Graphviz picture and the rules printout are imported when first called:
``treegen train`` loads this kind for the tree's file and classifier only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from treegen.analysis.evaluate import evaluate as evaluate_model
from treegen.analysis.evaluate import format_evaluation
from treegen.codegen.options import STYLES, ExportOptions, Style
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.errors import UsageError
from treegen.kinds.spec import Kind, flash_input_type
from treegen.model import classify
from treegen.model.core import Model
from treegen.model.file import FORMAT, load_model, model_from_data, model_to_json
from treegen.model.show import format_tree, is_pruned

if TYPE_CHECKING:
    from treegen.codegen.ir import IR
    from treegen.verify.report import Report


def _evaluate(model: Model, ds: Dataset, label: str, unpruned: str | None) -> str:
    """Release 8's evaluation table; with ``unpruned`` (the same data trained with
    --no-prune) its Before/After Pruning table."""
    ev = evaluate_model(model, ds)
    if unpruned is None:
        pruned_ev = ev if ev.estimate is not None else None
        return format_evaluation(label, pruned_ev, None if pruned_ev is not None else ev)
    raw = load_model(unpruned)
    if not is_pruned(model) or is_pruned(raw):
        raise UsageError(
            f"expects MODEL pruned and {unpruned} unpruned (trained with --no-prune)",
            option="--unpruned",
        )
    if raw.schema != model.schema:
        raise UsageError(
            f"{unpruned} was trained on other attributes or classes than MODEL",
            option="--unpruned",
        )
    if raw.data_fingerprint != model.data_fingerprint:
        raise UsageError(f"{unpruned} was trained on other data than MODEL", option="--unpruned")
    if _growth(raw) != _growth(model):
        raise UsageError(f"{unpruned} was grown with other options than MODEL", option="--unpruned")
    return format_evaluation(label, ev, evaluate_model(raw, ds))


def _evaluate_trained(model: Model, ds: Dataset, label: str, unpruned: Callable[[], Model]) -> str:
    """Release 8's ``-u`` block of a tree train made: before and after pruning (the
    Before Pruning columns of ``unpruned()``, the same growth unpruned), confusion matrix."""
    assert ds.schema == model.schema
    ev = evaluate_model(model, ds)
    if not is_pruned(model):
        return format_evaluation(label, None, ev)
    return format_evaluation(label, ev, evaluate_model(unpruned(), ds))


def _growth(model: Model) -> tuple[object, ...]:
    """The options that grew ``model``'s tree, before any pruning: Release 8's Before
    Pruning columns are of that tree (what ``train`` grows for them with --no-prune)."""
    grown = model.options.training
    return tuple(getattr(grown, name) for name in _GROWTH)


_GROWTH = ("min_cases", "subsets", "criterion", "flavor", "max_depth", "min_gain_ratio")


def _info(model: Model, given: str | None) -> str:
    from treegen.analysis.report import format_report, model_report
    from treegen.codegen.flash import estimate_flash

    input_type = flash_input_type(given)
    text = format_report(model, model_report(model))
    flash = estimate_flash(model, input_type)
    text += (
        f"estimated flash, --style table --input-type {input_type} (not compiled; the "
        "tables exact, the code a measured range):\n"
    )
    return text + "".join(f"  {target}: {size.text()}\n" for target, size in flash.items())


def _dot(model: Model, max_depth: int | None = None, graph: Sequence[str] = ()) -> str:
    from treegen.model.picture import format_dot  # imports subprocess: not for train

    return format_dot(model, max_depth=max_depth, graph=graph)


def _predict(model: Model, X: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    return classify.predict(model, X)


def _error_predict(model: Model, X: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """The classes Release 8's evaluation counts errors by (a c45 tree's float sums)."""
    from treegen.model.classify_r8 import evaluation_classifier

    return np.asarray(evaluation_classifier(model)(X), dtype=np.intp)


def _trained(model: Model, trees: str) -> str:
    return (
        f"{trees} tree of {counted(model.size, 'node')} "
        f"({counted(model.n_leaves, 'leaf')}, depth {model.depth()})"
    )


def _rows(
    model: Model,
    ir: IR,
    opts: ExportOptions,
    data: Sequence[Dataset],
    n_random: int,
    seed: int,
    report: Report,
) -> npt.NDArray[np.generic]:
    from treegen.verify.tree import verify_rows

    return verify_rows(model, ir, opts, data, n_random, seed, report)


def _lower(model: Model, opts: ExportOptions, provenance: tuple[tuple[str, str], ...]) -> IR:
    from treegen.codegen.lower import lower

    return lower(model, opts, provenance)


def _compare(
    model: Model,
    ir: IR,
    opts: ExportOptions,
    X: npt.NDArray[np.generic],
    cls: npt.NDArray[np.int32],
    proba: npt.NDArray[np.uint16],
    report: Report,
) -> None:
    from treegen.verify.tree import compare

    compare(model, ir, opts, X, cls, proba, report)


def _path_rules(model: Model) -> str:
    from treegen.rules.show import format_path_rules

    return format_path_rules(model)


def _summary(ir: IR, opts: ExportOptions) -> str:
    """The exported C in one line: the model's depth, and apart from it what the C keeps
    for missing values (C4.5's replay stack, or nothing under --missing none)."""
    enc = ir.encoding
    stack = (
        f"missing-value stack {ir.prefix.upper()}_STACK_SIZE = {counted(ir.stack_size, 'choice')}"
        if ir.missing == "c45"
        else "--missing none: no missing-value stack"
    )
    n = len(ir.subtree_folds)
    if n:
        nodes = ", ".join(str(i) for i in ir.subtree_folds[:10]) + (", ..." if n > 10 else "")
        stack += (
            f"; {counted(n, 'test')} whose branches give the same answer "
            f"folded (model node{'s' if n != 1 else ''} {nodes}; show keeps them)"
        )
    return (
        f"style {opts.style}, input {enc.input_type}"
        f"{', float compare int' if enc.uses_keys else ''}; model depth {ir.depth} "
        f"(tests on its longest path); {stack}"
    )


def emit(ir: IR, style: Style) -> dict[str, str]:
    """:func:`treegen.codegen.emit.emit`, imported on first use: the emitters load
    jinja2, which `treegen train` (the tree kind's file and classifier) does not need."""
    from treegen.codegen.emit import emit as emit_c

    return emit_c(ir, style)


def _notes(ir: IR) -> tuple[str, ...]:
    from treegen.codegen.lower import fold_note

    note = fold_note(ir)
    return (note,) if note else ()


def _check(opts: ExportOptions) -> None:
    """A tree has C for every export option but an ensemble's own."""
    if opts.scores:
        raise UsageError(
            "applies to ensembles (their decision_function); a tree's probabilities: --proba",
            option="--scores",
        )


TREE: Kind[Model, IR] = Kind(
    name="tree",
    noun="model",
    format=FORMAT,
    suffix=".tree",
    default_name="model",
    value_type=Model,
    from_data=model_from_data,
    to_json=model_to_json,
    predict=_predict,
    predict_proba=classify.predict_proba,
    evaluate=_evaluate,
    show={
        "c45": lambda m: format_tree(m, "c45"),
        "j48": lambda m: format_tree(m, "j48"),
        "dot": lambda m: _dot(m),
        "rules": _path_rules,
    },
    info=_info,
    reads_weights=True,
    dot=lambda m, depth, graph: _dot(m, max_depth=depth, graph=graph),
    styles=STYLES,
    check_options=_check,
    lower=_lower,
    emit=lambda ir, opts: emit(ir, opts.style or STYLES[0]),
    api=lambda ir: ir,
    rows=_rows,
    compare=_compare,
    summary=_summary,
    size=lambda m: f"{counted(m.size, 'node')}, {counted(m.n_leaves, 'leaf')}, depth {m.depth()}",
    trained=_trained,
    error_predict=_error_predict,
    evaluate_trained=_evaluate_trained,
    notes=_notes,
)
