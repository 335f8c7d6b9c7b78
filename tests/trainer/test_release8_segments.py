"""Release 8's continuous scores in C (treegen.trainer.release8.segments) equal the numpy path.

``NodeSegments`` reorders the case array as ``evaluate._continuous`` does (unknown
values to the front, the rest sorted by Release 8's quicksort) and scores the
segments as ``sparse.eval_segments`` does.  Both the scores and the case array it
leaves must be the same, bit for bit, at nodes with unknown values, fractional
weights, repeated values, few and many classes and any MINOBJS; and so the trees.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer import TrainOptions, native, splits, train
from treegen.trainer.release8 import evaluate, segments
from treegen.trainer.release8.cases import Cases
from treegen.trainer.release8.evaluate import State
from treegen.trainer.tables import build_context

needs_native = pytest.mark.skipif(
    native.cscan is None or not hasattr(native.cscan, "r8_cont_score"),
    reason="accelerator off or not built",
)


def _data(rng: np.random.Generator, n: int, n_classes: int, n_cont: int) -> Dataset:
    X = np.round(rng.normal(size=(n, n_cont + 1)) * rng.choice([1.0, 10.0]), 1)
    X[:, 0] = np.floor(X[:, 0])  # few distinct values: ties and runs
    X[:, -1] = rng.integers(0, 3, size=n)  # a nominal attribute between the walks
    # Classes that follow the last continuous attribute, with noise: cuts worth taking.
    ranks = np.argsort(np.argsort(X[:, n_cont - 1], kind="stable"))
    follow = (ranks * n_classes // n).astype(np.int32)
    X[rng.random(X.shape) < 0.08] = np.nan
    attrs = tuple(Attribute(f"a{j}", "continuous", ()) for j in range(n_cont))
    attrs += (Attribute("n", "nominal", ("p", "q", "r")),)
    schema = Schema(attrs, tuple(f"c{c}" for c in range(n_classes)), "class")
    if n_classes >= n:
        y = rng.permutation(n_classes)[:n].astype(np.int32)  # one class per case
    else:
        noise = rng.integers(0, n_classes, size=n).astype(np.int32)
        y = np.where(rng.random(n) < 0.7, follow, noise)
    return Dataset(schema, X, y, "test")


def _node(rng: np.random.Generator, ds: Dataset, weights: str) -> tuple[Cases, int, int]:
    ctx = build_context(ds, int(rng.integers(1, 4)), False)
    cases = Cases(ctx)
    cases.order[:] = rng.permutation(ctx.n_rows)
    if weights == "fractional":
        w = np.where(rng.random(ctx.n_rows) < 0.3, rng.random(ctx.n_rows), 1.0)
        cases.weight[:] = w.astype(np.float32)
        cases.all_known = False
    fp = int(rng.integers(0, ctx.n_rows // 3))
    lp = int(rng.integers(fp, ctx.n_rows))
    return cases, fp, lp


def _state(cases: Cases, min_cases: float, fast: bool) -> State:
    """A growth's state at a node: MINOBJS ``min_cases``, no attribute tested above;
    the C segments' buffers where ``fast``."""
    ctx = cases.ctx
    s = State(min_cases=min_cases, tested=[0] * len(ctx.kinds), subsets=False, gainratio=True)
    s.in_average = evaluate.in_average(cases)
    s.scratch = segments.Scratch.of(ctx) if fast else None
    return s


@needs_native
@pytest.mark.parametrize("weights", ["ones", "fractional"])
@pytest.mark.parametrize("seed", range(12))
def test_node_scores_and_order_equal_numpy(seed: int, weights: str) -> None:
    rng = np.random.default_rng([37, seed])
    n = int(rng.integers(5, 300))
    n_classes = int(rng.choice([2, 3, 7, 60, n]))
    ds = _data(rng, n, n_classes, int(rng.integers(1, 4)))
    got = 0
    for _ in range(4):
        cases, fp, lp = _node(rng, ds, weights)
        ctx = cases.ctx
        assert segments.available(ctx)
        other = Cases(ctx)
        other.order[:], other.weight[:] = cases.order, cases.weight
        other.all_known = cases.all_known
        m = float(rng.choice([1.0, 2.0, 2.5, 5.0]))
        items = cases.count(fp, lp)
        fast = evaluate.evaluate(cases, fp, lp, items, _state(cases, m, True))
        slow = evaluate.evaluate(other, fp, lp, items, _state(other, m, False))
        assert fast == slow
        assert np.array_equal(cases.order, other.order)
        assert np.array_equal(cases.weight.view(np.uint32), other.weight.view(np.uint32))
        got += sum(s.bar is not None for s in slow.values())
    # Some cuts compared (one class per case: the split's penalty can outweigh any gain).
    assert got or n_classes >= n


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_trees_equal_numpy(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole growths in Release 8's order (unknown values: fractional weights below
    the tests that meet them), with the C segments and without."""
    rng = np.random.default_rng([37, 1, seed])
    n = int(rng.integers(100, 400))
    ds = _data(rng, n, int(rng.choice([3, 60, n])), 3)
    for opts in (TrainOptions(), TrainOptions(min_cases=1), TrainOptions(subsets=True)):
        fast = train(ds, opts, case_order="release8").nodes
        assert len(fast) > 1
        with monkeypatch.context() as mp:
            mp.setattr(segments, "available", lambda ctx: False)
            assert train(ds, opts, case_order="release8").nodes == fast


F32_MAX = float(np.finfo(np.float32).max)


@needs_native
@pytest.mark.parametrize(
    ("lo", "hi"),
    [
        (3.0e38, F32_MAX),  # the float sum overflows: the halves' sum
        (-F32_MAX, -3.0e38),
        (16777218.0, 16777220.0),  # adjacent floats: the midpoint ties onto hi, lo taken
        (-0.0, 0.5),
        (0.5, 2.0),
    ],
)
def test_bars_at_edge_values_equal_cut_midpoints(lo: float, hi: float) -> None:
    """The C bar is splits.cut_midpoint's at the values where its rule has cases."""
    X = np.asarray([[lo]] * 4 + [[hi]] * 4 + [[lo]], dtype=np.float64)
    y = np.asarray([0] * 4 + [1] * 4 + [0], dtype=np.int32)
    ds = Dataset(Schema((Attribute("a", "continuous"),), ("x", "y")), X, y)
    ctx = build_context(ds, 2, False)
    got = []
    for fast in (True, False):
        cases = Cases(ctx)
        got.append(evaluate.evaluate(cases, 0, 8, 9.0, _state(cases, 2.0, fast)))
    assert got[0] == got[1] and got[0][0].bar is not None
    want = splits.cut_midpoint(np.float32([lo]), np.float32([hi]), np.float32)
    assert np.float32(got[0][0].bar).tobytes() == want.tobytes()


@needs_native
def test_kernels_reject_bad_input() -> None:
    lib = native.cscan
    assert lib is not None
    col = np.zeros(4, dtype=np.float32)
    y = np.array([0, 1, 1, 0], dtype=np.intp)
    order = np.arange(4, dtype=np.intp)
    w = np.ones(4, dtype=np.float32)
    acc = np.zeros(2, dtype=np.float32)
    out_rows, out_w = np.empty(4, dtype=np.intp), np.empty(4, dtype=np.float32)
    with pytest.raises(IndexError):  # the segment past the case array
        lib.r8_cont_prep(col, y, order, w, 1, 4, True, 4.0, acc, out_rows, out_w, 0)
    with pytest.raises(IndexError):  # the copy past its buffer
        lib.r8_cont_prep(col, y, order, w, 0, 3, True, 4.0, acc, out_rows, out_w, 1)
    bad_y = np.array([0, 5, 1, 0], dtype=np.intp)  # 5: out of 2 classes
    with pytest.raises(IndexError):
        lib.r8_cont_prep(col, bad_y, order, w, 0, 3, True, 4.0, acc, out_rows, out_w, 0)
    segs = np.array([0.0, 4.0, 4.0, 0.0, 1.0])
    cvals = np.arange(4, dtype=np.float32)
    cmap = np.full(2, -1, dtype=np.int32)
    x, out = np.empty(64), np.empty(4)
    k = lib.r8_cont_score(0, order, w, segs, cvals, 4, y, cmap, x, x, out)
    with pytest.raises(ValueError):  # logs of other inputs: out of step
        x2 = x.copy()
        x2[0] += 1
        lib.r8_cont_score(1, order, w, segs, cvals, 4, y, cmap, x2, np.log(x[:k]), out)
    with pytest.raises(ValueError):  # too few logs
        lib.r8_cont_score(1, order, w, segs, cvals, 4, y, cmap, x, np.log(x[: k - 1]), out)
    with pytest.raises(IndexError):  # the segment's attribute row past cvals
        lib.r8_cont_score(0, order, w, np.array([1.0, 4, 4, 0, 1]), cvals, 4, y, cmap, x, x, out)
    assert np.all(cmap == -1)
    lib.r8_cont_score(1, order, w, segs, cvals, 4, y, cmap, x, np.log(x[:k]), out)
    assert out[0] == 0.0  # four cases, MINOBJS 1: the two classes alternate, no cut gains
