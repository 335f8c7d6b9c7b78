"""Sparse class distributions (model/dist.py): a SparseDist reads, compares and hashes as
the tuple it stands for; the trainer makes them from 64 classes where at most a quarter
are present; model files write them as the classes present, read them back equal, still
read files that list every weight, and refuse tampered ones with a one-line error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.errors import ModelFileError
from treegen.model.core import Leaf, Model
from treegen.model.dist import SPARSE_MIN_CLASSES, SparseDist, dist_pairs, make_dist
from treegen.model.file import load_model, model_from_json, model_to_json
from treegen.model.fixedpoint import leaf_class, leaf_proba
from treegen.trainer import TrainOptions, train


def test_sparse_dist_reads_as_its_tuple() -> None:
    dense = (0.0,) * 5 + (2.5,) + (0.0,) * 60 + (1.0, -0.0)
    d = SparseDist(len(dense), (5, 66, 67), (2.5, 1.0, -0.0))
    assert len(d) == len(dense)
    assert tuple(d) == dense and list(d) == list(dense)
    assert [d[i] for i in range(len(dense))] == list(dense)
    assert d[-2] == 1.0 and d[-3] == 0.0 and d[2:7] == dense[2:7]
    assert np.array_equal(np.asarray(d), np.asarray(dense))
    assert np.asarray(d, dtype=np.float32).dtype == np.float32
    assert np.signbit(np.asarray(d)[67])
    assert d == dense and dense == d and not d != dense
    assert hash(d) == hash(dense)
    # Equal to the same weights listed otherwise: an explicit 0.0 entry changes nothing.
    assert d == SparseDist(len(dense), (1, 5, 66, 67), (0.0, 2.5, 1.0, -0.0))
    # As with tuples, -0.0 equals 0.0.
    assert d == SparseDist(len(dense), (5, 66), (2.5, 1.0))
    assert d != SparseDist(len(dense), (5, 66, 67), (2.5, 2.0, 0.0))
    assert d != dense[:-1] and d != list(dense)
    with pytest.raises(IndexError):
        d[len(dense)]
    with pytest.raises(ValueError):
        SparseDist(4, (2, 1), (1.0, 1.0))
    with pytest.raises(ValueError):
        SparseDist(4, (4,), (1.0,))


def test_make_dist_picks_the_form_by_classes_and_presence() -> None:
    few = np.zeros(SPARSE_MIN_CLASSES - 1, dtype=np.float32)
    few[3] = 2.0
    assert isinstance(make_dist(few), tuple)
    many = np.zeros(SPARSE_MIN_CLASSES, dtype=np.float32)
    many[[1, 9]] = (np.float32(0.1), np.float32(3.0))
    d = make_dist(many)
    assert isinstance(d, SparseDist) and d.at == (1, 9)
    assert d.weights == (float(np.float32(0.1)), 3.0)  # the float32 values, widened exactly
    assert dist_pairs(d) == dist_pairs(tuple(many.astype(np.float64).tolist()))
    crowded = np.ones(SPARSE_MIN_CLASSES, dtype=np.float64)
    crowded[::2] = 0.0
    assert isinstance(make_dist(crowded), tuple)  # half present: a tuple
    assert make_dist(d) is d


def _many_class_model(n: int = 150, seed: int = 5) -> Model:
    rng = np.random.default_rng(seed)
    X = np.column_stack((rng.normal(size=n).round(2), rng.integers(0, 4, n)))
    attrs = (Attribute("a", "continuous", ()), Attribute("b", "nominal", ("p", "q", "r", "s")))
    schema = Schema(attrs, tuple(f"k{i}" for i in range(n)), "class")
    ds = Dataset(schema, X.astype(float), np.arange(n, dtype=np.int32), "t")
    return train(ds, TrainOptions())


def _dense_text(text: str) -> str:
    """``text`` with every sparse ``dist`` written out in full, as before sparse dists."""
    data = json.loads(text)
    n = len(data["classes"])
    lines = text.split("\n")
    for k, line in enumerate(lines):
        m = re.search(r'"dist": (\{[^}]*\})', line)
        if m:
            sparse = json.loads(m.group(1))
            dense = [0.0] * n
            for c, w in zip(sparse["classes"], sparse["weights"], strict=True):
                dense[c] = w
            lines[k] = line[: m.start(1)] + json.dumps(dense) + line[m.end(1) :]
    return "\n".join(lines)


def test_trained_model_is_sparse_and_round_trips() -> None:
    model = _many_class_model()
    kinds = {type(n.dist) for n in model.nodes}
    assert SparseDist in kinds
    text = model_to_json(model)
    assert '"dist": {"classes": [' in text
    back = model_from_json(text)
    assert back == model
    assert model_to_json(back) == text
    assert all(type(a.dist) is type(b.dist) for a, b in zip(back.nodes, model.nodes, strict=True))


def test_file_listing_every_weight_loads_equal_and_saves_sparse(tmp_path: Path) -> None:
    model = _many_class_model()
    text = model_to_json(model)
    dense = _dense_text(text)
    assert '"dist": {' not in dense and len(dense) > 3 * len(text)
    path = tmp_path / "dense.tree"
    path.write_text(dense)
    old = load_model(path)
    assert old == model and old.nodes == model.nodes
    assert all(isinstance(n.dist, tuple) for n in old.nodes)
    # Written again, a loaded dense model keeps its form: the bytes it was read from.
    assert model_to_json(old) == dense


def _tamper(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def _first_sparse(text: str) -> str:
    m = re.search(r'"dist": \{"classes": \[(\d+), (\d+)\], "weights": \[([^]]*)\]\}', text)
    assert m is not None
    return m.group(0)


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda s, c, w: f'{{"classes": [{c[1]}, {c[0]}], "weights": [{w}]}}', "must ascend"),
        (lambda s, c, w: f'{{"classes": [{c[0]}, {c[0]}], "weights": [{w}]}}', "must ascend"),
        (lambda s, c, w: f'{{"classes": [{c[0]}, 150], "weights": [{w}]}}', "out of range"),
        (lambda s, c, w: f'{{"classes": [{c[0]}, -1], "weights": [{w}]}}', "out of range"),
        (lambda s, c, w: f'{{"classes": [{c[0]}], "weights": [{w}]}}', "same length"),
        (lambda s, c, w: f'{{"classes": [{c[0]}, {c[1]}], "weights": [1.0, -1.0]}}', ">= 0"),
        (lambda s, c, w: f'{{"classes": [{c[0]}, {c[1]}], "weights": [1.0, "x"]}}', "number"),
        (lambda s, c, w: f'{{"classes": [{c[0]}, {c[1]}], "weights": [9.0, 9.0]}}', "sums to"),
        (lambda s, c, w: f'{{"classes": [{c[0]}, 1.5], "weights": [{w}]}}', "integer"),
        (lambda s, c, w: f'{{"classes": [{c[0]}, {c[1]}]}}', "weights: missing"),
        (lambda s, c, w: '{"classes": [], "weights": [], "x": 1}', "x: unknown field"),
        (lambda s, c, w: '"lots"', "must list 150 class weights"),
    ],
)
def test_tampered_sparse_dist_is_a_one_line_error(
    tmp_path: Path, edit: object, message: str
) -> None:
    text = model_to_json(_many_class_model())
    old = _first_sparse(text)
    m = re.match(r'"dist": \{"classes": \[(\d+), (\d+)\], "weights": \[([^]]*)\]\}', old)
    assert m is not None
    new = '"dist": ' + edit(text, (m.group(1), m.group(2)), m.group(3))  # type: ignore[operator]
    path = tmp_path / "m.tree"
    path.write_text(_tamper(text, old, new))
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    err = str(info.value)
    assert err.startswith(f"{path}:") and message in err and "\n" not in err
    assert ".dist" in err


@pytest.mark.parametrize(
    "pairs",
    [
        {3: 1.0, 70: 2.0, 99: 2.0},  # ties: the first class
        {0: 0.5},
        {5: 0.0, 80: -0.0},  # no weight at all: class 0, as the dense argmax
        {},
        {64: 1e-300, 65: 3.0},
    ],
)
def test_fixed_point_leaf_of_a_sparse_dist_is_the_dense_ones(pairs: dict[int, float]) -> None:
    n = 100
    dense = [0.0] * n
    for c, w in pairs.items():
        dense[c] = w
    sparse = SparseDist(n, tuple(pairs), tuple(pairs.values()))
    items = max(sum(dense), 1.0)
    a, b = Leaf(7, items, 0.0, tuple(dense)), Leaf(7, items, 0.0, sparse)
    assert leaf_class(b) == leaf_class(a)
    assert leaf_proba(b, n) == leaf_proba(a, n)
