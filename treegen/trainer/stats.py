"""The numeric formulas of C4.5 (docs/C45.md sections 2, 3 and 5).

Release 8 keeps weights, entropies and error counts in C ``float`` while a
few intermediates (``log``, products inside ``TotalInfo``) are double.  The
functions here take a ``dtype`` (``np.float32`` for the c45 flavour,
``np.float64`` for j48) and round at exactly the places where Release 8
stores into a float, because near-ties between attributes or cuts are
decided by those roundings.  With ``np.float64`` an entropy term of a weight
below ``J48_LOG_MIN`` is 0, as J48's ``logFunc`` has it (:func:`log2_j48`).
Everything is vectorised over the last axis so one call scores every
candidate cut of an attribute.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.trainer.constants import ADD_ERRS_ZERO, J48_LOG_MIN, LN2

_F32 = struct.Struct("f")


def to_f32(x: float) -> float:
    """``x`` stored as a C float (round to nearest), back as a Python float.

    ``struct`` does the same double -> float conversion as ``np.float32(x)``
    at a third of the cost, which matters once per node in pruning.
    """
    try:
        r: float = _F32.unpack(_F32.pack(x))[0]
    except OverflowError:  # rounds beyond float range: +-inf, as numpy's cast
        return math.copysign(math.inf, x)
    return r


FloatArray = npt.NDArray[np.floating]

# Release 8's table of (CF, z) pairs for the pessimistic bound (section 5).
_CF_TABLE = (0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00)
_Z_TABLE = (4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00)

# From this many parts (classes) total_info and base_info_many sum them in fewer numpy
# calls: with thousands of classes the loops' calls per class were most of their time
# (with few, the loops are the faster).
MANY_PARTS = 32


def _log2_where(a: npt.NDArray[np.float64], taken: npt.NDArray[np.bool_]) -> FloatArray:
    """``log(a)/ln 2`` in double where ``taken``, else 0 (each flavour's log rule)."""
    out = np.zeros(a.shape, dtype=np.float64)
    np.log(a, out=out, where=taken)
    out /= LN2
    return out


def log2_c45(x: FloatArray | float) -> FloatArray:
    """Release 8's ``Log``: ``log(x)/ln 2`` in double, 0 where x <= 0."""
    a = np.asarray(x, dtype=np.float64)
    return _log2_where(a, a > 0)


def log2_j48(x: FloatArray | float) -> FloatArray:
    """J48's ``logFunc`` over x: ``log(x)/ln 2`` in double, 0 where x is below
    ``J48_LOG_MIN`` (so a weight that small adds no term ``x log2 x``)."""
    a = np.asarray(x, dtype=np.float64)
    return _log2_where(a, a >= J48_LOG_MIN)


def j48_logs(x: npt.NDArray[np.float64], out: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """numpy's natural logarithms of the j48 kernels' log inputs ``x`` into ``out``,
    0 where x is below ``J48_LOG_MIN``: the kernels' terms ``x * log / ln 2`` are then
    J48's ``logFunc`` (:func:`log2_j48`)."""
    np.log(x, out=out)
    out[x < J48_LOG_MIN] = 0.0
    return out


def _xlog2x(v: FloatArray) -> npt.NDArray[np.float64]:
    """``v * Log(v)`` in double, term by term as :func:`log2_c45` then a product.

    ``log(1) = 0`` stands in for the masked-out non-positive entries, so the
    result is bit for bit ``v * log2_c45(v)`` without the masked ufunc call.
    """
    v64 = np.asarray(v, dtype=np.float64)
    x = v64.copy()
    x[~(x > 0)] = 1.0  # cheaper than np.where with a scalar
    lg = np.log(x, out=x)
    lg /= LN2
    lg *= v64
    return lg


def total_info(parts: list[FloatArray], dtype: type[np.floating]) -> FloatArray:
    """``TotalInfo(V) = S log2 S - sum V_i log2 V_i`` for each column.

    ``parts`` are the V_i (each an array of equal shape, one entry per
    candidate); the running sums are stored in ``dtype`` after every step as
    Release 8 accumulates into float variables.
    """
    if dtype is np.float64:
        v64 = np.asarray(parts, dtype=np.float64)  # (m, ...) one row per V_i
        terms = v64 * log2_j48(v64)
        acc = np.add.accumulate(terms, axis=0)[-1] if len(parts) else np.zeros(())
        tot = np.add.accumulate(v64, axis=0)[-1] if len(parts) else np.zeros(())
        return np.asarray(tot * log2_j48(tot) - acc)
    if not parts:
        return np.zeros((), dtype=dtype)
    # Every part's terms at once (the same element-wise operations), then the
    # running sums part by part in order.
    v64 = np.asarray(parts, dtype=np.float64)
    terms = _xlog2x(v64)
    acc = np.zeros(v64.shape[1:], dtype=dtype)
    tot = np.zeros(v64.shape[1:], dtype=dtype)
    if len(parts) >= MANY_PARTS:
        _sum_many(v64, terms, acc, tot)
    else:
        for i in range(len(parts)):
            # Each += rounds to float: double sum of the float and the term, stored as
            # float.  The parts are floats or doubles: adding a float part in double and
            # rounding once is the float addition (53 >= 2 x 24 + 2 bits).
            acc[...] = acc + terms[i]
            tot[...] = tot + v64[i]
    res = _xlog2x(tot)
    res -= acc
    return res.astype(dtype)


def _sum_many(
    v64: npt.NDArray[np.float64],
    terms: npt.NDArray[np.float64],
    acc: FloatArray,
    tot: FloatArray,
) -> None:
    """total_info's float sums, part by part in order, of many parts: the same floats.

    A part whose terms are all zero (weights 0 or 1) leaves ``acc`` as it is (it never
    holds -0.0), so only the others are added.  Where every part is a float, ``tot``'s
    float additions are a float32 cumsum (from +0.0, as the loop starts)."""
    flat = terms.reshape(terms.shape[0], -1)
    for i in np.flatnonzero(flat.any(axis=1)).tolist():
        acc[...] = acc + terms[i]
    v32 = v64.astype(np.float32)
    if np.array_equal(v32, v64):
        tot[...] = np.cumsum(np.concatenate((tot[None], v32)), axis=0, dtype=np.float32)[-1]
    else:
        for i in range(v64.shape[0]):
            tot[...] = tot + v64[i]


def base_info_many(
    class_freq: FloatArray, known: FloatArray, dtype: type[np.floating]
) -> FloatArray:
    """Class entropy of the known items per row of ``class_freq`` (shape (K, C)).

    ``DiscrKnownBaseInfo``: the sum is accumulated in double and the result
    stored in ``dtype``; 0 where nothing is known.
    """
    f64 = np.asarray(class_freq, dtype=np.float64)
    log2 = log2_j48 if dtype is np.float64 else log2_c45
    # A class of no weight adds +0.0 to s (which never holds -0.0): skipping it is exact.
    present = np.flatnonzero(f64.any(axis=0))
    if present.size >= MANY_PARTS:
        cols = f64[:, present]
        # Every term at once (element by element as one column at a time), then the
        # double sums class by class in order: cumsum adds left to right, as the loop
        # does (with thousands of classes, thousands of numpy calls).
        s = np.cumsum(cols * log2(cols), axis=1)[:, -1]
    else:
        s = np.zeros(f64.shape[0], dtype=np.float64)
        for c in present.tolist():
            s = s + f64[:, c] * log2(f64[:, c])
    k = np.asarray(known, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        res = (k * log2(k) - s) / k
    return np.where(k > 0, res, 0.0).astype(dtype)


def cut_base_info(class_freq: FloatArray, known: FloatArray) -> FloatArray:
    """Class entropy of the known items for a threshold test, per row (c45 flavour).

    Release 8's continuous evaluation does not use ``DiscrKnownBaseInfo``'s double
    sum: it takes ``TotalInfo`` of the class weights (float sums) and divides it by
    the known weight in float (section 3 step 4).
    """
    f = np.asarray(class_freq, dtype=np.float32)
    info = total_info([f[:, c] for c in range(f.shape[1])], np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (info / np.asarray(known, dtype=np.float32)).astype(np.float32)


def base_info(class_freq: FloatArray, known: float, dtype: type[np.floating]) -> float:
    """:func:`base_info_many` for a single class distribution."""
    f = np.asarray(class_freq, dtype=np.float64)[None, :]
    return float(base_info_many(f, np.asarray([known]), dtype)[0])


def min_split(known: float, n_classes: int, min_cases: float, dtype: type[np.floating]) -> float:
    """Release 8's ``MinSplit``: 10% of the known weight per class, within [MINOBJS, 25].

    Computed in double and stored as float, then raised to MINOBJS when it
    is <= MINOBJS and capped at 25 when above.
    """
    ms = float(dtype(0.10 * known / n_classes))
    if ms <= min_cases:
        return min_cases
    if ms > 25:
        return 25.0
    return ms


def thresh_cost(tries: int, items: float, dtype: type[np.floating]) -> float:
    """Release 8's MDL penalty for a cut: ``log2(Tries) / Items`` (log2(0) = 0)."""
    return float(dtype(float(log2_c45(float(tries))) / items))


def cf_c45(cf: float) -> float:
    """The confidence level as Release 8 holds it: a C ``float``."""
    return to_f32(cf)


def coeff_c45(cf: float) -> float:
    """z^2 from Release 8's interpolated table (section 5), in its float arithmetic.

    The table and CF are floats, and so is every step of the interpolation and the
    square (0.6925^2 at CF=0.25).
    """
    f = to_f32
    c = f(cf)
    vals = [f(v) for v in _CF_TABLE]
    devs = [f(d) for d in _Z_TABLE]
    i = 0
    while c > vals[i]:
        i += 1
    z = f(
        devs[i - 1] + f(f(f(devs[i] - devs[i - 1]) * f(c - vals[i - 1])) / f(vals[i] - vals[i - 1]))
    )
    return f(z * z)


def normal_quantile(p: float) -> float:
    """The exact standard normal quantile (J48's ``Statistics.normalInverse``).

    Acklam's rational approximation refined by one Halley step on erfc,
    accurate to double precision for 0 < p < 1.
    """
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    a = (
        -3.969683028665376e01,
        2.209460984245205e02,
        -2.759285104469687e02,
        1.383577518672690e02,
        -3.066479806614716e01,
        2.506628277459239e00,
    )
    b = (
        -5.447609879822406e01,
        1.615858368580409e02,
        -1.556989798598866e02,
        6.680131188771972e01,
        -1.328068155288572e01,
    )
    c = (
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e00,
        -2.549732539343734e00,
        4.374664141464968e00,
        2.938163982698783e00,
    )
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
    lo = 0.02425
    if p < lo:
        q = math.sqrt(-2 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    elif p <= 1 - lo:
        q = p - 0.5
        r = q * q
        x = (
            (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
            * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        )
    else:
        q = math.sqrt(-2 * math.log(1 - p))
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    e = 0.5 * math.erfc(-x / math.sqrt(2)) - p
    u = e * math.sqrt(2 * math.pi) * math.exp(x * x / 2)
    return x - u / (1 + x * u / 2)


class ErrorBound:
    """``AddErrs(N, e)``: extra pessimistic errors for a leaf (section 5).

    ``flavor="c45"``: interpolated z, ``0.67(N-e)`` near N, results stored
    as float.  ``flavor="j48"``: exact quantile, ``max(N-e, 0)``, double.
    """

    def __init__(self, cf: float, flavor: str) -> None:
        self.j48 = flavor == "j48"
        if self.j48:
            self.cf = cf
            z = normal_quantile(1.0 - cf)
            self.coeff = z * z
        else:
            self.cf = cf_c45(cf)
            self.coeff = coeff_c45(cf)
        self.log_cf = math.log(self.cf)

    def _store(self, x: float) -> float:
        """``x`` as the flavour stores a result (float32 for c45)."""
        return x if self.j48 else to_f32(x)

    def add_errs(self, n: float, e: float) -> float:
        """Extra errors to add to ``e`` training errors among ``n`` cases (``AddErrs``).

        c45: ``n``, ``e``, the coefficient and every intermediate Release 8 keeps in a
        ``float`` variable are floats, so the operations between them round to float
        (``val0 + e * (AddErrs(n, 1) - val0)``, ``n - e``, ``n + coeff``, ``n * pr - e``);
        the rest is double, as C promotes it.
        """
        cf = self.cf
        if self.j48:
            if cf > 0.5:
                return 0.0  # Weka's Stats.addErrs: "confidence value too high", no change
            if e < 1:
                base = n * (1 - math.pow(cf, 1 / n))
                if e == 0:
                    return base
                return base + e * (self.add_errs(n, 1.0) - base)
            if e + 0.5 >= n:
                return max(n - e, 0.0)
            coeff = self.coeff
            pr = (
                e
                + 0.5
                + coeff / 2
                + math.sqrt(coeff * ((e + 0.5) * (1 - (e + 0.5) / n) + coeff / 4))
            ) / (n + coeff)
            return n * pr - e
        f = to_f32
        if e < ADD_ERRS_ZERO:
            return f(n * (1 - math.exp(self.log_cf / n)))
        if e < 0.9999:
            val0 = f(n * (1 - math.exp(self.log_cf / n)))
            return f(val0 + f(e * f(self.add_errs(n, 1.0) - val0)))
        if e + 0.5 >= n:
            return f(0.67 * f(n - e))
        c = self.coeff
        pr = f(
            (e + 0.5 + c / 2 + math.sqrt(c * ((e + 0.5) * (1 - (e + 0.5) / n) + c / 4))) / f(n + c)
        )
        return f(f(n * pr) - e)

    def estimate(self, n: float, e: float) -> float:
        """Estimated errors of a leaf with ``n`` cases and ``e`` training errors."""
        if self.j48:
            if n <= J48_TOL and n >= -J48_TOL:  # J48: Utils.eq(total, 0) -> 0
                return 0.0
            return e + self.add_errs(n, e)
        if n <= 0:
            return self._store(e)
        return self._store(e + self.add_errs(n, e))


def weka_max_class(dist: Sequence[float]) -> int:
    """J48's ``Distribution.maxClass``: scanning from a best weight of 0, a class
    replaces the best when it is heavier by more than ``J48_TOL`` (class 0 if none is)."""
    best, top = 0, 0.0
    for c, v in enumerate(dist):
        if v - top > J48_TOL:
            best, top = c, v
    return best
