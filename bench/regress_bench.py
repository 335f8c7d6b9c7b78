"""Regressor benchmark: treegen's C for scikit-learn regressors beside
emlearn's, m2cgen's and tl2cgen's.

**Data**: bench/ensemble_models.py's sensor data (8 float32 features, 6,000 windows),
with a numeric target, an energy expenditure per window:
``1.2 + 0.9 * activity + 0.4 * accel_std + 0.02 * gyro_std + noise`` (kcal/min,
``activity`` the class index 0..3, noise normal with sd 0.1, seed 0); split 75/25,
``random_state=0``.  **Models** (``random_state=0``): ``tree`` DecisionTreeRegressor
(max_depth 8), ``forest`` RandomForestRegressor(10 trees, max_depth 8), ``extra``
ExtraTreesRegressor(10, max_depth 8), ``gboost`` GradientBoostingRegressor(100 stages,
max_depth 3), ``hist`` HistGradientBoostingRegressor(50 iterations, 15 leaves).

**Rows**: the test split, then for every split threshold of the model the float32
neighbours of it (the float32 at or below, the one above, one more on each side), each
in a copy of a test row (in turn).  The truth is ``estimator.predict`` on those float32
values, as float64.

**Forms** (bench/ensemble_forms.py's API, ``bench_vector`` writing the predicted value
as a double): treegen's table and ifs exports (``tg_predict``'s float64); emlearn's
inline float form (``em_predict``: a float, the only regression form it has; trees and
forests only); m2cgen's ``score`` (double); tl2cgen's ``predict`` (double,
``pred_margin`` 0).  ``bench_predict`` computes the value and returns its sign (what is
timed).

**Measured** (bench/ensemble_measure.py): flash on the Cortex-M0+ and the ATmega328P (a
linked firmware minus an empty one), host ns per prediction (gcc -O2, the median of
:data:`ROUNDS` rounds interleaved across the forms, each the median of a run's loops;
over the test rows in order, where a branch predictor learns part of the repeated
sequence, and shuffled, where it cannot), and the rows whose value differs from
``estimator.predict``'s float64 in any bit (gcc -O2).

``python -m bench.regress_bench [--models NAME ...] [--cpu-time]`` runs it (``--cpu-time``:
the timings in CPU time, CLOCK_PROCESS_CPUTIME_ID, on a machine other jobs share).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench import ensemble_measure as em
from bench import harness as hw
from bench.ensemble_forms import Form, _failed, _inline_includes, tl2cgen_source
from bench.ensemble_models import sensor_data

MODELS = ("tree", "forest", "extra", "gboost", "hist")
ROUNDS = 5
ORDERS = ("time", "shuffled")  # the test rows in order, and in a fixed pseudo-random order
Array = npt.NDArray[np.float64]

HEADER = """#ifndef BENCH_PREDICT_H
#define BENCH_PREDICT_H
#include <stdint.h>
typedef float bench_input_t;
#define BENCH_N_FEATURES {n}
#define BENCH_N_CLASSES 1
int bench_predict(const bench_input_t *x);
int bench_vector(const bench_input_t *x, double *out);
#endif
"""

# bench_vector(x, out) writes the value (VALUE is an expression in x); bench_predict
# returns its sign.
WRAPPER = """
int bench_vector(const bench_input_t *x, double *out)
{{
{body}
    return 1;
}}

int bench_predict(const bench_input_t *x)
{{
    double v;
    bench_vector(x, &v);
    return v > 0.0;
}}
"""


def data() -> tuple[Array, Array, Array, Array]:
    """(X_train, X_test, y_train, y_test) of the module docstring."""
    from sklearn.model_selection import train_test_split

    X, label = sensor_data()
    noise = np.random.default_rng(0).normal(0.0, 0.1, len(label))
    y = 1.2 + 0.9 * label + 0.4 * X[:, 3] + 0.02 * X[:, 5] + noise
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0)
    return X_tr, X_te, y_tr, y_te


def fit(name: str, X: Array, y: Array) -> Any:
    from sklearn.ensemble import (
        ExtraTreesRegressor,
        GradientBoostingRegressor,
        HistGradientBoostingRegressor,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeRegressor

    est: Any = {
        "tree": lambda: DecisionTreeRegressor(max_depth=8, random_state=0),
        "forest": lambda: RandomForestRegressor(n_estimators=10, max_depth=8, random_state=0),
        "extra": lambda: ExtraTreesRegressor(n_estimators=10, max_depth=8, random_state=0),
        "gboost": lambda: GradientBoostingRegressor(n_estimators=100, max_depth=3, random_state=0),
        "hist": lambda: HistGradientBoostingRegressor(
            max_iter=50, max_leaf_nodes=15, random_state=0
        ),
    }[name]()
    return est.fit(X, y)


def _thresholds(est: Any) -> list[tuple[int, float]]:
    out: list[tuple[int, float]] = []
    if hasattr(est, "_predictors"):
        for it in est._predictors:
            for p in it:
                for node in p.nodes:
                    if not node["is_leaf"]:
                        out.append((int(node["feature_idx"]), float(node["num_threshold"])))
        return out
    members = [est] if hasattr(est, "tree_") else list(np.ravel(est.estimators_))
    for m in members:
        t = m.tree_
        for f, thr in zip(t.feature, t.threshold, strict=True):
            if f >= 0:
                out.append((int(f), float(thr)))
    return out


def rows(est: Any, X_test: Array) -> Array:
    """The test rows, then every threshold's float32 neighbours in test rows."""
    out = [np.asarray(X_test, dtype=np.float32)]
    extra = []
    for i, (f, thr) in enumerate(sorted(set(_thresholds(est)))):
        lo = np.float32(thr)
        if float(lo) > thr:
            lo = np.nextafter(lo, np.float32(-np.inf))
        below = np.nextafter(lo, np.float32(-np.inf))
        above = np.nextafter(lo, np.float32(np.inf))
        for v in (below, lo, above, np.nextafter(above, np.float32(np.inf))):
            r = np.array(X_test[i % len(X_test)], dtype=np.float32)
            r[f] = v
            extra.append(r)
    if extra:
        out.append(np.asarray(extra, dtype=np.float32))
    return np.vstack(out).astype(np.float64)


def treegen_forms(est: Any) -> list[Form]:
    from treegen.codegen.options import ExportOptions
    from treegen.ensemble.regress import regressor_from_sklearn
    from treegen.kinds.export import render

    n = int(est.n_features_in_)
    try:
        ens = regressor_from_sklearn(est)
    except Exception as exc:  # noqa: BLE001 -- a refusal is a result
        return [_failed("treegen", s, exc) for s in ("table", "ifs")]
    out = []
    for s in ("table", "ifs"):
        files = dict(render(ens, ExportOptions(prefix="tg", style=s, name="tg")).files)
        body = "    double y[1];\n    tg_predict(x, y);\n    out[0] = y[0];"
        files["predict.c"] = '#include "predict.h"\n#include "tg.c"\n' + WRAPPER.format(body=body)
        files["predict.h"] = HEADER.format(n=n)
        out.append(Form("treegen", s, files, "", True, "values", files))
    return out


def emlearn_forms(est: Any) -> list[Form]:
    import emlearn

    if type(est).__name__ not in ("DecisionTreeRegressor", "RandomForestRegressor",
                                  "ExtraTreesRegressor"):  # fmt: skip
        return [Form("emlearn", "-", {}, error="not read (trees and forests only)")]
    n = int(est.n_features_in_)
    try:
        conv = emlearn.convert(est, method="inline", dtype="float")
        text = conv.save(name="em", format="c")
    except Exception as exc:  # noqa: BLE001
        return [_failed("emlearn", "inline float", exc)]
    body = _inline_includes(text, Path(emlearn.includedir))
    call = f"    out[0] = (double)em_predict(x, {n});"
    files = {
        "predict.c": '#include "predict.h"\n' + body + WRAPPER.format(body=call),
        "predict.h": HEADER.format(n=n),
    }
    return [Form("emlearn", "inline float", files, "", False, "values", files)]


def m2cgen_forms(est: Any) -> list[Form]:
    import m2cgen

    n = int(est.n_features_in_)
    try:
        text = m2cgen.export_to_c(est)
    except Exception as exc:  # noqa: BLE001
        return [_failed("m2cgen", "C", exc)]
    call = (
        f"    double in[{n}]; int i;\n    for (i = 0; i < {n}; i++) in[i] = x[i];\n"
        "    out[0] = score(in);"
    )
    files = {
        "predict.c": '#include "predict.h"\n' + text + WRAPPER.format(body=call),
        "predict.h": HEADER.format(n=n),
    }
    return [Form("m2cgen", "C", files, "", False, "values", files)]


def tl2cgen_forms(est: Any) -> list[Form]:
    n = int(est.n_features_in_)
    try:
        body = tl2cgen_source(est)
    except Exception as exc:  # noqa: BLE001
        return [_failed("tl2cgen", "C", exc)]
    call = (
        f"    union Entry d[{n}]; double r[N_TARGET * MAX_N_CLASS]; int i;\n"
        f"    for (i = 0; i < {n}; i++) {{\n"
        "        if (x[i] != x[i]) d[i].missing = -1; else d[i].fvalue = x[i];\n    }\n"
        "    for (i = 0; i < N_TARGET * MAX_N_CLASS; i++) r[i] = 0.0;\n"
        "    predict(d, 0, r);\n    out[0] = r[0];"
    )
    files = {
        "predict.c": '#include "predict.h"\n' + body + WRAPPER.format(body=call),
        "predict.h": HEADER.format(n=n),
    }
    return [Form("tl2cgen", "C", files, "", False, "values", files)]


def measure(name: str, work: Path) -> list[tuple[str, ...]]:
    """One model's rows of the table: form, M0+ flash, AVR flash, host ns in order and
    shuffled, values differing."""
    X_tr, X_te, y_tr, _ = data()
    est = fit(name, X_tr, y_tr)
    R = rows(est, X_te)
    want = np.asarray(est.predict(R.astype(np.float32)), dtype=np.float64).reshape(-1, 1)
    forms = treegen_forms(est) + emlearn_forms(est) + m2cgen_forms(est) + tl2cgen_forms(est)
    out: list[tuple[str, ...]] = []
    timed: list[tuple[int, Form, Path]] = []
    for i, form in enumerate(forms):
        if form.error:
            out.append((name, form.label, "-", "-", "-", "-", form.error[:60]))
            continue
        d = work / f"{name}-{i}"
        flash = []
        for chip in ("m0plus", "avr"):
            cost = hw.link_cost(form, chip, d / chip)
            flash.append(cost.error[:30] if cost.error else f"{cost.flash:,}")
        got = em.host_vectors(form, R, d / "host", "gcc")
        bad = got if isinstance(got, str) else f"{em.vector_mismatches(got, want)} / {len(R)}"
        out.append((name, form.label, flash[0], flash[1], "-", "-", bad))
        if not isinstance(got, str):
            timed.append((len(out) - 1, form, d / "host"))
    # Rounds interleaved across the forms, so a change of load hits every form alike.
    times: dict[tuple[int, str], list[float]] = {}
    for _ in range(ROUNDS):
        for row, form, d in timed:
            for order in ORDERS:
                t = em.host_ns(form, X_te, d, order)
                if not isinstance(t, str):
                    times.setdefault((row, order), []).append(statistics.median(t))
    for row, _, _ in timed:
        ns = [
            f"{statistics.median(times[row, o]):.1f}" if (row, o) in times else "-" for o in ORDERS
        ]
        out[row] = (*out[row][:4], *ns, out[row][6])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("--models", nargs="*", default=list(MODELS), choices=MODELS)
    ap.add_argument(
        "--cpu-time",
        action="store_true",
        help="time with CPU time (CLOCK_PROCESS_CPUTIME_ID), not wall clock: on a shared machine",
    )
    args = ap.parse_args(argv)
    if args.cpu_time:
        os.environ["BENCH_CLOCK"] = "CLOCK_PROCESS_CPUTIME_ID"
    head = ("model", "form", "M0+ flash B", "AVR flash B", "host ns", "shuffled ns",
            "values differing")  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    with tempfile.TemporaryDirectory(prefix="bench-regress-") as tmp:
        for name in args.models:
            for row in measure(name, Path(tmp)):
                print("| " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
