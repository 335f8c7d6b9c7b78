"""An imported XGBoost or LightGBM model's numpy arithmetic equals the library's own.

For every setup (binary, multiclass, NaN, categorical splits, LightGBM's missing types
None/Zero/NaN, random-forest modes, a sigmoid parameter): on data rows, every
threshold's float32 neighbours, category codes and non-codes, the zero band and NaN
rows, the class equals ``predict``'s and the raw scores equal the library's margins
(XGBoost's float32, LightGBM's double) in every bit.  The binary decision's cut is
held to the libraries' own sigmoid on the margins around it, through models that are
a single leaf.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from treegen.ensemble import classify, libm
from treegen.ensemble.core import Ensemble
from treegen.estimator.gbm_import import from_lightgbm, from_xgboost
from treegen.model import native

from support.floatbits import same_bits
from support.gbm_models import (
    LGB_SETUPS,
    XGB_SETUPS,
    fit_lightgbm,
    fit_xgboost,
    gbm_data,
    lgb_thresholds,
    probe_rows,
    xgb_thresholds,
)

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")


@pytest.mark.parametrize("name", XGB_SETUPS)
def test_xgboost_class_and_margin(name: str) -> None:
    est = fit_xgboost(name)
    booster = est.get_booster()
    ens: Ensemble = from_xgboost(est).value
    X, _ = gbm_data()
    rows = probe_rows(X, xgb_thresholds(booster))
    if name != "xgb_cat":
        rows = rows[np.isfinite(rows).all(axis=1) | np.isnan(rows).any(axis=1)]
    got = classify.predict(ens, rows)
    assert np.array_equal(got, est.predict(rows))
    margin = est.predict(rows, output_margin=True).reshape(len(rows), -1)
    assert same_bits(classify.raw_scores(ens, rows), margin.astype(np.float64))


@pytest.mark.parametrize("name", LGB_SETUPS)
def test_lightgbm_class_and_raw_score(name: str) -> None:
    est = fit_lightgbm(name)
    ens: Ensemble = from_lightgbm(est).value
    X, _ = gbm_data()
    rows = probe_rows(X, lgb_thresholds(est.booster_))
    assert np.array_equal(classify.predict(ens, rows), est.predict(rows))
    raw = est.predict(rows, raw_score=True).reshape(len(rows), -1)
    assert same_bits(classify.raw_scores(ens, rows), raw)
    if ens.divisor is None:
        assert same_bits(classify.scores(ens, rows), raw)


def test_setups_reach_every_rule() -> None:
    """The setups have what the tests claim: NaN sent both ways, categorical splits,
    zero-band splits, float32 sums."""
    xc = from_xgboost(fit_xgboost("xgb_cat")).value
    assert any(any(t.categorical) for t in xc.trees) and xc.sum == "float32"
    lz = from_lightgbm(fit_lightgbm("lgb_zero")).value
    assert any(t.zero_missing for t in lz.trees)
    lc = from_lightgbm(fit_lightgbm("lgb_cat")).value
    assert any(any(t.categorical) for t in lc.trees)
    nan_sides = {b for t in lc.trees for b, f in zip(t.nan_left, t.feature, strict=True) if f >= 0}
    assert nan_sides == {True, False}


def _around(cut: float, dtype: type, n: int = 40) -> list[float]:
    c = dtype(cut)
    out = [float(c)]
    for s in (-1, 1):
        v = c
        for _ in range(n):
            v = np.nextafter(v, dtype(s * np.inf))
            out.append(float(v))
    return sorted(out)


def _xgb_leaf_model(value: float, base_score: str) -> bytes:
    """An XGBoost binary:logistic model of one tree that is one leaf."""
    tree = {
        "base_weights": [value], "categories": [], "categories_nodes": [],
        "categories_segments": [], "categories_sizes": [], "default_left": [0], "id": 0,
        "left_children": [-1], "loss_changes": [0.0], "parents": [2147483647],
        "right_children": [-1], "split_conditions": [value], "split_indices": [0],
        "split_type": [0], "sum_hessian": [1.0],
        "tree_param": {"num_deleted": "0", "num_feature": "1", "num_nodes": "1",
                       "size_leaf_vector": "1"},
    }  # fmt: skip
    doc = {
        "learner": {
            "attributes": {}, "feature_names": [], "feature_types": [],
            "gradient_booster": {"model": {
                "gbtree_model_param": {"num_parallel_tree": "1", "num_trees": "1"},
                "iteration_indptr": [0, 1], "tree_info": [0], "trees": [tree]},
                "name": "gbtree"},
            "learner_model_param": {"base_score": base_score, "boost_from_average": "1",
                                    "num_class": "0", "num_feature": "1", "num_target": "1"},
            "objective": {"name": "binary:logistic", "reg_loss_param": {"scale_pos_weight": "1"}},
        },
        "version": [3, 0, 0],
    }  # fmt: skip
    return json.dumps(doc).encode()


@pytest.mark.slow
def test_xgboost_cut_is_where_its_sigmoid_passes_half() -> None:
    """Margins around the cut, each a one-leaf model's: XGBoost's predict and treegen's
    class agree on every one (both sides of the cut are reached)."""
    cut = libm.xgboost_cut()
    seen = set()
    for m in _around(cut, np.float32):
        data = _xgb_leaf_model(m, "[5E-1]")
        booster = xgb.Booster()
        booster.load_model(bytearray(data))
        x = np.zeros((1, 1), dtype=np.float32)
        lib = int(booster.inplace_predict(x)[0] > 0.5)
        ens = from_xgboost(data).value
        assert float(booster.inplace_predict(x, predict_type="margin")[0]) == m
        assert int(classify.predict(ens, x)[0]) == lib
        seen.add(lib)
    assert seen == {0, 1}


@pytest.mark.parametrize("base", ["[3.0333334E-1]", "[9.9E-1]", "[1E-9]", "7.3E-1"])
def test_xgboost_base_margin_equals_its_own(base: str) -> None:
    """binary:logistic's base_score becomes XGBoost's margin (-logf(1/p - 1), clamped),
    bit for bit: the margin of a zero leaf is the base margin."""
    data = _xgb_leaf_model(0.0, base)
    booster = xgb.Booster()
    booster.load_model(bytearray(data))
    x = np.zeros((1, 1), dtype=np.float32)
    margin = booster.inplace_predict(x, predict_type="margin")[0]
    ens = from_xgboost(data).value
    assert same_bits(classify.raw_scores(ens, x)[:, 0], np.asarray([margin], dtype=np.float64))


def _lgb_leaf_model(value: float, sigmoid: float) -> str:
    head = (
        "tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"
        f"max_feature_idx=0\nobjective=binary sigmoid:{sigmoid!r}\nfeature_names=x\n"
        "feature_infos=none\ntree_sizes=1\n\n"
    )
    tree = (
        f"Tree=0\nnum_leaves=1\nnum_cat=0\nsplit_feature=\nsplit_gain=\nthreshold=\n"
        f"decision_type=\nleft_child=\nright_child=\nleaf_value={value!r}\nleaf_weight=1\n"
        "leaf_count=1\ninternal_value=\ninternal_weight=\ninternal_count=\nis_linear=0\n"
        "shrinkage=1\n\n\nend of trees\n\nfeature_importances:\n\nparameters:\n"
        "end of parameters\n\npandas_categorical:null\n"
    )
    return head + tree


@pytest.mark.parametrize("sigmoid", [1.0, 0.7, 3.0])
def test_lightgbm_cut_is_where_its_decision_flips(sigmoid: float) -> None:
    cut = libm.lightgbm_cut(sigmoid)
    seen = set()
    for m in _around(cut, np.float64):
        text = _lgb_leaf_model(m, sigmoid)
        booster = lgb.Booster(model_str=text)
        x = np.zeros((1, 1))
        p = booster.predict(x)[0]
        lib = int(np.argmax([1.0 - p, p]))
        ens = from_lightgbm(text).value
        assert int(classify.predict(ens, x)[0]) == lib
        seen.add(lib)
    assert seen == {0, 1}


def test_exact_rounding_fallback_against_the_c_library() -> None:
    """Without a loadable libm, expf and logf round the exact value.  glibc's expf
    equals that at the cut and at random arguments; its logf is not correctly rounded
    (logf(0.989713) is one ulp off), which is why the base margin is computed with the
    C library's own logf where it can be loaded."""
    rng = np.random.default_rng(0)
    xs = [np.float32(v) for v in rng.normal(size=300)] + [np.float32(-libm.xgboost_cut())]
    for x in xs:
        assert libm.expf(x) == libm._exact("exp", x)
    for x in (np.float32(abs(v)) for v in rng.normal(size=300)):
        exact, lib = libm._exact("ln", x), libm.logf(x)
        assert lib in (
            exact,
            np.nextafter(exact, np.float32(-1)),
            np.nextafter(exact, np.float32(1)),
        )
    assert libm.logf(np.float32(0.989713)) != libm._exact("ln", np.float32(0.989713))


def test_best_iteration_and_explicit_rounds() -> None:
    X, y = gbm_data()
    est = xgb.XGBClassifier(
        n_estimators=60, max_depth=3, n_jobs=1, early_stopping_rounds=3, eval_metric="logloss"
    ).fit(X[:1000], y[:1000] > 0, eval_set=[(X[1000:], y[1000:] > 0)], verbose=False)
    assert est.best_iteration < 59
    ens = from_xgboost(est).value
    assert len(ens.trees) == est.best_iteration + 1
    assert np.array_equal(classify.predict(ens, X), est.predict(X))
    few = from_xgboost(est, iterations=2).value
    assert len(few.trees) == 2
    lgbm = fit_lightgbm("lgb_multi")
    three = from_lightgbm(lgbm, iterations=3).value
    assert len(three.trees) == 9
    assert np.array_equal(classify.predict(three, X), lgbm.predict(X, num_iteration=3))


def test_classifier_labels_are_kept() -> None:
    import lightgbm

    X, y = gbm_data()
    labels = np.array(["low", "mid", "high"])[y]
    est = lightgbm.LGBMClassifier(n_estimators=5, verbose=-1, n_jobs=1).fit(X, labels)
    model = from_lightgbm(est)
    assert list(model.classes_) == list(est.classes_)
    assert np.array_equal(model.predict(X), est.predict(X))


def test_pandas_categories_become_nominal_codes() -> None:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    n = 800
    names = ["red", "green", "blue", "cyan", "pink"]
    frame = pd.DataFrame({"a": rng.normal(size=n), "colour": pd.Categorical(rng.choice(names, n))})
    y = ((frame.a > 0) ^ frame.colour.isin(["red", "blue"])).astype(int)
    for est in (
        xgb.XGBClassifier(n_estimators=4, max_depth=3, enable_categorical=True,
                          max_cat_to_onehot=1).fit(frame, y),
        lgb.LGBMClassifier(n_estimators=4, verbose=-1, min_data_per_group=5).fit(frame, y),
    ):  # fmt: skip
        model = from_xgboost(est) if hasattr(est, "get_booster") else from_lightgbm(est)
        colour = model.value.schema.attributes[1]
        assert colour.kind == "nominal" and set(colour.values) == set(names)
        codes = np.asarray([colour.values.index(c) for c in frame.colour], dtype=float)
        X = np.column_stack([frame.a.to_numpy(), codes])
        assert np.array_equal(classify.predict(model.value, X), est.predict(frame))


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_xgboost_fitted_with_another_missing_value_is_refused(kind: str) -> None:
    """XGBClassifier(missing=0.0) reads 0.0 as missing in predict; the value is the
    wrapper's, not the model's, and treegen's C reads only NaN as missing: refused, in
    one line naming the parameter (the same model through its Booster or file is the
    caller's to match)."""
    from treegen.errors import UsageError

    X, y = gbm_data()
    X = np.nan_to_num(np.round(X))
    common = {"n_estimators": 2, "max_depth": 2, "n_jobs": 1, "missing": 0.0}
    est = (
        xgb.XGBClassifier(**common).fit(X, y > 0)
        if kind == "classifier"
        else xgb.XGBRegressor(**common).fit(X, y * 1.0)
    )
    with pytest.raises(UsageError, match=r"missing=0\.0") as info:
        from_xgboost(est)
    assert "\n" not in str(info.value)
    # The default (NaN) imports.
    from_xgboost(xgb.XGBClassifier(**{**common, "missing": np.nan}).fit(X, y > 0))


def test_xgboost_pandas_number_categories_become_nominal_codes() -> None:
    """A DataFrame column of categories that are numbers (not text): XGBoost 3.1+ keeps
    them in the file as numbers and its predict reads the category's index, as for text
    categories; they become the nominal values' names, in XGBoost's order."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    n = 800
    levels = [-2, 1, 4, 7, 10, 13]
    frame = pd.DataFrame({"a": rng.normal(size=n), "c": pd.Categorical(rng.choice(levels, n))})
    y = ((frame.a > 0) ^ frame.c.isin([1, 7])).astype(int)
    est = xgb.XGBClassifier(n_estimators=4, max_depth=3, enable_categorical=True,
                            max_cat_to_onehot=1, n_jobs=1).fit(frame, y)  # fmt: skip
    model = from_xgboost(est)
    c = model.value.schema.attributes[1]
    assert c.kind == "nominal" and c.values == tuple(str(v) for v in levels)
    X = np.column_stack([frame.a.to_numpy(), frame.c.cat.codes.to_numpy(dtype=float)])
    assert any(any(t.categorical) for t in model.value.trees)
    assert np.array_equal(classify.predict(model.value, X), est.predict(frame))
    margin = est.predict(frame, output_margin=True).reshape(n, -1).astype(np.float64)
    assert same_bits(classify.scores(model.value, X), margin)


def test_lightgbm_forest_scores_are_its_raw_score_averaged() -> None:
    """In random forest mode LightGBM's ``raw_score=True`` is the sum before its
    division by the rounds; the scores ``--scores`` exports (decision_values) are that
    sum divided once, which ``predict`` decides on (docs/gbm.md)."""
    est = fit_lightgbm("lgb_rf")
    ens: Ensemble = from_lightgbm(est).value
    X, _ = gbm_data()
    raw = est.predict(X, raw_score=True).reshape(len(X), -1)
    assert ens.divisor == 12.0
    assert not same_bits(classify.decision_values(ens, X), raw)
    assert same_bits(classify.decision_values(ens, X), raw / ens.divisor)


@pytest.mark.parametrize("objective", ["binary:logitraw", "binary:hinge"])
def test_xgboost_logitraw_and_hinge_proba_are_its_own(objective: str) -> None:
    """XGBClassifier.predict_proba of a logitraw model is [1 - m, m] for m the margin,
    of a hinge model [1 - p, p] for p = 1 where the margin is above 0: treegen's are
    those numbers bit for bit (a sigmoid of the margin was neither, and for logitraw
    its larger column was not the class predict gives for margins in (0, 0.5])."""
    X, y = gbm_data()
    est = xgb.XGBClassifier(n_estimators=6, max_depth=3, objective=objective, n_jobs=1)
    est.fit(X, y > 0)
    model = from_xgboost(est)
    rows = probe_rows(X, xgb_thresholds(est.get_booster()))
    rows = rows[np.isfinite(rows).all(axis=1) | np.isnan(rows).any(axis=1)]
    got = model.predict_proba(rows)
    assert same_bits(got, est.predict_proba(rows).astype(np.float64))
    assert np.array_equal(model.classes_[np.argmax(got, axis=1)], model.predict(rows))
    assert 0 < (got[:, 1] > 0.5).sum() < len(rows)


def _xgb_three_margins(objective: str, margins: list[np.float32]) -> bytes:
    """A 3-class XGBoost model of one round whose trees answer ``margins`` for every row
    (base scores 0)."""
    X = np.random.default_rng(1).normal(size=(90, 2)).astype(np.float32)
    est = xgb.XGBClassifier(n_estimators=1, max_depth=1, objective=objective, n_jobs=1)
    d = json.loads(bytes(est.fit(X, np.arange(90) % 3).get_booster().save_raw("json")))
    d["learner"]["learner_model_param"]["base_score"] = "[0E0,0E0,0E0]"
    for tree, m in zip(d["learner"]["gradient_booster"]["model"]["trees"], margins, strict=True):
        for key in ("split_conditions", "base_weights"):
            tree[key] = [tree[key][0], float(m), float(m)]
    return json.dumps(d).encode()


def _lgb_three_scores(scores: list[float]) -> str:
    """A 3-class LightGBM model of one round whose trees answer ``scores`` for every row."""
    X = np.random.default_rng(1).normal(size=(90, 2))
    est = lgb.LGBMClassifier(n_estimators=1, num_leaves=2, verbose=-1, n_jobs=1)
    lines = []
    values = iter(scores)
    for ln in est.fit(X, np.arange(90) % 3).booster_.model_to_string().splitlines():
        if ln.startswith("tree_sizes="):
            continue  # the edited trees' sizes change; LightGBM reads them without it
        if ln.startswith("leaf_value="):
            v = next(values)
            ln = f"leaf_value={v!r} {v!r}"
        lines.append(ln)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("near", [0.0, 0.01, 0.3])
def test_a_multiclass_near_tie_is_the_documented_exception(near: float) -> None:
    """docs/gbm.md, near ties: softprob's and LightGBM's predict take the first largest
    probability, which for margins this close is the earlier class; treegen (no exp in
    the C) and multi:softmax take the larger margin.  XGBoost's margins one float32 ulp
    apart at 1.0 have distinct probabilities: there every one takes the larger."""
    row = np.zeros((1, 2), dtype=np.float32)
    for a, earlier in ((np.float32(near), True), (np.float32(1.0), False)):
        b = np.nextafter(a, np.float32(2))
        for objective in ("multi:softprob", "multi:softmax"):
            data = _xgb_three_margins(objective, [a, b, np.float32(-1)])
            est = xgb.XGBClassifier()
            est.load_model(bytearray(data))
            ours = from_xgboost(data).predict(row)
            assert list(ours) == [1]
            first = earlier and objective == "multi:softprob"
            assert list(est.predict(row)) == [0 if first else 1]
    a64 = near
    b64 = float(np.nextafter(a64, 2.0))
    text = _lgb_three_scores([a64, b64, -1.0])
    assert list(from_lightgbm(text).predict(row)) == [1]
    assert list(lgb.Booster(model_str=text).predict(row.astype(np.float64)).argmax(axis=1)) == [0]


@pytest.mark.parametrize("accelerated", [True, False])
@pytest.mark.parametrize("name", ["xgb_binary", "xgb_multi", "xgb_softmax", "xgb_cat", *LGB_SETUPS])
def test_predict_proba_is_the_librarys_own(
    name: str, accelerated: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Model.predict_proba equals the classifier's predict_proba bit for bit: XGBoost's
    float32 sigmoid and softmax through the C library's expf (multi:softmax's through
    scipy's softmax, as XGBClassifier.predict_proba computes it), LightGBM's double ones
    through the C library's exp.  XGBoost's were numpy's float64 sigmoid and softmax of
    the margins, a few float32 ulps away in every row.  Without the accelerator
    (``accelerated`` False: not built, or TREEGEN_NO_NATIVE) ``libm.c_library_exp`` calls
    the C library once per distinct value instead of ``libm_exp`` once: the same bits,
    and the same LightGBM binary cut (computed on import)."""
    if not accelerated:
        monkeypatch.setattr(native, "cclassify", None)
    est = fit_xgboost(name) if name.startswith("xgb") else fit_lightgbm(name)
    model = from_xgboost(est) if name.startswith("xgb") else from_lightgbm(est)
    X, _ = gbm_data()
    if name.startswith("xgb"):
        rows = probe_rows(X, xgb_thresholds(est.get_booster()))
    else:
        rows = probe_rows(X, lgb_thresholds(est.booster_))
    rows = rows[np.isfinite(rows).all(axis=1) | np.isnan(rows).any(axis=1)]
    assert same_bits(model.predict_proba(rows), est.predict_proba(rows).astype(np.float64))


def test_c_library_exp_without_the_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    """``libm.c_library_exp``'s fallback (one C library call per distinct value) gives the
    accelerator's bits, type and shape, infinities and overflow included."""
    if native.cclassify is None:
        pytest.skip("the C accelerator is not built (or TREEGEN_NO_NATIVE is set)")
    rng = np.random.default_rng(3)
    edges = [0.0, -0.0, np.inf, -np.inf, 88.7, -88.7, 709.78, 710.0, -745.1, -746.0]
    x64 = np.concatenate([rng.normal(0, 300, 2000), edges]).reshape(-1, 2)
    x32 = np.concatenate([rng.normal(0, 30, 2000), edges]).astype(np.float32).reshape(-1, 2)
    fast = [libm.c_library_exp(x64), libm.c_library_exp(x32), libm.lightgbm_cut(0.7)]
    monkeypatch.setattr(native, "cclassify", None)
    slow = [libm.c_library_exp(x64), libm.c_library_exp(x32), libm.lightgbm_cut(0.7)]
    assert slow[0].dtype == np.float64 and slow[1].dtype == np.float32
    assert slow[0].shape == x64.shape and slow[1].shape == x32.shape
    assert fast[0].dtype == np.float64 and fast[1].dtype == np.float32
    assert same_bits(slow[0], fast[0]) and same_bits(slow[1], fast[1])
    assert slow[2] == fast[2]
