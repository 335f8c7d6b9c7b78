"""J48 on weighted cases against live Weka: ``train(ds, weights=w)`` with the j48 flavour
builds the tree Weka's J48 builds from the same rows carrying instance weights ``{w}`` in
the ARFF file, on the reference sets and generated sets, with weights of three kinds:
whole numbers (copies), random fractions, and the weights AdaBoost.M1's second round
gives (what boosting trains on).  The printed trees are compared node for node (tests,
thresholds, leaf classes, N and E at J48's two decimals), as the J48 differential test
does for unweighted data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.committee import weka
from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.trainer import TrainOptions, train

from support import reftrees as rt
from support.weka import REF, REFERENCE, compile_driver, java_or_skip, run_j48, write_weighted_arff

pytestmark = pytest.mark.toolchain

J48 = TrainOptions(flavor="j48")
GENERATED = list(range(0, 100, 5))
KINDS = ("copies", "fractions", "boosted")


def _weights(ds: Dataset, kind: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "copies":
        return rng.integers(1, 4, ds.n_rows).astype(np.float64)
    if kind == "fractions":
        return rng.uniform(0.05, 3.0, ds.n_rows)
    # AdaBoost.M1's weights after round 1 (treegen.committee.boost, j48).
    first = train(ds, J48)
    wrong = weka.gr_scan(weka.distribution(first, ds.X)) != ds.y
    eps = wrong.mean()
    w = np.ones(ds.n_rows)
    if 0 < eps < 0.5:
        w[wrong] *= (1 - eps) / eps
        w = w * ds.n_rows / float(np.cumsum(w)[-1])
    return w


def _data(key: str) -> Dataset:
    if key.startswith("gen"):
        return synthetic.generate(synthetic.random_spec(int(key[3:])))
    return read_dataset(str(REF / key / f"{key}.arff"), float32=False)


KEYS = list(REFERENCE) + [f"gen{s}" for s in GENERATED]


@pytest.fixture(scope="module")
def weka_trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """File stem -> (the weighted ARFF file, J48's printed output on it)."""
    java = java_or_skip("the weighted J48 comparison")
    work = tmp_path_factory.mktemp("j48-weights")
    files: list[Path] = []
    for key in KEYS:
        ds = _data(key)
        ds = ds.subset(np.flatnonzero(ds.y >= 0))
        for i, kind in enumerate(KINDS):
            files.append(
                write_weighted_arff(ds, _weights(ds, kind, i), work / f"{key}-{kind}.arff")
            )
    outputs = run_j48(java, compile_driver(work), files)
    return {f.stem: (f, outputs[f.stem]) for f in files}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("key", KEYS)
def test_weighted_j48_equals_weka(
    weka_trees: dict[str, tuple[Path, str]], key: str, kind: str
) -> None:
    ds = _data(key)
    ds = ds.subset(np.flatnonzero(ds.y >= 0))
    w = _weights(ds, kind, KINDS.index(kind))
    ref = rt.parse_j48(weka_trees[f"{key}-{kind}"][1])
    model = train(ds, J48, weights=w)
    tree = rt.from_model(model, "j48")
    assert rt.diff(tree, ref.tree) == [], (
        f"treegen:\n{rt.render(tree)}\nweka:\n{rt.render(ref.tree)}"
    )
    assert (model.size, model.n_leaves) == (ref.size, ref.n_leaves)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("key", KEYS)
def test_the_files_instance_weights_train_as_j48(
    weka_trees: dict[str, tuple[Path, str]], key: str, kind: str
) -> None:
    """The file J48 read, read as `treegen train` reads it (its ``{w}`` weights taken):
    J48's tree, with no weights given to the trainer."""
    path, out = weka_trees[f"{key}-{kind}"]
    ds = read_dataset(str(path), weights=True)
    assert ds.weights is not None and ds.weights.size == ds.n_rows
    ref = rt.parse_j48(out)
    tree = rt.from_model(train(ds, J48), "j48")
    assert rt.diff(tree, ref.tree) == [], (
        f"treegen:\n{rt.render(tree)}\nweka:\n{rt.render(ref.tree)}"
    )
