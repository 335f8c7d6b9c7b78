"""The many-classes continuous scoring (treegen.trainer.sparse) equals the numpy path.

``eval_continuous_sparse`` adds only the non-zero TotalInfo terms of the classes
present, and takes a segment's side totals from LowItems where its weights are
whole numbers; both must leave the scores of ``splits.eval_continuous`` (padded
numpy, every class at every cut) unchanged, bit for bit.  The segments here have
few and many classes, one class per case, whole and fractional weights, repeated
values, and totals past 2^24 (where the side totals are summed class by class).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer import TrainOptions, native, sparse, train
from treegen.trainer.context import Context
from treegen.trainer.sparse import MANY_CLASSES, available, eval_continuous_sparse
from treegen.trainer.splits import ContScores, eval_continuous
from treegen.trainer.tables import build_context

needs_native = pytest.mark.skipif(native.cscan is None, reason="accelerator off or not built")


def _data(rng: np.random.Generator, n: int, n_classes: int, n_cont: int) -> Dataset:
    X = np.round(rng.normal(size=(n, n_cont)) * rng.choice([1.0, 10.0]), 1)
    X[rng.random(X.shape) < 0.08] = np.nan
    X[:, 0] = np.floor(X[:, 0])  # few distinct values: ties and runs
    attrs = tuple(Attribute(f"a{j}", "continuous", ()) for j in range(n_cont))
    schema = Schema(attrs, tuple(f"c{c}" for c in range(n_classes)), "class")
    if n_classes >= n:
        y = rng.permutation(n_classes)[:n].astype(np.int32)  # one class per case
    else:
        y = rng.integers(0, n_classes, size=n).astype(np.int32)
    return Dataset(schema, X, y, "test")


def _segments(
    ctx: Context, rng: np.random.Generator, weights: str
) -> tuple[npt.NDArray[np.intp], list[npt.NDArray[np.intp]], list[npt.NDArray[np.float32]]]:
    """One random node (a subset of the rows): per continuous attribute its known rows
    in value order and their weights."""
    n = ctx.n_rows
    rows = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    if weights == "ones":
        w = np.ones(rows.size, dtype=np.float32)
    elif weights == "fractional":
        w = np.where(rng.random(rows.size) < 0.3, rng.random(rows.size), 1.0).astype(np.float32)
    else:  # whole numbers summing past 2^24: not exact in float32
        w = rng.integers(1, 1 << 20, size=rows.size).astype(np.float32) * np.float32(64)
    kpos, seg_rows, seg_w = [], [], []
    for k in range(ctx.cvals.shape[0]):
        v = ctx.cvals[k, rows]
        known = np.flatnonzero(~np.isnan(v))
        order = known[np.argsort(v[known], kind="stable")]
        kpos.append(k)
        seg_rows.append(rows[order])
        seg_w.append(w[order])
    return np.asarray(kpos, dtype=np.intp), seg_rows, seg_w


def _padded(
    ctx: Context,
    kpos: npt.NDArray[np.intp],
    rows: list[npt.NDArray[np.intp]],
    w: list[npt.NDArray[np.float32]],
    cases: npt.NDArray[np.float32],
    unknown: npt.NDArray[np.float32],
) -> ContScores:
    width = max(max(r.size for r in rows), 2)
    rows2d = np.full((len(rows), width), ctx.n_rows, dtype=np.intp)
    w2d = np.zeros((len(rows), width), dtype=np.float32)
    for i, (r, x) in enumerate(zip(rows, w, strict=True)):
        rows2d[i, : r.size] = r
        w2d[i, : r.size] = x
    lens = np.asarray([r.size for r in rows], dtype=np.intp)
    return eval_continuous(ctx, kpos, rows2d, w2d, lens, cases, unknown)


@needs_native
@pytest.mark.parametrize("weights", ["ones", "fractional", "large"])
@pytest.mark.parametrize("seed", range(10))
def test_sparse_scores_equal_numpy(seed: int, weights: str) -> None:
    rng = np.random.default_rng([36, seed])
    n = int(rng.integers(20, 400))
    n_classes = int(rng.choice([2, 3, 7, 60, n]))
    ds = _data(rng, n, n_classes, int(rng.integers(1, 4)))
    ctx = build_context(ds, int(rng.integers(1, 4)), False)
    assert available(ctx)
    scored = 0
    for _ in range(6):  # a few random nodes
        kpos, rows, w = _segments(ctx, rng, weights)
        # The node's weight and its unknown part: any float32 above the known weight.
        known = [float(np.cumsum(x, dtype=np.float32)[-1]) if x.size else 0.0 for x in w]
        unknown = np.full(len(rows), rng.choice([0.0, 0.5, 3.0]), dtype=np.float32)
        cases = (np.asarray(known, dtype=np.float32) + unknown).astype(np.float32)
        fast = eval_continuous_sparse(ctx, kpos, rows, w, cases, unknown)
        slow = _padded(ctx, kpos, rows, w, cases, unknown)
        for name in ("gain", "info", "bar", "ok"):
            assert np.array_equal(getattr(fast, name), getattr(slow, name), equal_nan=True), name
        scored += int(slow.ok.sum())
    assert scored or weights == "large"  # some cuts compared


@needs_native
def test_one_class_per_case_scores_a_cut() -> None:
    """With a class per case every class term is 0 (weights 1): the cut's info is the
    two sides' totals alone, and the segment still gets the numpy path's best cut."""
    rng = np.random.default_rng(4)
    ds = _data(rng, 300, 300, 2)
    ctx = build_context(ds, 2, False)
    kpos, rows, w = _segments(ctx, rng, "ones")
    cases = np.asarray([float(x.size) for x in w], dtype=np.float32)
    unknown = np.zeros(len(rows), dtype=np.float32)
    fast = eval_continuous_sparse(ctx, kpos, rows, w, cases, unknown)
    slow = _padded(ctx, kpos, rows, w, cases, unknown)
    assert fast.ok.any()
    for name in ("gain", "info", "bar", "ok"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name), equal_nan=True), name


@needs_native
def test_sparse_kernels_reject_bad_input() -> None:
    lib = native.cscan
    assert lib is not None
    f = np.zeros(4, dtype=np.float32)
    cls = np.array([0, 1, 5, 0], dtype=np.int32)  # 5: out of 2 classes
    lens = np.array([4], dtype=np.intp)
    one = np.ones(1, dtype=np.float32)
    cap = np.empty(3, dtype=np.intp)
    d = np.empty(8)
    with pytest.raises(IndexError):
        lib.sparse_scan(
            f, f, cls, lens, one, one, np.ones(1, np.uint8), 2,
            cap, cap.copy(), f[:3].copy(), d[:4].copy(), d[:4].copy(), d[:2].copy(),
            d[:6].copy(), d[:1].copy(), np.empty(1, np.uint8),
        )  # fmt: skip
    with pytest.raises(IndexError):  # a segment longer than the cases
        lib.sparse_scan(
            f, f, cls, np.array([5], dtype=np.intp), one, one, np.ones(1, np.uint8), 6,
            cap, cap.copy(), f[:3].copy(), d[:4].copy(), d[:4].copy(), np.empty(6),
            d[:6].copy(), d[:1].copy(), np.empty(1, np.uint8),
        )  # fmt: skip


@needs_native
@pytest.mark.slow  # the numpy path is quadratic in the classes: seconds a case
@pytest.mark.parametrize("seed", range(3))
def test_many_class_trees_equal_without_accelerator(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trees of many classes (level-wise and Release 8's order both score through the
    sparse kernels) equal the numpy/Python path's."""
    rng = np.random.default_rng([36, 1, seed])
    n = 250
    ds = _data(rng, n, int(rng.choice([MANY_CLASSES, 150, n])), 3)
    for order in ("release8", "rows"):
        fast = train(ds, TrainOptions(), case_order=order).nodes  # type: ignore[arg-type]
        assert len(fast) > 1
        with monkeypatch.context() as m:
            m.setattr(native, "cscan", None)
            m.setattr(native, "cprune", None)
            assert train(ds, TrainOptions(), case_order=order).nodes == fast  # type: ignore[arg-type]


@needs_native
def test_many_class_level_tree_equals_depth_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The level-wise grower scores many classes through the sparse kernels; the depth-first
    reference engine scores with the padded numpy path: the same tree."""
    rng = np.random.default_rng(7)
    ds = _data(rng, 200, 2 * MANY_CLASSES, 3)
    calls = []
    real = sparse.eval_segments

    def counted(*args: Any) -> ContScores:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(sparse, "eval_segments", counted)
    level = train(ds, TrainOptions(), case_order="rows").nodes
    assert len(level) > 1 and calls
    assert train(ds, TrainOptions(), engine="dfs", case_order="rows").nodes == level


class _Without:
    """The accelerator module without some of its functions (the older path)."""

    def __init__(self, lib: Any, *names: str) -> None:
        self._lib, self._names = lib, names

    def __getattr__(self, name: str) -> Any:
        if name in self._names:
            raise AttributeError(name)
        return getattr(self._lib, name)


@needs_native
@pytest.mark.parametrize("seed", range(6))
def test_pick_in_c_equals_pick_c45(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """eval_segments' pick in C (sparse_pick) gives pick_c45's scores, bit for bit, on
    segments with tied gains (weights 1) and fractional weights."""
    rng = np.random.default_rng([36, 2, seed])
    n = int(rng.integers(30, 300))
    ds = _data(rng, n, int(rng.choice([3, 60, n])), 3)
    ctx = build_context(ds, int(rng.integers(1, 4)), False)
    scored = 0
    for weights in ("ones", "fractional"):
        kpos, rows, w = _segments(ctx, rng, weights)
        known = [float(np.cumsum(x, dtype=np.float32)[-1]) if x.size else 0.0 for x in w]
        unknown = np.full(len(rows), rng.choice([0.0, 2.0]), dtype=np.float32)
        cases = (np.asarray(known, dtype=np.float32) + unknown).astype(np.float32)
        fast = eval_continuous_sparse(ctx, kpos, rows, w, cases, unknown)
        with monkeypatch.context() as m:
            m.setattr(native, "cscan", _Without(native.cscan, "sparse_pick"))
            slow = eval_continuous_sparse(ctx, kpos, rows, w, cases, unknown)
        for name in ("gain", "info", "bar", "ok"):
            assert np.array_equal(getattr(fast, name), getattr(slow, name), equal_nan=True), name
        scored += int(fast.ok.sum())
    assert scored


@needs_native
def test_sparse_pick_first_best_and_nan() -> None:
    """The first of equal best cuts; a segment with a NaN gain gets none (numpy's
    maximum makes its largest NaN, which equals nothing); candidates out of segment
    order are refused."""
    lib = native.cscan
    assert lib is not None
    f32 = np.float32
    kk = np.array([0, 0, 0, 1, 1, 2], dtype=np.intp)
    low = np.full(6, 5, dtype=f32)
    info = np.array([3.0, 1.0, 1.0, np.nan, 1.0, 2.0], dtype=f32)
    known = np.full(3, 10, dtype=f32)
    cases = np.full(3, 10, dtype=f32)
    base = np.full(3, 1, dtype=f32)
    cost = np.zeros(3, dtype=f32)
    best = np.empty(3, dtype=np.intp)
    pen = np.empty(3, dtype=f32)
    lib.sparse_pick(kk, low, info, known, cases, base, cost, 2.0, best, pen)
    assert best.tolist() == [1, -1, 5]
    assert pen[0] == f32(f32(1) - f32(1) / f32(10)) and pen[2] == f32(f32(1) - f32(2) / f32(10))
    with pytest.raises(IndexError):
        lib.sparse_pick(kk[::-1].copy(), low, info, known, cases, base, cost, 2.0, best, pen)
