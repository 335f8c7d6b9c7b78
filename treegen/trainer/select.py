"""Whether a node is split, and on which attribute: Release 8's rules, J48's variants.

:func:`stays_leaf` (FormTree's first test) and :func:`select` (section 1 steps 5-6),
shared by both engines; the level-wise engine applies the same rules to a
whole bucket of nodes at once and is tested equal to the node-by-node one.
"""

from __future__ import annotations

from typing import overload

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context
from treegen.trainer.splits import Score

FloatArray = npt.NDArray[np.floating]


@overload
def stays_leaf(ctx: Context, cases: float, best_freq: float) -> bool: ...


@overload
def stays_leaf(ctx: Context, cases: FloatArray, best_freq: FloatArray) -> npt.NDArray[np.bool_]: ...


def stays_leaf(
    ctx: Context, cases: float | FloatArray, best_freq: float | FloatArray
) -> bool | npt.NDArray[np.bool_]:
    """Whether a node with ``cases`` weight, ``best_freq`` of it in its largest class, is a leaf.

    Release 8: every case in one class, or fewer than ``2 * MINOBJS`` cases
    (``cases`` and ``best_freq`` as growth stores them, float32 for c45).
    J48: the same within ``J48_TOL`` (Weka's ``Utils.eq`` and ``Utils.sm``).
    Element-wise for arrays (one entry per node), a ``bool`` for scalars.
    """
    m = ctx.min_cases
    leaf: bool | npt.NDArray[np.bool_]
    if ctx.j48:
        leaf = (np.abs(best_freq - cases) < J48_TOL) | (2 * m - cases > J48_TOL)
    else:
        leaf = (best_freq == cases) | (cases < 2 * m)
    if isinstance(leaf, np.ndarray):
        return leaf
    return bool(leaf)


def gain_ratio(gain: float, info: float) -> float:
    """A test's gain ratio for ``--min-gain-ratio``: gain / split information, in double.

    (Zero when the split information is not positive.)  Both engines decide
    the threshold with this one formula, on the same scores.
    """
    return gain / info if info > 0.0 else 0.0


def worth(info: float, gain: float, min_gain: float, gainratio: bool) -> float:
    """Release 8's ``Worth`` of a test (c45 flavour, section 1 step 6): with gain ratio,
    ``gain / info`` in float when the gain is at least ``min_gain`` (a float) less
    ``EPSILON`` and the split information above ``EPSILON``; with gain, the gain when
    the split information is positive and the gain above ``-EPSILON``; else
    ``-EPSILON``."""
    if not gainratio:
        return gain if info > 0 and gain > -EPSILON else -EPSILON
    if gain >= float(np.float32(min_gain)) - EPSILON and info > EPSILON:
        return float(np.float32(np.float32(gain) / np.float32(info)))
    return -EPSILON


def average_gain(ctx: Context, scores: dict[int, Score]) -> float | None:
    """Release 8's ``AvGain`` over the admissible ``scores`` (section 1 step 5), or None
    when no attribute of ``scores`` counts."""
    dt = ctx.dtype
    av_sum = dt(0)
    count = 0
    for a, s in sorted(scores.items()):
        if ctx.counts_in_average(a):
            av_sum = dt(av_sum + dt(s.gain))
            count += 1
    if count == 0:
        return None
    return float(dt(av_sum / dt(count)))


NO_AVERAGE = 1e6
"""Release 8's average gain when no attribute counts in it: no gain ratio reaches it."""


def select(ctx: Context, scores: dict[int, Score], criterion: str) -> int:
    """The attribute to test, or -1 (section 1 steps 5-6; J48's C45ModelSelection).

    c45: the first attribute whose :func:`worth` is the largest above ``-EPSILON``.
    """
    if not scores:
        return -1
    av = average_gain(ctx, scores)
    if not ctx.j48:
        av_c45 = NO_AVERAGE if av is None else av
        best, best_val = -1, -EPSILON
        for a in sorted(scores):
            s = scores[a]
            val = worth(s.info, s.gain, av_c45, criterion != "gain")
            if val > best_val:
                best, best_val = a, val
        return best
    if av is None:
        return -1
    best, best_val = -1, 0.0
    for a in sorted(scores):
        s = scores[a]
        if criterion == "gain":
            val = s.gain
        else:
            if not s.gain >= av - EPSILON:
                continue
            val = 0.0 if abs(s.info) < J48_TOL else s.gain / s.info
        if val - best_val > J48_TOL:
            best, best_val = a, val
    return best
