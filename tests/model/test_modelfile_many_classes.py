"""Model files with many classes: the zero runs of a node's dense weights are written at
once (model.file._dist_json), sparse ones as the classes present, and the text is the
plain JSON writer's, byte for byte."""

from __future__ import annotations

import json

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model.dist import SparseDist
from treegen.model.file import (
    MANY_CLASSES,
    _dist_json,
    _dumps,
    dist_value,
    model_from_json,
    model_to_json,
)
from treegen.trainer import TrainOptions, train


@pytest.mark.parametrize(
    "dist",
    [
        (0.0,) * MANY_CLASSES,
        (1.0,) + (0.0,) * MANY_CLASSES,
        (0.0,) * 70 + (2.5, -0.0, 1e-30, 0.0, 3.0),
        tuple(np.random.default_rng(1).random(MANY_CLASSES + 3).round(2).tolist()),
    ],
)
def test_dist_text_is_json_dumps(dist: tuple[float, ...]) -> None:
    assert _dist_json(dist) == _dumps(list(dist))


def test_few_classes_and_non_finite_take_the_plain_path() -> None:
    assert _dist_json((0.0, 1.0)) is None
    assert _dist_json((0.0,) * MANY_CLASSES + (float("nan"),)) is None


def test_many_class_model_text_equals_plain_json() -> None:
    rng = np.random.default_rng(5)
    n = 150
    X = np.column_stack((rng.normal(size=n).round(2), rng.integers(0, 4, n)))
    attrs = (Attribute("a", "continuous", ()), Attribute("b", "nominal", ("p", "q", "r", "s")))
    schema = Schema(attrs, tuple(f"k{i}" for i in range(n)), "class")
    model = train(
        Dataset(schema, X.astype(float), np.arange(n, dtype=np.int32), "t"), TrainOptions()
    )
    text = model_to_json(model)
    nodes = json.loads(text)["nodes"]
    assert len(nodes) == model.size > 1
    sparse = 0
    for i, node in enumerate(model.nodes):
        written = nodes[i]["dist"]
        if isinstance(node.dist, SparseDist):
            # The classes present and their weights; the others weigh 0.
            sparse += 1
            dense = [0.0] * n
            for c, w in zip(written["classes"], written["weights"], strict=True):
                dense[c] = w
            assert dense == list(node.dist)
        else:
            assert written == list(node.dist)
        assert '"dist": ' + _dumps(dist_value(node.dist)) + "}" in text
    assert sparse > 0
    assert model_from_json(text).nodes == model.nodes
