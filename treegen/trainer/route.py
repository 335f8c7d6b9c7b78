"""Which branch of a test a case takes (the one rule, shared by growth and pruning).

``-1`` is "unknown value": the case goes down every branch with a
fractional weight.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.trainer.context import Context, IntArray
from treegen.trainer.tree import TNode


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
        table = np.full(ctx.n_values[a] + 1, -1, dtype=np.intp)
        for b, vals in enumerate(node.subsets):
            table[np.asarray(vals, dtype=np.intp) + 1] = b
        return table[codes]
    return codes - 1
