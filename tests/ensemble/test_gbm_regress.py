"""XGBoost and LightGBM regressors: every identity-link objective read from its model
file predicts what the library's predict does, bit for bit (XGBoost's float32, LightGBM's
float64), in Python, in the C on the host (through the command line) and on the
ATmega328P (where double has 32 bits); the log-link objectives are refused."""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble import classify
from treegen.ensemble.core import LEAF, Tree
from treegen.ensemble.lightgbm import lightgbm_from_text
from treegen.ensemble.xgboost import xgboost_from_bytes
from treegen.errors import ModelFileError
from treegen.firmware import targets
from treegen.firmware.parity import verify_on
from treegen.kinds.check import verify

from support.cli import run_cli
from support.floatbits import same_bits
from support.gbm_regressors import (
    LGB_REGRESSORS,
    XGB_REGRESSORS,
    fit_lgb_regressor,
    fit_xgb_regressor,
    regression_target,
)

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")


@pytest.mark.parametrize("objective", XGB_REGRESSORS)
def test_xgboost_regressor_is_its_float32_prediction(objective: str) -> None:
    est = fit_xgb_regressor(objective)
    ens = xgboost_from_bytes(bytes(est.get_booster().save_raw("json")))
    assert ens.regressor and ens.sum == "float32"
    X, _ = regression_target()
    want = est.predict(X)
    assert want.dtype == np.float32
    got = classify.values(ens, X)
    assert got is not None
    assert same_bits(got.ravel(), want.astype(np.float64))


@pytest.mark.parametrize("objective", LGB_REGRESSORS)
def test_lightgbm_regressor_is_its_float64_prediction(objective: str) -> None:
    est = fit_lgb_regressor(objective)
    ens = lightgbm_from_text(est.booster_.model_to_string())
    assert ens.regressor and ens.sum == "float64"
    X, _ = regression_target()
    want = est.predict(X)
    got = classify.values(ens, X)
    assert got is not None
    assert same_bits(got.ravel(), want)


def test_log_link_objectives_are_refused() -> None:
    X, y = regression_target()
    y = np.abs(y) + 1.0
    for objective in ("count:poisson", "reg:gamma", "reg:tweedie", "reg:logistic"):
        target = y / y.max() if objective == "reg:logistic" else y
        est = xgb.XGBRegressor(objective=objective, n_estimators=2, n_jobs=1).fit(X, target)
        with pytest.raises(ModelFileError, match=f"objective '{objective}' predicts"):
            xgboost_from_bytes(bytes(est.get_booster().save_raw("json")))
    for objective in ("poisson", "gamma", "tweedie"):
        est = lgb.LGBMRegressor(objective=objective, n_estimators=2, verbose=-1).fit(X, y)
        with pytest.raises(ModelFileError, match=f"objective '{objective}.*predicts exp"):
            lightgbm_from_text(est.booster_.model_to_string())
    est = lgb.LGBMRegressor(reg_sqrt=True, n_estimators=2, verbose=-1).fit(X, y)
    with pytest.raises(ModelFileError, match="predicts the square"):
        lightgbm_from_text(est.booster_.model_to_string())


@pytest.mark.parametrize("objective", ["cross_entropy", "xentropy", "cross_entropy_lambda"])
def test_cross_entropy_is_refused_naming_the_binary_objective(objective: str) -> None:
    """LightGBM's cross-entropy objectives predict a sigmoid of the raw score (what
    LGBMRegressor.predict returns; LGBMClassifier fits them too): refused in one line
    that says what to fit for a classifier, objective='binary', whose class is exported."""
    X, y = regression_target()
    est = lgb.LGBMClassifier(objective=objective, n_estimators=2, verbose=-1).fit(X, y > 1)
    name = "cross_entropy" if objective == "xentropy" else objective
    what = "log" if objective == "cross_entropy_lambda" else "a sigmoid"
    with pytest.raises(ModelFileError, match=f"objective '{name}' predicts {what}") as e:
        lightgbm_from_text(est.booster_.model_to_string())
    assert "objective='binary'" in str(e.value) and "\n" not in str(e.value)


def _rows(tmp_path: Path) -> Path:
    X, _ = regression_target()
    csv = tmp_path / "rows.csv"
    lines = [",".join("?" if np.isnan(v) else repr(float(v)) for v in row) for row in X[:60]]
    csv.write_text("x0,x1,x2,x3\n" + "\n".join(lines) + "\n")
    return csv


@pytest.mark.parametrize(
    ("library", "objective", "style"),
    [
        ("xgboost", "reg:squarederror", "table"),
        ("xgboost", "reg:pseudohubererror", "ifs"),
        ("lightgbm", "regression", "ifs"),
        ("lightgbm", "regression_rf", "table"),
    ],
)
@pytest.mark.slow
def test_command_line_imports_shows_exports_and_verifies_bit_for_bit(
    library: str, objective: str, style: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if library == "xgboost":
        est = fit_xgb_regressor(objective)
        src = tmp_path / "m.json"
        est.get_booster().save_model(str(src))
    else:
        est = fit_lgb_regressor(objective)
        src = tmp_path / "m.txt"
        est.booster_.save_model(str(src))
    model = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, f"import-{library}", str(src), "-o", str(model), "--target", "y")
    assert code == 0, err
    code, out, _ = run_cli(capsys, "show", str(model))
    assert code == 0 and "regressor" in out and "outputs (1): y" in out
    code, out, _ = run_cli(capsys, "info", str(model))
    assert code == 0 and "regressor" in out
    csv = _rows(tmp_path)
    code, out, err = run_cli(capsys, "verify", str(model), str(csv), "--style", style)
    assert code == 0, out + err
    assert "float64 values compared bit for bit: identical" in out
    code, _, err = run_cli(capsys, "export", str(model), "-o", str(tmp_path / "c"))
    assert code == 0, err
    assert "predict_bits" in (tmp_path / "c" / "predict.h").read_text()
    code, out, err = run_cli(capsys, "predict", str(model), str(csv))
    assert code == 0, err
    got = np.array([float(v) for v in out.split()])
    X, _ = regression_target()
    assert same_bits(got, np.asarray(est.predict(X[:60]), dtype=np.float64))


@pytest.mark.toolchain
@pytest.mark.parametrize(
    ("library", "objective", "mode"),
    [
        ("xgboost", "reg:squarederror", {}),
        ("xgboost", "reg:absoluteerror", {"input_type": "int16", "scale": 10}),
        ("lightgbm", "huber", {}),
        ("lightgbm", "regression", {"style": "ifs"}),
    ],
)
def test_on_the_atmega328p(library: str, objective: str, mode: dict[str, object]) -> None:
    """Where double has 32 bits: XGBoost's float sums are native, their float64 bits
    widened by integers; LightGBM's sums run in the binary64 routines."""
    if not targets.available(targets.target("avr"), run=True):
        pytest.skip("avr: its compiler or simulator is not installed")
    if library == "xgboost":
        ens = xgboost_from_bytes(bytes(fit_xgb_regressor(objective).get_booster().save_raw("json")))
    else:
        ens = lightgbm_from_text(fit_lgb_regressor(objective).booster_.model_to_string())
    opts = ExportOptions(prefix="r", name="predict", **mode)  # type: ignore[arg-type]
    result = verify_on(ens, opts, [], ["avr"], n_random=150)
    assert result.report.ok, result.report.text()
    assert "compared bit for bit: identical" in result.report.text()
    assert result.runs["avr"].done.all()


@pytest.mark.parametrize(
    ("init", "leaves"),
    [
        (-0.0, (1e-45, -3e-39)),  # subnormal floats: normal doubles after the shift
        (-0.0, (-0.0, 3.4e38)),  # a negative zero kept; a large float
        (3.4e38, (3.4e38, -3.4e38)),  # a sum that overflows to infinity; zero
    ],
)
def test_float32_values_widen_to_their_binary64_bits(
    init: float, leaves: tuple[float, float]
) -> None:
    """predict_bits widens XGBoost's float sum by integers (so also on AVR): subnormal,
    zero, huge and infinite floats give the binary64 bits of the same value."""
    tree = Tree((0, LEAF, LEAF), (0.5, 0.0, 0.0), (1, LEAF, LEAF), (2, LEAF, LEAF),
                (False,) * 3, (False,) * 3, ((),) * 3, (-1, 0, 1), 0)  # fmt: skip
    base = xgboost_from_bytes(
        bytes(fit_xgb_regressor("reg:squarederror").get_booster().save_raw("json"))
    )
    values = tuple((float(np.float32(v)),) for v in leaves)
    ens = replace(base, trees=(tree,), values=values, init=(float(np.float32(init)),))
    X = np.zeros((2, len(ens.schema.attributes)))
    X[1, 0] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an IEEE overflow to infinity is no warning
        got = classify.values(ens, X)
    with np.errstate(over="ignore"):  # the sum to infinity is the point
        want = [float(np.float32(init) + np.float32(v)) for (v,) in values]
        assert got is not None and same_bits(got.ravel(), want)
        report = verify(ens, ExportOptions(prefix="r", name="predict"), n_random=20)
        assert report.ok and "compared bit for bit: identical" in report.text(), report.text()
        if targets.available(targets.target("avr"), run=True):
            opts = ExportOptions(prefix="r", name="predict")
            result = verify_on(ens, opts, [], ["avr"], n_random=5)
            assert result.report.ok, result.report.text()


def test_python_api_takes_the_fitted_regressors() -> None:
    import treegen

    X, _ = regression_target()
    est_x = fit_xgb_regressor("reg:squarederror")
    got = np.asarray(treegen.from_xgboost(est_x).predict(X), dtype=np.float64)
    assert same_bits(got, est_x.predict(X).astype(np.float64))
    est_l = fit_lgb_regressor("huber")
    got = np.asarray(treegen.from_lightgbm(est_l).predict(X), dtype=np.float64)
    assert same_bits(got, est_l.predict(X))
