"""XGBoost and LightGBM models of random configurations held to the libraries, bit for bit.

Each case (support.gbm_fuzz_xgb, support.gbm_fuzz_lgb) draws data (1-2000 rows, 1-15
features of hostile kinds, NaN, categorical codes, sample weights) and constructor
parameters over their documented ranges, fits the model, and imports it from the
estimator, its Booster, its bytes or text: the class, ``predict_proba``, the margins and
a regressor's values equal the library's in every bit on the data rows, every
threshold's neighbours, infinities, category codes and non-codes and NaN rows
(support.gbm_fuzz_check); a refused configuration is a one-line error (exit 2 through
the command line).  A share of cases goes through ``import-xgboost``/``import-lightgbm``
from a saved file, and a share is compiled and verified in a drawn export mode, each C
but a double input's also compiled strict with avr-gcc (a 16-bit int's promotions and
the binary64 routines the host's C never builds).

A few cases run in the fast loop; the rest are slow.  ``TREEGEN_FUZZ=long`` runs
``TREEGEN_GBM_FUZZ_CASES`` cases per library (default 300); ``TREEGEN_FUZZ_CASE=xgb:7``
(or ``lgb:7``) runs one case; either runs the cases whose index is a multiple of
``CHIP_EVERY`` (support.fuzz_chips) on a simulated chip drawn from those installed too.
The library refusing a drawn configuration skips it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support.fuzz import LONG
from support.fuzz_chips import CHIP_EVERY
from support.gbm_fuzz import Refused

pytest.importorskip("xgboost")
pytest.importorskip("lightgbm")
pytest.importorskip("pandas")

SEED = 20261207
CASES = int(os.environ.get("TREEGEN_GBM_FUZZ_CASES", "300")) if LONG else 12
ONE = os.environ.get("TREEGEN_FUZZ_CASE", "")


def _indices(lib: str) -> list[int]:
    """The cases of ``lib``: the first runs in the fast loop (conftest marks the rest of a
    sweep slow); TREEGEN_FUZZ_CASE=LIB:INDEX picks one."""
    if ONE.startswith(("xgb:", "lgb:")):
        return [int(ONE.partition(":")[2])] if ONE.startswith(lib) else []
    return list(range(CASES))


def _run(lib: str, index: int, tmp_path: Path) -> None:
    from support.gbm_fuzz_check import run_case

    try:
        chip = (LONG or bool(ONE)) and index % CHIP_EVERY == 0
        failures = run_case(lib, SEED, index, tmp_path, chip=chip)
    except Refused as e:
        pytest.skip(str(e))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("index", _indices("xgb"))
def test_xgboost_random_configuration(index: int, tmp_path: Path) -> None:
    _run("xgb", index, tmp_path)


@pytest.mark.parametrize("index", _indices("lgb"))
def test_lightgbm_random_configuration(index: int, tmp_path: Path) -> None:
    _run("lgb", index, tmp_path)
