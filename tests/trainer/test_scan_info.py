"""``scan_best`` scores continuous segments as the numpy path does, bit for bit.

For c45, levelwise/score.py scans a bucket's segments with ``scan_best``, which takes
the candidates' logs (numpy's ``log``, called from C a block of cuts at a time) and
picks each segment's best cut in the scan, its base info and cost from a header row
in the block.  Here its scores (through ``eval_continuous_flat``, as growth calls it)
are held to ``splits.eval_continuous``'s (the padded numpy path) on the same
segments: ties, unknown values, fractional weights, two to five classes, log blocks
of one row and of a few, segments longer than a block's cuts and than
``score.NATIVE_CHUNK`` (their cases copied out into a scratch), MINOBJS at the edges
of a node's cases; and whole trees with the accelerator on and off.  The scan takes
numpy's logs only for the cuts whose bounds (an approximate log2, within LOG_ERR of
numpy's; ``test_approx_terms_within_the_bound``) do not rule them out, so every one of
these tests also holds the bounds to the picks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer import TrainOptions, native, train
from treegen.trainer.constants import LN2
from treegen.trainer.levelwise import evaluate, score
from treegen.trainer.tables import build_context

from support.segments import (
    assert_same_scores,
    continuous_data,
    flat_scores,
    node_segments,
    numpy_scores,
)

needs_native = pytest.mark.skipif(native.cscan is None, reason="accelerator off or not built")


def _count_scan_best(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Route native.cscan through a proxy that counts scan_best's calls (to know the
    path under test ran); the list grows by one a call."""
    lib = native.cscan
    assert lib is not None
    used: list[int] = []

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(lib, name)

        @staticmethod
        def scan_best(*args: Any) -> Any:
            used.append(1)
            return lib.scan_best(*args)

    monkeypatch.setattr(native, "cscan", Counting())
    return used


@needs_native
@pytest.mark.parametrize(
    ("seed", "n_classes", "m", "block"),
    [(0, 2, 1, 1), (1, 3, 2, 0), (2, 3, 2, 5), (3, 4, 1, 0), (4, 5, 3, 3), (5, 3, 30, 2)],
)
def test_scan_best_equals_numpy(
    monkeypatch: pytest.MonkeyPatch, seed: int, n_classes: int, m: int, block: int
) -> None:
    # block: rows (cuts and segment headers) per log block (0: as score.LOG_BLOCK makes it)
    rng = np.random.default_rng([36, seed])
    ds = continuous_data(seed, 4000, 3, n_classes)
    ctx = build_context(ds, m, False)
    segs = node_segments(ctx, rng, [int(rng.integers(1, 4000)) for _ in range(4)] + [4000])
    used = _count_scan_best(monkeypatch)
    if block:
        monkeypatch.setattr(score, "LOG_BLOCK", block * (2 * n_classes + 2))
    fast = flat_scores(ctx, segs)
    assert used
    assert fast.ok.any()  # some cut chosen: the scores are not all the empty ones
    assert_same_scores(fast, numpy_scores(ctx, segs))
    assert_same_scores(flat_scores(ctx, segs, shifted=True), fast)


@needs_native
@pytest.mark.parametrize("m", [1, 2, 7, 30])
def test_min_cases_at_the_edges(m: int) -> None:
    """Whole weights, no unknowns: nodes of 2m - 1 cases (too few to split), 2m (one
    cut possible, at LowItems m), 2m + 1, and nodes large enough that MinSplit is
    0.1 x known / classes, or capped at 25."""
    rng = np.random.default_rng(m)
    ds = continuous_data(m, 3000, 2, 3, unknown=0.0)
    ctx = build_context(ds, m, False)
    segs = node_segments(ctx, rng, [2 * m - 1, 2 * m, 2 * m + 1, 10 * m, 900, 3000], 0.0)
    fast = flat_scores(ctx, segs)
    assert_same_scores(fast, numpy_scores(ctx, segs))
    # the first node's segments: no cut; the last attribute of the whole set: one
    assert not fast.ok[:2].any() and fast.ok[-1]


@needs_native
@pytest.mark.parametrize("k", [3, 40, 700])
def test_tied_cuts_the_first_is_picked(k: int) -> None:
    """Classes in value order 0 x k, 1 x 2k, 0 x k (whole weights): the cuts after k
    and after 3k cases split alike, mirrored, so their gains tie exactly; the first is
    the one chosen, as the numpy path chooses it."""
    n = 4 * k
    X = np.arange(n, dtype=np.float64)[:, None]
    y = np.r_[np.zeros(k), np.ones(2 * k), np.zeros(k)].astype(np.int32)
    schema = Schema((Attribute("a", "continuous", ()),), ("p", "q"), "class")
    ctx = build_context(Dataset(schema, X, y, "test"), 1, False)
    segs = node_segments(ctx, np.random.default_rng(k), [n], fractional=0.0)
    fast = flat_scores(ctx, segs)
    assert_same_scores(fast, numpy_scores(ctx, segs))
    assert fast.ok[0] and fast.bar[0] == k - 0.5  # between values k - 1 and k


@needs_native
def test_segments_longer_than_a_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A node of more cases than score.NATIVE_CHUNK (and so of many log blocks' cuts),
    its cases copied out into a scratch the caller gives, or one the scan makes."""
    n = score.NATIVE_CHUNK + 20000
    ds = continuous_data(8, n, 2, 3, unknown=0.05)
    ctx = build_context(ds, 2, False)
    segs = node_segments(ctx, np.random.default_rng(8), [n, 3000])
    want = numpy_scores(ctx, segs)
    used = _count_scan_best(monkeypatch)
    assert_same_scores(flat_scores(ctx, segs), want)
    scratch = score.scan_scratch(int(segs.lens.max()))
    scratch.fill(0xAB)
    assert_same_scores(flat_scores(ctx, segs, shifted=True, scratch=scratch), want)
    assert (scratch != 0xAB).any()  # the scan copied the cases out into it
    assert len(used) == 2 and segs.lens.max() > score.NATIVE_CHUNK


@needs_native
@pytest.mark.parametrize("chunk", [1, 50])
def test_scratch_for_segments_over_a_chunk(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """score.NATIVE_CHUNK made small, so the scan copies the longer segments' cases out
    into a scratch (a given one too small is replaced): the same scores."""
    rng = np.random.default_rng(chunk)
    ds = continuous_data(chunk, 2000, 3, 4)
    ctx = build_context(ds, 2, False)
    segs = node_segments(ctx, rng, [30, 500, 2000])
    want = numpy_scores(ctx, segs)
    monkeypatch.setattr(score, "NATIVE_CHUNK", chunk)
    assert_same_scores(flat_scores(ctx, segs), want)
    assert_same_scores(flat_scores(ctx, segs, scratch=score.scan_scratch(1)), want)


@needs_native
@pytest.mark.parametrize(("block", "chunk", "large"), [(1, 1 << 17, 1 << 30), (3, 64, 1)])
def test_trees_equal_without_the_accelerator(
    monkeypatch: pytest.MonkeyPatch, block: int, chunk: int, large: int
) -> None:
    """Whole trees grown with scan_best (log blocks of a few rows, small chunks, the
    large-task path with its shared scratch) and by the numpy path: the same nodes."""
    ds = continuous_data(11, 2500, 3, 3)
    want = {}
    for criterion in ("gainratio", "gain"):
        with monkeypatch.context() as m:
            m.setattr(native, "cscan", None)
            want[criterion] = train(ds, TrainOptions(criterion=criterion), case_order="rows").nodes
    used = _count_scan_best(monkeypatch)
    monkeypatch.setattr(score, "LOG_BLOCK", block * 8)
    monkeypatch.setattr(score, "NATIVE_CHUNK", chunk)
    monkeypatch.setattr(evaluate, "LARGE_TASK", large)
    for criterion, nodes in want.items():
        assert train(ds, TrainOptions(criterion=criterion), case_order="rows").nodes == nodes
    assert used


@needs_native
def test_info_kernels_reject_bad_arguments() -> None:
    lib = native.cscan
    assert lib is not None
    f32, ip = np.float32, np.intp
    rec = np.zeros((4, 3), f32)  # one value, weight, class (two classes)
    rec[:, 0] = np.arange(4)
    rec[:, 1] = 1.0
    rec[2:, 2] = 1.0
    one = np.ones(1, f32)
    # one segment of cases 0..3 (start, length, attribute), MinSplit 1, bound 3, 2 classes
    segment = (np.zeros(1, ip), np.array([4], ip), np.zeros(1, ip), one, np.full(1, 3.0, f32))
    best, pen, low = np.zeros(1, ip), np.zeros(1, f32), np.zeros(1, f32)
    segf = np.array([[4.0, 1.0, 4.0]], f32)  # known, 1 - unknown rate, cases
    args = (rec, 4, 3, 1, np.arange(4, dtype=np.int32), *segment, np.ones(1, np.uint8), 2)
    args += (best, segf, pen, low, np.zeros((1, 2), f32), np.zeros(1, ip), 2.0)
    x, lg = np.ones(6 * 3), np.zeros(6 * 3)
    n = lib.scan_best(*args, x, lg, np.log)
    assert n == 3  # cuts after the first three cases
    # the cut between the classes: no info left, so the gain is the base info (1 bit)
    # less the cost log2(3) / 4
    assert best[0] == 1 and low[0] == 2.0
    assert pen[0] == np.float32(np.float32(1.0) - np.float32(np.log(3.0) / np.log(2) / 4))
    # the cases copied out into a scratch (score.scan_scratch), the same pick
    best[0] = -1
    assert lib.scan_best(*args, x, lg, np.log, score.scan_scratch(4)) == 3 and best[0] == 1
    with pytest.raises(ValueError):  # a scratch short of the longest segment's 4 cases
        lib.scan_best(*args, x, lg, np.log, np.empty(4 * lib.SCAN_SCRATCH_FLOAT - 1, np.uint8))
    with pytest.raises(ValueError):  # the logs' block is not the inputs' size
        lib.scan_best(*args, x, np.zeros(4), np.log)
    with pytest.raises(ValueError):  # a block smaller than one cut's 2C + 2 inputs
        lib.scan_best(*args, np.ones(3), np.zeros(3), np.log)
    with pytest.raises(ZeroDivisionError):  # the log's error comes through
        lib.scan_best(*args, x, lg, lambda a, b: 1 / 0)
    with pytest.raises(ValueError):  # segf holds three numbers a segment
        lib.scan_best(*args[:13], np.zeros(2, f32), *args[14:], x, lg, np.log)


@needs_native
def test_approx_terms_within_the_bound() -> None:
    """v times the approximate log2 that bounds a cut's gain (trainer/native/logbound.h)
    is within LOG_ERR x v of v x (numpy's log(v) / ln 2), as scan.c's xlog2x takes it,
    with room to spare (the bound is 2.7 times the error it covers): for every float
    mantissa (the scan's inputs are float sums) at exponents from 2^-20 to 2^30, and
    for doubles around 1; two at a time (SSE2) as one at a time; NaN outside
    [1e-30, 1e30]."""
    lib = native.cscan
    assert lib is not None
    mant = (np.arange(1 << 23, dtype=np.uint32) | np.uint32(127 << 23)).view(np.float32)
    rng = np.random.default_rng(3)
    near_one = 1.0 + rng.uniform(-1e-3, 1e-3, 1 << 16)
    for x in [mant.astype(np.float64) * 2.0**e for e in (-20, -1, 0, 1, 7, 16, 30)] + [near_one]:
        paired, single = np.empty_like(x), np.empty_like(x)
        err = lib.approx_terms(x, paired, single)
        assert np.array_equal(paired, single)
        exact = (np.log(x) / LN2) * x  # (xlog2x's operations)
        assert np.all(np.abs(paired - exact) <= err * x / 2)
    x = np.array([1e-31, 1e31, np.nan, 1.0])
    paired, single = np.empty_like(x), np.empty_like(x)
    lib.approx_terms(x, paired, single)
    assert np.isnan(paired[:3]).all() and np.isnan(single[:3]).all() and abs(paired[3]) < 1e-8
    with pytest.raises(ValueError):  # pairs only
        lib.approx_terms(x[:3], paired[:3], single[:3])


@needs_native
@pytest.mark.parametrize(("seed", "n_classes", "m", "fractional"), [(0, 2, 1, 0.3), (4, 5, 3, 0.0)])
def test_every_cut_within_its_bounds(seed: int, n_classes: int, m: int, fractional: float) -> None:
    """With check_bounds on, every cut waits for numpy's logs and the scan checks its
    penalised gain against the bounds it would have left it out by (RuntimeError if
    outside): random nodes' segments, then whole trees; the picks are the numpy path's."""
    lib = native.cscan
    assert lib is not None
    rng = np.random.default_rng([37, seed])
    ds = continuous_data(seed, 4000, 3, n_classes)
    ctx = build_context(ds, m, False)
    sizes = [int(rng.integers(2, 4000)) for _ in range(6)] + [4000]
    segs = node_segments(ctx, rng, sizes, fractional)
    lib.check_bounds(True)
    try:
        fast = flat_scores(ctx, segs)
        nodes = train(ds, TrainOptions(min_cases=m), case_order="rows").nodes
    finally:
        lib.check_bounds(False)
    assert fast.ok.any()
    assert_same_scores(fast, numpy_scores(ctx, segs))
    assert train(ds, TrainOptions(min_cases=m), case_order="rows").nodes == nodes
