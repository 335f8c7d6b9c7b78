"""``treegen verify``: compile the exported C and compare it with the Python model.

The C (through cffi) is compared row by row with the fixed-point Python model
(treegen.model.fixedpoint) and with the numpy IR evaluator, on the rows
treegen.codegen.inputs builds; rows with no missing value are also compared with
the float Release 8 classifier (treegen.model.classify), whose class the C must return
exactly when nothing is missing.  Classes and probabilities must be equal, not close.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.codegen.build import build
from treegen.codegen.emit import emit
from treegen.codegen.inputs import comparison_inputs, model_values
from treegen.codegen.ir import IR
from treegen.codegen.lower import ExportOptions, lower
from treegen.codegen.oracle import codes, evaluate, meets_missing, missing_mask
from treegen.data.dataset import Dataset
from treegen.model.core import Model
from treegen.model.fixedpoint import FixedPointClassifier


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    rows: int = 0
    failed_rows: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed_rows == 0

    def text(self, show: int = 5) -> str:
        out = list(self.lines)
        if self.mismatches:
            out.append(f"first mismatches (of {self.failed_rows} rows):")
            out += ["  " + m for m in self.mismatches[:show]]
        out.append(f"{self.rows - self.failed_rows} passed, {self.failed_rows} failed")
        return "\n".join(out) + "\n"


def _fmt_row(x: npt.NDArray[np.generic]) -> str:
    return "[" + ", ".join(repr(v.item()) for v in x) + "]"


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
    ir: IR,
    model: Model,
    X: npt.NDArray[np.generic],
    c_cls: npt.NDArray[np.int32],
    c_proba: npt.NDArray[np.uint16],
    report: Report,
    opts: ExportOptions | None = None,
) -> None:
    """Compare the C's answers on ``X`` with every Python side; ``opts`` (needed for
    ``--missing none``) are the options ``ir`` was lowered with."""
    opts = opts or ExportOptions()
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
        full = lower(model, replace(opts, missing="c45", proba=True))
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
        from treegen.model.classify import predict as float_predict

        values = model_values(ir, X)
        k_cls = np.zeros(len(X), dtype=np.int32)
        k_cls[sel] = float_predict(model, values[sel])
        checks.append(("float classifier (rows without missing values)", sel, k_cls, None))
    for name, rows, cls, proba in checks:
        bad |= check_against(report, name, X, rows, c_cls, cls, c_proba, proba)
    report.rows += X.shape[0]
    report.failed_rows += int(bad.sum())


def check_against(
    report: Report,
    name: str,
    X: npt.NDArray[np.generic],
    rows: npt.NDArray[np.bool_],
    c_cls: npt.NDArray[np.int32],
    cls: npt.NDArray[np.int32],
    c_proba: npt.NDArray[np.uint16] | None = None,
    proba: npt.NDArray[np.uint16] | None = None,
) -> npt.NDArray[np.bool_]:
    """One Python side against the C on ``rows``: its report line and first mismatches;
    the rows that differ (class, or probabilities where ``proba`` is given)."""
    diff: npt.NDArray[np.bool_] = rows & (cls != c_cls)
    if proba is not None:
        assert c_proba is not None
        diff |= rows & (proba != c_proba).any(axis=1)
    n = int(rows.sum())
    verdict = "identical" if not diff.any() else f"{int(diff.sum())} rows differ"
    what = "classes and probabilities" if proba is not None else "classes"
    report.lines.append(f"C vs {name}: {n} rows, {what} {verdict}")
    for r in np.flatnonzero(diff)[:5]:
        extra = (
            f" proba C {c_proba[r].tolist()} vs {proba[r].tolist()}"
            if proba is not None and c_proba is not None
            else ""
        )
        report.mismatches.append(
            f"row {r} {_fmt_row(X[r])}: {name}: class C {c_cls[r]} vs {cls[r]}{extra}"
        )
    return diff


def row_counts(n_data: int, n_rows: int, n_random: int) -> str:
    """The report's account of the ``n_rows`` rows compared: ``n_data`` from DATA,
    ``n_random`` random ones, the rest the generated threshold, missing and special rows."""
    return (
        f"{n_data} data rows, {n_rows - n_data - n_random} threshold, "
        f"missing and special rows, {n_random} random rows"
    )


def verify_rows(
    ir: IR, opts: ExportOptions, data: Sequence[Dataset], n_random: int, seed: int, report: Report
) -> npt.NDArray[np.generic]:
    """The rows verify compares (DATA rows first), described in ``report``."""
    from treegen.codegen.inputs import to_c_domain

    # Last DATA file first: the row numbers in mismatch reports stay what they were.
    parts = [to_c_domain(ir, ds.X) for ds in reversed(list(data))]
    parts.append(comparison_inputs(ir, None, n_random=n_random, seed=seed))
    n_data = sum(ds.n_rows for ds in data)
    X = np.concatenate(parts)
    report.lines.append(
        f"style {opts.style}, input {ir.encoding.input_type}"
        f"{', float compare int' if ir.encoding.uses_keys else ''}"
        f"{', missing none' if ir.missing == 'none' else ''}"
        f"{', no proba' if not ir.proba else ''}: {row_counts(n_data, X.shape[0], n_random)}"
    )
    return X


def verify(
    model: Model,
    opts: ExportOptions,
    data: Sequence[Dataset] = (),
    *,
    cc: str | None = None,
    n_random: int = 1000,
    seed: int = 0,
    workdir: Path | None = None,
) -> Report:
    """Export ``model``, compile it and compare; never raises on a mismatch."""
    ir = lower(model, opts)
    files = emit(ir, opts.style)
    report = Report()
    with tempfile.TemporaryDirectory(prefix="treegen-verify-") as tmp:
        built = build(ir, files, workdir or Path(tmp), cc=cc)
        X = verify_rows(ir, opts, data, n_random, seed, report)
        c_cls, c_proba = built.run(X)
        compare(ir, model, X, c_cls, c_proba, report, opts)
    return report
