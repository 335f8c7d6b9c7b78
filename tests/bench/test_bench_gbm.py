"""The XGBoost/LightGBM benchmark's machinery (bench/gbm_bench.py): its plan follows
BENCH_FULL, its report says "NOT met" where a target is missed, and its harness counts
a mismatch when a form's class differs from the library's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.firmware import targets
from treegen.firmware.objinfo import ObjectInfo
from treegen.firmware.sim import Run
from treegen.verify.build import have_compiler

from bench import gbm_bench as gb
from bench.harness import CHIP_SECONDS, BenchApi


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


def test_a_chip_run_cut_short_counts_no_wrong_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A simulated run that timed out has no class for its last rows: the form gets a
    note saying so, not those rows as mismatches; a whole run counts its wrong rows."""
    s = _setup(500, [])
    s.rows, s.want = np.zeros((4, 7)), np.array([0, 1, 1, 0])
    cls = np.array([0, 1, -1, -1], dtype=np.int32)
    calls: list[float] = []

    def fake(api: object, files: object, X: object, chip: str, *, time_limit: float) -> Run:
        calls.append(time_limit)
        failure = "timed out after 900 s (image 1, 2 of 4 rows)" if len(calls) == 1 else None
        out = cls if failure else np.array([0, 1, 0, 0], dtype=np.int32)
        return Run(targets.target(chip), out, np.zeros(0), np.zeros(4, np.int64),
                   ObjectInfo(0, 0, 0, ()), failure=failure)  # fmt: skip

    monkeypatch.setattr(gb, "run_vectors", fake)
    form = gb.Form("treegen", "ifs", {}, flash={"avr": -1})
    gb.on_chip(s, form, BenchApi(7, 2), "m4f")
    assert "m4f" not in form.wrong and form.notes == [
        "m4f: timed out after 900 s (image 1, 2 of 4 rows)"
    ]
    gb.on_chip(s, form, BenchApi(7, 2), "m4f")
    assert form.wrong["m4f"] == 1 and calls == [CHIP_SECONDS] * 2 and CHIP_SECONDS > 60
