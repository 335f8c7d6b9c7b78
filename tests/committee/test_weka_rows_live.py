"""Weka's row orders against live Weka (tests/java/CommitteeBatch.java): Bagging's bootstrap
draws (``Instances.resampleWithWeights`` with ``java.util.Random(S)``) row for row, and
``Evaluation.crossValidateModel``'s folds through their outcome: ``cv --weka-folds``
misclassifies as many rows as Weka's ``-x 10 -s S`` of J48, AdaBoostM1 and Bagging."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.analysis.cv import cross_validate
from treegen.committee import vote
from treegen.committee.bag import bag, bag_rows
from treegen.committee.boost import boost
from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.model.classify import predict
from treegen.trainer import TrainOptions, train

from support.weka import REF, compile_committee_driver, java_or_skip, run_committee

pytestmark = pytest.mark.toolchain

J48 = TrainOptions(flavor="j48")


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    java = java_or_skip("the Weka row-order comparison")
    work = tmp_path_factory.mktemp("weka-rows")
    return java, compile_committee_driver(work), work


@pytest.mark.parametrize(("n", "seed"), [(1, 1), (7, 1), (100, 1), (1000, 42), (333, -5)])
def test_bootstrap_draws_are_wekas(driver: tuple[str, Path, Path], n: int, seed: int) -> None:
    java, classes, work = driver
    schema = Schema((Attribute("row", "continuous"),), ("a", "b"), "class")
    ds = Dataset(schema, np.arange(n, dtype=np.float64)[:, None], np.arange(n, dtype=np.int32) % 2)
    path = synthetic.write_arff(ds, work / f"rows{n}_{seed}.arff")
    block = run_committee(java, classes, ["resample", str(seed), "4", str(path)])[path.stem]
    theirs = [[int(v) for v in ln.split()[1:]] for ln in block.splitlines() if ln.startswith("S")]
    ours = [r.tolist() for r in bag_rows(n, 4, seed)]
    assert ours == theirs


def _predict(m: object, x: np.ndarray) -> np.ndarray:
    return predict(m, x) if hasattr(m, "nodes") else vote.predict(m, x)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["vote-r8", "labor-neg", "monk3", "soybean-r8"])
@pytest.mark.parametrize("kind", ["j48", "boost", "bag"])
def test_cv_counts_are_wekas(driver: tuple[str, Path, Path], name: str, kind: str) -> None:
    java, classes, _ = driver
    path = REF / name / f"{name}.arff"
    block = run_committee(java, classes, ["cv", "10", "3", kind, "5", "1", str(path)])[name]
    incorrect = float(next(ln for ln in block.splitlines() if ln.startswith("I ")).split()[1])
    ds = read_dataset(str(path), float32=False)
    fits = {
        "j48": lambda d: train(d, J48),
        "boost": lambda d: boost(d, J48, 5),
        "bag": lambda d: bag(d, J48, 5, 1),
    }
    res = cross_validate(ds, fits[kind], _predict, folds=10, seed=3, weka=True)
    assert res.errors == int(incorrect)
