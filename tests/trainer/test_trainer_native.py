"""The C accelerator computes what the numpy code computes, bit for bit.

``treegen.trainer._cscan`` (built by setup.py) stands in for numpy passes
of the level-wise grower, among them the scoring of continuous cuts
(``scan_best``, ``scan_cont_j48``; more in test_scan_info.py) and the
children's sorted arrays after a batch of splits (``part_sorted``).  Each is compared with its numpy
counterpart on inputs built to reach the awkward paths (fractional weights,
repeated values, unknowns copied into several branches), and whole trees are
compared with the accelerator on and off.  ``make test`` builds the
accelerator, so its absence is a failure here unless TREEGEN_NO_NATIVE asks
for the numpy path.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer import TrainOptions, native, train
from treegen.trainer.constants import MAX_CLASSES
from treegen.trainer.levelwise import partition as part_mod
from treegen.trainer.nominal import score_nominal, score_outcomes
from treegen.trainer.tables import build_context

from support import segments

needs_native = pytest.mark.skipif(native.cscan is None, reason="accelerator off or not built")


def test_accelerator_is_built() -> None:
    if os.environ.get("TREEGEN_NO_NATIVE", "") not in ("", "0"):
        pytest.skip("TREEGEN_NO_NATIVE asks for the numpy path")
    assert native.cscan is not None, "setup.py did not build treegen.trainer._cscan"
    assert native.cprune is not None, "setup.py did not build treegen.trainer._cprune"
    from treegen.cli.main import accelerator_status

    assert accelerator_status() == "C accelerator on"


@needs_native
@pytest.mark.parametrize("j48", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_scan_equals_numpy_scoring(seed: int, j48: bool) -> None:
    """eval_continuous_flat (C scan) == eval_continuous (padded numpy) on random nodes."""
    rng = np.random.default_rng([3, seed])
    n_classes = int(rng.integers(2, 6))
    ds = segments.continuous_data(
        seed, int(rng.integers(40, 3000)), int(rng.integers(1, 5)), n_classes
    )
    ctx = build_context(ds, int(rng.integers(1, 4)), j48)
    # A few "nodes": random subsets of the rows with fractional weights.
    sizes = [int(rng.integers(1, ds.n_rows)) for _ in range(int(rng.integers(1, 6)))]
    segs = segments.node_segments(ctx, rng, sizes)
    fast = segments.flat_scores(ctx, segs)
    # The same segments as positions within each node plus a per-segment offset.
    segments.assert_same_scores(segments.flat_scores(ctx, segs, shifted=True), fast)
    segments.assert_same_scores(fast, segments.numpy_scores(ctx, segs))


@needs_native
def test_children_sorted_equals_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call of the partition kernel during training matches the numpy code."""
    calls = {"n": 0, "unknown": 0}
    real = part_mod.children_sorted

    def both(*args: object, **kw: object) -> object:
        fast = real(*args, **kw)  # type: ignore[arg-type]
        monkeypatch.setattr(native, "cscan", None)
        try:
            slow = real(*args, **kw)  # type: ignore[arg-type]
        finally:
            monkeypatch.undo()
            monkeypatch.setattr(part_mod, "children_sorted", both)
        for a, b in zip(fast, slow, strict=True):
            assert np.array_equal(a, b)
        calls["n"] += 1
        calls["unknown"] += int((args[2].branch == -1).any())  # type: ignore[attr-defined]
        return fast

    monkeypatch.setattr(part_mod, "children_sorted", both)
    for seed in (1, 3, 5):
        ds = synthetic.generate(synthetic.summary_spec(1500, seed))
        train(ds, TrainOptions(prune=False), case_order="rows")
    assert calls["n"] > 10 and calls["unknown"] > 0


@needs_native
@pytest.mark.parametrize("seed", range(10))
def test_trees_equal_with_and_without_accelerator(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole numpy/Python path (no accelerator at all) gives the same models."""
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=2500))
    for opts in (TrainOptions(), TrainOptions(prune=False), TrainOptions(flavor="j48")):
        for order in ("release8", "rows"):
            fast = train(ds, opts, case_order=order).nodes  # type: ignore[arg-type]
            with monkeypatch.context() as m:
                m.setattr(native, "cscan", None)
                m.setattr(native, "cprune", None)
                assert train(ds, opts, case_order=order).nodes == fast  # type: ignore[arg-type]


@needs_native
def test_kernels_reject_bad_indices() -> None:
    """Out-of-range inputs raise instead of reading or writing out of bounds."""
    lib = native.cscan
    assert lib is not None
    ip = np.intp
    with pytest.raises(IndexError):  # child 5 of 2
        lib.part_sorted(
            np.array([0, 1], np.int32),
            np.zeros(1, ip),
            np.array([2], ip),
            np.zeros(1, ip),
            np.zeros(1, ip),
            np.array([0, 5 << 32], np.int64),
            np.array([0, 1], ip),
            2,
            np.ones(2, np.uint8),
            np.full(2, -1, ip),
            np.zeros(2, ip),
            1,
            np.zeros(3, ip),
            np.zeros(2, ip),
            np.full(2, 2, ip),
        )


@needs_native
def test_add_at_equals_numpy_add_at() -> None:
    """Sequential float32 scatter-add: same bits as np.add.at (order matters in float32)."""
    lib = native.cscan
    assert lib is not None
    rng = np.random.default_rng(5)
    idx = rng.integers(0, 7, size=20000).astype(np.intp)
    w = (rng.random(20000) * rng.choice([1e-3, 1.0, 1e4], size=20000)).astype(np.float32)
    fast = np.zeros(7, np.float32)
    lib.add_at(fast, idx, w)
    slow = np.zeros(7, np.float32)
    np.add.at(slow, idx, w)
    assert np.array_equal(fast, slow)
    # Summing in another order gives other bits: the test can tell.
    assert not np.array_equal(fast, np.bincount(idx, w, minlength=7).astype(np.float32))
    with pytest.raises(IndexError):
        lib.add_at(fast, np.array([7], np.intp), np.ones(1, np.float32))


@needs_native
@pytest.mark.parametrize("code_type", [np.int8, np.int16, np.int32])
def test_nominal_counts_equal_per_attribute_add_at(code_type: type) -> None:
    lib = native.cscan
    assert lib is not None
    rng = np.random.default_rng(9)
    E, n_nom, C, kmax, B = 5000, 4, 3, 6, 5
    table = rng.integers(0, kmax, size=(800, n_nom)).astype(code_type)  # the rows' codes
    rows = rng.integers(0, 800, size=E).astype(np.intp)  # the bucket's cases
    cols = np.array([3, 0, 2], np.intp)
    K = cols.size
    tid = np.sort(rng.integers(0, B, size=E))
    y = rng.integers(0, C, size=E)
    w = np.where(rng.random(E) < 0.5, rng.random(E), 1.0).astype(np.float32)
    fast = np.zeros((B, K, kmax * C), np.float32)
    lib.nominal_counts(
        table,
        table.dtype.itemsize,
        n_nom,
        rows,
        cols,
        tid * (K * kmax * C) + y,
        w,
        kmax * C,
        C,
        fast,
    )
    codes = table[rows]
    slow = np.zeros((B, K, kmax * C), np.float32)
    for k, col in enumerate(cols.tolist()):
        part = np.zeros(B * kmax * C, np.float32)
        np.add.at(part, tid * (kmax * C) + y + codes[:, col].astype(np.intp) * C, w)
        slow[:, k] = part.reshape(B, kmax * C)
    assert np.array_equal(fast, slow)
    with pytest.raises(IndexError):  # row 800 is past the table
        lib.nominal_counts(
            table,
            table.dtype.itemsize,
            n_nom,
            np.array([800], np.intp),
            cols,
            np.zeros(1, np.intp),
            w[:1],
            kmax * C,
            C,
            fast,
        )


@needs_native
@pytest.mark.parametrize("code_type", [np.int8, np.int16, np.int32])
def test_nominal_counts_in_double_equal_per_attribute_bincount(code_type: type) -> None:
    """The j48 flavour's Freq[v][c]: the kernel in double, cell for cell the sums of
    grow.py's numpy path (one bincount per attribute, each cell in case order), on
    fractional weights whose sums depend on that order."""
    lib = native.cscan
    assert lib is not None
    rng = np.random.default_rng(11)
    E, n_nom, C, kmax, B = 5000, 4, 3, 6, 5
    table = rng.integers(0, kmax, size=(800, n_nom)).astype(code_type)
    rows = rng.integers(0, 800, size=E).astype(np.intp)
    cols = np.array([3, 0, 2], np.intp)
    K = cols.size
    tid = np.sort(rng.integers(0, B, size=E))
    y = rng.integers(0, C, size=E)
    w = rng.random(E) * 3.7
    fast = np.zeros((B, K, kmax * C))
    lib.nominal_counts(
        table,
        table.dtype.itemsize,
        n_nom,
        rows,
        cols,
        tid * (K * kmax * C) + y,
        w,
        kmax * C,
        C,
        fast,
    )
    codes = table[rows]
    slow = np.zeros((B, K, kmax * C))
    for k, col in enumerate(cols.tolist()):
        idx = tid * (kmax * C) + y + codes[:, col].astype(np.intp) * C
        slow[:, k] = np.bincount(idx, w, minlength=B * kmax * C).reshape(B, kmax * C)
    assert np.array_equal(fast, slow)
    with pytest.raises(ValueError):  # weights and counts of different types
        lib.nominal_counts(
            table,
            table.dtype.itemsize,
            n_nom,
            rows,
            cols,
            tid * (K * kmax * C) + y,
            w.astype(np.float32),
            kmax * C,
            C,
            fast,
        )


@needs_native
@pytest.mark.parametrize("Kc", [3, 20])
@pytest.mark.parametrize("by_row", [False, True])
def test_gather_values_equals_numpy(Kc: int, by_row: bool) -> None:
    """The gather from the context's (Kc, n) table of values (one attribute a row), or
    from the (n, Kc) table growth holds below the root (``by_row``: 20 float32 values
    span two cache lines), and the unknown-weight sums per (task, attribute), in case
    order."""
    lib = native.cscan
    assert lib is not None
    rng = np.random.default_rng(4)
    n, E, B = 500, 3000, 7
    cv = rng.normal(size=(n, Kc)).astype(np.float32)
    cv[rng.random(cv.shape) < 0.2] = np.nan
    rows = rng.integers(0, n, size=E).astype(np.intp)
    tid = np.sort(rng.integers(0, B, size=E)).astype(np.intp)
    w = (rng.random(E) * 3).astype(np.float32)
    unk = np.zeros(B * Kc, np.float32)
    y = rng.integers(0, 3, size=E).astype(np.intp)
    rec = np.empty((E, Kc + 2), np.float32)
    table = cv.copy() if by_row else np.ascontiguousarray(cv.T)
    width = Kc if by_row else 0
    lib.gather_values(table, Kc, rows, w, y, tid, rec, unk, width)
    assert np.array_equal(rec[:, :Kc], cv[rows], equal_nan=True)
    assert np.array_equal(rec[:, Kc], w) and np.array_equal(rec[:, Kc + 1], y)
    k_idx, e_idx = np.nonzero(np.isnan(cv[rows].T))
    want = np.zeros(B * Kc, np.float32)
    np.add.at(want, tid[e_idx] * Kc + k_idx, w[e_idx])
    assert np.array_equal(unk, want) and want.any()
    with pytest.raises(IndexError):
        lib.gather_values(table, Kc, np.array([n], np.intp), w[:1], y[:1], tid[:1], rec, unk, width)
    if by_row:
        # One attribute of the rows (a large task's gathers): column 2 of the table.
        one = np.empty((E, 3), np.float32)
        unk1 = np.zeros(B, np.float32)
        lib.gather_values(table, 1, rows, w, y, tid, one, unk1, Kc, 2)
        assert np.array_equal(one[:, 0], cv[rows, 2], equal_nan=True)
        want1 = np.zeros(B, np.float32)
        nan = np.isnan(cv[rows, 2])
        np.add.at(want1, tid[nan], w[nan])
        assert np.array_equal(unk1, want1) and want1.any()
        with pytest.raises(ValueError):  # columns 2..Kc + 1 are not all in the table
            lib.gather_values(table, Kc, rows, w, y, tid, rec, unk, Kc, 2)


@pytest.mark.slow
def test_more_classes_than_the_kernels_take() -> None:
    """Past MAX_CLASSES training quietly takes the numpy path: same tree as dfs."""
    rng = np.random.default_rng(2)
    n, K = 300, MAX_CLASSES + 5
    X = rng.normal(size=(n, 2)).round(1)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.where(X[:, 0] > 0, K - 1, rng.integers(0, 3, size=n)).astype(np.int32)
    attrs = (Attribute("a", "continuous", ()), Attribute("b", "continuous", ()))
    ds = Dataset(Schema(attrs, tuple(f"c{i}" for i in range(K)), "class"), X, y, "test")
    assert train(ds, TrainOptions()).size > 1  # Release 8's case order
    model = train(ds, TrainOptions(), case_order="rows")
    assert model.size > 1
    assert model.nodes == train(ds, TrainOptions(), engine="dfs", case_order="rows").nodes


@needs_native
def test_emit_children_rejects_bad_indices() -> None:
    lib = native.cscan
    assert lib is not None
    ip, f32 = np.intp, np.float32
    args = [
        np.zeros(2, ip),
        np.array([0, 3], ip),
        np.ones(2, f32),
        np.array([0, 1], ip),
        2,
        np.full(2, -1, ip),
        np.zeros(2, f32),
        4,
        np.zeros(3, ip),
        np.zeros(4, ip),
        np.zeros(4, f32),
        np.zeros(2, ip),
        np.zeros(2, ip),
    ]
    with pytest.raises(IndexError):  # branch 3 of a 2-way split
        lib.emit_children(*args)
    args[1] = np.array([0, 1], ip)
    lib.emit_children(*args)  # the same call with valid branches goes through
    assert args[8].tolist() == [0, 1, 2] and args[9][:2].tolist() == [0, 1]


@needs_native
def test_j48_kernels_reject_bad_indices() -> None:
    lib = native.cscan
    assert lib is not None
    f64, ip = np.float64, np.intp
    rec = np.zeros((4, 3), f64)
    rec[:, 1] = 1.0
    one = np.ones(1, f64)
    out = [np.zeros(8, ip), np.zeros(8, ip), np.zeros(8, f64), np.zeros(4 * 8)]

    def scan(flat: list[int], n_classes: int, x: np.ndarray, cap: int = 8) -> int:
        # one segment of the cases at flat: MinSplit 1, bound the known weight
        got: int = lib.scan_cont_j48(
            rec, 4, 3, 1, np.array(flat, np.int32), np.zeros(1, ip),
            np.array([len(flat)], ip), np.zeros(1, ip), one, np.full(1, len(flat), f64),
            np.ones(1, np.uint8), n_classes, out[0][:cap], out[1][:cap], out[2][:cap], x,
            np.zeros(n_classes, f64), np.zeros(1, ip),
        )  # fmt: skip
        return got

    rec[:, 0] = [0, 1, 2, 3]
    assert scan([0, 1, 2, 3], 1, out[3]) == 3  # a cut after each case but the last
    with pytest.raises(IndexError):  # position 9 is not a case
        scan([0, 9], 1, out[3])
    with pytest.raises(ValueError):  # output too small for the classes
        scan([0, 1], 2, np.zeros(4 * 8))  # 2 classes need 6 values per cut
    with pytest.raises(IndexError):  # 3 candidate cuts, room for 1
        scan([0, 1, 2, 3], 1, out[3], cap=1)
    with pytest.raises(IndexError):  # candidate 0 names segment 5 of 1
        lib.best_cuts_j48(
            np.ones(4),
            np.zeros(4),
            1,
            1,
            np.array([5], ip),
            one,
            one,
            one,
            one,
            2.0,
            np.zeros(1, ip),
            np.zeros(1, f64),
        )


@needs_native
@pytest.mark.parametrize("j48", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_nominal_scores_equal_numpy(seed: int, j48: bool) -> None:
    """nominal.score_nominal (C) == nominal.score_outcomes, NaN gains of all-unknown rows
    too; float32 for c45, double for j48 (fractional weights there as boosting makes)."""
    rng = np.random.default_rng([8, seed])
    dt = np.float64 if j48 else np.float32
    K, n_out, C = int(rng.integers(1, 60)), int(rng.integers(2, 9)), int(rng.integers(2, 6))
    freq = rng.integers(0, 6, size=(K, n_out, C)).astype(dt)
    freq[rng.random(freq.shape) < 0.3] = 0.0
    frac = rng.random(freq.shape) < (0.9 if j48 else 0.3)  # fractions from unknown values
    freq[frac] *= rng.random(int(frac.sum())).astype(dt)
    freq[0, 1:, :] = 0.0  # a row where every case is unknown
    cases = np.cumsum(freq.reshape(K, -1), axis=1, dtype=dt)[:, -1]
    cases[1 % K] += dt(2.5)  # weight outside the counted outcomes
    ds = segments.continuous_data(seed, 50, 1, C)
    ctx = build_context(ds, int(rng.integers(1, 4)), j48)
    fast = score_nominal(ctx, freq, cases)
    with np.errstate(divide="ignore", invalid="ignore"):
        slow = score_outcomes(ctx, freq, cases, ctx.min_cases)
    assert np.isnan(fast[0][0])  # the all-unknown row: 0/0
    for a, b in zip(fast, slow, strict=True):
        assert np.array_equal(a, b, equal_nan=True)
