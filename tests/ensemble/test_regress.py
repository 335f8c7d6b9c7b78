"""scikit-learn regressors: the imported arithmetic and the exported C return exactly the
float64 values ``estimator.predict`` returns, compared as bits (``array_equal`` on
uint64 views), on the training rows, every threshold's float32 neighbours and NaN rows."""

from __future__ import annotations

import shutil
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble import classify
from treegen.ensemble.core import LEAF, Ensemble, Tree
from treegen.ensemble.regress import from_estimator, regressor_from_sklearn
from treegen.errors import TreegenError
from treegen.kinds.check import verify
from treegen.kinds.export import render
from treegen.verify.build import build

from support.floatbits import bits, same_bits
from support.modes import EXPORT_MODES
from support.sklearn_models import sklearn_thresholds, threshold_rows
from support.sklearn_regressors import (
    REGRESSOR_NAMES,
    TAKES_NAN,
    fit_regressor,
    regression_data,
)
from support.strict import compile_strict

sklearn = pytest.importorskip("sklearn")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def _rows(name: str, est: Any) -> npt.NDArray[np.float64]:
    """Training rows, every threshold's float32 neighbours, rows with NaN."""
    X, _ = regression_data(name)
    # (A split that sends only NaN one way has threshold inf: no float32 neighbours.)
    finite = {f: {t for t in ts if np.isfinite(t)} for f, ts in sklearn_thresholds(est).items()}
    near = threshold_rows(np.nan_to_num(X), finite)
    rows = [X, near]
    if name in TAKES_NAN:
        nan = near[:200].copy()
        nan[:, 0] = np.nan
        rows.append(nan)
    return np.vstack(rows)


@pytest.mark.parametrize("name", REGRESSOR_NAMES)
def test_values_equal_predict_bit_for_bit(name: str) -> None:
    est = fit_regressor(name)
    ens = from_estimator(est)
    assert ens.regressor and ens.n_outputs == (2 if name.startswith("multi") else 1)
    X = _rows(name, est)
    want = np.asarray(est.predict(X), dtype=np.float64).reshape(len(X), -1)
    got = classify.values(ens, X)
    assert got is not None
    assert same_bits(got, want)
    assert len(np.unique(want)) > 5  # the rows reach many leaves


def test_single_tree_returns_the_leaf_value_itself() -> None:
    """A single tree starts its sum at -0.0: a leaf value of -0.0 comes back as -0.0
    (from +0.0 it would be +0.0), in numpy and in the C."""
    tree = Tree((0, LEAF, LEAF), (0.5, 0.0, 0.0), (1, LEAF, LEAF), (2, LEAF, LEAF),
                (False,) * 3, (False,) * 3, ((),) * 3, (-1, 0, 1))  # fmt: skip
    est = fit_regressor("tree")
    base = regressor_from_sklearn(est)
    ens = replace(base, trees=(tree,), values=((-0.0,), (2.5,)))
    X = np.zeros((2, len(ens.schema.attributes)))
    X[1, 0] = 1.0
    got = classify.values(ens, X)
    assert got is not None and same_bits(got, [[-0.0], [2.5]])
    if shutil.which("gcc"):
        report = verify(ens, ExportOptions(prefix="r", name="predict"), n_random=20)
        assert report.ok, report.text()


@needs_gcc
@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("name", REGRESSOR_NAMES)
def test_c_verify_float(name: str, style: str) -> None:
    ens = from_estimator(fit_regressor(name))
    report = verify(ens, ExportOptions(prefix="r", name="predict", style=style), n_random=300)
    assert report.ok and report.rows > 300, report.text()
    assert "compared bit for bit: identical" in report.text()


@needs_gcc
@pytest.mark.parametrize("mode", ["double", "int16", "keys", "fixed"])
@pytest.mark.parametrize("name", ["forest", "boosting", "hist"])
def test_c_verify_other_inputs(name: str, mode: str) -> None:
    kw = dict(EXPORT_MODES[mode])
    if mode == "int16":
        kw["scale"] = 10
    ens = from_estimator(fit_regressor(name))
    report = verify(ens, ExportOptions(prefix="r", name="predict", **kw), n_random=200)  # type: ignore[arg-type]
    assert report.ok, report.text()


@needs_gcc
@pytest.mark.parametrize("name", ["forest", "boosting", "hist_cat", "multi_forest"])
def test_c_soft64_routines_on_the_host(name: str, tmp_path: Any) -> None:
    """The binary64 routines (what AVR and the M0+ run) give the same bits on the host."""
    ens = from_estimator(fit_regressor(name))
    r = render(ens, ExportOptions(prefix="r", name="predict"))
    X = _rows(name, fit_regressor(name)).astype(np.float32)
    built = build(r.lowered, r.files, tmp_path, cc="gcc -DR_SOFT64=1")
    same, words = built.run(X)
    assert "R_SOFT64" in r.files["predict.c"]
    want = bits(classify.values(ens, X.astype(np.float64)))
    got = (words[:, 0::2].astype(np.uint64) << np.uint64(32)) | words[:, 1::2]
    assert np.array_equal(got, want)
    assert not same.any()  # predict's doubles have predict_bits's bits


@needs_gcc
def test_verify_finds_a_changed_value(tmp_path: Any) -> None:
    """A C whose leaf value is one ulp off fails verify's comparison."""
    from treegen.ensemble.check import compare, verify_rows
    from treegen.verify.report import Report

    ens = from_estimator(fit_regressor("boosting"))
    r = render(ens, ExportOptions(prefix="r", name="predict", style="ifs"))
    v = ens.values[0][0]
    text = r.files["predict.c"]
    from treegen.codegen.literals import c_double

    lit, off = c_double(v), c_double(float(np.nextafter(v, np.inf)))
    assert lit in text
    files = {**r.files, "predict.c": text.replace(lit, off, 1)}
    built = build(r.lowered, files, tmp_path)
    report = Report()
    X = verify_rows(ens, r.lowered, r.opts, [], 100, 0, report)
    c_same, c_bits = built.run(X)
    compare(ens, r.lowered, r.opts, X, c_same, c_bits, report)
    assert report.failed_rows > 0 and report.mismatches


def test_refuses_what_has_no_exact_c() -> None:
    from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor
    from sklearn.linear_model import LinearRegression

    X, y = regression_data("boosting")
    with pytest.raises(TreegenError, match="exp of its raw score"):
        from_estimator(
            HistGradientBoostingRegressor(loss="poisson", max_iter=3).fit(X, y - y.min() + 1)
        )
    with pytest.raises(TreegenError, match="depends on X"):
        from_estimator(GradientBoostingRegressor(n_estimators=2, init=LinearRegression()).fit(X, y))
    with pytest.raises(TreegenError, match="LinearRegression"):
        from_estimator(LinearRegression().fit(X, y))
    ens = from_estimator(fit_regressor("forest"))
    with pytest.raises(TreegenError, match="no class probabilities"):
        render(ens, ExportOptions(prefix="r", name="predict", proba=True))
    with pytest.raises(TreegenError, match="not classes"):
        classify.predict(ens, X[:2])


def test_model_file_round_trip(tmp_path: Any) -> None:
    from treegen.kinds import load
    from treegen.kinds.ensemble import ENSEMBLE

    ens = from_estimator(fit_regressor("multi_forest"))
    path = tmp_path / "m.trees"
    path.write_text(ENSEMBLE.to_json(ens))
    _, back = load(path)
    assert isinstance(back, Ensemble) and back.regressor
    X, _ = regression_data("multi_forest")
    assert same_bits(classify.values(back, X), classify.values(ens, X))


@pytest.mark.toolchain
@pytest.mark.parametrize(
    ("cc", "extra"),
    [
        ("gcc", []),
        ("gcc", ["-DR_SOFT64=1"]),
        ("clang", []),
        ("arm-none-eabi-gcc", ["-mcpu=cortex-m0plus", "-mthumb"]),
        ("avr-gcc", ["-mmcu=atmega328p"]),
    ],
)
def test_strict_c89_and_c99_every_compiler(cc: str, extra: list[str], tmp_path: Any) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    for name in ("tree", "forest", "boosting", "hist_cat", "multi_tree"):
        for style in ("table", "ifs"):
            files = render(
                from_estimator(fit_regressor(name)),
                ExportOptions(prefix="r", name="predict", style=style),
            ).files
            for std in ("-std=c89", "-std=c99"):
                compile_strict(cc, std, files, tmp_path, extra)


@pytest.mark.parametrize("style", ["table", "ifs"])
def test_the_same_regressor_gives_the_same_bytes(style: str) -> None:
    a = render(
        from_estimator(fit_regressor("hist")),
        ExportOptions(prefix="r", name="predict", style=style),
    ).files
    b = render(
        from_estimator(fit_regressor("hist")),
        ExportOptions(prefix="r", name="predict", style=style),
    ).files
    assert a == b
    h = a["predict.h"]
    assert "void r_predict(const r_input_t *x, double *y);" in h
    assert "void r_predict_bits(const r_input_t *x, uint32_t *bits);" in h
    assert "N_CLASSES" not in h and "int r_predict(" not in h
