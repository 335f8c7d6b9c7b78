"""A regressor's C on the simulated chips: the ATmega328P (double has 32 bits: the sums
run in the generated binary64 routines, and predict_bits returns the float64 bits) and
Cortex-M0+ and M4F, every value equal to the numpy arithmetic's float64 in every bit."""

from __future__ import annotations

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble.regress import from_estimator
from treegen.firmware import targets
from treegen.firmware.parity import verify_on

from support.sklearn_regressors import fit_regressor

pytestmark = pytest.mark.toolchain

CHIPS = ("avr", "m0plus", "m4f")


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("forest", {}),
        ("boosting", {"style": "ifs"}),
        ("tree", {"style": "ifs"}),  # one tree: keys first on a chip (PREFIX_FLOATCMP 0)
        ("hist_cat", {}),
        ("multi_forest", {"float_compare": "int"}),
        ("boosting_zero", {"input_type": "int16", "scale": 10}),
    ],
)
def test_regressors_on_every_chip(name: str, mode: dict[str, object]) -> None:
    for chip in CHIPS:
        if not targets.available(targets.target(chip), run=True):
            pytest.skip(f"{chip}: its compiler or simulator is not installed")
    opts = ExportOptions(prefix="r", name="predict", **mode)  # type: ignore[arg-type]
    ens = from_estimator(fit_regressor(name))
    result = verify_on(ens, opts, [], list(CHIPS), n_random=150)
    assert result.report.ok, result.report.text()
    assert result.report.text().count("compared bit for bit: identical") == 3
    for run in result.runs.values():
        assert run.done.all()
        assert run.proba.dtype == np.uint32 and run.proba.shape[1] == 2 * ens.n_outputs


def test_isolation_forest_predict_on_every_chip() -> None:
    """IsolationForest's predict: the exact path-length sum against the boundary."""
    from sklearn.ensemble import IsolationForest

    for chip in CHIPS:
        if not targets.available(targets.target(chip), run=True):
            pytest.skip(f"{chip}: its compiler or simulator is not installed")
    X = np.random.default_rng(0).normal(size=(301, 4))
    est = IsolationForest(n_estimators=8, contamination=0.1, random_state=0).fit(X)
    result = verify_on(
        from_estimator(est),
        ExportOptions(prefix="i", name="predict"),
        [],
        list(CHIPS),
        n_random=150,
    )
    assert result.report.ok, result.report.text()
    assert all(run.done.all() for run in result.runs.values())


def test_a_wrong_float_on_avr_is_caught() -> None:
    """On the ATmega328P predict's double is the nearest binary32 of the float64 value;
    a C whose float is off (here doubled) fails verify --on avr though its bits are right."""
    if not targets.available(targets.target("avr"), run=True):
        pytest.skip("avr: its compiler or simulator is not installed")
    from treegen.kinds.export import render

    ens = from_estimator(fit_regressor("boosting"))
    opts = ExportOptions(prefix="r", name="predict")
    files = dict(render(ens, opts).files)
    assert "return (double)c.f;" in files["predict.c"]
    files["predict.c"] = files["predict.c"].replace("return (double)c.f;", "return 2.0 * c.f;")
    result = verify_on(ens, opts, [], ["avr"], n_random=20, files=files)
    assert not result.report.ok and "predict's doubles differ" in result.report.text()
