"""The value-grouping search's arithmetic (treegen/trainer/subsets.py).

Release 8's search scores every merger of two blocks at each step, all of them at
once (``Table.trials``); these tests hold that to merging each pair on its own
(``Table.combine``, then ``Table.gain_info``) bit for bit, since a float32 sum taken
in another order can turn a tie in gain ratio.  The j48 flavour has no grouping:
growth refuses ``--subsets`` on its context.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.errors import TrainError
from treegen.trainer import native
from treegen.trainer.context import Context
from treegen.trainer.levelwise.grow import grow_levels
from treegen.trainer.options import GrowOptions, TrainOptions
from treegen.trainer.reference.grow import grow as reference_grow
from treegen.trainer.release8.grow import grow as release8_grow
from treegen.trainer.stats import base_info_many
from treegen.trainer.subsets import LEAKED_MINOBJS, Table, eval_subset, leaking_attribute
from treegen.trainer.tables import build_context


def _random_freq(rng: np.random.Generator, k: int, c: int, dtype: type) -> np.ndarray:
    """A (k + 1, c) Freq[v][c] with fractional weights whose float32 sums depend on order."""
    freq = rng.choice([0.0, 0.0, 0.1, 0.3, 1.0, 3.7, 1e-3, 2.5e4], size=(k + 1, c))
    freq = freq * rng.uniform(0.5, 1.5, size=(k + 1, c))
    return freq.astype(dtype)


def test_growth_refuses_subsets_on_a_j48_context_as_train_options_do() -> None:
    """One rule in one home: each growth function, given GrowOptions built directly (not
    from TrainOptions), refuses --subsets on a j48 context with TrainOptions' error, and
    grows with --subsets on a c45 context, so no growth meets the pair."""
    with pytest.raises(TrainError) as train_err:
        TrainOptions(subsets=True, flavor="j48").validate()
    assert str(train_err.value).startswith("subsets: is Release 8's -s")
    attr = Attribute("a", "nominal", ("x", "y", "z"))
    ds = Dataset(
        Schema((attr,), ("p", "q")),
        np.asarray([[0.0], [1.0], [2.0]]),
        np.asarray([0, 1, 0], dtype=np.int32),
    )
    for grow in (grow_levels, reference_grow, release8_grow):
        with pytest.raises(TrainError) as grow_err:
            grow(build_context(ds, 1, True), GrowOptions("gainratio", subsets=True))
        assert str(grow_err.value) == str(train_err.value)
        grow(build_context(ds, 1, False), GrowOptions("gainratio", subsets=True))  # c45
        grow(build_context(ds, 1, True), GrowOptions("gainratio"))  # j48 without subsets


def _search_context(k: int, c: int, min_cases: int) -> Context:
    """A c45 context for searches over one nominal attribute of k values, c classes."""
    attr = Attribute("a", "nominal", tuple(f"v{v}" for v in range(k)))
    ds = Dataset(
        Schema((attr,), tuple(f"c{i}" for i in range(c))),
        np.zeros((c, 1)),
        np.arange(c, dtype=np.int32),
    )
    return build_context(ds, min_cases, False)


def test_search_over_many_values_finds_the_pattern_behind_them() -> None:
    """60 values, two classes: values 0, 3, 6, ... hold class 0, the rest class 1
    (with a little noise); the search ends with those two groups."""
    rng = np.random.default_rng(3)
    k = 60
    ctx = _search_context(k, 2, 2)
    freq = np.zeros((k + 1, 2), dtype=np.float32)
    for v in range(k):
        n = float(rng.integers(20, 40))
        major, minor = (0, 1) if v % 3 == 0 else (1, 0)
        freq[v + 1, major], freq[v + 1, minor] = n, float(rng.integers(0, 2))
    cases = float(freq.sum())
    found = eval_subset(ctx, freq, cases, cases, 2.0, True)
    assert found.score is not None and not found.leaked
    groups = sorted(found.score.subsets)
    assert groups == sorted([tuple(range(0, k, 3)), tuple(v for v in range(k) if v % 3)])


def test_single_class_values_merge_and_small_values_form_the_last_branch() -> None:
    """Step 3: values of 0.5 cases or fewer are no block and form one last branch;
    step 4: blocks all of one class merge with the later blocks of that class."""
    ctx = _search_context(5, 2, 2)
    freq = np.asarray(
        [[0, 0], [6, 0], [0, 5], [4, 0], [0.3, 0.1], [2, 3]], dtype=np.float32
    )  # unknown row, then values 0..4
    cases = float(freq.sum())
    found = eval_subset(ctx, freq, cases, cases, 2.0, True)
    assert found.score is not None
    assert found.score.subsets[-1] == (3,)  # the small value, last
    assert (0, 2) in found.score.subsets  # the two class-0 values together


def test_no_known_case_leaves_minobjs_at_one() -> None:
    """Step 1: a grouping meeting an attribute with no known case gives no test, and
    Release 8 does not put MINOBJS back (``leaking_attribute`` finds the node)."""
    ctx = _search_context(3, 2, 2)
    freq = np.zeros((4, 2), dtype=np.float32)
    freq[0] = [3.0, 4.0]
    found = eval_subset(ctx, freq, 7.0, 7.0, 2.0, True)
    assert found.score is None and found.leaked
    rows = np.arange(2, dtype=np.intp)
    ctx.ncodes[:] = 0  # every value unknown
    assert leaking_attribute(ctx, rows, np.ones(2, dtype=np.float32), 2.0) == 0
    ctx.min_cases = LEAKED_MINOBJS
    assert leaking_attribute(ctx, rows, np.ones(2, dtype=np.float32), 2.0) is None


@pytest.mark.parametrize("seed", range(8))
def test_trials_all_at_once_equal_each_merger_alone(seed: int) -> None:
    """``Table.trials`` scores every merger of a step in one call; each gain and split
    information is, bit for bit, that of the table merged by ``combine`` alone."""
    rng = np.random.default_rng([6, seed])
    checked = 0
    for _ in range(40):
        k, c = int(rng.integers(3, 16)), int(rng.integers(2, 5))
        ctx = _search_context(k, c, 2)
        freq = _random_freq(rng, k, c, np.float32)
        cases = float(np.cumsum(freq.ravel(), dtype=np.float32)[-1])
        known = np.float32(np.float32(cases) - np.cumsum(freq[0], dtype=np.float32)[-1])
        if not known > 0:
            continue
        class_known = np.cumsum(freq[1:], axis=0, dtype=np.float32)[-1][None, :]
        base = base_info_many(class_known, np.asarray([known], dtype=np.float32), np.float32)
        blocks = int(rng.integers(3, k + 1))
        t = Table(ctx, freq[: blocks + 1], cases, cases * 1.0001, base)
        pairs = [(x, y) for x in range(1, blocks) for y in range(x + 1, blocks + 1)]
        gains, infos = t.trials(blocks, pairs)
        for (x, y), g, i in zip(pairs, gains, infos, strict=True):
            alone = Table(ctx, freq[: blocks + 1], cases, cases * 1.0001, base)
            alone.combine(x, y, blocks)
            assert (g, i) == alone.gain_info(blocks - 1, 1.0)
            checked += 1
    assert checked > 100


@pytest.mark.skipif(native.cscan is None, reason="accelerator off or not built")
@pytest.mark.parametrize("seed", range(4))
def test_search_without_the_accelerator_is_the_same(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Searches end with the same grouping, gain and split information with the
    accelerator off, for fractional weights and values at or below the 0.5 of step 3."""
    rng = np.random.default_rng([5, seed])
    k, c = int(rng.integers(3, 25)), int(rng.integers(2, 5))
    ctx = _search_context(k, c, int(rng.integers(1, 4)))
    merged = 0
    for _ in range(40):
        freq = _random_freq(rng, k, c, np.float32)
        freq[rng.random(k + 1) < 0.2] *= np.float32(0.1)
        cases = float(np.cumsum(freq.ravel(), dtype=np.float32)[-1])
        fast = eval_subset(ctx, freq, cases, cases, ctx.min_cases, True)
        with monkeypatch.context() as m:
            m.setattr(native, "cscan", None)
            slow = eval_subset(ctx, freq, cases, cases, ctx.min_cases, True)
        assert fast == slow
        merged += fast.score is not None and len(fast.score.subsets) < k
    assert merged > 5
