"""The presorting in build_context: a stable sort by value, whatever the values."""

from __future__ import annotations

import numpy as np
import pytest

from treegen.trainer import native
from treegen.trainer.context import _stable_order


@pytest.mark.parametrize("seed", range(20))
def test_float32_key_sort_equals_stable_argsort(seed: int) -> None:
    """Ties in row order; -0.0 ties with 0.0; infinities, subnormals, huge values."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5000))
    scale = float(rng.choice([1.0, 100.0, 1e30]))
    col = np.round(rng.normal(size=n) * scale, int(rng.integers(0, 3))).astype(np.float32)
    for value, share in (
        (np.nan, 0.1),
        (-0.0, 0.05),
        (0.0, 0.05),
        (np.inf, 0.02),
        (-np.inf, 0.02),
        (1e-45, 0.02),
        (-1e-45, 0.02),
    ):
        col[rng.random(n) < share] = np.float32(value)
    rows = np.flatnonzero(~np.isnan(col))
    expected = rows[np.argsort(col[rows], kind="stable")]
    assert np.array_equal(_stable_order(col, rows), expected)
    if native.cscan is not None:  # the radix sort in C (Context.presort), written in place
        out = np.full(n + 3, -7, dtype=np.int32)
        scratch = np.full(4 * n, 99, dtype=np.uint32)
        assert native.cscan.stable_order(col, out, scratch) == expected.size
        assert np.array_equal(out[: expected.size], expected)
        assert (out[n:] == -7).all()  # nothing written past the column's rows
        with pytest.raises(ValueError):  # a scratch of fewer than 4 words a row
            native.cscan.stable_order(col, out, np.empty(4 * n - 1, dtype=np.uint32))


@pytest.mark.skipif(native.cscan is None, reason="C accelerator not built")
def test_radix_order_of_a_large_column() -> None:
    """Over 2^22 rows (every digit's counts large, keys from the whole float32 range):
    the C order equals the stable argsort."""
    rng = np.random.default_rng(5)
    n = (1 << 22) + 3
    col = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    col[rng.random(n) < 0.01] = np.float32(-0.0)
    rows = np.flatnonzero(~np.isnan(col))
    expected = rows[np.argsort(col[rows], kind="stable")]
    out = np.empty(n, dtype=np.int32)
    assert native.cscan.stable_order(col, out, np.empty(4 * n, np.uint32)) == expected.size
    assert np.array_equal(out[: expected.size], expected)


def test_double_values_take_the_stable_argsort() -> None:
    col = np.array([2.0, 1.0, 2.0, -0.0, 0.0, 1.0])
    rows = np.arange(col.size)
    assert _stable_order(col, rows).tolist() == [3, 4, 1, 5, 0, 2]
