"""``--missing none`` and ``--proba``: the lean C against the Python side.

verify must find 0 mismatches in every lean mode for both styles, NaN and sentinel
rows included (the none rule, treegen.codegen.lean); the rule itself is checked on
golf rows whose path is worked out by hand from predict.h's wording; the lean C has
no missing-value code, and predict_proba only with --proba.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.emit import emit
from treegen.codegen.ir import Compare, Member
from treegen.codegen.lean import compact_table
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.errors import EncodingError
from treegen.kinds.check import verify
from treegen.model.file import save_model
from treegen.verify.build import build, have_compiler

from support import codegen_models as cm
from support.cli import run_cli
from support.modes import EXPORT_MODES, LEAN, STYLES

pytestmark = pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")

MODELS = {
    "golf": cm.golf,
    "tiny": cm.tiny,
    "leaf": cm.single_leaf,
    "stump": cm.stump,
    "synthetic": lambda: cm.synthetic(5, 120),
    "c45": lambda: cm.as_c45(cm.synthetic(5, 120)),
}


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("mode", LEAN)
@pytest.mark.parametrize("which", sorted(MODELS))
def test_verify_lean_modes(which: str, mode: str, style: str, tmp_path: Path) -> None:
    if which != "golf" and mode.endswith("fixed"):
        pytest.skip("thresholds of 1e30 overflow a scale of 1000 by design")
    opts = ExportOptions(prefix=which, style=style, **EXPORT_MODES[mode])  # type: ignore[arg-type]
    report = verify(MODELS[which](), opts, n_random=300, workdir=tmp_path)
    assert report.rows > 50
    assert report.failed_rows == 0, report.text()
    assert "none rule" in report.text()


@pytest.mark.parametrize(
    "style,mode",
    [
        ("ifs", "lean_float"),
        ("table", "lean_keys"),
        ("table", "lean_int16"),
        ("ifs", "lean_float_proba"),
    ],
)
@pytest.mark.slow
def test_verify_lean_big_deep_tree(style: str, mode: str, tmp_path: Path) -> None:
    model = cm.synthetic(2, 50, spine=230)
    opts = ExportOptions(prefix="big", style=style, **EXPORT_MODES[mode])  # type: ignore[arg-type]
    report = verify(model, opts, n_random=500, workdir=tmp_path)
    assert report.rows > 2 * model.size and report.failed_rows == 0, report.text()


NAN = math.nan
# golf: outlook (sunny, overcast, rain) -> sunny: humidity <= 75 ? Play : Don't Play;
# overcast: Play; rain: windy (true, false) -> true: Don't Play, false: Play.
GOLF_ROWS = [
    ([0.0, 70.0, NAN, 0.0], 1),  # humidity NaN fails x <= 75: right, Don't Play
    ([0.0, 70.0, 75.0, 0.0], 0),  # humidity 75 passes: Play
    ([NAN, 70.0, 70.0, 0.0], 1),  # outlook NaN: code k-1 = rain; windy true: Don't Play
    ([NAN, 70.0, 70.0, NAN], 0),  # ... windy NaN: code k-1 = false: Play
    ([-3.0, 70.0, 90.0, 0.0], 1),  # outlook below 0: code 0 = sunny; humidity 90: Don't Play
    ([0.5, 70.0, 90.0, 0.0], 0),  # a fraction: the next code up, overcast: Play
    ([7.0, 70.0, 70.0, 0.0], 1),  # above the last code: rain; windy true: Don't Play
    ([2.0, 70.0, 70.0, 9.0], 0),  # windy 9: code k-1 = false: Play
]


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("mode", ["lean_float", "lean_double", "lean_keys"])
def test_none_rule_by_hand(mode: str, style: str, tmp_path: Path) -> None:
    opts = ExportOptions(prefix="g", style=style, **EXPORT_MODES[mode])  # type: ignore[arg-type]
    ir = lower(cm.golf(), opts)
    built = build(ir, emit(ir, style), tmp_path)
    cls, _ = built.run(np.array([r for r, _ in GOLF_ROWS]))
    assert cls.tolist() == [c for _, c in GOLF_ROWS]


@pytest.mark.parametrize("style", STYLES)
def test_sentinel_is_an_ordinary_value(style: str, tmp_path: Path) -> None:
    opts = ExportOptions(prefix="g", style=style, **EXPORT_MODES["lean_int16"])  # type: ignore[arg-type]
    ir = lower(cm.golf(), opts)
    built = build(ir, emit(ir, style), tmp_path)
    lo = -32768  # int16's default missing value: compared like any value
    cls, _ = built.run(np.array([[0, 70, lo, 0], [0, 70, 32767, 0], [lo, 70, 90, 0]]))
    assert cls.tolist() == [0, 1, 1]  # low humidity: Play; high: Don't; outlook lo: sunny


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("proba", [False, True])
def test_lean_c_has_no_missing_value_code(style: str, proba: bool) -> None:
    ir = lower(
        cm.synthetic(5, 120), ExportOptions(prefix="s", style=style, missing="none", proba=proba)
    )
    files = emit(ir, style)
    text = files["predict.c"] + files["predict.h"]
    for word in ("s_miss", "s_share", "S_MISSING", "S_STACK_SIZE", "s_state", "!= x"):
        assert word not in text
    assert ("s_predict_proba" in text) == proba
    assert ("s_proba[" in files["predict.c"]) == proba
    assert "no value may be missing" in files["predict.h"]


def test_default_keeps_proba_and_c45_needs_it() -> None:
    ir = lower(cm.golf(), ExportOptions(prefix="g"))
    assert ir.missing == "c45" and ir.proba
    assert "g_predict_proba" in emit(ir)["predict.h"]
    with pytest.raises(EncodingError, match="--no-proba needs --missing none"):
        lower(cm.golf(), ExportOptions(prefix="g", proba=False))
    with pytest.raises(EncodingError, match="unknown missing-value rule"):
        lower(cm.golf(), ExportOptions(prefix="g", missing="drop"))


@pytest.mark.slow
def test_compact_table_row_is_feature_threshold_kid() -> None:
    # Lean table, float input: per test 1 B feature code + 4 B threshold + the kid.
    model = cm.synthetic(2, 50, spine=230)
    ir = lower(model, ExportOptions(prefix="b", style="table", missing="none"))
    t = compact_table(ir)
    # One row per lean test (a nominal test became a chain of them, or member tests
    # where its branches' codes interleave), none per leaf.
    assert len(t.code) == sum(isinstance(n, Compare | Member) for n in ir.nodes) > 0
    assert max(t.code) < 256 and max(t.kid) < 65536
    src = emit(ir, "table")["predict.c"]
    assert f"static const uint8_t b_code[{len(t.code)}]" in src
    assert f"static const float b_thr[{len(t.code)}]" in src
    assert "b_first" not in src and "b_ref" not in src


def test_cli_missing_none_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), str(path))
    code, out, err = run_cli(
        capsys, "verify", str(path), "--missing", "none", "--style", "table", "--random", "200"
    )
    assert code == 0, err
    assert "missing none, no proba" in out and " 0 failed" in out
    code, out, err = run_cli(
        capsys, "export", str(path), "--missing", "none", "--proba", "-o", str(tmp_path / "c")
    )
    assert code == 0, err
    header = (tmp_path / "c" / "predict.h").read_text()
    assert "golf_predict_proba" in header and "--missing none --proba" in header


def test_api_takes_missing_and_proba(tmp_path: Path) -> None:
    from treegen.api import Model as ApiModel

    model = ApiModel.of(cm.golf())
    paths = model.export_c(tmp_path, style="table", missing="none", proba=True)
    header = next(p for p in paths if p.name == "predict.h").read_text()
    assert "predict_proba" in header and "no value may be missing" in header
    rows = np.array([r for r, _ in GOLF_ROWS])
    with pytest.warns(UserWarning, match="valid feature names"):
        report = model.verify(rows, style="table", missing="none")
    assert report.failed == 0 and report.passed > len(rows), report.text
