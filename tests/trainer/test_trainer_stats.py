"""The trainer's formulas against hand-computed values (docs/C45.md sections 2, 3, 5).

Expected numbers were worked out by hand from the formulas in the
specification (golf: 9 Play / 5 Don't Play; outlook sunny 2/3, overcast
4/0, rain 3/2).  Float32 results are compared with a tolerance of a few
float32 ulps, the precision Release 8 stores them in.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from treegen.trainer import stats
from treegen.trainer.stats import (
    ErrorBound,
    base_info,
    coeff_c45,
    log2_c45,
    min_split,
    normal_quantile,
    thresh_cost,
    total_info,
)

F32 = np.float32
F32_TOL = 2e-6


def test_log_is_zero_for_non_positive() -> None:
    out = log2_c45(np.asarray([0.0, -1.0, 1.0, 8.0]))
    assert out.tolist() == [0.0, 0.0, 0.0, 3.0]


def test_golf_base_info() -> None:
    # -(9/14) log2(9/14) - (5/14) log2(5/14) = 0.940286
    assert base_info(np.asarray([9.0, 5.0]), 14.0, F32) == pytest.approx(0.940286, abs=F32_TOL)


def test_total_info_is_unnormalised_entropy() -> None:
    # TotalInfo(2, 3) = 5 log2 5 - 2 log2 2 - 3 log2 3 = 11.609640 - 2 - 4.754888 = 4.854753
    v = total_info([np.asarray([2.0]), np.asarray([3.0])], F32)
    assert float(v[0]) == pytest.approx(4.854753, abs=1e-5)


def test_golf_outlook_gain_split_info_and_ratio() -> None:
    from treegen.trainer.nominal import eval_nominal

    ds = _golf()
    from treegen.trainer.tables import build_context

    ctx = build_context(ds, 2, j48=False)
    rows = np.arange(ds.n_rows)
    scores = eval_nominal(ctx, [0, 3], rows, ctx.weights[rows], 14.0)
    outlook = scores[0]
    # gain = 0.940286 - (5/14)(0.970951) * 2 = 0.246750
    assert outlook.gain == pytest.approx(0.246750, abs=F32_TOL)
    # split info = H(5/14, 4/14, 5/14) = 1.577406
    assert outlook.info == pytest.approx(1.577406, abs=F32_TOL)
    assert outlook.gain / outlook.info == pytest.approx(0.156428, abs=F32_TOL)
    windy = scores[3]  # true 3P/3D, false 6P/2D: gain 0.048127, split info 0.985228
    assert windy.gain == pytest.approx(0.048127, abs=F32_TOL)
    assert windy.info == pytest.approx(0.985228, abs=F32_TOL)


def test_unknown_values_scale_gain_and_add_an_outcome_to_split_info() -> None:
    from treegen.trainer.nominal import eval_nominal
    from treegen.trainer.tables import build_context

    ds = _golf()
    X = ds.X.copy()
    X[0, 0] = np.nan  # first case (sunny, Don't Play) loses its outlook
    from treegen.data.dataset import Dataset

    ctx = build_context(Dataset(ds.schema, X, ds.y), 2, j48=False)
    rows = np.arange(14)
    s = eval_nominal(ctx, [0], rows, ctx.weights[rows], 14.0)[0]
    # known 13: 9P/4D, base 0.890492; sunny 2/2 (4), overcast 4/0, rain 3/2 (5)
    # gain = (13/14) (0.890492 - (4*1 + 5*0.970951)/13) = 0.194403
    assert s.gain == pytest.approx(0.194403, abs=F32_TOL)
    # split info = H(1/14, 4/14, 4/14, 5/14) = 1.835238
    assert s.info == pytest.approx(1.835238, abs=F32_TOL)


def test_min_split_bounds() -> None:
    # 0.10 * known / classes, raised to MINOBJS when <= MINOBJS, capped at 25.
    assert min_split(8.0, 2, 2.0, F32) == 2.0
    assert min_split(100.0, 2, 2.0, F32) == pytest.approx(5.0)
    assert min_split(20.0, 1, 2.0, F32) == 2.0  # exactly MINOBJS -> MINOBJS
    assert min_split(10_000.0, 3, 2.0, F32) == 25.0
    assert min_split(300.0, 3, 20.0, F32) == 20.0


def test_mdl_penalty() -> None:
    assert thresh_cost(0, 10.0, F32) == 0.0
    assert thresh_cost(1, 10.0, F32) == 0.0
    assert thresh_cost(5, 8.0, F32) == pytest.approx(math.log2(5) / 8, abs=F32_TOL)


def test_continuous_cut_is_penalised_and_threshold_is_a_data_value() -> None:
    from treegen.data.dataset import Attribute, Dataset, Schema
    from treegen.trainer.splits import Score, eval_continuous
    from treegen.trainer.tables import build_context
    from treegen.trainer.thresholds import cut_for

    # values 1..8, classes AAAABBBB: MinSplit 2, candidate cuts after 2,3,4,5,6 -> Tries 5;
    # best cut 4|5 has gain 1.0, penalised 1 - log2(5)/8 = 0.709760, split info 1.0.
    schema = Schema((Attribute("x", "continuous"),), ("A", "B"))
    ds = Dataset(schema, np.arange(1.0, 9.0)[:, None], np.asarray([0] * 4 + [1] * 4, np.int32))
    ctx = build_context(ds, 2, j48=False)
    cs = eval_continuous(
        ctx,
        np.zeros(1, dtype=np.intp),
        ctx.presorted,
        ctx.weights[ctx.presorted],
        ctx.presorted_len,
        np.asarray([8.0]),
        np.zeros(1, dtype=F32),
    )
    assert cs.ok[0]
    s = Score(float(cs.gain[0]), float(cs.info[0]), float(cs.bar[0]))
    assert s.gain == pytest.approx(0.709760, abs=F32_TOL)
    assert s.info == pytest.approx(1.0, abs=F32_TOL)
    assert s.bar == 4.5
    assert cut_for(ctx, 0, s.bar) == 4.0


def test_interpolated_z() -> None:
    # z = 0.84 + (0.25 - 0.20)/(0.40 - 0.20) * (0.25 - 0.84) = 0.6925; stored z^2
    assert coeff_c45(0.25) == pytest.approx(0.6925**2, abs=1e-6)
    assert coeff_c45(0.10) == pytest.approx(1.28**2, abs=1e-6)


def test_normal_quantile() -> None:
    assert normal_quantile(0.75) == pytest.approx(0.6744897501960817, abs=1e-12)
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054, abs=1e-12)
    assert normal_quantile(0.001) == pytest.approx(-3.090232306167813, abs=1e-11)


class TestAddErrsC45:
    """AddErrs(N=6, e) at CF=0.25 (z^2 = 0.47955625), worked by hand."""

    bound = ErrorBound(0.25, "c45")

    def test_zero_errors(self) -> None:
        # N (1 - CF^(1/N)) = 6 (1 - 0.793701) = 1.237797
        assert self.bound.add_errs(6.0, 0.0) == pytest.approx(1.237797, abs=F32_TOL)

    def test_one_error(self) -> None:
        # p = (1.5 + 0.239778 + sqrt(0.479556 (1.5 * 0.75 + 0.119889))) / 6.479556 = 0.387748
        # N p - e = 2.326485 - 1 = 1.326485
        assert self.bound.add_errs(6.0, 1.0) == pytest.approx(1.326485, abs=5e-6)

    def test_half_error_interpolates(self) -> None:
        # 1.237797 + 0.5 (1.326485 - 1.237797) = 1.282141
        assert self.bound.add_errs(6.0, 0.5) == pytest.approx(1.282141, abs=5e-6)

    def test_near_n_uses_067(self) -> None:
        # e + 0.5 >= N: 0.67 (N - e) = 0.67 * 0.4 = 0.268
        assert self.bound.add_errs(6.0, 5.6) == pytest.approx(0.268, abs=F32_TOL)

    def test_leaf_estimate_golf_overcast(self) -> None:
        # Play (4.0): 4 (1 - 0.25^(1/4)) = 1.171573, printed 1.2
        assert self.bound.estimate(4.0, 0.0) == pytest.approx(1.171573, abs=F32_TOL)


class TestAddErrsJ48:
    bound = ErrorBound(0.25, "j48")

    def test_near_n_uses_max(self) -> None:
        assert self.bound.add_errs(6.0, 5.6) == pytest.approx(0.4, abs=1e-12)

    def test_exact_quantile(self) -> None:
        z2 = 0.6744897501960817**2
        p = (1.5 + z2 / 2 + math.sqrt(z2 * (1.5 * 0.75 + z2 / 4))) / (6 + z2)
        assert self.bound.add_errs(6.0, 1.0) == pytest.approx(6 * p - 1, abs=1e-12)
        # by hand: 6 * 0.383918 - 1 = 1.303507
        assert self.bound.add_errs(6.0, 1.0) == pytest.approx(1.303507, abs=5e-6)


def _golf():  # type: ignore[no-untyped-def]
    from treegen.data.dataset import Attribute, Dataset, Schema

    schema = Schema(
        (
            Attribute("outlook", "nominal", ("sunny", "overcast", "rain")),
            Attribute("temperature", "continuous"),
            Attribute("humidity", "continuous"),
            Attribute("windy", "nominal", ("true", "false")),
        ),
        ("Play", "Don't Play"),
    )
    rows = [
        (0, 85, 85, 1, 1),
        (0, 80, 90, 0, 1),
        (1, 83, 78, 1, 0),
        (2, 70, 96, 1, 0),
        (2, 68, 80, 1, 0),
        (2, 65, 70, 0, 1),
        (1, 64, 65, 0, 0),
        (0, 72, 95, 1, 1),
        (0, 69, 70, 1, 0),
        (2, 75, 80, 1, 0),
        (0, 75, 70, 0, 0),
        (1, 72, 90, 0, 0),
        (1, 81, 75, 1, 0),
        (2, 71, 80, 0, 1),
    ]
    a = np.asarray(rows, dtype=np.float64)
    return Dataset(schema, a[:, :4], a[:, 4].astype(np.int32))


def test_scores_without_a_midpoint_are_equal() -> None:
    """A nominal attribute's score has no midpoint (None, where the score arrays hold a
    NaN): equal scores are equal and hash equal as plain values."""
    from treegen.trainer.splits import Score

    assert Score(0.5, 1.0) == Score(0.5, 1.0, None)
    assert hash(Score(0.5, 1.0)) == hash(Score(0.5, 1.0))
    assert Score(0.5, 1.0) != Score(0.5, 1.0, 0.25)
    assert Score(0.5, 1.0, 0.25) == Score(0.5, 1.0, 0.25) != Score(0.5, 1.0, 0.5)
    assert Score(0.5, 1.0, subsets=((0,), (1,))) != Score(0.5, 1.0, subsets=((0, 1),))


@pytest.mark.parametrize("seed", range(4))
def test_total_info_of_many_parts_equals_the_part_by_part_sums(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From MANY_PARTS parts (a class each) total_info skips the parts of zero terms and
    sums float parts by cumsum: the same float32 results, bit for bit, as the loop over
    every part (float and double parts, weights 0 and 1, -0.0, fractions)."""
    rng = np.random.default_rng([38, seed])
    results = []
    for _ in range(60):
        n = int(rng.integers(stats.MANY_PARTS, 4 * stats.MANY_PARTS))
        shape = tuple(int(k) for k in rng.integers(1, 4, size=int(rng.integers(0, 3))))
        v = rng.choice([0.0, 1.0, -0.0, 2.0, 0.5, 3.25, 7.0], size=(n, *shape))
        if rng.random() < 0.5:
            v = np.where(rng.random(v.shape) < 0.8, v, v * rng.random(v.shape))
        dt = np.float32 if rng.random() < 0.7 else np.float64
        results.append([p for p in v.astype(dt)])
    fast = [stats.total_info(p, np.float32) for p in results]
    monkeypatch.setattr(stats, "MANY_PARTS", 10**9)  # every part through the loop
    slow = [stats.total_info(p, np.float32) for p in results]
    for f, s in zip(fast, slow, strict=True):
        assert np.asarray(f).tobytes() == np.asarray(s).tobytes()
    assert any(np.asarray(s).any() for s in slow)


def test_base_info_of_many_classes_equals_the_class_by_class_sum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From MANY_PARTS classes present base_info_many sums the terms by cumsum: the same
    doubles as the loop over the classes, so the same stored results."""
    rng = np.random.default_rng(39)
    cases = []
    for _ in range(40):
        k, c = int(rng.integers(1, 6)), int(rng.integers(stats.MANY_PARTS, 300))
        f = rng.random((k, c)) * float(rng.choice([1.0, 10.0, 1000.0]))
        f = np.where(rng.random((k, c)) < 0.5, 0.0, f).astype(np.float32)
        cases.append((f, f.sum(axis=1, dtype=np.float64) * float(rng.choice([1.0, 0.9]))))
    fast = [stats.base_info_many(f, known, dt) for f, known in cases for dt in (F32, np.float64)]
    monkeypatch.setattr(stats, "MANY_PARTS", 10**9)  # class by class
    slow = [stats.base_info_many(f, known, dt) for f, known in cases for dt in (F32, np.float64)]
    for a, b in zip(fast, slow, strict=True):
        assert a.tobytes() == b.tobytes()
    assert any(b.any() for b in slow)
