"""The c45 value groupings of a bucket's nodes (``--subsets``).

Each node's attributes of more than two values are grouped by Release 8's
search, :func:`treegen.trainer.subsets.eval_subset`, on the node's
``Freq[v][c]`` (summed in case order as the plain scores are), and their plain
scores replaced by the groupings'.  A node where a grouping meets an attribute
with no known case would leave MINOBJS at 1 for the rest of the growth
(:func:`~treegen.trainer.subsets.leaking_attribute`); only a depth-first growth
knows which nodes come after it, so :func:`group_values` then gives up and
treegen.trainer.fit grows the tree depth first.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.trainer.context import Context
from treegen.trainer.levelwise.bucket import Bucket, BucketScores
from treegen.trainer.nominal import nominal_freq
from treegen.trainer.options import GrowOptions
from treegen.trainer.subsets import eval_subset, leaking_attribute


def group_values(
    ctx: Context, bucket: Bucket, opts: GrowOptions, scores: BucketScores
) -> npt.NDArray[np.bool_] | None:
    """Replace the plain scores of the bucket's attributes with more than two values by
    their groupings' (c45).

    Returns, per task, that its test is chosen node by node
    (:func:`~treegen.trainer.levelwise.choose.choose` then calls
    :func:`~treegen.trainer.select.select` on its scores, as the node-by-node engine
    does); None where a node would leave MINOBJS at 1.
    """
    multi = [a for a in ctx.nom_pos if ctx.n_values[a] > 2]
    for b, t in enumerate(bucket.tasks):
        if leaking_attribute(ctx, t.rows, t.w, float(bucket.cases[b])) is not None:
            return None
    gainratio = opts.criterion != "gain"
    for b, t in enumerate(bucket.tasks):
        if not multi:
            break
        cases = float(bucket.cases[b])
        f3 = nominal_freq(ctx, multi, t.rows, t.w)
        for j, a in enumerate(multi):
            found = eval_subset(
                ctx, f3[j, : ctx.n_values[a] + 1], cases, cases, ctx.min_cases, gainratio
            )
            if found.score is None:
                scores.ok[b, a] = False
            else:
                scores.set_subset(b, a, found.score)
    return np.ones(bucket.n_tasks, dtype=np.bool_)
