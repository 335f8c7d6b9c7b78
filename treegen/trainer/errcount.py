"""A freshly trained tree's training errors, counted from the trainer's own tables.

``treegen train`` reports how many training rows its tree misclassifies.  Classifying
the data's float64 matrix meant holding it beside growth's tables (at 1M rows of 20
attributes, 160 MB: the command's peak went from 224 MB to 379 MB).  The context holds
the same values in less room: each continuous value in the flavour's precision (the
c45 flavour's float32 is what a c45 tree compares; the j48 flavour's float64 is the
value itself) and each nominal value as its code.  So the rows are rebuilt from those
tables a block at a time and classified as ``treegen eval`` classifies them
(:func:`~treegen.model.classify_r8.evaluation_classifier`: a c45 tree by Release 8's
float sums, so that the count is the one Release 8 prints for its training data).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.model.classify_r8 import evaluation_classifier
from treegen.model.core import Model
from treegen.trainer.context import Context
from treegen.trainer.tables import rows_of

# Rows rebuilt at a time: 64k rows of 20 attributes are 10 MB of float64.
BLOCK_ROWS = 1 << 16


def misclassified(model: Model, ctx: Context) -> npt.NDArray[np.bool_]:
    """Per row of the context, whether ``model`` classifies it other than its class (a
    row without a class is, as comparing with its -1 makes it).  The context must
    still hold its data (:func:`~treegen.trainer.fit.grow_prepared`'s ``keep_data``)."""
    n = ctx.n_rows
    assert ctx.cvals.shape[-1] == n + 1 and ctx.ncodes.shape[0] == n + 1, "data spent"
    # eval's classes: Release 8's float sums and the C's fixed-point ones can order a
    # near tie differently (one row in the bench's 1M).
    classify = evaluation_classifier(model)
    width = len(model.schema.attributes)
    wrong = np.empty(n, dtype=np.bool_)
    for lo in range(0, n, BLOCK_ROWS):
        hi = min(lo + BLOCK_ROWS, n)
        wrong[lo:hi] = classify(rows_of(ctx, lo, hi, width)) != ctx.y_small[lo:hi]
    return wrong
