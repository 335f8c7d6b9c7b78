"""One model, one answer: ``treegen predict``, ``Model.predict`` and
the exported C return the same class on every row, rows with missing values included
(the model's missing-value class is the fixed-point one the C computes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.readers import read_dataset
from treegen.model import classify
from treegen.verify.build import build, have_compiler
from treegen.verify.inputs import comparison_inputs

from support import codegen_models as cm
from support.cli import run_cli

pytestmark = pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")

CREDIT = Path(__file__).resolve().parents[1] / "data" / "weka" / "credit-g.arff"


def _c_classes(
    model: treegen.Model, X: np.ndarray, style: str, input_type: str, workdir: Path
) -> np.ndarray:
    ir = lower(model, ExportOptions(style=style, input_type=input_type))
    return build(ir, emit(ir, style), workdir).run(X)[0]


@pytest.mark.parametrize("style", ["ifs", "table"])
def test_credit_g_predict_equals_c_with_missing_values(
    style: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The case: Weka's credit-g, default training, float input, rows with NaN
    # where Q15 rounding and the float sums break exact 0.5/0.5 ties differently.
    text = CREDIT.read_text()
    head, data = text.split("@data\n", 1)
    rows = [line.split(",") for line in data.splitlines() if line.strip()]
    rng = np.random.default_rng(0)
    out = []
    for _ in range(35):
        for r in rows:
            mask = rng.random(len(r) - 1) < 0.15
            cells = ["?" if m else v for v, m in zip(r[:-1], mask, strict=True)]
            out.append(",".join([*cells, r[-1]]))
    arff = tmp_path / "credit-nan.arff"
    arff.write_text(head + "@data\n" + "\n".join(out) + "\n")
    model_file = tmp_path / "credit.tree"
    assert run_cli(capsys, "train", str(CREDIT), "-o", str(model_file), "-q")[0] == 0
    model = treegen.load(model_file)
    code, printed, err = run_cli(capsys, "predict", str(model_file), str(arff), "-q")
    assert code == 0, err
    X = read_dataset(str(arff), schema=model.schema).X
    with_nan = np.isnan(X).any(axis=1)
    assert with_nan.sum() > 30000
    c = _c_classes(model, X.astype(np.float32), style, "float", tmp_path)
    labels = np.asarray(model.schema.classes)
    assert printed.splitlines() == list(labels[c])
    with pytest.warns(UserWarning, match="valid feature names"):
        assert np.array_equal(model.predict(X), labels[c])


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("style,input_type", [("ifs", "double"), ("table", "float")])
def test_random_models_predict_equals_c(
    seed: int, style: str, input_type: str, tmp_path: Path
) -> None:
    model = cm.synthetic(seed, size=80)
    ir = lower(model, ExportOptions(style=style, input_type=input_type))
    X = comparison_inputs(ir, None, n_random=4000, seed=seed)
    c = build(ir, emit(ir, style), tmp_path).run(X)[0]
    x64 = np.asarray(X, dtype=np.float64)
    assert np.isnan(x64).any(axis=1).sum() > 1000
    assert np.array_equal(classify.predict(model, x64), c)
