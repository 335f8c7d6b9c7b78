"""Which branch of a test a case takes (the one rule, shared by growth and pruning).

``-1`` is "unknown value": the case goes down every branch with a
fractional weight.  :func:`subset_table` is the one place a subset test's
value groups become a lookup by value code (both engines, both pruners).

A continuous test sends a known value v left when ``v <= t`` (Release 8), or, for
the j48 flavour, when ``v - t < 1e-6`` in double (J48's ``whichSubset``:
``Utils.smOrEq``), so a value a hair above the threshold goes left as J48 sends it;
:func:`routing_cuts` turns that rule into a plain ``v <= cut``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from treegen.model.core import subset_branches
from treegen.model.j48rule import j48_cuts
from treegen.trainer.context import Context, IntArray
from treegen.trainer.tree import TNode


def subset_table(n_values: int, subsets: Sequence[Sequence[int]]) -> IntArray:
    """Branch of each value code at a subset test: ``table[code]``, -1 for unknown.

    Codes are as :class:`~treegen.trainer.context.Context` stores them: 0 for
    an unknown value, ``v + 1`` for value ``v``.  ``subsets[b]`` lists the
    (0-based) values of branch ``b``; a value in no subset (none reached
    the node in growth) also counts as unknown.
    """
    branches = subset_branches(tuple(tuple(int(v) for v in s) for s in subsets), n_values)
    return np.asarray((-1, *branches), dtype=np.intp)


def routing_cuts(thresholds: npt.ArrayLike, j48: bool) -> npt.NDArray[np.float64]:
    """Per threshold t, the cut c with ``v <= c`` exactly when a value v goes left (module
    docstring): t itself (c45), or for j48 the largest double c with ``c - t < 1e-6``
    (rounding is monotone, so every double up to c passes and none above it)."""
    t = np.asarray(thresholds, dtype=np.float64)
    return j48_cuts(t) if j48 else t


def routing_cut(t: float, j48: bool) -> float:
    """:func:`routing_cuts` of one threshold."""
    return float(routing_cuts(np.asarray([t]), j48)[0])


def branch_of(ctx: Context, node: TNode, rows: IntArray) -> npt.NDArray[np.intp]:
    """Outcome index of each row at test ``node`` (-1 = unknown value)."""
    a = node.attribute
    if node.kind == "continuous":
        v = ctx.value_col(a)[rows]
        out = np.where(v <= routing_cut(node.threshold, ctx.j48), 0, 1)
        out[np.isnan(v)] = -1
        return out.astype(np.intp)
    codes = ctx.codes_at(a, rows)
    if node.kind == "subset":
        return subset_table(ctx.n_values[a], node.subsets)[codes]
    return codes - 1
