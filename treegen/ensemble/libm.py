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
by step, also give ``Model.predict_proba`` their ``predict_proba`` bit for bit, the
exponentials of a whole array in one call of the accelerator (:func:`c_library_exp`).
Nothing here runs in the generated C.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import decimal
import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.model import native

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
        return bool(xgboost_sigmoid(np.array([_f32(k)]))[0] > np.float32(0.5))

    return float(_f32(_cut(cls1, -_F32_MAX_BITS, _F32_MAX_BITS)))


def xgboost_sigmoid(m: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """XGBoost's ``Sigmoid`` of float32 margins, each step in float32: ``1.0f /
    (expf(min(-m, 88.7f)) + 1.0f + 1e-16f)``."""
    e = c_library_exp(np.minimum(-m, np.float32(88.7)))
    out: npt.NDArray[np.float32] = np.float32(1.0) / ((e + np.float32(1.0)) + np.float32(1e-16))
    return out


def xgboost_softmax(m: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """XGBoost's ``Softmax`` of each row of float32 margins (``multi:softprob``): ``e =
    expf(m - max)`` in float32, summed in double in class order, each ``e`` divided by
    the float32 of that sum."""
    e: npt.NDArray[np.float32] = c_library_exp(m - m.max(axis=1, keepdims=True))
    total = np.zeros(len(m))
    for j in range(m.shape[1]):
        total += e[:, j]
    out: npt.NDArray[np.float32] = e / total.astype(np.float32)[:, None]
    return out


def lightgbm_cut(sigmoid: float) -> float:
    """The largest double margin ``m`` that ``LGBMClassifier.predict`` puts in class 0
    for a binary objective of parameter ``sigmoid``: ``p = 1.0 / (1.0 + exp(-sigmoid
    * m))``, class 1 when ``p > 1.0 - p`` (numpy's argmax of ``[1 - p, p]``)."""

    def cls1(k: int) -> bool:
        p = float(lightgbm_sigmoid(np.array([_f64(k)]), sigmoid)[0])
        return p > 1.0 - p

    top = 0x7FEFFFFFFFFFFFFF
    return _f64(_cut(cls1, -top, top))


def lightgbm_sigmoid(score: npt.NDArray[np.float64], sigmoid: float) -> npt.NDArray[np.float64]:
    """LightGBM's binary probabilities of raw scores, in double: ``1.0 / (1.0 +
    exp(-sigmoid * score))``."""
    with np.errstate(over="ignore"):  # -sigmoid * score is inf past the doubles, as in C
        arg = -sigmoid * score
    out: npt.NDArray[np.float64] = 1.0 / (1.0 + c_library_exp(arg))
    return out


def lightgbm_softmax(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """LightGBM's ``Common::Softmax`` of each row of raw scores, in double: ``e = exp(s -
    max)``, summed in class order, each ``e`` divided by the sum."""
    e = c_library_exp(scores - scores.max(axis=1, keepdims=True))
    total = np.zeros(len(scores))
    for j in range(scores.shape[1]):
        total += e[:, j]
    out: npt.NDArray[np.float64] = e / total[:, None]
    return out


def c_library_exp(args: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The C library's ``expf`` (float32 ``args``) or ``exp`` (float64) of every value, a
    new array: the accelerator's one call for the lot (``model/native/libm.c``), else one
    call per distinct value."""
    assert args.dtype in (np.float32, np.float64), args.dtype
    cc = native.cclassify
    if cc is None:
        return _each(_expf_value if args.dtype == np.float32 else _exp, args)
    out = np.array(args, copy=True, order="C")
    cc.libm_exp(out.reshape(-1), out.dtype == np.float32)
    return out


def _expf_value(x: float) -> float:
    return float(expf(np.float32(x)))


def _exp(x: float) -> float:
    """The C library's ``exp`` (``math.exp``), inf where it overflows as in C."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _each(fn: Callable[[float], float], args: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``fn`` of every value of ``args`` (same shape and type), called once per distinct
    value: margins repeat, as a model's leaves do."""
    distinct, where = np.unique(args, return_inverse=True)
    values = np.array([fn(v) for v in distinct.tolist()], dtype=args.dtype)
    out: npt.NDArray[Any] = values[where].reshape(args.shape)
    return out


def xgboost_base_margin(base_score: float) -> float:
    """XGBoost's margin of a ``binary:logistic`` ``base_score``: ``-logf(1.0f / p -
    1.0f)`` with ``p`` clamped to ``[1e-6, 1 - 1e-6]`` in float32 (``ProbToMargin``)."""
    eps = np.float32(1e-6)
    one = np.float32(1.0)
    p = min(max(np.float32(base_score), eps), np.float32(one - eps))
    return float(-logf(np.float32(np.float32(one / p) - one)))
