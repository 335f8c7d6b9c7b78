"""XGBoost's and LightGBM's models on the simulated chips: the ATmega328P (float32 sums in
avr-libc's float, correctly rounded; LightGBM's float64 sums in the generated binary64
routines) and Cortex-M0+ and M4F, every row equal to the numpy arithmetic (which
test_gbm_parity.py holds to the libraries), in both styles."""

from __future__ import annotations

import pytest

from treegen.codegen.options import ExportOptions
from treegen.firmware import targets
from treegen.firmware.parity import verify_on

from support.gbm_models import import_setup

pytestmark = pytest.mark.toolchain
pytest.importorskip("xgboost")
pytest.importorskip("lightgbm")


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("xgb_binary", {}),
        ("xgb_multi", {"style": "ifs"}),
        ("xgb_cat", {}),
        ("xgb_forest", {"float_compare": "int"}),
        ("lgb_binary", {}),
        ("lgb_multi", {"style": "ifs"}),
        ("lgb_cat", {}),
        ("lgb_zero", {}),
        ("lgb_zero", {"style": "ifs", "input_type": "int16", "scale": 100}),
        ("lgb_rf", {}),
        # The margins too: XGBoost's float sums on every chip, LightGBM's double sums
        # (the nearest float32 on the ATmega328P, whose double has 32 bits).
        ("xgb_multi", {"scores": True}),
        ("lgb_binary", {"style": "ifs", "scores": True}),
    ],
)
def test_gbm_on_every_chip(name: str, mode: dict[str, object]) -> None:
    chips = ["avr", "m0plus", "m4f"]
    for chip in chips:
        if not targets.available(targets.target(chip), run=True):
            pytest.skip(f"{chip}: its compiler or simulator is not installed")
    opts = ExportOptions(prefix="g", **mode)  # type: ignore[arg-type]
    result = verify_on(import_setup(name), opts, [], chips, n_random=200)
    assert result.report.ok, result.report.text()
    assert set(result.runs) == set(chips)
    assert all(run.done.all() for run in result.runs.values())
