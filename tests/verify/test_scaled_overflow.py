"""A scaled integer input whose decimal x/K is beyond the doubles: verify's Python side
reads it as +-inf (the value ``treegen predict`` reads for that decimal), as C's float
comparisons of an overflowing value would, and the C agrees on every row."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.model.file import save_model
from treegen.verify.build import have_compiler
from treegen.verify.inputs import model_values

from support import codegen_models as cm
from support.cli import run_cli


def test_scaled_values_past_the_doubles_are_infinite() -> None:
    ir = lower(cm.golf(), ExportOptions(input_type="int32", scale=Fraction(1, 10**300)))
    j = next(i for i, f in enumerate(ir.features) if f.kind == "continuous")
    rows = np.zeros((4, len(ir.features)), dtype=np.int32)
    rows[:, j] = [2147483647, -2147483647, 3, 179]
    got = model_values(ir, rows)[:, j]
    # int32's extremes times 10^300 are past DBL_MAX (1.797...e308); 3 and 179 are not.
    assert got.tolist() == [np.inf, -np.inf, 3e300, 179e300]


@pytest.mark.skipif(not have_compiler(), reason="no C compiler")
def test_verify_with_a_scale_that_overflows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), path)
    argv = ["verify", str(path), "--input-type", "int32", "--scale", "1e-300", "--random", "200"]
    code, out, err = run_cli(capsys, *argv)
    assert (code, err) == (0, ""), out + err
    assert out.rstrip().endswith(" passed, 0 failed")
