"""The XGBoost/LightGBM benchmark's machinery (bench/gbm_bench.py): its plan follows
BENCH_FULL, its report says "NOT met" where a target is missed, and its harness counts
a mismatch when a form's class differs from the library's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.verify.build import have_compiler

from bench import gbm_bench as gb


def test_plan_follows_bench_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BENCH_FULL", raising=False)
    default = gb.plan()
    libs = ("xgboost", "lightgbm")
    # The 500-tree binary models (the compile-time target) first, then 100 rounds.
    assert default[:2] == [(lib, 2, 500, True) for lib in libs]
    assert {r for _, _, r, _ in default[2:]} == {100} and len(default) == 10
    assert {(lib, k) for lib, k, r, cat in default if cat and r == 100} == {
        (lib, k) for lib in libs for k in (2, 3)
    }
    monkeypatch.setenv("BENCH_FULL", "1")
    full = gb.plan()
    assert full[: len(default)] == default
    assert full[len(default) :] == [(lib, 3, 500, True) for lib in libs]
    monkeypatch.setenv("BENCH_FULL", "0")
    assert gb.plan() == default
    assert {r for _, _, r, _ in gb.plan(quick=True)} == {20}


def _setup(n_trees: int, forms: list[gb.Form]) -> gb.Setup:
    empty = np.zeros((0, 7))
    return gb.Setup("m", "xgboost", None, Path("m.json"), empty, np.zeros(0, np.int64),
                    empty, n_trees, forms)  # fmt: skip


def test_targets_are_reported_honestly() -> None:
    ours = gb.Form("treegen", "table", flash={"m0plus": 600}, ns=50.0, compile_s=12.0,
                   wrong={"host": 0, "avr": 1})  # fmt: skip
    other = gb.Form("tl2cgen", "C", flash={"m0plus": 1000}, ns=40.0, compile_s=30.0,
                    wrong={"host": 0})  # fmt: skip
    lines = gb._targets(_setup(500, [ours, other]), ["avr"])
    assert len(lines) == 4 and all("NOT met" in line for line in lines), lines
    ours.flash["m0plus"], ours.ns, ours.compile_s, ours.wrong["avr"] = 500, 40.0, 9.0, 0
    lines = gb._targets(_setup(500, [ours, other]), ["avr"])
    assert len(lines) == 4 and not any("NOT met" in line for line in lines), lines


@pytest.mark.slow
@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
def test_forms_agree_with_xgboost_and_a_wrong_class_counts(tmp_path: Path) -> None:
    pytest.importorskip("xgboost")
    pytest.importorskip("tl2cgen")
    s = gb.fit("xgboost", 3, 5, tmp_path)
    forms = [*gb.treegen_forms(s), gb.tl2cgen_form(s)]
    for form in forms:
        assert not form.error, form.error
        gb.measure(s, form, tmp_path, chips=[])
        assert form.wrong["host"] == 0 and form.ns is not None and form.ns > 0, form.label
    s.want = s.want.copy()
    s.want[:5] = (s.want[:5] + 1) % 3
    again = gb.Form("treegen", "table", forms[0].files)
    gb.measure(s, again, tmp_path / "again", chips=[])
    assert again.wrong["host"] == 5
