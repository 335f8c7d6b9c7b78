"""The model file's direct node lines (``file._plain_node_json``) are json's, byte for byte.

Training writes its nodes without json.dumps (an encoder made per node was a third of
the writing); every line must be what ``_dumps(_node_dict(i, n))`` writes (a sparse
dist's classes and weights among them), and a node the direct path does not take
(subsets, J48's bags, a dense dist of many classes, a number json refuses or writes
otherwise) must go to json instead (None).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.model import file
from treegen.model.core import ContinuousTest, Leaf, Model, Node, NominalTest, SubsetTest
from treegen.model.dist import SparseDist

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "reference"

FLOATS = [0.0, -0.0, 1.0, 14.0, 1e-310, 5e-324, 1.7976931348623157e308, 0.1, 28244.734375]


def _json_line(i: int, n: Node) -> str:
    return file._dumps(file._node_dict(i, n))


def _nodes(rng: np.random.Generator) -> list[Node]:
    out: list[Node] = []
    for _ in range(300):
        d = tuple(float(rng.choice(FLOATS)) * float(rng.choice([1.0, 0.5])) for _ in range(3))
        items, errors = float(rng.choice(FLOATS)), float(rng.choice(FLOATS))
        cls, att = int(rng.integers(0, 3)), int(rng.integers(0, 40))
        t = float(rng.choice(FLOATS)) * float(rng.choice([-1, 1]))
        out.append(Leaf(cls, items, errors, d))
        out.append(ContinuousTest(cls, items, errors, d, att, t, (1, 2)))
        out.append(NominalTest(cls, items, errors, d, att, tuple(range(int(rng.integers(0, 6))))))
        at = tuple(sorted(rng.choice(400, size=int(rng.integers(0, 5)), replace=False).tolist()))
        sd = SparseDist(400, at, tuple(float(rng.choice(FLOATS)) for _ in at))
        out.append(Leaf(cls, items, errors, sd))
        out.append(ContinuousTest(cls, items, errors, sd, att, t, (1, 2)))
    return out


def test_plain_lines_are_jsons() -> None:
    nodes = _nodes(np.random.default_rng(0))
    taken = 0
    for i, n in enumerate(nodes):
        plain = file._plain_node_json(i, n)
        if plain is None:  # only where the finiteness check's sum overflows
            assert math.isinf(n.items + n.errors + sum(n.dist))
        else:
            taken += 1
            assert plain == _json_line(i, n)
    assert taken > len(nodes) // 2
    assert any(isinstance(n.dist, SparseDist) and n.dist.at for n in nodes)


def test_a_model_of_sparse_dists_is_written_as_by_json_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One class per row (every node's dist a SparseDist): the file json alone writes."""
    rng = np.random.default_rng(3)
    n = 300
    X = np.round(rng.normal(size=(n, 2)) * 10, 1)
    labels = [f"k{i}" for i in range(n)]
    model: Model = treegen.train((X, labels)).value  # type: ignore[arg-type]
    text = file.model_to_json(model)
    taken = sum(
        file._plain_node_json(i, m) is not None and isinstance(m.dist, SparseDist)
        for i, m in enumerate(model.nodes)
    )
    monkeypatch.setattr(file, "_plain_node_json", lambda i, n: None)
    assert taken > 10 and text == file.model_to_json(model)


@pytest.mark.parametrize(
    ("name", "keywords"),
    [
        ("golf/golf.names", {}),
        ("crx/crx.data", {}),
        ("crx/crx.data", {"subsets": True}),
        ("labor-neg/labor-neg.data", {"flavor": "j48"}),
        ("vote-r8/vote-r8.data", {"prune": False}),
        ("soybean-r8/soybean-r8.data", {"subsets": True}),
    ],
)
def test_a_trained_model_is_written_as_by_json_alone(
    name: str, keywords: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    model: Model = treegen.train(str(REFERENCE / name), **keywords).value  # type: ignore[arg-type]
    text = file.model_to_json(model)
    taken = sum(file._plain_node_json(i, n) is not None for i, n in enumerate(model.nodes))
    monkeypatch.setattr(file, "_plain_node_json", lambda i, n: None)
    assert taken > 0 and text == file.model_to_json(model)


@pytest.mark.parametrize(
    "node",
    [
        Leaf(0, math.nan, 0.0, (1.0, 2.0)),
        Leaf(0, 1.0, math.inf, (1.0, 2.0)),
        Leaf(0, 1.0, 0.0, (math.inf, -math.inf)),
        Leaf(True, 1.0, 0.0, (1.0,)),
        Leaf(np.int64(1), 1.0, 0.0, (1.0,)),  # type: ignore[arg-type]
        ContinuousTest(0, 1.0, 0.0, (1.0,), 2, math.nan, (1, 2)),
        ContinuousTest(0, 1.0, 0.0, (1.0,), 2, np.float32(0.5), (1, 2)),  # type: ignore[arg-type]
        NominalTest(0, 1.0, 0.0, (1.0,), np.int32(2), (1, 2)),  # type: ignore[arg-type]
        NominalTest(0, 1.0, 0.0, (1.0,), 2, (1, np.int64(2))),  # type: ignore[arg-type]
        NominalTest(0, 1.0, 0.0, (1.0,), 2, (1, 2), (0.5, 0.5), ((0.5,), (0.5,))),
        SubsetTest(0, 1.0, 0.0, (1.0,), 2, ((0,), (1, 2)), (1, 2)),
        Leaf(0, 1.0, 0.0, SparseDist(100, (3,), (math.inf,))),
        Leaf(0, 1.0, 0.0, SparseDist(100, (np.int64(3),), (1.0,))),  # type: ignore[arg-type]
        Leaf(0, 1.0, 0.0, tuple([0.0] * 64)),
    ],
)
def test_what_json_must_write_is_left_to_it(node: Node) -> None:
    assert file._plain_node_json(0, node) is None


def test_a_numpy_float64_threshold_is_written_as_json_writes_it() -> None:
    n = ContinuousTest(0, 1.0, 0.0, (1.0, 0.0), 2, np.float64(0.1), (1, 2))
    assert file._plain_node_json(3, n) == _json_line(3, n)
