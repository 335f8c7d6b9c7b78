"""A forest's class decided before its last tree (the ifs style's ``PREFIX_EARLY``).

A forest's ``predict`` adds every tree's leaf row of class fractions (each in [0, 1],
each row summing to 1 but for rounding), divides the sums by the tree count T and takes
the first largest.  After k < T trees, a class whose sum is above T/2 has more than half
of all the fractions the T trees can add, so no other class can reach it: the C may
return it without walking the remaining trees.  :func:`early_view` decides where the C
checks (after which trees) and the bound it compares with, T/2 plus a slack that covers
every rounding of the float64 sums and the division, so the class returned is exactly the
one the full arithmetic would give.  The proof is in docs/ensembles.md ("A forest's class
before its last tree"); this module checks its premises on the model's own constants.

Where every leaf is one class's (a fully grown forest: each tree adds 1.0 to one class),
the sums are whole numbers of trees, exact in a double, and the check is the *margin*
instead, exact with no slack: after k trees, with r = T - k left, the first largest sum's
class a is decided when it leads every other class b by more than r, or by r where
a < b (the first largest wins a tie).  It stops sooner than the majority.

Only where the premises hold and the C has hardware doubles: a forest (or any ensemble
whose sums start at +0, whose every value row is in [0, 1] with a sum of at most 1 + eps
and whose divisor is the tree count, decided by the first largest), no ``--proba`` (that
needs every tree), the sums in float64 (``PREFIX_SOFT64`` 0: the soft routines' C stays
as it was, ``PREFIX_EARLY`` is 0 there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from treegen.codegen.literals import c_double
from treegen.ensemble.ir import EnsembleIR

MAX_EPS = 2.0**-40
"""The most a value row's exact sum may exceed 1 (count fractions: a few units in the
last place); beyond it the model is not a forest's and gets no early exit."""

MAX_SLACK = 2.0**-20
"""The largest slack taken: above it (more than about 23,000 trees: 16 T^2 u > 2^-20)
no early exit."""

SMALL_FOREST = 20
"""Below this many trees a forest checks once, after ceil(0.7 T) trees; from it on,
every ceil(T / 20) trees past T / 2 (measured, docs/ensembles.md: on the 10-tree forests
one check was faster than checking after each of trees 6-9; on the 100-tree digits
forests a check every 5 trees beat one at 70 and one after each tree)."""


@dataclass(frozen=True, slots=True)
class EarlyView:
    """The template's part (predict_ensemble_ifs.c.j2 and _ensemble_predict.j2)."""

    early_checks: tuple[int, ...] = ()  # the tree counts k after which the C checks
    early_bound: str = ""  # T/2 + slack, a double literal
    early_slack: str = ""  # the slack as a power of two, for the comment
    early_default: int = 0  # PREFIX_EARLY's default where double is hardware
    # Every leaf one class's: the sums are whole numbers and the check is the margin's
    # (the leader ahead of every other class by more than the trees left), exact.
    early_margin: bool = False


def _eps(values: tuple[tuple[float, ...], ...]) -> Fraction | None:
    """How much the largest exact row sum exceeds 1 (0 if none does), or None where a
    value is outside [0, 1]."""
    worst = Fraction(0)
    for row in values:
        if any(not (0.0 <= v <= 1.0) for v in row):
            return None
        worst = max(worst, sum((Fraction(v) for v in row), Fraction(0)) - 1)
    return worst


def one_class_rows(values: tuple[tuple[float, ...], ...]) -> bool:
    """Whether every value row is one class's: a 1.0 and +0.0 elsewhere (a fully grown
    forest's leaves).  Then the sums are whole numbers of trees, exact in a double."""

    def one_class(row: tuple[float, ...]) -> bool:
        ones = [v for v in row if v == 1.0]
        zeros = [v for v in row if v == 0.0 and math.copysign(1.0, v) > 0]
        return len(ones) == 1 and len(ones) + len(zeros) == len(row)

    return bool(values) and all(one_class(row) for row in values)


def checks(n_trees: int) -> tuple[int, ...]:
    """The tree counts k after which the C checks: each with T/2 < k < T."""
    t = n_trees
    if t < SMALL_FOREST:
        k = math.ceil(0.7 * t)
        return (k,) if 2 * k > t and k < t else ()
    step = math.ceil(t / 20)
    return tuple(k for k in range(step, t, step) if 2 * k > t)


def slack(n_trees: int, eps: Fraction) -> float:
    """The least power of two at least 16 T^2 u + 2 T eps (u = 2^-53): docs/ensembles.md
    shows 4 T^2 u + T eps is enough; the factor of 2 and more is a margin."""
    need = Fraction(16 * n_trees * n_trees, 2**53) + 2 * n_trees * eps
    s = 2.0**-60
    while Fraction(s) < need:
        s *= 2.0
    return s


def early_view(ir: EnsembleIR) -> EarlyView:
    """Where the ifs C of ``ir`` checks for a decided class, or no checks."""
    t = len(ir.trees)
    if (
        ir.doubles != ""  # --proba needs every tree
        or ir.decided
        or ir.float32_sums
        or ir.anomaly is not None
        or ir.decision != "argmax"
        or not ir.vector
        or ir.divisor != float(t)
        or any(v != 0.0 or math.copysign(1.0, v) < 0 for v in ir.init)
    ):
        return EarlyView()
    ks = checks(t)
    # Integer inputs' walks of a small forest were cheap enough that the check cost more
    # than the trees it saved (docs/ensembles.md): there PREFIX_EARLY defaults to 0.
    default = 0 if ir.frame.encoding.is_int and t < SMALL_FOREST else 1
    if ks and one_class_rows(ir.values):
        return EarlyView(ks, early_default=default, early_margin=True)
    eps = _eps(ir.values)
    if eps is None or eps > Fraction(MAX_EPS) or not ks:
        return EarlyView()
    s = slack(t, eps)
    bound = t / 2 + s
    if s > MAX_SLACK or Fraction(bound) != Fraction(t, 2) + Fraction(s):
        return EarlyView()
    return EarlyView(ks, c_double(bound), f"2^{math.frexp(s)[1] - 1}", default)


__all__ = ["EarlyView", "checks", "early_view", "one_class_rows", "slack"]
