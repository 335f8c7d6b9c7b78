"""Golden tests: treegen (flavor c45) against C4.5 Release 8's output on the nine datasets.

For every dataset in ``tests/data/reference`` (``c45r8.out`` is ``c4.5 -f
stem`` with the defaults):

* the default pruned tree equals the "Simplified Decision Tree" (tests,
  thresholds at ``%g``, branch sets, leaf classes, N and estimated E at one
  decimal).  When pruning changed nothing Release 8 prints no simplified
  tree (golf, hypo): the pruned tree must then equal the printed tree in
  tests, classes and N; its leaves' estimated E are not printed anywhere,
  and their sum is checked through the "Estimate" column instead;
* ``prune=False`` equals the "Decision Tree" (N and training E);
* sizes, training errors before/after pruning (Release 8's classifier on the
  training data) and the Estimate column equal the evaluation table.
* ``.test`` files: the reference runs used no ``-u``, so Release 8 printed no
  test-set evaluation and there is no error count to compare with.  What is
  checked instead: every test case whose path through Release 8's printed
  pruned tree meets only known values is classified by treegen as that
  printed leaf's class.

Soybean has an exact five-way gain-ratio tie decided in Release 8 by float32
rounding noise (docs/C45.md §9.1); treegen reproduces Release 8's pick, and
``test_soybean_tie_is_exact_and_decided_like_release8`` documents the tie
precisely so that a change in the float32 emulation is diagnosed at once.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.model.classify import predict
from treegen.model.core import Leaf, Model
from treegen.trainer import TrainOptions, train

from support import reftrees as rt

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
DATASETS = sorted(p.name for p in REF.iterdir() if p.is_dir())
WITH_TEST = [n for n in DATASETS if (REF / n / f"{n}.test").exists()]


@dataclass(frozen=True)
class Case:
    ds: Dataset
    pruned: Model
    unpruned: Model
    ref: rt.R8Output


@functools.cache
def case(name: str) -> Case:
    ds = read_dataset(str(REF / name / f"{name}.data"))
    return Case(
        ds,
        train(ds, TrainOptions()),
        train(ds, TrainOptions(prune=False)),
        rt.parse_c45r8((REF / name / "c45r8.out").read_text()),
    )


def _without_e(tree: rt.Tree) -> rt.Tree:
    if isinstance(tree, rt.Leaf):
        return rt.Leaf(tree.cls, tree.n, "-")
    return rt.make_split(
        tree.attribute, [rt.Branch(b.op, b.value, _without_e(b.child)) for b in tree.branches]
    )


def _errors(model: Model, ds: Dataset) -> int:
    return int(np.count_nonzero(predict(model, ds.X) != ds.y))


def test_nine_datasets() -> None:
    assert len(DATASETS) == 9 and len(WITH_TEST) == 7


@pytest.mark.parametrize("name", DATASETS)
def test_pruned_tree_matches_release8(name: str) -> None:
    c = case(name)
    ours = rt.from_model(c.pruned, "c45")
    if c.ref.simplified_printed:
        assert rt.diff(ours, c.ref.pruned) == [], rt.render(ours)
    else:
        # Unchanged by pruning: R8 printed only the grown tree (training E).
        assert rt.diff(_without_e(ours), _without_e(c.ref.pruned)) == [], rt.render(ours)


@pytest.mark.parametrize("name", DATASETS)
def test_unpruned_tree_matches_release8(name: str) -> None:
    c = case(name)
    ours = rt.from_model(c.unpruned, "c45")
    assert rt.diff(ours, c.ref.unpruned) == [], rt.render(ours)


@pytest.mark.parametrize("name", DATASETS)
def test_evaluation_matches_release8(name: str) -> None:
    c = case(name)
    ev = c.ref.training
    assert c.ds.n_rows == ev.items == c.ref.cases
    assert (c.unpruned.size, _errors(c.unpruned, c.ds)) == (ev.size_before, ev.errors_before)
    assert (c.pruned.size, _errors(c.pruned, c.ds)) == (ev.size_after, ev.errors_after)
    root = c.pruned.nodes[0]
    assert f"{100.0 * root.errors / root.items:.1f}" == ev.estimate
    # The root's estimate is the sum of the leaves' estimates (docs/C45.md §4),
    # accumulated in float32 as Release 8 does, hence the float32-sized tolerance.
    leaf_sum = sum(n.errors for n in c.pruned.nodes if isinstance(n, Leaf))
    assert math.isclose(leaf_sum, root.errors, rel_tol=1e-6)


def _row_values(ds: Dataset, i: int) -> dict[str, str | float | None]:
    row: dict[str, str | float | None] = {}
    for j, a in enumerate(ds.attributes):
        v = float(ds.X[i, j])
        if math.isnan(v) or a.kind == "ignore":
            row[a.name] = None
        elif a.is_nominal:
            row[a.name] = a.values[int(v)]
        else:
            row[a.name] = v
    return row


@pytest.mark.parametrize("name", WITH_TEST)
def test_test_set_follows_release8_printed_tree(name: str) -> None:
    c = case(name)
    test = read_dataset(str(REF / name / f"{name}.test"), schema=c.pruned.schema)
    assert test.n_rows > 0 and test.classes == c.ds.classes
    pred = predict(c.pruned, test.X)
    assert pred.shape == (test.n_rows,)
    checked = 0
    for i in range(test.n_rows):
        leaf = rt.route_known(c.ref.pruned, _row_values(test, i))
        if leaf is None:
            continue
        checked += 1
        assert test.classes[pred[i]] == leaf.cls, f"test case {i + 1}"
    # Most cases have a fully known path (labor-neg, 36% missing, the fewest).
    assert checked >= test.n_rows // 4, (checked, test.n_rows)


# -------------------------------------------------------------- soybean's tie

TIE_PATH = ("leafspot-size = dna", "int-discolor = none", "leaves = norm")
TIED = ("plant-growth", "stem-cankers", "canker-lesion", "external decay", "seed-discolor")


def _weights_at(ds: Dataset, path: tuple[str, ...]) -> np.ndarray:
    """Case weights reaching a node along nominal tests, unknowns split by known shares."""
    w = np.ones(ds.n_rows)
    names = [a.name for a in ds.attributes]
    for step in path:
        attr_name, _, value = step.partition(" = ")
        j = names.index(attr_name)
        code = ds.attributes[j].values.index(value)
        col = ds.X[:, j]
        known = ~np.isnan(col)
        share = w[known & (col == code)].sum() / w[known].sum()
        w = np.where(known, np.where(col == code, w, 0.0), w * share)
    return w


def _total_info(v: np.ndarray) -> float:
    v = v[v > 0]
    s = float(v.sum())
    return s * math.log2(s) - float((v * np.log2(v)).sum()) if s > 0 else 0.0


def _gain_ratios(ds: Dataset, w: np.ndarray, skip: set[str]) -> dict[str, tuple[float, float]]:
    """(gain, gain ratio) of every admissible nominal attribute at a node, float64 (§2)."""
    out: dict[str, tuple[float, float]] = {}
    k = len(ds.classes)
    for j, a in enumerate(ds.attributes):
        if not a.is_nominal or a.name in skip:
            continue
        col = ds.X[:, j]
        codes = np.where(np.isnan(col), 0, np.nan_to_num(col) + 1).astype(int)
        freq = np.zeros((len(a.values) + 1, k))
        np.add.at(freq, (codes, ds.y), w)
        cases, unknown = freq.sum(), freq[0].sum()
        known = cases - unknown
        if np.count_nonzero(freq[1:].sum(1) >= 2) < 2:
            continue
        base = _total_info(freq[1:].sum(0)) / known
        gain = (1 - unknown / cases) * (base - sum(_total_info(f) for f in freq[1:]) / known)
        info = _total_info(freq.sum(1)) / cases
        out[a.name] = (gain, gain / info)
    return out


def test_soybean_tie_is_exact_and_decided_like_release8() -> None:
    """Five attributes have gain ratio exactly 1 at one node; R8 picked the last.

    A ratio is exactly 1 when no case has the value unknown and every class
    lies within a single value group (the value partition coarsens the class
    partition): then gain = H(class) - H(class|A) = H(A) = split info.  The
    five attributes below satisfy this at the node; all pass the average-gain
    rule and no other attribute comes within 0.05.  Mathematically every
    tie-breaking rule is arbitrary here: Release 8 picked seed-discolor (last
    in declaration order) through float32 rounding; J48 ("first within 1e-6")
    picks plant-growth and after subtree raising prints stem-cankers (j48.out).
    treegen's c45 flavour emulates Release 8's float32 arithmetic and picks
    seed-discolor, so soybean matches Release 8 exactly (asserted by the
    tests above); this test pins down why that node is fragile.
    """
    c = case("soybean-r8")
    ds = c.ds
    w = _weights_at(ds, TIE_PATH)
    reach = w > 0
    assert math.isclose(float(w.sum()), 57.534, abs_tol=1e-3)
    exact = []
    for j, a in enumerate(ds.attributes):
        if not a.is_nominal or a.name in {s.partition(" = ")[0] for s in TIE_PATH}:
            continue
        col = ds.X[reach, j]
        if np.isnan(col).any():
            continue
        classes_per_value = {int(v): set(ds.y[reach][col == v].tolist()) for v in np.unique(col)}
        groups = list(classes_per_value.values())
        if len(groups) >= 2 and all(
            g1.isdisjoint(g2) for i, g1 in enumerate(groups) for g2 in groups[i + 1 :]
        ):
            exact.append(a.name)
    assert tuple(exact) == TIED  # declaration order
    ratios = _gain_ratios(ds, w, {s.partition(" = ")[0] for s in TIE_PATH})
    average = float(np.mean([g for g, _ in ratios.values()]))
    for name in TIED:
        gain, ratio = ratios[name]
        assert math.isclose(ratio, 1.0, rel_tol=1e-12) and gain >= average - 1e-3
    assert max(r for n, (_, r) in ratios.items() if n not in TIED) < 0.95
    # Release 8's printed choice, in both trees, and treegen's.
    for tree in (c.ref.unpruned, c.ref.pruned):
        node = rt.subtree_at(tree, TIE_PATH)
        assert isinstance(node, rt.Split) and node.attribute == "seed-discolor"
    for model in (c.unpruned, c.pruned):
        node = rt.subtree_at(rt.from_model(model, "c45"), TIE_PATH)
        assert isinstance(node, rt.Split) and node.attribute == "seed-discolor"


@pytest.mark.parametrize("name", DATASETS)
def test_reference_engine_builds_the_same_models(name: str) -> None:
    """The depth-first engine (Release 8's order) gives bit-identical models to the default."""
    c = case(name)
    for opts, model in ((TrainOptions(), c.pruned), (TrainOptions(prune=False), c.unpruned)):
        dfs = train(c.ds, opts, engine="dfs")
        assert repr(dfs.nodes) == repr(model.nodes)  # repr of floats is exact; NaN-safe
