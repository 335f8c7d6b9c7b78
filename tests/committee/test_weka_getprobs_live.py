"""J48's class distributions on rows with missing values, against live Weka 3.6.14:
where treegen's probabilities part from Weka's, and where they do not.

tests/java/J48Numbers.java builds Weka's J48 on every file in one JVM and prints the
numbers its ``distributionForInstance`` reads, node by node (``Distribution.prob(c)``
of each node, the shares ``perBag(b) / total()`` a missing value splits by, the
``prob(c, b)`` an empty branch answers with), then that distribution of every row.

* Fed Weka's numbers, treegen's getProbs (:func:`treegen.committee.weka.table_distribution`,
  the C accelerator and the numpy code) gives Weka's distribution bit for bit on every
  row, rows with missing values included: the arithmetic (the fractional descent, the
  weights times the leaves' probabilities, the sums in branch order from 0) is Weka's.
* With its own numbers a treegen tree gives the same bits: the j48 trainer replays
  J48's orders where sums of fractional weights depend on them
  (:mod:`treegen.trainer.j48order`: the cases sorted in place while the test is chosen,
  a split's unknown cases added after its known ones), so every node's class weights
  and total are Weka's, and each test keeps J48's ``perBag`` (the model's ``per_bag``),
  which a missing value is split by.  That is not the branches' own totals over the
  test's (checked here on Weka's own numbers): without ``per_bag`` the distributions
  differ again.  So a bagged committee's averaged distribution equals Weka's on data
  with missing values too (tests/committee/test_committee_weka.py).
"""

from __future__ import annotations

import dataclasses
import subprocess

import numpy as np
import pytest

from treegen.committee import weka
from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.model import native as model_native
from treegen.model.core import Leaf, Model
from treegen.trainer import TrainOptions, train

from support.weka import SEEDS, TESTS, WEKA_JAR, compile_java, file_blocks, java_or_skip

pytestmark = pytest.mark.toolchain

J48 = TrainOptions(flavor="j48")
DRIVER = TESTS / "java" / "J48Numbers.java"


def _with_missing() -> list[int]:
    return [s for s in SEEDS if np.isnan(synthetic.generate(synthetic.random_spec(s)).X).any()]


MISSING = _with_missing()


@dataclasses.dataclass
class WekaTree:
    leaf: list[bool]
    empty: list[bool]
    total: list[float]
    prob: np.ndarray
    share: list[list[float]]
    empty_prob: list[np.ndarray]  # prob(c, b) of each empty son, in pre-order
    dist: np.ndarray


def _parse(block: str) -> WekaTree:
    leaf, empty, total, prob, share, empty_prob, dist = [], [], [], [], [], [], []
    for ln in block.splitlines():
        f = ln.split()
        if f[0] == "N":
            k = f.index("share")
            leaf.append(f[1] == "1")
            empty.append(f[2] == "1")
            total.append(float(f[4]))
            prob.append([float(v) for v in f[6:k]])
            share.append([float(v) for v in f[k + 1 :]])
        elif f[0] == "D":
            empty_prob.append(np.array([float(v) for v in f[1:]]))
        elif f[0] == "P":
            dist.append([float(v) for v in f[2:]])
    return WekaTree(leaf, empty, total, np.array(prob), share, empty_prob, np.array(dist))


@pytest.fixture(scope="module")
def wekas(tmp_path_factory: pytest.TempPathFactory) -> dict[int, WekaTree]:
    java = java_or_skip("the getProbs comparison with Weka")
    work = tmp_path_factory.mktemp("weka-getprobs")
    classes = compile_java(DRIVER, work / "classes", "the getProbs comparison")
    files = [
        synthetic.write_arff(synthetic.generate(synthetic.random_spec(s)), work / f"gen{s}.arff")
        for s in MISSING
    ]
    proc = subprocess.run(
        [java, "-Xmx1g", "-cp", f"{WEKA_JAR}:{classes}", "J48Numbers", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    out = {int(stem[3:]): _parse(body) for stem, body in file_blocks(proc.stdout).items()}
    assert sorted(out) == MISSING
    return out


def _wekas_table(model: Model, w: WekaTree) -> weka.Table:
    """treegen's table of ``model`` (Weka's tree, node for node) with Weka's numbers."""
    t = weka.table(model)
    assert t.leaf.tolist() == w.leaf
    assert t.empty.tolist() == w.empty
    share = t.share.copy()
    prob = w.prob.copy()
    son = 0
    for i, node in enumerate(model.nodes):
        assert len(node.children) == len(w.share[i])
        for b, c in enumerate(node.children):
            share[c] = w.share[i][b]
            if w.empty[c]:
                # The table answers an empty branch with its test's prob(c): Weka's
                # prob(c, b) is that when the branch's weight is 0 (within 1e-6).
                assert np.array_equal(w.empty_prob[son], prob[i])
                son += 1
    assert son == len(w.empty_prob)
    return dataclasses.replace(t, prob=prob, share=share)


def _rows(seed: int) -> tuple[Dataset, np.ndarray]:
    ds = synthetic.generate(synthetic.random_spec(seed))
    return ds, ds.X[ds.y >= 0]


@pytest.mark.parametrize("native", [True, False])
def test_getprobs_on_wekas_numbers_is_wekas_distribution(
    wekas: dict[int, WekaTree], native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if native and model_native.cclassify is None:
        pytest.skip("the C accelerator is not built")
    if not native:
        monkeypatch.setattr(model_native, "cclassify", None)
    missing_rows = 0
    for seed in MISSING:
        ds, x = _rows(seed)
        model = train(ds, J48)
        w = wekas[seed]
        got = weka.table_distribution(_wekas_table(model, w), x)
        assert np.array_equal(got, w.dist), seed
        missing_rows += int(np.isnan(x).any(axis=1).sum())
    assert len(MISSING) >= 50 and missing_rows >= 10_000


def test_treegens_own_numbers_are_wekas(wekas: dict[int, WekaTree]) -> None:
    """Every node's numbers and every row's distribution equal Weka's, bit for bit; the
    branch totals alone would not do (module docstring)."""
    by_items_differ = weka_shares_differ = 0
    for seed in MISSING:
        ds, x = _rows(seed)
        model = train(ds, J48)
        w = wekas[seed]
        t = weka.table(model)
        assert np.array_equal(weka.table_distribution(t, x), w.dist), seed
        assert np.array_equal(t.prob[~t.empty], w.prob[~t.empty]), seed
        assert [nd.items for nd in model.nodes] == w.total, seed
        assert np.array_equal(t.share, _wekas_table(model, w).share), seed
        assert all(nd.per_bag for nd in model.nodes if not isinstance(nd, Leaf)), seed
        # The model without per_bag: each branch's share is its total over the test's.
        plain = dataclasses.replace(
            model,
            nodes=tuple(
                nd if isinstance(nd, Leaf) else dataclasses.replace(nd, per_bag=())
                for nd in model.nodes
            ),
        )
        by_items_differ += not np.array_equal(weka.table_distribution(weka.table(plain), x), w.dist)
        # Weka's own branch totals over their test's: not always its shares.
        by_totals = [
            w.total[c] / w.total[i] for i, nd in enumerate(model.nodes) for c in nd.children
        ]
        weka_shares_differ += by_totals != [s for sh in w.share for s in sh]
    assert by_items_differ > 0 and weka_shares_differ > 0
