"""``--missing none`` for ensembles (scikit-learn, XGBoost, LightGBM): the lean C.

verify holds it to the ensemble on every row with no missing value, and to the none
rule (treegen.ensemble.lower.none_rule) on every row, NaN and sentinel rows included,
in both styles and every input domain; a wrong none rule is caught; the C compiles
warning-free under the strict flags; it is smaller than the ``--missing c45`` C; and
predict.h states the rule.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from treegen.codegen.options import ExportOptions
from treegen.kinds.check import verify
from treegen.kinds.export import render

from support.modes import EXPORT_MODES
from support.strict import compile_strict

pytest.importorskip("sklearn")
pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

SKLEARN = ("forest", "boosting", "hist", "binary_adaboost")
GBM = ("xgb_binary", "xgb_cat", "lgb_multi", "lgb_zero", "lgb_cat")


def _model(name: str) -> Any:
    if name.startswith(("xgb", "lgb")):
        pytest.importorskip("xgboost")
        pytest.importorskip("lightgbm")
        from support.gbm_models import import_setup

        return import_setup(name)
    from support.sklearn_models import fit_setup

    return fit_setup(name)


def _categorical(ens: Any) -> bool:
    return any(any(t.categorical) for t in ens.trees)


def _opts(name: str, mode: str, style: str, **extra: object) -> ExportOptions:
    kw: dict[str, Any] = dict(EXPORT_MODES[mode], style=style, missing="none", **extra)
    if mode == "int16":
        kw["scale"] = 100 if name.startswith(("xgb", "lgb")) else 10
    return ExportOptions(prefix="g", name="predict", **kw)


def _verify(name: str, mode: str, style: str, **extra: object) -> None:
    ens = _model(name)
    if _categorical(ens) and mode not in ("float", "double"):
        pytest.skip("a categorical test is read as a number: float inputs only")
    report = verify(ens, _opts(name, mode, style, **extra), n_random=300)
    text = report.text()
    assert report.ok and report.rows > 300, text
    assert "missing none" in text and "C vs Python ensemble, none rule" in text
    assert "rows with no missing value" in text


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("mode", ["float", "int16"])
@pytest.mark.parametrize("name", SKLEARN + GBM)
def test_lean_verify(name: str, mode: str, style: str) -> None:
    _verify(name, mode, style)


@pytest.mark.slow
@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("mode", ["double", "uint8", "keys", "fixed"])
@pytest.mark.parametrize(
    "name",
    (
        "tree",
        "wide_forest",
        "extra",
        "binary_boosting",
        "binary_hist",
        "adaboost",
        "xgb_multi",
        "xgb_forest",
        "lgb_binary",
        "lgb_nonan",
        "lgb_rf",
    )
    + SKLEARN
    + GBM,
)
def test_lean_verify_every_domain(name: str, mode: str, style: str) -> None:
    _verify(name, mode, style)


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize(
    ("name", "what"), [("forest", "proba"), ("xgb_cat", "scores"), ("lgb_zero", "scores")]
)
def test_lean_doubles_bit_for_bit(name: str, what: str, style: str) -> None:
    _verify(name, "float", style, **{what: True})


@pytest.mark.slow
def test_lean_regressor() -> None:
    import treegen

    from support.sklearn_regressors import fit_regressor

    for name in ("forest", "hist_cat"):
        ens = treegen.from_sklearn(fit_regressor(name)).value
        for style in ("table", "ifs"):
            opts = ExportOptions(prefix="g", name="predict", style=style, missing="none")
            report = verify(ens, opts, n_random=200)
            assert report.ok, report.text()
            assert "C vs Python regressor (rows with no missing value)" in report.text()


@pytest.mark.parametrize("style", ["table", "ifs"])
def test_a_wrong_none_rule_is_caught(style: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The none rule is checked, not assumed: with NaN sent left where the lean C sends it
    right, verify fails on NaN rows (and the rows with no missing value still agree)."""
    import treegen.ensemble.lower as lower

    def flipped(enc: Any, op: Any, threshold: Any) -> bool:
        return True if op in ("le", "lt") else op == "left"

    monkeypatch.setattr(lower, "none_left", flipped)
    report = verify(_model("xgb_binary"), _opts("xgb_binary", "float", style), n_random=200)
    assert not report.ok
    assert "none rule" in report.text() and "(rows with no missing value): " in report.text()
    assert "missing value): 0 rows" not in report.text()


@pytest.mark.slow
@pytest.mark.parametrize("name", ("forest", "hist", "xgb_cat", "lgb_zero"))
def test_lean_strict_c89_and_c99(name: str, tmp_path: Path) -> None:
    ens = _model(name)
    modes = ("float", "double") if _categorical(ens) else ("float", "int16", "keys")
    for style in ("table", "ifs"):
        for mode in modes:
            files = render(ens, _opts(name, mode, style)).files
            for std in ("-std=c89", "-std=c99"):
                compile_strict("gcc", std, files, tmp_path, [])
                compile_strict("gcc", std, files, tmp_path, ["-DG_SOFT64=1"])


@pytest.mark.toolchain
@pytest.mark.parametrize("cc", ["clang", "arm-none-eabi-gcc", "avr-gcc"])
def test_lean_other_compilers_strict(cc: str, tmp_path: Path) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    extra = ["-mmcu=atmega328p"] if cc == "avr-gcc" else []
    for name in ("forest", "xgb_cat", "lgb_zero"):
        for style in ("table", "ifs"):
            for mode in ("float", "int16") if name == "forest" else ("float",):
                files = render(_model(name), _opts(name, mode, style)).files
                for std in ("-std=c89", "-std=c99"):
                    compile_strict(cc, std, files, tmp_path, extra)


def _text_bytes(files: dict[str, str], tmp: Path) -> int:
    """The object's code and constant bytes (size's text column) at -Os."""
    for name, text in files.items():
        (tmp / name).write_text(text)
    subprocess.run(["gcc", "-Os", "-c", "predict.c", "-o", "p.o"], cwd=tmp, check=True)
    out = subprocess.run(["size", "p.o"], cwd=tmp, capture_output=True, text=True, check=True)
    return int(out.stdout.splitlines()[1].split()[0])


@pytest.mark.skipif(shutil.which("size") is None, reason="binutils' size is not installed")
@pytest.mark.parametrize(
    ("name", "mode", "style"),
    [
        ("forest", "float", "table"),
        ("xgb_binary", "float", "table"),
        ("lgb_multi", "float", "table"),
        ("xgb_binary", "int16", "ifs"),
    ],
)
def test_lean_is_smaller(name: str, mode: str, style: str, tmp_path: Path) -> None:
    """The lean C drops the missing-value checks (and the table's side bit): smaller
    than the --missing c45 C of the same model and options.  (Float inputs are compared
    as keys here, whose missing-value check is free: see the next test.)"""
    ens = _model(name)
    lean = _opts(name, mode, style)
    full = replace(lean, missing="c45")
    assert _text_bytes(render(ens, lean).files, tmp_path) < _text_bytes(
        render(ens, full).files, tmp_path
    )


@pytest.mark.parametrize("style", ["table", "ifs"])
def test_key_walk_missing_check_is_free(style: str) -> None:
    """With float keys (treegen.ensemble.lower's key walk) a test is one unsigned
    compare whether or not missing values are checked: the --missing c45 C has as many
    tests as the lean C, none with a check of its own, and keys plus 1 where a missing
    value goes left."""
    ens = _model("lgb_multi")
    lean = _opts("lgb_multi", "float", style)
    lean_c = render(ens, lean).files["predict.c"]
    full_c = render(ens, replace(lean, missing="c45")).files["predict.c"]
    for c in (lean_c, full_c):
        assert "g_keys(x, k);" in c and "x[f] != x[f]" not in c
        assert not any(check in c for check in ("== 0u ||", "!= 0u &&", "(v == 0u)"))
    assert "k[f + " not in lean_c and "k[f + " in full_c
    if style == "ifs":
        assert lean_c.count("if (k[") == full_c.count("if (k[") > 100
    else:
        # The threshold a column of its own or rebuilt from a packed row (row_pack).
        for c in (lean_c, full_c):
            assert c.count("int left = k[i] <= (") == 1 and "int left = " not in c.replace(
                "int left = k[i] <= (", "", 1
            )


def test_lean_header_states_the_rule() -> None:
    h = render(_model("xgb_binary"), _opts("xgb_binary", "int16", "table")).files["predict.h"]
    assert "Exported with --missing none" in h and "NaN goes right" in h
    assert "#define G_MISSING" not in h and "No missing values (see below)." in h
    # A categorical test still reads the missing value: the rule says so.
    h = render(_model("lgb_zero"), _opts("lgb_zero", "int16", "ifs")).files["predict.h"]
    assert "zero-band test still sends G_MISSING" in h and "#define G_MISSING" in h
    full = render(_model("xgb_binary"), replace(_opts("xgb_binary", "float", "ifs"), missing="c45"))
    assert "--missing none" not in full.files["predict.h"]


@pytest.mark.slow
def test_lean_export_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from support.cli import run_cli

    pytest.importorskip("xgboost")
    from support.gbm_models import fit_xgboost

    path = tmp_path / "m.json"
    fit_xgboost("xgb_binary").get_booster().save_model(str(path))
    model = tmp_path / "m.trees"
    code, out, err = run_cli(capsys, "import-xgboost", str(path), "-o", str(model))
    assert code == 0, err
    code, out, err = run_cli(
        capsys, "export", str(model), "--missing", "none", "-o", str(tmp_path / "c")
    )
    assert code == 0, err
    assert "--missing none" in (tmp_path / "c" / "predict.h").read_text()
    code, out, err = run_cli(capsys, "verify", str(model), "--missing", "none", "--style", "ifs")
    assert code == 0 and "none rule" in out, out + err


@pytest.mark.toolchain
@pytest.mark.parametrize(
    ("name", "mode", "style"),
    [
        ("xgb_cat", "float", "table"),
        ("lgb_zero", "int16", "ifs"),
        ("lgb_multi", "float", "ifs"),
        ("forest", "float", "table"),
        # One tree: the class decided at export time (no sums on the chip).
        ("tree", "float", "ifs"),
        ("tree", "int16", "table"),
    ],
)
def test_lean_on_the_chips(name: str, mode: str, style: str) -> None:
    """The lean C on the simulated ATmega328P and Cortex-M0+ (verify --on), every row
    equal to the none rule and, where nothing is missing, to the ensemble."""
    from treegen.firmware import targets
    from treegen.firmware.parity import verify_on

    chips = ["avr", "m0plus"]
    for chip in chips:
        if not targets.available(targets.target(chip), run=True):
            pytest.skip(f"{chip}: its compiler or simulator is not installed")
    opts = replace(_opts(name, mode, style), name=None, prefix="g")
    result = verify_on(_model(name), opts, [], chips, n_random=150)
    assert result.report.ok, result.report.text()
    assert "none rule" in result.report.text()
    assert set(result.runs) == set(chips) and all(r.done.all() for r in result.runs.values())


@pytest.mark.slow
def test_lean_isolation_forest() -> None:
    """An IsolationForest's predict (and its scores) in the lean C, both styles."""
    import numpy as np
    from sklearn.ensemble import IsolationForest

    import treegen

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    ens = treegen.from_sklearn(IsolationForest(n_estimators=8, random_state=0).fit(X)).value
    for style in ("table", "ifs"):
        for scores in (False, True):
            opts = ExportOptions(
                prefix="g", name="predict", style=style, missing="none", scores=scores
            )
            report = verify(ens, opts, n_random=200)
            assert report.ok and "none rule" in report.text(), report.text()
