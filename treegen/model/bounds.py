"""A tree test's threshold as one exact boundary in the domain of the values it is given.

Which branch a *known* value v takes is the model's own test (:func:`model_bound`):
``v <= t`` for a j48 model, ``float32(v) <= t`` for a c45 model (Release 8 rounds
every value to a C float first).  v is the C input itself (float, double) or, for an
integer x with scale K, the double nearest x/K (:func:`read_bound`): x stands for the
decimal x/K, and that is the double treegen predict (or Release 8, or Weka) reads
from it.  So the C agrees with the Python model on every input, a double or scaled
integer that rounds onto a threshold included.

The fixed-point model (:mod:`treegen.model.fixedpoint`) and the lowering to C
(:mod:`treegen.codegen.lower`) both take their comparisons from here.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np

FLT_MAX = float(np.finfo(np.float32).max)


def float32_floor(t: float) -> float:
    """Largest float32 value not above ``t`` (t itself when it is a float32)."""
    # Beyond float32's range the answer is -inf (below -FLT_MAX, either by the cast or
    # by the step down from -FLT_MAX): that overflow is the intended result.
    with np.errstate(over="ignore"):
        f = np.float32(t)
        if float(f) > t:
            f = np.nextafter(f, np.float32(-np.inf))
    return float(f)


def model_bound(t: float, narrow32: bool) -> tuple[Fraction, bool]:
    """The model's test on a real value v as one boundary: ``(B, incl)`` such that
    the test holds exactly when ``v < B or (v == B and incl)``.

    j48 (``narrow32`` false) tests ``v <= t``: B = t, inclusive.  c45 tests
    ``float32(v) <= t'`` with t' the largest float32 not above t: v rounds to t' or
    lower exactly when it lies below the midpoint B of t' and the next float32 up
    (one float32 spacing past FLT_MAX, where rounding goes to infinity); at B itself
    round-to-nearest-even picks the neighbour with the even significand.  ``t`` must
    not be NaN or infinite.
    """
    assert math.isfinite(t), t
    if not narrow32:
        return Fraction(t), True
    f = np.float32(float32_floor(t))
    if math.isinf(float(f)):  # t below -FLT_MAX: only values rounding to -inf pass
        return -(Fraction(FLT_MAX) + Fraction(2) ** 103), True
    with np.errstate(over="ignore"):
        up = float(np.nextafter(f, np.float32(np.inf)))
    up_q = Fraction(up) if math.isfinite(up) else Fraction(FLT_MAX) + Fraction(2) ** 104
    bits = int(np.array([f], dtype=np.float32).view(np.uint32)[0])
    return (Fraction(float(f)) + up_q) / 2, bits & 1 == 0


def read_bound(t: float, narrow32: bool) -> tuple[Fraction, bool]:
    """The model's test on a real value v that is first rounded to the nearest double
    (as reading its decimal text does), as one boundary ``(B, incl)`` like
    :func:`model_bound`.  Integer inputs use it: x with scale K stands for the
    decimal x/K, which the model sees as double(x/K), not as the exact fraction (the
    j48 threshold 0.3 is a double below 3/10, yet "0.3" passes ``v <= 0.3``).

    D, the largest double the test passes, is t (j48) or the largest double that
    rounds to a float32 not above t (c45).  double(v) <= D exactly when v lies below
    the midpoint of D and the next double up (2**1024 past the largest double, where
    rounding overflows), or on it when D's significand is even (ties to even).
    Exact: every step is a double or a Fraction.
    """
    b, incl = bound_float(model_bound(t, narrow32))
    d = b if incl else math.nextafter(b, -math.inf)
    assert math.isfinite(d), t
    up = math.nextafter(d, math.inf)
    up_q = Fraction(up) if math.isfinite(up) else Fraction(2) ** 1024
    (bits,) = struct.unpack("<Q", struct.pack("<d", d))
    return (Fraction(d) + up_q) / 2, bits & 1 == 0


def bound_float(bound: tuple[Fraction, bool]) -> tuple[float, bool]:
    """``model_bound`` for a float or double input: B is always a double (it has at
    most 25 significant bits), so comparing a double x with it is exact."""
    b, incl = bound
    f = float(b)
    assert Fraction(f) == b
    return f, incl


def bound_int(bound: tuple[Fraction, bool], scale: Fraction) -> int:
    """A boundary (:func:`read_bound`) for an integer input x meaning x/scale: the
    largest integer x that passes (x/scale < B, or == B when inclusive) is x <= this
    cut."""
    b, incl = bound
    q = b * scale
    if q.denominator == 1:
        return int(q) if incl else int(q) - 1
    return math.floor(q)
