"""XGBoost's and LightGBM's models in C: verify holds the C to the numpy arithmetic (which
test_gbm_parity.py holds to the libraries) in every input mode and both styles, and the
C compiles warning-free under the strict flags, c89 and c99, with float32 sums, the cut,
both categorical rules and LightGBM's zero band.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble import classify
from treegen.kinds.check import verify
from treegen.kinds.export import render

from support.gbm_models import LGB_SETUPS, XGB_SETUPS, import_setup
from support.modes import EXPORT_MODES
from support.strict import compile_strict

pytest.importorskip("xgboost")
pytest.importorskip("lightgbm")
pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

SETUPS = XGB_SETUPS + LGB_SETUPS
FAST = ("float", "double")
SLOW = ("int16", "keys", "fixed")


def _verify(name: str, mode: str, style: str) -> None:
    ens = import_setup(name)
    kw: dict[str, object] = dict(EXPORT_MODES[mode], style=style)
    categorical = any(any(t.categorical) for t in ens.trees)
    if categorical and mode == "keys":
        with pytest.raises(Exception, match="categorical"):
            verify(ens, ExportOptions(prefix="g", name="predict", **kw), n_random=50)  # type: ignore[arg-type]
        return
    if mode == "int16":
        kw["scale"] = 100
    if categorical and mode in ("int16", "fixed"):
        # A scaled integer is no category code: refused, naming the feature.
        with pytest.raises(Exception, match="categorical: its integer input"):
            verify(ens, ExportOptions(prefix="g", name="predict", **kw), n_random=50)  # type: ignore[arg-type]
        return
    report = verify(ens, ExportOptions(prefix="g", name="predict", **kw), n_random=400)  # type: ignore[arg-type]
    assert report.rows > 400 and report.ok, report.text()


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("mode", FAST)
@pytest.mark.parametrize("name", SETUPS)
def test_verify(name: str, mode: str, style: str) -> None:
    _verify(name, mode, style)


@pytest.mark.slow
@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("mode", SLOW)
@pytest.mark.parametrize("name", SETUPS)
def test_verify_integer_and_key_inputs(name: str, mode: str, style: str) -> None:
    _verify(name, mode, style)


def test_verify_rows_reach_the_rules() -> None:
    """verify's rows send values into the zero band and fractional and negative
    categories, where the rules differ from a plain comparison."""
    from treegen.ensemble.check import ensemble_inputs
    from treegen.ensemble.lower import lower_ensemble

    ens = import_setup("lgb_zero")
    ir = lower_ensemble(ens, ExportOptions(prefix="g", name="predict"))
    X = ensemble_inputs(ir, n_random=0).astype(np.float64)
    assert np.any((np.abs(X) <= 1.0000000180025095e-35) & (X != 0))
    assert np.any((X > -1) & (X < 0)) and np.any(np.isin(X, [0.5, 2.5]))
    # The band matters: a band value is missing for a Zero-type test, so some rows
    # with a band value score otherwise than with a value just outside it.
    band = np.where(np.abs(X) <= 1.0000000180025095e-35, 0.0, X)
    outside = np.where(np.abs(X) <= 1.0000000180025095e-35, 1e-30, X)
    assert not np.array_equal(classify.raw_scores(ens, band), classify.raw_scores(ens, outside))


@pytest.mark.slow
@pytest.mark.parametrize("std", ["-std=c89", "-std=c99"])
@pytest.mark.parametrize("name", ["xgb_multi", "xgb_cat", "lgb_zero", "lgb_cat", "lgb_rf"])
def test_strict_c89_and_c99(name: str, std: str, tmp_path: Path) -> None:
    ens = import_setup(name)
    categorical = any(any(t.categorical) for t in ens.trees)
    for style in ("table", "ifs"):
        for mode in ("float", "double", "int16") + (() if categorical else ("keys",)):
            opts = ExportOptions(prefix="g", name="predict", style=style, **EXPORT_MODES[mode])  # type: ignore[arg-type]
            files = render(ens, opts).files
            compile_strict("gcc", std, files, tmp_path, [])
            compile_strict("gcc", std, files, tmp_path, ["-Dg_SOFT64=1"])


@pytest.mark.toolchain
@pytest.mark.parametrize("cc", ["clang", "arm-none-eabi-gcc"])
def test_other_compilers_strict(cc: str, tmp_path: Path) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    extra = {"arm-none-eabi-gcc": ["-mcpu=cortex-m0plus", "-mthumb"]}
    for name in ("xgb_cat", "lgb_zero", "lgb_cat"):
        for style in ("table", "ifs"):
            files = render(
                import_setup(name), ExportOptions(prefix="g", name="predict", style=style)
            ).files
            for std in ("-std=c89", "-std=c99"):
                compile_strict(cc, std, files, tmp_path, ["-Os", *extra.get(cc, [])])


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("name", ["xgb_binary", "xgb_multi", "lgb_binary", "lgb_zero", "lgb_cat"])
def test_scores_are_the_margins_bit_for_bit(name: str, style: str) -> None:
    """``--scores`` exports the margins (XGBoost's float sums widened to double,
    LightGBM's double sums): verify compares their bits with the numpy sums, which
    test_gbm_parity.py holds bit for bit to the libraries' own margins."""
    ens = import_setup(name)
    report = verify(
        ens, ExportOptions(prefix="g", name="predict", style=style, scores=True), n_random=300
    )
    assert report.rows > 300 and report.ok, report.text()


@pytest.mark.parametrize("name", ["xgb_cat", "xgb_multi", "lgb_zero", "lgb_binary"])
def test_info_table_bytes_are_the_compiled_tables(name: str, tmp_path: Path) -> None:
    """``info``'s table bytes equal predict.o's constant objects (the soft path): float
    values and initial scores, the soft cut, the zero band's row bits."""
    from treegen.ensemble.emit import table_bytes

    if shutil.which("nm") is None:
        pytest.skip("nm is needed")
    r = render(import_setup(name), ExportOptions(prefix="e", name="predict", style="table"))
    for k, v in r.files.items():
        (tmp_path / k).write_text(v)
    subprocess.run(
        ["gcc", "-O0", "-DE_SOFT64=1", "-c", "predict.c", "-o", "p.o"], cwd=tmp_path, check=True
    )
    nm = subprocess.run(
        ["nm", "-S", "p.o"], cwd=tmp_path, check=True, capture_output=True, text=True
    ).stdout
    sizes = [int(f[1], 16) for f in (line.split() for line in nm.splitlines())
             if len(f) == 4 and f[2] in "rRdD"]  # fmt: skip
    # A lone cut constant may be folded into the code (as a divisor is: gcc does even at
    # -O0): its 8 bytes are then in .text, still counted by table_bytes.
    ens = import_setup(name)
    folded = 8 if ens.decision == "gt" and ens.sum == "float64" and "e_cut" not in nm else 0
    assert table_bytes(r.lowered) == sum(sizes) + folded


def _constant_tests_model() -> str:
    """A LightGBM binary model whose every threshold is inf (as ``max_bin=2`` writes
    them): on an integer input every test is a constant, so the walk reads no threshold."""
    head = (
        "tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"
        "max_feature_idx=1\nobjective=binary sigmoid:1\nfeature_names=a b\n"
        "feature_infos=[-3:3] [-3:3]\ntree_sizes=1\n\n"
    )
    tree = (
        "Tree=0\nnum_leaves=3\nnum_cat=0\nsplit_feature=0 1\nsplit_gain=1 1\n"
        "threshold=inf inf\ndecision_type=2 10\nleft_child=1 -1\nright_child=-2 -3\n"
        "leaf_value=0.25 -0.5 0.125\nleaf_weight=1 1 1\nleaf_count=1 1 1\n"
        "internal_value=0 0\ninternal_weight=1 1\ninternal_count=2 2\nis_linear=0\n"
        "shrinkage=1\n\n\nend of trees\n\nfeature_importances:\n\nparameters:\n"
        "end of parameters\n\npandas_categorical:null\n"
    )
    return head + tree


@pytest.mark.parametrize("missing", ["c45", "none"])
def test_every_test_constant_compiles_strict_and_verifies(missing: str, tmp_path: Path) -> None:
    """The table style for an integer input where every test folds to a constant: no
    unused threshold column or value (errors under -Werror), verify passes, and info's
    table bytes are the compiled tables."""
    from treegen.ensemble.emit import table_bytes
    from treegen.ensemble.lightgbm import lightgbm_from_text

    ens = lightgbm_from_text(_constant_tests_model())
    opts = ExportOptions(prefix="e", name="predict", style="table", input_type="int16",
                         scale=100, missing=missing)  # type: ignore[arg-type]  # fmt: skip
    r = render(ens, opts)
    assert "e_thr" not in r.files["predict.c"]
    obj = compile_strict("gcc", "-std=c99", r.files, tmp_path, ["-O0", "-De_SOFT64=1"])
    report = verify(ens, opts, n_random=200)
    assert report.ok, report.text()
    if shutil.which("nm") is not None:
        nm = subprocess.run(["nm", "-S", str(obj)], check=True, capture_output=True, text=True)
        sizes = [int(f[1], 16) for f in (ln.split() for ln in nm.stdout.splitlines())
                 if len(f) == 4 and f[2] in "rRdD"]  # fmt: skip
        # info counts the soft path's cut, which a decided tree's C has on no path.
        folded = 0 if "e_cut" in nm.stdout or r.lowered.decided else 8
        assert table_bytes(r.lowered) == sum(sizes) + folded
