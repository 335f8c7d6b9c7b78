"""The C library's ``expf``, ``logf`` and ``exp``, and the margins where a sigmoid passes 0.5.

XGBoost and LightGBM turn a binary model's margin into a probability with the C
library's exponential, ``1 / (1 + expf(-m))`` in float32 or ``1 / (1 + exp(-s*m))`` in
double, and predict class 1 when it exceeds 0.5 (LightGBM: when it exceeds ``1 - p``).
Both tests are monotone in the margin, so each is one comparison of the margin with a
constant, the *cut*, found here by bisection over the margins' bit patterns with the
same arithmetic (numpy's float32 operations, Python's float ones) and the same C
library functions the library calls: ``math.exp`` is the C library's ``exp``, and
``expf`` and ``logf`` are called through ctypes.  Where the C library cannot be loaded
(no ``libm``), :func:`expf` and :func:`logf` round the exact result (``decimal`` at 40
digits): glibc's results at the cuts equal those (tests/ensemble/test_gbm_parity.py holds
the cuts to the libraries' own predictions).  The libraries' sigmoids and softmaxes, step
by step, also give ``Model.predict_proba`` their ``predict_proba`` bit for bit.  Nothing
here runs in the generated C.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import decimal
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache

import numpy as np

_F32_MAX_BITS = 0x7F7FFFFF


@cache
def _libm() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("m") or ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        for fn in ("expf", "logf"):
            f = getattr(lib, fn)
            f.restype = ctypes.c_float
            f.argtypes = [ctypes.c_float]
    except (OSError, AttributeError):
        return None
    return lib


def _round32(x: Fraction) -> np.float32:
    """The float32 nearest the exact ``x`` (ties to even).  Through the double nearest
    ``x``: that rounds wrong only where the double is a float32 tie and ``x`` is not."""
    d = float(x)
    f = np.float32(d)
    if Fraction(d) == x:
        return f
    up = x > Fraction(float(f))
    g = np.nextafter(f, np.float32(np.inf if up else -np.inf))
    if Fraction(float(f)) + Fraction(float(g)) == 2 * Fraction(d):
        return g if abs(Fraction(float(g)) - x) < abs(Fraction(float(f)) - x) else f
    return f


def _exact(fn: str, x: np.float32) -> np.float32:
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        d = decimal.Decimal(float(x))
        v = d.exp() if fn == "exp" else d.ln()
    return _round32(Fraction(v))


def expf(x: np.float32) -> np.float32:
    """The C library's ``expf(x)``."""
    lib = _libm()
    if lib is None:
        return _exact("exp", x)
    return np.float32(lib.expf(float(x)))


def logf(x: np.float32) -> np.float32:
    """The C library's ``logf(x)`` (``x > 0``)."""
    lib = _libm()
    if lib is None:
        return _exact("ln", x)
    return np.float32(lib.logf(float(x)))


def _f32(k: int) -> np.float32:
    """The float32 of order key ``k`` (negative keys: negative floats)."""
    bits = k if k >= 0 else (-k) | 0x80000000
    out: np.float32 = np.uint32(bits).view(np.float32)
    return out


def _f64(k: int) -> float:
    bits = k if k >= 0 else (-k) | (1 << 63)
    return float(np.uint64(bits).view(np.float64))


def _cut(cls1: Callable[[int], bool], lo: int, hi: int) -> int:
    """The largest key in ``lo .. hi`` with ``cls1`` false (``cls1(lo)`` false,
    ``cls1(hi)`` true), checked monotone over 256 keys either side."""
    assert not cls1(lo) and cls1(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if cls1(mid):
            hi = mid
        else:
            lo = mid
    window = [cls1(k) for k in range(lo - 256, lo + 258)]
    if window != [False] * 257 + [True] * 257:
        raise AssertionError("the C library's sigmoid is not monotone near its cut")
    return lo


def xgboost_cut() -> float:
    """The largest float32 margin ``m`` whose XGBoost probability ``Sigmoid(m)`` (float
    ``1 / (expf(min(-m, 88.7)) + 1 + 1e-16)``) is not above 0.5: class 1 when the
    margin exceeds it (``XGBClassifier.predict``, ``binary:logistic``)."""

    def cls1(k: int) -> bool:
        return bool(xgboost_sigmoid(_f32(k)) > np.float32(0.5))

    return float(_f32(_cut(cls1, -_F32_MAX_BITS, _F32_MAX_BITS)))


def xgboost_sigmoid(m: np.float32) -> np.float32:
    """XGBoost's ``Sigmoid`` of a float32 margin, each step in float32: ``1.0f /
    (expf(min(-m, 88.7f)) + 1.0f + 1e-16f)``."""
    one = np.float32(1.0)
    e = expf(min(np.float32(-m), np.float32(88.7)))
    denom = np.float32(np.float32(e + one) + np.float32(1e-16))
    return np.float32(one / denom)


def xgboost_softmax(m: Sequence[np.float32]) -> list[np.float32]:
    """XGBoost's ``Softmax`` of one row's float32 margins (``multi:softprob``):
    ``e = expf(m - max)`` in float32, summed in double in class order, each ``e`` divided
    by the float32 of that sum."""
    top = max(m)
    e = [expf(np.float32(v - top)) for v in m]
    total = 0.0
    for v in e:
        total += float(v)
    return [np.float32(v / np.float32(total)) for v in e]


def lightgbm_cut(sigmoid: float) -> float:
    """The largest double margin ``m`` that ``LGBMClassifier.predict`` puts in class 0
    for a binary objective of parameter ``sigmoid``: ``p = 1.0 / (1.0 + exp(-sigmoid
    * m))``, class 1 when ``p > 1.0 - p`` (numpy's argmax of ``[1 - p, p]``)."""

    def cls1(k: int) -> bool:
        p = lightgbm_sigmoid(_f64(k), sigmoid)
        return p > 1.0 - p

    top = 0x7FEFFFFFFFFFFFFF
    return _f64(_cut(cls1, -top, top))


def lightgbm_sigmoid(score: float, sigmoid: float) -> float:
    """LightGBM's binary probability of a raw score, in double: ``1.0 / (1.0 +
    exp(-sigmoid * score))``."""
    try:
        return 1.0 / (1.0 + math.exp(-sigmoid * score))
    except OverflowError:
        return 0.0  # exp overflows to inf in C: p is 0


def lightgbm_softmax(scores: Sequence[float]) -> list[float]:
    """LightGBM's ``Common::Softmax`` of one row's raw scores, in double: ``e = exp(s -
    max)``, summed in class order, each ``e`` divided by the sum."""
    top = max(scores)
    e = [math.exp(v - top) for v in scores]
    total = 0.0
    for v in e:
        total += v
    return [v / total for v in e]


def xgboost_base_margin(base_score: float) -> float:
    """XGBoost's margin of a ``binary:logistic`` ``base_score``: ``-logf(1.0f / p -
    1.0f)`` with ``p`` clamped to ``[1e-6, 1 - 1e-6]`` in float32 (``ProbToMargin``)."""
    eps = np.float32(1e-6)
    one = np.float32(1.0)
    p = min(max(np.float32(base_score), eps), np.float32(one - eps))
    return float(-logf(np.float32(np.float32(one / p) - one)))
