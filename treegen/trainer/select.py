"""Whether a node is split, and on which attribute: Release 8's rules, J48's variants.

:func:`stays_leaf` (FormTree's first test) and :func:`select` (section 1 steps 5-6),
shared by both engines; the level-wise engine applies the same rules to a
whole bucket of nodes at once and is tested equal to the node-by-node one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import overload

import numpy as np
import numpy.typing as npt

from treegen.trainer.constants import EPSILON, J48_TOL
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


def average_gain(ctx: Context, scores: dict[int, Score], zeros: Iterable[int] = ()) -> float | None:
    """Release 8's ``AvGain`` over the admissible ``scores`` (section 1 step 5), or None
    when no attribute of ``scores`` counts (then nothing is split).

    ``zeros``: attributes that count with gain 0 besides ``scores`` (the
    subset search's average, :func:`treegen.trainer.subsets.search_zeros`).
    """
    dt = ctx.dtype
    av_sum = dt(0)
    count = 0
    for a, s in scores.items():
        if ctx.counts_in_average(a):
            av_sum = dt(av_sum + dt(s.gain))
            count += 1
    if count == 0:
        return None
    count += sum(1 for a in zeros if ctx.counts_in_average(a))
    return float(dt(av_sum / dt(count)))


def select(ctx: Context, scores: dict[int, Score], criterion: str) -> int:
    """The attribute to test, or -1 (section 1 steps 5-6; J48's C45ModelSelection).

    The average gain is over ``scores`` themselves (with ``--subsets``, the
    groupings' gains: docs/C45.md section 8); a score that is not
    ``selectable`` counts in that average and is never chosen.
    """
    dt = ctx.dtype
    if not scores:
        return -1
    av_or_none = average_gain(ctx, scores)
    if av_or_none is None:
        return -1
    av = av_or_none
    best, best_val = -1, -EPSILON
    if ctx.j48:
        best_val = 0.0
    for a in sorted(scores):
        s = scores[a]
        if not s.selectable:
            continue
        if criterion == "gain":
            val = s.gain
        elif ctx.j48:
            if not s.gain >= av - EPSILON:
                continue
            val = 0.0 if abs(s.info) < J48_TOL else s.gain / s.info
        elif s.gain >= av - EPSILON and s.info > EPSILON:
            val = float(dt(dt(s.gain) / dt(s.info)))
        else:
            val = -EPSILON
        if ctx.j48:
            if val - best_val > J48_TOL:
                best, best_val = a, val
        elif val > best_val:
            best, best_val = a, val
    return best
