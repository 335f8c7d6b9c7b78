"""Model files with many classes: the zero runs of a node's weights are written at once
(model.file._dist_json), and the text is the plain JSON writer's, byte for byte."""

from __future__ import annotations

import json

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model.file import MANY_CLASSES, _dist_json, _dumps, model_from_json, model_to_json
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
    for i, node in enumerate(model.nodes):
        assert nodes[i]["dist"] == list(node.dist)
        assert '"dist": ' + _dumps(list(node.dist)) + "}" in text
    assert model_from_json(text).nodes == model.nodes
