"""Training terminates on adjacent float32 values.

The float32 midpoint of two adjacent float32 values is a tie, rounded to
even: half the time it is the larger value itself, and a threshold there
sends every case of the node left, so the node was split again and again
(Release 8 recurses until it crashes on such data).  treegen takes the
lower value as the threshold then, and both growers turn any test that
would leave all the known weight in one branch into a leaf.  Checked
through the CLI on the issue's six rows, and on random data full of
adjacent pairs with both engines, both flavours, accelerator on and off.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.errors import TrainError
from treegen.model.core import Model
from treegen.trainer import TrainOptions, native, splits, train
from treegen.trainer.release8 import segments
from treegen.trainer.splits import FloatArray

from support.cli import run_process
from support.timelimit import time_limit

LO, HI = 1463635.125, 1463635.25  # adjacent float32 values, midpoint rounds onto HI


class Hang(Exception):
    pass


def trained(
    ds: Dataset,
    opts: TrainOptions,
    engine: str = "level",
    seconds: float = 5.0,
    case_order: str = "auto",
) -> Model:
    """``train`` that fails the test with :class:`Hang` instead of running forever."""
    with time_limit(seconds, lambda: Hang(f"training did not finish within {seconds} s")):
        return train(ds, opts, engine=engine, case_order=case_order)  # type: ignore[arg-type]


def test_midpoint_rounds_onto_the_larger_value() -> None:
    """The premise: LO, HI are adjacent and their float32 midpoint is HI."""
    lo, hi = np.float32(LO), np.float32(HI)
    assert np.nextafter(lo, np.float32(np.inf)) == hi
    assert (lo + hi) / np.float32(2) == hi


def _treegen(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_process(*args, cwd=cwd, env=env, timeout=20)


@pytest.mark.slow
@pytest.mark.parametrize("no_native", ["0", "1"])
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_issue_hang_csv_trains_and_separates_the_values(
    tmp_path: Path, flavor: str, no_native: str
) -> None:
    rows = [f"{LO},x"] * 3 + [f"{HI},y"] * 3
    (tmp_path / "hang.csv").write_text("a,cls\n" + "\n".join(rows) + "\n")
    env = {"TREEGEN_NO_NATIVE": no_native}
    p = _treegen("train", "hang.csv", "--flavor", flavor, cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    nodes = json.loads((tmp_path / "hang.tree").read_text())["nodes"]
    assert [n["kind"] for n in nodes] == ["continuous", "leaf", "leaf"]
    # The lower value is the threshold: a <= LO is x, a > LO (that is, HI) is y.
    assert nodes[0]["threshold"] == LO
    assert [nodes[1]["cls"], nodes[2]["cls"]] == [0, 1]
    assert [nodes[1]["items"], nodes[2]["items"]] == [3.0, 3.0]
    p = _treegen("predict", "hang.tree", "hang.csv", cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["x"] * 3 + ["y"] * 3


def _adjacent_data(seed: int, n: int = 300) -> Dataset:
    """Three continuous attributes drawn mostly from a few adjacent float32 pairs.

    Every pair's lower value has an odd last mantissa bit, so the float32
    midpoint ties to the (even) upper value; the classes depend on which
    side of its pair a value is, so the best cut often falls inside a pair.
    Other values of very different magnitudes, a nominal attribute and 5%
    missing values (the fractional-weight paths) are mixed in.
    """
    rng = np.random.default_rng(seed)
    n_cont, n_pairs = 3, 3
    X = np.empty((n, n_cont + 1))
    upper = np.zeros((n, n_cont), dtype=np.bool_)
    for j in range(n_cont):
        mags = rng.choice([1.0, 1e3, 1463635.0, 1e7, 3e20, 1e-7], size=n_pairs)
        lo = (mags * rng.uniform(1, 2, size=n_pairs)).astype(np.float32)
        lo = (lo.view(np.uint32) | np.uint32(1)).view(np.float32)
        hi = np.nextafter(lo, np.float32(np.inf))
        k = rng.integers(0, n_pairs, size=n)
        upper[:, j] = rng.random(n) < 0.5
        col = np.where(upper[:, j], hi[k], lo[k]).astype(np.float64)
        other = rng.random(n) < 0.25
        col[other] = rng.choice([-5.0, 0.5, 2.0, 1e4, 2e6]) * rng.random(int(other.sum()))
        col[rng.random(n) < 0.05] = np.nan
        X[:, j] = col
    X[:, n_cont] = rng.integers(0, 3, size=n)
    X[rng.random(n) < 0.05, n_cont] = np.nan
    y = (upper[:, 0].astype(np.int32) + upper[:, 1] * (X[:, n_cont] == 1)) % 3
    flip = rng.random(n) < 0.05
    y[flip] = rng.integers(0, 3, size=int(flip.sum()))
    attrs = tuple(Attribute(f"c{j}", "continuous") for j in range(n_cont)) + (
        Attribute("nom", "nominal", ("p", "q", "r")),
    )
    return Dataset(Schema(attrs, ("k0", "k1", "k2")), X, y.astype(np.int32))


def _no_child_identical_to_its_parent(m: Model) -> None:
    for i, node in enumerate(m.nodes):
        if node.kind == "leaf":
            continue
        kids = [m.nodes[c] for c in node.children]
        assert sum(k.items > 0 for k in kids) >= 2, f"node {i}: one branch has all the weight"
        for k in kids:
            assert (k.items, k.dist) != (node.items, node.dist), f"node {i}: child equals it"


SEEDS = range(6)
# The row-order engines, and Release 8's case order: each set must agree within
# itself (the data have unknown values, so the two orders' float sums differ).
ORDERS = {"rows": ("level", "dfs"), "release8": ("level",)}


def _all_paths(ds: Dataset, opts: TrainOptions, monkeypatch: pytest.MonkeyPatch) -> list[Model]:
    """The model of each case order: every engine's, accelerator on and off, equal."""
    out = []
    for order, engines in ORDERS.items():
        models = [trained(ds, opts, e, case_order=order) for e in engines]
        with monkeypatch.context() as mp:
            mp.setattr(native, "cscan", None)
            mp.setattr(native, "cprune", None)
            models += [trained(ds, opts, e, case_order=order) for e in engines]
        for m in models[1:]:
            assert m.nodes == models[0].nodes, order
        out.append(models[0])
    return out


@pytest.mark.slow
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_adjacent_float32_data_terminates_engines_agree(
    flavor: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for seed in SEEDS:
        ds = _adjacent_data(seed)
        for prune in (False, True):
            opts = TrainOptions(prune=prune, flavor=flavor)  # type: ignore[arg-type]
            for m in _all_paths(ds, opts, monkeypatch):
                assert any(n.kind == "continuous" for n in m.nodes)
                _no_child_identical_to_its_parent(m)


def test_adjacent_data_has_cuts_inside_pairs() -> None:
    """The data does test the issue: c45 cuts fall between tie-rounding adjacent values."""
    hits = 0
    for seed in SEEDS:
        ds = _adjacent_data(seed)
        for node in trained(ds, TrainOptions(prune=False)).nodes:
            if node.kind != "continuous":
                continue
            t = np.float32(node.threshold)
            nxt = np.nextafter(t, np.float32(np.inf))
            col = ds.X[:, node.attribute].astype(np.float32)
            if (col == nxt).any() and (t + nxt) / np.float32(2) == nxt:
                hits += 1
    assert hits >= len(SEEDS)


def _cut_on_the_larger_value(lo: FloatArray, hi: FloatArray, dt: type[np.floating]) -> FloatArray:
    """A broken threshold rule: a cut below a node's largest value sends all its cases left."""
    return np.asarray(hi, dtype=dt)


@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_a_test_with_one_populated_branch_is_a_leaf(
    flavor: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The growers' own guard, whatever the threshold rule: such a test is no split.
    (Release 8's order scores through its numpy path here: the C one, release8/segments,
    has the midpoint rule in C, where the broken rule cannot reach.)"""
    monkeypatch.setattr(splits, "cut_midpoint", _cut_on_the_larger_value)
    monkeypatch.setattr(segments, "available", lambda ctx: False)
    X = np.asarray([[LO]] * 3 + [[HI]] * 3)
    y = np.asarray([0] * 3 + [1] * 3, dtype=np.int32)
    tiny = Dataset(Schema((Attribute("a", "continuous"),), ("x", "y")), X, y)
    for m in _all_paths(tiny, TrainOptions(flavor=flavor), monkeypatch):  # type: ignore[arg-type]
        assert [(n.kind, n.items) for n in m.nodes] == [("leaf", 6.0)]
    for seed in SEEDS[:3]:
        opts = TrainOptions(prune=False, flavor=flavor)  # type: ignore[arg-type]
        for m in _all_paths(_adjacent_data(seed), opts, monkeypatch):
            _no_child_identical_to_its_parent(m)


FLT_MAX = float(np.finfo(np.float32).max)
DBL_MAX = float(np.finfo(np.float64).max)


@pytest.mark.parametrize(
    ("flavor", "lo", "hi"),
    [
        ("c45", 3.0e38, FLT_MAX),  # the float32 sum overflows: midpoint inf
        ("j48", 1.7e308, DBL_MAX),  # the double sum overflows: midpoint inf
    ],
)
@pytest.mark.parametrize("engine", ["level", "dfs"])
def test_midpoint_not_below_the_larger_value(
    engine: str, flavor: str, lo: float, hi: float
) -> None:
    """A midpoint that is not strictly below the larger value gives the lower one."""
    X = np.asarray([[lo]] * 3 + [[hi]] * 3)
    y = np.asarray([0] * 3 + [1] * 3, dtype=np.int32)
    ds = Dataset(Schema((Attribute("a", "continuous"),), ("x", "y")), X, y)
    m = trained(ds, TrainOptions(flavor=flavor), engine)  # type: ignore[arg-type]
    assert [n.kind for n in m.nodes] == ["continuous", "leaf", "leaf"]
    assert m.nodes[0].threshold == (float(np.float32(lo)) if flavor == "c45" else lo)
    assert [m.nodes[1].cls, m.nodes[2].cls] == [0, 1]


@pytest.mark.parametrize(
    ("flavor", "lo", "hi"),
    [
        ("c45", 1.0, math.inf),
        ("c45", -math.inf, math.inf),
        ("c45", 1.0, 1e39),
        ("j48", 1.0, math.inf),
        ("j48", -math.inf, 1.0),
    ],
)
@pytest.mark.parametrize("engine", ["level", "dfs"])
def test_infinite_values_are_refused(engine: str, flavor: str, lo: float, hi: float) -> None:
    """An infinite value (in the flavor's precision) has no midpoint: a one-line TrainError.

    The readers refuse such literals at their cell; this is a Dataset built in memory.
    """
    X = np.asarray([[lo]] * 3 + [[hi]] * 3)
    y = np.asarray([0] * 3 + [1] * 3, dtype=np.int32)
    ds = Dataset(Schema((Attribute("a", "continuous"),), ("x", "y")), X, y)
    with pytest.raises(TrainError, match="out of range"):
        trained(ds, TrainOptions(flavor=flavor), engine)  # type: ignore[arg-type]
