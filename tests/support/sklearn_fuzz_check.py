"""The checks of the scikit-learn configuration fuzz (support/sklearn_fuzz.py makes
the cases): :func:`check_python` holds the imported model to the estimator bit for bit,
:func:`check_c` its C in drawn modes, :func:`check_verify` ``Model.verify`` in an
integer, keyed or lean mode (both C also strict on avr-gcc), :func:`check_cli` the
model file through ``import-sklearn`` and ``treegen predict``, :func:`check_chip` the C
on a simulated chip (support.fuzz_chips, which the XGBoost/LightGBM fuzz shares).  Each
returns its failures (empty: none).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from support import fuzz_chips
from support.floatbits import bits, first_differing_row, same_bits
from support.sklearn_fuzz import REGRESSORS, Case, FloatArray, make_case, pick


def sklearn_outputs(case: Case, rows: Any) -> dict[str, Any]:
    """What the estimator answers: predict, and its decision values where it has them."""
    est = case.estimator
    out: dict[str, Any] = {"predict": np.asarray(est.predict(rows))}
    name = type(est).__name__
    if name in (
        "RandomForestClassifier",
        "ExtraTreesClassifier",
        "DecisionTreeClassifier",
        "ExtraTreeClassifier",
    ):
        out["scores"] = np.asarray(est.predict_proba(rows))
    elif case.kind in ("gb_c", "hist_c", "ada_c"):
        out["scores"] = np.asarray(est.decision_function(rows)).reshape(len(out["predict"]), -1)
        out["proba"] = np.asarray(est.predict_proba(rows))
    elif case.kind == "iforest":
        out["scores"] = np.column_stack([est.score_samples(rows), est.decision_function(rows)])
    return out


def _rows_array(case: Case, model: Any) -> FloatArray:
    """The check rows as the model's float64 input (a frame's text categories as codes)."""
    if not case.frame:
        return np.asarray(case.rows, dtype=np.float64)
    import pandas as pd

    cols = []
    for j, name in enumerate(case.rows.columns):
        col = case.rows[name]
        attr = model.schema.attributes[j]
        if attr.kind == "nominal":
            lookup = {v: i for i, v in enumerate(attr.values)}
            cols.append(
                np.asarray(
                    [np.nan if pd.isna(v) else lookup.get(str(v), np.nan) for v in col],
                    dtype=np.float64,
                )
            )
        else:
            cols.append(np.asarray(col.astype(np.float64), dtype=np.float64))
    return np.stack(cols, axis=1)


def check_python(case: Case) -> list[str]:
    """Import through the public API; the model's predictions against the estimator's,
    bit for bit.  Returns the failures (empty: none); a refusal is recorded."""
    import treegen
    from treegen.ensemble import classify, isolation
    from treegen.errors import TreegenError

    try:
        model = treegen.from_sklearn(case.estimator)
    except TreegenError as exc:
        case.refused = str(exc)
        return []
    ens = model.value
    X = _rows_array(case, model)
    want = sklearn_outputs(case, case.rows)
    fails: list[str] = []
    classes = np.asarray(case.estimator.classes_) if hasattr(case.estimator, "classes_") else None
    if not case.takes_nan and case.kind != "iforest":
        nan_row = np.full((1, X.shape[1]), np.nan)
        try:
            model.predict(nan_row)
            fails.append("a NaN row was answered: the estimator's predict refuses NaN")
        except TreegenError:
            pass
    if case.kind in REGRESSORS:
        got = model.predict(X)
        if not same_bits(got, want["predict"]):
            bad = first_differing_row(got, want["predict"])
            fails.append(_msg("predict", X, bad, got, want["predict"]))
        return fails
    idx = classify.predict(ens, X)
    if case.kind == "iforest":
        got_labels = np.where(idx == 1, 1, -1)
    else:
        assert classes is not None
        got_labels = classes[idx]
    if not np.array_equal(got_labels, want["predict"]):
        bad = int(np.flatnonzero(got_labels != want["predict"])[0])
        fails.append(_msg("predict", X, bad, got_labels, want["predict"]))
    api = model.predict(case.rows if case.frame else X)
    if not np.array_equal(np.asarray(api), want["predict"]):
        fails.append("Model.predict differs from classify.predict's labels")
    if case.kind == "iforest":
        mine = np.column_stack(
            [isolation.score_samples(ens, X), isolation.decision_function(ens, X)]
        )
    else:
        mine = classify.decision_values(ens, X)
    theirs = want["scores"]
    if not same_bits(mine, theirs):
        bad = first_differing_row(mine, theirs)
        fails.append(_msg("scores", X, bad, mine, theirs))
    if "proba" in want:
        p = model.predict_proba(case.rows if case.frame else X)
        if not same_bits(p, want["proba"]):
            bad = first_differing_row(p, want["proba"])
            fails.append(_msg("predict_proba", X, bad, p, want["proba"]))
    return fails


def _msg(what: str, X: FloatArray, row: int, got: Any, want: Any) -> str:
    return f"{what}: row {row} {X[row].tolist()}: {_at(got, row)!r} != {_at(want, row)!r}"


def _at(a: Any, i: int) -> Any:
    v = np.asarray(a)[i]
    return v.tolist() if hasattr(v, "tolist") else v


def check_c(case: Case, workdir: Path, modes: list[dict[str, Any]]) -> list[str]:
    """The model's C in each of ``modes`` (export options) against the estimator on the
    check rows, bit for bit: the class, and the exported doubles (proba or scores)."""
    import treegen
    from treegen.codegen.options import ExportOptions
    from treegen.errors import TreegenError
    from treegen.kinds.export import render
    from treegen.verify.build import build

    model = treegen.from_sklearn(case.estimator)
    X = _rows_array(case, model)
    want = sklearn_outputs(case, case.rows)
    fails: list[str] = []
    for i, mode in enumerate(modes):
        opts = ExportOptions(prefix=f"m{i}", **mode)
        try:
            r = render(model.value, opts)
        except TreegenError as exc:
            fails.append(f"C {mode}: export refused: {exc}")
            continue
        built = build(r.kind.api(r.lowered), r.files, workdir / f"m{i}")
        fails += fuzz_chips.avr_strict(r.files, mode, workdir / f"avr{i}")
        dtype = np.float64 if mode.get("input_type") == "double" else np.float32
        with np.errstate(over="ignore"):
            rows = X.astype(dtype)
        cls, out = built.run(rows)
        fails += _compare_c(case, model, mode, X, cls, out, want)
    return fails


def _compare_c(
    case: Case,
    model: Any,
    mode: dict[str, Any],
    X: FloatArray,
    cls: Any,
    out: Any,
    want: dict[str, Any],
) -> list[str]:
    est = case.estimator
    fails: list[str] = []
    # The rows the C's input type holds as they are: float32 C answers on float32 values.
    if mode.get("input_type") != "double" and case.kind in ("hist_c", "hist_r"):
        with np.errstate(over="ignore"):
            exact = (X.astype(np.float32).astype(np.float64) == X) | np.isnan(X)
        keep = exact.all(axis=1)
    else:
        keep = np.ones(len(X), dtype=bool)
    if case.kind in REGRESSORS:
        words = np.asarray(out, dtype=np.uint64)
        vals = ((words[:, 0::2] << np.uint64(32)) | words[:, 1::2]).view(np.float64)
        w = np.asarray(want["predict"], dtype=np.float64).reshape(len(X), -1)
        bad = np.flatnonzero(keep & ((bits(vals) != bits(w)).any(axis=1) | (cls != 0)))
        if bad.size:
            b = int(bad[0])
            fails.append(_msg(f"C {mode}: {bad.size} rows", X, b, vals, w))
        return fails
    if case.kind == "iforest":
        want_idx = (want["predict"] == 1).astype(np.int32)
    else:
        classes = np.asarray(est.classes_)
        want_idx = np.asarray(
            [int(np.flatnonzero(classes == v)[0]) for v in want["predict"]], dtype=np.int32
        )
    bad = np.flatnonzero(keep & (cls != want_idx))
    if bad.size:
        b = int(bad[0])
        fails.append(_msg(f"C {mode}: class differs on {bad.size} rows", X, b, cls, want_idx))
    if mode.get("proba") or mode.get("scores"):
        theirs = np.asarray(want["scores"], dtype=np.float64)
        if case.kind == "iforest":
            # The C's power is glibc's (treegen.ensemble.pow2); scikit-learn's is numpy's,
            # which on a machine with AVX-512 is numpy's own kernel and differs from
            # glibc's in the last bit on some sums.  check_python holds numpy's scores to
            # the estimator; the C is held to glibc's arithmetic, as verify holds it.
            from treegen.ensemble import isolation

            theirs = isolation.glibc_scores(model.value, X)
        got = np.asarray(out, dtype=np.float64)
        if got.shape == theirs.shape:
            bad = np.flatnonzero(keep & (bits(got) != bits(theirs)).any(axis=1))
            if bad.size:
                b = int(bad[0])
                fails.append(_msg(f"C {mode}: values differ on {bad.size} rows", X, b, got, theirs))
        else:
            fails.append(f"C {mode}: exported {got.shape} values, estimator {theirs.shape}")
    return fails


def check_verify(case: Case, rng: np.random.Generator, workdir: Path) -> list[str]:
    """``Model.verify`` (the C against the Python model on verify's own rows) in a mode
    :func:`check_c` does not run: integer inputs with a scale, float keys, ``--missing
    none``; and that C strict on avr-gcc.  A categorical test read as a number refuses
    integer inputs: no finding."""
    import treegen
    from treegen.codegen.options import ExportOptions
    from treegen.errors import TreegenError
    from treegen.kinds.check import verify
    from treegen.kinds.export import render

    model = treegen.from_sklearn(case.estimator)
    mode: dict[str, Any] = {"style": pick(rng, "ifs", "table")}
    u = rng.random()
    if u < 0.5:
        mode["input_type"] = str(pick(rng, "int16", "int32", "int8", "uint16"))
        mode["scale"] = pick(rng, 1, 10, 1000)
    elif u < 0.7:
        mode["float_compare"] = "int"
    if rng.random() < 0.4:
        mode["missing"] = "none"
    try:
        opts = ExportOptions(prefix="v", **mode)
        report = verify(model.value, opts, n_random=300, workdir=workdir)
    except TreegenError as exc:
        if "categor" in str(exc) or "scale" in str(exc):
            return []
        return [f"verify {mode}: refused: {exc}"]
    fails = [] if report.ok else [f"verify {mode}: {report.text()[:400]}"]
    return fails + fuzz_chips.avr_strict(render(model.value, opts).files, mode, workdir / "avr")


def check_cli(case: Case, workdir: Path, how: str) -> list[str]:
    """``treegen import-sklearn FILE -o m.trees`` on the estimator saved as ``how``
    (skops, pickle, joblib): the file's model predicts as the estimator (the same
    check as :func:`check_python`, through the model file)."""
    import pickle

    import treegen
    from treegen.cli.main import main

    path = workdir / f"est.{how}"
    if how == "skops":
        import skops.io

        skops.io.dump(case.estimator, path)
    elif how == "joblib":
        import joblib

        joblib.dump(case.estimator, path)
    else:
        path.write_bytes(pickle.dumps(case.estimator))
    out = workdir / "m.trees"
    code = main(["import-sklearn", str(path), "-o", str(out), "--quiet"])
    if code != 0:
        return [f"import-sklearn {how}: exit {code}"]
    loaded = treegen.load(out)
    direct = treegen.from_sklearn(case.estimator)
    X = _rows_array(case, direct)
    fails = [] if case.frame else _check_predict_command(case, loaded, X, out, workdir)
    if loaded.value.regressor:
        a, b = loaded.predict(X), direct.predict(X)
        if not same_bits(a, b):
            fails.append(f"import-sklearn {how}: the file's predictions differ")
    else:
        from treegen.ensemble import classify

        a, b = classify.scores(loaded.value, X), classify.scores(direct.value, X)
        if not same_bits(a, b) or not np.array_equal(
            classify.decide(loaded.value, a), classify.decide(direct.value, b)
        ):
            fails.append(f"import-sklearn {how}: the file's predictions differ")
    return fails


def _check_predict_command(
    case: Case, model: Any, X: FloatArray, path: Path, workdir: Path
) -> list[str]:
    """``treegen predict MODEL rows.csv`` on the check rows written as the shortest
    decimals (NaN as ``?``): each line the estimator's label, or a regressor's value
    as ``repr`` prints it."""
    import contextlib
    import io

    from treegen.cli.main import main

    rows = X[~np.isnan(X).any(axis=1)] if not case.takes_nan else X
    csv = workdir / "rows.csv"
    names = [a.name for a in model.schema.attributes]
    lines = [",".join(names)]
    lines += [",".join("?" if np.isnan(v) else repr(float(v)) for v in r) for r in rows]
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["predict", str(path), str(csv), "--quiet"])
    if code != 0:
        return [f"predict command: exit {code}"]
    got = out.getvalue().splitlines()
    want = np.asarray(case.estimator.predict(rows))
    if want.ndim == 1:
        text = [repr(float(v)) if case.kind in REGRESSORS else str(v) for v in want.tolist()]
    else:
        text = ["\t".join(repr(float(v)) for v in r) for r in want.tolist()]
    if got != text:
        bad = next((i for i, (a, b) in enumerate(zip(got, text, strict=False)) if a != b), 0)
        return [f"predict command: line {bad + 1}: {got[bad : bad + 1]} != {text[bad : bad + 1]}"]
    return []


def check_chip(case: Case, rng: np.random.Generator) -> list[str]:
    """The case's model on a simulated chip (support.fuzz_chips.check_chip)."""
    import treegen

    return fuzz_chips.check_chip(treegen.from_sklearn(case.estimator).value, rng)


def c_modes(rng: np.random.Generator, case: Case) -> list[dict[str, Any]]:
    """Two export modes drawn for the case: a style, float or double input, the
    exported doubles (proba or scores) where the kind has them, --missing none where no
    check row is NaN."""
    out = []
    for style in ("ifs", "table"):
        mode: dict[str, Any] = {"style": style}
        if rng.random() < 0.3:
            mode["input_type"] = "double"
        if rng.random() < 0.6:
            if case.kind in ("forest_c", "extra_c", "tree_c", "extra_tree_c"):
                mode["proba"] = True
            elif case.kind in ("gb_c", "hist_c", "ada_c", "iforest"):
                mode["scores"] = True
        out.append(mode)
    return out


if __name__ == "__main__":
    import sys

    c = make_case(int(sys.argv[1]), int(sys.argv[2]))
    print(c.name, c.params)
    print(check_python(c))
