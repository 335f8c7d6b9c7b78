"""The fuzzes' avr-gcc check (support.fuzz_chips.avr_strict) on the smallest C with a
byte-wide node word: an XGBoost model of one feature and two stumps exported as a table
of 8- or 16-bit inputs.  That word's shift, promoted to int and converted to unsigned,
once made avr-gcc's -Wsign-conversion refuse the C under the strict flags (the host's
compilers took it): the check passes the C now, and names the compiler, the mode and the
diagnostic when the shift's cast is taken out again.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from support.fuzz_chips import avr_strict

pytestmark = [
    pytest.mark.toolchain,
    pytest.mark.skipif(shutil.which("avr-gcc") is None, reason="avr-gcc is not installed"),
]


def _stumps_c(input_type: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The mode and the C files of two XGBoost stumps on one integer feature (NaN too)."""
    xgboost = pytest.importorskip("xgboost")
    import treegen
    from treegen.kinds.export import render

    rng = np.random.default_rng(5)
    X = rng.integers(0, 50, (200, 1)).astype(float)
    X[rng.random(200) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0], nan=30.0) > 24).astype(int)
    est = xgboost.XGBClassifier(n_estimators=2, max_depth=1, n_jobs=1).fit(X, y)
    model = treegen.from_xgboost(est)
    mode: dict[str, Any] = {"style": "table", "input_type": input_type, "scale": 1}
    files = render(model.value, model.export_options(**mode)).files
    assert "uint8_t w = " in files["predict.c"]  # one byte a node word
    return mode, files


@pytest.mark.parametrize("input_type", ["uint8", "int16"])
def test_byte_node_words_pass(input_type: str, tmp_path: Path) -> None:
    mode, files = _stumps_c(input_type)
    assert avr_strict(files, mode, tmp_path) == []


def test_an_uncast_shift_is_reported(tmp_path: Path) -> None:
    mode, files = _stumps_c("uint8")
    source = files["predict.c"]
    uncast = re.sub(r"\(unsigned\)\(w >> (\d+)\)", r"(w >> \1)", source)
    assert uncast != source
    fails = avr_strict({**files, "predict.c": uncast}, mode, tmp_path)
    assert len(fails) == 1, fails
    assert fails[0].startswith(f"avr-gcc {mode}: predict.c:"), fails
    assert "sign-conversion" in fails[0], fails
