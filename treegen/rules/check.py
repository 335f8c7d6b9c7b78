"""A ruleset's side of ``verify``: the numpy evaluator of its C, the rows, the comparison.

:func:`evaluate` computes in numpy what the ruleset's C (treegen.rules.ccode) computes;
:func:`compare` holds the C's class on every row against it and against the Python
ruleset's (treegen.rules.core.predict).  The rows (:func:`verify_rows`) are the data
given plus :func:`ruleset_inputs`: for each rule a row that meets it, each condition's
feature moved to the values around its threshold (or to each code) and to missing, the
type's special values, and random mixtures of those.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.codegen.keys import float_keys
from treegen.codegen.lower import FLT_MAX
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.rules.ccode import RuleIR, RuleTest
from treegen.rules.core import RuleSet
from treegen.rules.core import predict as rules_predict
from treegen.verify.inputs import c_values, key_to_float, model_values, random_rows, to_c_domain
from treegen.verify.oracle import missing_mask
from treegen.verify.report import Report, check_against, row_counts, tally


def _c_values(col: npt.NDArray[np.generic], rir: RuleIR) -> npt.NDArray[Any]:
    """A column as the C compares it: keys under --float-compare int, else as is."""
    enc = rir.frame.encoding
    if enc.uses_keys:
        return float_keys(col.astype(np.float32))
    if enc.is_int:
        return col.astype(np.int64)
    return col


def holds(t: RuleTest, col: npt.NDArray[np.generic], rir: RuleIR) -> npt.NDArray[np.bool_]:
    """Rows whose value (in the C domain) passes ``t``, as the C decides it."""
    known = ~missing_mask(col, rir.frame.encoding)
    v = _c_values(col, rir)
    if t.op == "in":
        out: npt.NDArray[np.bool_] = known & np.isin(v, np.asarray(t.values, dtype=v.dtype))
        return out
    if t.op == "known":
        return known
    thr: Any = v.dtype.type(t.threshold)
    with np.errstate(invalid="ignore"):
        if t.op == "le":
            held = v <= thr
        elif t.op == "lt":
            held = v < thr
        elif t.op == "gt":
            held = v > thr
        else:
            held = v >= thr
    result: npt.NDArray[np.bool_] = known & np.asarray(held, dtype=bool)
    return result


def evaluate(rir: RuleIR, X: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """The class the C returns for every row of ``X`` (C input domain)."""
    rows = np.asarray(X)
    out = np.full(rows.shape[0], rir.default, dtype=np.int32)
    for r in reversed(rir.rules):
        fires = np.ones(rows.shape[0], dtype=bool)
        for t in r.tests:
            fires &= holds(t, rows[:, t.feature], rir)
        out[fires] = r.cls
    return out


def _near(rir: RuleIR, t: RuleTest, cut: float) -> list[float]:
    """Values (C domain, as floats) around test ``t``'s threshold and the model's ``cut``."""
    enc = rir.frame.encoding
    if t.op in ("known", "in"):
        lo, hi = enc.int_range if enc.is_int else (-1.0, 1.0)
        if t.op == "in":
            vals = [float(key_to_float(int(v))) if enc.uses_keys else float(v) for v in t.values]
            return vals + [v + 1 for v in vals] + [-1.0, 0.5 if not enc.is_int else 0.0]
        return [float(lo), float(hi), 0.0]
    thr = key_to_float(int(t.threshold)) if enc.uses_keys else float(t.threshold)
    if enc.is_int:
        lo, hi = enc.int_range
        return [float(v) for v in (thr - 1, thr, thr + 1) if lo <= v <= hi]
    dt = enc.ctype.dtype
    out = []
    with np.errstate(over="ignore"):
        for base in (thr, cut) if math.isfinite(cut) else (thr,):
            f = dt(base)
            out += [
                float(np.nextafter(f, dt(-np.inf))),
                float(f),
                float(np.nextafter(f, dt(np.inf))),
            ]
            f32 = np.float32(base)
            out += [float(np.nextafter(f32, np.float32(s * np.inf))) for s in (-1, 1)]
    return out


def ruleset_inputs(
    rir: RuleIR, rs: RuleSet, n_random: int = 1000, seed: int = 0
) -> npt.NDArray[np.generic]:
    """The rows verify compares (C input domain): per rule, a row meeting its conditions
    (the other features missing), then each condition's feature set to the values around
    its threshold (or every code and a few non-codes) and to missing; special values;
    random rows mixing those values with missing ones."""
    enc = rir.frame.encoding
    m = rir.frame.n_features
    miss = float("nan") if enc.missing is None else float(enc.missing)
    cuts = {
        (r.number, k): c.threshold
        for r in rs.rules
        for k, c in enumerate(r.conditions)
        if c.op in ("<=", ">")
    }
    choices: list[list[float]] = [[] for _ in range(m)]
    rows: list[list[float]] = [[miss] * m]
    for r in rir.rules:
        per = []
        for k, t in enumerate(r.tests):
            cut = cuts.get((r.number, k), math.nan)
            vals = _near(rir, t, cut)
            per.append(vals)
            choices[t.feature].extend(vals)
        base = [miss] * m
        for t, vals in zip(r.tests, per, strict=True):
            held = holds(t, c_values(rir.frame, vals), rir)
            ok = [v for v, h in zip(vals, held, strict=True) if h]
            base[t.feature] = ok[0] if ok else base[t.feature]
        rows.append(base)
        for t, vals in zip(r.tests, per, strict=True):
            for v in [*vals, miss]:
                row = list(base)
                row[t.feature] = v
                rows.append(row)
    if not enc.is_int:
        for f in range(m):
            for v in (math.inf, -math.inf, -0.0, FLT_MAX):
                row = [0.0] * m
                row[f] = v
                rows.append(row)
    else:
        lo, hi = enc.int_range
        rows += [[float(lo)] * m, [float(hi)] * m, [0.0] * m]
    rows += random_rows(np.random.default_rng(seed), choices, miss, n_random)
    return c_values(rir.frame, rows)


def python_values(rir: RuleIR, X: npt.NDArray[np.generic]) -> npt.NDArray[np.float64]:
    """C rows -> what the Python ruleset reads: the values treegen predict reads for them
    (treegen.codegen.inputs.model_values), NaN where the C sees a missing value."""
    values = model_values(rir.frame, X)
    for j in range(X.shape[1]):
        values[missing_mask(X[:, j], rir.frame.encoding), j] = np.nan
    return values


def verify_rows(
    rs: RuleSet,
    rir: RuleIR,
    opts: ExportOptions,
    data: Sequence[Dataset],
    n_random: int,
    seed: int,
    report: Report,
) -> npt.NDArray[np.generic]:
    """The rows verify compares (DATA rows first), described in ``report``."""
    parts = [to_c_domain(rir.frame, ds.X) for ds in data]
    parts.append(ruleset_inputs(rir, rs, n_random, seed))
    X = np.concatenate(parts)
    n_data = sum(ds.n_rows for ds in data)
    enc = rir.frame.encoding
    report.lines.append(
        f"ruleset of {counted(len(rs.rules), 'rule')}, input {enc.input_type}"
        f"{', float compare int' if enc.uses_keys else ''}: "
        f"{row_counts(n_data, X.shape[0], n_random)}"
    )
    return X


def compare(
    rs: RuleSet,
    rir: RuleIR,
    opts: ExportOptions,
    X: npt.NDArray[np.generic],
    c_cls: npt.NDArray[np.int32],
    c_proba: npt.NDArray[np.uint16],
    report: Report,
) -> None:
    """The C's class on every row against the rule evaluator's and the Python ruleset's."""
    checks = [
        ("rule evaluator", evaluate(rir, X)),
        ("Python ruleset", rules_predict(rs, python_values(rir, X)).astype(np.int32)),
    ]
    bad = np.zeros(X.shape[0], dtype=bool)
    every = np.ones(X.shape[0], dtype=bool)
    for name, cls in checks:
        bad |= check_against(report, name, X, every, c_cls, cls)
    tally(report, X.shape[0], bad)
