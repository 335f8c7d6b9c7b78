"""Random ensembles built directly, for the export fuzz (tests/ensemble/test_ensemble_fuzz.py).

A case is ``(seed, index)``: every draw comes from ``numpy.random.default_rng([seed,
index])``, so a failure is reproduced by its id alone.  :func:`random_ensemble` draws an
:class:`~treegen.ensemble.core.Ensemble` of one of the arithmetics the format has (a
forest's mean probabilities, gradient boosting's sums with a baseline, HistGradientBoosting's
float64 tests and categorical bitsets, AdaBoost's weighted votes, XGBoost's float32 sums,
LightGBM's zero band and categories, a regressor's values, an IsolationForest's path
lengths), with what stresses the C: stumps and one-leaf trees, deep trees, many unused
features, thresholds at float32's extremes and between float32 numbers, leaf values
with exact ties, -0.0, subnormals and huge numbers.  The ensemble goes through the file
format's own check (:func:`~treegen.ensemble.file.check_ensemble_dict`), so every case is
one a user's file could hold.  :func:`random_options` draws an export mode
(tests/support/ensemble_batch.py compiles and compares the exports).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from treegen.codegen.options import ExportOptions
from treegen.ensemble.core import LEAF, Ensemble, Tree
from treegen.ensemble.file import check_ensemble_dict, ensemble_to_json

F32_MAX = float(np.finfo(np.float32).max)
F32_TINY = float(np.float32(1.4e-45))  # the smallest float32 subnormal

KINDS = ("forest", "boosting", "hist", "adaboost", "xgboost", "lightgbm", "regress", "isolation")


def _f32(x: float) -> float:
    """``x`` as a float32 number (beyond float32's range: its largest)."""
    return float(np.float32(np.clip(x, -F32_MAX, F32_MAX)))


def _threshold_pool(rng: np.random.Generator, size: int) -> list[float]:
    """Thresholds a tree may test: extremes, values between float32 numbers, integers."""
    special = [
        F32_MAX,
        -F32_MAX,
        float(np.nextafter(F32_MAX, np.inf)),
        F32_TINY,
        -F32_TINY,
        F32_TINY / 2,
        float("inf"),
        float("-inf"),
        0.0,
        -0.0,
        0.1,
        -0.5,
        0.5,
        1.5,
        2.5,
        127.5,
        255.5,
        -128.5,
        32767.5,
        1e20,
        -1e30,
        1e300,
        float(np.float32(1e-38)),
        1e-300,
        float(np.nextafter(np.float32(1.0), np.float32(2))) - 2**-30,
    ]
    out: list[float] = []
    for _ in range(size):
        r = rng.random()
        if r < 0.3:
            out.append(float(rng.choice(special)))
        elif r < 0.55:
            out.append(float(rng.integers(-300, 300)) + float(rng.choice([0.0, 0.5])))
        elif r < 0.8:
            out.append(float(rng.normal(0, 10.0 ** rng.integers(-3, 4))))
        else:  # halfway between two float32 numbers: no float32 is this threshold
            a = np.float32(rng.normal(0, 100))
            out.append((float(a) + float(np.nextafter(a, np.float32(np.inf)))) / 2)
    return out


def _value(rng: np.random.Generator, scale: float) -> float:
    r = rng.random()
    if r < 0.08:
        return float(rng.choice([0.0, -0.0]))
    if r < 0.12:
        return float(rng.choice([5e-324, -5e-324, 2.2e-308, F32_TINY]))
    if r < 0.15:
        return float(rng.choice([1e300, -1e300, F32_MAX, 1e30]))
    if r < 0.35:
        return float(rng.integers(-4, 5)) * scale / 4  # exact ties between leaves
    return float(rng.normal(0, scale))


@dataclass
class _Draw:
    """What a tree's nodes are drawn from."""

    rng: np.random.Generator
    used: list[int]  # the features the trees test
    pools: dict[int, list[float]]
    cat: dict[int, int]  # categorical feature -> code count
    max_depth: int
    p_leaf: float
    zero_band: bool


@dataclass
class _Node:
    """One drawn node; a leaf until its feature is drawn."""

    feature: int = LEAF
    threshold: float = 0.0
    left: int = LEAF
    right: int = LEAF
    nan_left: bool = False
    categorical: bool = False
    left_codes: tuple[int, ...] = ()
    value: int = LEAF
    zero_missing: bool = False


def _tree(d: _Draw, leaf_row: Any, output: int = -1) -> Tree:
    """A tree drawn depth first (its nodes in pre-order, as the format holds them)."""
    rng = d.rng
    nodes: list[_Node] = []

    def node(depth: int) -> int:
        i = len(nodes)
        n = _Node()
        nodes.append(n)
        if depth >= d.max_depth or (depth > 0 and rng.random() < d.p_leaf):
            n.value = leaf_row()
            return i
        n.feature = f = int(rng.choice(d.used))
        n.nan_left = bool(rng.random() < 0.5)
        if f in d.cat:
            n.categorical = True
            k = d.cat[f]
            size = int(rng.integers(0, k + 1))
            n.left_codes = tuple(sorted(int(c) for c in rng.choice(k, size=size, replace=False)))
        else:
            n.threshold = float(rng.choice(d.pools[f]))
            n.zero_missing = d.zero_band and rng.random() < 0.3
        n.left = node(depth + 1)
        n.right = node(depth + 1)
        return i

    node(0)
    column = {name: tuple(getattr(n, name) for n in nodes) for name in _Node.__dataclass_fields__}
    if not any(column["zero_missing"]):
        column["zero_missing"] = ()
    return Tree(output=output, **column)


def _schema_dict(n_features: int, nominal: dict[int, int], classes: list[str]) -> dict[str, Any]:
    attrs = [
        {"name": f"f{j}", "kind": "nominal", "values": [f"v{c}" for c in range(nominal[j])]}
        if j in nominal
        else {"name": f"f{j}", "kind": "continuous"}
        for j in range(n_features)
    ]
    return {"target": "class", "classes": classes, "attributes": attrs}


def random_ensemble(seed: int, index: int, kind: str | None = None) -> Ensemble:
    """The ensemble of case ``(seed, index)`` (module docstring); ``kind`` one of KINDS."""
    rng = np.random.default_rng([seed, index])
    kind = kind or str(rng.choice(KINDS))
    n_features = int(rng.choice([1, 2, 3, 5, 8, 20, 33, 100, 300]))
    used = sorted({int(f) for f in rng.integers(0, n_features, int(rng.integers(1, 6)))})
    shape = rng.random()
    tall = shape < 0.1  # deep and thin
    wide = 0.1 <= shape < 0.15  # few trees of hundreds to thousands of nodes
    max_depth = (
        int(rng.integers(12, 31))
        if tall
        else int(rng.integers(8, 12))
        if wide
        else int(rng.integers(0, 7))
    )
    p_leaf = 0.75 if tall else 0.12 if wide else float(rng.uniform(0.0, 0.6))
    pools = {f: _threshold_pool(rng, int(rng.integers(1, 8))) for f in used}
    cat_rule = {"hist": "sklearn", "xgboost": "xgboost", "lightgbm": "lightgbm"}.get(kind)
    cat: dict[int, int] = {}
    nominal: dict[int, int] = {}
    categories: list[list[float]] = []
    if cat_rule and rng.random() < 0.4:
        for f in used:
            if rng.random() < 0.5:
                cat[f] = int(rng.choice([1, 2, 5, 31, 32, 33, 64, 255, 256, 300]))
        if cat_rule == "sklearn" and cat and rng.random() < 0.5:
            # numbers read through a category table, or a nominal attribute's codes
            categories = [[] for _ in range(n_features)]
            for f, k in cat.items():
                if rng.random() < 0.5:
                    raw = sorted({float(v) for v in rng.normal(0, 50, k)} | {-0.0})[:k]
                    cat[f] = len(raw)
                    categories[f] = raw
                else:
                    nominal[f] = k
        elif cat_rule == "sklearn":
            nominal = dict(cat)
    n_classes = int(rng.choice([2, 2, 3, 5, 40])) if kind not in ("isolation",) else 2
    n_trees = int(rng.choice([1, 2] if wide else [1, 1, 2, 3, 10, 50, 200]))
    lead = int(rng.integers(0, n_classes)) if rng.random() < 0.5 else None  # a forest's leader
    d = _Draw(rng, used, pools, cat, max_depth, p_leaf, kind == "lightgbm")
    rows: list[list[float]] = []

    def add(row: list[float]) -> int:
        rows.append(row)
        return len(rows) - 1

    doc: dict[str, Any] = {"method": "forest", "compare": "float32", "divisor": None}
    trees: list[Tree] = []
    k = n_classes
    if kind == "forest":

        def proba() -> int:
            r = rng.random()
            if r < 0.25 or (lead is not None and r < 0.7):  # a pure leaf
                row = [0.0] * k
                row[lead if lead is not None and r < 0.6 else int(rng.integers(0, k))] = 1.0
                return add(row)
            n = int(rng.integers(1, 12))
            counts = np.bincount(rng.integers(0, k, n), minlength=k).astype(np.float64)
            if r < 0.4:  # an exact tie
                counts[:] = 0.0
                counts[: min(k, 2)] = 1.0
            return add([float(c) for c in counts / counts.sum()])

        trees = [_tree(d, proba) for _ in range(n_trees)]
        doc.update(decision="argmax", divisor=None if n_trees == 1 else float(n_trees))
        init = [0.0] * k
    elif kind in ("boosting", "hist", "xgboost", "lightgbm"):
        outs = 1 if k == 2 else k
        scale = float(rng.choice([1e-3, 0.1, 1.0, 100.0]))
        f32 = kind == "xgboost"

        def scalar() -> int:
            v = _value(rng, scale)
            return add([_f32(v) if f32 else v])

        trees = [_tree(d, scalar, o) for _ in range(max(1, n_trees // outs)) for o in range(outs)]
        init = [_value(rng, 1.0) for _ in range(outs)]
        if f32:
            init = [_f32(v) for v in init]
        method = {"boosting": "boosting", "hist": "hist"}.get(kind, kind)
        doc.update(method=method)
        if outs > 1:
            doc.update(decision="argmax")
        elif kind == "boosting":
            doc.update(decision="ge0")
        elif kind == "hist":
            doc.update(decision="gt0")
        else:
            cut = float(rng.choice([0.0, 0.0, -1.5, 2.0, 1e-8]))
            doc.update(decision="gt", cut=(_f32(cut) if f32 else cut))
        if kind in ("hist", "lightgbm"):
            doc.update(compare="float64")
        if kind == "lightgbm" and rng.random() < 0.2:
            doc.update(divisor=float(max(1, n_trees // outs)))
        if f32:
            doc.update(sum="float32")
        if cat_rule and cat_rule != "sklearn":
            doc.update(categorical_rule=cat_rule)
    elif kind == "adaboost":
        weights = [abs(_value(rng, 1.0)) or 1.0 for _ in range(n_trees)]
        two = k == 2 and rng.random() < 0.7

        def vote(w: float) -> Any:
            def leaf() -> int:
                c = int(rng.integers(0, k))
                row = [w if j == c else -w / (k - 1) for j in range(k)]
                return add(row)

            return leaf

        trees = [_tree(d, vote(w)) for w in weights]
        doc.update(method="adaboost", decision="diff" if two else "argmax")
        doc.update(divisor=float(np.sum(np.asarray(weights))))
        init = [0.0] * k
    elif kind == "regress":
        k = int(rng.choice([1, 1, 2, 3]))
        scale = float(rng.choice([1e-3, 1.0, 1e6]))
        n_classes = k

        def target() -> int:
            return add([_value(rng, scale) for _ in range(k)])

        init = [0.0] * k
        doc.update(decision="value", divisor=None if n_trees == 1 else float(n_trees))
        if rng.random() < 0.5:  # a forest's mean of vector rows
            trees = [_tree(d, target) for _ in range(n_trees)]
        else:  # gradient boosting: a baseline, then one scalar tree per output and stage

            def scalar_target() -> int:
                return add([_value(rng, scale)])

            hist = rng.random() < 0.5
            trees = [_tree(d, scalar_target, o) for _ in range(n_trees) for o in range(k)]
            init = [_value(rng, scale) for _ in range(k)]
            doc.update(method="hist" if hist else "boosting", divisor=None)
            if hist:
                doc.update(compare="float64")
    else:  # isolation

        def path() -> int:
            return add([float(rng.integers(1, 9)) + float(rng.choice([0.0, 1.0, 2.2, 0.5]))])

        trees = [_tree(d, path) for _ in range(n_trees)]
        init = [0.0]
        denominator = float(n_trees) * float(rng.choice([1.0, 4.3, 8.1]))
        doc.update(
            decision="bound",
            anomaly=[
                denominator.hex(),
                (-0.5).hex(),
                float(n_trees * rng.uniform(2, 8)).hex(),
            ],
        )
    classes = [f"c{j}" for j in range(n_classes)]
    doc.update(
        format="treegen-ensemble", version=1, treegen_version="", data_fingerprint="",
        options={"source": f"fuzz {kind}"}, init=[float(v).hex() for v in init],
        categories=[[float(v).hex() for v in c] for c in categories], values=rows,
        trees=[], **_schema_dict(n_features, nominal, classes),
    )  # fmt: skip
    if doc["divisor"] is not None:
        doc["divisor"] = float(doc["divisor"]).hex()
    if "cut" in doc:
        doc["cut"] = float(doc["cut"]).hex()
    doc["values"] = [[float(v).hex() for v in r] for r in rows]
    doc["trees"] = [_tree_json(t) for t in trees]
    ens = check_ensemble_dict(doc)
    # the file's text gives the same ensemble back (what a saved file would hold)
    assert check_ensemble_dict(json.loads(ensemble_to_json(ens))) == ens
    return ens


def _tree_json(t: Tree) -> dict[str, Any]:
    return {
        "output": t.output, "feature": list(t.feature),
        "threshold": [float(x).hex() for x in t.threshold], "left": list(t.left),
        "right": list(t.right), "nan_left": [int(b) for b in t.nan_left],
        "categorical": [int(b) for b in t.categorical],
        "left_codes": [list(c) for c in t.left_codes], "value": list(t.value),
        **({"zero_missing": [int(b) for b in t.zero_missing]} if t.zero_missing else {}),
    }  # fmt: skip


# ---------------------------------------------------------------------------
# Export modes
# ---------------------------------------------------------------------------

_INT_SCALES = {
    "int8": [None, Fraction(1), Fraction(4)],
    "uint8": [None, Fraction(2)],
    "int16": [None, Fraction(100)],
    "uint16": [None, Fraction(1, 4)],
    "int32": [None, Fraction(1000)],
    "uint32": [None, Fraction(10)],
}


def random_options(rng: np.random.Generator, ens: Ensemble, prefix: str) -> ExportOptions:
    """One export mode: style, input type (scale, sentinel), keys, missing rule, and in
    half the modes the doubles ``ens`` exports (a forest's predict_proba, the others'
    scores; a regressor's values are always exported)."""
    input_type = str(rng.choice(["float"] * 4 + ["double"] * 2 + list(_INT_SCALES)))
    scale = None
    missing_value = None
    if input_type in _INT_SCALES:
        choices = _INT_SCALES[input_type]
        scale = choices[int(rng.integers(0, len(choices)))]
        if input_type.startswith("u"):
            missing_value = int(np.iinfo(input_type).max)
    doubles = rng.random() < 0.5 and not ens.regressor
    forest = ens.method == "forest" and ens.anomaly is None
    style = str(rng.choice(["ifs", "table"]))
    missing = "none" if rng.random() < 0.3 else "c45"
    top = None
    if style == "table" and missing == "none" and len(ens.trees) == 1 and not doubles:
        top = [None, 0, 1, 5, 1000][int(rng.integers(0, 5))]
    per: tuple[tuple[str, Fraction], ...] = ()
    if scale is not None and rng.random() < 0.3:  # one feature at another scale
        name = ens.schema.attributes[int(rng.integers(0, len(ens.schema.attributes)))].name
        per = ((name, scale * 2),)
    return ExportOptions(
        prefix=prefix,
        style=style,  # type: ignore[arg-type]
        input_type=input_type,  # type: ignore[arg-type]
        float_compare="int" if input_type == "float" and rng.random() < 0.3 else "float",
        scale=scale,
        feature_scales=per,
        missing_value=missing_value,
        missing=missing,  # type: ignore[arg-type]
        inline_top=top,
        proba=True if doubles and forest else None,
        scores=doubles and not forest,
    )
