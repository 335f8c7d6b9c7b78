"""Training on weighted cases (``train(..., weights=)``), the base of boosting.

Weights of 1 give the unweighted tree bit for bit; fractional weights give the same
tree in both engines and with or without the C accelerator; for the c45 flavour a
case of integer weight k is k copies of it (Release 8 counts cases by weight
everywhere).  J48 on weighted data against Weka itself is
tests/committee/test_committee_weka.py; J48's routing of a value within 1e-6 above a
threshold (left, ``Utils.smOrEq``) is checked here on data built to have one.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.errors import TrainError
from treegen.model.core import Model
from treegen.trainer import TrainOptions, native, train
from treegen.trainer.fit import j48_empty_leaves
from treegen.trainer.route import routing_cut, routing_cuts
from treegen.trainer.stats import weka_max_class

SEEDS = [0, 3, 7, 11, 19, 26]


def _data(seed: int) -> Dataset:
    return synthetic.generate(synthetic.random_spec(seed, max_rows=800))


def _weights(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng([41, seed])
    return rng.uniform(0.05, 4.0, n) * (rng.random(n) < 0.9) + 1e-3


def _same(a: Model, b: Model) -> bool:
    return repr(a.nodes) == repr(b.nodes)


@pytest.mark.parametrize("flavor", ["c45", "j48"])
@pytest.mark.parametrize("seed", SEEDS)
def test_unit_weights_are_the_unweighted_tree(seed: int, flavor: str) -> None:
    ds = _data(seed)
    opts = TrainOptions(flavor=flavor)  # type: ignore[arg-type]
    plain = train(ds, opts)
    assert _same(plain, train(ds, opts, weights=np.ones(ds.n_rows)))
    assert _same(plain, train(ds, opts, weights=np.ones(ds.n_rows), engine="dfs"))


@pytest.mark.parametrize("flavor", ["c45", "j48"])
@pytest.mark.parametrize("seed", SEEDS)
def test_weighted_engines_agree(seed: int, flavor: str) -> None:
    """Level-wise and depth-first growth, C and Python pruning: one weighted tree."""
    ds = _data(seed)
    w = _weights(seed, ds.n_rows)
    opts = TrainOptions(flavor=flavor)  # type: ignore[arg-type]
    level = train(ds, opts, weights=w)
    assert _same(level, train(ds, opts, weights=w, engine="dfs"))
    unpruned = TrainOptions(flavor=flavor, prune=False)  # type: ignore[arg-type]
    assert _same(train(ds, unpruned, weights=w), train(ds, unpruned, weights=w, engine="dfs"))
    # The weights change the tree: the test would see a weighting that did nothing.
    assert not _same(level, train(ds, opts))


@pytest.mark.skipif(native.cprune is None, reason="C accelerator not built")
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_weighted_c_pruner_equals_python(flavor: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ds = _data(5)
    w = _weights(5, ds.n_rows)
    opts = TrainOptions(flavor=flavor)  # type: ignore[arg-type]
    with_c = train(ds, opts, weights=w, engine="dfs")
    monkeypatch.setattr(native, "cprune", None)
    assert _same(with_c, train(ds, opts, weights=w, engine="dfs"))


@pytest.mark.parametrize("seed", SEEDS)
def test_c45_integer_weight_is_copies(seed: int) -> None:
    """c45: a case of weight k grows and prunes as k copies of it (no missing values:
    with them the copies' fractional weights are summed one by one, which rounds
    otherwise than one weighted case, in the last bits of a float)."""
    ds = synthetic.generate(replace(synthetic.random_spec(seed, max_rows=800), missing=0.0))
    k = np.random.default_rng(seed).integers(1, 4, ds.n_rows)
    copies = ds.subset(np.repeat(np.arange(ds.n_rows), k))
    weighted = train(ds, TrainOptions(), weights=k.astype(np.float64))
    assert _same(weighted, train(copies, TrainOptions()))


def test_bad_weights_are_refused() -> None:
    ds = _data(0)
    n = ds.n_rows
    for w, what in [
        (np.ones(n - 1), "case weights for"),
        (np.full(n, np.nan), "finite"),
        (-np.ones(n), "not negative"),
    ]:
        with pytest.raises(TrainError, match=what):
            train(ds, TrainOptions(), weights=w)
    with pytest.raises(TrainError, match="reduced-error"):
        train(ds, TrainOptions(pruning="reduced-error"), weights=np.ones(n))


def test_j48_routing_cut_is_weka_smoreq() -> None:
    """A value goes left exactly when ``value - t < 1e-6`` in double (J48's whichSubset)."""
    rng = np.random.default_rng(3)
    ts = np.concatenate([rng.uniform(-1e3, 1e3, 200), [0.0, 0.507407, 1e-7, -5e-7, 3e9]])
    cuts = routing_cuts(ts, True)
    for t, c in zip(ts.tolist(), cuts.tolist(), strict=True):
        assert c - t < 1e-6 and not (np.nextafter(c, np.inf) - t < 1e-6)
        assert c >= t
    assert routing_cut(0.25, False) == 0.25  # c45: the threshold itself
    assert np.isnan(routing_cuts(np.array([np.nan]), True)[0])


def test_j48_sends_a_value_just_above_the_threshold_left() -> None:
    """Values 1e-6 apart (6-decimal data, as in Weka's segment-challenge.arff): J48
    keeps 0.507407 as the threshold and sends 0.507408 left (``smOrEq``); so does the
    j48 trainer, whose leaf counts then include that case on the left."""
    x = [0.1, 0.2, 0.3, 0.507406, 0.507407, 0.507408, 0.9, 1.0, 1.1, 1.2]
    y = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
    schema = Schema((Attribute("v", "continuous"),), ("a", "b"))
    ds = Dataset(schema, np.asarray(x)[:, None], np.asarray(y, dtype=np.int32))
    m = train(ds, TrainOptions(flavor="j48", min_cases=1))
    root = m.nodes[0]
    assert root.kind == "continuous"
    left = m.nodes[root.children[0]]
    assert root.threshold - 0.507408 > -1e-6 and left.items == 6.0


def test_weka_max_class_and_empty_leaves() -> None:
    """J48 labels an empty branch with its parent's final majority (``maxClass``, 1e-6
    tolerance: the first class clearly heavier than those before it)."""
    assert weka_max_class((1.0, 1.0000005, 0.5)) == 0
    assert weka_max_class((1.0, 1.00001, 0.5)) == 1
    assert weka_max_class((0.0, 0.0)) == 0
    from treegen.model.core import Leaf, NominalTest

    nodes = (
        NominalTest(0, 5.0, 1.0, (2.0, 3.0), attribute=0, children=(1, 2)),
        Leaf(1, 5.0, 2.0, (2.0, 3.0)),
        Leaf(0, 0.0, 0.0, (4.0, 1.0)),  # labelled at growth, before raising
    )
    fixed = j48_empty_leaves(nodes)
    assert fixed[2].cls == 1 and fixed[2].dist == (2.0, 3.0) and fixed[:2] == nodes[:2]


def test_j48_leaves_take_weka_max_class() -> None:
    """A leaf whose two heaviest classes are within 1e-6 (fractional weights) is labelled
    as J48 labels it, ``maxClass`` (the first clearly heavier), its errors the rest: in
    Bagging -W J48 at 100k rows Weka printed k0 for a leaf of (0.000110580, 0.000110933,
    0) where the first largest is k1."""
    from treegen.model.core import Leaf, NominalTest

    dist = (0.0001105803805068226, 0.00011093297354296893, 0.0)
    nodes = (
        NominalTest(0, 5.0, 1.0, (2.0, 3.0, 0.0), attribute=0, children=(1, 2)),
        Leaf(1, 5.0 - sum(dist), 2.0, (2.0 - dist[0], 3.0 - dist[1], 0.0)),
        Leaf(1, sum(dist), dist[0], dist),
    )
    fixed = j48_empty_leaves(nodes)
    assert fixed[2].cls == 0 and fixed[2].errors == sum(dist) - dist[0]
    assert fixed[:2] == nodes[:2]


def test_unpruned_j48_leaves_take_weka_max_class_beyond_the_replay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Beyond the replay of J48's sums (j48order.MAX_ROWS, here lowered to 0) an unpruned
    j48 tree's leaves are labelled ``maxClass`` too, as the pruned tree's are: on the
    campaign file unpruned-label-tie.arff (60% missing values) the first largest of
    treegen's row-order sums named other classes than J48's -U (Weka 3.6.14's output
    stored beside it)."""
    from pathlib import Path

    from treegen.data.readers import read_dataset
    from treegen.model.show import format_tree
    from treegen.trainer import j48order

    here = Path(__file__).resolve().parents[1] / "data" / "weka-diff"
    ds = read_dataset(str(here / "unpruned-label-tie.arff"), target="class")
    monkeypatch.setattr(j48order, "MAX_ROWS", 0)
    shown = format_tree(train(ds, TrainOptions(flavor="j48", prune=False)), "j48")
    lines = (here / "unpruned-label-tie.out").read_text().splitlines()
    start = lines.index("J48 unpruned tree")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Size of the tree"))
    assert shown == "\n".join(lines[start : end + 1]) + "\n"
