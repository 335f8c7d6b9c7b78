"""Which attribute a node tests: Release 8's choice (section 1 steps 5-6), J48's variant.

Shared by both engines; the level-wise engine applies the same rule to a
whole bucket of nodes at once and is tested equal to this one.
"""

from __future__ import annotations

from treegen.trainer.constants import EPSILON, J48_TOL
from treegen.trainer.context import Context
from treegen.trainer.splits import Score


def select(ctx: Context, scores: dict[int, Score], criterion: str) -> int:
    """The attribute to test, or -1 (section 1 steps 5-6; J48's C45ModelSelection)."""
    dt = ctx.dtype
    if not scores:
        return -1
    n_total = ctx.n_rows
    av_sum = dt(0)
    count = 0
    for a, s in scores.items():
        if ctx.multi_val or ctx.kinds[a] == "continuous" or ctx.n_values[a] < 0.3 * n_total:
            av_sum = dt(av_sum + dt(s.gain))
            count += 1
    if count == 0:
        return -1
    av = float(dt(av_sum / dt(count)))
    best, best_val = -1, -EPSILON
    if ctx.j48:
        best_val = 0.0
    for a in sorted(scores):
        s = scores[a]
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
