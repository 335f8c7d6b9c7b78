"""The C pruning walk (``_cprune``) equals the Python one, bit for bit.

Two levels, for both flavours: the error bound (``estimate_c45``,
``estimate_j48``) against ``ErrorBound.estimate`` over (N, e) pairs
reaching every ``AddErrs`` case and several CF values; and whole pruned
trees with and without the accelerator on random datasets (missing values,
nominal and continuous tests, --subsets, other CF values), compared node
for node.  For j48 also the trained model (the level engine's flat C path,
whose errors are the pruned tree's training errors) against the Python
walk's.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model.core import Node
from treegen.trainer import TrainOptions, native, train
from treegen.trainer.fit import grow
from treegen.trainer.levelwise.flat import KIND_CODE, TreeArrays
from treegen.trainer.options import GrowOptions
from treegen.trainer.pruning import native as prune_native_mod
from treegen.trainer.pruning import prune as prune_mod
from treegen.trainer.stats import ErrorBound
from treegen.trainer.tables import build_context
from treegen.trainer.tree import TNode, flatten

from support.floatbits import same_bits
from support.pruner import python_pruner


class Pruned:
    """A pruned model's nodes, equal when every field is, bit for bit.

    Compared by ``repr``: floats print exactly (shortest round trip, -0.0
    distinct), and a NaN threshold equals a NaN threshold, which ``==`` on
    nodes only gives when both hold the same NaN object.
    """

    def __init__(self, nodes: tuple[Node, ...]) -> None:
        self.nodes = nodes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pruned) and repr(self.nodes) == repr(other.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def kinds(self) -> set[str]:
        return {n.kind for n in self.nodes}


needs_native = pytest.mark.skipif(native.cprune is None, reason="C accelerator not built")

CFS = [0.0001, 0.01, 0.1, 0.25, 0.4, 0.5, 0.75, 0.999]


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    """(N, e) pairs covering e = 0, e < 1e-6, 0 < e < 0.9999, e + 0.5 >= N, the general case."""
    rng = np.random.default_rng(11)
    f32 = np.float32
    n_list: list[float] = []
    e_list: list[float] = []

    def add(n: float, e: float) -> None:
        n_list.append(float(f32(n)))
        e_list.append(float(f32(e)))

    for n in [0.0, -1.0, 1e-7, 1e-3, 0.3, 0.5, 0.9999, 1.0, 1.4, 1.5, 2.0, 3.0, 7.5, 100.0, 1e5]:
        for e in [0.0, 1e-9, 5e-7, 1e-6, 0.3, 0.9998, 0.9999, 1.0, 1.2, n - 0.5, n - 0.4, n]:
            if e >= 0:
                add(n, e)
    n_rand = np.exp(rng.uniform(np.log(1e-4), np.log(1e6), 3000))
    frac = rng.uniform(0, 1, 3000) ** 3
    for n, fr in zip(n_rand.tolist(), frac.tolist(), strict=True):
        add(n, n * fr)  # general, and e + 0.5 >= N for small N
        add(n, fr)  # 0 <= e < 1: the interpolated AddErrs
        add(n, fr * 1e-6)
    return np.asarray(n_list), np.asarray(e_list)


@needs_native
@pytest.mark.parametrize("cf", CFS)
def test_estimate_matches_error_bound(cf: float) -> None:
    assert native.cprune is not None
    bound = ErrorBound(cf, "c45")
    n, e = _pairs()
    out = np.full(n.size, np.nan)
    native.cprune.estimate_c45(n, e, bound.log_cf, bound.coeff, out)
    want = np.asarray([bound.estimate(a, b) for a, b in zip(n.tolist(), e.tolist(), strict=True)])
    # Bit patterns, so that -0.0 / NaN differences would show too.
    assert same_bits(out, want)


def test_pairs_reach_every_add_errs_case() -> None:
    n, e = _pairs()
    pos = n > 0
    assert np.any(pos & (e == 0))
    assert np.any(pos & (e > 0) & (e < 1e-6))
    assert np.any(pos & (e >= 1e-6) & (e < 0.9999))
    assert np.any(pos & (e >= 0.9999) & (e + 0.5 >= n))
    assert np.any(pos & (e >= 0.9999) & (e + 0.5 < n))
    assert np.any(~pos)


def _j48_pairs() -> tuple[np.ndarray, np.ndarray]:
    """(N, e) pairs in double reaching every case of J48's bound: |N| <= 1e-6,
    e = 0, 0 < e < 1, e + 0.5 >= N (with e > N: the max with 0), the general case."""
    rng = np.random.default_rng(12)
    n_list: list[float] = []
    e_list: list[float] = []
    for n in [0.0, -0.0, -1e-6, 1e-6, 1.5e-6, -1.0, 1e-3, 0.3, 0.5, 1.0, 1.4, 1.5, 2.0, 7.5, 1e5]:
        for e in [0.0, -0.0, 1e-9, 0.3, 0.999, 1.0, 1.2, n - 0.5, n - 0.4, n, n + 0.3, -1e-17]:
            n_list.append(n)
            e_list.append(e)
    n_rand = np.exp(rng.uniform(np.log(1e-7), np.log(1e6), 3000))
    frac = rng.uniform(0, 1, 3000) ** 3
    for n, fr in zip(n_rand.tolist(), frac.tolist(), strict=True):
        n_list += [n, n, n, n]
        e_list += [n * fr, fr, n + fr, n - n * fr * 1e-12]
    return np.asarray(n_list), np.asarray(e_list)


@needs_native
@pytest.mark.parametrize("cf", CFS)
def test_estimate_j48_matches_error_bound(cf: float) -> None:
    assert native.cprune is not None
    bound = ErrorBound(cf, "j48")
    n, e = _j48_pairs()
    out = np.full(n.size, np.nan)
    native.cprune.estimate_j48(n, e, cf, bound.coeff, out)
    want = np.asarray([bound.estimate(a, b) for a, b in zip(n.tolist(), e.tolist(), strict=True)])
    assert same_bits(out, want)


def test_j48_pairs_reach_every_add_errs_case() -> None:
    n, e = _j48_pairs()
    zero = np.abs(n) <= 1e-6
    pos = ~zero
    assert np.any(zero) and np.any(pos & (n < 0))
    assert np.any(pos & (e == 0))
    assert np.any(pos & (e != 0) & (e < 1))
    assert np.any(pos & (e >= 1) & (e + 0.5 >= n) & (n - e >= 0))
    assert np.any(pos & (e >= 1) & (n - e < 0))
    assert np.any(pos & (e >= 1) & (e + 0.5 < n))
    assert any(cf > 0.5 for cf in CFS) and any(cf <= 0.5 for cf in CFS)


def _pruned(ds: Dataset, cf: float, subsets: bool, use_native: bool, j48: bool = False) -> Pruned:
    ctx = build_context(ds, 2, j48)
    root = grow(ctx, GrowOptions("gainratio", subsets=subsets))
    with python_pruner(not use_native):
        prune_mod.prune(ctx, root, cf)
    return Pruned(flatten(root))


@needs_native
@pytest.mark.parametrize("seed", range(10))
def test_pruned_trees_identical(seed: int) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=2500))
    for cf in (0.25, 0.6):
        a = _pruned(ds, cf, False, True)
        b = _pruned(ds, cf, False, False)
        assert a == b


@needs_native
@pytest.mark.parametrize("seed", [2, 5])
def test_pruned_trees_identical_with_subsets(seed: int) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=1500))
    a = _pruned(ds, 0.25, True, True)
    assert "subset" in a.kinds()
    assert a == _pruned(ds, 0.25, True, False)


@needs_native
def test_pruned_trees_identical_on_benchmark_shaped_data() -> None:
    """Missing values on every attribute: the unknown cases' Factor round trip."""
    ds = synthetic.generate(synthetic.summary_spec(5000, seed=3))
    a = _pruned(ds, 0.25, False, True)
    assert a == _pruned(ds, 0.25, False, False)
    assert 1 < len(a) < 5000  # pruned, but not to a single leaf


@needs_native
def test_native_path_is_taken_and_deep_trees_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    ds = synthetic.generate(synthetic.summary_spec(800, seed=1))
    ctx = build_context(ds, 2, False)
    root = grow(ctx, GrowOptions("gainratio"))
    calls: list[int] = []
    real = prune_mod.prune_tnodes

    def spy(*args: object) -> bool:
        ok = real(*args)  # type: ignore[arg-type]
        calls.append(int(ok))
        return ok

    monkeypatch.setattr(prune_mod, "prune_tnodes", spy)
    shallow = copy.deepcopy(root)
    prune_mod.prune(ctx, shallow, 0.25)
    assert calls == [1]
    monkeypatch.setattr(prune_native_mod, "_MAX_NATIVE_DEPTH", 1)
    deep = copy.deepcopy(root)
    prune_mod.prune(ctx, deep, 0.25)
    assert calls == [1, 0]
    assert Pruned(flatten(shallow)) == Pruned(flatten(deep))


# Small noisy datasets without missing values where two branches of a test
# have exactly equal known weight: subtree raising must take the later one
# (found by search: on these, taking the earlier one changes the tree).
_TIE_SPECS = [
    synthetic.Spec(47, 1, 1, 3, 0.0, 0.1, 3, 133, min_values=2, max_values=3),
    synthetic.Spec(13, 1, 2, 2, 0.0, 0.4, 3, 343, min_values=2, max_values=3),
    synthetic.Spec(26, 1, 3, 3, 0.0, 0.4, 3, 978, min_values=2, max_values=3),
]


@needs_native
@pytest.mark.parametrize("spec", _TIE_SPECS, ids=lambda s: f"seed{s.seed}")
def test_largest_branch_ties_identical(spec: synthetic.Spec) -> None:
    ds = synthetic.generate(spec)
    assert _pruned(ds, 0.25, False, True) == _pruned(ds, 0.25, False, False)


@needs_native
def test_prune_flat_any_numbering_and_unreachable_nodes() -> None:
    """Children numbered depth first (consecutive, after their parent) and a
    collapsed test whose subtree is still in the arrays: as the TNode walk."""
    ds = synthetic.generate(synthetic.random_spec(4, max_rows=2000))
    ctx = build_context(ds, 2, False)
    grown = grow(ctx, GrowOptions("gainratio"))
    ref = copy.deepcopy(grown)
    # Number the nodes: a node's children get consecutive ids when it is
    # expanded, expansion depth first.
    order = [grown]
    first: list[int] = [0]
    path: list[list[int]] = [[]]  # branch indices from the root
    stack = [0]
    while stack:
        i = stack.pop()
        first[i] = len(order)
        for b, c in enumerate(order[i].children):
            order.append(c)
            first.append(0)
            path.append(path[i] + [b])
        stack.extend(range(len(order) - 1, first[i] - 1, -1))
    kind = np.asarray([KIND_CODE[t.kind] for t in order], dtype=np.int8)
    # Collapse a test with a test below it: its subtree stays in the arrays.
    victim = next(
        i
        for i, t in enumerate(order)
        if i and t.kind != "leaf" and any(c.kind != "leaf" for c in t.children)
    )
    kind[victim] = 0
    count = np.asarray([len(t.children) for t in order], dtype=np.int64)
    grown_arrays = TreeArrays(
        kind,
        np.asarray([t.cls for t in order]),
        np.asarray([t.attribute for t in order]),
        np.asarray([t.threshold for t in order]),
        np.asarray(first),
        count,
        {i: t.subsets for i, t in enumerate(order) if t.kind == "subset"},
    )
    rec = prune_native_mod.prune_flat(ctx, 0.25, grown_arrays)
    assert rec is not None
    assert not rec.updated[first[victim]] & 2  # the collapsed test's first child
    order[victim].make_leaf()
    prune_native_mod._write_back(order, kind.astype(np.int64), rec)
    # The reference: the same collapse, then the Python walk.
    ref_victim = ref
    for b in path[victim]:
        ref_victim = ref_victim.children[b]
    ref_victim.make_leaf()
    with python_pruner():
        prune_mod.prune(ctx, ref, 0.25)
    assert Pruned(flatten(grown)) == Pruned(flatten(ref))


@needs_native
def test_prune_flat_j48_single_leaf() -> None:
    """A lone leaf: its class is the first majority class, its errors the
    training errors (the estimate with ``estimated_errors``)."""
    ds = synthetic.generate(synthetic.random_spec(1, max_rows=300))
    ctx = build_context(ds, 2, True)
    one = np.zeros(1, dtype=np.int64)
    leaf = TreeArrays(one, one, one - 1, np.full(1, np.nan), one, one, {})
    rec = prune_native_mod.prune_flat(ctx, 0.25, leaf)
    est = prune_native_mod.prune_flat(ctx, 0.25, leaf, estimated_errors=True)
    assert rec is not None and est is not None
    dist = np.bincount(ctx.y[: ctx.n_rows], minlength=ctx.n_classes).astype(np.float64)
    assert rec.dist.dtype == np.float64 and np.array_equal(rec.dist[0], dist)
    assert rec.cls[0] == int(np.argmax(dist)) and rec.items[0] == ctx.n_rows
    assert rec.errors[0] == ctx.n_rows - dist.max()
    bound = ErrorBound(0.25, "j48")
    assert est.errors[0] == bound.estimate(float(ctx.n_rows), ctx.n_rows - float(dist.max()))


J48_CFS = (0.1, 0.25, 0.5, 0.75)


@needs_native
@pytest.mark.parametrize("seed", range(10))
def test_pruned_j48_trees_identical(seed: int) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=2500))
    for cf in J48_CFS:
        a = _pruned(ds, cf, False, True, j48=True)
        assert a == _pruned(ds, cf, False, False, j48=True)


@needs_native
@pytest.mark.parametrize("spec", _TIE_SPECS, ids=lambda s: f"seed{s.seed}")
def test_largest_branch_ties_identical_j48(spec: synthetic.Spec) -> None:
    ds = synthetic.generate(spec)
    a = _pruned(ds, 0.25, False, True, j48=True)
    assert a == _pruned(ds, 0.25, False, False, j48=True)


@needs_native
def test_pruned_j48_trees_identical_with_two_byte_codes() -> None:
    ds = _many_valued(300, 3000, 1)
    a = _pruned(ds, 0.25, False, True, j48=True)
    assert "nominal" in a.kinds()
    assert a == _pruned(ds, 0.25, False, False, j48=True)


def _trained(ds: Dataset, opts: TrainOptions, use_native: bool) -> Pruned:
    with python_pruner(not use_native):
        return Pruned(train(ds, opts).nodes)


@needs_native
@pytest.mark.parametrize("seed", range(8))
def test_trained_j48_models_identical(seed: int) -> None:
    """train(): the flat C path (model nodes from the records, training
    errors from :func:`prune._training_errors_flat`) against the TNode walk."""
    ds = synthetic.generate(synthetic.random_spec(seed + 20, max_rows=3000))
    for cf in (0.25, 0.05, 0.7):  # (--subsets is Release 8's alone)
        opts = TrainOptions(flavor="j48", cf=cf)
        a = _trained(ds, opts, True)
        assert a == _trained(ds, opts, False)


@needs_native
def test_trained_j48_models_identical_on_benchmark_shaped_data() -> None:
    """Missing values on every attribute; pruned to a real tree with empty leaves."""
    ds = synthetic.generate(synthetic.summary_spec(5000, seed=3))
    opts = TrainOptions(flavor="j48")
    a = _trained(ds, opts, True)
    assert a == _trained(ds, opts, False)
    assert 1 < len(a) < 5000
    assert any(n.kind == "leaf" and n.items == 0 for n in a.nodes)


@needs_native
def test_flat_path_taken_for_j48(monkeypatch: pytest.MonkeyPatch) -> None:
    """train() prunes j48 through pruning.native.prune_native (no TNode tree) with the
    accelerator."""
    import treegen.trainer.fit as trainer_mod

    ds = synthetic.generate(synthetic.summary_spec(800, seed=1))

    def no_tnodes(*args: object) -> None:
        raise AssertionError("the TNode pruner ran")

    monkeypatch.setattr(trainer_mod, "_prune_tree", no_tnodes)
    model = train(ds, TrainOptions(flavor="j48"))
    assert len(model.nodes) > 1


def _many_valued(k: int, rows: int, seed: int) -> Dataset:
    """A nominal attribute with ``k`` values (codes wider than a byte), some
    missing, plus a continuous one; the class follows the nominal value."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, rows).astype(np.float64)
    a[rng.random(rows) < 0.1] = np.nan
    b = np.round(rng.normal(0, 10, rows), 1)
    y = np.where(np.isnan(a), rng.integers(0, 3, rows), np.nan_to_num(a).astype(np.int64) % 3)
    y = np.where(rng.random(rows) < 0.15, rng.integers(0, 3, rows), y)
    attrs = (
        Attribute("a", "nominal", tuple(f"v{i}" for i in range(k))),
        Attribute("b", "continuous"),
    )
    schema = Schema(attrs, ("k0", "k1", "k2"), "class")
    return Dataset(schema, np.column_stack([a, b]), y.astype(np.int32))


@needs_native
def test_pruned_trees_identical_with_two_byte_codes() -> None:
    ds = _many_valued(300, 3000, 1)
    a = _pruned(ds, 0.25, False, True)
    assert "nominal" in a.kinds()
    assert a == _pruned(ds, 0.25, False, False)


@needs_native
@pytest.mark.slow
def test_four_byte_codes_one_wide_test() -> None:
    """A hand-made test on a 70000-valued attribute (codes beyond 16 bits)
    whose few used values predict the class: it stays a test."""
    k = 70000
    rng = np.random.default_rng(3)
    used = np.concatenate([np.arange(10), np.arange(k - 10, k)])
    a = rng.choice(used, 4000).astype(np.float64)
    a[rng.random(4000) < 0.05] = np.nan
    y = np.where(np.isnan(a), 0, np.nan_to_num(a).astype(np.int64) % 3)
    attrs = (Attribute("a", "nominal", tuple(f"v{i}" for i in range(k))),)
    ds = Dataset(Schema(attrs, ("k0", "k1", "k2"), "class"), a[:, None], y.astype(np.int32))
    ctx = build_context(ds, 2, False)

    def tree() -> TNode:
        root = TNode("nominal", 0, 0.0, 0.0, np.zeros(3, dtype=np.float32), attribute=0)
        root.children = [TNode("leaf", 0, 0.0, 0.0, np.zeros(3, np.float32)) for v in range(k)]
        return root

    got, want = tree(), tree()
    prune_mod.prune(ctx, got, 0.25)
    with python_pruner():
        prune_mod.prune(ctx, want, 0.25, reuse_growth=False)
    assert got.kind == "nominal"
    assert Pruned(flatten(got)) == Pruned(flatten(want))
