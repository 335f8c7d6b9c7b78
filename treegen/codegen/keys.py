"""The order key of a float's bit pattern: how ``--float-compare int`` compares floats.

One home for the rule, scalar (:func:`float_key`, lowering thresholds) and vectorized
(:func:`float_keys`, the oracles): for float32 a and b, neither NaN, a <= b exactly
when key(a) <= key(b) (except that -0.0 keys just below +0.0); NaN keys to 0, the
missing marker.  The C computes the same key with integer operations only.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import numpy.typing as npt


def float_key(x: float) -> int:
    """Order-preserving uint32 key of float32 ``x``: a <= b (floats, not NaN) iff
    key(a) <= key(b), except that -0.0 keys below +0.0; NaN keys to 0."""
    if math.isnan(x):
        return 0
    (bits,) = struct.unpack("<I", struct.pack("<f", x))
    key: int = (~bits) & 0xFFFFFFFF if bits & 0x80000000 else bits | 0x80000000
    return key


def key_float(key: int) -> float:
    """The float32 whose key is ``key`` (1 <= key < 2**32, not a NaN's key): the inverse
    of :func:`float_key`, for printing a key threshold as the float it stands for."""
    assert 0 < key <= 0xFFFFFFFF
    bits = key & 0x7FFFFFFF if key & 0x80000000 else (~key) & 0xFFFFFFFF
    (x,) = struct.unpack("<f", struct.pack("<I", bits))
    assert not math.isnan(x), "a NaN's bit pattern is no threshold"
    return float(x)


def float_keys(x: npt.NDArray[np.float32]) -> npt.NDArray[np.uint64]:
    """:func:`float_key` of every value of ``x``."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    key = np.where(bits & 0x80000000, (~bits) & 0xFFFFFFFF, bits | 0x80000000)
    return np.where(np.isnan(x), 0, key).astype(np.uint64)
