"""c4.5rules step 2 from running counts (``treegen.rules.paths``, in numpy and in C)
against the rule as stated (``treegen.rules.generate.generalise``): the same conditions
and the same rate, float for float, for every leaf of unpruned trees on the reference
sets (plain and ``--subsets``), on Weka sets with unknown values, and on synthetic data."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.model.core import Model
from treegen.rules import native
from treegen.rules.core import CaseColumns, Condition, satisfied
from treegen.rules.generate import _Data, generalise, leaf_paths
from treegen.rules.paths import _Prefix, generalise_paths
from treegen.trainer import TrainOptions, train
from treegen.trainer.stats import ErrorBound

DATA = Path(__file__).resolve().parents[1] / "data"
REF = DATA / "reference"
BOUND = ErrorBound(0.25, "c45")


@functools.cache
def _case(kind: str, name: str, subsets: bool) -> tuple[Dataset, Model]:
    if kind == "ref":
        ds = read_dataset(str(REF / name / f"{name}.data"))
    elif kind == "weka":
        ds = read_dataset(str(DATA / "weka" / f"{name}.arff"))
    else:
        ds = synthetic.generate(synthetic.summary_spec(int(name), 3))
    return ds, train(ds, TrainOptions(prune=False, subsets=subsets))


CASES = (
    [("ref", p.name, s) for p in sorted(REF.iterdir()) if p.is_dir() for s in (False, True)]
    + [("weka", n, False) for n in ("breast-cancer", "credit-g", "diabetes", "glass")]
    + [("synthetic", "2000", False), ("synthetic", "2000", True)]
)


@pytest.mark.parametrize("accelerated", [True, False], ids=["C", "numpy"])
@pytest.mark.parametrize(("kind", "name", "subsets"), CASES)
def test_every_leaf_generalises_as_the_stated_rule(
    kind: str, name: str, subsets: bool, accelerated: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ways: the accelerator's (rulegen.c) and numpy's."""
    if accelerated and native.crules is None:
        pytest.skip("the C accelerator is not built")
    if not accelerated:
        monkeypatch.setattr(native, "crules", None)
    ds, tree = _case(kind, name, subsets)
    data = _Data(ds, BOUND)
    paths = [(path, tree.nodes[leaf].cls) for leaf, path in leaf_paths(tree, empty=True)]
    # Also every leaf under another class: rules that cover few cases, or none, correctly.
    paths += [(path, (cls + 1) % len(ds.classes)) for path, cls in paths]
    fast = generalise_paths(ds.X, ds.y, paths, BOUND)
    slow = [generalise(data, path, cls) for path, cls in paths]
    assert len(paths) > 2
    assert fast == slow


def test_paths_in_any_order_give_the_same_rules() -> None:
    """The shared prefix is kept only where it is shared: a shuffled walk gives the same."""
    ds, tree = _case("ref", "crx", False)
    paths = [(path, tree.nodes[leaf].cls) for leaf, path in leaf_paths(tree)]
    order = np.random.default_rng(5).permutation(len(paths))
    shuffled = [paths[i] for i in order]
    in_order = generalise_paths(ds.X, ds.y, paths, BOUND)
    assert generalise_paths(ds.X, ds.y, shuffled, BOUND) == [in_order[i] for i in order]


def test_a_path_of_more_than_255_conditions_counts_every_failure() -> None:
    """Failure counts start as bytes; a path longer than 255 conditions widens them."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, size=(50, 1))
    schema = Schema((Attribute("x", "continuous"),), ("a", "b"))
    ds = Dataset(schema, x, (x[:, 0] > 0.5).astype(np.int32))
    cuts = rng.uniform(0.2, 0.8, size=300).astype(np.float32)
    path = tuple(Condition(0, ">", threshold=float(c)) for c in cuts)
    prefix = _Prefix(ds.X)
    prefix.follow(path)
    want = sum((~satisfied(c, ds.X)).astype(np.int64) for c in path)
    assert prefix.fails[-1].dtype.itemsize > 1
    assert np.array_equal(prefix.fails[-1], want)
    assert int(want.max()) > 255


@pytest.mark.skipif(native.crules is None, reason="the C accelerator is not built")
def test_the_c_generalisation_refuses_arrays_of_the_wrong_size() -> None:
    assert native.crules is not None
    go = native.crules.rule_generalise
    fails, wrong, kept = np.zeros(10, np.uint8), np.zeros(10, bool), np.empty(3, np.uint8)
    missed = np.zeros((3, 10), bool)
    assert go(fails, missed, wrong, kept, math.log(0.25), BOUND.coeff) == BOUND.add_errs(10, 0) / 10
    assert list(kept) == [0, 0, 0]  # nothing fails: every condition goes
    for bad in (
        (fails, missed[:, :9].copy(), wrong, kept),
        (fails, missed, wrong[:9], kept),
        (fails.astype(np.int32), missed, wrong, kept),
        (np.zeros(10, np.uint8), np.zeros((256, 10), bool), wrong, np.empty(256, np.uint8)),
    ):
        with pytest.raises(ValueError, match="rule_generalise"):
            go(*bad, math.log(0.25), BOUND.coeff)


@pytest.mark.parametrize("float32", [True, False])
def test_conditions_are_tested_as_defined_on_hostile_values(float32: bool) -> None:
    """CaseColumns (one read-out of each column for many conditions) against the plain
    definition: an unknown value satisfies nothing; c45 rounds x to float32 first."""
    big = float(np.finfo(np.float32).max)
    values = [np.nan, 0.0, -0.0, 1.0, 2.0, 2.5, -1e300, 1e300, big, big * 1.0000001, 0.1, np.inf]
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.choice(values, 400), rng.choice([np.nan, 0.0, 1.0, 2.0], 400)])
    cols = CaseColumns(X, float32)
    conds = [Condition(1, "=", value=v) for v in (0, 1, 2)]
    conds += [Condition(1, "in", values=vs) for vs in ((0, 2), (1,), (0, 1, 2))]
    for t in (0.0, 1.0, 2.5, 0.1, big, -big):
        t32 = float(np.float32(t))
        conds += [Condition(0, op, threshold=t32) for op in ("<=", ">")]
    for c in conds:
        col = X[:, c.attribute]
        known = ~np.isnan(col)
        if c.op == "=":
            want = known & (col == c.value)
        elif c.op == "in":
            want = known & np.isin(col, c.values)
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                v = col.astype(np.float32) if float32 else col
                t = np.float32(c.threshold) if float32 else c.threshold
                want = known & ((v <= t) if c.op == "<=" else (v > t))
        assert np.array_equal(cols.satisfied(c), want), c
        assert np.array_equal(satisfied(c, X, float32), want), c
