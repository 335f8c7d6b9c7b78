"""An ensemble's C: verify holds it to the numpy arithmetic in every input mode, it
compiles warning-free under the strict flags (c89 and c99, gcc and clang; the cross
compilers, arm-none-eabi-gcc and avr-gcc, in the toolchain set), and its bytes are deterministic."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from treegen.codegen.options import ExportOptions
from treegen.kinds.check import verify
from treegen.kinds.export import render

from support.modes import EXPORT_MODES
from support.sklearn_models import NAMES
from support.sklearn_models import fit_setup as _fit
from support.strict import compile_strict

sklearn = pytest.importorskip("sklearn")

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


MODES = ["float", "double", "int16", "uint8", "keys", "fixed"]


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_verify_every_mode(name: str, mode: str, style: str) -> None:
    ens = _fit(name)
    kw = dict(EXPORT_MODES[mode], style=style)
    categorical = any(any(t.categorical) for t in ens.trees)
    if categorical and mode not in ("float", "double"):
        with pytest.raises(Exception, match="categorical"):
            verify(ens, ExportOptions(prefix="e", **kw), n_random=50)  # type: ignore[arg-type]
        return
    if mode == "int16":
        kw["scale"] = 10  # the features are small numbers: tenths fit int16
    report = verify(ens, ExportOptions(prefix="e", **kw), n_random=400)  # type: ignore[arg-type]
    assert report.rows > 400 and report.ok, report.text()


@pytest.mark.slow
@pytest.mark.parametrize("std", ["-std=c89", "-std=c99"])
@pytest.mark.parametrize("name", NAMES)
def test_strict_c89_and_c99(name: str, std: str, tmp_path: Path) -> None:
    ens = _fit(name)
    categorical = any(any(t.categorical) for t in ens.trees)
    for style in ("table", "ifs"):
        for mode in ("float", "double") if categorical else ("float", "double", "int16", "keys"):
            opts = ExportOptions(prefix="e", style=style, **EXPORT_MODES[mode])  # type: ignore[arg-type]
            files = render(ens, opts).files
            compile_strict("gcc", std, files, tmp_path)
            # Both sums: the C library's double and the file's own binary64 routines.
            compile_strict("gcc", std, files, tmp_path, ["-DE_SOFT64=1"])


@pytest.mark.toolchain
@pytest.mark.parametrize("cc", ["clang", "arm-none-eabi-gcc", "avr-gcc"])
def test_other_compilers_strict(cc: str, tmp_path: Path) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    # avr-gcc: a 16-bit int and PROGMEM reads (a uint8_t promoted to int).
    extra = ["-mmcu=atmega328p"] if cc == "avr-gcc" else []
    for name in NAMES:
        for style in ("table", "ifs"):
            files = render(_fit(name), ExportOptions(prefix="e", style=style)).files
            for std in ("-std=c89", "-std=c99"):
                compile_strict(cc, std, files, tmp_path, extra)


@pytest.mark.parametrize("style", ["table", "ifs"])
def test_the_same_ensemble_gives_the_same_bytes(style: str) -> None:
    a = render(_fit("hist"), ExportOptions(prefix="e", style=style)).files
    b = render(_fit("hist"), ExportOptions(prefix="e", style=style)).files
    assert a == b
    assert "predict_proba" not in a["e_predict.h"] and "int e_predict(" in a["e_predict.h"]


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("forest", "proba"),
        ("tree", "proba"),
        ("wide_forest", "proba"),
        ("pure_forest", "proba"),
        ("boosting", "scores"),
        ("binary_boosting", "scores"),
        ("hist", "scores"),
        ("adaboost", "scores"),
        ("binary_adaboost", "scores"),
    ],
)
def test_probabilities_and_scores_bit_for_bit(name: str, what: str, style: str) -> None:
    """--proba (a forest's predict_proba) and --scores (decision_function) equal the
    float64 arithmetic in every bit, in float and int16 input."""
    for mode in ("float", "int16"):
        kw = dict(EXPORT_MODES[mode], style=style, **{what: True})
        if mode == "int16":
            kw["scale"] = 10
        if mode == "int16" and name == "hist":
            continue  # its categorical feature is read as a number: float inputs only
        r = verify(_fit(name), ExportOptions(prefix="e", **kw), n_random=200)  # type: ignore[arg-type]
        assert r.ok, r.text()
        values = "probabilities" if what == "proba" else "scores"
        assert "(bits)" in r.text() and f"classes and {values} identical" in r.text()


@pytest.mark.parametrize("mode", ["float", "int16", "lean_int16", "keys"])
def test_a_forest_of_one_class_leaves_adds_one_a_tree(mode: str) -> None:
    """Fully grown trees: every leaf is one class's, so the ifs C adds 1.0 to the class a
    tree returns and holds no row of doubles (a row of one 1.0 and zeros adds nothing
    else); a forest with a leaf of two classes keeps its rows."""
    kw = dict(EXPORT_MODES[mode], style="ifs")
    if "int16" in mode:
        kw["scale"] = 10
    pure = render(_fit("pure_forest"), ExportOptions(prefix="e", **kw)).files["e_predict.c"]  # type: ignore[arg-type]
    assert "acc[p] = acc[p] + 1.0;" in pure and "e_value[" not in pure
    mixed = render(_fit("forest"), ExportOptions(prefix="e", **kw)).files["e_predict.c"]  # type: ignore[arg-type]
    assert "acc[o] = acc[o] + e_value[p][o];" in mixed and "acc[p] = acc[p] + 1.0;" not in mixed


def test_a_wrong_double_is_caught(tmp_path: Path) -> None:
    """The comparison is of bits: a divisor one ulp off changes some probabilities by
    an ulp, not the class, and verify's comparison fails on them."""
    from treegen.ensemble import check
    from treegen.verify.build import build
    from treegen.verify.report import Report

    ens = _fit("forest")
    r = render(ens, ExportOptions(prefix="e", proba=True))
    files = dict(r.files)
    assert "acc[o] / 6.0;" in files["e_predict.c"]
    files["e_predict.c"] = files["e_predict.c"].replace(
        "acc[o] / 6.0;", "acc[o] / 6.000000000000001;"
    )
    built = build(r.lowered, files, tmp_path)
    X = check.verify_rows(ens, r.lowered, r.opts, [], 300, 0, Report())
    cls, proba = built.run(X)
    report = Report()
    check.compare(ens, r.lowered, r.opts, X, cls, proba, report)
    assert not report.ok and report.failed_rows > 0


def test_doubles_the_model_has_no_exact_c_for_are_refused() -> None:
    from treegen.errors import TreegenError

    with pytest.raises(TreegenError, match="exp of its raw scores"):
        render(_fit("boosting"), ExportOptions(prefix="e", proba=True))
    with pytest.raises(TreegenError, match="no decision_function"):
        render(_fit("forest"), ExportOptions(prefix="e", scores=True))
    with pytest.raises(TreegenError, match="cannot go with proba=True"):  # from Python
        ExportOptions(prefix="e", scores=True, proba=True)
    h = render(_fit("binary_adaboost"), ExportOptions(prefix="e", scores=True)).files["e_predict.h"]
    assert "#define E_N_SCORES 1" in h
    assert "void e_decision_function(const e_input_t *x, double *scores);" in h
    h = render(_fit("forest"), ExportOptions(prefix="e", proba=True)).files["e_predict.h"]
    assert (
        "#define E_N_PROBA 3" in h
        and "void e_predict_proba(const e_input_t *x, double *proba);" in h
    )


@pytest.mark.parametrize(("name", "what"), [("forest", "proba"), ("boosting", "scores")])
def test_exported_doubles_strict_with_the_routines_forced(
    name: str, what: str, tmp_path: Path
) -> None:
    """--proba/--scores with the binary64 routines where double is binary64 (the default
    on Cortex-M and RISC-V without a double FPU): no unused routine."""
    files = render(_fit(name), ExportOptions(prefix="e", **{what: True})).files  # type: ignore[arg-type]
    for std in ("-std=c89", "-std=c99"):
        compile_strict("gcc", std, files, tmp_path, ["-DE_SOFT64=1"])


@pytest.mark.parametrize("style", ["table", "ifs"])
def test_predict_h_states_the_work_per_call(style: str) -> None:
    """predict.h's paragraph on calling predict counts every tree's longest path, as
    scikit-learn's own ``max_depth`` of each fitted tree adds up."""
    import numpy as np
    from sklearn.ensemble import RandomForestClassifier

    from support.sklearn_models import _data, ensemble_from_sklearn

    X, y = _data()
    est = RandomForestClassifier(n_estimators=7, max_depth=5, random_state=3).fit(X, y)
    tests = int(np.sum([m.tree_.max_depth for m in est.estimators_]))
    header = render(ensemble_from_sklearn(est), ExportOptions(prefix="e", style=style)).files
    text = " ".join(header["e_predict.h"].split())
    assert "e_ functions below: reentrant" in text
    assert f"7 trees walked once each, {tests} tests in all" in text
    assert "Stack: 3 running sums" in text


@pytest.mark.toolchain
@pytest.mark.parametrize("style", ["table", "ifs"])
def test_a_float_forest_calls_no_float_routine_on_the_m0plus(style: str, tmp_path: Path) -> None:
    """Float inputs are compared as keys and a forest's sums run in add_pos/div_pos with
    the argmax on their bits: compiled for the Cortex-M0+, the C calls none of libgcc's
    float or double helpers (the comparisons alone were about 500 B)."""
    import subprocess

    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc is not installed")
    files = render(_fit("forest"), ExportOptions(prefix="e", style=style)).files
    c = files["e_predict.c"]
    assert "e_f64_add_pos(" in c and "e_f64_div_pos(" in c and "e_u64_lt(&acc[best]" in c
    assert "e_f64_add(" not in c and "e_f64_lt(" not in c and "e_keys(x, k);" in c
    obj = compile_strict(
        "arm-none-eabi-gcc", "-std=c99", files, tmp_path, ["-mcpu=cortex-m0plus", "-Os"]
    )
    syms = subprocess.run(
        ["arm-none-eabi-nm", "-u", str(obj)], check=True, capture_output=True, text=True
    ).stdout
    assert "__aeabi" not in syms and "sf2" not in syms and "df" not in syms, syms


@pytest.mark.parametrize(("n_features", "keyed"), [(32, True), (33, False)])
def test_keys_for_at_most_32_features(n_features: int, keyed: bool) -> None:
    """The key walk keeps two keys a feature on the stack: up to 32 features (256 B);
    a wider float model compares floats, and both verify exactly (NaN included)."""
    import numpy as np
    from sklearn.ensemble import RandomForestClassifier

    from treegen.ensemble.sklearn import ensemble_from_sklearn

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, n_features)).astype(np.float32)
    y = (X[:, 0] + X[:, -1] > 0).astype(int) + (X[:, 1] > 1)
    X[rng.random(X.shape) < 0.05] = np.nan
    est = RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0).fit(X, y)
    ens = ensemble_from_sklearn(est)
    for style in ("table", "ifs"):
        opts = ExportOptions(prefix="e", style=style)
        c = render(ens, opts).files["e_predict.c"]
        assert ("e_keys(x, k);" in c) == keyed and ("(v != v)" in c) == (
            not keyed and style == "table"
        )
        report = verify(ens, opts, n_random=200)
        assert report.ok, report.text()


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("mode", ["float", "double", "int16", "keys", "lean_float"])
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_a_single_tree_that_is_one_leaf(kind: str, mode: str, style: str) -> None:
    """A DecisionTree fitted to no split (min_samples_split above the rows) is one leaf:
    its C has no test and reads no input, and still compiles under the strict flags
    (its ifs once named a key array that nothing declared)."""
    import numpy as np
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    from treegen.ensemble.regress import from_estimator

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    est = (
        DecisionTreeClassifier(min_samples_split=100).fit(X, y)
        if kind == "classifier"
        else DecisionTreeRegressor(min_samples_split=100).fit(X, X[:, 0])
    )
    ens = from_estimator(est)
    assert all(t.feature == (-1,) for t in ens.trees)
    kw = dict(EXPORT_MODES[mode], style=style)
    report = verify(ens, ExportOptions(prefix="e", **kw), n_random=20)  # type: ignore[arg-type]
    assert report.ok, report.text()


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_a_categorical_feature_no_split_tests(kind: str, style: str, tmp_path: Path) -> None:
    """HistGradientBoosting with a categorical feature that no split tests (a noise
    column): its C keeps no table of the feature's categories, which nothing would read
    (-Wunused-const-variable), with the double sums and with the binary64 routines."""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    from treegen.ensemble.regress import from_estimator

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=300), rng.integers(0, 4, 300).astype(float)])
    y = (X[:, 0] > 0).astype(int)
    kw = dict(max_iter=3, max_leaf_nodes=2, categorical_features=[1], random_state=0)
    est = (
        HistGradientBoostingClassifier(**kw).fit(X, y)  # type: ignore[arg-type]
        if kind == "classifier"
        else HistGradientBoostingRegressor(**kw).fit(X, y * 1.5)  # type: ignore[arg-type]
    )
    ens = from_estimator(est)
    assert ens.categories[1] == (0.0, 1.0, 2.0, 3.0)
    assert not any(any(t.categorical) for t in ens.trees)
    report = verify(ens, ExportOptions(prefix="e", style=style), n_random=50)
    assert report.ok, report.text()
    files = render(ens, ExportOptions(prefix="e", style=style)).files
    compile_strict("gcc", "-std=c99", files, tmp_path, ["-DE_SOFT64=1"])


@pytest.mark.parametrize("style", ["table", "ifs"])
def test_a_global_scale_leaves_a_text_category_unscaled(style: str) -> None:
    """``--scale K`` applies to every continuous feature (its help): a pandas text
    category is a nominal feature whose integer input is its code, never scaled, so a
    global scale exports and verifies (it was refused as a scaled category)."""
    pd = pytest.importorskip("pandas")
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier

    from treegen.ensemble.regress import from_estimator

    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame(
        {
            "temp": np.round(rng.normal(20, 5, n), 1),
            "mode": pd.Categorical(np.array(["idle", "run", "fault"])[rng.integers(0, 3, n)]),
        }
    )
    y = ((frame.temp > 21) & (frame["mode"] != "fault")).astype(int)
    est = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(frame, y)
    ens = from_estimator(est)
    assert ens.schema.attributes[1].kind == "nominal"
    assert any(any(t.categorical) for t in ens.trees)
    opts = ExportOptions(prefix="e", style=style, input_type="int16", scale=10)
    report = verify(ens, opts, n_random=200)
    assert report.ok, report.text()
    header = render(ens, opts).files["e_predict.h"]
    assert "#define E_MODE_FAULT 0" in header


@pytest.mark.toolchain
@pytest.mark.parametrize("cc", ["avr-gcc", "arm-none-eabi-gcc", "clang"])
def test_byte_node_words_strict_on_every_compiler(cc: str, tmp_path: Path) -> None:
    """A model small enough for one byte a node word (one feature, two stumps) with 8-bit
    inputs: its table walk's ``(w >> s) & 1u`` promoted the byte to int and converted
    that to unsigned, which avr-gcc's -Wsign-conversion refused (the host's gcc did
    not); the shifts are cast to unsigned now."""
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    import numpy as np
    from sklearn.ensemble import GradientBoostingClassifier

    from support.sklearn_models import ensemble_from_sklearn

    rng = np.random.default_rng(5)
    X = rng.integers(0, 50, (200, 1)).astype(float)
    y = (X[:, 0] > 24).astype(int)
    est = GradientBoostingClassifier(n_estimators=2, max_depth=1, random_state=0).fit(X, y)
    extra = ["-mmcu=atmega328p"] if cc == "avr-gcc" else []
    extra += ["-mcpu=cortex-m0plus", "-mthumb"] if cc == "arm-none-eabi-gcc" else []
    ens = ensemble_from_sklearn(est)
    for input_type in ("uint8", "int8"):
        opts = ExportOptions(prefix="e", style="table", input_type=input_type, scale=1)
        files = render(ens, opts).files
        assert "uint8_t w = " in files["e_predict.c"]  # one byte a node word
        for std in ("-std=c89", "-std=c99"):
            compile_strict(cc, std, files, tmp_path, extra)
