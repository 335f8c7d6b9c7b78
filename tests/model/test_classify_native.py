"""The accelerator's classifier (model/native/classify.c) against the numpy classifier.

``treegen.model.classify.predict`` classifies in C when the accelerator is built (the
training errors ``treegen train`` prints, predict, eval, cv); the numpy code stays
the reference.  Parity is equality of every row's class, on trained trees of both
flavours with missing values, subsets, and inputs the readers never produce (codes
out of range, infinities, values beyond float32's range, values one float32 step
from a threshold).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model import classify, native
from treegen.model.core import ContinuousTest, Leaf, Model, SubsetTest
from treegen.model.options import ModelOptions
from treegen.trainer import TrainOptions, train

needs_native = pytest.mark.skipif(native.cclassify is None, reason="accelerator not built")
NAN = math.nan


def _numpy_predict(model: Model, X: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    with monkeypatch.context() as m:
        m.setattr(native, "cclassify", None)
        return classify.predict(model, X)


def _native_predict(model: Model, X: np.ndarray) -> np.ndarray:
    got = classify._predict_native(model, np.asarray(X, dtype=np.float64))
    assert got is not None, "the accelerator declined the model"
    return got


def _hostile(ds: Dataset, rng: np.random.Generator) -> np.ndarray:
    """``ds.X`` with cells the readers never produce mixed in."""
    X = ds.X.copy()
    for j, a in enumerate(ds.attributes):
        hit = rng.random(X.shape[0]) < 0.03
        if a.is_continuous:
            specials = np.asarray([np.inf, -np.inf, 3.5e38, -3.5e38, 1e300, -0.0])
        else:
            k = len(a.values)
            specials = np.asarray([-1.0, float(k), 0.5, k - 0.5, 1e9, np.inf])
        X[hit, j] = rng.choice(specials, size=int(hit.sum()))
    return X


@needs_native
@pytest.mark.parametrize(
    ("flavor", "subsets"), [("c45", False), ("c45", True), ("j48", False)]
)  # --subsets is Release 8's alone
@pytest.mark.parametrize("seed", range(4))
def test_trained_trees_classify_as_numpy(
    flavor: str, subsets: bool, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen = synthetic.generate(synthetic.random_spec(seed, min_rows=300, max_rows=3000))
    rng = np.random.default_rng(seed)
    X = gen.X.copy()
    X[rng.random(X.shape) < 0.05] = NAN  # rows for the fixed-point pass, in training too
    ds = Dataset(gen.schema, X, gen.y)
    model = train(ds, TrainOptions(flavor=flavor, subsets=subsets, min_cases=2))  # type: ignore[arg-type]
    assert model.size > 1
    for rows in (ds.X, _hostile(ds, rng)):
        expect = _numpy_predict(model, rows, monkeypatch)
        got = _native_predict(model, rows)
        assert got.dtype == expect.dtype
        assert np.array_equal(got, expect)


@pytest.mark.slow
@needs_native
def test_summary_data_unpruned_and_pruned(monkeypatch: pytest.MonkeyPatch) -> None:
    ds = synthetic.generate(synthetic.summary_spec(4000, 3))
    for prune in (False, True):
        model = train(ds, TrainOptions(prune=prune))
        assert np.array_equal(
            _native_predict(model, ds.X), _numpy_predict(model, ds.X, monkeypatch)
        )


SCHEMA = Schema(
    (Attribute("x", "continuous"), Attribute("c", "nominal", ("r", "g", "b", "w"))),
    ("A", "B", "C"),
)


def _hand_model(flavor: str, threshold: float) -> Model:
    # x <= t : c in {r, b} : A ; c = g : empty leaf B ; (w in no subset: unknown)
    # x >  t : C
    nodes = (
        ContinuousTest(
            1, 20.0, 3.0, (7.0, 11.0, 2.0), attribute=0, threshold=threshold, children=(1, 4)
        ),
        SubsetTest(
            0, 8.0, 1.0, (5.0, 1.0, 2.0), attribute=1, subsets=((0, 2), (1,)), children=(2, 3)
        ),
        Leaf(0, 8.0, 1.0, (5.0, 1.0, 2.0)),
        Leaf(1, 0.0, 0.0, (5.0, 1.0, 2.0)),
        Leaf(2, 12.0, 2.0, (1.0, 1.0, 10.0)),
    )
    return Model(SCHEMA, nodes, options=ModelOptions(TrainOptions(flavor=flavor)))


@needs_native
@pytest.mark.parametrize("flavor", ["c45", "j48"])
@pytest.mark.parametrize(
    "threshold",
    # a float32 value; a double between two float32 values (np.float32 rounds it up,
    # the fixed-point bound down); near FLT_MAX; infinite thresholds.
    [2.5, 0.1, float(np.float32(3.4e38)), 3.4028235e38, -3.4e38, math.inf, -math.inf],
)
def test_hand_built_edges_classify_as_numpy(
    flavor: str, threshold: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _hand_model(flavor, threshold)
    t = threshold if math.isfinite(threshold) else 1.0
    with np.errstate(over="ignore"):
        near = [t, float(np.nextafter(np.float32(t), np.float32(np.inf))), float(np.float32(t))]
    near += [math.nextafter(t, -math.inf), math.nextafter(t, math.inf), -0.0, 0.0]
    # FLT_MAX + 2**103 (rounds to infinity as a float32) and just below it.
    limit = 3.4028235677973366e38
    near += [math.inf, -math.inf, NAN, 3.5e38, -3.5e38, limit, math.nextafter(limit, 0.0), 1e308]
    near += [-limit, -math.nextafter(limit, 0.0)]
    codes = [0.0, 1.0, 2.0, 3.0, 4.0, -1.0, 0.5, NAN, math.inf]
    X = np.asarray([[x, c] for x in near for c in codes], dtype=np.float64)
    assert np.array_equal(_native_predict(model, X), _numpy_predict(model, X, monkeypatch))


@needs_native
def test_predict_uses_the_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fast path is taken (so the commands get it): predict's answer is the C's.
    model = _hand_model("c45", 2.5)
    calls: list[int] = []
    real = native.cclassify.classify  # type: ignore[union-attr]

    def spy(*args: object) -> object:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(native.cclassify, "classify", spy)
    # Row 2: x unknown, 8/20 to the left (c = g: the empty leaf B), 12/20 to C (10/12).
    assert classify.predict(model, np.asarray([[1.0, 0.0], [NAN, 1.0]])).tolist() == [0, 2]
    assert calls == [1]


@needs_native
def test_shapes_and_empty_input_keep_the_numpy_answers() -> None:
    model = _hand_model("c45", 2.5)
    assert classify.predict(model, np.zeros((0, 2))).shape == (0,)
    with pytest.raises(ValueError, match=r"X must have shape \(n, 2\)"):
        classify.predict(model, np.zeros((3, 3)))


def _tables(n_nodes: int = 3) -> list[np.ndarray]:
    """classify's arguments after (X, n_attr, f32, n_classes, shift) for a stump."""
    return [
        np.asarray([1, 0, 0], dtype=np.int32),  # kind
        np.zeros(n_nodes, dtype=np.int32),  # attr
        np.zeros(n_nodes, dtype=np.float32),  # thr32
        np.zeros(n_nodes, dtype=np.float64),  # thr
        np.zeros(n_nodes, dtype=np.float64),  # bound
        np.ones(n_nodes, dtype=np.int8),  # incl
        np.zeros(n_nodes, dtype=np.int64),  # first
        np.asarray([2, 0, 0], dtype=np.int32),  # nchild
        np.asarray([1, 2], dtype=np.int32),  # child
        np.asarray([1 << 30, 1 << 30], dtype=np.uint32),  # share (Q31 halves)
        np.zeros(n_nodes, dtype=np.int64),  # boff
        np.zeros(n_nodes, dtype=np.int32),  # bk
        np.zeros(0, dtype=np.int32),  # btab
        np.asarray([0, 0, 1], dtype=np.int32),  # leafcls
        np.zeros(n_nodes + 1, dtype=np.int64),  # poff (no leaf has a probability)
        np.zeros(0, dtype=np.int32),  # pcls
        np.zeros(0, dtype=np.uint32),  # pval
    ]


@needs_native
def test_kernel_classifies_a_stump_and_refuses_bad_tables() -> None:
    cscan = native.cclassify
    assert cscan is not None
    X = np.asarray([[-1.0], [1.0]])
    out = np.full(2, -7, dtype=np.int64)
    assert cscan.classify(X, 1, False, 2, 31, 16, *_tables(), out) is True
    assert out.tolist() == [0, 1]
    # A child before its parent (a cycle), one node as both children (a node with two
    # parents would overflow the walk's stack), a child out of range, an attribute out
    # of range: False (predict then runs the numpy code), rows untouched.
    for field, bad in ((8, [0, 2]), (8, [2, 2]), (8, [1, 3]), (1, [5, 0, 0])):
        t = _tables()
        t[field] = np.asarray(bad, dtype=t[field].dtype)
        out = np.full(2, -7, dtype=np.int64)
        assert cscan.classify(X, 1, False, 2, 31, 16, *t, out) is False
        assert out.tolist() == [-7, -7]
    # A leaf probability's class out of range, or offsets going back or past the
    # table's end: False too (the walk would read or write outside its arrays).
    for poff, pcls in (([0, 0, 0, 1], [2]), ([0, 0, 1, 0], [0]), ([0, 0, 0, 2], [0])):
        t = _tables()
        t[14], t[15] = np.asarray(poff, dtype=np.int64), np.asarray(pcls, dtype=np.int32)
        t[16] = np.ones(len(pcls), dtype=np.uint32)
        out = np.full(2, -7, dtype=np.int64)
        assert cscan.classify(X, 1, False, 2, 31, 16, *t, out) is False
        assert out.tolist() == [-7, -7]
    t = _tables()
    t[0] = np.asarray([1, 0, 0], dtype=np.int64)  # wrong item size
    with pytest.raises(ValueError, match="kind"):
        cscan.classify(X, 1, False, 2, 31, 16, *t, out)
    with pytest.raises(ValueError, match="n \\* n_attr"):
        cscan.classify(X, 2, False, 2, 31, 16, *_tables(), out)
