"""Release 8's classifier (docs/C45.md section 6) on hand-built and trained trees."""

from __future__ import annotations

import math

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Schema
from treegen.model import native
from treegen.model.classify import predict, predict_proba
from treegen.model.core import ContinuousTest, Leaf, Model, NominalTest
from treegen.model.fixedpoint import DOUBLE, FixedPointClassifier
from treegen.model.options import ModelOptions, TrainOptions

SCHEMA = Schema(
    (Attribute("x", "continuous"), Attribute("c", "nominal", ("r", "g", "b"))),
    ("A", "B", "C"),
)
NAN = math.nan


def _model(flavor: str = "c45") -> Model:
    # x <= 2.5 : c = r : A (6, dist 5/1/0) ; c = g : empty leaf, class B ; c = b : C (2, 0/0/2)
    # x > 2.5  : B (12, dist 2/10/0)
    nodes = (
        ContinuousTest(1, 20.0, 3.0, (7.0, 11.0, 2.0), attribute=0, threshold=2.5, children=(1, 5)),
        NominalTest(0, 8.0, 1.0, (5.0, 1.0, 2.0), attribute=1, children=(2, 3, 4)),
        Leaf(0, 6.0, 1.0, (5.0, 1.0, 0.0)),
        Leaf(1, 0.0, 0.0, (5.0, 1.0, 2.0)),
        Leaf(2, 2.0, 0.0, (0.0, 0.0, 2.0)),
        Leaf(1, 12.0, 2.0, (2.0, 10.0, 0.0)),
    )
    return Model(SCHEMA, nodes, options=ModelOptions(TrainOptions(flavor=flavor)))


def test_known_values_follow_their_branch() -> None:
    X = np.asarray([[1.0, 0.0], [2.5, 2.0], [3.0, 1.0]])
    p = predict_proba(_model(), X)
    assert np.array_equal(p[0], np.asarray([5 / 6, 1 / 6, 0.0]))
    assert np.array_equal(p[1], np.asarray([0.0, 0.0, 1.0]))
    assert np.array_equal(p[2], np.asarray([2 / 12, 10 / 12, 0.0]))
    assert predict(_model(), X).tolist() == [0, 2, 1]


def test_empty_leaf_adds_its_weight_to_its_class() -> None:
    p = predict_proba(_model(), np.asarray([[0.0, 1.0]]))
    assert p[0].tolist() == [0.0, 1.0, 0.0]


def test_unknown_value_visits_every_branch_by_items_share() -> None:
    # x unknown: 8/20 to the left subtree, 12/20 to the right leaf.
    p = predict_proba(_model(), np.asarray([[NAN, 0.0]]))
    expect = 0.4 * np.asarray([5 / 6, 1 / 6, 0]) + 0.6 * np.asarray([2 / 12, 10 / 12, 0])
    assert np.allclose(p[0], expect, rtol=0, atol=1e-15)
    # both unknown: left 0.4 splits 6/8, 0/8 (empty branch gets nothing), 2/8.
    p = predict_proba(_model(), np.asarray([[NAN, NAN]]))
    left = 0.4 * (0.75 * np.asarray([5 / 6, 1 / 6, 0]) + 0.25 * np.asarray([0, 0, 1.0]))
    assert np.allclose(p[0], left + 0.6 * np.asarray([2 / 12, 10 / 12, 0]), rtol=0, atol=1e-15)


@pytest.mark.parametrize("code", [3.0, -1.0, 0.5, 99.0])
def test_nominal_code_out_of_range_is_unknown(code: float) -> None:
    m = _model()
    assert np.array_equal(
        predict_proba(m, np.asarray([[1.0, code]])), predict_proba(m, np.asarray([[1.0, NAN]]))
    )


def test_first_maximum_wins() -> None:
    nodes = (Leaf(1, 4.0, 2.0, (2.0, 2.0, 0.0)),)
    m = Model(SCHEMA, nodes, options=ModelOptions(TrainOptions(flavor="c45")))
    assert predict(m, np.asarray([[0.0, 0.0]])).tolist() == [0]


def test_c45_compares_in_float32() -> None:
    # 2.5000001 narrows to 2.5f: Release 8 (values stored as float) goes left, and so
    # does J48 (within 1e-6 above the threshold).  2.5000005 is a float32 above 2.5:
    # Release 8 goes right, J48 still left; 2.500001 is 1e-6 above: both go right.
    X = np.asarray([[2.5000001, 0.0], [2.5000005, 0.0], [2.500001, 0.0]])
    assert predict(_model("c45"), X).tolist() == [0, 1, 1]
    assert predict(_model("j48"), X).tolist() == [0, 0, 1]


def test_c45_value_beyond_float32_is_infinite() -> None:
    """Release 8 stores values as float: beyond FLT_MAX is +-inf, silently (no numpy
    overflow warning); the readers refuse such values before they get here."""
    X = np.asarray([[1e39, 2.0], [-1e39, 2.0], [np.inf, 2.0], [-np.inf, 2.0]])
    assert predict(_model("c45"), X).tolist() == [1, 2, 1, 2]
    assert predict(_model("j48"), X).tolist() == [1, 2, 1, 2]


def test_rows_are_independent_and_shape_is_checked() -> None:
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 5, size=(200, 2))
    X[:, 1] = rng.integers(0, 3, 200)
    X[rng.random((200, 2)) < 0.2] = NAN
    m = _model()
    whole = predict_proba(m, X)
    one_by_one = np.vstack([predict_proba(m, X[i : i + 1]) for i in range(200)])
    assert np.array_equal(whole, one_by_one)
    assert np.allclose(whole.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert predict_proba(m, np.zeros((0, 2))).shape == (0, 3)
    with pytest.raises(ValueError):
        predict_proba(m, np.zeros((3, 5)))


def test_j48_empty_leaf_answers_with_its_parents_distribution() -> None:
    """J48's getProbs: a known value reaching an empty branch gets the test's class
    frequencies (5/1/2 of 8 here), where Release 8 gives the leaf's class all of it."""
    m = _model("j48")
    parent = np.asarray([5 / 8, 1 / 8, 2 / 8])
    p = predict_proba(m, np.asarray([[0.0, 1.0], [NAN, 1.0]]))
    assert np.array_equal(p[0], parent)
    expect = 0.4 * parent + 0.6 * np.asarray([2 / 12, 10 / 12, 0])
    assert np.allclose(p[1], expect, rtol=0, atol=1e-15)
    # The fixed-point classifier (predict's, the C's) reads the same distribution.
    _, q15 = FixedPointClassifier(m, DOUBLE).predict(np.asarray([[0.0, 1.0]]))
    assert q15[0].tolist() == [int(32768 * 5 / 8), int(32768 / 8), int(32768 * 2 / 8)]
    assert predict_proba(_model("c45"), np.asarray([[0.0, 1.0]]))[0].tolist() == [0, 1, 0]


def test_j48_missing_value_skips_an_almost_empty_branch() -> None:
    """A branch of at most 1e-6 weight is empty for J48 (``m_isEmpty``): a missing value
    shares nothing with it, and a known value reaching it gets the parent's frequencies."""
    nodes = list(_model("j48").nodes)
    nodes[3] = Leaf(1, 5e-7, 0.0, (0.0, 5e-7, 0.0))
    m = Model(SCHEMA, tuple(nodes), options=ModelOptions(TrainOptions(flavor="j48")))
    parent = np.asarray([5 / 8, 1 / 8, 2 / 8])
    p = predict_proba(m, np.asarray([[0.0, 1.0], [0.0, NAN]]))
    assert np.array_equal(p[0], parent)
    # shares 6/8 and 2/8 of the test's 8; the almost empty branch's 5e-7 is not shared
    expect = 0.75 * np.asarray([5 / 6, 1 / 6, 0]) + 0.25 * np.asarray([0, 0, 1.0])
    assert np.allclose(p[1], expect, rtol=0, atol=1e-15)
    c45 = Model(SCHEMA, tuple(nodes), options=ModelOptions(TrainOptions(flavor="c45")))
    assert predict_proba(c45, np.asarray([[0.0, 1.0]]))[0].tolist() == [0, 1, 0]


def test_j48_empty_leaf_class_is_its_label_in_every_classifier(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A known value reaching an empty j48 leaf gets the leaf's class (J48's label for
    it: docs/C45.md, section 11) from the numpy classifier as from the C accelerator
    and the fixed point, though its probabilities are its parent's (A first here)."""
    m = _model("j48")
    X = np.asarray([[0.0, 1.0], [1.0, 0.0], [0.0, NAN]])
    assert FixedPointClassifier(m, DOUBLE).predict(X)[0].tolist() == [1, 0, 0]
    assert predict(m, X).tolist() == [1, 0, 0]
    with monkeypatch.context() as mp:
        mp.setattr(native, "cclassify", None)
        assert predict(m, X).tolist() == [1, 0, 0]
    assert int(np.argmax(predict_proba(m, X[:1])[0])) == 0
