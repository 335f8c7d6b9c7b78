"""The j48 trainer's replay of Weka's orders (treegen.trainer.j48order) and the J48
counts a model keeps from it (``per_bag``, ``bag_dist``).

Its end result, every node's numbers and every row's distribution equal to Weka's own,
is checked against live Weka in tests/committee/test_weka_getprobs_live.py (J48) and
tests/committee/test_committee_weka.py (Bagging and AdaBoostM1); here: the sort order
itself against Weka's (treegen.trainer.j48counts), where the replay runs and where it
does not, and the model file.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.errors import ModelFileError
from treegen.model.core import Leaf, Model
from treegen.model.file import load_model, model_from_json, model_to_json, save_model
from treegen.model.show import format_tree
from treegen.trainer import TrainOptions, j48counts, j48order, native, train
from treegen.trainer.j48counts import weka_sort

from support.weka import TESTS, WEKA_JAR, compile_java, java_or_skip

J48 = TrainOptions(flavor="j48")
MISSING_SEED = 46  # a generated set with missing values and subtree raising


def _missing() -> Dataset:
    ds = synthetic.generate(synthetic.random_spec(MISSING_SEED))
    assert np.isnan(ds.X).any()
    return ds


def _counts(model: Model) -> list[bool]:
    return [bool(n.per_bag) for n in model.nodes if not isinstance(n, Leaf)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 1.5, -2.0, 3.0, 7.25, 1e308]), max_size=60))
def test_weka_sort_is_a_sorting_permutation(keys: list[float]) -> None:
    idx = j48counts._sort_python(keys)
    assert sorted(idx) == list(range(len(keys)))
    assert [keys[i] for i in idx] == sorted(keys)
    assert weka_sort(np.array(keys, dtype=np.float64)).tolist() == idx


def test_the_c_sort_is_the_python_sort() -> None:
    """The accelerator's weka_sort against the reference, on segments full of ties."""
    if native.cscan is None:
        pytest.skip("the C accelerator is not built")
    rng = np.random.default_rng(3)
    for n in [0, 1, 2, 3, 4, 5, 8, 31, 1000, 5000]:
        for k in (1, 2, 7, 1 << 30):
            keys = rng.integers(0, k, size=n).astype(np.float64)
            assert weka_sort(keys).tolist() == j48counts._sort_python(keys.tolist()), (n, k)


@pytest.mark.toolchain
def test_weka_sort_is_wekas_order(tmp_path: Path) -> None:
    """Ties make the order J48's quicksort leaves matter; it is Weka's, index for index."""
    java = java_or_skip("the sort order comparison")
    classes = compile_java(TESTS / "java" / "SortOrder.java", tmp_path / "classes", "sorting")
    rng = np.random.default_rng(7)
    arrays = [
        rng.integers(0, k, size=n).astype(float)
        for n in (1, 2, 3, 4, 5, 17, 300)
        for k in (1, 3, 50)
    ]
    arrays += [
        np.where(rng.random(200) < 0.2, j48counts.JAVA_MAX_DOUBLE, rng.normal(size=200))
        for _ in range(5)
    ]
    text = "".join(" ".join(repr(float(v)) for v in a) + "\n" for a in arrays)
    proc = subprocess.run(
        [java, "-cp", f"{WEKA_JAR}:{classes}", "SortOrder"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert len(lines) == len(arrays)
    for a, line in zip(arrays, lines, strict=True):
        want = [int(i) for i in line.split()]
        assert weka_sort(a).tolist() == want
        assert j48counts._sort_python(a.tolist()) == want


def test_replay_where_order_matters_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unknown values or case weights: the tests keep J48's counts, with reduced-error
    pruning too (J48 -R's growing set).  Whole weights, the c45 flavour, a validation
    set (no J48 equivalent), more rows than the replay's limit: no replay, no counts."""
    ds = _missing()
    assert all(_counts(train(ds, J48)))
    with monkeypatch.context() as m:
        m.setattr(j48order, "MAX_ROWS", ds.n_rows - 1)
        assert not any(_counts(train(ds, J48)))
    assert not any(_counts(train(ds, TrainOptions(flavor="c45"))))
    rep = TrainOptions(flavor="j48", pruning="reduced-error")
    assert all(_counts(train(ds, rep)))
    assert not any(_counts(train(ds, rep, validation=ds)))
    with monkeypatch.context() as m:
        m.setattr(j48order, "MAX_ROWS", ds.n_rows // 2)  # the growing set is 2/3 of it
        assert not any(_counts(train(ds, rep)))
    whole = synthetic.generate(synthetic.random_spec(0))
    if np.isnan(whole.X).any():
        whole = whole.subset(np.flatnonzero(~np.isnan(whole.X).any(axis=1)))
    plain = train(whole, J48)
    assert plain.n_leaves > 1 and not any(_counts(plain))
    weighted = train(whole, J48, weights=np.linspace(0.5, 1.5, whole.n_rows))
    assert all(_counts(weighted))


def test_replay_keeps_treegens_tree_and_changes_only_last_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same tests, classes and printout; the weights within a few ulps."""
    ds = _missing()
    model = train(ds, J48)
    monkeypatch.setattr(j48order, "uses_weka_order", lambda *a: False)
    own = train(ds, J48)
    assert len(own.nodes) == len(model.nodes)
    differ = 0
    for a, b in zip(own.nodes, model.nodes, strict=True):
        assert type(a) is type(b) and a.children == b.children and a.cls == b.cls
        assert np.allclose(a.dist, b.dist, rtol=1e-12, atol=1e-12)
        differ += a.dist != b.dist
    assert differ > 0
    assert format_tree(own, "j48") == format_tree(model, "j48")


def test_model_file_keeps_the_counts(tmp_path: Path) -> None:
    model = train(_missing(), J48)
    path = tmp_path / "m.tree"
    save_model(model, path)
    back = load_model(path)
    assert back.nodes == model.nodes
    assert '"per_bag": [' in path.read_text() and '"bag_dist": [[' in path.read_text()
    # A file without them loads as before: the tests' counts are then empty.
    data = json.loads(path.read_text())
    for n in data["nodes"]:
        n.pop("per_bag", None)
        n.pop("bag_dist", None)
    plain = model_from_json(json.dumps(data))
    assert not any(_counts(plain))
    assert [
        dataclasses.replace(n, per_bag=(), bag_dist=()) if not isinstance(n, Leaf) else n
        for n in model.nodes
    ] == list(plain.nodes)


def _damaged(edit: object) -> str:
    data = json.loads(model_to_json(train(_missing(), J48)))
    test = next(n for n in data["nodes"] if n["kind"] != "leaf")
    edit(test)  # type: ignore[operator]
    return json.dumps(data)


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda n: n["per_bag"].pop(), "per_bag: must list"),
        (lambda n: n["per_bag"].__setitem__(0, -1.0), "per_bag[0]: must be a finite number >= 0"),
        (lambda n: n.pop("bag_dist"), "bag_dist: missing"),
        (lambda n: n["bag_dist"][1].pop(), "bag_dist[1]: must list"),
        (lambda n: n["bag_dist"][0].__setitem__(0, "x"), "bag_dist[0][0]: must be a number"),
    ],
)
def test_damaged_counts_are_rejected(edit: object, message: str) -> None:
    with pytest.raises(ModelFileError) as info:
        model_from_json(_damaged(edit), "m.tree")
    assert message in str(info.value) and "\n" not in str(info.value)
