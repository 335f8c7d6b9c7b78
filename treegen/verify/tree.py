"""A tree's side of ``verify``: the rows it runs and the Python models it holds the C to.

The C's answers (run by the generic verify, treegen.kinds.check, or on a simulated chip
by treegen.firmware) are compared row by row with the fixed-point Python model
(treegen.model.fixedpoint) and with the numpy IR evaluator (treegen.verify.oracle), on
the rows treegen.verify.inputs builds; rows with no missing value are also compared with
the float Release 8 classifier (treegen.model.classify), whose class the C must return
exactly when nothing is missing.  Classes and probabilities must be equal, not close.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from treegen.codegen.ir import IR
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.model.classify import predict as float_predict
from treegen.model.core import Model
from treegen.model.fixedpoint import FixedPointClassifier
from treegen.verify.inputs import comparison_inputs, model_values, to_c_domain
from treegen.verify.oracle import codes, evaluate, meets_missing, missing_mask
from treegen.verify.report import Report, check_against, row_counts, tally


def classify_comparable(model: Model, ir: IR, X: npt.NDArray[np.generic]) -> npt.NDArray[np.bool_]:
    """Rows on which the float classifier sees the same values as the C (each scaled
    integer x as the double nearest x/K, see inputs.model_values): no missing value
    and valid nominal codes."""
    enc = ir.encoding
    ok = np.ones(X.shape[0], dtype=bool)
    for j, f in enumerate(ir.features):
        col = X[:, j]
        if f.kind == "nominal":
            ok &= codes(col, len(f.values), enc) >= 0
        elif f.kind == "continuous":
            ok &= ~missing_mask(col, enc)
    return ok


def compare(
    model: Model,
    ir: IR,
    opts: ExportOptions,
    X: npt.NDArray[np.generic],
    c_cls: npt.NDArray[np.int32],
    c_proba: npt.NDArray[np.uint16],
    report: Report,
) -> None:
    """Compare the C's answers on ``X`` with every Python side; ``opts`` (needed for
    ``--missing none``) are the options ``ir`` was lowered with."""
    bad = np.zeros(X.shape[0], dtype=bool)
    checks: list[
        tuple[str, npt.NDArray[np.bool_], npt.NDArray[np.int32], npt.NDArray[np.uint16] | None]
    ] = []
    every = np.ones(len(X), dtype=bool)
    sel = classify_comparable(model, ir, X)
    known = every
    if ir.missing == "none":
        # The none rule on the C4.5 IR (not the rewritten one the C came from) on
        # every row, NaN and sentinels included; the Python model where it is defined.
        full = lower(model, replace(opts, missing="c45", proba=True, inline_top=None))
        n_cls, n_proba = evaluate(full, X, rule="none")
        checks.append(("IR evaluator, none rule", every, n_cls, n_proba if ir.proba else None))
        known = ~meets_missing(full, X)
        f_cls, f_proba = FixedPointClassifier(model, full.encoding).predict(X)
        checks.append(
            (
                "fixed-point Python model (rows meeting no missing value)",
                known,
                f_cls,
                f_proba if ir.proba else None,
            )
        )
    else:
        f_cls, f_proba = FixedPointClassifier(model, ir.encoding).predict(X)
        checks.append(("fixed-point Python model", every, f_cls, f_proba))
        e_cls, e_proba = evaluate(ir, X)
        checks.append(("IR evaluator", every, e_cls, e_proba))
    if ir.missing == "none":
        sel &= known
    if sel.any():
        values = model_values(ir, X)
        k_cls = np.zeros(len(X), dtype=np.int32)
        k_cls[sel] = float_predict(model, values[sel])
        checks.append(("float classifier (rows without missing values)", sel, k_cls, None))
    for name, rows, cls, proba in checks:
        bad |= check_against(report, name, X, rows, c_cls, cls, c_proba, proba)
    tally(report, X.shape[0], bad)


def verify_rows(
    model: Model,
    ir: IR,
    opts: ExportOptions,
    data: Sequence[Dataset],
    n_random: int,
    seed: int,
    report: Report,
) -> npt.NDArray[np.generic]:
    """The rows verify compares (DATA rows first), described in ``report``."""
    # Last DATA file first: the row numbers in mismatch reports stay what they were.
    parts = [to_c_domain(ir, ds.X) for ds in reversed(list(data))]
    # Rows either side of every threshold of the tree, the tests folded away included
    # (treegen.codegen.fold): the C must not tell them apart either.
    probe = lower(model, opts, ir.provenance, fold_equal=False) if ir.subtree_folds else ir
    parts.append(comparison_inputs(probe, None, n_random=n_random, seed=seed))
    n_data = sum(ds.n_rows for ds in data)
    X = np.concatenate(parts)
    report.lines.append(
        f"style {opts.style}, input {ir.encoding.input_type}"
        f"{', float compare int' if ir.encoding.uses_keys else ''}"
        f"{', missing none' if ir.missing == 'none' else ''}"
        f"{', no proba' if not ir.proba else ''}: {row_counts(n_data, X.shape[0], n_random)}"
    )
    return X
