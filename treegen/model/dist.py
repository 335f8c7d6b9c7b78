"""A node's class weights: a tuple, or for many classes the weights present only.

A node's ``dist`` is one weight per class.  With few classes it is a plain tuple;
from :data:`SPARSE_MIN_CLASSES` classes, where at most a quarter of them have a
weight, it is a :class:`SparseDist`: the (class, weight) pairs of the classes
present.  With one class per row (4,000 classes) a tree's 3,000 nodes held 13M
weights as tuples (100 MB, a 67 MB model file); the pairs are a few per node.

A :class:`SparseDist` reads as the tuple it stands for (length, indexing,
iteration, ``numpy.asarray``) and compares and hashes equal to it, so every
stage that reads ``dist`` works on either form, and a model read from a file that
lists every weight equals the same model trained today.  :func:`make_dist` is the
one rule that picks the form (deterministic in the weights, so the same training
writes the same file).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import Any, TypeAlias, overload

import numpy as np
import numpy.typing as npt

# From this many classes a distribution may be sparse (fewer: always a tuple, so the
# files of every model with few classes stay as they were).
SPARSE_MIN_CLASSES = 64

_ZERO = 0.0  # one float object for every +0.0 of a dense tuple


class SparseDist(Sequence[float]):
    """Class weights held as the classes present: ascending class indices ``at`` and
    their weights ``weights`` (every other class weighs +0.0), of ``n`` classes."""

    __slots__ = ("n", "at", "weights", "_hash")

    def __init__(self, n: int, at: tuple[int, ...], weights: tuple[float, ...]) -> None:
        if len(at) != len(weights):
            raise ValueError("at and weights differ in length")
        if any(not 0 <= a < n for a in at) or any(b <= a for a, b in zip(at, at[1:], strict=False)):
            raise ValueError("class indices must ascend within range")
        self.n = n
        self.at = at
        self.weights = weights
        self._hash: int | None = None

    @classmethod
    def _trusted(cls, n: int, at: tuple[int, ...], weights: tuple[float, ...]) -> SparseDist:
        """One made from indices known to be valid (flatnonzero's): no checks."""
        d = cls.__new__(cls)
        d.n, d.at, d.weights, d._hash = n, at, weights, None
        return d

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, i: int) -> float: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[float, ...]: ...

    def __getitem__(self, i: int | slice) -> float | tuple[float, ...]:
        if isinstance(i, slice):
            return self.dense()[i]
        k = i + self.n if i < 0 else i
        if not 0 <= k < self.n:
            raise IndexError("class index out of range")
        j = bisect_left(self.at, k)
        return self.weights[j] if j < len(self.at) and self.at[j] == k else _ZERO

    def __iter__(self) -> Iterator[float]:
        return iter(self.dense())

    def dense(self) -> tuple[float, ...]:
        """The tuple of all ``n`` weights."""
        out = [_ZERO] * self.n
        for a, w in zip(self.at, self.weights, strict=True):
            out[a] = w
        return tuple(out)

    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]:
        out = np.zeros(self.n, dtype=np.float64)
        out[list(self.at)] = self.weights
        return out if dtype is None else out.astype(dtype)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SparseDist):
            if self.n == other.n and self.at == other.at:
                return self.weights == other.weights
            return self.n == other.n and self.dense() == other.dense()
        if isinstance(other, tuple):
            return len(other) == self.n and self.dense() == other
        return NotImplemented

    def __hash__(self) -> int:
        # Equal to the tuple's hash, as the two compare equal.
        if self._hash is None:
            self._hash = hash(self.dense())
        return self._hash

    def __repr__(self) -> str:
        pairs = ", ".join(f"{a}: {w!r}" for a, w in zip(self.at, self.weights, strict=True))
        return f"SparseDist({self.n}, {{{pairs}}})"


Dist: TypeAlias = tuple[float, ...] | SparseDist
"""A node's class weights, one per class, in either form."""


_BITS = {4: np.uint32, 8: np.uint64}


def present(dist: npt.NDArray[np.floating]) -> npt.NDArray[np.intp]:
    """The classes whose weight is not +0.0 (a -0.0 counts: it is written as such)."""
    bits = _BITS.get(dist.dtype.itemsize) if dist.dtype.kind == "f" else None
    if bits is None or dist.ndim != 1:
        return np.flatnonzero((dist != 0) | np.signbit(dist))
    # +0.0 is the one float of all-zero bits: one comparison instead of three passes
    # (and nonzero() of a boolean array is several times faster than of integers).
    return np.flatnonzero(dist.view(bits) != 0)


def make_dist(dist: npt.ArrayLike) -> Dist:
    """A node's weights (float64 values of ``dist``) in the form the model holds: a
    :class:`SparseDist` from :data:`SPARSE_MIN_CLASSES` classes where at most a quarter
    are present, else a tuple (its zeros one shared float object)."""
    if isinstance(dist, SparseDist):
        return dist
    a = np.asarray(dist)
    if a.dtype != np.float32:
        a = a.astype(np.float64, copy=False)
    nz = present(a)
    if a.size >= SPARSE_MIN_CLASSES and 4 * nz.size <= a.size:
        w = a[nz].astype(np.float64).tolist()  # float32 weights widen exactly
        return SparseDist._trusted(int(a.size), tuple(nz.tolist()), tuple(w))
    d = a.astype(np.float64, copy=False)
    if 4 * nz.size >= d.size:
        return tuple(d.tolist())
    out = [_ZERO] * d.size
    for i, v in zip(nz.tolist(), d[nz].tolist(), strict=True):
        out[i] = v
    return tuple(out)


def dist_pairs(dist: Dist) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The classes present in ``dist`` (weight not +0.0) and their weights, in class order."""
    if isinstance(dist, SparseDist):
        return dist.at, dist.weights
    d = np.asarray(dist, dtype=np.float64)
    nz = present(d)
    return tuple(nz.tolist()), tuple(d[nz].tolist())
