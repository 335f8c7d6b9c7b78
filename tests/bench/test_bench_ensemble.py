"""The ensemble benchmark's machinery (bench/ensemble_*.py) on a tiny forest: its rows sit
on the thresholds, its mismatch counters count a planted wrong class and a planted wrong
bit of a probability, its wrappers of
the other generators predict what the estimator predicts where that generator is exact,
and its flash measurement and chip runs see a model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treegen.firmware import targets
from treegen.verify.build import have_compiler

pytest.importorskip("sklearn")
from bench import ensemble_forms as ef  # noqa: E402
from bench import ensemble_measure as em  # noqa: E402
from bench import ensemble_models as models  # noqa: E402
from bench import harness as hw  # noqa: E402


def _tiny() -> models.Fitted:
    from sklearn.ensemble import RandomForestClassifier

    X, y = models.sensor_data()
    X, y = X[::20], y[::20]  # 300 rows
    est = RandomForestClassifier(3, max_depth=3, random_state=0).fit(X[:200], y[:200])
    return models.Fitted("tiny", "tiny forest", est, X[200:])


def test_neighbours_bracket_the_threshold() -> None:
    for t in (0.1, -2.5, 1e-40, 3.0, np.inf):
        near = models._neighbours(t)
        below = [v for v in near if v <= t]
        above = [v for v in near if v > t]
        assert len(below) == 2 and (len(above) == 2 or not np.isfinite(t))
        assert all(float(np.float32(v)) == v for v in near)  # every one a float32
        if np.isfinite(t):  # lo and hi are adjacent float32 values either side of t
            lo, hi = np.float32(max(below)), np.float32(min(above))
            assert np.nextafter(lo, np.float32(np.inf)) == hi


def test_rows_reach_every_threshold_and_the_truth_is_predict() -> None:
    f = _tiny()
    X, want = models.check_rows(f)
    assert np.array_equal(want, np.searchsorted(f.est.classes_, f.est.predict(X)))
    for m in f.est.estimators_:
        t = m.tree_
        for node in np.flatnonzero(t.children_left >= 0):
            feature, thr = int(t.feature[node]), float(t.threshold[node])
            column = X[:, feature]
            lo = max(v for v in models._neighbours(thr) if v <= thr)
            assert np.any(column == lo) and np.any(
                column == float(np.nextafter(np.float32(lo), np.float32(np.inf)))
            )
    assert np.isnan(X).any()  # a forest's predict takes NaN: rows with NaN are checked


@pytest.mark.slow
@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
def test_host_mismatches_count_a_planted_wrong_class(tmp_path: Path) -> None:
    f = _tiny()
    X, want = models.check_rows(f)
    (table,) = [fo for fo in ef.treegen_forms(f.est) if fo.form == "table"]
    got = em.host_classes(table, X, tmp_path / "tg", "gcc")
    assert not isinstance(got, str), got
    assert np.count_nonzero(got != want) == 0
    wrong = want.copy()
    wrong[[3, 17, 40]] = (wrong[[3, 17, 40]] + 1) % len(f.est.classes_)
    assert np.count_nonzero(got != wrong) == 3
    ns = em.host_ns(table, f.X_test, tmp_path / "tg", "shuffled")
    assert not isinstance(ns, str) and len(ns) == em.REPEATS and min(ns) > 0
    # The probabilities: scikit-learn's bits on every row; one bit off on one row counts.
    assert table.vector == "proba"
    bits = em.host_vectors(table, X, tmp_path / "tgv", "gcc")
    assert not isinstance(bits, str), bits
    proba = f.est.predict_proba(X)
    assert bits.shape == proba.shape and em.vector_mismatches(bits, proba) == 0
    off = proba.copy()
    off.view(np.uint64)[7, 2] ^= np.uint64(1)
    assert em.vector_mismatches(bits, off) == 1


@pytest.mark.slow
@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
def test_the_other_generators_wrappers(tmp_path: Path) -> None:
    """tl2cgen compares a double of the float input with scikit-learn's double threshold
    and averages in double as the forest does: through the wrapper, the same classes on
    rows without NaN.  emlearn's hard voting differs from the forest's soft voting
    somewhere, which the counter sees."""
    pytest.importorskip("tl2cgen")
    pytest.importorskip("emlearn")
    f = _tiny()
    X, want = models.check_rows(f)
    known = ~np.isnan(X).any(axis=1)
    forms: dict[str, Any] = {fo.label: fo for fo in ef.all_forms(f.est, ("emlearn", "tl2cgen"))}
    got = em.host_classes(forms["tl2cgen C"], X[known], tmp_path / "tl", "gcc")
    assert not isinstance(got, str), got
    assert np.array_equal(got, want[known])
    # Its vector: the mean probabilities, one double per class and row.
    bits = em.host_vectors(forms["tl2cgen C"], X[known], tmp_path / "tlv", "gcc")
    assert not isinstance(bits, str), bits
    assert bits.shape == (int(known.sum()), len(f.est.classes_))
    assert not forms["emlearn inline float lb0"].vector  # float32 only: nothing to compare
    hard = em.host_classes(forms["emlearn inline float lb0"], X, tmp_path / "em", "gcc")
    assert not isinstance(hard, str), hard
    assert 0 < np.count_nonzero(hard != want) < X.shape[0] // 2


@pytest.mark.toolchain
def test_flash_and_avr_run_see_the_model(tmp_path: Path) -> None:
    if not targets.available(targets.target("avr")):
        pytest.skip("avr-gcc or simavr is not installed")
    f = _tiny()
    X, want = models.check_rows(f)
    (table,) = [fo for fo in ef.treegen_forms(f.est) if fo.form == "table"]
    cost = hw.link_cost(table, "avr", tmp_path / "avr")
    assert not cost.error and 0 < cost.flash < cost.total_flash
    assert cost.object_ram == 0 and cost.stack is not None and cost.stack > 0
    api = hw.BenchApi(int(f.est.n_features_in_), len(f.est.classes_))
    X, want = X[:60], want[:60]
    run = em.chip_run(table, api, X, want, "avr", cost)
    assert run.mismatches == 0 and run.median > 0 and not run.note
    planted = want.copy()
    planted[5] = (planted[5] + 1) % len(f.est.classes_)
    assert em.chip_run(table, api, X, planted, "avr", cost).mismatches == 1


def test_int16_rows_are_the_conversions_and_every_thresholds_integers() -> None:
    f = _tiny()
    X, _ = models.check_rows(f)
    i16 = models.int16_rows(f, X)
    rows = i16.rows
    assert np.array_equal(rows, np.trunc(rows)) and not np.isnan(rows).any()
    assert rows.min() >= models.INT16_LO and rows.max() <= models.INT16_HI
    # The first rows: every float row without NaN, converted toward zero as C does.
    assert not i16.converted.all() and i16.converted[: f.X_test.shape[0]].all()
    assert np.array_equal(rows[: i16.n_converted], np.trunc(X[i16.converted]))
    assert np.array_equal(i16.want, np.searchsorted(f.est.classes_, f.est.predict(rows)))
    for m in f.est.estimators_:
        t = m.tree_
        for node in np.flatnonzero(t.children_left >= 0):
            lo = np.floor(t.threshold[node])  # the largest integer x with x <= t, and lo + 1
            column = rows[:, int(t.feature[node])]
            assert np.any(column == lo) and np.any(column == lo + 1)


@pytest.mark.slow
@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
def test_int16_forms_count_against_the_int16_truth(tmp_path: Path) -> None:
    """treegen's int16 forms are the model given the int16 rows: every class and
    probability; a planted wrong class counts.  emlearn's int16 default (``x < (int)t``)
    is not, which the counter sees."""
    pytest.importorskip("emlearn")
    f = _tiny()
    X, _ = models.check_rows(f)
    i16 = models.int16_rows(f, X)
    forms = {fo.label: fo for fo in ef.all_forms(f.est, ("treegen", "emlearn"))}
    for label in ("treegen ifs int16", "treegen ifs int16 none"):
        fo = forms[label]
        assert fo.input == "int16" and fo.vector == "proba"
        got = em.host_classes(fo, i16.rows, tmp_path / label, "gcc")
        assert not isinstance(got, str), got
        assert np.count_nonzero(got != i16.want) == 0
        planted = i16.want.copy()
        planted[2] = (planted[2] + 1) % len(f.est.classes_)
        assert np.count_nonzero(got != planted) == 1
        bits = em.host_vectors(fo, i16.rows, tmp_path / f"{label}-v", "gcc")
        assert not isinstance(bits, str), bits
        assert em.vector_mismatches(bits, f.est.predict_proba(i16.rows)) == 0
    fo = forms["emlearn inline int16 (default)"]
    assert fo.input == "int16" and forms["emlearn inline float lb0"].input == "float"
    got = em.host_classes(fo, i16.rows, tmp_path / "em16", "gcc")
    assert not isinstance(got, str), got
    assert np.count_nonzero(got != i16.want) > 0


def test_targets_hold_each_input_type_to_its_own() -> None:
    """The host-time targets: against the fastest other form of any input type, then
    input type by input type; an int16 form's 0-mismatch target counts its int16 rows;
    a forest's flash target is against emlearn's smallest float form."""
    from bench import ensemble_bench as eb

    f = _tiny()

    def result(tool: str, form: str, inp: str, ns: float, **kw: Any) -> Any:
        r = eb.Result(ef.Form(tool, form, {}, input=inp), ns=[ns], shuffled=[ns + 10])
        for k, v in kw.items():
            setattr(r, k, v)
        return r

    cost = {"m0plus": hw.LinkCost(flash=500)}
    rs = [
        result("treegen", "table", "float", 900.0, mismatches={"gcc": 0}, cost=cost),
        result("treegen", "ifs", "float", 30.0, mismatches={"gcc": 0}),
        result(
            "treegen",
            "ifs int16",
            "int16",
            25.0,
            mismatches={"gcc": 70},
            wrong16={"gcc": 0, "avr": 0},
        ),  # fmt: skip
        result(
            "emlearn",
            "inline float lb0",
            "float",
            40.0,
            mismatches={"gcc": 3},
            cost={"m0plus": hw.LinkCost(flash=1000)},
        ),  # fmt: skip
        result(
            "emlearn",
            "inline int16 (default)",
            "int16",
            20.0,
            mismatches={"gcc": 80},
            wrong16={"gcc": 90},
        ),  # fmt: skip
    ]
    lines = eb.targets(eb.ModelRun(f, 100, 50, 7, rs))
    text = "\n".join(lines)
    assert "[PASS] tiny: treegen ifs int16: 0 mismatches (gcc 0, avr 0;" in text
    assert "[PASS] tiny: treegen table M0+ flash 500 B <= 0.6 x emlearn inline float lb0" in text
    for order, more in (("in order", 0), ("shuffled", 10)):  # shuffled: 10 ns more
        assert (
            f"[FAIL] tiny: host ns ({order}, any input type) treegen ifs int16 {25 + more}.0 "
            f"<= fastest other, emlearn inline int16 (default) {20 + more}.0"
        ) in text
        assert (
            f"[PASS] tiny: host ns ({order}, float input) treegen ifs {30 + more}.0 "
            f"<= fastest other, emlearn inline float lb0 {40 + more}.0"
        ) in text
        assert f"[FAIL] tiny: host ns ({order}, int16 input) treegen ifs int16 {25 + more}" in text
    # No other int16 form is right on its int16 rows: no info line for that input type.
    assert not any("int16 input" in s and s.startswith("[info]") for s in lines)


def test_a_command_past_its_limit_is_killed_with_its_children(tmp_path: Path) -> None:
    """A compiler driver's cc1 is its child: the limit kills the process group, so no
    child of the command is left running when the limit has passed."""
    import subprocess
    import time

    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        hw.run(["sh", "-c", "sleep 60 & echo $! > child; wait"], tmp_path, 0.5)
    assert time.monotonic() - start < 30
    pid = (tmp_path / "child").read_text().strip()
    for _ in range(50):  # the kill is sent; let the kernel finish it
        stat = Path(f"/proc/{pid}/stat")
        if not stat.exists() or stat.read_text().split(")")[-1].split()[0] == "Z":
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the command's child {pid} still runs")


@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
def test_a_form_past_the_compile_limit_is_reported_not_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = _tiny()
    X, _ = models.check_rows(f)
    (table,) = [fo for fo in ef.treegen_forms(f.est) if fo.form == "table"]
    monkeypatch.setattr(hw, "COMPILE_SECONDS", 0.001)
    monkeypatch.setattr(em, "COMPILE_SECONDS", 0.001)
    got = em.host_classes(table, X, tmp_path / "host", "gcc")
    assert got == "gcc: did not compile in 0 s"
    assert not (tmp_path / "host" / "harness-gcc").exists()


@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
def test_strict_check_tells_treegens_own_stop_from_a_warning(tmp_path: Path) -> None:
    """A C whose first diagnostic is treegen's #error for a table too large for the
    target is refused there, not warned about; a warning before it is a failure."""
    from types import SimpleNamespace

    stop = (
        '#error "treegen: the table e_value takes 40,000 bytes, above the 32,767 an AVR '
        'object may have; export a smaller model"\ntypedef int e_unused;\n'
    )
    # avr-gcc goes on to its own error on the table the #error names: refused too.
    table = "static const char e_value[40000L * 40000L];\n"
    refusing: Any = SimpleNamespace(files={"predict.c": stop + table, "predict.h": ""})
    failed, refused = em.strict_failures(refusing, tmp_path / "stop")
    assert failed == [] and refused and all("e_value takes 40,000 bytes" in r for r in refused)
    assert any(r.startswith("gcc c89: the table e_value") for r in refused)
    narrowing = "unsigned char e_f(int x);\nunsigned char e_f(int x) { return x; }\n"
    # A warning before the stop is the compiler's own: a failure.
    warning: Any = SimpleNamespace(files={"predict.c": narrowing + stop, "predict.h": ""})
    failed, refused = em.strict_failures(warning, tmp_path / "warn")
    assert refused == [] and any(f.startswith("gcc c99") for f in failed)
