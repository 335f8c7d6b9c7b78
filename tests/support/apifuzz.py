"""The pieces of the Python API's argument fuzz (tests/api/test_api_fuzz.py): the pool
of hostile values and the public entry points with arguments that work.

An entry point is a :class:`Entry`: a name, its valid keyword arguments (built fresh
for each case from the :class:`Fixtures`) and the keywords a case may replace with a
hostile value (or add: a keyword the call does not give unless drawn).  A case calls
it with one to three of them replaced, or an unknown keyword added.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

import treegen

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"


def _frame() -> object:
    import pandas as pd

    return pd.DataFrame({"a": [1.0, 2.0], "b": ["u", "v"]})


def _series() -> object:
    import pandas as pd

    return pd.Series([1.0, np.nan, 3.0], name="s")


# Each value made afresh for a case (a call may keep or change a list it is given).
HOSTILE: dict[str, Callable[[], object]] = {
    "None": lambda: None,
    "True": lambda: True,
    "False": lambda: False,
    "0": lambda: 0,
    "-1": lambda: -1,
    "2": lambda: 2,
    "10**400": lambda: 10**400,
    "-10**400": lambda: -(10**400),
    "2**63": lambda: 2**63,
    "nan": lambda: float("nan"),
    "inf": lambda: float("inf"),
    "-inf": lambda: float("-inf"),
    "-0.0": lambda: -0.0,
    "0.5": lambda: 0.5,
    "1e308": lambda: 1e308,
    "5e-324": lambda: 5e-324,
    "float16(1.5)": lambda: np.float16(1.5),
    "float32(nan)": lambda: np.float32("nan"),
    "uint64(max)": lambda: np.uint64(2**64 - 1),
    "int8(-1)": lambda: np.int8(-1),
    "complex(1+1j)": lambda: np.complex128(1 + 1j),
    "bool_(True)": lambda: np.bool_(True),
    "''": lambda: "",
    "'x'": lambda: "x",
    "'1e999'": lambda: "1e999",
    "'0.25'": lambda: "0.25",
    "'-1'": lambda: "-1",
    "'a\\x00b'": lambda: "a\x00b",
    "b'x'": lambda: b"x",
    "[]": lambda: [],
    "[[]]": lambda: [[]],
    "[['a']]": lambda: [["a"]],
    "('a', 'b')": lambda: ("a", "b"),
    "[1, 2, 3]": lambda: [1, 2, 3],
    "[-1]": lambda: [-1],
    "[10**400]": lambda: [10**400],
    "[None]": lambda: [None],
    "{}": lambda: {},
    "{'a': 1}": lambda: {"a": 1},
    "{0: ['x']}": lambda: {0: ["x"]},
    "{1, 2}": lambda: {1, 2},
    "object()": lambda: object(),
    "array(object)": lambda: np.array([[None, "a", 1.5]] * 3, dtype=object),
    "array(datetime64)": lambda: np.array(["2020-01-01"] * 3, dtype="datetime64[D]"),
    "array(bool 3x3)": lambda: np.ones((3, 3), dtype=bool),
    "array(empty)": lambda: np.zeros((0,)),
    "array(0x3)": lambda: np.zeros((0, 3)),
    "array(2x2x2)": lambda: np.zeros((2, 2, 2)),
    "array(str)": lambda: np.array(["a", "b", "c"]),
    "array(1e308 x 3)": lambda: np.full((3, 3), 1e308),
    "array(inf)": lambda: np.array([[np.inf, 0.0, 1.0]]),
    "array(float16)": lambda: np.ones((4, 3), dtype=np.float16),
    "array(uint64 max)": lambda: np.full((4, 3), 2**64 - 1, dtype=np.uint64),
    "array(complex)": lambda: np.ones((2, 3), dtype=complex),
    "DataFrame": _frame,
    "Series": _series,
    "Path(missing)": lambda: Path("missing.file"),
    "Path(folder)": lambda: Path("."),
    "'/dev/null'": lambda: "/dev/null",
}


# Values that work for a keyword (some only with others: folds with reduced-error
# pruning), drawn instead of a hostile one at times, so that a case reaches past the
# first check into the combinations.
PLAUSIBLE: dict[str, tuple[object, ...]] = {
    "min_cases": (1, 5, np.int64(3)), "cf": (0.1, 0.5, np.float32(0.25)),
    "prune": (False, "reduced-error", np.True_), "subsets": (True,), "criterion": ("gain",),
    "flavor": ("j48",), "max_depth": (0, 2), "min_gain_ratio": (0.1,), "folds": (2, 4),
    "seed": (3, 0), "nominal": ([2], ["outlook"]), "feature_names": (["a", "b", "c"],),
    "class_names": (["no", "yes"],), "target": ("t", "play"), "ignore": (["windy"],),
    "categories": ({2: ["u", "v", "w"]},), "engine": ("dfs",), "boost": (2,), "bag": (2,),
    "bag_seed": (3,), "weights": (np.ones(40), np.arange(40.0)), "style": ("table",),
    "input_type": ("int16", "uint8", "double"), "float_compare": ("int",),
    "scale": (10, 0.5), "feature_scales": ({"x0": 4},), "missing_value": (-1, 0),
    "missing": ("none",), "proba": (True, False), "scores": (True,), "inline_top": (2,),
    "prefix": ("m_",), "name": ("model",), "n_random": (0, 3), "cc": ("gcc",),
    "sample_weight": (np.ones(40), np.full(40, 1 / 40)), "path": ("sub/m.tree",),
    "out_dir": ("o",), "iterations": (1, 2), "X": ({"x0": [1.0], "x1": [np.nan], "x2": [0.0]},),
}  # fmt: skip


N = 40  # the fixtures' rows

# Hostile values of the shape a keyword takes (one per row of the fixtures' 40, or
# rows of 3 features), so that they pass the shape checks and meet the value checks.
SHAPED: dict[str, tuple[Callable[[], object], ...]] = {
    "y": (
        lambda: [10**400] * (N // 2) + [1] * (N // 2),
        lambda: np.full(N, np.nan),
        lambda: np.array([1e308, -1e308] * (N // 2)),
        lambda: [None, "a"] * (N // 2),
        lambda: [1, "1"] * (N // 2),
        lambda: np.array([True, False] * (N // 2)),
        lambda: np.array([b"x", b"\xff"] * (N // 2)),
        lambda: np.array([0.5, 1.5] * (N // 2), dtype=np.float16),
        lambda: np.array([2**64 - 1, 0] * (N // 2), dtype=np.uint64),
        lambda: np.array([1 + 1j, 0] * (N // 2)),
        lambda: [(1, 2), (3,)] * (N // 2),
        lambda: np.zeros(N, dtype="datetime64[s]"),
    ),
    "X": (
        lambda: np.full((N, 3), np.inf),
        lambda: np.full((N, 3), 1e308),
        lambda: np.full((N, 3), 5e-324),
        lambda: [[10**400, 1, 2]] * N,
        lambda: np.full((N, 3), "1e999"),
        lambda: np.full((N, 3), None),
        lambda: np.ones((N, 3), dtype=np.float16),
        lambda: np.full((N, 3), 2**64 - 1, dtype=np.uint64),
        lambda: [[1.0, 2.0]] * N,
        lambda: [{"a": 1}] * N,
    ),
    "weights": (
        lambda: np.full(N, np.nan),
        lambda: np.full(N, -1.0),
        lambda: np.full(N, 1e308),
        lambda: np.full(N, 5e-324),
        lambda: [10**400] * N,
        lambda: np.zeros(N),
        lambda: ["1"] * N,
    ),
}
SHAPED["data"] = SHAPED["then_X"] = SHAPED["X"]
SHAPED["sample_weight"] = SHAPED["weights"]


@dataclass
class Fixtures:
    """What the entry points' valid arguments are made of, built once per test module."""

    X: npt.NDArray[np.float64]
    y: npt.NDArray[np.int64]
    models: dict[str, treegen.Model]
    model_file: str
    estimator: Any  # a fitted scikit-learn DecisionTreeClassifier
    folder: Path
    gbm_files: dict[str, str] = field(default_factory=dict)

    def gbm_file(self, library: str) -> str:
        """A small model file of ``library`` (xgboost, lightgbm), made when first asked
        for: the two libraries take seconds to import, most runs draw neither."""
        if library not in self.gbm_files:
            path = self.folder / ("m.json" if library == "xgboost" else "m.txt")
            y = self.y
            if library == "xgboost":
                import xgboost

                xgboost.XGBClassifier(n_estimators=3, max_depth=2).fit(self.X, y).save_model(path)
            else:
                import lightgbm

                model = lightgbm.LGBMClassifier(n_estimators=3, min_child_samples=2, verbose=-1)
                model.fit(self.X, y).booster_.save_model(path)
            self.gbm_files[library] = str(path)
        return self.gbm_files[library]


@dataclass(frozen=True)
class Entry:
    """A public entry point: ``call(fx, kwargs)`` runs it; ``valid(fx, rng)`` its
    keywords that work; ``hostile`` the keywords a case may give a hostile value;
    ``weight`` how often it is drawn."""

    name: str
    call: Callable[[Fixtures, dict[str, Any]], object]
    valid: Callable[[Fixtures, np.random.Generator], dict[str, Any]]
    hostile: tuple[str, ...]
    weight: float = 1.0
    # Takes **keywords, so an unknown one is its own error to raise (elsewhere
    # Python's TypeError for a keyword the signature lacks, before the call runs).
    open_keywords: bool = False


def make_fixtures(folder: Path) -> Fixtures:
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(5)
    X = rng.normal(size=(N, 3))
    X[::7, 1] = np.nan
    y = np.where(X[:, 0] + 0.3 * X[:, 2] > 0, 1, 0)
    models = {
        "tree": treegen.train(X, y),
        "rules": treegen.train_rules(X, y),
        "bag": treegen.train(X, y, bag=2),
        "golf": treegen.train(f"{GOLF}.names"),
    }
    est = DecisionTreeClassifier(max_depth=3, random_state=0).fit(np.nan_to_num(X), y)
    models["sklearn"] = treegen.from_sklearn(est)
    model_file = str(models["tree"].save(folder / "m.tree").path)
    return Fixtures(X, y, models, model_file, est, folder)


def _model(fx: Fixtures, kw: dict[str, Any]) -> treegen.Model:
    return fx.models[kw.pop("_model")]


def _pick_model(rng: np.random.Generator) -> str:
    return str(rng.choice(["tree", "rules", "bag", "sklearn", "golf"]))


def _rows(fx: Fixtures, model: str) -> object:
    return f"{GOLF}.data" if model == "golf" else fx.X[:5]


def _train_valid(fx: Fixtures, rng: np.random.Generator) -> dict[str, Any]:
    if rng.random() < 0.3:
        return {"data": f"{GOLF}.names"}
    return {"data": fx.X, "y": fx.y}


_TRAIN_KEYWORDS = (
    "min_cases", "cf", "prune", "subsets", "criterion", "flavor", "max_depth",
    "min_gain_ratio", "folds", "seed", "target", "feature_names", "nominal", "class_names",
    "ignore", "categories", "weight_column", "options", "engine", "validation", "boost",
    "bag", "bag_seed", "weights",
)  # fmt: skip

_EXPORT_KEYWORDS = (
    "style", "input_type", "float_compare", "scale", "feature_scales", "missing_value",
    "missing", "proba", "scores", "inline_top", "prefix", "name", "options",
)  # fmt: skip

_ESTIMATOR_PARAMETERS = (
    "cf", "min_cases", "criterion", "flavor", "subsets", "prune", "nominal", "engine",
    "max_depth", "min_gain_ratio", "folds", "seed",
)  # fmt: skip


def _predict(method: str) -> Callable[[Fixtures, dict[str, Any]], object]:
    def run(fx: Fixtures, kw: dict[str, Any]) -> object:
        return getattr(_model(fx, kw), method)(**kw)

    return run


def _with_model(
    rng_kw: Callable[[Fixtures, str, np.random.Generator], dict[str, Any]],
) -> Callable[[Fixtures, np.random.Generator], dict[str, Any]]:
    def valid(fx: Fixtures, rng: np.random.Generator) -> dict[str, Any]:
        model = _pick_model(rng)
        return {"_model": model, **rng_kw(fx, model, rng)}

    return valid


def _estimator(fx: Fixtures, kw: dict[str, Any]) -> object:
    """C45Classifier(**parameters).fit(X, y, sample_weight), then predict or
    predict_proba or score on ``then_X``."""
    params = {k: kw.pop(k) for k in list(kw) if k in _ESTIMATOR_PARAMETERS or k == "bogus"}
    then = kw.pop("then")
    then_X = kw.pop("then_X")
    clf = treegen.C45Classifier(**params).fit(**kw)
    if then == "score":
        return clf.score(then_X, fx.y[: len(then_X)] if hasattr(then_X, "__len__") else fx.y)
    return getattr(clf, then)(then_X)


def _importer(library: str) -> Entry:
    """``treegen.from_xgboost`` or ``from_lightgbm`` on a model file of ``library``."""
    load = getattr(treegen, f"from_{library}")
    return Entry(
        f"treegen.from_{library}",
        lambda fx, kw: load(**kw),
        lambda fx, rng: {"model": fx.gbm_file(library)},
        ("model", "iterations", "feature_names", "target"),
        weight=0.5,
    )


ENTRIES: tuple[Entry, ...] = (
    Entry(
        "treegen.train",
        lambda fx, kw: treegen.train(**kw),
        _train_valid,
        ("data", "y", *_TRAIN_KEYWORDS),
        weight=3.0,
        open_keywords=True,
    ),
    Entry(
        "treegen.train_rules",
        lambda fx, kw: treegen.train_rules(**kw),
        _train_valid,
        (
            "data",
            "y",
            "min_cases",
            "cf",
            "subsets",
            "criterion",
            "target",
            "feature_names",
            "nominal",
            "class_names",
            "ignore",
            "categories",
        ),  # fmt: skip
        weight=2.0,
        open_keywords=True,
    ),
    Entry(
        "treegen.load",
        lambda fx, kw: treegen.load(**kw),
        lambda fx, rng: {"path": fx.model_file},
        ("path",),
    ),  # fmt: skip
    Entry(
        "Model.predict",
        _predict("predict"),
        _with_model(lambda fx, m, rng: {"X": _rows(fx, m)}),
        ("X",),
        weight=2.0,
    ),
    Entry(
        "Model.predict_proba",
        _predict("predict_proba"),
        _with_model(lambda fx, m, rng: {"X": _rows(fx, m)}),
        ("X",),
    ),
    Entry(
        "Model.save",
        _predict("save"),
        _with_model(lambda fx, m, rng: {"path": "saved.tree"}),
        ("path",),
        weight=0.5,
    ),
    Entry(
        "Model.export_options",
        _predict("export_options"),
        _with_model(lambda fx, m, rng: {}),
        _EXPORT_KEYWORDS,
        weight=2.0,
        open_keywords=True,
    ),
    Entry(
        "Model.export_c",
        _predict("export_c"),
        _with_model(lambda fx, m, rng: {"out_dir": "out"}),
        ("out_dir", *_EXPORT_KEYWORDS),
        weight=2.0,
        open_keywords=True,
    ),
    Entry(
        "Model.verify",
        _predict("verify"),
        _with_model(lambda fx, m, rng: {"n_random": 5}),
        ("data", "n_random", "seed", "cc", *_EXPORT_KEYWORDS),
        weight=0.4,
        open_keywords=True,
    ),
    Entry(
        "C45Classifier",
        _estimator,
        lambda fx, rng: {
            "X": fx.X,
            "y": fx.y,
            "then": str(rng.choice(["predict", "predict_proba", "score"])),
            "then_X": fx.X[:6],
        },
        ("X", "y", "sample_weight", "then_X", *_ESTIMATOR_PARAMETERS),
        weight=2.0,
    ),
    _importer("xgboost"),
    _importer("lightgbm"),
    Entry(
        "treegen.from_sklearn",
        lambda fx, kw: treegen.from_sklearn(**kw),
        lambda fx, rng: {"estimator": fx.estimator},
        ("estimator", "feature_names", "target"),
    ),
)


def draw(rng: np.random.Generator, fx: Fixtures) -> tuple[Entry, dict[str, Any], dict[str, str]]:
    """A case's entry point, its keyword arguments, and the hostile ones by name
    (keyword -> the hostile value's label; ``bogus`` is a keyword no call takes)."""
    weights = np.array([e.weight for e in ENTRIES])
    entry = ENTRIES[int(rng.choice(len(ENTRIES), p=weights / weights.sum()))]
    kwargs = entry.valid(fx, rng)
    labels = list(HOSTILE)
    changed: dict[str, str] = {}
    for _ in range(int(rng.integers(1, 4))):
        if entry.open_keywords and rng.random() < 0.1:
            key = "bogus"
        else:
            key = str(entry.hostile[int(rng.integers(len(entry.hostile)))])
        good, shaped = PLAUSIBLE.get(key, ()), SHAPED.get(key, ())
        if shaped and rng.random() < 0.4:
            k = int(rng.integers(len(shaped)))
            kwargs[key], changed[key] = shaped[k](), f"SHAPED[{key!r}][{k}]"
        elif good and rng.random() < 0.4:
            value = good[int(rng.integers(len(good)))]
            kwargs[key], changed[key] = value, f"{value!r:.40}"
        else:
            label = labels[int(rng.integers(len(labels)))]
            kwargs[key], changed[key] = HOSTILE[label](), label
    return entry, kwargs, changed
