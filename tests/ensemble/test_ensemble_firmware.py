"""An ensemble's C on the simulated chips: the ATmega328P (where double has 32 bits, so
the float64 sums run in the generated binary64 routines) and Cortex-M0+ and M4F (no
double FPU: the same routines, smaller than libgcc's soft double), every row equal to
the numpy arithmetic, in both styles; the exported doubles (predict_proba,
decision_function) bit for bit, or as the nearest float32 where double has 32 bits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble.file import ensemble_to_json
from treegen.ensemble.regress import from_estimator
from treegen.firmware import targets
from treegen.firmware.parity import verify_on

from support.cli import run_cli
from support.sklearn_models import fit_setup as _fit
from support.sklearn_regressors import fit_regressor

pytestmark = pytest.mark.toolchain


def _need(name: str) -> None:
    t = targets.target(name)
    if not targets.available(t, run=True):
        pytest.skip(f"{name}: its compiler or simulator is not installed")


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("forest", {"proba": True}),
        ("wide_forest", {"style": "ifs", "proba": True}),
        ("wide_forest", {}),
        # The table style's node stream with one-class leaves only (the binary64
        # division it needs was left out: no compile on the chips).
        ("pure_forest", {}),
        ("pure_forest", {"missing": "none", "proba": True}),
        # one-class leaves in the ifs style: 1.0 added a tree (soft binary64 on two chips)
        ("pure_forest", {"style": "ifs", "proba": True}),
        ("pure_forest", {"style": "ifs", "input_type": "int16", "scale": 10, "missing": "none"}),
        ("binary_boosting", {"scores": True}),
        ("hist", {"style": "ifs"}),
        ("hist", {"scores": True}),
        ("binary_adaboost", {"float_compare": "int", "scores": True}),
        ("boosting", {"input_type": "int16", "scale": 10, "scores": True}),
        # integer inputs' selects (?: on the chips), with and without missing values
        ("forest", {"style": "ifs", "input_type": "int16", "scale": 10, "proba": True}),
        ("forest", {"style": "ifs", "input_type": "int16", "scale": 10, "missing": "none"}),
        ("leaf_forest", {"style": "ifs", "float_compare": "int"}),
        # One tree: the class decided at export time (no sums on the chip), NaN included.
        ("tree", {}),
        ("tree", {"style": "ifs"}),
        ("tree", {"proba": True}),
    ],
)
def test_ensembles_on_every_chip(name: str, mode: dict[str, object]) -> None:
    for chip in ("avr", "m0plus", "m4f"):
        _need(chip)
    opts = ExportOptions(prefix="e", **mode)  # type: ignore[arg-type]
    result = verify_on(_fit(name), opts, [], ["avr", "m0plus", "m4f"], n_random=200)
    assert result.report.ok, result.report.text()
    assert set(result.runs) == {"avr", "m0plus", "m4f"}
    assert all(run.done.all() for run in result.runs.values())
    if opts.proba or opts.scores:
        # The doubles came back: the AVR's as binary32, the others' as binary64.
        assert result.runs["avr"].proba.dtype == "float32"
        assert result.runs["m0plus"].proba.dtype == "float64"
        assert "(bits)" in result.report.text()


@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_export_report_of_an_ensemble(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``export --report --on m0plus`` of an imported ensemble: a row per installed
    compiler with predict.o's flash, RAM (0: the tables are constants) and stack, and the
    instruction counts of a run on the chip, whose answers matched the Python side (a
    mismatch prints FAILED in their place)."""
    _need("m0plus")
    ens = (
        from_estimator(fit_regressor("forest")) if kind == "regressor" else _fit("binary_boosting")
    )
    model = tmp_path / "m.trees"
    model.write_text(ensemble_to_json(ens), encoding="utf-8")
    argv = ["-q", "export", str(model), "-o", str(tmp_path / "c"), "--report", "--on", "m0plus"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert (tmp_path / "c" / "predict.c").is_file()
    lines = out.splitlines()
    assert lines[0].startswith(
        "predict.o, -Os -std=c99 -ffunction-sections -fdata-sections: "
        f"ensemble of {len(ens.trees)} trees"
    )
    rows = {}
    for name in targets.REPORT_TARGETS:
        t = targets.target(name)
        row = next((ln for ln in lines if ln.startswith(t.title)), None)
        assert (row is not None) == targets.available(t, run=False), (name, out)
        if row is not None:
            rows[name] = row[len(t.title) :].split()
    for name, cells in rows.items():
        flash, ram, stack = (int(c) for c in cells[:3])
        assert flash > 0 and ram == 0 and stack > 0, (name, cells)
    m = re.search(r"instructions: min (\d+), median (\d+), max (\d+)$", " ".join(rows["m0plus"]))
    assert m and 0 < int(m.group(1)) <= int(m.group(2)) <= int(m.group(3)), rows["m0plus"]
