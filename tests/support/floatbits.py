"""Floats compared as their IEEE bits, the one way the tests hold two float arrays
exactly equal: ``np.array_equal`` on the numbers says NaN != NaN and 0.0 == -0.0, while
the bits tell a NaN's sign and payload and the zeros' signs apart.

:func:`bits` is also how the binary64 tests (support.f64pos) read numbers as the
uint64 words their C routines take.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]


def bits(a: npt.ArrayLike) -> U64:
    """``a`` as float64 numbers' bit patterns, one uint64 each (float32 and integer
    values converted to float64 first; a scalar gives one element)."""
    out: U64 = np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)
    return out


def same_bits(a: npt.ArrayLike, b: npt.ArrayLike) -> bool:
    """Equal shapes and equal float64 bit patterns."""
    x, y = bits(a), bits(b)
    return x.shape == y.shape and bool(np.array_equal(x, y))


def rows_differ(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Per row (the first axis): whether any of its bits differ; every row where the
    shapes differ."""
    x, y = bits(a), bits(b)
    if x.shape != y.shape:
        return np.ones(len(x), dtype=bool)
    return np.asarray((x != y).reshape(len(x), -1).any(axis=1))


def first_differing_row(a: npt.ArrayLike, b: npt.ArrayLike) -> int:
    """The first row :func:`rows_differ` reports (0 where the shapes differ or none does)."""
    rows = np.flatnonzero(rows_differ(a, b))
    return int(rows[0]) if rows.size else 0
