"""Release 8's case order (treegen/trainer/release8/order.py, cases.py, native/order.c).

The two ways Release 8 reorders its cases, held to a literal case-by-case run of the
swaps they describe: moving the passing cases to the front (``front``, and the
accelerator's in-place ``r8_front``) and its quicksort (``sort_permutation``, its
plain-Python reference and the accelerator's ``r8_sort``), on segments with many
ties, sorted and reverse-sorted ones included.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.trainer import native
from treegen.trainer.release8.order import _sort_python, front, sort_permutation

needs_native = pytest.mark.skipif(native.cscan is None, reason="accelerator off or not built")


def _front_literal(passes: list[bool]) -> list[int]:
    perm, flags, k = list(range(len(passes))), list(passes), 0
    for i in range(len(flags)):
        if flags[i]:
            perm[k], perm[i] = perm[i], perm[k]
            flags[k], flags[i] = flags[i], flags[k]
            k += 1
    return perm


def _quicksort_literal(values: list[float]) -> list[int]:
    v, perm = list(values), list(range(len(values)))

    def swap(a: int, b: int) -> None:
        v[a], v[b] = v[b], v[a]
        perm[a], perm[b] = perm[b], perm[a]

    def sort(fp: int, lp: int) -> None:
        if fp >= lp:
            return
        pivot, middle = v[lp], fp
        for i in range(fp, lp):
            if v[i] <= pivot:
                if i != middle:
                    swap(middle, i)
                middle += 1
        lower = middle - 1
        for i in range(lower, fp - 1, -1):
            if v[i] == pivot:
                if i != lower:
                    swap(lower, i)
                lower -= 1
        sort(fp, lower)
        swap(middle, lp)
        sort(middle + 1, lp)

    sort(0, len(v) - 1)
    return perm


def _segments(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng([44, seed])
    out = []
    for _ in range(300):
        n = int(rng.integers(0, 60))
        vals = rng.integers(0, int(rng.integers(1, 12)), n).astype(np.float32)
        vals[rng.random(n) < 0.1] = np.float32(-0.0)  # -0.0 equals 0.0
        shape = rng.random()
        if shape < 0.2:
            vals = np.sort(vals)
        elif shape < 0.3:
            vals = np.sort(vals)[::-1].copy()
        out.append(vals)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_front_is_the_swaps(seed: int) -> None:
    rng = np.random.default_rng([45, seed])
    for _ in range(500):
        n = int(rng.integers(0, 50))
        passes = rng.random(n) < rng.random()
        assert front(passes).tolist() == _front_literal(passes.tolist())


@pytest.mark.parametrize("seed", range(4))
def test_sort_is_release8s_quicksort(seed: int) -> None:
    for vals in _segments(seed):
        want = _quicksort_literal(vals.tolist())
        assert _sort_python(vals.tolist()) == want
        got = sort_permutation(vals)
        assert got.tolist() == want
        assert np.all(np.diff(vals[got]) >= 0)


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_accelerator_sort_equals_the_python_one(seed: int) -> None:
    assert native.cscan is not None
    for vals in _segments(seed):
        out = np.empty(vals.size, dtype=np.intp)
        native.cscan.r8_sort(vals, out)
        assert out.tolist() == _sort_python(vals.tolist())


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_accelerator_front_moves_cases_and_weights_in_place(seed: int) -> None:
    assert native.cscan is not None
    rng = np.random.default_rng([46, seed])
    for _ in range(300):
        n_all = int(rng.integers(1, 80))
        order = rng.permutation(n_all).astype(np.intp)
        weight = rng.random(n_all).astype(np.float32)
        fp = int(rng.integers(0, n_all))
        n = int(rng.integers(0, n_all - fp + 1))
        passes = rng.random(n) < 0.5
        perm = front(passes)
        want_order = order.copy()
        want_weight = weight.copy()
        want_order[fp : fp + n] = order[fp : fp + n][perm]
        want_weight[fp : fp + n] = weight[fp : fp + n][perm]
        k = native.cscan.r8_front(passes, order, weight, fp)
        assert k == int(passes.sum())
        assert np.array_equal(order, want_order) and np.array_equal(weight, want_weight)


@needs_native
def test_accelerator_front_refuses_a_segment_out_of_range() -> None:
    assert native.cscan is not None
    order = np.arange(5, dtype=np.intp)
    weight = np.ones(5, dtype=np.float32)
    with pytest.raises(IndexError, match="r8_front"):
        native.cscan.r8_front(np.ones(3, dtype=bool), order, weight, 3)
    with pytest.raises(IndexError, match="r8_front"):
        native.cscan.r8_front(np.ones(1, dtype=bool), order, weight, -1)
