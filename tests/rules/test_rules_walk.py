"""The C walk over the unpruned tree's paths (treegen/rules/walk.py, native/rwalk.c):
the candidate rules, their tests and their cases are those of the Python loop."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from tests.rules.test_rules_native import _mixed
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model.core import ContinuousTest, Leaf, Model, NominalTest
from treegen.rules import caselists, paths, walk
from treegen.rules.native import crules
from treegen.trainer import TrainOptions, train
from treegen.trainer.stats import ErrorBound

needs_native = pytest.mark.skipif(crules is None, reason="C accelerator not built")


def _signed_zeros(seed: int, n: int) -> Dataset:
    """_mixed with its first attribute's values near 0 and both 0.0 and -0.0 among
    them, so that cuts at 0 of either sign can be met."""
    ds = _mixed(seed, n)
    rng = np.random.default_rng([53, seed])
    X = ds.X.copy()
    known = ~np.isnan(X[:, 0])
    X[known, 0] = rng.choice([-1.0, -0.0, 0.0, 0.5, 1.0], size=int(known.sum()))
    y = ds.y.copy()
    y[X[:, 0] == 0] = 2  # a cut at 0 separates something
    return Dataset(ds.schema, X, y, "test")


def _both(
    ds: Dataset, subsets: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, list[npt.NDArray[np.int32]], str, list[npt.NDArray[np.int32]]]:
    tree = train(ds, TrainOptions(prune=False, subsets=subsets, min_cases=1))
    bound = ErrorBound(0.25, "c45")
    rows: list[npt.NDArray[np.int32]] = []
    got = paths.candidates(ds, tree, bound, rows=rows)
    with monkeypatch.context() as m:
        m.setattr(paths, "crules", None)  # the Python loop
        rows_py: list[npt.NDArray[np.int32]] = []
        want = paths.candidates(ds, tree, bound, rows=rows_py)
    # repr: a cut's sign too (-0.0 == 0.0)
    return repr(got), rows, repr(want), rows_py


@needs_native
@pytest.mark.parametrize("subsets", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_walk_equals_python_loop(seed: int, subsets: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules (numbers, conditions, classes, error rates), tests and cases."""
    got, rows, want, rows_py = _both(_mixed(seed, 900), subsets, monkeypatch)
    assert got == want
    assert len(rows) == len(rows_py) > 10
    for a, b in zip(rows, rows_py, strict=True):
        assert a.dtype == b.dtype == np.int32
        assert np.array_equal(a, b)


@needs_native
def test_walk_names_a_cut_by_the_first_equal_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cut of -0.0 met after a cut of 0.0 on the same attribute is the 0.0 one, in the
    rules as in the Python loop's (Release 8 keeps one record per distinct test)."""
    schema = Schema(
        (Attribute("w", "continuous", ()), Attribute("x", "nominal", ("p", "q"))), ("yes", "no")
    )
    w = [-1.0, -0.0, 0.0, 1.0, 2.0, -2.0]
    # x = p: yes when w <= 0; x = q: the other way round
    X = np.array([(v, x) for x in (0.0, 1.0) for v in w * 3], dtype=np.float64)
    y = np.where((X[:, 0] <= 0) == (X[:, 1] == 0), 0, 1).astype(np.int32)
    ds = Dataset(schema, X, y, "test")
    d = (9.0, 9.0)
    nodes = (
        NominalTest(0, 36.0, 18.0, (18.0, 18.0), attribute=1, children=(1, 4)),
        ContinuousTest(0, 18.0, 9.0, d, 0, 0.0, (2, 3)),
        Leaf(0, 12.0, 0.0, (12.0, 0.0)),
        Leaf(1, 6.0, 0.0, (0.0, 6.0)),
        ContinuousTest(1, 18.0, 9.0, d, 0, -0.0, (5, 6)),
        Leaf(1, 12.0, 0.0, (0.0, 12.0)),
        Leaf(0, 6.0, 0.0, (6.0, 0.0)),
    )
    tree = Model(schema, nodes)
    bound = ErrorBound(0.25, "c45")
    got = repr(paths.candidates(ds, tree, bound))
    with monkeypatch.context() as m:
        m.setattr(paths, "crules", None)
        want = repr(paths.candidates(ds, tree, bound))
    assert got == want
    assert got.count("threshold=0.0") >= 4
    assert "-0.0" not in got


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_walk_keeps_the_first_zero_cut(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cuts at 0.0 and -0.0 on one attribute are the first met, as the Python loop's."""
    got, rows, want, rows_py = _both(_signed_zeros(seed, 700), False, monkeypatch)
    assert got == want
    assert "threshold=0.0" in got or "threshold=-0.0" in got
    assert all(np.array_equal(a, b) for a, b in zip(rows, rows_py, strict=True))


def _noisy(n: int) -> Dataset:
    """_mixed's kind of data with more attributes and more noise: a deep unpruned tree."""
    rng = np.random.default_rng(61)
    cont = np.round(rng.normal(size=(n, 4)) * 10, 1)
    nom = rng.integers(0, 3, size=(n, 2)).astype(np.float64)
    X = np.concatenate([cont, nom], axis=1)
    X[rng.random(X.shape) < 0.03] = np.nan
    z = np.nan_to_num(X)
    y = ((z[:, 0] > 0) + (z[:, 1] > 5) + (z[:, 2] > -3) + (X[:, 4] == 1)) % 3
    return _three_classes(X, y, rng, 0.1, 4, 3)


def _three_classes(
    X: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    rng: np.random.Generator,
    noise: float,
    n_cont: int,
    n_values: int,
) -> Dataset:
    """``X``'s first ``n_cont`` columns continuous, the others nominal of ``n_values``
    values, and classes ``y`` (0 to 2), a ``noise`` share of them drawn at random."""
    flip = rng.random(y.size) < noise
    y[flip] = rng.integers(0, 3, size=int(flip.sum()))
    attrs = tuple(Attribute(f"c{j}", "continuous", ()) for j in range(n_cont)) + tuple(
        Attribute(f"n{j}", "nominal", tuple(f"v{v}" for v in range(n_values)))
        for j in range(X.shape[1] - n_cont)
    )
    return Dataset(Schema(attrs, ("k0", "k1", "k2"), "class"), X, y.astype(np.int32), "test")


@needs_native
def test_walk_equals_python_loop_over_many_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """With 6,000 cases (94 words a row) the walk reads a rule's cases from the span of
    words of its first dropped condition's depth: the rules and cases are still the
    Python loop's."""
    got, rows, want, rows_py = _both(_noisy(6000), False, monkeypatch)
    assert got == want
    assert len(rows) == len(rows_py) > 20
    for a, b in zip(rows, rows_py, strict=True):
        assert np.array_equal(a, b)


@needs_native
def test_walk_repeat_raises_the_earlier_rules_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """``x = p, w <= 0`` and ``x = p, w > 0`` are one rule to SameRule (a threshold
    test's side is not compared): the walk drops the second leaf's rule and gives the
    first its higher error rate, as the Python loop does."""
    schema = Schema(
        (Attribute("w", "continuous", ()), Attribute("x", "nominal", ("p", "q"))), ("yes", "no")
    )
    nan = float("nan")
    # x = p: w <= 0 all yes, w > 0 yes but 2 of 12, w unknown all no (so neither
    # generalises to x = p alone); x = q: all no (so neither drops x)
    cells = [(-1.0, 0, 0, 10), (1.0, 0, 0, 10), (1.0, 0, 1, 2), (nan, 0, 1, 10)]
    cells += [(-1.0, 1, 1, 10), (1.0, 1, 1, 10)]
    X = np.array([(w, x) for w, x, _, k in cells for _ in range(k)], dtype=np.float64)
    y = np.array([c for _, _, c, k in cells for _ in range(k)], dtype=np.int32)
    ds = Dataset(schema, X, y, "test")
    nodes = (
        NominalTest(1, 52.0, 20.0, (20.0, 32.0), attribute=1, children=(1, 4)),
        ContinuousTest(0, 32.0, 12.0, (20.0, 12.0), 0, 0.0, (2, 3)),
        Leaf(0, 10.0, 0.0, (10.0, 0.0)),
        Leaf(0, 12.0, 2.0, (10.0, 2.0)),
        Leaf(1, 20.0, 0.0, (0.0, 20.0)),
    )
    tree = Model(schema, nodes)
    bound = ErrorBound(0.25, "c45")
    got = paths.candidates(ds, tree, bound)
    with monkeypatch.context() as m:
        m.setattr(paths, "crules", None)
        want = paths.candidates(ds, tree, bound)
    assert repr(got) == repr(want)
    yes = [r for r, _ in got if r.cls == 0]
    assert len(yes) == 1 and len(yes[0].conditions) == 2
    assert yes[0].conditions[0].op == "<="  # the first leaf's rule
    alone, _ = paths._rates(10, 0, bound, 1.0)
    raised, _ = paths._rates(12, 2, bound, 1.0)
    assert alone < raised == yes[0].error


def _many_rules(n: int) -> Dataset:
    """Nominal attributes with noise and two continuous ones: hundreds of candidate
    rules, many of them repeats."""
    rng = np.random.default_rng(67)
    nom = rng.integers(0, 4, size=(n, 5)).astype(np.float64)
    cont = np.round(rng.normal(size=(n, 2)) * 4, 0)
    X = np.concatenate([cont, nom], axis=1)
    return _three_classes(X, (X[:, 2] + X[:, 3]) % 3, rng, 0.25, 2, 4)


@needs_native
def test_walk_equals_python_loop_over_many_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over 512 rules the walk's table of SameRule keys grows (1,024 slots, at most half
    full): the rules, their numbers and cases are still the Python loop's."""
    got, rows, want, rows_py = _both(_many_rules(3000), False, monkeypatch)
    assert got == want
    assert len(rows) == len(rows_py) > 600
    for a, b in zip(rows, rows_py, strict=True):
        assert np.array_equal(a, b)


def _walks_started(monkeypatch: pytest.MonkeyPatch) -> list[walk.Walk]:
    """The walks paths.candidates starts from now on, in a list (to read their memo)."""
    walks: list[walk.Walk] = []

    def start(*args: Any) -> walk.Walk:
        walks.append(walk.start(*args))
        return walks[-1]

    monkeypatch.setattr(paths, "start", start)
    return walks


@needs_native
@pytest.mark.parametrize("most", [walk.STATE_INTS, 64, 0])
@pytest.mark.parametrize("data", ["many_rules", "noisy"])
def test_walk_memo_of_states_equals_python_loop(
    data: str, most: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A leaf whose PruneRule reaches a state an earlier leaf reached (its class, its
    alive conditions and where the dropped ones lie) stops there: its rule would be that
    leaf's again.  The rules,
    their rates and cases are still the Python loop's, with the memo kept whole, emptied
    now and then (64 ints) and emptied before every leaf (0: then no leaf meets
    another's state)."""
    ds = _many_rules(3000) if data == "many_rules" else _noisy(6000)
    monkeypatch.setattr(walk, "STATE_INTS", most)
    walks = _walks_started(monkeypatch)
    got, rows, want, rows_py = _both(ds, False, monkeypatch)
    assert got == want
    assert len(rows) == len(rows_py) > 20
    for a, b in zip(rows, rows_py, strict=True):
        assert np.array_equal(a, b)
    assert crules is not None and len(walks) == 1
    hits, clears = crules.walk_memo(walks[0].capsule)
    if most == 0:
        assert hits == 0 and clears > 10
    else:
        assert hits > (20 if data == "many_rules" else 0)
        assert (clears > 0) == (most == 64)


def _few_noisy(seed: int, n: int) -> Dataset:
    """2-5 continuous and 2-5 nominal attributes, little noise: rules that keep many
    conditions, nominal ones (the lower kind) numbered after continuous ones."""
    rng = np.random.default_rng([72, seed])
    nc, nn = int(rng.integers(2, 6)), int(rng.integers(2, 6))
    cont = np.round(rng.normal(size=(n, nc)) * 10, 1)
    nom = rng.integers(0, int(rng.integers(2, 5)), size=(n, nn)).astype(np.float64)
    X = np.concatenate([cont, nom], axis=1)
    X[rng.random(X.shape) < 0.03] = np.nan
    z = np.nan_to_num(X)
    y = ((z[:, 0] > 0) + (z[:, 1] > 3) + (X[:, nc] == 1) + (X[:, nc + 1] == 0)) % 3
    noise = float(rng.uniform(0.02, 0.2))
    return _three_classes(X, y.astype(np.float64), rng, noise, nc, int(nom.max()) + 1)


@needs_native
def test_walk_memo_tells_the_dropped_conditions_places(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two leaves can reach the same alive conditions with their dropped ones at other
    places on the path; from there the search goes the same way, but Release 8's
    selection of the kept conditions' order is not a sort, and those places change the
    order it gives (and SameRule compares conditions in that order).  A memo keyed by
    the alive conditions alone gives other rules on these 8,000 rows; keyed by the
    places too, the rules are the Python loop's."""
    walks = _walks_started(monkeypatch)
    got, rows, want, rows_py = _both(_few_noisy(32, 8000), False, monkeypatch)
    assert got == want
    assert all(np.array_equal(a, b) for a, b in zip(rows, rows_py, strict=True))
    assert crules is not None and crules.walk_memo(walks[0].capsule)[0] > 100


@needs_native
@pytest.mark.parametrize(("block", "batch"), [(1 << 20, 256), (4096, 7), (1024, 1)])
def test_walk_many_equals_python_loop(
    block: int, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batched walk (``crules.walk_many``: rules, conditions and packed cases WALK_BATCH
    rules a call, for CaseLists without tests) gives the Python loop's rules and cases,
    also with blocks so small that lists do not fit (held by CaseLists.append: some in
    a new block, the longest as arrays of their own) and with batches of one rule."""
    ds = _many_rules(3000)
    tree = train(ds, TrainOptions(prune=False, min_cases=1))
    bound = ErrorBound(0.25, "c45")
    monkeypatch.setattr(caselists, "BLOCK", block)
    monkeypatch.setattr(caselists, "SHARED_MOST", block // 4)
    monkeypatch.setattr(paths, "SHARED_MOST", block // 4)
    monkeypatch.setattr(paths, "WALK_BATCH", batch)
    held = caselists.CaseLists()
    called: list[int] = []
    assert crules is not None
    many = crules.walk_many

    def counted(*args: object) -> object:
        got = many(*args)
        called.append(got[3])  # pending
        return got

    monkeypatch.setattr(crules, "walk_many", counted)
    got = paths.candidates(ds, tree, bound, rows=held, with_tests=False)
    monkeypatch.undo()
    with monkeypatch.context() as m:
        m.setattr(paths, "crules", None)  # the Python loop
        rows_py: list[npt.NDArray[np.int32]] = []
        want = paths.candidates(ds, tree, bound, rows=rows_py, with_tests=False)
    assert repr(got) == repr(want)
    assert len(held) == len(rows_py) > 600
    for i, b in enumerate(rows_py):
        assert np.array_equal(held.rows(i), b)
    assert len(called) >= len(rows_py) // batch
    pending = [p for p in called if p >= 0]
    if block < 1 << 20:  # lists that did not fit: some in a new block, some held alone
        assert len(pending) > 5
        assert any(p * 4 > block // 4 for p in pending)
    else:
        assert not pending
