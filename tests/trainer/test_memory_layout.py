"""The narrow training layout gives the same trees.

At the bench's sizes these paths only run on a million rows: the c45 thresholds
placed through the presorted rows (``thresholds.cuts_below``, above
``DISTINCT_MAX_ROWS``), the continuous scan's cases copied out into a shared scratch
(``score.NATIVE_CHUNK``), growth's paths for large buckets (``evaluate.LARGE_TASK``) and
the pruner spending the context's data.  Here they are
forced on small sets and held to the default path's trees, node for node.  So are
the layout's other pieces: what the C pruner lets go, nominal codes made in blocks,
the weight array made on first use.
"""

from __future__ import annotations

import platform
import sys
from typing import Any

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.errors import TrainError
from treegen.model.constants import KIND_LEAF
from treegen.trainer import TrainOptions, context, native, train
from treegen.trainer.heap import blocks_mapped_from, map_large_blocks
from treegen.trainer.levelwise import bucket, children, evaluate, grow, score
from treegen.trainer.levelwise.flat import FlatTree
from treegen.trainer.options import GrowOptions
from treegen.trainer.pruning.native import prune_native
from treegen.trainer.tables import build_context
from treegen.trainer.thresholds import cuts_below, cuts_by_scan

needs_native = pytest.mark.skipif(native.cscan is None, reason="C accelerator not built")


def _tied(seed: int, n: int = 3000) -> Dataset:
    """Continuous values with many ties (0.0 and -0.0 among them), a nominal attribute,
    unknown values: thresholds fall on runs of equal values."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-20, 20, n).astype(np.float64) / 4
    a[rng.random(n) < 0.1] = -0.0
    b = rng.normal(size=n).round(2)
    c = rng.integers(0, 4, n).astype(np.float64)
    X = np.stack([a, b, c], axis=1)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = ((a > 0.5) ^ (b < -0.3) ^ (c == 2) ^ (rng.random(n) < 0.1)).astype(np.int32)
    schema = Schema(
        (
            Attribute("a", "continuous"),
            Attribute("b", "continuous"),
            Attribute("c", "nominal", ("p", "q", "r", "s")),
        ),
        ("no", "yes"),
    )
    return Dataset(schema, X, y)


def _sets() -> list[Dataset]:
    return [_tied(0), _tied(1)] + [
        synthetic.generate(synthetic.random_spec(seed, max_rows=2500)) for seed in range(4)
    ]


@pytest.mark.parametrize("index", range(6))
def test_thresholds_through_the_presorted_rows(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    ds = _sets()[index]
    for opts in (TrainOptions(), TrainOptions(prune=False), TrainOptions(subsets=True)):
        for order in ("rows", "release8"):
            want = train(ds, opts, case_order=order).nodes  # type: ignore[arg-type]
            with monkeypatch.context() as m:
                m.setattr(context, "DISTINCT_MAX_ROWS", 0)
                got = train(ds, opts, case_order=order).nodes  # type: ignore[arg-type]
            assert got == want


@pytest.mark.parametrize("c_path", [True, False])
def test_cuts_below_equals_the_distinct_values(
    c_path: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every float32 bar between and around the values: the same value as the
    distinct values' binary search, 0.0 or -0.0 as met first; through the presorted
    rows in C (native cuts_below) and in numpy."""
    if c_path and native.cscan is None:
        pytest.skip("accelerator off or not built")
    if not c_path:
        monkeypatch.setattr(native, "cscan", None)
    ds = _tied(3, n=5000)
    # Zero's run: 0.0 first (row 0), -0.0 last: the first met is the one.
    ds.X[0, :2], ds.X[-1, :2] = 0.0, -0.0
    ds.X[1, :2], ds.X[-2, :2] = -0.0, 0.0
    monkeypatch.setattr(context, "SAMPLE", 8)
    ref = build_context(ds, 2, False)
    assert ref.distinct
    monkeypatch.setattr(context, "DISTINCT_MAX_ROWS", 0)
    ctx = build_context(ds, 2, False)
    assert not ctx.distinct and ctx.samples
    monkeypatch.setattr(context, "CODE_BLOCK", 333)  # cuts_by_scan's blocks of rows
    for a in ctx.cont_pos:
        d = ref.distinct[a]
        mids = (d[:-1].astype(np.float64) + d[1:]) / 2
        bars = np.concatenate([d, mids.astype(np.float32), d[1:] - np.float32(1e-3)])
        bars = bars[bars >= d[0]]
        got = cuts_below(ctx, a, bars)
        want = cuts_below(ref, a, bars)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
        # Growth's scan of the column at its end (place_thresholds), bars in any order.
        scanned = cuts_by_scan(ctx, a, bars[::-1])[::-1]
        assert np.array_equal(scanned.view(np.uint32), want.view(np.uint32))
    assert not np.signbit(cuts_below(ctx, 0, np.asarray([0.0])))[0]


@needs_native
def test_native_cuts_below_rejects_bad_input() -> None:
    """A row outside the column, a midpoint below every value or not finite, a
    sample that is not every S-th value: errors, not reads out of bounds."""
    lib = native.cscan
    assert lib is not None
    col = np.array([3.0, 1.0, 2.0, 0.0], np.float32)
    srt = np.array([1, 2, 0], np.int32)  # values 1, 2, 3 (row 3 is the dummy)
    sample = col[srt[::2]].copy()
    out = np.empty(1, np.float32)

    def call(rows: np.ndarray, key: float, smp: np.ndarray = sample) -> float:
        lib.cuts_below(col, 4, rows, smp, 2, np.array([key], np.float32), out)
        return float(out[0])

    assert call(srt, 2.5) == 2.0 and call(srt, 9.0) == 3.0 and call(srt, 1.0) == 1.0
    with pytest.raises(IndexError):
        call(np.array([1, 2, 7], np.int32), 9.0)  # block 1 reads row 7
    for key in (0.5, np.nan, np.inf):
        with pytest.raises(ValueError):
            call(srt, key)
    with pytest.raises(ValueError):
        call(srt, 2.5, sample[:1])


@needs_native
@pytest.mark.parametrize("index", range(6))
def test_a_large_task_shares_a_scratch(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large task's attributes scanned with their cases copied out into one scratch
    (``score.scan_scratch``), the same for every attribute, filled in by each afresh
    (score.NATIVE_CHUNK made small, so every segment counts as long): the same trees;
    the scratch is counted, to know the path ran."""
    ds = _sets()[index]
    made: list[int] = []
    real = score.scan_scratch

    def counted(longest: int, scratch: Any = None) -> Any:
        got = real(longest, scratch)
        made.append(got is not scratch)
        return got

    want = train(ds, TrainOptions(), case_order="rows").nodes
    with monkeypatch.context() as m:
        m.setattr(evaluate, "LARGE_TASK", 1)
        m.setattr(score, "NATIVE_CHUNK", 1)
        m.setattr(evaluate, "scan_scratch", counted)
        m.setattr(score, "scan_scratch", counted)
        assert train(ds, TrainOptions(), case_order="rows").nodes == want
    if any(a.kind == "continuous" for a in ds.schema.attributes):
        assert made.count(False) > 0  # a scratch reused, not made afresh


@needs_native
@pytest.mark.parametrize("index", range(6))
def test_large_bucket_paths(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Growth's paths for large buckets (at the bench's sizes, tasks of 2^16-2^17 cases
    and more) forced on every bucket: one attribute's records at a time, the
    partition's spent arrays let go with a trim, a task's arrays copied out of its
    parent's: the same trees."""
    ds = _sets()[index]
    calls: list[int] = []
    real = evaluate._score_large_task

    def counted(*args: object) -> None:
        calls.append(1)
        real(*args)  # type: ignore[arg-type]

    for opts in (TrainOptions(), TrainOptions(prune=False), TrainOptions(flavor="j48")):
        want = train(ds, opts, case_order="rows").nodes
        with monkeypatch.context() as m:
            m.setattr(evaluate, "LARGE_TASK", 1)
            m.setattr(evaluate, "_score_large_task", counted)
            m.setattr(children, "TRIM_ENTRIES", 1)
            m.setattr(bucket, "ALONE_MIN", 1)
            assert train(ds, opts, case_order="rows").nodes == want
    # (a set without continuous attributes has no continuous scoring)
    assert bool(calls) == any(a.kind == "continuous" for a in ds.schema.attributes)


def test_flat_tree_grows_with_fresh_records() -> None:
    """Nodes added past the capacity (the arrays copied to larger ones, left
    unwritten until added) are leaves with zero records, the earlier ones kept."""
    tree = FlatTree(3, np.float32, capacity=2)
    first = tree.add(2)
    tree.cls[first : first + 2] = [1, 2]
    tree.attribute[first] = 4
    tree.dist[first + 1] = [1.0, 2.0, 3.0]
    start = tree.add(7)
    assert (first, start, tree.n) == (0, 2, 9) and tree.kind.size >= 9
    assert tree.cls[:2].tolist() == [1, 2] and tree.attribute[0] == 4
    assert tree.dist[1].tolist() == [1.0, 2.0, 3.0]
    new = slice(2, 9)
    assert (tree.kind[new] == KIND_LEAF).all() and (tree.attribute[new] == -1).all()
    assert np.isnan(tree.threshold[new]).all()
    for name in ("cls", "items", "errors", "dist", "first", "count", "depth"):
        assert not getattr(tree, name)[new].any(), name


@needs_native
def test_pruning_spends_the_context_data() -> None:
    """After the C pruner, the context no longer holds the values, codes or classes
    (the walk let them go), and a tree it declines keeps them."""
    from treegen.trainer.fit import _grow_options
    from treegen.trainer.levelwise.grow import grow_levels
    from treegen.trainer.pruning.native import prune_flat

    ds = _tied(5)
    opts = TrainOptions()
    ctx = build_context(ds, 2, False)
    tree = grow_levels(ctx, _grow_options(opts, "level"))
    kept = prune_flat(ctx, 0.25, tree.arrays())
    assert kept is not None and ctx.cvals.size and ctx.y.size
    spent = prune_flat(ctx, 0.25, tree.arrays(), spend=True)
    assert spent is not None and ctx.cvals.size == 0 and ctx.y.size == 0 == ctx.ncodes.size
    for field in ("kind", "src", "cls", "items", "errors", "dist", "updated"):
        assert np.array_equal(getattr(spent, field), getattr(kept, field))


def _grown(ds: Dataset) -> tuple[context.Context, FlatTree]:
    from treegen.trainer.fit import _grow_options
    from treegen.trainer.levelwise.grow import grow_levels

    ctx = build_context(ds, 2, False)
    return ctx, grow_levels(ctx, _grow_options(TrainOptions(), "level"))


@needs_native
def test_prune_native_spends_what_only_python_pruning_reads() -> None:
    """With ``spend`` the walk also takes the tree's Factors and depths and the context's
    narrow classes and weight array; the model nodes are those made without it, and the
    weights come back at their starting values on next use."""
    ds = _tied(6)
    ctx, tree = _grown(ds)
    want = prune_native(ctx, tree, 0.25)
    assert want is not None and tree.branch_blocks and tree.depth.size
    ctx, tree = _grown(ds)
    ctx.weights[:10] = 7.0  # scaled, as the Python pruner leaves them
    got = prune_native(ctx, tree, 0.25, spend=True)
    assert got == want
    assert not tree.branch_blocks and tree.depth.size == 0 == ctx.y_small.size
    assert ctx.cvals.size == 0 and ctx.y.size == 0
    assert np.array_equal(ctx.weights, np.append(ctx.start_weights(), 0).astype(np.float32))


@needs_native
def test_a_declined_walk_keeps_what_python_pruning_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tree deeper than the C walk takes is pruned in Python from all it needs."""
    from treegen.trainer.pruning import native as pruning_native

    ds = _tied(6)
    ctx, tree = _grown(ds)
    small = ctx.y_small.copy()
    monkeypatch.setattr(pruning_native, "_MAX_NATIVE_DEPTH", 2)
    assert prune_native(ctx, tree, 0.25, spend=True) is None
    assert tree.branch_blocks and tree.depth.size == tree.n
    assert ctx.cvals.size and ctx.ncodes.size and np.array_equal(ctx.y_small, small)
    assert tree.to_tnodes().children


@needs_native
def test_native_cuts_by_scan_rejects_bad_keys() -> None:
    """No keys, keys not ascending or not finite, a best array of the wrong length:
    errors; unknown values and values above every key count for none."""
    lib = native.cscan
    assert lib is not None
    col = np.array([3.0, np.nan, 1.0, 2.0, 9.0], np.float32)
    best = np.full(2, -np.inf, np.float32)
    lib.cuts_by_scan(col, np.array([1.5, 2.5], np.float32), best)
    assert best.tolist() == [1.0, 2.0]
    for keys in ([], [2.0, 1.0], [1.0, 1.0], [1.0, np.inf], [np.nan, 1.0]):
        with pytest.raises(ValueError):
            lib.cuts_by_scan(col, np.array(keys, np.float32), np.zeros(len(keys), np.float32))
    with pytest.raises(ValueError):
        lib.cuts_by_scan(col, np.array([1.0, 2.0], np.float32), np.zeros(1, np.float32))


@pytest.mark.parametrize("rows_limit", [None, 0])
def test_growth_spends_the_presorted_rows(
    rows_limit: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``spend`` the presorted rows go once the root is split and the tree is the
    same (thresholds placed at the end by the column scan where there are no distinct
    values); ``presort`` makes the same rows again."""
    if rows_limit is not None:
        monkeypatch.setattr(context, "DISTINCT_MAX_ROWS", rows_limit)
    opts = GrowOptions(criterion="gainratio")
    for ds in (_tied(5), _tied(6, n=4000)):
        keep = build_context(ds, 2, False)
        want = grow.grow_levels(keep, opts)
        assert keep.sorted_done and keep.sorted_flat.size
        ctx = build_context(ds, 2, False)
        rows = ctx.sorted_flat.copy()
        got = grow.grow_levels(ctx, opts, spend=True)
        assert not ctx.sorted_done and ctx.sorted_flat.size == 0
        n = want.n
        assert got.n == n and n > 1
        for name in ("kind", "attribute", "first", "count", "cls", "items"):
            assert np.array_equal(getattr(got, name)[:n], getattr(want, name)[:n]), name
        assert np.array_equal(got.threshold[:n], want.threshold[:n], equal_nan=True)
        ctx.presort()
        assert np.array_equal(ctx.sorted_flat, rows)


def _owned(ds: Dataset) -> Dataset:
    """``ds`` over a matrix of its own that nothing else holds."""
    return Dataset(ds.schema, np.array(ds.X, order="C"), ds.y.copy())


@pytest.mark.parametrize("j48", [False, True])
def test_context_spends_the_matrix(j48: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``spend``: the same tables, block by block from the last (the last short), and
    the matrix cut to no rows; a matrix something else holds is left whole."""
    monkeypatch.setattr(context, "CODE_BLOCK", 700)
    ds = _tied(10)
    want = build_context(ds, 2, j48)
    spent = _owned(ds)
    got = build_context(spent, 2, j48, spend=True)
    assert spent.X.shape == (0, 3)
    for name in ("cvals", "ncodes", "y_small", "sorted_flat"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=name == "cvals"), name
    held = _owned(ds)
    view = held.X[:10]
    build_context(held, 2, j48, spend=True)
    assert held.X.shape == ds.X.shape and view.base is held.X


def test_spent_matrix_refuses_the_same_value() -> None:
    """An out-of-range value refused as without ``spend``: the first attribute's first."""
    ds = _tied(11)
    ds.X[2500, 1] = ds.X[40, 1] = 1e39
    ds.X[100, 0] = -1e40
    messages = []
    for spend, data in ((False, ds), (True, _owned(ds))):
        with pytest.raises(TrainError) as err:
            build_context(data, 2, False, spend=spend)
        messages.append(str(err.value))
    assert "attribute 'a', row 101: -1e+40" in messages[0] and messages[1] == messages[0]


def test_intp_classes_made_on_first_use() -> None:
    """The context keeps the narrow classes; ``y`` gives them as intp (the dummy row's
    class 0), one array until replaced."""
    ds = _tied(9)
    ctx = build_context(ds, 2, False)
    assert ctx.y_small.dtype == np.int8 and ctx._y is None
    assert ctx.y.dtype == np.intp and np.array_equal(ctx.y, np.append(ds.y, 0))
    assert ctx.y is ctx.y
    ctx.y = np.zeros(0, dtype=np.intp)
    assert ctx.y.size == 0


def test_nominal_codes_in_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The codes made a block of rows at a time (the last block short) are the same."""
    ds = _tied(7)
    want = build_context(ds, 2, False).ncodes
    monkeypatch.setattr(context, "CODE_BLOCK", 7)
    got = build_context(ds, 2, False).ncodes
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert (got[:-1] > 0).any() and (got[-1] == 0).all()


def test_weights_made_on_first_use() -> None:
    """The global weight array starts at the cases' weights (the dummy row at 0), and a
    dropped one comes back so."""
    ds = _tied(8)
    w = np.linspace(0.5, 2.0, ds.n_rows)
    ctx = build_context(ds, 2, False, w)
    want = np.append(w, 0.0).astype(np.float32)
    assert ctx.weights.dtype == np.float32 and np.array_equal(ctx.weights, want)
    ctx.weights[:5] = 9.0
    assert ctx.weights[0] == 9.0  # one array, scaled in place
    ctx.drop_weights()
    assert np.array_equal(ctx.weights, want)


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="mallopt is glibc's",
)
def test_map_large_blocks_on_glibc() -> None:
    assert map_large_blocks()
    with blocks_mapped_from(1 << 20):
        pass
