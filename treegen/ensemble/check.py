"""An ensemble's side of ``verify``: the rows, and the Python side the C is held to.

The rows (:func:`verify_rows`) are the data given, then for every test of every tree the
values around its threshold in the C input type (the C threshold and its neighbours,
and the model's own threshold with its float32 neighbours; for a zero-band test the
band's edges and their neighbours), every code of a categorical test, one past them
and fractions between, the missing value and the type's special values, each in a row
of otherwise missing values and in random rows mixing them.  :func:`compare` holds the
C's class (and its exported doubles, bit for bit) on every row against the ensemble's
numpy arithmetic (treegen.ensemble.classify) on the values the C was given.  Under
``--missing none`` that is the ensemble with the none rule's missing-value ways
(treegen.ensemble.lower.none_rule), on every row, NaN and sentinel rows included; and the
ensemble itself on the rows with no missing value, where the C must be exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.ensemble import classify, isolation
from treegen.ensemble.core import ZERO_BAND, Ensemble
from treegen.ensemble.ir import CatSplit, EnsembleIR, Split
from treegen.ensemble.lower import none_rule
from treegen.verify.inputs import (
    c_values,
    key_to_float,
    missing_value,
    model_values,
    random_rows,
    to_c_domain,
)
from treegen.verify.oracle import missing_mask
from treegen.verify.report import Report, check_against, fmt_row, row_counts, tally


def _near(ir: EnsembleIR, node: Split) -> list[float]:
    """Values (as floats) around a numeric test's C threshold and its model threshold."""
    enc = ir.encoding
    if node.op in ("left", "right") and not node.implied:  # the type's range decides
        lo, hi = enc.int_range if enc.is_int else (-1.0, 1.0)
        return [float(lo), float(hi), 0.0]
    t = key_to_float(int(node.threshold)) if enc.uses_keys else float(node.threshold)
    if enc.is_int:
        lo, hi = enc.int_range
        return [float(v) for v in (t - 1, t, t + 1) if lo <= v <= hi]
    dt = np.float32 if enc.uses_keys else enc.ctype.dtype
    out = []
    if node.zero:
        out += [0.0, -0.0, 1e-36, -1e-36]
        for edge in (dt(ZERO_BAND), dt(-ZERO_BAND)):
            out += [
                float(edge),
                float(np.nextafter(edge, dt(np.inf))),
                float(np.nextafter(edge, dt(-np.inf))),
            ]
    with np.errstate(over="ignore"):
        bases = (t, node.cut) if math.isfinite(node.cut) else (t,)
        for base in bases:
            f = dt(base)
            out += [
                float(np.nextafter(f, dt(-np.inf))),
                float(f),
                float(np.nextafter(f, dt(np.inf))),
            ]
            f32 = np.float32(base)
            out += [float(np.nextafter(f32, np.float32(s * np.inf))) for s in (-1, 1)]
    return out


def ensemble_inputs(ir: EnsembleIR, n_random: int = 1000, seed: int = 0) -> npt.NDArray[np.generic]:
    """The rows verify runs (C input domain), DATA rows aside (module docstring)."""
    enc = ir.encoding
    m = ir.n_features
    miss = missing_value(ir.frame)
    choices: list[list[float]] = [[] for _ in range(m)]
    for tree in ir.trees:
        for node in tree.nodes:
            if isinstance(node, Split):
                choices[node.feature].extend(_near(ir, node))
            elif isinstance(node, CatSplit):
                cats = ir.categories[node.feature] if ir.categories else ()
                codes = list(cats) if cats else [float(c) for c in range(node.n_codes)]
                k = float(node.n_codes)
                extra = [-1.0, k] + ([] if enc.is_int else [0.5, -0.5, -1.5, k - 0.5, 1e9])
                choices[node.feature].extend(codes + extra)
    rows: list[list[float]] = [[miss] * m]
    for f, vals in enumerate(choices):
        for v in dict.fromkeys(vals):
            row = [miss] * m
            row[f] = v
            rows.append(row)
    if not enc.is_int:
        for f in range(m):
            for v in (math.inf, -math.inf, -0.0, -math.nan):
                row = [0.0] * m
                row[f] = v
                rows.append(row)
    else:
        lo, hi = enc.int_range
        rows += [[float(lo)] * m, [float(hi)] * m, [0.0] * m]
    rows += random_rows(np.random.default_rng(seed), choices, miss, n_random)
    return c_values(ir.frame, rows)


def python_values(ir: EnsembleIR, X: npt.NDArray[np.generic]) -> npt.NDArray[np.float64]:
    """C rows -> what the ensemble's numpy arithmetic reads: the values ``treegen predict``
    reads for them (scaled integers as the double nearest x/K), NaN where the C sees a
    missing value."""
    values = model_values(ir.frame, X)
    for j in range(X.shape[1]):
        values[missing_mask(X[:, j], ir.encoding), j] = np.nan
    return values


def verify_rows(
    ens: Ensemble,
    ir: EnsembleIR,
    opts: ExportOptions,
    data: Sequence[Dataset],
    n_random: int,
    seed: int,
    report: Report,
) -> npt.NDArray[np.generic]:
    """The rows verify compares (DATA rows first), described in ``report``."""
    parts = [to_c_domain(ir.frame, ds.X) for ds in data]
    parts.append(ensemble_inputs(ir, n_random, seed))
    X = np.concatenate(parts)
    n_data = sum(ds.n_rows for ds in data)
    enc = ir.encoding
    report.lines.append(
        f"ensemble of {counted(len(ir.trees), 'tree')}, input {enc.input_type}"
        f"{', float compare int' if enc.uses_keys else ''}"
        f"{', missing none' if ir.lean else ''}: "
        f"{row_counts(n_data, X.shape[0], n_random)}"
    )
    return X


def compare(
    ens: Ensemble,
    ir: EnsembleIR,
    opts: ExportOptions,
    X: npt.NDArray[np.generic],
    c_cls: npt.NDArray[np.int32],
    c_proba: npt.NDArray[Any],
    report: Report,
) -> None:
    """The C's class on every row against the ensemble's float64 arithmetic, and the
    doubles it exports (predict_proba or decision_function) bit for bit: the float64
    values, or their nearest float32 where the C's double has 32 bits (``c_proba`` is a
    float32 array then)."""
    values = python_values(ir, X)
    every: npt.NDArray[np.bool_] = np.ones(X.shape[0], dtype=bool)
    noun = "Python regressor" if ens.regressor else "Python ensemble"
    sides: list[tuple[str, Ensemble, npt.NDArray[np.bool_]]] = [(noun, ens, every)]
    if ir.lean:
        known: npt.NDArray[np.bool_] = np.asarray(~np.isnan(values).any(axis=1))
        sides = [
            (f"{noun}, none rule", none_rule(ens, ir), every),
            (f"{noun} (rows with no missing value)", ens, known),
        ]
    bad = np.zeros(X.shape[0], dtype=bool)
    for name, side, rows in sides:
        if ens.regressor:
            bad |= compare_values(side, values, X, c_cls, c_proba, report, rows, name)
            continue
        # decide, not predict: the NaN rows of an estimator that refuses NaN too, which
        # the C (that cannot refuse) sends right (core.NAN_REFUSED).
        want = classify.decide(side, classify.scores(side, values)).astype(np.int32)
        if ir.proba_api is None:
            bad |= check_against(report, name, X, rows, c_cls, want)
            continue
        exact = (
            isolation.glibc_scores(side, values)
            if side.anomaly is not None
            else classify.decision_values(side, values)
        )
        if c_proba.dtype == np.float32:
            got_bits, want_bits = c_proba.view(np.uint32), exact.astype(np.float32).view(np.uint32)
        else:
            got = np.ascontiguousarray(c_proba, dtype=np.float64)
            got_bits, want_bits = got.view(np.uint64), exact.view(np.uint64)
        values_name = "probabilities" if ir.proba_api.name == "predict_proba" else "scores"
        bad |= check_against(
            report, f"{name} (bits)", X, rows, c_cls, want, got_bits, want_bits, values_name
        )
    tally(report, X.shape[0], bad)


def compare_values(
    ens: Ensemble,
    values: npt.NDArray[np.float64],
    X: npt.NDArray[np.generic],
    c_same: npt.NDArray[np.int32],
    c_bits: npt.NDArray[Any],
    report: Report,
    rows: npt.NDArray[np.bool_],
    name: str,
) -> npt.NDArray[np.bool_]:
    """A regressor's C on ``rows`` against ``ens``'s float64 arithmetic (the report
    line is named ``name``; returns the rows that differ): ``c_bits`` holds
    ``predict_bits``'s words (high, low per output), compared with the float64 values'
    bits; ``c_same`` is 1 where ``predict``'s doubles were found to have other bits (by
    the host's batch, or by the firmware driver, treegen.firmware.sim.regress_same:
    where double has 32 bits, other than the nearest binary32 of the float64)."""
    exact = np.ascontiguousarray(classify.scores(ens, values), dtype=np.float64)
    words = exact.view(np.uint64)
    want = np.empty((exact.shape[0], 2 * exact.shape[1]), dtype=np.uint64)
    want[:, 0::2] = words >> np.uint64(32)
    want[:, 1::2] = words & np.uint64(0xFFFFFFFF)
    got = np.asarray(c_bits, dtype=np.uint64)
    bad: npt.NDArray[np.bool_] = ((got != want).any(axis=1) | (np.asarray(c_same) != 0)) & rows
    n = int(rows.sum())
    verdict = "identical" if not bad.any() else f"{counted(int(bad.sum()), 'row')} differ"
    report.lines.append(
        f"C vs {name}: {counted(n, 'row')}, float64 values compared bit for bit: {verdict}"
    )
    for r in np.flatnonzero(bad)[:5]:
        c = (got[r, 0::2] << np.uint64(32)) | got[r, 1::2]
        report.mismatches.append(
            f"row {r} {fmt_row(X[r])}: value C {c.view(np.float64).tolist()} "
            f"vs {exact[r].tolist()}" + (" (predict's doubles differ)" if c_same[r] else "")
        )
    return bad
