"""Which branch of a test a case takes (the one rule, shared by growth and pruning).

``-1`` is "unknown value": the case goes down every branch with a
fractional weight.  :func:`subset_table` is the one place a subset test's
value groups become a lookup by value code (both engines, both pruners).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from treegen.model.core import subset_branches
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


def branch_of(ctx: Context, node: TNode, rows: IntArray) -> npt.NDArray[np.intp]:
    """Outcome index of each row at test ``node`` (-1 = unknown value)."""
    a = node.attribute
    if node.kind == "continuous":
        v = ctx.value_col(a)[rows]
        out = np.where(v <= node.threshold, 0, 1)
        out[np.isnan(v)] = -1
        return out.astype(np.intp)
    codes = ctx.codes_at(a, rows)
    if node.kind == "subset":
        return subset_table(ctx.n_values[a], node.subsets)[codes]
    return codes - 1
