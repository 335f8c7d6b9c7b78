"""The value-grouping search's arithmetic (treegen/trainer/subsets.py).

The search scores every merger of two blocks at each step.  It builds those
groupings' frequencies from the current blocks' sums, summing only each
merged block anew (``merged_freqs``); these tests hold it to the plain
construction (``freq_of`` of each merged grouping) bit for bit, since a
float32 sum taken in another order can turn a tie in gain ratio.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer import native
from treegen.trainer.context import Context, build_context
from treegen.trainer.groups import freq_of, merge, merged_freqs, pairs_of
from treegen.trainer.levelwise.grouping import best_subsets_many
from treegen.trainer.subsets import best_subsets


def _random_freq(rng: np.random.Generator, k: int, c: int, dtype: type) -> np.ndarray:
    """A (k + 1, c) Freq[v][c] with fractional weights whose float32 sums depend on order."""
    freq = rng.choice([0.0, 0.0, 0.1, 0.3, 1.0, 3.7, 1e-3, 2.5e4], size=(k + 1, c))
    freq = freq * rng.uniform(0.5, 1.5, size=(k + 1, c))
    return freq.astype(dtype)


def _random_blocks(rng: np.random.Generator, k: int) -> list[list[int]]:
    """The values 0..k-1 dealt into blocks at random, each block in order."""
    labels = rng.integers(0, max(2, k // 2), size=k)
    blocks = [sorted(np.flatnonzero(labels == b).tolist()) for b in np.unique(labels)]
    return [b for b in blocks if b]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def testmerged_freqs_equal_each_merged_grouping_built_alone(dtype: type) -> None:
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(300):
        k = int(rng.integers(3, 25))
        freq = _random_freq(rng, k, int(rng.integers(2, 5)), dtype)
        blocks = _random_blocks(rng, k)
        if len(blocks) < 2:
            continue
        tail: list[list[int]] = []
        if len(blocks) > 2 and rng.random() < 0.5:
            tail = [blocks.pop()]  # the c45 search's block of small values
        got = merged_freqs(freq, blocks, freq_of(blocks + tail, freq))
        want = np.stack(
            [freq_of(merge(blocks, i, j) + tail, freq) for i, j in pairs_of(len(blocks))]
        )
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))  # bit for bit
        checked += 1
    assert checked > 200


def test_merge_keeps_the_other_blocks_in_place() -> None:
    blocks = [[0, 4], [1], [2, 5], [3]]
    assert merge(blocks, 0, 2) == [[0, 2, 4, 5], [1], [3]]
    assert merge(blocks, 1, 3) == [[0, 4], [1, 3], [2, 5]]
    assert blocks == [[0, 4], [1], [2, 5], [3]]  # not changed in place


def test_search_over_many_values_finds_the_pattern_behind_them() -> None:
    """60 values, two classes: values 0, 3, 6, ... hold class 0, the rest class 1
    (with a little noise); the search ends with those two groups."""
    rng = np.random.default_rng(3)
    k = 60
    attr = Attribute("a", "nominal", tuple(f"v{v}" for v in range(k)))
    ds = Dataset(Schema((attr,), ("x", "y")), np.zeros((2, 1)), np.array([0, 1], dtype=np.int32))
    ctx = build_context(ds, 2, False)
    freq = np.zeros((k + 1, 2), dtype=np.float32)
    for v in range(k):
        n = float(rng.integers(20, 40))
        major, minor = (0, 1) if v % 3 == 0 else (1, 0)
        freq[v + 1, major], freq[v + 1, minor] = n, float(rng.integers(0, 2))
    score = best_subsets(ctx, freq, float(freq.sum()), "gainratio", 0.0)
    assert score is not None and score.selectable
    groups = sorted(score.subsets)
    assert groups == sorted([tuple(range(0, k, 3)), tuple(v for v in range(k) if v % 3)])


def _search_context(k: int, c: int, min_cases: int) -> Context:
    """A c45 context for searches over one nominal attribute of k values, c classes."""
    attr = Attribute("a", "nominal", tuple(f"v{v}" for v in range(k)))
    ds = Dataset(
        Schema((attr,), tuple(f"c{i}" for i in range(c))),
        np.zeros((c, 1)),
        np.arange(c, dtype=np.int32),
    )
    return build_context(ds, min_cases, False)


@pytest.mark.skipif(native.cscan is None, reason="accelerator off or not built")
@pytest.mark.parametrize("seed", range(8))
def test_search_through_the_accelerator_equals_the_numpy_search(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search scores its groupings in C where the accelerator is built
    (``splits.score_nominal``); with it off, in numpy.  Both end with the same
    grouping, gain and split information, bit for bit, for fractional weights,
    values at or below the 0.5 of step 1, and averages that refuse some mergers."""
    rng = np.random.default_rng([5, seed])
    k, c = int(rng.integers(3, 25)), int(rng.integers(2, 5))
    ctx = _search_context(k, c, int(rng.integers(1, 4)))
    compared = 0
    for _ in range(40):
        freq = _random_freq(rng, k, c, np.float32)
        freq[rng.random(k + 1) < 0.2] *= np.float32(0.1)  # some values at or below 0.5
        cases = float(np.cumsum(freq.ravel(), dtype=np.float32)[-1])
        average = float(rng.choice([0.0, 0.01, 0.1]))
        fast = best_subsets(ctx, freq, cases, "gainratio", average)
        with monkeypatch.context() as m:
            m.setattr(native, "cscan", None)
            with np.errstate(divide="ignore", invalid="ignore"):
                slow = best_subsets(ctx, freq, cases, "gainratio", average)
        assert fast == slow
        compared += fast is not None and len(fast.subsets) < k
    assert compared > 10  # searches that merged something


@pytest.mark.parametrize("seed", range(6))
def test_searches_in_lockstep_equal_each_search_alone(seed: int) -> None:
    """The level-wise engine runs a bucket's searches together
    (``levelwise.grouping.best_subsets_many``): each ends with the grouping,
    gain and split information of its own ``best_subsets``, bit for bit, for
    searches of different widths, averages and MINOBJS in one batch."""
    rng = np.random.default_rng([6, seed])
    c = int(rng.integers(2, 5))
    k = 30
    ctx = _search_context(k, c, int(rng.integers(1, 4)))
    freqs, cases, averages = [], [], []
    for _ in range(60):
        kk = int(rng.integers(2, k + 1))
        freq = _random_freq(rng, kk, c, np.float32)
        freq[rng.random(kk + 1) < 0.2] *= np.float32(0.1)  # some values at or below 0.5
        freqs.append(freq)
        cases.append(float(np.cumsum(freq.ravel(), dtype=np.float32)[-1]))
        averages.append(float(rng.choice([0.0, 0.01, 0.1])))
    together = best_subsets_many(ctx, freqs, cases, "gainratio", averages)
    alone = [
        best_subsets(ctx, f, n, "gainratio", a)
        for f, n, a in zip(freqs, cases, averages, strict=True)
    ]
    assert together == alone
    assert (
        sum(
            s is not None and len(s.subsets) < f.shape[0] - 1
            for s, f in zip(alone, freqs, strict=True)
        )
        > 10
    )
