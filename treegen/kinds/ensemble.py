"""The ensemble kind's entry: forests and boosted trees (``treegen import-sklearn``).

Its parts live in :mod:`treegen.ensemble`: the value (``core``), its float64 arithmetic
(``classify``), the file (``file``), printing (``show``), the C (``lower``, ``emit``) and
verify's rows and comparison (``check``).  This module binds them into one record.
"""

from __future__ import annotations

from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.ensemble import check, classify
from treegen.ensemble.core import Ensemble
from treegen.ensemble.emit import emit_ensemble
from treegen.ensemble.file import FORMAT, ensemble_from_data, ensemble_to_json
from treegen.ensemble.ir import EnsembleIR, fold_note
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.show import format_ensemble_evaluation, format_info, format_summary
from treegen.errors import UsageError
from treegen.kinds.spec import Kind, flash_input_type


def _evaluate(e: Ensemble, ds: Dataset, label: str, unpruned: str | None) -> str:
    if unpruned is not None:
        raise UsageError("applies to trees, not to an ensemble", option="--unpruned")
    return format_ensemble_evaluation(e, ds, label)


def _summary(ir: EnsembleIR, opts: ExportOptions) -> str:
    enc = ir.encoding
    return (
        f"ensemble of {counted(len(ir.trees), 'tree')}, style {opts.style}, input {enc.input_type}"
        f"{', float compare int' if enc.uses_keys else ''}"
    )


ENSEMBLE: Kind[Ensemble, EnsembleIR] = Kind(
    name="ensemble",
    noun="ensemble",
    format=FORMAT,
    suffix=".trees",
    default_name="ensemble",
    value_type=Ensemble,
    from_data=ensemble_from_data,
    to_json=ensemble_to_json,
    predict=classify.predict,
    predict_proba=classify.predict_proba,
    evaluate=_evaluate,
    show={"c45": format_summary},
    info=lambda e, given: format_info(e, flash_input_type(given)),
    dot=None,
    styles=("table", "ifs"),  # the compact table first: the smallest, the default
    lower=lower_ensemble,
    emit=emit_ensemble,
    api=lambda ir: ir,
    rows=check.verify_rows,
    compare=check.compare,
    summary=_summary,
    values=classify.values,
    size=lambda e: (
        f"{e.estimator_name or e.method}, {counted(len(e.trees), 'tree')}, "
        f"{counted(e.n_nodes, 'node')}"
    ),
    notes=lambda ir: tuple(n for n in (fold_note(ir),) if n),
)
