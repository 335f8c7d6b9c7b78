"""Release 8's classifier in its own float arithmetic (treegen/model/classify_r8.py), what
``treegen eval`` counts a c45 model's errors with.

On rows without a missing value it gives ``predict``'s class (the reached leaf's first
largest share); with missing values its sums are Release 8's float ones, added leaf by
leaf in depth-first branch order.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Schema
from treegen.data.readers import read_dataset
from treegen.model.classify import predict
from treegen.model.classify_r8 import class_sums, predict_r8
from treegen.model.core import ContinuousTest, Leaf, Model, NominalTest
from treegen.trainer import TrainOptions, train

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
F32 = np.float32


@pytest.mark.parametrize("name", ["crx", "monk1", "monk2", "vote-r8"])
def test_rows_without_missing_values_get_predicts_class(name: str) -> None:
    ds = read_dataset(str(REF / name / f"{name}.data"))
    model = train(ds, TrainOptions())
    test = read_dataset(str(REF / name / f"{name}.test"), schema=model.schema, float32=True)
    used = [a.kind != "ignore" for a in model.schema.attributes]
    known = ~np.isnan(test.X[:, used]).any(axis=1)
    assert known.sum() > 10
    assert np.array_equal(predict_r8(model, test.X[known]), predict(model, test.X[known]))


def test_sums_are_release8s_floats_in_branch_order() -> None:
    """x <= 1: leaf of 3 cases (1, 2); x > 1: a test on y whose leaves hold (2, 0) and
    (0.1, 0.9): a row with x unknown adds 3/3.1 of the first leaf's shares, then 0.1/3.1
    of the second subtree's, each product and quotient rounded to float."""
    schema = Schema(
        (Attribute("x", "continuous"), Attribute("y", "nominal", ("p", "q"))), ("a", "b")
    )
    nodes = (
        ContinuousTest(1, 6.1, 0.0, (3.1, 3.0), attribute=0, threshold=1.0, children=(1, 2)),
        Leaf(1, 3.0, 1.0, (1.0, 2.0)),
        NominalTest(0, 3.1, 0.0, (2.1, 0.9), attribute=1, children=(3, 4)),
        Leaf(0, 2.0, 0.0, (2.0, 0.0)),
        Leaf(1, 1.1, 0.2, (0.1, 0.9)),
    )
    model = Model(schema, nodes)
    got = class_sums(model, np.asarray([[math.nan, math.nan]]))[0]
    w1 = (F32(1) * F32(3.0)) / F32(6.1)
    w2 = (F32(1) * F32(3.1)) / F32(6.1)
    w3 = (w2 * F32(2.0)) / F32(3.1)
    w4 = (w2 * F32(1.1)) / F32(3.1)
    want = np.zeros(2, dtype=F32)
    want[0] += (w1 * F32(1.0)) / F32(3.0)
    want[1] += (w1 * F32(2.0)) / F32(3.0)
    want[0] += (w3 * F32(2.0)) / F32(2.0)
    want[0] += (w4 * F32(0.1)) / F32(1.1)
    want[1] += (w4 * F32(0.9)) / F32(1.1)
    assert np.array_equal(got, want)
    assert predict_r8(model, np.asarray([[math.nan, math.nan]])).tolist() == [int(np.argmax(want))]
