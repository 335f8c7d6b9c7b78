"""``2 ** y`` as glibc's ``pow(2.0, y)`` computes it, for an IsolationForest's scores.

scikit-learn's ``score_samples`` is ``-(2 ** -(depths / denominator))``.  Python's
``math.pow`` (and numpy on a machine without AVX-512) calls the C library's ``pow``;
glibc's (2.28 and later, the algorithm of ARM's optimized-routines) is deterministic
and not always correctly rounded, so the C must take the same steps to give the same
bits.  For ``x = 2`` its logarithm step yields two constants (``LOG2_HI + LOG2_LO``,
ln 2 as a double-double); the rest, for ``y`` in the fast path (``|y ln 2|`` in
``[2**-54, 512)``), is the exponential below, each line one IEEE binary64 operation,
``fma`` a fused multiply-add, in the order and with the fusions of glibc's x86-64
build for CPUs with FMA (the one ``pow`` runs on them; its build without FMA rounds
some steps apart and can differ in the last bit)::

    ehi = y * LOG2_HI;  elo = fma(y, LOG2_LO, fma(y, LOG2_HI, -ehi))
    kd = fma(ehi, N / ln 2, SHIFT);  ki = bits(kd);  kd = kd - SHIFT
    r = fma(kd, -ln2lo/N, fma(kd, -ln2hi/N, ehi));  r = elo + r
    tail, sbits = TABLE[ki % 128] (sbits + ki << 45: the scale 2**(ki/128))
    tmp = fma(fma(r, C5, C4), r2 * r2, fma(fma(r, C3, C2), r * r, r + tail))
    result = fma(tmp, scale, scale)

The table is 2**(k/128) rounded to double (``H``, less ``k << 45`` in its bits) and
``2**(k/128) / H - 1`` rounded (the tail), computed here exactly in integers.  The
scalar constants are glibc's published ones.  The generated C
(templates/_pow2.j2) does the same operations on the bit patterns with integer
arithmetic only (no libm, no FPU, the same on every target);
tests/ensemble/test_pow2.py holds both to ``math.pow`` on this machine's glibc.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction
from functools import cache

N = 128  # table entries
LOG2_HI = 0x3FE62E42FEFA39EF  # glibc's log step for x = 2: hi + lo ~ ln 2
LOG2_LO = 0x3C7ABC9E3B398000
INV_LN2_N = 0x40671547652B82FE  # N / ln 2
NEG_LN2_HI_N = 0xBF762E42FEFA0000  # -(ln 2 / N), high part
NEG_LN2_LO_N = 0xBD0CF79ABC9E3B3A  # and the rest
C2 = 0x3FDFFFFFFFFFFDBD  # the polynomial for exp(r) - 1 - r
C3 = 0x3FC555555555543C
C4 = 0x3FA55555CF172B91
C5 = 0x3F81111167A4D017
SHIFT = 0x4338000000000000  # 1.5 * 2**52: adding it rounds to an integer
MASK = (1 << 64) - 1

EHI_MIN = 0x3C9  # the fast path: ehi's exponent field from 0x3c9 (2**-54) ...
EHI_MAX = 0x407  # ... to 0x407 (below 512)


def as_float(bits: int) -> float:
    f: float = struct.unpack("<d", struct.pack("<Q", bits & MASK))[0]
    return f


def as_bits(x: float) -> int:
    b: int = struct.unpack("<Q", struct.pack("<d", x))[0]
    return b


def _fma(a: float, b: float, c: float) -> float:
    """a * b + c rounded once (int division is correctly rounded); the results here
    are never zero but where an operand is."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


@cache
def table() -> tuple[int, ...]:
    """``tail_k, bits(H_k) - (k << 45)`` for k = 0 .. 127 (module docstring)."""
    out: list[int] = []
    p = 320
    for k in range(N):
        x = 1 << (k + N * p)
        for _ in range(7):  # seven square roots: 2**(k/128) * 2**p, floored
            x = math.isqrt(x)
        exact = Fraction(x, 1 << p)
        h = float(exact)
        out.append(as_bits(float(exact / Fraction(h) - 1)) if k else 0)
        out.append((as_bits(h) - (k << 45)) & MASK)
    return tuple(out)


def fast(y: float) -> bool:
    """Whether ``pow(2, y)`` takes glibc's fast path (the one reproduced)."""
    ehi = y * as_float(LOG2_HI)
    top = (as_bits(ehi) >> 52) & 0x7FF
    return EHI_MIN <= top <= EHI_MAX


def pow2(y: float) -> float:
    """glibc's ``pow(2.0, y)`` for ``y`` on the fast path (:func:`fast`) or ``y == 0``."""
    if y == 0:
        return 1.0
    if not fast(y):
        raise ValueError(f"pow(2, {y!r}) is off the reproduced path")
    f = as_float
    ehi = y * f(LOG2_HI)
    elo = _fma(y, f(LOG2_LO), _fma(y, f(LOG2_HI), -ehi))
    kd = _fma(ehi, f(INV_LN2_N), f(SHIFT))
    ki = as_bits(kd)
    kd = kd - f(SHIFT)
    r = _fma(kd, f(NEG_LN2_LO_N), _fma(kd, f(NEG_LN2_HI_N), ehi))
    r = elo + r
    t = table()
    idx = 2 * (ki % N)
    tail = f(t[idx])
    scale = f((t[idx + 1] + (ki << 45)) & MASK)
    r2 = r * r
    tmp = _fma(_fma(r, f(C5), f(C4)), r2 * r2, _fma(_fma(r, f(C3), f(C2)), r2, r + tail))
    return _fma(tmp, scale, scale)


def score(total: float, denominator: float) -> float:
    """``score_samples`` of a row whose path lengths sum to ``total``:
    ``-(2 ** -(total / denominator))`` with glibc's power; the quotient is 1 where the
    denominator is 0 (one training sample: scikit-learn's ``np.divide`` ``where``)."""
    return -pow2(-(total / denominator if denominator != 0 else 1.0))


def domain_error(low: float, high: float, denominator: float) -> str | None:
    """Why the scores of sums in ``[low, high]`` (``low`` the least positive one) are
    off the reproduced path, or None when every one is on it (or 0)."""
    if denominator == 0:
        return None  # every quotient is 1 (score), 2**-1 on the fast path
    if not (math.isfinite(denominator) and denominator > 0):
        return f"its denominator {denominator!r} is not a positive number"
    for s in (low, high):
        if s != 0 and not fast(-(s / denominator)):
            return f"a path-length sum of {s!r} puts 2**-x outside pow's fast path"
    return None
